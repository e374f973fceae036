//! `DynamicStitch` (`tf.dynamic_stitch`): interleaves values by index. TensorFlow 1.x's
//! gradients of `reduce_sum`/`reduce_mean` build one (with `Rank`) to compute the kept-dims
//! shape, so every TF1 training graph with a mean loss holds it.

use super::{gather, plain};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};

/// `DynamicStitch(indices..., data...)`: `N` (attr, at least 1) int32 index tensors and
/// `N` data tensors of one dtype `T` (any). `data[i].shape` must be `indices[i].shape`
/// followed by one shape `E` common to all; the output has shape `[max index + 1] + E`, and
/// row `indices[i][j]` is `data[i][j]` (later inputs win on duplicates; rows no index names
/// are zeros). Errors: `InvalidArgument` in TensorFlow's words for a negative index, a data
/// shape that does not start with its indices' shape, or trailing shapes that differ (at
/// build time when shapes are known). Gradient (TensorFlow's `_DynamicStitchGrads`):
/// `GatherV2(grad, indices[i])` for each data input, none for the indices.
pub struct DynamicStitch;

/// `N`, from the input count (the count against attr `N` is checked by
/// `schema::check_input_count` before inference).
fn partitions(inputs: usize) -> Result<usize> {
    if inputs == 0 || !inputs.is_multiple_of(2) {
        return Err(Error::invalid_argument(format!(
            "DynamicStitch takes N index tensors and N data tensors (N >= 1), got {inputs} inputs"
        )));
    }
    Ok(inputs / 2)
}

impl RegisteredOp for DynamicStitch {
    fn op_type(&self) -> &'static str {
        "DynamicStitch"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let n = partitions(ctx.inputs.len())?;
        let t = ctx.dtype(n);
        for i in 0..n {
            ctx.check_dtype(i, &[DType::Int32])?;
            if ctx.dtype(n + i) != t {
                return Err(Error::invalid_argument(format!(
                    "DynamicStitch data must have one dtype: data[{i}] is {} but data[0] is {t}",
                    ctx.dtype(n + i)
                )));
            }
        }
        // the trailing shape E, merged over the inputs whose indices' rank is known
        let mut extra: Option<Shape> = None;
        for i in 0..n {
            let (idx, data) = (ctx.shape(i), ctx.shape(n + i));
            let (Some(id), Some(dd)) = (idx.dims(), data.dims()) else {
                if let (Some(r), Some(dr)) = (idx.rank(), data.rank()) {
                    if dr < r {
                        return Err(rank_error(data, idx));
                    }
                }
                continue;
            };
            if dd.len() < id.len() {
                return Err(rank_error(data, idx));
            }
            for (&a, &b) in dd.iter().zip(id) {
                if let (Some(a), Some(b)) = (a, b) {
                    if a != b {
                        return Err(Error::invalid_argument(format!(
                            "Dimensions must be equal, but are {a} and {b} for DynamicStitch with data[{i}] of shape {data} and indices[{i}] of shape {idx}"
                        )));
                    }
                }
            }
            let rest = Shape::partial(&dd[id.len()..]);
            extra = Some(match extra {
                None => rest,
                Some(e) => e.merge(&rest).ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "DynamicStitch data shapes must agree past their indices' shapes: {e} vs. {rest} (data[{i}] of shape {data})"
                    ))
                })?,
            });
        }
        let Some(extra) = extra.and_then(|e| e.dims().map(|d| d.to_vec())) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        // the first dimension is known when every index tensor is a constant
        let consts: Option<Vec<Tensor>> = (0..n).map(|i| ctx.const_input(i)).collect();
        let first = match consts {
            Some(c) => {
                let mut max = -1i64;
                for t in &c {
                    max = max.max(t.as_slice::<i32>()?.iter().map(|&v| v as i64).max().unwrap_or(-1));
                }
                Some((max + 1) as usize)
            }
            None => None,
        };
        let mut out = vec![first];
        out.extend(extra);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(stitch_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let n = ctx.inputs.len() / 2;
        let g = ctx.grad(0)?;
        let mut out = vec![None; n];
        for idx in &ctx.inputs[..n] {
            out.push(Some(gather(s, &g, idx, 0)?));
        }
        Ok(out)
    }
}

fn rank_error(data: &Shape, idx: &Shape) -> Error {
    Error::invalid_argument(format!(
        "Shape must be at least rank {} but is rank {} (DynamicStitch data of shape {data}, indices of shape {idx})",
        idx.rank().unwrap_or(0),
        data.rank().unwrap_or(0)
    ))
}

/// The `DynamicStitch` kernel.
fn stitch_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let n = partitions(ctx.inputs.len())?;
    let (indices, data) = ctx.inputs.split_at(n);
    let mut max = -1i64;
    let mut flat: Vec<&[i32]> = Vec::with_capacity(n);
    for t in indices {
        let v = t.as_slice::<i32>()?;
        max = max.max(v.iter().map(|&x| x as i64).max().unwrap_or(-1));
        flat.push(v);
    }
    let rows = (max + 1) as usize;
    for v in &flat {
        if let Some(j) = v.iter().position(|&x| x < 0 || x as i64 >= rows as i64) {
            return Err(Error::invalid_argument(format!("indices[{j}] is out of range")));
        }
    }
    let (d0, i0) = (&data[0], &indices[0]);
    for (k, (d, i)) in data.iter().zip(indices).enumerate() {
        if !d.shape().starts_with(i.shape()) {
            return Err(Error::invalid_argument(format!(
                "data[{k}].shape = {} does not start with indices[{k}].shape = {}",
                fmt_dims(d.shape()),
                fmt_dims(i.shape())
            )));
        }
        if d.shape()[i.rank()..] != d0.shape()[i0.rank()..] || d.dtype() != d0.dtype() {
            return Err(Error::invalid_argument(format!(
                "Need data[0].shape[{}:] = data[{k}].shape[{}:], got data[0].shape = {}, data[{k}].shape = {}, indices[0].shape = {}, indices[{k}].shape = {}",
                i0.rank(),
                i.rank(),
                fmt_dims(d0.shape()),
                fmt_dims(d.shape()),
                fmt_dims(i0.shape()),
                fmt_dims(i.shape())
            )));
        }
    }
    let extra = &d0.shape()[i0.rank()..];
    let row: usize = extra.iter().product();
    // which (input, row) fills each output row: the last writer wins, as TensorFlow's loop
    let mut source: Vec<Option<(usize, usize)>> = vec![None; rows];
    for (k, v) in flat.iter().enumerate() {
        for (j, &x) in v.iter().enumerate() {
            source[x as usize] = Some((k, j));
        }
    }
    let mut shape = vec![rows];
    shape.extend_from_slice(extra);
    // gather from the data inputs and one zero row, laid end to end
    let mut parts: Vec<&Storage> = data.iter().map(|d| d.storage()).collect();
    let zero = Storage::try_zeros(d0.dtype(), row)?;
    parts.push(&zero);
    let mut starts = Vec::with_capacity(parts.len());
    let mut acc = 0;
    for p in &parts {
        starts.push(acc);
        acc += p.len();
    }
    let joined = super::layout::interleave(&parts, 1, &parts.iter().map(|p| p.len()).collect::<Vec<_>>())?;
    let mut idx = Vec::with_capacity(rows * row);
    for src in &source {
        let base = match src {
            Some((k, j)) => starts[*k] + j * row,
            None => starts[n],
        };
        idx.extend(base..base + row);
    }
    Ok(vec![Tensor::from_storage(&shape, joined.gather(&idx))?])
}

/// `tf.dynamic_stitch(indices, data)`: op `DynamicStitch` (attrs `N`, `T`), default name
/// `DynamicStitch`. `indices` are int32 tensors, `data` tensors of one dtype with
/// `data[i].shape = indices[i].shape + E`. Errors as [`DynamicStitch`]'s; `InvalidArgument`
/// when the two lists differ in length.
pub fn dynamic_stitch(s: &Scope, indices: &[Output], data: &[Output]) -> Result<Output> {
    if indices.len() != data.len() {
        return Err(Error::invalid_argument(format!(
            "dynamic_stitch needs as many data tensors as index tensors, got {} and {}",
            data.len(),
            indices.len()
        )));
    }
    let t = data.first().map(|d| d.dtype()).unwrap_or(DType::Float);
    s.op("DynamicStitch", "DynamicStitch")
        .inputs(indices)
        .inputs(data)
        .attr("N", indices.len() as i64)
        .attr("T", t)
        .build_output()
}
