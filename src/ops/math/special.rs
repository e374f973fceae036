//! Special functions ([`UnaryOp`] tables): Erf and Erfc, as TensorFlow's `math_ops`. The
//! values come from the `libm` crate (`erff`/`erf`, `erfcf`/`erfc`), accurate to about an
//! ulp like Eigen's.

use super::arithmetic::{mul, neg};
use super::functions::{exp, square};
use super::unary::{unary_op, UnaryFns, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::kernels::unary_map_into;
use crate::ops::GradCtx;
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ERF, &ERFC];

/// `Erf`: the error function `2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt` (float32,
/// float64). Gradient as TensorFlow's `_ErfGrad`: `g * (2/sqrt(pi)) * exp(-x^2)`, built
/// from `Const`, `Mul`, `Square`, `Neg`, `Exp`.
pub static ERF: UnaryOp = UnaryOp::new(
    "Erf",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, libm::erff)),
        f64: Some(|x| unary_map_into::<f64>(x, libm::erf)),
        i32: None,
        i64: None,
    },
    |c| erf_family_grad(c, std::f64::consts::FRAC_2_SQRT_PI),
);

/// `tf.math.erf(x)`: op `Erf`, default name `Erf`; float32/float64 only (else
/// `InvalidArgument` at build time), shape of `x`. Gradient `g * 2/sqrt(pi) * exp(-x^2)`.
pub fn erf(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Erf", "Erf", x)
}

/// `Erfc`: the complementary error function `1 - erf(x)`, accurate where `erf(x)` is near 1
/// (float32, float64). TensorFlow writes it for `tf.nn.gelu(approximate=False)`. Gradient
/// as TensorFlow's `_ErfcGrad`: `g * (-2/sqrt(pi)) * exp(-x^2)`.
pub static ERFC: UnaryOp = UnaryOp::new(
    "Erfc",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, libm::erfcf)),
        f64: Some(|x| unary_map_into::<f64>(x, libm::erfc)),
        i32: None,
        i64: None,
    },
    |c| erf_family_grad(c, -std::f64::consts::FRAC_2_SQRT_PI),
);

/// `tf.math.erfc(x)`: op `Erfc`, default name `Erfc`; float32/float64 only (else
/// `InvalidArgument` at build time), shape of `x`. Gradient `-g * 2/sqrt(pi) * exp(-x^2)`.
pub fn erfc(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Erfc", "Erfc", x)
}

/// The gradient of Erf (`k = 2/sqrt(pi)`) and Erfc (`k = -2/sqrt(pi)`): `g * k * exp(-x^2)`,
/// from `Const`, `Mul`, `Square`, `Neg`, `Exp`.
fn erf_family_grad(c: &GradCtx, k: f64) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let x = &c.inputs[0];
    let g = c.grad(0)?;
    let k = scalar_like(s, k, g.dtype())?;
    let gk = mul(s, &g, &k)?;
    let e = exp(s, &neg(s, &square(s, x)?)?)?;
    Ok(vec![Some(mul(s, &gk, &e)?)])
}
