//! Float classification, bool output of the input's shape: `IsFinite`, `IsNan`, `IsInf`
//! (float32, float64), as TensorFlow's `math_ops`. None is differentiable (TensorFlow
//! registers them `NotDifferentiable`).

use crate::error::Result;
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::unary_map;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&IS_FINITE, &IS_NAN, &IS_INF];

/// `IsFinite(x)`: true where `x` is neither NaN nor infinite.
pub static IS_FINITE: FloatClass = FloatClass { op_type: "IsFinite", f32: f32::is_finite, f64: f64::is_finite };
/// `IsNan(x)`: true where `x` is NaN.
pub static IS_NAN: FloatClass = FloatClass { op_type: "IsNan", f32: f32::is_nan, f64: f64::is_nan };
/// `IsInf(x)`: true where `x` is `+inf` or `-inf`.
pub static IS_INF: FloatClass = FloatClass { op_type: "IsInf", f32: f32::is_infinite, f64: f64::is_infinite };

/// A float predicate per element (attr `T`: float32 or float64), bool output of `x`'s
/// shape. Errors: `InvalidArgument` at build time for other dtypes.
pub struct FloatClass {
    op_type: &'static str,
    f32: fn(f32) -> bool,
    f64: fn(f64) -> bool,
}

impl RegisteredOp for FloatClass {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        Ok(vec![(DType::Bool, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FloatClassKernel { op: self }))
    }
}

/// A prepared [`FloatClass`] op.
struct FloatClassKernel {
    op: &'static FloatClass,
}

impl Kernel for FloatClassKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let y = match x.dtype() {
            DType::Double => unary_map::<f64, bool>(x, self.op.f64)?,
            _ => unary_map::<f32, bool>(x, self.op.f32)?,
        };
        Ok(vec![y])
    }
}

fn float_class(s: &Scope, op_type: &str, x: &Output) -> Result<Output> {
    s.op(op_type, op_type).input(x).attr("T", x.dtype()).build_output()
}

/// `tf.math.is_finite(x)`: op `IsFinite`, default name `IsFinite`; bool, shape of `x`.
/// float32/float64 only (else `InvalidArgument` at build time). No gradient.
pub fn is_finite(s: &Scope, x: &Output) -> Result<Output> {
    float_class(s, "IsFinite", x)
}

/// `tf.math.is_nan(x)`: op `IsNan`, default name `IsNan`; bool, shape of `x`.
/// float32/float64 only (else `InvalidArgument` at build time). No gradient.
pub fn is_nan(s: &Scope, x: &Output) -> Result<Output> {
    float_class(s, "IsNan", x)
}

/// `tf.math.is_inf(x)`: op `IsInf`, default name `IsInf`; bool, shape of `x`.
/// float32/float64 only (else `InvalidArgument` at build time). No gradient.
pub fn is_inf(s: &Scope, x: &Output) -> Result<Output> {
    float_class(s, "IsInf", x)
}
