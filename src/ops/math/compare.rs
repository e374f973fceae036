//! Comparisons: Greater, GreaterEqual, Less, LessEqual, element-wise with broadcasting
//! and bool output ([`BinaryOp`] tables), and the builder of `Equal` (whose definition,
//! with `NotEqual`'s, is in `equality.rs`, for every dtype). None has a gradient.

use super::binary::{binary_op, no_gradient, BinaryOp};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::RegisteredOp;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&GREATER, &GREATER_EQUAL, &LESS, &LESS_EQUAL];

/// `Greater`: `x > y` (float32, float64, int8, int16, int32, int64, uint8, uint16).
pub static GREATER: BinaryOp =
    BinaryOp::broadcasting("Greater", crate::binary_fns!(compare: |x, y| x > y), no_gradient);

/// `GreaterEqual`: `x >= y` (float32, float64, int8, int16, int32, int64, uint8, uint16).
pub static GREATER_EQUAL: BinaryOp =
    BinaryOp::broadcasting("GreaterEqual", crate::binary_fns!(compare: |x, y| x >= y), no_gradient);

/// `Less`: `x < y` (float32, float64, int8, int16, int32, int64, uint8, uint16).
pub static LESS: BinaryOp = BinaryOp::broadcasting("Less", crate::binary_fns!(compare: |x, y| x < y), no_gradient);

/// `LessEqual`: `x <= y` (float32, float64, int8, int16, int32, int64, uint8, uint16).
pub static LESS_EQUAL: BinaryOp =
    BinaryOp::broadcasting("LessEqual", crate::binary_fns!(compare: |x, y| x <= y), no_gradient);

/// `tf.equal(x, y)`: op `Equal` (attr `incompatible_shape_error = true`), default name
/// `Equal`; bool `x == y` with broadcasting. Any dtype (bool, strings, integers, floats);
/// dtypes must match; shapes that do not broadcast are `InvalidArgument` naming both.
pub fn equal(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("Equal", "Equal").input(x).input(y).attr("T", x.dtype()).attr("incompatible_shape_error", true).build_output()
}

/// `tf.greater(x, y)`: op `Greater`, default name `Greater`; bool `x > y` with broadcasting.
/// float32, float64, int8, int16, int32, int64, uint8, uint16; dtypes must match; incompatible shapes are `InvalidArgument`.
pub fn greater(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Greater", "Greater", x, y)
}

/// `tf.greater_equal(x, y)`: op `GreaterEqual`, default name `GreaterEqual`; bool `x >= y`
/// with broadcasting. float32, float64, int8, int16, int32, int64, uint8, uint16; dtypes must match.
pub fn greater_equal(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "GreaterEqual", "GreaterEqual", x, y)
}

/// `tf.less(x, y)`: op `Less`, default name `Less`; bool `x < y` with broadcasting.
/// float32, float64, int8, int16, int32, int64, uint8, uint16; dtypes must match.
pub fn less(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Less", "Less", x, y)
}

/// `tf.less_equal(x, y)`: op `LessEqual`, default name `LessEqual`; bool `x <= y` with
/// broadcasting. float32, float64, int8, int16, int32, int64, uint8, uint16; dtypes must match.
pub fn less_equal(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "LessEqual", "LessEqual", x, y)
}
