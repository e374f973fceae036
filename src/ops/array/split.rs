//! `Split` (`tf.split` into equal parts; the axis first, as TensorFlow 1.x wrote it) and
//! `SplitV` (`tf.split` into given sizes).

use super::layout::{norm_axis, scalar_int};
use super::{concat_dyn, const_under, constant, int_values};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// The `num_split` attr (at least 1; the schema checks the minimum).
fn num_split(node: &Node) -> Result<usize> {
    let n = node.attr_int_or("num_split", 0)?;
    usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
        Error::invalid_argument(format!("attr 'num_split' of op '{}' must be at least 1, got {n}", node.name))
    })
}

/// The split dimension in `[0, rank)` from `split_dim` (negative counts from the end).
/// Errors: `InvalidArgument` in TensorFlow's kernel words.
fn split_axis(split_dim: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    let d = if split_dim < 0 { split_dim + r } else { split_dim };
    if d < 0 || d >= r {
        return Err(Error::invalid_argument(format!(
            "-input rank(-{r}) <= split_dim < input rank ({r}), but got {split_dim}"
        )));
    }
    Ok(d as usize)
}

/// The pieces of `x` along `axis` of the given sizes (summing to the dimension).
fn split_pieces(x: &Tensor, axis: usize, sizes: &[usize]) -> Result<Vec<Tensor>> {
    let dims = x.shape();
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product();
    let mut start = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for &len in sizes {
        let mut idx = Vec::with_capacity(outer * len * inner);
        for o in 0..outer {
            let base = (o * dims[axis] + start) * inner;
            idx.extend(base..base + len * inner);
        }
        let mut shape = dims.to_vec();
        shape[axis] = len;
        out.push(Tensor::from_storage(&shape, x.storage().gather(&idx))?);
        start += len;
    }
    Ok(out)
}

/// `Split(split_dim, value)`: `value` cut into `num_split` (attr) equal parts along
/// `split_dim` (int32 scalar, input 0; negative counts from the end). All dtypes. Errors:
/// `InvalidArgument` (TensorFlow's words) for an axis out of range or a dimension that
/// `num_split` does not divide, at build time when the axis is a constant and the dimension
/// known. Gradient (TensorFlow's `_SplitGrad`): the output gradients concatenated along
/// `split_dim` (`ConcatV2`), zeros for outputs without one.
pub struct Split;
impl RegisteredOp for Split {
    fn op_type(&self) -> &'static str {
        "Split"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::Int32])?;
        let n = num_split(ctx.node)?;
        let (t, x) = (ctx.dtype(1), ctx.shape(1));
        let Some(dims) = x.dims() else { return Ok(vec![(t, Shape::unknown()); n]) };
        let Some(axis) = ctx.const_input(0) else { return Ok(vec![(t, Shape::partial(&vec![None; dims.len()])); n]) };
        let split_dim = scalar_int(&axis, "Split split_dim")?;
        let r = dims.len() as i64;
        if split_dim < -r || split_dim >= r {
            return Err(Error::invalid_argument(format!(
                "Dimension size, given by scalar input {split_dim} must be in range [-{r}, {r}) (Split of shape {x})"
            )));
        }
        let axis = norm_axis(split_dim, dims.len(), "Split")?;
        let mut out = dims.to_vec();
        if let Some(d) = dims[axis] {
            if !d.is_multiple_of(n) {
                return Err(Error::invalid_argument(format!(
                    "Dimension size must be evenly divisible by {n} but is {d}\n\tNumber of ways to split should evenly divide the split dimension (Split of shape {x} along {axis})"
                )));
            }
            out[axis] = Some(d / n);
        }
        Ok(vec![(t, Shape::partial(&out)); n])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SplitKernel { num_split: num_split(node)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let grads = (0..ctx.outputs.len()).map(|i| ctx.grad(i)).collect::<Result<Vec<_>>>()?;
        Ok(vec![None, Some(concat_dyn(ctx.scope, &grads, &ctx.inputs[0])?)])
    }
}

/// The prepared `Split`: its number of parts.
struct SplitKernel {
    num_split: usize,
}

impl Kernel for SplitKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(1);
        let split_dim = scalar_int(ctx.input(0), "Split split_dim")?;
        let axis = split_axis(split_dim, x.rank())?;
        let d = x.shape()[axis];
        let n = self.num_split;
        if !d.is_multiple_of(n) {
            return Err(Error::invalid_argument(format!(
                "Number of ways to split should evenly divide the split dimension, but got split_dim {axis} (size = {d}) and num_split {n}"
            )));
        }
        split_pieces(x, axis, &vec![d / n; n])
    }
}

/// `SplitV(value, size_splits, split_dim)`: `value` cut along `split_dim` (int32 scalar)
/// into `num_split` (attr) parts of the sizes in `size_splits` (int32/int64 vector, attr
/// `Tlen`; one entry may be -1, meaning what the others leave). All dtypes. Errors:
/// `InvalidArgument` in TensorFlow's words for more than one -1, sizes that do not add up to
/// the dimension, a `size_splits` whose length is not `num_split`, or an axis out of range
/// (at build time when the arguments are constants). Gradient (TensorFlow's `_SplitVGrad`):
/// the output gradients concatenated along `split_dim`.
pub struct SplitV;
impl SplitV {
    /// The concrete sizes of `size_splits` for a dimension of `dim` (the -1 resolved), with
    /// the kernel's error words.
    fn sizes(size_splits: &[i64], dim: usize) -> Result<Vec<usize>> {
        let mut out: Vec<i64> = size_splits.to_vec();
        let mut unknown = None;
        let mut known = 0i64;
        for (i, &v) in size_splits.iter().enumerate() {
            if v == -1 {
                if unknown.is_some() {
                    return Err(Error::invalid_argument("There can only be one -1 in the input."));
                }
                unknown = Some(i);
            } else {
                known = known.saturating_add(v);
            }
        }
        let dim = dim as i64;
        let ok = match unknown {
            Some(_) => known <= dim,
            None => known == dim,
        };
        if !ok {
            return Err(Error::invalid_argument(format!(
                "Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: {known}"
            )));
        }
        if let Some(u) = unknown {
            out[u] = dim - known;
        }
        if let Some(i) = out.iter().position(|&v| v < 0) {
            return Err(Error::invalid_argument(format!("Split size at index {i} must be >= 0. Got: {}", out[i])));
        }
        Ok(out.iter().map(|&v| v as usize).collect())
    }
}
impl RegisteredOp for SplitV {
    fn op_type(&self) -> &'static str {
        "SplitV"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(1, &[DType::Int8, DType::Int32, DType::Int64])?;
        ctx.check_dtype(2, &[DType::Int32])?;
        let n = num_split(ctx.node)?;
        let (t, x) = (ctx.dtype(0), ctx.shape(0));
        let sizes = ctx.const_input(1).map(|s| int_values_any(&s)).transpose()?;
        if let Some(sizes) = &sizes {
            if sizes.len() != n {
                return Err(Error::invalid_argument(format!(
                    "Length of size_splits should be equal to num_outputs (size_splits {sizes:?}, num_split {n})"
                )));
            }
            if sizes.iter().filter(|&&v| v == -1).count() > 1 {
                return Err(Error::invalid_argument("size_splits can only have one -1"));
            }
        }
        let Some(dims) = x.dims() else { return Ok(vec![(t, Shape::unknown()); n]) };
        let Some(axis) = ctx.const_input(2) else { return Ok(vec![(t, Shape::partial(&vec![None; dims.len()])); n]) };
        let axis = norm_axis(scalar_int(&axis, "SplitV split_dim")?, dims.len(), "SplitV")?;
        let per_output: Vec<Option<usize>> = match (&sizes, dims[axis]) {
            (Some(sizes), Some(d)) => {
                let resolved = Self::sizes(sizes, d).map_err(|_| {
                    Error::invalid_argument(format!(
                        "can't split axis of size {d} into pieces of size [{}]",
                        sizes.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
                    ))
                })?;
                resolved.into_iter().map(Some).collect()
            }
            (Some(sizes), None) => sizes.iter().map(|&v| usize::try_from(v).ok()).collect(),
            (None, _) => vec![None; n],
        };
        Ok(per_output
            .into_iter()
            .map(|len| {
                let mut d = dims.to_vec();
                d[axis] = len;
                (t, Shape::partial(&d))
            })
            .collect())
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SplitVKernel { num_split: num_split(node)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let grads = (0..ctx.outputs.len()).map(|i| ctx.grad(i)).collect::<Result<Vec<_>>>()?;
        Ok(vec![Some(concat_dyn(ctx.scope, &grads, &ctx.inputs[2])?), None, None])
    }
}

/// The values of an int8/int32/int64 tensor (`SplitV`'s `Tlen`).
fn int_values_any(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::Int8 => Ok(t.as_slice::<i8>()?.iter().map(|&v| v as i64).collect()),
        _ => int_values(t),
    }
}

/// The prepared `SplitV`: its number of parts.
struct SplitVKernel {
    num_split: usize,
}

impl Kernel for SplitVKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, splits) = (ctx.input(0), ctx.input(1));
        let axis = split_axis(scalar_int(ctx.input(2), "SplitV split_dim")?, x.rank())?;
        if splits.rank() != 1 || splits.num_elements() != self.num_split {
            return Err(Error::invalid_argument(format!(
                "size of the split_tensor must be 1-D and have the same elements as outputs got {} -D and {} elements (num_split {})",
                splits.rank(),
                splits.num_elements(),
                self.num_split
            )));
        }
        let sizes = SplitV::sizes(&int_values_any(splits)?, x.shape()[axis])?;
        split_pieces(x, axis, &sizes)
    }
}

/// `tf.split(value, num_split, axis)`: op `Split` (attrs `num_split`, `T`), default name
/// `split`, the axis a constant `split/split_dim`; `num_split` equal parts. Errors as
/// [`Split`]'s.
pub fn split(s: &Scope, value: &Output, num_split: usize, axis: i32) -> Result<Vec<Output>> {
    let base = s.unique_op_name("split");
    let dim = const_under(s, &base, "split_dim", Tensor::scalar(axis))?;
    let op = s
        .named(&format!("{base}/"))
        .op("Split", "split")
        .input(&dim)
        .input(value)
        .attr("num_split", num_split as i64)
        .attr("T", value.dtype())
        .build()?;
    (0..num_split).map(|i| op.output(i)).collect()
}

/// `tf.split(value, size_splits, axis)`: op `SplitV` (attrs `num_split`, `T`, `Tlen =
/// int32`), default name `split`, the sizes a constant `Const` (as TensorFlow's Python makes
/// it, outside the op's scope) and the axis `split/split_dim`. One size may be -1. Errors
/// as [`SplitV`]'s.
pub fn split_v(s: &Scope, value: &Output, size_splits: &[i32], axis: i32) -> Result<Vec<Output>> {
    let sizes = constant(&s.named("Const"), Tensor::vector(size_splits.to_vec()))?;
    let base = s.unique_op_name("split");
    let dim = const_under(s, &base, "split_dim", Tensor::scalar(axis))?;
    let op = s
        .named(&format!("{base}/"))
        .op("SplitV", "split")
        .input(value)
        .input(&sizes)
        .input(&dim)
        .attr("num_split", size_splits.len() as i64)
        .attr("T", value.dtype())
        .attr("Tlen", DType::Int32)
        .build()?;
    (0..size_splits.len()).map(|i| op.output(i)).collect()
}
