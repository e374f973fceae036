//! Special functions ([`UnaryOp`] tables): Erf and Erfc, as TensorFlow's `math_ops`, and
//! their inverses Erfinv and Ndtri. Erf's and Erfc's values come from the `libm` crate
//! (`erff`/`erf`, `erfcf`/`erfc`), accurate to about an ulp like Eigen's; Erfinv's and
//! Ndtri's from `ops::kernels::special_fns` (Cephes' `ndtri`, as Eigen), in float64.

use super::arithmetic::{div, mul, neg};
use super::functions::{exp, square};
use super::unary::{unary_op, UnaryFns, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::kernels::{special_fns, unary_map_into};
use crate::ops::GradCtx;
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ERF, &ERFC, &ERFINV, &NDTRI];

/// `Erf`: the error function `2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt` (float32,
/// float64). Gradient as TensorFlow's `_ErfGrad`: `g * (2/sqrt(pi)) * exp(-x^2)`, built
/// from `Const`, `Mul`, `Square`, `Neg`, `Exp`.
pub static ERF: UnaryOp = UnaryOp::new(
    "Erf",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, libm::erff)),
        f64: Some(|x| unary_map_into::<f64>(x, libm::erf)),
        ..UnaryFns::NONE
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
        ..UnaryFns::NONE
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

/// `Erfinv`: the inverse error function (float32, float64; `±inf` at `±1`, NaN beyond).
/// Gradient (`_ErfinvGrad`, from the output `y`): `g * (sqrt(pi)/2) * Exp(Square(y))`.
pub static ERFINV: UnaryOp = UnaryOp::new(
    "Erfinv",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, |v| special_fns::erfinv(v as f64) as f32)),
        f64: Some(|x| unary_map_into::<f64>(x, special_fns::erfinv)),
        ..UnaryFns::NONE
    },
    |c| {
        let s = c.scope;
        let g = c.grad(0)?;
        let k = scalar_like(s, std::f64::consts::PI.sqrt() / 2.0, g.dtype())?;
        let e = exp(s, &square(s, &c.outputs[0])?)?;
        Ok(vec![Some(mul(s, &mul(s, &g, &k)?, &e)?)])
    },
);

/// `tf.math.erfinv(x)`: op `Erfinv`, default name `Erfinv`; float32/float64 (else
/// `InvalidArgument` at build time), shape of `x`.
pub fn erfinv(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Erfinv", "Erfinv", x)
}

/// `Ndtri`: the standard normal quantile, the inverse of its CDF (float32, float64;
/// `-inf` at 0, `inf` at 1, NaN outside [0, 1]). Gradient (`_NdtriGrad`, from the output
/// `y`): `g * sqrt(2 pi) * Exp(Square(y) / 2)`.
pub static NDTRI: UnaryOp = UnaryOp::new(
    "Ndtri",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, |v| special_fns::ndtri(v as f64) as f32)),
        f64: Some(|x| unary_map_into::<f64>(x, special_fns::ndtri)),
        ..UnaryFns::NONE
    },
    |c| {
        let s = c.scope;
        let g = c.grad(0)?;
        let k = scalar_like(s, (2.0 * std::f64::consts::PI).sqrt(), g.dtype())?;
        let half = div(s, &square(s, &c.outputs[0])?, &scalar_like(s, 2.0, g.dtype())?)?;
        Ok(vec![Some(mul(s, &mul(s, &g, &k)?, &exp(s, &half)?)?)])
    },
);

/// `tf.math.ndtri(x)`: op `Ndtri`, default name `Ndtri`; float32/float64, shape of `x`.
pub fn ndtri(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Ndtri", "Ndtri", x)
}
