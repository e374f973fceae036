//! The reduction builders (`tf.reduce_sum`, `reduce_mean`, `reduce_max`, `reduce_min`,
//! `reduce_all`, `reduce_any`, `reduce_prod`): each adds its op with a constant
//! `reduction_indices` input (over every axis of an unknown rank: `range(0, Rank(x))`).
//! The ops themselves, their kernels and gradients are in [`super::reduction`].

use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::{constant, range_from_zero, rank};
use crate::tensor::{DType, Tensor};

/// The `reduction_indices` input of a reduction built in `s` whose helper ops go in `inner`:
/// the constant `inner/reduction_indices` of `axes`, or, for `None`, every axis of `x` (a
/// constant when its rank is known and above 0; otherwise `range(0, Rank(x))` built in `s`'s
/// name scope, nodes `Rank`, `range/start`, `range/delta`, `range`, as TensorFlow's
/// `_ReductionDims`).
fn reduction_indices(s: &Scope, inner: &Scope, x: &Output, axes: Option<&[i32]>) -> Result<Output> {
    let axes: Vec<i32> = match (axes, x.shape().rank()) {
        (Some(a), _) => a.to_vec(),
        (None, Some(r)) if r > 0 => (0..r as i32).collect(),
        // rank 0 too: TensorFlow's `if x_rank:` is false for it
        (None, _) => {
            let outer = s.name_scope("");
            return range_from_zero(&outer, &rank(&outer, x)?);
        }
    };
    constant(&inner.named("reduction_indices"), Tensor::vector(axes))
}

/// Builds a reduction op over `axes` (`None`: all of `x`'s).
pub(crate) fn reduction(
    s: &Scope,
    op_type: &str,
    default: &str,
    x: &Output,
    axes: Option<&[i32]>,
    keep_dims: bool,
) -> Result<Output> {
    let (op, inner) = s.op_scope(default);
    let idx = reduction_indices(s, &inner, x, axes)?;
    op.op(op_type, default)
        .input(x)
        .input(&idx)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", keep_dims)
        .build_output()
}

/// `tf.reduce_sum(x, axes, keep_dims)`: op `Sum`, default name `Sum`, axes const
/// `Sum/reduction_indices`; `axes = None` reduces all dimensions (of an unknown rank: axes
/// `range(0, Rank(x))`, computed when run).
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
    let (op, inner) = s.op_scope(op_type);
    let idx = reduction_indices(s, &inner, x, axes)?;
    op.op(op_type, op_type).input(x).input(&idx).attr("Tidx", DType::Int32).attr("keep_dims", keep_dims).build_output()
}

/// `tf.reduce_prod(x, axes, keep_dims)`: op `Prod` (attrs `T`, `Tidx = int32`,
/// `keep_dims`), default name `Prod`, axes const `Prod/reduction_indices`; `axes = None`
/// reduces all (as [`reduce_sum`]). float32/float64/int32/int64. Errors:
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
