//! Sign and rounding functions ([`UnaryOp`] tables): Abs, Sign, Floor, Ceil, Round and
//! Rint (both half to even, as TensorFlow's).

use super::arithmetic::mul;
use super::unary::{unary_op, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::zeros_like;
use crate::ops::kernels::complex as cx;
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ABS, &SIGN, &FLOOR, &CEIL, &ROUND, &RINT];

/// `Abs`: `|x|` (float32, float64, int32, int64, int8, int16; the most negative integer stays itself,
/// as in TensorFlow). Gradient (`_AbsGrad`): `g * Sign(x)`.
pub static ABS: UnaryOp =
    UnaryOp::new("Abs", crate::unary_fns!(float: |x| x.abs(), int: |x| x.wrapping_abs(), signed_small_ints), |c| {
        let s = c.scope;
        Ok(vec![Some(mul(s, &c.grad(0)?, &sign(s, &c.inputs[0])?)?)])
    });

/// `Sign`: -1, 0 or 1 by the sign of `x` (NaN stays NaN, -0.0 gives 0; float32, float64,
/// int32, int64, int8, int16 as TensorFlow's CPU kernels); for complex64 and complex128
/// `x / |x|`, 0 at 0. Gradient
/// (`_SignGrad`): zeros shaped like `x`.
pub static SIGN: UnaryOp = UnaryOp::new(
    "Sign",
    crate::unary_fns!(
        complex: cx::sign,
        float: |x| if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else if x.is_nan() {
            x
        } else {
            0.0
        },
        int: |x| x.signum(),
        signed_small_ints
    ),
    |c| Ok(vec![Some(zeros_like(c.scope, &c.inputs[0])?)]),
);

/// `Floor`: the largest integer not above `x` (float32, float64). No gradient (`None`, as
/// TensorFlow's `_FloorGrad`).
pub static FLOOR: UnaryOp = UnaryOp::new("Floor", crate::unary_fns!(float: |x| x.floor()), |_| Ok(vec![None]));

/// `Ceil`: the smallest integer not below `x` (float32, float64). No gradient.
pub static CEIL: UnaryOp = UnaryOp::new("Ceil", crate::unary_fns!(float: |x| x.ceil()), |_| Ok(vec![None]));

/// `Round`: the nearest integer, halves to even (banker's rounding: 0.5 → 0, 1.5 → 2,
/// -2.5 → -2); integers unchanged. No gradient.
pub static ROUND: UnaryOp =
    UnaryOp::new("Round", crate::unary_fns!(float: |x| x.round_ties_even(), int: |x| x), |_| Ok(vec![None]));

/// `tf.abs(x)`: op `Abs`, default name `Abs`. float32, float64, int32, int64; same shape.
pub fn abs(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Abs", "Abs", x)
}

/// `tf.sign(x)`: op `Sign`, default name `Sign`. float32, float64, int32, int64, int8, int16.
pub fn sign(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Sign", "Sign", x)
}

/// `tf.floor(x)`: op `Floor`, default name `Floor`. float32/float64 only (else
/// `InvalidArgument` at build time).
pub fn floor(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Floor", "Floor", x)
}

/// `tf.math.ceil(x)`: op `Ceil`, default name `Ceil`. float32/float64 only.
pub fn ceil(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Ceil", "Ceil", x)
}

/// `tf.round(x)`: op `Round`, default name `Round`; halves round to even. float32,
/// float64, int32, int64.
pub fn round(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Round", "Round", x)
}

/// `Rint`: the nearest integer, halves to even (float32, float64; as `Round` on floats).
/// No gradient (`None`, as TensorFlow's `_RintGrad`).
pub static RINT: UnaryOp = UnaryOp::new("Rint", crate::unary_fns!(float: |x| x.round_ties_even()), |_| Ok(vec![None]));

/// `tf.math.rint(x)`: op `Rint`, default name `Rint`; same shape as `x`, float32/float64
/// (else `InvalidArgument` at build time).
pub fn rint(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Rint", "Rint", x)
}
