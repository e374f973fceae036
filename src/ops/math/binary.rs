//! The element-wise two-input mechanism: [`BinaryOp`], one table per op (per-dtype kernel
//! functions, output dtype, broadcasting or same-shape inputs, gradient), whose
//! [`RegisteredOp::prepare`] picks the kernel function for the node's dtype once. Also the
//! broadcast-gradient helpers: [`BroadcastGradientArgs`] and `reduce_to_inputs`.

use super::GradFn;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{int_values, reshape, shape};
use crate::ops::kernels::{broadcast_shape, Num};
use crate::ops::{dtype_not_accepted, FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&BroadcastGradientArgs];

/// A whole-tensor kernel function of two inputs of one dtype (the element function
/// inlined into the broadcasting loop). It owns the inputs, so one keeping the dtype may
/// write the output into an input's buffer that nothing else holds
/// (`ops::kernels::broadcast_binary_into`).
pub type Map2 = fn(Tensor, Tensor) -> Result<Tensor>;

/// The kernel functions of a [`BinaryOp`] per input dtype (`None`: no kernel for it), and
/// whether the output is bool (comparisons) or of the inputs' dtype. Written with
/// the crate's `binary_fns!` macro from element functions.
#[derive(Clone, Copy)]
pub struct BinaryFns {
    /// For float32 inputs.
    pub f32: Option<Map2>,
    /// For float64 inputs.
    pub f64: Option<Map2>,
    /// For int32 inputs.
    pub i32: Option<Map2>,
    /// For int64 inputs.
    pub i64: Option<Map2>,
    /// For bool inputs.
    pub bool: Option<Map2>,
    /// For int8 inputs.
    pub i8: Option<Map2>,
    /// For int16 inputs.
    pub i16: Option<Map2>,
    /// For uint8 inputs.
    pub u8: Option<Map2>,
    /// For uint16 inputs.
    pub u16: Option<Map2>,
    /// For complex64 inputs.
    pub c64: Option<Map2>,
    /// For complex128 inputs.
    pub c128: Option<Map2>,
    /// True when the output is bool, false when it has the inputs' dtype.
    pub bool_output: bool,
}

impl BinaryFns {
    /// The kernel function for inputs of dtype `t`.
    pub fn get(&self, t: DType) -> Option<Map2> {
        match t {
            DType::Float => self.f32,
            DType::Double => self.f64,
            DType::Int32 => self.i32,
            DType::Int64 => self.i64,
            DType::Bool => self.bool,
            DType::Int8 => self.i8,
            DType::Int16 => self.i16,
            DType::UInt8 => self.u8,
            DType::UInt16 => self.u16,
            DType::Complex64 => self.c64,
            DType::Complex128 => self.c128,
            _ => None,
        }
    }
    /// The input dtypes with a kernel.
    pub fn dtypes(&self) -> Vec<DType> {
        [
            DType::Float,
            DType::Double,
            DType::Int32,
            DType::Int64,
            DType::Bool,
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

/// `Some(kernel function)` applying element function `$f` of `$t` inputs (output `$u`)
/// with broadcasting.
macro_rules! __map2 {
    ($t:ty => same, $f:expr) => {
        Some(|a: $crate::tensor::Tensor, b: $crate::tensor::Tensor| {
            $crate::ops::kernels::broadcast_binary_into::<$t>(a, b, $f)
        })
    };
    ($t:ty => $u:ty, $f:expr) => {
        Some(|a: $crate::tensor::Tensor, b: $crate::tensor::Tensor| {
            $crate::ops::kernels::broadcast_binary::<$t, $u>(&a, &b, $f)
        })
    };
}
pub(crate) use __map2;

/// [`BinaryFns`] from element functions (each a closure written once, typed per dtype):
/// `float: f` (float32, float64), `float: f, int: g` (and int32, int64) with output of the
/// input dtype; `compare: f` (float32, float64, int32, int64) and `compare: f, bool: g`
/// (and bool) with bool output; comparisons also take int8, int16, uint8, uint16, as
/// `float: f, int: g, small_ints` does with `g` (`Maximum`, `Minimum`). `complex: c, ...`
/// adds complex64 and complex128 (output of the input dtype) computed by `c`, a function
/// generic over the part type (`ops::kernels::complex`), to the tables the rest gives.
macro_rules! binary_fns {
    (complex: $c:expr, $($rest:tt)*) => {
        $crate::ops::math::BinaryFns {
            c64: $crate::__map2!([f32; 2] => same, $c),
            c128: $crate::__map2!([f64; 2] => same, $c),
            ..$crate::binary_fns!($($rest)*)
        }
    };
    (float: $f:expr, int: $i:expr, small_ints) => {
        $crate::ops::math::BinaryFns {
            i8: $crate::__map2!(i8 => same, $i),
            i16: $crate::__map2!(i16 => same, $i),
            u8: $crate::__map2!(u8 => same, $i),
            u16: $crate::__map2!(u16 => same, $i),
            ..$crate::binary_fns!(float: $f, int: $i)
        }
    };
    (float: $f:expr) => {
        $crate::ops::math::BinaryFns {
            f32: $crate::__map2!(f32 => same, $f),
            f64: $crate::__map2!(f64 => same, $f),
            i32: None,
            i64: None,
            bool: None,
            i8: None,
            i16: None,
            u8: None,
            u16: None,
            c64: None,
            c128: None,
            bool_output: false,
        }
    };
    (float: $f:expr, int: $i:expr) => {
        $crate::ops::math::BinaryFns {
            f32: $crate::__map2!(f32 => same, $f),
            f64: $crate::__map2!(f64 => same, $f),
            i32: $crate::__map2!(i32 => same, $i),
            i64: $crate::__map2!(i64 => same, $i),
            bool: None,
            i8: None,
            i16: None,
            u8: None,
            u16: None,
            c64: None,
            c128: None,
            bool_output: false,
        }
    };
    (compare: $f:expr) => {
        $crate::ops::math::BinaryFns {
            f32: $crate::__map2!(f32 => bool, $f),
            f64: $crate::__map2!(f64 => bool, $f),
            i32: $crate::__map2!(i32 => bool, $f),
            i64: $crate::__map2!(i64 => bool, $f),
            bool: None,
            i8: $crate::__map2!(i8 => bool, $f),
            i16: $crate::__map2!(i16 => bool, $f),
            u8: $crate::__map2!(u8 => bool, $f),
            u16: $crate::__map2!(u16 => bool, $f),
            c64: None,
            c128: None,
            bool_output: true,
        }
    };
    (compare: $f:expr, bool: $b:expr) => {
        $crate::ops::math::BinaryFns {
            bool: $crate::__map2!(bool => bool, $b),
            ..$crate::binary_fns!(compare: $f)
        }
    };
}
pub(crate) use binary_fns;

/// An element-wise op of two inputs of one dtype (TensorFlow's `T` attr): the arithmetic
/// ops and comparisons with NumPy broadcasting, the gradient helpers (`SqrtGrad(y, dy)`,
/// `ReluGrad(gradients, features)`, ...) on inputs of one shape.
///
/// Build time: the dtypes must match (and `T`); shapes broadcast (`InvalidArgument`
/// `Dimensions must be equal ... for shapes [2, 3] and [4]`) or merge (`Incompatible
/// shapes: ... (they must be equal)`). Run time: `InvalidArgument` for shapes that do not
/// broadcast (`Incompatible shapes: [4, 3] vs. [2, 3]`) or differ, and for an integer
/// divisor holding 0 where the op divides.
pub struct BinaryOp {
    op_type: &'static str,
    fns: BinaryFns,
    same_shape: bool,
    int_divisor: bool,
    dtypes_at_build: bool,
    grad: GradFn,
}

impl BinaryOp {
    /// An op broadcasting its inputs; dtypes without a kernel are refused when a Rust
    /// builder adds it ([`RegisteredOp::check_kernel`]; an imported graph may hold them).
    pub const fn broadcasting(op_type: &'static str, fns: BinaryFns, grad: GradFn) -> BinaryOp {
        BinaryOp { op_type, fns, same_shape: false, int_divisor: false, dtypes_at_build: true, grad }
    }
    /// An op whose inputs have one shape; dtypes without a kernel are refused as
    /// [`BinaryOp::broadcasting`]'s.
    pub const fn same_shape(op_type: &'static str, fns: BinaryFns, grad: GradFn) -> BinaryOp {
        BinaryOp { op_type, fns, same_shape: true, int_divisor: false, dtypes_at_build: true, grad }
    }
    /// This op, refusing an integer divisor (input 1) holding 0 when run, unless the
    /// result is empty (no element is divided, as TensorFlow's safe division functors).
    pub const fn nonzero_int_divisor(mut self) -> BinaryOp {
        self.int_divisor = true;
        self
    }
    /// This op, accepting from a Rust builder too dtypes it has no kernel for (the session
    /// refuses them when it prepares the node): TensorFlow registers `AddV2`, `Equal`, ...
    /// for dtypes tensorgraph does not compute.
    pub const fn dtypes_checked_when_prepared(mut self) -> BinaryOp {
        self.dtypes_at_build = false;
        self
    }
}

/// A `BinaryOp`'s gradient function for ops with none (comparisons, FloorDiv).
pub(crate) fn no_gradient(_: &GradCtx) -> Result<Vec<Option<Output>>> {
    Ok(vec![None, None])
}

impl RegisteredOp for BinaryOp {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        let shape = if self.same_shape {
            a.merge(b).ok_or_else(|| {
                Error::invalid_argument(format!("Incompatible shapes: {a} vs. {b} (they must be equal)"))
            })?
        } else {
            broadcast_partial(a, b)?
        };
        Ok(vec![(if self.fns.bool_output { DType::Bool } else { t }, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f = self.fns.get(t).ok_or_else(|| no_kernel(self.op_type, t))?;
        let zero_divisor: Option<fn(&Tensor) -> Result<bool>> = match t {
            DType::Int32 if self.int_divisor => Some(has_zero::<i32>),
            DType::Int64 if self.int_divisor => Some(has_zero::<i64>),
            DType::Int8 if self.int_divisor => Some(has_zero::<i8>),
            DType::Int16 if self.int_divisor => Some(has_zero::<i16>),
            DType::UInt8 if self.int_divisor => Some(has_zero::<u8>),
            DType::UInt16 if self.int_divisor => Some(has_zero::<u16>),
            _ => None,
        };
        Ok(Box::new(BinaryKernel { f, same_shape: self.same_shape, zero_divisor }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        (self.grad)(ctx)
    }
    fn check_kernel(&self, node: &Node) -> Result<()> {
        let t = node.attr_type("T")?;
        let allowed = self.fns.dtypes();
        if self.dtypes_at_build && !allowed.contains(&t) {
            return Err(dtype_not_accepted(0, t, &allowed));
        }
        Ok(())
    }
}

/// `InvalidArgument`: `op_type` has no kernel for dtype `t`.
pub(crate) fn no_kernel(op_type: &str, t: DType) -> Error {
    Error::invalid_argument(format!("{op_type} has no kernel for dtype {t}"))
}

/// True when `t` (of element type `T`) holds a 0.
pub(crate) fn has_zero<T: Num>(t: &Tensor) -> Result<bool> {
    Ok(t.as_slice::<T>()?.contains(&T::ZERO))
}

/// A prepared [`BinaryOp`]: its kernel function for the node's dtype and the checks.
struct BinaryKernel {
    f: Map2,
    same_shape: bool,
    zero_divisor: Option<fn(&Tensor) -> Result<bool>>,
}

impl Kernel for BinaryKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        if self.same_shape && (a.shape() != b.shape() || a.dtype() != b.dtype()) {
            return Err(Error::invalid_argument(format!(
                "{} inputs must have one shape and dtype: {} {} vs. {} {}",
                ctx.op_type(),
                a.dtype(),
                fmt_dims(a.shape()),
                b.dtype(),
                fmt_dims(b.shape())
            )));
        }
        // as TensorFlow's safe division functors, only an element actually computed can
        // divide by zero: an empty x (so an empty result) never does
        if let Some(has_zero) = self.zero_divisor {
            if a.num_elements() > 0 && has_zero(b)? {
                return Err(Error::invalid_argument(format!(
                    "Integer division by zero in {} of {} by {}",
                    ctx.op_type(),
                    fmt_dims(a.shape()),
                    fmt_dims(b.shape())
                )));
            }
        }
        let mut inputs = std::mem::take(&mut ctx.inputs).into_iter();
        let (Some(a), Some(b)) = (inputs.next(), inputs.next()) else {
            return Err(Error::invalid_argument(format!("{} takes two inputs", ctx.op_type)));
        };
        Ok(vec![(self.f)(a, b)?])
    }
}

/// Builds a two-input op `op_type` (attr `T` from `a`) named `default`.
pub(crate) fn binary_op(s: &Scope, op_type: &str, default: &str, a: &Output, b: &Output) -> Result<Output> {
    s.op(op_type, default).input(a).input(b).attr("T", a.dtype()).build_output()
}

/// Infers the broadcast shape of two partial shapes; `InvalidArgument` with both shapes.
pub(crate) fn broadcast_partial(a: &Shape, b: &Shape) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::unknown());
    };
    let n = da.len().max(db.len());
    (0..n)
        .map(|i| {
            let x = if i + da.len() >= n { da[i + da.len() - n] } else { Some(1) };
            let y = if i + db.len() >= n { db[i + db.len() - n] } else { Some(1) };
            Ok(match (x, y) {
                (Some(x), Some(y)) if x == y => Some(x),
                (Some(1), y) => y,
                (x, Some(1)) => x,
                (Some(x), Some(y)) => {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {x} and {y} for shapes {a} and {b}"
                    )))
                }
                (None, Some(y)) => Some(y),
                (Some(x), None) => Some(x),
                (None, None) => None,
            })
        })
        .collect()
}

/// Sums broadcast gradients back to the shapes of `x` and `y` (TensorFlow's pattern:
/// `Shape`, `BroadcastGradientArgs`, `Sum`, `Reshape`), skipped when both shapes are
/// known and equal.
pub(crate) fn reduce_to_inputs(s: &Scope, x: &Output, y: &Output, gx: Output, gy: Output) -> Result<(Output, Output)> {
    let (sx, sy) = (x.shape(), y.shape());
    if sx.is_fully_defined() && sx == sy {
        return Ok((gx, gy));
    }
    let shx = shape(s, x)?;
    let shy = shape(&s.named("Shape_1"), y)?;
    let args = s
        .op("BroadcastGradientArgs", "BroadcastGradientArgs")
        .input(&shx)
        .input(&shy)
        .attr("T", DType::Int32)
        .build()?;
    let rx = args.output(0)?;
    let ry = args.output(1)?;
    let gx = reshape(s, &sum_over(s, &gx, &rx)?, &shx)?;
    let gy = reshape(&s.named("Reshape_1"), &sum_over(&s.named("Sum_1"), &gy, &ry)?, &shy)?;
    Ok((gx, gy))
}

/// A `Sum` over computed `axes` (not keeping dims).
pub(crate) fn sum_over(s: &Scope, x: &Output, axes: &Output) -> Result<Output> {
    s.op("Sum", "Sum")
        .input(x)
        .input(axes)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", false)
        .build_output()
}

/// `BroadcastGradientArgs(s0, s1)`: for two shapes (1-d int32/int64), the axes each input
/// was broadcast along (outputs `r0`, `r1`, of the shapes' dtype), for summing gradients
/// back. Errors: `InvalidArgument` for shapes that do not broadcast.
pub struct BroadcastGradientArgs;
impl RegisteredOp for BroadcastGradientArgs {
    fn op_type(&self) -> &'static str {
        "BroadcastGradientArgs"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        Ok(vec![(t, Shape::partial(&[None])), (t, Shape::partial(&[None]))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(broadcast_gradient_args)))
    }
}

fn broadcast_gradient_args(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let a: Vec<usize> = int_values(ctx.input(0))?.iter().map(|&d| d.max(0) as usize).collect();
    let b: Vec<usize> = int_values(ctx.input(1))?.iter().map(|&d| d.max(0) as usize).collect();
    let out = broadcast_shape(&a, &b)?;
    let n = out.len();
    let axes = |s: &[usize]| -> Vec<f64> {
        (0..n)
            .filter(|&i| {
                let d = if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
                d == 1 && out[i] != 1 || i + s.len() < n
            })
            .map(|i| i as f64)
            .collect()
    };
    let dt = ctx.input(0).dtype();
    let mk = |v: Vec<f64>| Tensor::from_f64(dt, &[v.len()], &v);
    Ok(vec![mk(axes(&a))?, mk(axes(&b))?])
}

/// TensorFlow's `_ReduceGradientArgs` for one side: the gradient `g` of a broadcast output
/// `z` summed back to the shape of input `x` (`Shape`, `Shape_1`,
/// `BroadcastGradientArgs`, `Sum`, `Reshape`); `g` itself when both shapes are known and
/// equal.
pub(crate) fn reduce_to_input(s: &Scope, x: &Output, z: &Output, g: Output) -> Result<Output> {
    let (sx, sz) = (x.shape(), z.shape());
    if sx.is_fully_defined() && sx == sz {
        return Ok(g);
    }
    let shx = shape(s, x)?;
    let shz = shape(&s.named("Shape_1"), z)?;
    let args = s
        .op("BroadcastGradientArgs", "BroadcastGradientArgs")
        .input(&shx)
        .input(&shz)
        .attr("T", DType::Int32)
        .build()?;
    reshape(s, &sum_over(s, &g, &args.output(0)?)?, &shx)
}

/// TensorFlow's `math_ops.conj` as its gradients use it: `Conj(x)` (named `Conj`) for a
/// complex `x`, `x` itself for any other dtype (no op).
pub(crate) fn conj_if_complex(s: &Scope, x: &Output) -> Result<Output> {
    if x.dtype().is_complex() {
        s.op("Conj", "Conj").input(x).attr("T", x.dtype()).build_output()
    } else {
        Ok(x.clone())
    }
}
