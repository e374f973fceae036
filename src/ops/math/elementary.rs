//! More element-wise functions ([`UnaryOp`] tables, float32 and float64 as TensorFlow's CPU
//! kernels that matter here): Log1p, Expm1 (accurate near 0) and the trigonometric Sin, Cos,
//! Tan, with TensorFlow's gradients (`math_grad.py`).

use super::arithmetic::{add, mul, neg};
use super::functions::{exp, reciprocal, square};
use super::unary::{unary_op, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&LOG1P, &EXPM1, &SIN, &COS, &TAN];

/// `Log1p`: `ln(1 + x)`, accurate for small `x` (float32, float64; `-1` gives `-inf`,
/// below it NaN). Gradient (`_Log1pGrad`): `g * Reciprocal(1 + x)`, from `Const`, `AddV2`,
/// `Reciprocal`, `Mul`.
pub static LOG1P: UnaryOp = UnaryOp::new("Log1p", crate::unary_fns!(float: |x| x.ln_1p()), |c| {
    let s = c.scope;
    let g = c.grad(0)?;
    let one = scalar_like(s, 1.0, g.dtype())?;
    let r = reciprocal(s, &add(s, &one, &c.inputs[0])?)?;
    Ok(vec![Some(mul(s, &g, &r)?)])
});

/// `Expm1`: `e^x - 1`, accurate for small `x` (float32, float64). Gradient
/// (`_Expm1Grad`): `g * Exp(x)`.
pub static EXPM1: UnaryOp = UnaryOp::new("Expm1", crate::unary_fns!(float: |x| x.exp_m1()), |c| {
    let s = c.scope;
    let y = exp(s, &c.inputs[0])?;
    Ok(vec![Some(mul(s, &c.grad(0)?, &y)?)])
});

/// `Sin` (float32, float64; radians). Gradient (`_SinGrad`): `g * Cos(x)`.
pub static SIN: UnaryOp = UnaryOp::new("Sin", crate::unary_fns!(float: |x| x.sin()), |c| {
    let s = c.scope;
    Ok(vec![Some(mul(s, &c.grad(0)?, &cos(s, &c.inputs[0])?)?)])
});

/// `Cos` (float32, float64; radians). Gradient (`_CosGrad`): `Neg(g) * Sin(x)`.
pub static COS: UnaryOp = UnaryOp::new("Cos", crate::unary_fns!(float: |x| x.cos()), |c| {
    let s = c.scope;
    Ok(vec![Some(mul(s, &neg(s, &c.grad(0)?)?, &sin(s, &c.inputs[0])?)?)])
});

/// `Tan` (float32, float64; radians). Gradient (`_TanGrad`): `Square(Reciprocal(Cos(x))) * g`.
pub static TAN: UnaryOp = UnaryOp::new("Tan", crate::unary_fns!(float: |x| x.tan()), |c| {
    let s = c.scope;
    let sec2 = square(s, &reciprocal(s, &cos(s, &c.inputs[0])?)?)?;
    Ok(vec![Some(mul(s, &sec2, &c.grad(0)?)?)])
});

/// `tf.math.log1p(x)`: op `Log1p`, default name `Log1p`; `ln(1 + x)`, same shape as `x`.
/// float32/float64 only (else `InvalidArgument` at build time).
pub fn log1p(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Log1p", "Log1p", x)
}

/// `tf.math.expm1(x)`: op `Expm1`, default name `Expm1`; `e^x - 1`, same shape as `x`.
/// float32/float64 only (else `InvalidArgument` at build time).
pub fn expm1(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Expm1", "Expm1", x)
}

/// `tf.sin(x)`: op `Sin`, default name `Sin`; same shape as `x`, float32/float64 only
/// (else `InvalidArgument` at build time).
pub fn sin(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Sin", "Sin", x)
}

/// `tf.cos(x)`: op `Cos`, default name `Cos`; same shape as `x`, float32/float64 only
/// (else `InvalidArgument` at build time).
pub fn cos(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Cos", "Cos", x)
}

/// `tf.tan(x)`: op `Tan`, default name `Tan`; same shape as `x`, float32/float64 only
/// (else `InvalidArgument` at build time).
pub fn tan(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Tan", "Tan", x)
}
