//! `Pow`, `SquaredDifference` and `DivNoNan`: element-wise with broadcasting
//! ([`BinaryOp`] tables), with TensorFlow's gradients.

use super::arithmetic::{mul, neg, sub};
use super::binary::{binary_op, conj_if_complex, reduce_to_inputs, BinaryFns, BinaryOp};
use super::compare::greater;
use super::functions::log;
use super::select::where_v2;
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::ops::array::{ones_like, scalar_like, zeros_like};
use crate::ops::kernels::{broadcast_binary, complex as cx};
use crate::ops::RegisteredOp;
use crate::tensor::Tensor;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&POW, &SQUARED_DIFFERENCE, &DIV_NO_NAN];

/// `Pow(x, y)`: `x^y` (float32, float64, int32, int64; integers wrap, and a negative
/// integer exponent is `InvalidArgument` when run, as TensorFlow's `Integers to negative
/// integer powers are not allowed`). Gradient (`_PowGrad`): `g * y * x^(y - 1)` to `x`,
/// `g * z * log(x)` to `y` where `x > 0` (else 0), summed back to the input shapes.
pub static POW: BinaryOp = BinaryOp::broadcasting(
    "Pow",
    BinaryFns { i32: Some(pow_i32), i64: Some(pow_i64), ..crate::binary_fns!(float: |x, y| x.powf(y)) },
    |c| {
        let s = c.scope;
        let (x, y, z) = (&c.inputs[0], &c.inputs[1], &c.outputs[0]);
        let g = c.grad(0)?;
        let one = scalar_like(&s.named("sub/y"), 1.0, y.dtype())?;
        let gx = mul(s, &mul(s, &g, y)?, &pow(s, x, &sub(s, y, &one)?)?)?;
        let zero = scalar_like(&s.named("Greater/y"), 0.0, x.dtype())?;
        let mask = greater(s, x, &zero)?;
        let safe_x = where_v2(s, &mask, x, &ones_like(s, x)?)?;
        let log_x = where_v2(s, &mask, &log(s, &safe_x)?, &zeros_like(s, x)?)?;
        let gy = mul(s, &mul(s, &g, z)?, &log_x)?;
        let (gx, gy) = reduce_to_inputs(s, x, y, gx, gy)?;
        Ok(vec![Some(gx), Some(gy)])
    },
);

/// `InvalidArgument` when the integer exponents `y` hold a negative value.
fn check_exponents(y: &[i64]) -> Result<()> {
    if y.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument("Integers to negative integer powers are not allowed"));
    }
    Ok(())
}

/// `x^y` for int32 (wrapping).
fn pow_i32(a: Tensor, b: Tensor) -> Result<Tensor> {
    check_exponents(&b.as_slice::<i32>()?.iter().map(|&v| v as i64).collect::<Vec<_>>())?;
    broadcast_binary::<i32, i32>(&a, &b, |x, y| x.wrapping_pow(y as u32))
}

/// `x^y` for int64 (wrapping; by squaring, as exponents may exceed u32).
fn pow_i64(a: Tensor, b: Tensor) -> Result<Tensor> {
    check_exponents(b.as_slice::<i64>()?)?;
    broadcast_binary::<i64, i64>(&a, &b, |x, y| {
        let (mut base, mut e, mut acc) = (x, y, 1i64);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.wrapping_mul(base);
            }
            base = base.wrapping_mul(base);
            e >>= 1;
        }
        acc
    })
}

/// `SquaredDifference(x, y)`: `(x - y)^2` (float32, float64, int32, int64; integers
/// wrap). Gradient (`_SquaredDifferenceGrad`): `(2 * g) * (x - y)` to `x`, its negation
/// to `y`, summed back to the input shapes.
pub static SQUARED_DIFFERENCE: BinaryOp = BinaryOp::broadcasting(
    "SquaredDifference",
    crate::binary_fns!(
        float: |x, y| (x - y) * (x - y),
        int: |x, y| x.wrapping_sub(y).wrapping_mul(x.wrapping_sub(y))
    ),
    |c| {
        let s = c.scope;
        let (x, y) = (&c.inputs[0], &c.inputs[1]);
        let two = scalar_like(&s.named("scalar"), 2.0, x.dtype())?;
        let gx = mul(s, &mul(&s.named("Mul"), &two, &c.grad(0)?)?, &sub(s, x, y)?)?;
        let gy = neg(s, &gx)?;
        let (gx, gy) = reduce_to_inputs(s, x, y, gx, gy)?;
        Ok(vec![Some(gx), Some(gy)])
    },
);

/// `DivNoNan(x, y)`: `x / y`, or 0 where `y` is 0 (float32, float64, complex64,
/// complex128: 0 where both parts of `y` are 0; TensorFlow's "complex sign" `x / |x|` is
/// this op). Gradient (`_DivNoNanGrad`): `div_no_nan(g, y)` to `x`,
/// `g * div_no_nan(div_no_nan(-x, y), y)` to `y` (`x` and `y` conjugated first when
/// complex), summed back to the input shapes.
pub static DIV_NO_NAN: BinaryOp = BinaryOp::broadcasting(
    "DivNoNan",
    crate::binary_fns!(complex: cx::div_no_nan, float: |x, y| if y == 0.0 { 0.0 } else { x / y }),
    |c| {
        let s = c.scope;
        let g = c.grad(0)?;
        let (x, y) = (conj_if_complex(s, &c.inputs[0])?, conj_if_complex(s, &c.inputs[1])?);
        let gx = div_no_nan(s, &g, &y)?;
        let gy = mul(s, &g, &div_no_nan(s, &div_no_nan(s, &neg(s, &x)?, &y)?, &y)?)?;
        let (gx, gy) = reduce_to_inputs(s, &c.inputs[0], &c.inputs[1], gx, gy)?;
        Ok(vec![Some(gx), Some(gy)])
    },
);

/// `tf.pow(x, y)`: op `Pow`, default name `Pow`; `x^y` with broadcasting. float32,
/// float64, int32, int64 (one dtype). Errors: `InvalidArgument` for shapes that do not
/// broadcast and, when run, a negative integer exponent.
pub fn pow(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Pow", "Pow", x, y)
}

/// `tf.math.squared_difference(x, y)`: op `SquaredDifference`, default name
/// `SquaredDifference`; `(x - y)^2` with broadcasting. float32, float64, int32, int64.
pub fn squared_difference(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "SquaredDifference", "SquaredDifference", x, y)
}

/// `tf.math.divide_no_nan(x, y)`: op `DivNoNan`, default name `div_no_nan`; `x / y` with
/// 0 where `y == 0`, broadcasting. float32, float64, complex64, complex128.
pub fn div_no_nan(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "DivNoNan", "div_no_nan", x, y)
}
