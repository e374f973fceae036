//! Element-wise unary math ops: Neg, Square, Sqrt, Rsqrt, Exp, Log, Reciprocal, and the
//! gradient helpers SqrtGrad, RsqrtGrad, ReciprocalGrad (TensorFlow's `math_ops`).
//!
//! Ops here are tables: a kernel per dtype as a function pointer plus a gradient function,
//! shared with the activations in `nn.rs`.

use super::array::scalar_like;
use super::kernels::unary_map;
use super::math::{mul, neg};
use super::{GradCtx, InferCtx, KernelCtx, OpDef};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn OpDef] =
    &[&NEG, &SQUARE, &SQRT, &RSQRT, &EXP, &LOG, &RECIPROCAL, &SQRT_GRAD, &RSQRT_GRAD, &RECIPROCAL_GRAD];

/// A gradient function: the gradients of an op's inputs from its [`GradCtx`].
pub(crate) type GradFn = fn(&GradCtx) -> Result<Vec<Option<Output>>>;

const FLOATS: &[DType] = &[DType::Float, DType::Double];
const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

/// An element-wise unary op: output dtype and shape are the input's. Kernels for float32
/// and float64, and for int32/int64 where TensorFlow has them.
pub struct UnaryOp {
    pub(crate) op_type: &'static str,
    pub(crate) f32: fn(f32) -> f32,
    pub(crate) f64: fn(f64) -> f64,
    pub(crate) i32: Option<fn(i32) -> i32>,
    pub(crate) i64: Option<fn(i64) -> i64>,
    pub(crate) grad: GradFn,
}

impl OpDef for UnaryOp {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, if self.i32.is_some() { NUMBERS } else { FLOATS })?;
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let out = match (x.dtype(), self.i32, self.i64) {
            (DType::Float, ..) => unary_map(x, self.f32)?,
            (DType::Double, ..) => unary_map(x, self.f64)?,
            (DType::Int32, Some(f), _) => {
                check_int_reciprocal(self.op_type, x.as_slice::<i32>()?.contains(&0))?;
                unary_map(x, f)?
            }
            (DType::Int64, _, Some(f)) => {
                check_int_reciprocal(self.op_type, x.as_slice::<i64>()?.contains(&0))?;
                unary_map(x, f)?
            }
            (other, ..) => {
                return Err(Error::invalid_argument(format!("{} has no kernel for dtype {other}", self.op_type)))
            }
        };
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        (self.grad)(ctx)
    }
}

/// Integer `1 / 0` has no value: `InvalidArgument` instead of a crash.
fn check_int_reciprocal(op_type: &str, has_zero: bool) -> Result<()> {
    if op_type == "Reciprocal" && has_zero {
        return Err(Error::invalid_argument("Reciprocal of an integer tensor holding 0 (integer division by zero)"));
    }
    Ok(())
}

/// An element-wise op of two inputs of one dtype and shape (no broadcasting), as
/// TensorFlow's `SqrtGrad(y, dy)`, `ReluGrad(gradients, features)`.
pub struct BinaryOp {
    pub(crate) op_type: &'static str,
    pub(crate) f32: fn(f32, f32) -> f32,
    pub(crate) f64: fn(f64, f64) -> f64,
    pub(crate) i32: Option<fn(i32, i32) -> i32>,
    pub(crate) i64: Option<fn(i64, i64) -> i64>,
    pub(crate) grad: GradFn,
}

fn zip_map<T: crate::tensor::Element>(a: &Tensor, b: &Tensor, f: fn(T, T) -> T) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    Tensor::new(a.shape(), x.iter().zip(y).map(|(&x, &y)| f(x, y)).collect())
}

impl OpDef for BinaryOp {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, if self.i32.is_some() { NUMBERS } else { FLOATS })?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        let shape = a
            .merge(b)
            .ok_or_else(|| Error::invalid_argument(format!("Incompatible shapes: {a} vs. {b} (they must be equal)")))?;
        Ok(vec![(t, shape)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        if a.shape() != b.shape() || a.dtype() != b.dtype() {
            return Err(Error::invalid_argument(format!(
                "{} inputs must have one shape and dtype: {} {} vs. {} {}",
                self.op_type,
                a.dtype(),
                fmt_dims(a.shape()),
                b.dtype(),
                fmt_dims(b.shape())
            )));
        }
        let out = match (a.dtype(), self.i32, self.i64) {
            (DType::Float, ..) => zip_map(a, b, self.f32)?,
            (DType::Double, ..) => zip_map(a, b, self.f64)?,
            (DType::Int32, Some(f), _) => zip_map(a, b, f)?,
            (DType::Int64, _, Some(f)) => zip_map(a, b, f)?,
            (other, ..) => {
                return Err(Error::invalid_argument(format!("{} has no kernel for dtype {other}", self.op_type)))
            }
        };
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        (self.grad)(ctx)
    }
}

/// Builds a one-input op `op_type` (attr `T`) named `default`.
pub(crate) fn unary_op(s: &Scope, op_type: &str, default: &str, x: &Output) -> Result<Output> {
    s.op(op_type, default).input(x).attr("T", x.dtype()).build_output()
}

/// Builds a two-input op `op_type` (attr `T` from `a`) named `default`.
pub(crate) fn binary_op(s: &Scope, op_type: &str, default: &str, a: &Output, b: &Output) -> Result<Output> {
    s.op(op_type, default).input(a).input(b).attr("T", a.dtype()).build_output()
}

/// `Neg`: `-x` (float32, float64, int32, int64; integers wrap). Builder: [`neg`].
pub static NEG: UnaryOp = UnaryOp {
    op_type: "Neg",
    f32: |x| -x,
    f64: |x| -x,
    i32: Some(|x| x.wrapping_neg()),
    i64: Some(|x| x.wrapping_neg()),
    grad: |c| Ok(vec![Some(neg(c.scope, &c.grad(0)?)?)]),
};

/// `Square`: `x * x` (float32, float64, int32, int64). Gradient `g * (x * 2)`.
pub static SQUARE: UnaryOp = UnaryOp {
    op_type: "Square",
    f32: |x| x * x,
    f64: |x| x * x,
    i32: Some(|x| x.wrapping_mul(x)),
    i64: Some(|x| x.wrapping_mul(x)),
    grad: |c| {
        let s = c.scope;
        let x = &c.inputs[0];
        let two = scalar_like(s, 2.0, x.dtype())?;
        Ok(vec![Some(mul(&s.named("Mul_1"), &c.grad(0)?, &mul(&s.named("Mul"), x, &two)?)?)])
    },
};

/// `Sqrt`: `x^(1/2)` (float32, float64). Gradient `SqrtGrad(y, g)`.
pub static SQRT: UnaryOp = UnaryOp {
    op_type: "Sqrt",
    f32: f32::sqrt,
    f64: f64::sqrt,
    i32: None,
    i64: None,
    grad: |c| Ok(vec![Some(binary_op(c.scope, "SqrtGrad", "SqrtGrad", &c.outputs[0], &c.grad(0)?)?)]),
};

/// `Rsqrt`: `1 / sqrt(x)` (float32, float64). Gradient `RsqrtGrad(y, g)`.
pub static RSQRT: UnaryOp = UnaryOp {
    op_type: "Rsqrt",
    f32: |x| 1.0 / x.sqrt(),
    f64: |x| 1.0 / x.sqrt(),
    i32: None,
    i64: None,
    grad: |c| Ok(vec![Some(binary_op(c.scope, "RsqrtGrad", "RsqrtGrad", &c.outputs[0], &c.grad(0)?)?)]),
};

/// `Exp`: `e^x` (float32, float64). Gradient `g * y`.
pub static EXP: UnaryOp = UnaryOp {
    op_type: "Exp",
    f32: f32::exp,
    f64: f64::exp,
    i32: None,
    i64: None,
    grad: |c| Ok(vec![Some(mul(&c.scope.named("Mul"), &c.grad(0)?, &c.outputs[0])?)]),
};

/// `Log`: the natural logarithm (float32, float64). Gradient `g * Reciprocal(x)`.
pub static LOG: UnaryOp = UnaryOp {
    op_type: "Log",
    f32: f32::ln,
    f64: f64::ln,
    i32: None,
    i64: None,
    grad: |c| {
        let s = c.scope;
        Ok(vec![Some(mul(&s.named("Mul"), &c.grad(0)?, &reciprocal(s, &c.inputs[0])?)?)])
    },
};

/// `Reciprocal`: `1 / x` (float32, float64, int32, int64; integer 0 is `InvalidArgument`).
/// Gradient `ReciprocalGrad(y, g)`.
pub static RECIPROCAL: UnaryOp = UnaryOp {
    op_type: "Reciprocal",
    f32: |x| 1.0 / x,
    f64: |x| 1.0 / x,
    i32: Some(|x| 1 / x),
    i64: Some(|x| 1 / x),
    grad: |c| Ok(vec![Some(binary_op(c.scope, "ReciprocalGrad", "ReciprocalGrad", &c.outputs[0], &c.grad(0)?)?)]),
};

/// `SqrtGrad(y, dy)`: `dy * 0.5 / y`, the gradient of `y = sqrt(x)`.
pub static SQRT_GRAD: BinaryOp = BinaryOp {
    op_type: "SqrtGrad",
    f32: |y, dy| dy * 0.5 / y,
    f64: |y, dy| dy * 0.5 / y,
    i32: None,
    i64: None,
    // TensorFlow's _SqrtGradGrad: (-g / y * out, 0.5 * g / y)
    grad: |c| {
        let s = c.scope;
        let (y, out, g) = (&c.inputs[0], &c.outputs[0], c.grad(0)?);
        let ga = super::math::div(s, &g, y)?;
        let half = scalar_like(s, 0.5, y.dtype())?;
        Ok(vec![Some(mul(s, &neg(s, &ga)?, out)?), Some(mul(&s.named("mul_1"), &half, &ga)?)])
    },
};

/// `RsqrtGrad(y, dy)`: `dy * -0.5 * y^3`, the gradient of `y = rsqrt(x)`.
pub static RSQRT_GRAD: BinaryOp = BinaryOp {
    op_type: "RsqrtGrad",
    f32: |y, dy| dy * -0.5 * y * y * y,
    f64: |y, dy| dy * -0.5 * y * y * y,
    i32: None,
    i64: None,
    // TensorFlow's _RsqrtGradGrad: (-1.5 * g * dy * y^2, RsqrtGrad(y, g))
    grad: |c| {
        let s = c.scope;
        let (y, dy, g) = (&c.inputs[0], &c.inputs[1], c.grad(0)?);
        let k = scalar_like(s, -1.5, y.dtype())?;
        let ga = mul(s, &mul(s, &mul(s, &k, &g)?, dy)?, &square(s, y)?)?;
        Ok(vec![Some(ga), Some(binary_op(s, "RsqrtGrad", "RsqrtGrad", y, &g)?)])
    },
};

/// `ReciprocalGrad(y, dy)`: `-dy * y * y`, the gradient of `y = 1 / x`.
pub static RECIPROCAL_GRAD: BinaryOp = BinaryOp {
    op_type: "ReciprocalGrad",
    f32: |y, dy| -dy * y * y,
    f64: |y, dy| -dy * y * y,
    i32: None,
    i64: None,
    // TensorFlow's _ReciprocalGradGrad
    grad: |c| grad_of_quadratic_grad(c, "ReciprocalGrad"),
};

/// The gradient of a helper op `op_type(y, dy)` that is `dy * (a - y²)` up to sign,
/// as TensorFlow's `_TanhGradGrad` and `_ReciprocalGradGrad`: `(g * -2 * dy * y, op_type(y, g))`.
pub(super) fn grad_of_quadratic_grad(c: &GradCtx, op_type: &'static str) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let (y, dy, g) = (&c.inputs[0], &c.inputs[1], c.grad(0)?);
    let k = scalar_like(s, -2.0, y.dtype())?;
    let ga = mul(s, &mul(s, &mul(s, &g, &k)?, dy)?, y)?;
    Ok(vec![Some(ga), Some(binary_op(s, op_type, op_type, y, &g)?)])
}

/// `tf.square(x)`: op `Square`, default name `Square`. Same dtype (float32, float64,
/// int32, int64) and shape as `x`; other dtypes are `InvalidArgument` at build time.
pub fn square(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Square", "Square", x)
}

/// `tf.sqrt(x)`: op `Sqrt`, default name `Sqrt`. float32/float64 only (else
/// `InvalidArgument` at build time); negative inputs give NaN as in TensorFlow.
pub fn sqrt(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Sqrt", "Sqrt", x)
}

/// `tf.math.rsqrt(x)`: op `Rsqrt` (`1 / sqrt(x)`), default name `Rsqrt`. float32/float64 only.
pub fn rsqrt(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Rsqrt", "Rsqrt", x)
}

/// `tf.exp(x)`: op `Exp`, default name `Exp`. float32/float64 only.
pub fn exp(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Exp", "Exp", x)
}

/// `tf.log(x)`: op `Log` (natural logarithm), default name `Log`. float32/float64 only;
/// `log(0) = -inf`, negative inputs give NaN.
pub fn log(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Log", "Log", x)
}

/// `tf.reciprocal(x)`: op `Reciprocal` (`1 / x`), default name `Reciprocal`. float32,
/// float64, int32, int64; an integer 0 is `InvalidArgument` when run.
pub fn reciprocal(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Reciprocal", "Reciprocal", x)
}
