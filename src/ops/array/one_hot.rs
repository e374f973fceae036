//! `OneHot` (`tf.one_hot`): indices expanded into one-hot vectors along a new axis.

use super::constant;
use super::layout::interleave;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

const INDEX_TYPES: &[DType] = &[DType::UInt8, DType::Int8, DType::Int32, DType::Int64];

/// `OneHot(indices, depth, on_value, off_value)` (attrs `axis` = -1, `T`, `TI`): the
/// output has `indices`' shape with a new dimension of `depth` (a 0-d int32) inserted at
/// `axis` (-1: last); along it, `on_value` where the position equals the index and
/// `off_value` elsewhere (an index outside `[0, depth)` gives all `off_value`).
/// `indices` uint8, int8, int32 or int64; `on_value`/`off_value` 0-d of any one dtype
/// `T`. Errors: `InvalidArgument` with TensorFlow's messages for `axis < -1` (`axis must
/// be >= -1`) or beyond the rank, a negative depth, non-scalar values. No gradient.
pub struct OneHot;

/// The normalized axis of a one-hot output of `rank + 1` dimensions.
fn one_hot_axis(node: &Node, rank: usize) -> Result<usize> {
    let axis = node.attr_int_or("axis", -1)?;
    if axis < -1 || axis > rank as i64 {
        return Err(Error::invalid_argument(format!(
            "axis must be >= -1 and at most the indices' rank {rank}, got {axis} (OneHot '{}')",
            node.name
        )));
    }
    Ok(if axis == -1 { rank } else { axis as usize })
}

impl RegisteredOp for OneHot {
    fn op_type(&self) -> &'static str {
        "OneHot"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_dtype(0, INDEX_TYPES)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        if ctx.dtype(2) != ctx.dtype(3) {
            return Err(Error::invalid_argument(format!(
                "on_value and off_value must have one dtype, got {} and {}",
                ctx.dtype(2),
                ctx.dtype(3)
            )));
        }
        if ctx.node.attr_int_or("axis", -1)? < -1 {
            return Err(Error::invalid_argument("axis must be >= -1"));
        }
        let depth = match ctx.const_input(1) {
            Some(d) => {
                let d = d.as_slice::<i32>()?.first().copied().unwrap_or(0);
                if d < 0 {
                    return Err(Error::invalid_argument(format!(
                        "Dimension size, given by scalar input 1, must be non-negative but is {d}"
                    )));
                }
                Some(d as usize)
            }
            None => None,
        };
        let Some(dims) = ctx.shape(0).dims() else {
            return Ok(vec![(ctx.dtype(2), Shape::unknown())]);
        };
        let axis = one_hot_axis(ctx.node, dims.len())?;
        let mut out = dims.to_vec();
        out.insert(axis, depth);
        Ok(vec![(ctx.dtype(2), Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let axis = node.attr_int_or("axis", -1)?;
        if axis < -1 {
            return Err(Error::invalid_argument(format!("axis must be >= -1 (OneHot '{}')", node.name)));
        }
        Ok(Box::new(OneHotKernel { axis }))
    }
}

/// A prepared `OneHot`: its `axis` attr (-1: last).
struct OneHotKernel {
    axis: i64,
}

impl Kernel for OneHotKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        one_hot_kernel(ctx, self.axis)
    }
}

fn one_hot_kernel(ctx: &mut KernelCtx, axis: i64) -> Result<Vec<Tensor>> {
    let idx = ctx.input(0);
    let depth = ctx.input(1).as_slice::<i32>()?.first().copied().unwrap_or(0);
    if ctx.input(1).rank() != 0 {
        return Err(Error::invalid_argument("depth must be a scalar"));
    }
    if depth < 0 {
        return Err(Error::invalid_argument(format!("depth must be non-negative, got: {depth}")));
    }
    let (on, off) = (ctx.input(2), ctx.input(3));
    if on.rank() != 0 || off.rank() != 0 {
        return Err(Error::invalid_argument("on_value and off_value must be scalars"));
    }
    let rank = idx.rank();
    if axis > rank as i64 {
        return Err(Error::invalid_argument(format!("axis {axis} is beyond the indices' rank {rank}")));
    }
    let axis = if axis == -1 { rank } else { axis as usize };
    let depth = depth as usize;
    let values = idx.to_f64_vec()?;
    let outer: usize = idx.shape()[..axis].iter().product();
    let inner: usize = idx.shape()[axis..].iter().product();
    // element 0: off_value, element 1: on_value
    let both = interleave(&[off.storage(), on.storage()], 1, &[1, 1])?;
    let mut src = Vec::with_capacity(outer * depth * inner);
    for o in 0..outer {
        for d in 0..depth {
            src.extend((0..inner).map(|i| usize::from(values[o * inner + i] == d as f64)));
        }
    }
    let mut shape = idx.shape().to_vec();
    shape.insert(axis, depth);
    Ok(vec![Tensor::from_storage(&shape, both.gather(&src))?])
}

/// `tf.one_hot(indices, depth, on_value, off_value, axis)`: op `OneHot` named `one_hot`,
/// with constants `one_hot/depth` (int32), and `on_value`/`off_value` given as 0-d tensors
/// of the output dtype (`tf.one_hot`'s defaults are float32 1 and 0). Errors:
/// `InvalidArgument` as [`OneHot`].
pub fn one_hot(
    s: &Scope,
    indices: &Output,
    depth: i32,
    on_value: &Output,
    off_value: &Output,
    axis: i64,
) -> Result<Output> {
    let (op, inner) = s.op_scope("one_hot");
    let d = constant(&inner.named("depth"), Tensor::scalar(depth))?;
    op.op("OneHot", "one_hot")
        .input(indices)
        .input(&d)
        .input(on_value)
        .input(off_value)
        .attr("axis", axis)
        .attr("T", on_value.dtype())
        .attr("TI", indices.dtype())
        .build_output()
}
