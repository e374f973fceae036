//! The element-wise one-input mechanism: [`UnaryOp`], one table per op (per-dtype kernel
//! functions, gradient), whose [`RegisteredOp::prepare`] picks the kernel function for the node's
//! dtype once. The tables are in `arithmetic.rs` (Neg), `functions.rs` (Square, Sqrt, ...)
//! and `nn.rs` (Relu, Sigmoid, Tanh).

use super::binary::no_kernel;
use super::GradFn;
use crate::error::Result;
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// A whole-tensor kernel function of one input (the element function inlined into the
/// loop). It owns the input, so it may write the output into the input's buffer when
/// nothing else holds it (`ops::kernels::unary_map_into`).
pub type Map1 = fn(Tensor) -> Result<Tensor>;

/// The kernel functions of a [`UnaryOp`] per dtype (`None`: no kernel for it); the output
/// has the input's dtype. Written with the crate's
/// `unary_fns!` macro.
#[derive(Clone, Copy)]
pub struct UnaryFns {
    /// For float32.
    pub f32: Option<Map1>,
    /// For float64.
    pub f64: Option<Map1>,
    /// For int32.
    pub i32: Option<Map1>,
    /// For int64.
    pub i64: Option<Map1>,
    /// For int8.
    pub i8: Option<Map1>,
    /// For int16.
    pub i16: Option<Map1>,
    /// For uint8.
    pub u8: Option<Map1>,
    /// For uint16.
    pub u16: Option<Map1>,
    /// For complex64.
    pub c64: Option<Map1>,
    /// For complex128.
    pub c128: Option<Map1>,
}

impl UnaryFns {
    /// No kernel for any dtype: the base of struct updates (`..UnaryFns::NONE`).
    pub const NONE: UnaryFns = UnaryFns {
        f32: None,
        f64: None,
        i32: None,
        i64: None,
        i8: None,
        i16: None,
        u8: None,
        u16: None,
        c64: None,
        c128: None,
    };
    /// The kernel function for dtype `t`.
    pub fn get(&self, t: DType) -> Option<Map1> {
        match t {
            DType::Float => self.f32,
            DType::Double => self.f64,
            DType::Int32 => self.i32,
            DType::Int64 => self.i64,
            DType::Int8 => self.i8,
            DType::Int16 => self.i16,
            DType::UInt8 => self.u8,
            DType::UInt16 => self.u16,
            DType::Complex64 => self.c64,
            DType::Complex128 => self.c128,
            _ => None,
        }
    }
    /// The dtypes with a kernel.
    pub fn dtypes(&self) -> Vec<DType> {
        [
            DType::Float,
            DType::Double,
            DType::Int32,
            DType::Int64,
            DType::Int8,
            DType::Int16,
            DType::UInt8,
            DType::UInt16,
            DType::Complex64,
            DType::Complex128,
        ]
        .into_iter()
        .filter(|&t| self.get(t).is_some())
        .collect()
    }
}

/// `Some(kernel function)` applying element function `$f` to every `$t` element.
macro_rules! __map1 {
    ($t:ty, $f:expr) => {
        Some(|x: $crate::tensor::Tensor| $crate::ops::kernels::unary_map_into::<$t>(x, $f))
    };
}
pub(crate) use __map1;

/// [`UnaryFns`] from element functions (each a closure written once, typed per dtype):
/// `float: f` (float32, float64) or `float: f, int: g` (and int32, int64); with
/// `signed_small_ints` also int8, int16, with `small_ints` int8, int16, uint8, uint16 (as
/// TensorFlow's CPU kernels register them: `Neg`, `Abs` signed, `Square` all four).
/// `complex: c, ...` adds complex64 and complex128 computed by `c`, a function generic over
/// the part type (`ops::kernels::complex`), to the tables the rest gives.
macro_rules! unary_fns {
    (complex: $c:expr, $($rest:tt)*) => {
        $crate::ops::math::UnaryFns {
            c64: $crate::__map1!([f32; 2], $c),
            c128: $crate::__map1!([f64; 2], $c),
            ..$crate::unary_fns!($($rest)*)
        }
    };
    (float: $f:expr) => {
        $crate::ops::math::UnaryFns {
            f32: $crate::__map1!(f32, $f),
            f64: $crate::__map1!(f64, $f),
            ..$crate::ops::math::UnaryFns::NONE
        }
    };
    (float: $f:expr, int: $i:expr) => {
        $crate::ops::math::UnaryFns {
            f32: $crate::__map1!(f32, $f),
            f64: $crate::__map1!(f64, $f),
            i32: $crate::__map1!(i32, $i),
            i64: $crate::__map1!(i64, $i),
            ..$crate::ops::math::UnaryFns::NONE
        }
    };
    (float: $f:expr, int: $i:expr, signed_small_ints) => {
        $crate::ops::math::UnaryFns {
            i8: $crate::__map1!(i8, $i),
            i16: $crate::__map1!(i16, $i),
            ..$crate::unary_fns!(float: $f, int: $i)
        }
    };
    (float: $f:expr, int: $i:expr, small_ints) => {
        $crate::ops::math::UnaryFns {
            u8: $crate::__map1!(u8, $i),
            u16: $crate::__map1!(u16, $i),
            ..$crate::unary_fns!(float: $f, int: $i, signed_small_ints)
        }
    };
}
pub(crate) use unary_fns;

/// An element-wise op of one input: output dtype and shape are the input's. Build time:
/// the Rust builders refuse a dtype without a kernel ([`RegisteredOp::check_kernel`]); an imported graph is checked only
/// against the dtypes TensorFlow's `OpDef` allows (`ops::schema`, on the `T` attr), so a
/// graph holding a node this op has no kernel for still imports, as in TensorFlow, and the
/// session refuses such a node when it prepares it (`InvalidArgument`, "Tanh has no
/// kernel for dtype complex64"), so only a run that needs it fails.
pub struct UnaryOp {
    op_type: &'static str,
    fns: UnaryFns,
    grad: GradFn,
}

impl UnaryOp {
    /// The op `op_type` computing `fns`, with gradient `grad`.
    pub const fn new(op_type: &'static str, fns: UnaryFns, grad: GradFn) -> UnaryOp {
        UnaryOp { op_type, fns, grad }
    }
}

impl RegisteredOp for UnaryOp {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        let f = self.fns.get(t).ok_or_else(|| no_kernel(self.op_type, t))?;
        Ok(Box::new(UnaryKernel { f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        (self.grad)(ctx)
    }
    fn check_kernel(&self, node: &Node) -> Result<()> {
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        self.fns.get(t).map(|_| ()).ok_or_else(|| no_kernel(self.op_type, t))
    }
}

/// A prepared [`UnaryOp`]: its kernel function for the node's dtype.
struct UnaryKernel {
    f: Map1,
}

impl Kernel for UnaryKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = std::mem::take(&mut ctx.inputs)
            .into_iter()
            .next()
            .ok_or_else(|| crate::error::Error::invalid_argument(format!("{} takes one input", ctx.op_type())))?;
        Ok(vec![(self.f)(x)?])
    }
}

/// Builds a one-input op `op_type` (attr `T`) named `default`.
pub(crate) fn unary_op(s: &Scope, op_type: &str, default: &str, x: &Output) -> Result<Output> {
    s.op(op_type, default).input(x).attr("T", x.dtype()).build_output()
}
