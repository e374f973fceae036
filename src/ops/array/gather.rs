//! `GatherV2` (`tf.gather`) and TensorFlow 1.x's `Gather` (along axis 0, before 1.3 added
//! the axis).

use super::layout::{int_tensor, norm_axis, product_indices, scalar_int};
use super::{
    concat_dyn, const_under, const_value, constant, int_values, plain, reshape, shape_as, transpose,
    unsorted_segment_sum, INTS,
};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{check_alloc, checked_num_elements, fmt_dims, DType, Shape, Tensor};

/// `GatherV2(params, indices, axis)`: slices of `params` along `axis` picked by
/// `indices` (attrs `Tparams`, `Tindices`, `Taxis`, `batch_dims` = 0 only). Output shape
/// `params.shape[:axis] + indices.shape + params.shape[axis+1:]`. All dtypes.
pub struct GatherV2;
impl GatherV2 {
    fn check_batch_dims(ctx_node: &Node) -> Result<()> {
        let b = ctx_node.attr_int_or("batch_dims", 0)?;
        if b != 0 {
            return Err(Error::unimplemented(format!(
                "GatherV2 '{}' with batch_dims = {b}: tensorgraph supports batch_dims = 0 only",
                ctx_node.name
            )));
        }
        Ok(())
    }
}
impl RegisteredOp for GatherV2 {
    fn op_type(&self) -> &'static str {
        "GatherV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        Self::check_batch_dims(ctx.node)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        let t = ctx.dtype(0);
        let (p, idx) = (ctx.shape(0), ctx.shape(1));
        let (Some(pd), Some(id), Some(axis)) = (p.dims(), idx.dims(), ctx.const_input(2)) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        if pd.is_empty() {
            return Err(Error::invalid_argument(format!("GatherV2: params must be at least rank 1, got {p}")));
        }
        let ax = norm_axis(scalar_int(&axis, "GatherV2 axis")?, pd.len(), "GatherV2")?;
        let mut out = pd[..ax].to_vec();
        out.extend_from_slice(id);
        out.extend_from_slice(&pd[ax + 1..]);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Self::check_batch_dims(node)?;
        plain(gather_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        gather_grad(ctx)
    }
}

/// The `GatherV2` kernel (`batch_dims = 0`, checked when prepared).
fn gather_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (p, idx) = (ctx.input(0), ctx.input(1));
    if p.rank() == 0 {
        return Err(Error::invalid_argument("GatherV2: params must be at least rank 1, got a scalar"));
    }
    let ax = norm_axis(scalar_int(ctx.input(2), "GatherV2 axis")?, p.rank(), "GatherV2")?;
    let n = p.shape()[ax];
    let outer: usize = p.shape()[..ax].iter().product();
    let inner: usize = p.shape()[ax + 1..].iter().product();
    let ids = int_values(idx)?;
    let mut picks = Vec::with_capacity(ids.len());
    for (i, &v) in ids.iter().enumerate() {
        if v < 0 || v as usize >= n {
            return Err(Error::invalid_argument(format!(
                "indices[{i}] = {v} is not in [0, {n}) (params shape {}, axis {ax})",
                fmt_dims(p.shape())
            )));
        }
        picks.push(v as usize * inner);
    }
    let mut shape = p.shape()[..ax].to_vec();
    shape.extend_from_slice(idx.shape());
    shape.extend_from_slice(&p.shape()[ax + 1..]);
    // as many slices as indices: the output may be far larger than params
    let total = checked_num_elements(&shape)?;
    check_alloc(DType::Int64, total)?;
    let flat = product_indices(&[(0..outer).map(|o| o * n * inner).collect(), picks, (0..inner).collect::<Vec<_>>()]);
    Ok(vec![Tensor::from_storage(&shape, p.storage().try_gather(&flat)?)?])
}

// TensorFlow's _GatherV2Grad (densified): UnsortedSegmentSum of the gradient rows by
// index, with transposes moving `axis` to the front and back
fn gather_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let (p, idx, axis) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2]);
    let (Some(rank), Some(ax)) = (p.shape().rank(), const_value(axis)) else {
        return Err(Error::unimplemented(format!(
            "gradient of GatherV2 '{}' needs the params rank and a constant axis",
            ctx.node.name
        )));
    };
    let ax = norm_axis(scalar_int(&ax, "GatherV2 axis")?, rank, "GatherV2 gradient")?;
    let g = ctx.grad(0)?;
    let ps = shape_as(s, p, DType::Int32)?;
    let ids_flat = reshape(s, idx, &constant(&s.named("Reshape/shape"), int_tensor(idx.dtype(), &[-1])?)?)?;
    let take = |name: &str, dims: Vec<i64>| -> Result<Output> {
        let i = constant(
            &s.named(&format!("{name}/indices")),
            Tensor::vector(dims.iter().map(|&d| d as i32).collect::<Vec<_>>()),
        )?;
        let a = constant(&s.named(&format!("{name}/axis")), Tensor::scalar(0i32))?;
        gather_dyn(&s.named(name), &ps, &i, &a)
    };
    let n_seg = take("num_segments", vec![ax as i64])?;
    let n_seg = reshape(
        &s.named("Reshape_2"),
        &n_seg,
        &constant(&s.named("scalar_shape"), Tensor::vector(Vec::<i32>::new()))?,
    )?;
    let outer = take("outer_shape", (0..ax as i64).collect())?;
    let inner = take("inner_shape", (ax as i64 + 1..rank as i64).collect())?;
    let minus1 = constant(&s.named("minus_one"), Tensor::vector(vec![-1i32]))?;
    let ax0 = constant(&s.named("concat/axis"), Tensor::scalar(0i32))?;
    let vshape = concat_dyn(s, &[outer, minus1, inner], &ax0)?;
    let values = reshape(&s.named("Reshape_1"), &g, &vshape)?;
    let grad = if ax == 0 {
        unsorted_segment_sum(s, &values, &ids_flat, &n_seg)?
    } else {
        // [outer..., N, inner...] -> [N, outer..., inner...]
        let mut perm: Vec<i64> = vec![ax as i64];
        perm.extend(0..ax as i64);
        perm.extend(ax as i64 + 1..rank as i64);
        let vt = transpose(s, &values, &perm)?;
        let seg = unsorted_segment_sum(s, &vt, &ids_flat, &n_seg)?;
        let mut inv: Vec<i64> = (1..=ax as i64).collect();
        inv.push(0);
        inv.extend(ax as i64 + 1..rank as i64);
        transpose(&s.named("transpose_1"), &seg, &inv)?
    };
    Ok(vec![Some(grad), None, None])
}

/// `Gather(params, indices)`: TensorFlow 1.x's gather (before `GatherV2`): `GatherV2` along
/// axis 0 (attrs `Tparams`, `Tindices`, `validate_indices`, which TensorFlow ignores on
/// CPU: indices are always checked). Output shape `indices.shape + params.shape[1:]`.
/// Errors: `InvalidArgument` for scalar params, and when run for an index outside
/// `[0, params.shape[0])`. Gradient (TensorFlow's `_GatherGrad`, densified as its
/// `IndexedSlices` are when summed): `UnsortedSegmentSum` of the gradient rows by index.
pub struct Gather;
impl RegisteredOp for Gather {
    fn op_type(&self) -> &'static str {
        "Gather"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let (p, idx) = (ctx.shape(0), ctx.shape(1));
        let (Some(pd), Some(id)) = (p.dims(), idx.dims()) else {
            return Ok(vec![(ctx.dtype(0), Shape::unknown())]);
        };
        if pd.is_empty() {
            return Err(Error::invalid_argument(format!("Gather: params must be at least rank 1, got {p}")));
        }
        let mut out = id.to_vec();
        out.extend_from_slice(&pd[1..]);
        Ok(vec![(ctx.dtype(0), Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        node.attr_bool_or("validate_indices", true)?;
        plain(|ctx| {
            ctx.inputs.push(Tensor::scalar(0i32));
            gather_kernel(ctx)
        })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (p, idx) = (&ctx.inputs[0], &ctx.inputs[1]);
        let Some(rank) = p.shape().rank() else {
            return Err(Error::unimplemented(format!("gradient of Gather '{}' needs the params rank", ctx.node.name)));
        };
        let ps = shape_as(s, p, DType::Int32)?;
        let take = |name: &str, dims: Vec<i32>| -> Result<Output> {
            let i = constant(&s.named(&format!("{name}/indices")), Tensor::vector(dims))?;
            let a = constant(&s.named(&format!("{name}/axis")), Tensor::scalar(0i32))?;
            gather_dyn(&s.named(name), &ps, &i, &a)
        };
        let rows = take("num_segments", vec![0])?;
        let rows = reshape(
            &s.named("Reshape_2"),
            &rows,
            &constant(&s.named("scalar_shape"), Tensor::vector(Vec::<i32>::new()))?,
        )?;
        let inner = take("inner_shape", (1..rank as i32).collect())?;
        let minus1 = constant(&s.named("minus_one"), Tensor::vector(vec![-1i32]))?;
        let ax0 = constant(&s.named("concat/axis"), Tensor::scalar(0i32))?;
        let values = reshape(&s.named("Reshape_1"), &ctx.grad(0)?, &concat_dyn(s, &[minus1, inner], &ax0)?)?;
        let ids = reshape(s, idx, &constant(&s.named("Reshape/shape"), int_tensor(idx.dtype(), &[-1])?)?)?;
        Ok(vec![Some(unsorted_segment_sum(s, &values, &ids, &rows)?), None])
    }
}

/// `tf.raw_ops.Gather(params, indices)` (TensorFlow 1.x's `tf.gather`): op `Gather`, default
/// name `Gather`, `validate_indices` true. Shapes and errors as [`Gather`]'s.
pub fn gather_v1(s: &Scope, params: &Output, indices: &Output) -> Result<Output> {
    s.op("Gather", "Gather")
        .input(params)
        .input(indices)
        .attr("Tparams", params.dtype())
        .attr("Tindices", indices.dtype())
        .attr("validate_indices", true)
        .build_output()
}

/// `tf.gather(params, indices, axis)`: op `GatherV2` (attrs `Tparams`, `Tindices`,
/// `Taxis = int32`, `batch_dims = 0`), default name `GatherV2`, axis const `GatherV2/axis`.
/// `params` any dtype of rank >= 1, `indices` int32/int64 of any shape; output
/// `params.shape[:axis] + indices.shape + params.shape[axis+1:]`. Errors:
/// `InvalidArgument` for an axis out of range, and when run for an index outside
/// `[0, params.shape[axis])` (naming the index and its value). Gradient wrt `params`
/// (float dtypes): `UnsortedSegmentSum`.
pub fn gather(s: &Scope, params: &Output, indices: &Output, axis: i32) -> Result<Output> {
    let base = s.unique_op_name("GatherV2");
    let a = const_under(s, &base, "axis", Tensor::scalar(axis))?;
    gather_dyn(&s.named(&format!("{base}/")), params, indices, &a)
}

/// `GatherV2` with `axis` a 0-d int32/int64 tensor. As [`gather`].
pub fn gather_dyn(s: &Scope, params: &Output, indices: &Output, axis: &Output) -> Result<Output> {
    s.op("GatherV2", "GatherV2")
        .input(params)
        .input(indices)
        .input(axis)
        .attr("Tparams", params.dtype())
        .attr("Tindices", indices.dtype())
        .attr("Taxis", axis.dtype())
        .attr("batch_dims", 0i64)
        .build_output()
}
