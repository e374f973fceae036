//! The gradients of `Pad` and `Slice`, each built from the other op (TensorFlow's
//! `_PadGrad` slices, `_SliceGrad` pads), with the helpers they share. Both ops are built
//! here directly, so neither `pad.rs` nor `slice.rs` imports the other.

use super::{concat, constant, reshape, reshape_to, shape_as, stack};
use crate::error::Result;
use crate::graph::{Output, Scope};
use crate::ops::GradCtx;
use crate::tensor::{DType, Tensor};

/// A `Slice` op (as `ops::slice_dyn`).
fn slice_op(s: &Scope, input: &Output, begin: &Output, size: &Output) -> Result<Output> {
    let op = s.op("Slice", "Slice").input(input).input(begin).input(size);
    op.attr("T", input.dtype()).attr("Index", begin.dtype()).build_output()
}

/// A `Pad` op (as `ops::pad_dyn`).
fn pad_op(s: &Scope, input: &Output, paddings: &Output) -> Result<Output> {
    let op = s.op("Pad", "Pad").input(input).input(paddings);
    op.attr("T", input.dtype()).attr("Tpaddings", paddings.dtype()).build_output()
}

/// TensorFlow's `array_ops.rank(x)` in graph mode when `x`'s rank is known at build
/// time: an int32 `Const` named `Rank`. `None` when the rank is unknown (tensorgraph has
/// no `Rank` op; see [`stack_rank_one`]).
fn rank_const(s: &Scope, x: &Output) -> Result<Option<Output>> {
    x.shape().rank().map(|r| constant(&s.named("Rank"), Tensor::scalar(r as i32))).transpose()
}

/// TensorFlow's `array_ops.stack([rank, 1])`: a `Pack` named `stack` of `rank` and the
/// int32 `Const` `stack/1`. Without a rank (unknown at build time), a `Const` `stack`
/// holding `[-1, 1]`, which reshapes and slices the same.
fn stack_rank_one(s: &Scope, rank: Option<Output>) -> Result<Output> {
    match rank {
        Some(rank) => {
            let (op, inner) = s.op_scope("stack");
            let one = constant(&inner.named("1"), Tensor::scalar(1i32))?;
            stack(&op, &[rank, one], 0)
        }
        None => constant(&s.named("stack"), Tensor::vector(vec![-1i32, 1])),
    }
}

/// TensorFlow's `array_ops.shape(x, out_type=dtype)` in graph mode: a `Const` named
/// `name` when `x`'s shape is fully known at build time, else a `Shape` op so named.
fn shape_or_const(s: &Scope, name: &str, x: &Output, dtype: DType) -> Result<Output> {
    match x.shape().to_vec() {
        Some(d) => {
            let v: Vec<f64> = d.iter().map(|&v| v as f64).collect();
            constant(&s.named(name), Tensor::from_f64(dtype, &[v.len()], &v)?)
        }
        None => shape_as(&s.named(name), x, dtype),
    }
}

/// TensorFlow's `_PadGrad`: the gradient of the input is the gradient sliced at
/// `begin = paddings[:, 0]`, `size = shape(input)`; nothing flows to `paddings` (nor to
/// `PadV2`'s `constant_values`). Nodes under `gradients/<op>_grad/`: `Rank`, `stack/1`,
/// `stack`, `Slice/begin`, `Slice` (the first column of paddings), `Reshape/shape`,
/// `Reshape`, `Shape`, `Slice_1`.
pub(super) fn pad_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let (x, a) = (&ctx.inputs[0], &ctx.inputs[1]);
    let size = stack_rank_one(s, rank_const(s, x)?)?;
    let (op, inner) = s.op_scope("Slice");
    let zero = constant(&inner.named("begin"), Tensor::vector(vec![0i32, 0]))?;
    let pad_before = slice_op(&op, a, &zero, &size)?;
    let begin = reshape_to(s, &pad_before, &[-1])?;
    let sizes = shape_or_const(s, "Shape", x, a.dtype())?;
    let x_grad = slice_op(&s.named("Slice_1"), &ctx.grad(0)?, &begin, &sizes)?;
    let mut out = vec![Some(x_grad)];
    out.resize(ctx.inputs.len(), None);
    Ok(out)
}

/// TensorFlow's `_SliceGrad`: pads the gradient back to the input's shape with
/// `paddings = concat([reshape(begin, [rank, 1]), reshape(shape(input) - shape(output)
/// - begin, [rank, 1])], 1)`; nothing flows to `begin` or `size`. Nodes under
/// `gradients/<op>_grad/`: `Rank`, `Shape`, `stack/1`, `stack`, `Reshape`, `Shape_1`,
/// `sub`, `sub_1`, `Reshape_1`, `concat/axis`, `concat`, `Pad`.
pub(super) fn slice_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let (x, begin) = (&ctx.inputs[0], &ctx.inputs[1]);
    let index = begin.dtype();
    // TensorFlow builds Rank and the slice size before the stack
    let rank = rank_const(s, x)?;
    let slice_size = shape_or_const(s, "Shape", &ctx.outputs[0], index)?;
    let shape = stack_rank_one(s, rank)?;
    let before = reshape(s, begin, &shape)?;
    let input_shape = shape_or_const(s, "Shape_1", x, index)?;
    // Sub built here, not through math::sub: the array family does not import math
    let sub =
        |s: &Scope, x: &Output, y: &Output| s.op("Sub", "sub").input(x).input(y).attr("T", x.dtype()).build_output();
    let after = sub(s, &sub(s, &input_shape, &slice_size)?, begin)?;
    let after = reshape(&s.named("Reshape_1"), &after, &shape)?;
    let paddings = concat(s, &[before, after], 1)?;
    Ok(vec![Some(pad_op(s, &ctx.grad(0)?, &paddings)?), None, None])
}
