//! Special functions ([`UnaryOp`] tables): Erf, as TensorFlow's `math_ops`. The values
//! come from the `libm` crate (`erff`/`erf`), accurate to about an ulp like Eigen's.

use super::arithmetic::{mul, neg};
use super::functions::{exp, square};
use super::unary::{unary_op, UnaryFns, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::kernels::unary_map;
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ERF];

/// `Erf`: the error function `2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt` (float32,
/// float64). Gradient as TensorFlow's `_ErfGrad`: `g * (2/sqrt(pi)) * exp(-x^2)`, built
/// from `Const`, `Mul`, `Square`, `Neg`, `Exp`.
pub static ERF: UnaryOp = UnaryOp::new(
    "Erf",
    UnaryFns {
        f32: Some(|x| unary_map::<f32, f32>(x, libm::erff)),
        f64: Some(|x| unary_map::<f64, f64>(x, libm::erf)),
        i32: None,
        i64: None,
    },
    |c| {
        let s = c.scope;
        let x = &c.inputs[0];
        let g = c.grad(0)?;
        let k = scalar_like(s, std::f64::consts::FRAC_2_SQRT_PI, g.dtype())?;
        let gk = mul(s, &g, &k)?;
        let e = exp(s, &neg(s, &square(s, x)?)?)?;
        Ok(vec![Some(mul(s, &gk, &e)?)])
    },
);

/// `tf.math.erf(x)`: op `Erf`, default name `Erf`; float32/float64 only (else
/// `InvalidArgument` at build time), shape of `x`. Gradient `g * 2/sqrt(pi) * exp(-x^2)`.
pub fn erf(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Erf", "Erf", x)
}
