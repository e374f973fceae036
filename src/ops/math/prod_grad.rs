//! TensorFlow's `_ProdGrad` (the gradient of `Prod`): the product of all other elements
//! of each reduced group, as an exclusive cumulative product from each side (so zeros are
//! handled), times the gradient broadcast to the input's shape. The reduced axes are
//! moved to the front (a transpose), the input reshaped to [reduced, other], and the
//! transpose undone afterwards; with constant axes and a known rank the permutations are
//! constants, otherwise they are computed as TensorFlow's are (`Rank`, `Range`, `ListDiff`,
//! `ConcatV2`, `InvertPermutation`).

use super::arithmetic::{add, floor_mod, mul};
use super::cumulative::cumprod;
use super::reduce_builders::reduce_prod;
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::array::{
    broadcast_to, cast, concat, constant, gather, list_diff, range_dyn, rank, reshape, shape, stack, transpose,
    transpose_dyn,
};
use crate::tensor::{DType, Tensor};

/// `_ProdGrad` for constant `axes` (normalized, in `0..rank`) of `x` of rank `rank`;
/// `g` is the gradient reshaped to the kept dimensions (1 on the reduced axes).
pub(super) fn prod_grad(s: &Scope, x: &Output, g: &Output, axes: &[usize], rank: usize) -> Result<Output> {
    let input_shape = shape(s, x)?;
    let grad = broadcast_to(s, g, &input_shape)?;
    let other: Vec<usize> = (0..rank).filter(|i| !axes.contains(i)).collect();
    let perm: Vec<i64> = axes.iter().chain(&other).map(|&a| a as i64).collect();
    let mut inverse = vec![0i64; rank];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p as usize] = i as i64;
    }
    let ints = |v: &[usize]| Tensor::vector(v.iter().map(|&a| a as i32).collect::<Vec<_>>());
    let reduced_idx = constant(&s.named("reduced"), ints(axes))?;
    let other_idx = constant(&s.named("other"), ints(&other))?;
    let reduced_num = reduce_prod(s, &gather(s, &input_shape, &reduced_idx, 0)?, Some(&[0]), false)?;
    let other_num = reduce_prod(s, &gather(s, &input_shape, &other_idx, 0)?, Some(&[0]), false)?;
    let permuted = transpose(s, x, &perm)?;
    let permuted_shape = shape(s, &permuted)?;
    let reshaped = reshape(s, &permuted, &stack(s, &[reduced_num, other_num], 0)?)?;
    let left = cumprod(s, &reshaped, 0, true, false)?;
    let right = cumprod(s, &reshaped, 0, true, true)?;
    let y = reshape(s, &mul(s, &left, &right)?, &permuted_shape)?;
    let out = mul(s, &grad, &transpose(s, &y, &inverse)?)?;
    reshape(s, &out, &input_shape)
}

/// `_ProdGrad` when the rank of `x` or the reduction `axes` (int32/int64, a scalar or a
/// vector, negative counting from the end) are known only when the graph runs;
/// `input_shape` is `Shape(x)`, `g` the gradient reshaped to the kept dimensions.
pub(super) fn prod_grad_dyn(s: &Scope, x: &Output, input_shape: &Output, g: &Output, axes: &Output) -> Result<Output> {
    let minus_one = constant(&s.named("Reshape/shape"), Tensor::vector(vec![-1i32]))?;
    let reduction_indices = reshape(s, axes, &minus_one)?;
    let grad = broadcast_to(s, g, input_shape)?;
    let r = rank(s, x)?;
    let reduction_indices =
        if axes.dtype() == DType::Int32 { reduction_indices } else { cast(s, &reduction_indices, DType::Int32)? };
    let reduced = floor_mod(s, &add(s, &reduction_indices, &r)?, &r)?;
    let start = constant(&s.named("range/start"), Tensor::scalar(0i32))?;
    let delta = constant(&s.named("range/delta"), Tensor::scalar(1i32))?;
    let idx = range_dyn(s, &start, &r, &delta)?;
    let (other, _) = list_diff(s, &idx, &reduced, DType::Int32)?;
    let perm = concat(s, &[reduced.clone(), other.clone()], 0)?;
    let reduced_num = reduce_prod(s, &gather(s, input_shape, &reduced, 0)?, Some(&[0]), false)?;
    let other_num = reduce_prod(s, &gather(s, input_shape, &other, 0)?, Some(&[0]), false)?;
    let permuted = transpose_dyn(s, x, &perm)?;
    let permuted_shape = shape(s, &permuted)?;
    let reshaped = reshape(s, &permuted, &stack(s, &[reduced_num, other_num], 0)?)?;
    let left = cumprod(s, &reshaped, 0, true, false)?;
    let right = cumprod(s, &reshaped, 0, true, true)?;
    let y = reshape(s, &mul(s, &left, &right)?, &permuted_shape)?;
    let inverse = s.op("InvertPermutation", "InvertPermutation").input(&perm).attr("T", DType::Int32).build_output()?;
    let out = mul(s, &grad, &transpose_dyn(s, &y, &inverse)?)?;
    reshape(s, &out, input_shape)
}
