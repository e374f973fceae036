//! The reduction builders (`tf.reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`,
//! `reduce_all`, `reduce_any`, `reduce_prod`): each adds its op with a constant
//! `reduction_indices` input. The ops themselves, their kernels and gradients are in
//! [`super::reduction`].

use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::ops::array::constant;
use crate::tensor::{DType, Tensor};

/// Builds a reduction op with constant axes (`reduction_indices`).
pub(crate) fn reduction(
    s: &Scope,
    op_type: &str,
    default: &str,
    x: &Output,
    axes: Option<&[i32]>,
    keep_dims: bool,
) -> Result<Output> {
    let axes: Vec<i32> = match axes {
        Some(a) => a.to_vec(),
        None => {
            let r = x.shape().rank().ok_or_else(|| {
                Error::invalid_argument(format!("reducing all axes of {} needs its rank to be known", x.name()))
            })?;
            (0..r as i32).collect()
        }
    };
    let (op, inner) = s.op_scope(default);
    let idx = constant(&inner.named("reduction_indices"), Tensor::vector(axes))?;
    op.op(op_type, default)
        .input(x)
        .input(&idx)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", keep_dims)
        .build_output()
}

/// `tf.reduce_sum(x, axes, keep_dims)`: op `Sum`, default name `Sum`, axes const
/// `Sum/reduction_indices`; `axes = None` reduces all dimensions (needs a known rank).
/// float32/float64/int32/int64. Errors: `InvalidArgument` for an axis out of range.
pub fn reduce_sum(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Sum", "Sum", x, axes, keep_dims)
}

/// `tf.reduce_mean(x, axes, keep_dims)`: op `Mean`, default name `Mean`; as [`reduce_sum`]
/// (integer means truncate).
pub fn reduce_mean(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Mean", "Mean", x, axes, keep_dims)
}

/// `tf.reduce_max(x, axes, keep_dims)`: op `Max`, default name `Max`; as [`reduce_sum`]
/// (NaN wins; an empty input is `InvalidArgument` when run).
pub fn reduce_max(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Max", "Max", x, axes, keep_dims)
}

/// `tf.reduce_min(x, axes, keep_dims)`: op `Min`, default name `Min`; as [`reduce_sum`]
/// (NaN wins; over an empty tensor, the dtype's largest value).
pub fn reduce_min(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Min", "Min", x, axes, keep_dims)
}

/// `tf.reduce_all(x, axes, keep_dims)`: op `All` (attrs `Tidx = int32`, `keep_dims`),
/// default name `All`; logical and of a bool tensor over `axes` (`None`: all). Errors:
/// `InvalidArgument` for a non-bool input or an axis out of range.
pub fn reduce_all(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    bool_reduction(s, "All", x, axes, keep_dims)
}

/// `tf.reduce_any(x, axes, keep_dims)`: op `Any`, default name `Any`; logical or. As
/// [`reduce_all`].
pub fn reduce_any(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    bool_reduction(s, "Any", x, axes, keep_dims)
}

/// `All` / `Any` with constant axes (they have no `T` attr).
fn bool_reduction(s: &Scope, op_type: &str, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    let axes: Vec<i32> = match axes {
        Some(a) => a.to_vec(),
        None => (0..x.shape().rank().unwrap_or(0) as i32).collect(),
    };
    let (op, inner) = s.op_scope(op_type);
    let idx = constant(&inner.named("reduction_indices"), Tensor::vector(axes))?;
    op.op(op_type, op_type).input(x).input(&idx).attr("Tidx", DType::Int32).attr("keep_dims", keep_dims).build_output()
}

/// `tf.reduce_prod(x, axes, keep_dims)`: op `Prod` (attrs `T`, `Tidx = int32`,
/// `keep_dims`), default name `Prod`, axes const `Prod/reduction_indices`; `axes = None`
/// reduces all (needs a known rank). float32/float64/int32/int64. Errors:
/// `InvalidArgument` for an axis out of range. Gradient: TensorFlow's `_ProdGrad`
/// (constant axes, known rank).
pub fn reduce_prod(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Prod", "Prod", x, axes, keep_dims)
}

/// `tf.math.reduce_euclidean_norm(x, axis, keepdims)`: op `EuclideanNorm`, default name
/// `EuclideanNorm`; `sqrt(sum(x^2))` over `axes` (all when `None`). The dtypes of `Sum`.
pub fn reduce_euclidean_norm(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "EuclideanNorm", "EuclideanNorm", x, axes, keep_dims)
}
