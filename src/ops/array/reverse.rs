//! `ReverseV2` (`tf.reverse`) and `ReverseSequence` (`tf.reverse_sequence`): element
//! order reversed along axes, or along one axis over per-batch prefixes. Each is its own
//! gradient. All dtypes.

use super::layout::{product_indices, strides};
use super::{const_under, index_dtype, index_tensor, int_values, plain, INTS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// The axes of `axis` normalized against `rank`. Errors: `InvalidArgument` with
/// TensorFlow's messages for an axis out of range or given twice.
fn reverse_axes(axis: &[i64], rank: usize) -> Result<Vec<bool>> {
    let mut rev = vec![false; rank];
    for (i, &a) in axis.iter().enumerate() {
        let r = rank as i64;
        if a < -r || a >= r {
            return Err(Error::invalid_argument(format!("'axis'[{i}] = {a} is out of valid range [0, {}", r - 1)));
        }
        let a = if a < 0 { a + r } else { a } as usize;
        if std::mem::replace(&mut rev[a], true) {
            return Err(Error::invalid_argument(format!("axis {a} specified more than once.")));
        }
    }
    Ok(rev)
}

/// `ReverseV2(tensor, axis)`: `tensor` with the element order of every dimension in
/// `axis` (1-d int32/int64, negative counting from the end; attr `Tidx`) reversed. Any
/// dtype; same shape. Errors: `InvalidArgument` with TensorFlow's messages for an axis out
/// of range or given twice (at build time when the axes are constant). Gradient:
/// `ReverseV2` of the gradient along the same axes.
pub struct ReverseV2;
impl RegisteredOp for ReverseV2 {
    fn op_type(&self) -> &'static str {
        "ReverseV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        if let (Some(r), Some(a)) = (ctx.shape(0).rank(), ctx.const_input(1)) {
            reverse_axes(&int_values(&a)?, r)?;
        }
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(reverse_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![Some(reverse_dyn(ctx.scope, &ctx.grad(0)?, &ctx.inputs[1])?), None])
    }
}

fn reverse_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let rev = reverse_axes(&int_values(ctx.input(1))?, x.rank())?;
    if !rev.iter().zip(x.shape()).any(|(&r, &d)| r && d > 1) {
        return Ok(vec![x.clone()]);
    }
    let st = strides(x.shape());
    let per_dim: Vec<Vec<usize>> = (0..x.rank())
        .map(|i| {
            let d = x.shape()[i];
            (0..d).map(|k| if rev[i] { d - 1 - k } else { k } * st[i]).collect()
        })
        .collect();
    Ok(vec![Tensor::from_storage(x.shape(), x.storage().gather(&product_indices(&per_dim)))?])
}

/// `ReverseSequence(input, seq_lengths)` (attrs `seq_dim`, `batch_dim` = 0, `Tlen`): for
/// every index `b` along `batch_dim`, the first `seq_lengths[b]` elements along `seq_dim`
/// reversed, the rest unchanged. `seq_lengths` is 1-d int32/int64 with one entry per batch
/// element. Any dtype; same shape. Errors: `InvalidArgument` with TensorFlow's messages
/// (`seq_dim == batch_dim`, dimensions out of range, `Length of seq_lengths !=
/// input.dims(0)`, `seq_lens(1) > input.dims(1)`, `seq_lens(1) < 0`). Gradient:
/// `ReverseSequence` of the gradient with the same lengths.
pub struct ReverseSequence;

/// `seq_dim` and `batch_dim` of `node`, checked against `rank`.
fn seq_batch_dims(node: &Node, rank: Option<usize>) -> Result<(usize, usize)> {
    let seq = node.attr_int_or("seq_dim", 0)?;
    let batch = node.attr_int_or("batch_dim", 0)?;
    if seq == batch {
        return Err(Error::invalid_argument(format!(
            "seq_dim == batch_dim == {seq} in ReverseSequence '{}'",
            node.name
        )));
    }
    let r = rank.map(|r| r as i64).unwrap_or(i64::MAX);
    for (what, d) in [("seq_dim", seq), ("batch_dim", batch)] {
        if d < 0 || d >= r {
            return Err(Error::invalid_argument(format!(
                "{what} must be in [0, rank) (the input has rank {r}), got {d} in ReverseSequence '{}'",
                node.name
            )));
        }
    }
    Ok((seq as usize, batch as usize))
}

impl RegisteredOp for ReverseSequence {
    fn op_type(&self) -> &'static str {
        "ReverseSequence"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let x = ctx.shape(0);
        let (_, batch) = seq_batch_dims(ctx.node, x.rank())?;
        let lens = ctx.shape(1);
        if let Some(r) = lens.rank().filter(|&r| r != 1) {
            return Err(Error::invalid_argument(format!("Shape must be rank 1 but is rank {r} (seq_lengths)")));
        }
        if let (Some(b), Some(n)) = (x.dim(batch), lens.dim(0)) {
            if b != n {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {b} and {n} (input dimension {batch} and the length of seq_lengths)"
                )));
            }
        }
        Ok(vec![(ctx.dtype(0), x.clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (seq, batch) = seq_batch_dims(node, None)?;
        Ok(Box::new(ReverseSequenceKernel { seq, batch }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let (seq, batch) = seq_batch_dims(ctx.node, None)?;
        let g = reverse_sequence(ctx.scope, &ctx.grad(0)?, &ctx.inputs[1], seq as i64, batch as i64)?;
        Ok(vec![Some(g), None])
    }
}

/// A prepared `ReverseSequence`: its two dimensions.
struct ReverseSequenceKernel {
    seq: usize,
    batch: usize,
}

impl Kernel for ReverseSequenceKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (seq, batch) = (self.seq, self.batch);
        if seq >= x.rank() || batch >= x.rank() {
            return Err(Error::invalid_argument(format!(
                "seq_dim {seq} and batch_dim {batch} must be below the input's rank {} ({})",
                x.rank(),
                fmt_dims(x.shape())
            )));
        }
        let lens = int_values(ctx.input(1))?;
        let sh = x.shape();
        if ctx.input(1).rank() != 1 || lens.len() != sh[batch] {
            return Err(Error::invalid_argument(format!(
                "Length of seq_lengths != input.dims({batch}), ({} vs. {})",
                lens.len(),
                sh[batch]
            )));
        }
        for (i, &l) in lens.iter().enumerate() {
            if l < 0 {
                return Err(Error::invalid_argument(format!("seq_lens({i}) < 0")));
            }
            if l as usize > sh[seq] {
                return Err(Error::invalid_argument(format!("seq_lens({i}) > input.dims({seq})")));
            }
        }
        let st = strides(sh);
        let n = x.num_elements();
        let mut idx = Vec::with_capacity(n);
        let mut pos = vec![0usize; sh.len()];
        for _ in 0..n {
            let l = lens[pos[batch]] as usize;
            let mut src = 0;
            for (d, &p) in pos.iter().enumerate() {
                let p = if d == seq && p < l { l - 1 - p } else { p };
                src += p * st[d];
            }
            idx.push(src);
            for d in (0..sh.len()).rev() {
                pos[d] += 1;
                if pos[d] < sh[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
        Ok(vec![Tensor::from_storage(sh, x.storage().gather(&idx))?])
    }
}

/// `tf.reverse(tensor, axis)` with constant axes (int32 const `ReverseV2/axis`): op
/// `ReverseV2` (attrs `T`, `Tidx`), default name `ReverseV2`. Errors: `InvalidArgument`
/// as [`ReverseV2`].
pub fn reverse(s: &Scope, tensor: &Output, axis: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("ReverseV2");
    let a = const_under(s, &base, "axis", index_tensor(&[axis.len()], axis, index_dtype(axis))?)?;
    reverse_dyn(&s.named(&format!("{base}/")), tensor, &a)
}

/// `ReverseV2` with `axis` a 1-d int32/int64 tensor. As [`reverse`].
pub fn reverse_dyn(s: &Scope, tensor: &Output, axis: &Output) -> Result<Output> {
    s.op("ReverseV2", "ReverseV2")
        .input(tensor)
        .input(axis)
        .attr("T", tensor.dtype())
        .attr("Tidx", axis.dtype())
        .build_output()
}

/// `tf.reverse_sequence(input, seq_lengths, seq_axis, batch_axis)`: op `ReverseSequence`
/// (attrs `seq_dim`, `batch_dim`, `T`, `Tlen` from `seq_lengths`), default name
/// `ReverseSequence`. Errors: `InvalidArgument` as [`ReverseSequence`].
pub fn reverse_sequence(
    s: &Scope,
    input: &Output,
    seq_lengths: &Output,
    seq_axis: i64,
    batch_axis: i64,
) -> Result<Output> {
    s.op("ReverseSequence", "ReverseSequence")
        .input(input)
        .input(seq_lengths)
        .attr("seq_dim", seq_axis)
        .attr("batch_dim", batch_axis)
        .attr("T", input.dtype())
        .attr("Tlen", seq_lengths.dtype())
        .build_output()
}
