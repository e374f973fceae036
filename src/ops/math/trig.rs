//! Inverse trigonometric and hyperbolic functions ([`UnaryOp`] tables, float32 and float64
//! as TensorFlow's CPU kernels; float16/bfloat16 through `ops::half_float`): Asin, Acos,
//! Atan, Sinh, Cosh, Asinh, Acosh, Atanh, and the two-input Atan2 ([`BinaryOp`]), with
//! TensorFlow's gradients (`math_grad.py`).

use super::arithmetic::{add, div, mul, neg, sub};
use super::binary::{binary_op, reduce_to_inputs, BinaryOp};
use super::functions::{reciprocal, sqrt, square};
use super::unary::{unary_op, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::{GradCtx, RegisteredOp};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ASIN, &ACOS, &ATAN, &SINH, &COSH, &ASINH, &ACOSH, &ATANH, &ATAN2];

/// `1 / sqrt(1 - x^2)` (`Square`, `Const`, `Sub`, `Sqrt`, `Reciprocal`), Asin's and Acos's
/// derivative up to sign.
fn inv_sqrt_one_minus_square(s: &Scope, x: &Output) -> Result<Output> {
    let one = scalar_like(s, 1.0, x.dtype())?;
    reciprocal(s, &sqrt(s, &sub(s, &one, &square(s, x)?)?)?)
}

/// `Asin` (float32, float64): NaN outside [-1, 1]. Gradient (`_AsinGrad`):
/// `g * Reciprocal(Sqrt(1 - Square(x)))`.
pub static ASIN: UnaryOp = UnaryOp::new("Asin", crate::unary_fns!(float: |x| x.asin()), |c| {
    let s = c.scope;
    Ok(vec![Some(mul(s, &c.grad(0)?, &inv_sqrt_one_minus_square(s, &c.inputs[0])?)?)])
});

/// `Acos` (float32, float64): NaN outside [-1, 1]. Gradient (`_AcosGrad`):
/// `Neg(g) * Reciprocal(Sqrt(1 - Square(x)))`.
pub static ACOS: UnaryOp = UnaryOp::new("Acos", crate::unary_fns!(float: |x| x.acos()), |c| {
    let s = c.scope;
    let inv = inv_sqrt_one_minus_square(s, &c.inputs[0])?;
    Ok(vec![Some(mul(s, &neg(s, &c.grad(0)?)?, &inv)?)])
});

/// `Atan` (float32, float64). Gradient (`_AtanGrad`): `g * Reciprocal(1 + Square(x))`.
pub static ATAN: UnaryOp = UnaryOp::new("Atan", crate::unary_fns!(float: |x| x.atan()), |c| {
    let s = c.scope;
    let x = &c.inputs[0];
    let one = scalar_like(s, 1.0, x.dtype())?;
    let inv = reciprocal(s, &add(s, &one, &square(s, x)?)?)?;
    Ok(vec![Some(mul(s, &c.grad(0)?, &inv)?)])
});

/// `Sinh` (float32, float64). Gradient (`_SinhGrad`): `g * Cosh(x)`.
pub static SINH: UnaryOp = UnaryOp::new("Sinh", crate::unary_fns!(float: |x| x.sinh()), |c| {
    let s = c.scope;
    Ok(vec![Some(mul(s, &c.grad(0)?, &cosh(s, &c.inputs[0])?)?)])
});

/// `Cosh` (float32, float64). Gradient (`_CoshGrad`): `g * Sinh(x)`.
pub static COSH: UnaryOp = UnaryOp::new("Cosh", crate::unary_fns!(float: |x| x.cosh()), |c| {
    let s = c.scope;
    Ok(vec![Some(mul(s, &c.grad(0)?, &sinh(s, &c.inputs[0])?)?)])
});

/// `Asinh` (float32, float64). Gradient (`_AsinhGrad`, from the output `y`):
/// `g / Cosh(y)` (`RealDiv`).
pub static ASINH: UnaryOp = UnaryOp::new("Asinh", crate::unary_fns!(float: |x| x.asinh()), |c| {
    let s = c.scope;
    Ok(vec![Some(div(s, &c.grad(0)?, &cosh(s, &c.outputs[0])?)?)])
});

/// `Acosh` (float32, float64): NaN below 1. Gradient (`_AcoshGrad`, from the output `y`):
/// `g / Sinh(y)`.
pub static ACOSH: UnaryOp = UnaryOp::new("Acosh", crate::unary_fns!(float: |x| x.acosh()), |c| {
    let s = c.scope;
    Ok(vec![Some(div(s, &c.grad(0)?, &sinh(s, &c.outputs[0])?)?)])
});

/// `Atanh` (float32, float64): `±inf` at `±1`, NaN beyond. Gradient (`_AtanhGrad`):
/// `g * Reciprocal(1 - Square(x))`.
pub static ATANH: UnaryOp = UnaryOp::new("Atanh", crate::unary_fns!(float: |x| x.atanh()), |c| {
    let s = c.scope;
    let x = &c.inputs[0];
    let one = scalar_like(s, 1.0, x.dtype())?;
    let inv = reciprocal(s, &sub(s, &one, &square(s, x)?)?)?;
    Ok(vec![Some(mul(s, &c.grad(0)?, &inv)?)])
});

/// `Atan2(y, x)`: the angle of the point `(x, y)`, in `[-pi, pi]` (float32, float64; with
/// broadcasting). Gradient (`_Atan2Grad`): with `gi = g / (Square(y) + Square(x))`,
/// `x * gi` to `y` and `Neg(y) * gi` to `x`, summed back to the input shapes.
pub static ATAN2: BinaryOp = BinaryOp::broadcasting("Atan2", crate::binary_fns!(float: |y, x| y.atan2(x)), atan2_grad);

fn atan2_grad(c: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let (y, x) = (&c.inputs[0], &c.inputs[1]);
    let gi = div(s, &c.grad(0)?, &add(s, &square(s, y)?, &square(s, x)?)?)?;
    let gy = mul(s, x, &gi)?;
    let gx = mul(s, &neg(s, y)?, &gi)?;
    let (gy, gx) = reduce_to_inputs(s, y, x, gy, gx)?;
    Ok(vec![Some(gy), Some(gx)])
}

/// `tf.math.asin(x)`: op `Asin`, default name `Asin`; same shape as `x`, float32/float64
/// (else `InvalidArgument` at build time).
pub fn asin(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Asin", "Asin", x)
}

/// `tf.math.acos(x)`: op `Acos`, default name `Acos`; same shape as `x`, float32/float64.
pub fn acos(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Acos", "Acos", x)
}

/// `tf.math.atan(x)`: op `Atan`, default name `Atan`; same shape as `x`, float32/float64.
pub fn atan(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Atan", "Atan", x)
}

/// `tf.math.sinh(x)`: op `Sinh`, default name `Sinh`; same shape as `x`, float32/float64.
pub fn sinh(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Sinh", "Sinh", x)
}

/// `tf.math.cosh(x)`: op `Cosh`, default name `Cosh`; same shape as `x`, float32/float64.
pub fn cosh(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Cosh", "Cosh", x)
}

/// `tf.math.asinh(x)`: op `Asinh`, default name `Asinh`; same shape as `x`, float32/float64.
pub fn asinh(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Asinh", "Asinh", x)
}

/// `tf.math.acosh(x)`: op `Acosh`, default name `Acosh`; same shape as `x`, float32/float64.
pub fn acosh(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Acosh", "Acosh", x)
}

/// `tf.math.atanh(x)`: op `Atanh`, default name `Atanh`; same shape as `x`, float32/float64.
pub fn atanh(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Atanh", "Atanh", x)
}

/// `tf.math.atan2(y, x)`: op `Atan2`, default name `Atan2`; the angle of `(x, y)` with
/// broadcasting, float32/float64. Errors: `InvalidArgument` for shapes that do not broadcast
/// or differing dtypes.
pub fn atan2(s: &Scope, y: &Output, x: &Output) -> Result<Output> {
    binary_op(s, "Atan2", "Atan2", y, x)
}
