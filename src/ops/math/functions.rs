//! Element-wise functions ([`UnaryOp`] tables): Square, Sqrt, Rsqrt, Exp, Log, Reciprocal,
//! and the gradient helpers SqrtGrad, RsqrtGrad, ReciprocalGrad ([`BinaryOp`] tables on
//! inputs of one shape), as TensorFlow's `math_ops`.

use super::arithmetic::{div, mul, neg};
use super::binary::{binary_op, conj_if_complex, BinaryOp};
use super::unary::{unary_op, UnaryOp};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::ops::array::scalar_like;
use crate::ops::kernels::complex as cx;
use crate::ops::{GradCtx, RegisteredOp};

pub(super) static DEFS: &[&dyn RegisteredOp] =
    &[&SQUARE, &SQRT, &RSQRT, &EXP, &LOG, &RECIPROCAL, &SQRT_GRAD, &RSQRT_GRAD, &RECIPROCAL_GRAD];

/// `Square`: `x * x` (float32, float64, int32, int64, int8, int16, uint8, uint16,
/// complex64, complex128; integers wrap). Gradient (`_SquareGrad`) `g * (conj(x) * 2)`.
pub static SQUARE: UnaryOp = UnaryOp::new(
    "Square",
    crate::unary_fns!(complex: cx::square, float: |x| x * x, int: |x| x.wrapping_mul(x), small_ints),
    |c| {
        let s = c.scope;
        let x = conj_if_complex(s, &c.inputs[0])?;
        let two = scalar_like(s, 2.0, x.dtype())?;
        Ok(vec![Some(mul(&s.named("Mul_1"), &c.grad(0)?, &mul(&s.named("Mul"), &x, &two)?)?)])
    },
);

/// `Sqrt`: `x^(1/2)` (float32, float64; complex64 and complex128, the principal root).
/// Gradient `SqrtGrad(y, g)`.
pub static SQRT: UnaryOp = UnaryOp::new("Sqrt", crate::unary_fns!(complex: cx::sqrt, float: |x| x.sqrt()), |c| {
    Ok(vec![Some(binary_op(c.scope, "SqrtGrad", "SqrtGrad", &c.outputs[0], &c.grad(0)?)?)])
});

/// `Rsqrt`: `1 / sqrt(x)` (float32, float64). Gradient `RsqrtGrad(y, g)`.
pub static RSQRT: UnaryOp = UnaryOp::new("Rsqrt", crate::unary_fns!(float: |x| 1.0 / x.sqrt()), |c| {
    Ok(vec![Some(binary_op(c.scope, "RsqrtGrad", "RsqrtGrad", &c.outputs[0], &c.grad(0)?)?)])
});

/// `Exp`: `e^x` (float32, float64, complex64, complex128). Gradient (`_ExpGrad`)
/// `g * conj(y)`.
pub static EXP: UnaryOp = UnaryOp::new("Exp", crate::unary_fns!(complex: cx::exp, float: |x| x.exp()), |c| {
    let y = conj_if_complex(c.scope, &c.outputs[0])?;
    Ok(vec![Some(mul(&c.scope.named("Mul"), &c.grad(0)?, &y)?)])
});

/// `Log`: the natural logarithm (float32, float64; complex64 and complex128, the principal
/// branch). Gradient (`_LogGrad`) `g * Reciprocal(conj(x))`.
pub static LOG: UnaryOp = UnaryOp::new("Log", crate::unary_fns!(complex: cx::log, float: |x| x.ln()), |c| {
    let s = c.scope;
    let x = conj_if_complex(s, &c.inputs[0])?;
    Ok(vec![Some(mul(&s.named("Mul"), &c.grad(0)?, &reciprocal(s, &x)?)?)])
});

/// `Reciprocal`: `1 / x` (float32, float64, complex64, complex128; TensorFlow registers no
/// integer kernel for it, so integers are refused when the graph is built). Gradient
/// `ReciprocalGrad(y, g)`.
pub static RECIPROCAL: UnaryOp =
    UnaryOp::new("Reciprocal", crate::unary_fns!(complex: cx::reciprocal, float: |x| 1.0 / x), |c| {
        Ok(vec![Some(binary_op(c.scope, "ReciprocalGrad", "ReciprocalGrad", &c.outputs[0], &c.grad(0)?)?)])
    });

/// `SqrtGrad(y, dy)`: `dy * 0.5 / y`, the gradient of `y = sqrt(x)` (float32, float64;
/// complex64 and complex128: `0.5 * dy / conj(y)`, as TensorFlow's kernel). Gradient
/// (TensorFlow's `_SqrtGradGrad`): `(-conj(g / y) * out, 0.5 * g / y)`.
pub static SQRT_GRAD: BinaryOp = BinaryOp::same_shape(
    "SqrtGrad",
    crate::binary_fns!(
        complex: |y, dy| cx::div(cx::mul([0.5, 0.0], dy), cx::conj(y)),
        float: |y, dy| dy * 0.5 / y
    ),
    |c| {
        let s = c.scope;
        let (y, out, g) = (&c.inputs[0], &c.outputs[0], c.grad(0)?);
        let ga = div(s, &g, y)?;
        let half = scalar_like(s, 0.5, y.dtype())?;
        let ga_conj = conj_if_complex(s, &ga)?;
        Ok(vec![Some(mul(s, &neg(s, &ga_conj)?, out)?), Some(mul(&s.named("mul_1"), &half, &ga)?)])
    },
);

/// `RsqrtGrad(y, dy)`: `dy * -0.5 * y^3`, the gradient of `y = rsqrt(x)` (float32,
/// float64). Gradient (TensorFlow's `_RsqrtGradGrad`): `(-1.5 * g * dy * y^2, RsqrtGrad(y, g))`.
pub static RSQRT_GRAD: BinaryOp =
    BinaryOp::same_shape("RsqrtGrad", crate::binary_fns!(float: |y, dy| dy * -0.5 * y * y * y), |c| {
        let s = c.scope;
        let (y, dy, g) = (&c.inputs[0], &c.inputs[1], c.grad(0)?);
        let k = scalar_like(s, -1.5, y.dtype())?;
        let ga = mul(s, &mul(s, &mul(s, &k, &g)?, dy)?, &square(s, y)?)?;
        Ok(vec![Some(ga), Some(binary_op(s, "RsqrtGrad", "RsqrtGrad", y, &g)?)])
    });

/// `ReciprocalGrad(y, dy)`: `-dy * y * y`, the gradient of `y = 1 / x` (float32, float64;
/// complex64 and complex128: `-conj(y) * conj(y) * dy`, as TensorFlow's kernel). Gradient:
/// TensorFlow's `_ReciprocalGradGrad` (`Unimplemented` for complex).
pub static RECIPROCAL_GRAD: BinaryOp = BinaryOp::same_shape(
    "ReciprocalGrad",
    crate::binary_fns!(
        complex: |y, dy| {
            let c = cx::conj(y);
            cx::mul(cx::mul(cx::neg(c), c), dy)
        },
        float: |y, dy| -dy * y * y
    ),
    |c| grad_of_quadratic_grad(c, "ReciprocalGrad"),
);

/// The gradient of a helper op `op_type(y, dy)` that is `dy * (a - y²)` up to sign,
/// as TensorFlow's `_TanhGradGrad` and `_ReciprocalGradGrad`: `(g * -2 * dy * y, op_type(y, g))`.
/// Errors: `Unimplemented` for complex inputs (TensorFlow conjugates there; not written here).
pub(crate) fn grad_of_quadratic_grad(c: &GradCtx, op_type: &'static str) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let (y, dy, g) = (&c.inputs[0], &c.inputs[1], c.grad(0)?);
    if y.dtype().is_complex() {
        return Err(Error::unimplemented(format!(
            "the gradient of {op_type} ({}) for {}: second-order gradients of complex values through {op_type} are not implemented (TensorFlow's conjugates them)",
            c.node.name,
            y.dtype()
        )));
    }
    let k = scalar_like(s, -2.0, y.dtype())?;
    let ga = mul(s, &mul(s, &mul(s, &g, &k)?, dy)?, y)?;
    Ok(vec![Some(ga), Some(binary_op(s, op_type, op_type, y, &g)?)])
}

/// `tf.square(x)`: op `Square`, default name `Square`. Same dtype (float32, float64,
/// int8, int16, int32, int64, uint8, uint16, complex64, complex128) and shape as `x`; other
/// dtypes are `InvalidArgument` at build time.
pub fn square(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Square", "Square", x)
}

/// `tf.sqrt(x)`: op `Sqrt`, default name `Sqrt`. float32, float64, complex64, complex128
/// (else `InvalidArgument` at build time); negative real inputs give NaN as in TensorFlow.
pub fn sqrt(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Sqrt", "Sqrt", x)
}

/// `tf.math.rsqrt(x)`: op `Rsqrt` (`1 / sqrt(x)`), default name `Rsqrt`. float32/float64 only.
pub fn rsqrt(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Rsqrt", "Rsqrt", x)
}

/// `tf.exp(x)`: op `Exp`, default name `Exp`. float32, float64, complex64, complex128.
pub fn exp(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Exp", "Exp", x)
}

/// `tf.log(x)`: op `Log` (natural logarithm), default name `Log`. float32, float64,
/// complex64, complex128; `log(0) = -inf`, negative real inputs give NaN.
pub fn log(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Log", "Log", x)
}

/// `tf.math.reciprocal(x)`: op `Reciprocal` (`1 / x`), default name `Reciprocal`. float32,
/// float64, complex64, complex128. Errors: `InvalidArgument` naming the op for other dtypes (integers too:
/// TensorFlow has no integer kernel for it).
pub fn reciprocal(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Reciprocal", "Reciprocal", x)
}
