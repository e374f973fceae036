//! `Xdivy`, `Xlogy` and `Xlog1py`: `x / y`, `x * log(y)` and `x * log1p(y)`, 0 wherever
//! `x` is 0 (whatever `y`, NaN included), element-wise with broadcasting ([`BinaryOp`]
//! tables, float32 and float64 as TensorFlow's CPU kernels), with TensorFlow's gradients.

use super::arithmetic::{add, mul, neg};
use super::binary::{binary_op, reduce_to_inputs, BinaryOp};
use super::equality::not_equal;
use super::pow_diff::pow;
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::{cast, scalar_like};
use crate::ops::{GradCtx, RegisteredOp};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&XDIVY, &XLOGY, &XLOG1PY];

/// `Xdivy(x, y)`: `x / y`, 0 where `x == 0` (float32, float64). Gradient (`_XDivyGrad`):
/// `Xdivy(Cast(x != 0), y) * g` to `x`, `Xdivy(Neg(x), Pow(y, 2)) * g` to `y`, summed back.
pub static XDIVY: BinaryOp =
    BinaryOp::broadcasting("Xdivy", crate::binary_fns!(float: |x, y| if x == 0.0 { 0.0 } else { x / y }), |c| {
        x_grad(c, xdivy, |s, x, y| {
            let two = scalar_like(s, 2.0, y.dtype())?;
            xdivy(s, &neg(s, x)?, &pow(s, y, &two)?)
        })
    });

/// `Xlogy(x, y)`: `x * log(y)`, 0 where `x == 0` (float32, float64). Gradient
/// (`_XLogyGrad`): `Xlogy(Cast(x != 0), y) * g` to `x`, `Xdivy(x, y) * g` to `y`, summed
/// back to the input shapes.
pub static XLOGY: BinaryOp =
    BinaryOp::broadcasting("Xlogy", crate::binary_fns!(float: |x, y| if x == 0.0 { 0.0 } else { x * y.ln() }), |c| {
        x_grad(c, xlogy, xdivy)
    });

/// `Xlog1py(x, y)`: `x * log1p(y)`, 0 where `x == 0` (float32, float64). Gradient
/// (`_XLog1pyGrad`): `Xlog1py(Cast(x != 0), y) * g` to `x`, `Xdivy(x, y + 1) * g` to `y`.
pub static XLOG1PY: BinaryOp = BinaryOp::broadcasting(
    "Xlog1py",
    crate::binary_fns!(float: |x, y| if x == 0.0 { 0.0 } else { x * y.ln_1p() }),
    |c| {
        x_grad(c, xlog1py, |s, x, y| {
            let one = scalar_like(s, 1.0, y.dtype())?;
            xdivy(s, x, &add(s, y, &one)?)
        })
    },
);

/// The family's gradient: `op(Cast(NotEqual(x, 0)), y) * g` to `x`, `partial_y(x, y) * g`
/// to `y`, each summed back to its input's shape (`Shape`, `BroadcastGradientArgs`, `Sum`,
/// `Reshape`).
fn x_grad(
    c: &GradCtx,
    op: fn(&Scope, &Output, &Output) -> Result<Output>,
    partial_y: fn(&Scope, &Output, &Output) -> Result<Output>,
) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let (x, y) = (&c.inputs[0], &c.inputs[1]);
    let g = c.grad(0)?;
    let zero = scalar_like(s, 0.0, x.dtype())?;
    let not_zero_x = cast(s, &not_equal(s, x, &zero)?, x.dtype())?;
    let gx = mul(s, &op(s, &not_zero_x, y)?, &g)?;
    let gy = mul(s, &partial_y(s, x, y)?, &g)?;
    let (gx, gy) = reduce_to_inputs(s, x, y, gx, gy)?;
    Ok(vec![Some(gx), Some(gy)])
}

/// `tf.math.xdivy(x, y)`: op `Xdivy`, default name `Xdivy`; broadcasting, float32/float64.
/// Errors: `InvalidArgument` for shapes that do not broadcast or differing dtypes.
pub fn xdivy(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Xdivy", "Xdivy", x, y)
}

/// `tf.math.xlogy(x, y)`: op `Xlogy`, default name `Xlogy`; broadcasting, float32/float64.
pub fn xlogy(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Xlogy", "Xlogy", x, y)
}

/// `tf.math.xlog1py(x, y)`: op `Xlog1py`, default name `Xlog1py`; broadcasting,
/// float32/float64.
pub fn xlog1py(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Xlog1py", "Xlog1py", x, y)
}
