//! The gamma family: Lgamma, Digamma ([`UnaryOp`] tables) and the two-input Polygamma and
//! Zeta ([`BinaryOp`]s with broadcasting), float32 and float64 as TensorFlow's CPU kernels,
//! with TensorFlow's gradients: Lgamma's is Digamma, Digamma's is Polygamma(1, x),
//! Polygamma's (to `x`) is Polygamma(n + 1, x) and Zeta's (to `q`) is `-x * Zeta(x + 1, q)`;
//! neither of the last two has one to its first input (TensorFlow's `None`). Values from
//! `libm` (`lgamma`) and `ops::kernels::special_fns` (Cephes, as Eigen), computed in float64.

use super::arithmetic::{add, mul, neg};
use super::binary::{binary_op, reduce_to_input, BinaryOp};
use super::unary::{unary_op, UnaryFns, UnaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::kernels::special_fns;
use crate::ops::kernels::{broadcast_binary_into, unary_map_into};
use crate::ops::{GradCtx, RegisteredOp};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&LGAMMA, &DIGAMMA, &POLYGAMMA, &ZETA];

/// `Lgamma`: `ln|Gamma(x)|` (float32, float64; `inf` at the poles 0, -1, ...). Gradient
/// (`_LgammaGrad`): `g * Digamma(x)`.
pub static LGAMMA: UnaryOp = UnaryOp::new(
    "Lgamma",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, libm::lgammaf)),
        f64: Some(|x| unary_map_into::<f64>(x, libm::lgamma)),
        ..UnaryFns::NONE
    },
    |c| {
        let s = c.scope;
        Ok(vec![Some(mul(s, &c.grad(0)?, &digamma(s, &c.inputs[0])?)?)])
    },
);

/// `Digamma`: `psi(x)`, the derivative of `ln Gamma(x)` (float32, float64; NaN at the poles
/// 0, -1, ...). Gradient (`_DigammaGrad`): `g * Polygamma(Const(1), x)`.
pub static DIGAMMA: UnaryOp = UnaryOp::new(
    "Digamma",
    UnaryFns {
        f32: Some(|x| unary_map_into::<f32>(x, |v| special_fns::digamma(v as f64) as f32)),
        f64: Some(|x| unary_map_into::<f64>(x, special_fns::digamma)),
        ..UnaryFns::NONE
    },
    |c| {
        let s = c.scope;
        let x = &c.inputs[0];
        let one = scalar_like(s, 1.0, x.dtype())?;
        Ok(vec![Some(mul(s, &c.grad(0)?, &polygamma(s, &one, x)?)?)])
    },
);

/// `Polygamma(a, x)`: `psi^(a)(x)`, the `a`-th derivative of digamma (float32, float64;
/// broadcasting; NaN for a non-integer `a`). Gradient (`_PolygammaGrad`): none to `a`;
/// `Polygamma(a + 1, x) * g` to `x`, summed back to its shape.
pub static POLYGAMMA: BinaryOp = BinaryOp::broadcasting(
    "Polygamma",
    crate::ops::math::BinaryFns {
        f32: Some(|a, b| broadcast_binary_into::<f32>(a, b, |n, x| special_fns::polygamma(n as f64, x as f64) as f32)),
        f64: Some(|a, b| broadcast_binary_into::<f64>(a, b, special_fns::polygamma)),
        ..crate::binary_fns!(float: |_, _| 0.0)
    },
    |c| second_input_grad(c, |s, n, x| polygamma(s, &add(s, n, &scalar_like(s, 1.0, n.dtype())?)?, x)),
);

/// `Zeta(x, q)`: the Hurwitz zeta function `sum over k >= 0 of (k + q)^-x` (float32,
/// float64; broadcasting; `inf` at `x == 1`, NaN below). Gradient (`_ZetaGrad`): none to
/// `x`; `-x * Zeta(x + 1, q) * g` to `q`, summed back to its shape.
pub static ZETA: BinaryOp = BinaryOp::broadcasting(
    "Zeta",
    crate::ops::math::BinaryFns {
        f32: Some(|a, b| broadcast_binary_into::<f32>(a, b, |x, q| special_fns::zeta(x as f64, q as f64) as f32)),
        f64: Some(|a, b| broadcast_binary_into::<f64>(a, b, special_fns::zeta)),
        ..crate::binary_fns!(float: |_, _| 0.0)
    },
    |c| {
        second_input_grad(c, |s, x, q| {
            let x1 = add(s, x, &scalar_like(s, 1.0, x.dtype())?)?;
            mul(s, &neg(s, x)?, &zeta(s, &x1, q)?)
        })
    },
);

/// The gradient of Polygamma and Zeta: none to the first input, `partial(a, b) * g` to the
/// second, summed back to its shape.
fn second_input_grad(
    c: &GradCtx,
    partial: impl Fn(&Scope, &Output, &Output) -> Result<Output>,
) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let (a, b) = (&c.inputs[0], &c.inputs[1]);
    let gb = mul(s, &partial(s, a, b)?, &c.grad(0)?)?;
    Ok(vec![None, Some(reduce_to_input(s, b, &c.outputs[0], gb)?)])
}

/// `tf.math.lgamma(x)`: op `Lgamma`, default name `Lgamma`; same shape as `x`,
/// float32/float64 (else `InvalidArgument` at build time).
pub fn lgamma(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Lgamma", "Lgamma", x)
}

/// `tf.math.digamma(x)`: op `Digamma`, default name `Digamma`; same shape as `x`,
/// float32/float64.
pub fn digamma(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Digamma", "Digamma", x)
}

/// `tf.math.polygamma(a, x)`: op `Polygamma`, default name `Polygamma`; broadcasting,
/// float32/float64 (one dtype). Errors: `InvalidArgument` for shapes that do not broadcast.
pub fn polygamma(s: &Scope, a: &Output, x: &Output) -> Result<Output> {
    binary_op(s, "Polygamma", "Polygamma", a, x)
}

/// `tf.math.zeta(x, q)`: op `Zeta`, default name `Zeta`; broadcasting, float32/float64.
/// Errors: `InvalidArgument` for shapes that do not broadcast.
pub fn zeta(s: &Scope, x: &Output, q: &Output) -> Result<Output> {
    binary_op(s, "Zeta", "Zeta", x, q)
}
