//! `TruncateDiv` and `TruncateMod`: division rounding toward zero and its remainder (C's
//! `/` and `%`, the remainder taking the sign of `x`), element-wise with broadcasting
//! ([`BinaryOp`] tables with TensorFlow's CPU dtypes). Neither has a gradient: TensorFlow
//! registers `None` for TruncateDiv and none at all for TruncateMod.
//!
//! An integer divisor holding 0 is refused when run as TensorFlow refuses it: `Internal`,
//! `Unexpected error in binary operator (only integer div and mod should have errors)`
//! (its safe-division functor flags the error, which these ops' kernels do not expect).

use super::binary::{binary_op, no_gradient, BinaryFns, BinaryOp};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&TRUNCATE_DIV, &TRUNCATE_MOD];

/// TensorFlow's error for an integer 0 divisor in these ops.
fn zero_divisor() -> Error {
    Error::internal("Unexpected error in binary operator (only integer div and mod should have errors)")
}

/// `Some(kernel function)` for integer type `$t`: `x.$op(y)` with broadcasting, refusing a
/// 0 in `y` unless the result is empty.
macro_rules! int_fn {
    ($t:ty, $op:ident) => {
        Some(|a: crate::tensor::Tensor, b: crate::tensor::Tensor| {
            if a.num_elements() > 0 && b.as_slice::<$t>()?.contains(&0) {
                return Err(zero_divisor());
            }
            crate::ops::kernels::broadcast_binary_into::<$t>(a, b, |x, y| x.$op(y))
        })
    };
}

/// `TruncateDiv(x, y)`: `x / y` rounded toward zero (float32, float64, int8, int16, int32,
/// int64, uint8, uint16; integers wrap at `MIN / -1`). Errors when run: `Internal` for an
/// integer 0 divisor (see the module). No gradient.
pub static TRUNCATE_DIV: BinaryOp = BinaryOp::broadcasting(
    "TruncateDiv",
    BinaryFns {
        i32: int_fn!(i32, wrapping_div),
        i64: int_fn!(i64, wrapping_div),
        i8: int_fn!(i8, wrapping_div),
        i16: int_fn!(i16, wrapping_div),
        u8: int_fn!(u8, wrapping_div),
        u16: int_fn!(u16, wrapping_div),
        ..crate::binary_fns!(float: |x, y| (x / y).trunc())
    },
    no_gradient,
);

/// `TruncateMod(x, y)`: the remainder of [`TRUNCATE_DIV`], the sign of `x` (C's `fmod` for
/// floats; float32, float64, int32, int64). Errors when run: `Internal` for an integer 0
/// divisor. No gradient.
pub static TRUNCATE_MOD: BinaryOp = BinaryOp::broadcasting(
    "TruncateMod",
    BinaryFns {
        i32: int_fn!(i32, wrapping_rem),
        i64: int_fn!(i64, wrapping_rem),
        ..crate::binary_fns!(float: |x, y| x % y)
    },
    no_gradient,
);

/// `tf.truncatediv(x, y)`: op `TruncateDiv`, default name `TruncateDiv`; broadcasting.
/// Errors: `InvalidArgument` for shapes that do not broadcast or a dtype without a kernel;
/// `Internal` when run with an integer 0 divisor.
pub fn truncate_div(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "TruncateDiv", "TruncateDiv", x, y)
}

/// `tf.truncatemod(x, y)`: op `TruncateMod`, default name `TruncateMod`; broadcasting,
/// float32/float64/int32/int64. Errors as [`truncate_div`].
pub fn truncate_mod(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "TruncateMod", "TruncateMod", x, y)
}
