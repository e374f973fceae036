//! `SpaceToBatchND` and `BatchToSpaceND`, which TensorFlow writes around a convolution to
//! dilate it (`tf.nn.atrous_conv2d`, `tf.compat.v1.layers.conv2d(dilation_rate=...)`).
//! Each one's gradient is the other (TensorFlow's `_SpaceToBatchNDGrad`,
//! `_BatchToSpaceNDGrad`), so both live here.

use super::{int_values, plain, INTS, NUMBERS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{check_alloc, checked_num_elements, fmt_dims, try_filled, DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&SpaceToBatchND, &BatchToSpaceND];

/// The block sizes and the `[M, 2]` amounts (paddings or crops) of one run, checked as
/// TensorFlow's kernels check them. `what` is "paddings" or "crops".
fn block_args(x: &[usize], block: &Tensor, amounts: &Tensor, what: &str) -> Result<(Vec<usize>, Vec<[usize; 2]>)> {
    if block.rank() != 1 {
        return Err(Error::invalid_argument(format!("block_shape rank should be 1 instead of {}", block.rank())));
    }
    let m = block.shape()[0];
    if amounts.shape() != [m, 2] {
        return Err(Error::invalid_argument(format!(
            "{what} should have shape [{m}, 2] instead of {}",
            fmt_dims(amounts.shape())
        )));
    }
    if x.len() < 1 + m {
        return Err(Error::invalid_argument(format!("input rank should be >= {} instead of {}", 1 + m, x.len())));
    }
    let mut bs = Vec::with_capacity(m);
    for (i, b) in int_values(block)?.into_iter().enumerate() {
        if b < 1 {
            return Err(Error::invalid_argument(format!(
                "All values in block_shape must be positive, got value, {b} at index {i}."
            )));
        }
        bs.push(b as usize);
    }
    let a = int_values(amounts)?;
    if a.iter().any(|&v| v < 0) {
        let cap = if what == "crops" { "Crops" } else { "Paddings" };
        return Err(Error::invalid_argument(format!("{cap} must be non-negative")));
    }
    Ok((bs, a.chunks(2).map(|c| [c[0] as usize, c[1] as usize]).collect()))
}

/// Calls `f(batch_index, block_offset, spatial_position)` for every position of a
/// `[batch] + spatial` space, row-major; `block_offset` runs over the block, outermost.
fn each_position(blocks: &[usize], batch: usize, spatial: &[usize], mut f: impl FnMut(usize, &[usize], &[usize])) {
    let nb: usize = blocks.iter().product();
    let ns: usize = spatial.iter().product();
    let (mut off, mut pos) = (vec![0; blocks.len()], vec![0; spatial.len()]);
    for ob in 0..nb * batch {
        let mut k = ob / batch;
        for i in (0..blocks.len()).rev() {
            off[i] = k % blocks[i];
            k /= blocks[i];
        }
        for j in 0..ns {
            let mut k = j;
            for i in (0..spatial.len()).rev() {
                pos[i] = k % spatial[i];
                k /= spatial[i];
            }
            f(ob, &off, &pos);
        }
    }
}

/// `SpaceToBatchND(input, block_shape, paddings)`: zero-pads the `M` spatial axes after
/// the batch axis by `paddings` (`[M, 2]`), then moves each `block_shape` block into the
/// batch: output `[batch * prod(block_shape)] + [padded[i] / block_shape[i]] + rest`.
/// float32, float64, int32, int64; `block_shape` and `paddings` int32/int64 (attrs
/// `Tblock_shape`, `Tpaddings`). Errors (`InvalidArgument`, TensorFlow's messages, at build
/// time when the arguments are constant): a block below 1, a negative padding, a padded
/// size not divisible by its block, ranks that do not fit. Gradient:
/// `BatchToSpaceND(grad, block_shape, paddings)`.
pub struct SpaceToBatchND;
impl RegisteredOp for SpaceToBatchND {
    fn op_type(&self) -> &'static str {
        "SpaceToBatchND"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        infer_block(ctx, t, false)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(space_to_batch_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let (b, p) = (&ctx.inputs[1], &ctx.inputs[2]);
        Ok(vec![Some(batch_to_space_nd(ctx.scope, &ctx.grad(0)?, b, p)?), None, None])
    }
}

/// The static shape of either op when its block and amounts are constant, checked with
/// the messages of TensorFlow's shape functions (which differ from its kernels'), else
/// what is known.
fn infer_block(ctx: &InferCtx, t: DType, to_space: bool) -> Result<Vec<(DType, Shape)>> {
    let x = ctx.shape(0);
    let (Some(d), Some(block), Some(amounts)) = (x.dims(), ctx.const_input(1), ctx.const_input(2)) else {
        return Ok(vec![(t, Shape::unknown())]);
    };
    let what = if to_space { "crops" } else { "paddings" };
    let bs = int_values(&block)?;
    let am = int_values(&amounts)?;
    if block.rank() != 1 || amounts.shape() != [bs.len(), 2] || d.len() < 1 + bs.len() {
        // the kernel's checks and messages
        let stand_in: Vec<usize> = d.iter().map(|v| v.unwrap_or(1)).collect();
        block_args(&stand_in, &block, &amounts, what)?;
    }
    if bs.iter().any(|&b| b < 1) {
        return Err(Error::invalid_argument("block_shape must be positive"));
    }
    if am.iter().any(|&a| a < 0) {
        return Err(Error::invalid_argument(format!("{what} cannot be negative")));
    }
    let divisible = |n: usize, b: usize| -> Result<usize> {
        if !n.is_multiple_of(b) {
            return Err(Error::invalid_argument(format!("Dimension size must be evenly divisible by {b} but is {n}")));
        }
        Ok(n / b)
    };
    let nb = bs.iter().product::<i64>() as usize;
    let mut out = Vec::with_capacity(d.len());
    out.push(match d[0] {
        Some(n) if to_space => Some(divisible(n, nb)?),
        Some(n) => Some(n * nb),
        None => None,
    });
    for (i, &b) in bs.iter().enumerate() {
        let (b, lo, hi) = (b as usize, am[2 * i] as usize, am[2 * i + 1] as usize);
        out.push(match d[1 + i] {
            None => None,
            Some(v) if to_space => {
                let mut size = v * b;
                for c in [lo, hi] {
                    if c > size {
                        return Err(Error::invalid_argument(format!(
                            "Negative dimension size caused by subtracting {c} from {size}"
                        )));
                    }
                    size -= c;
                }
                Some(size)
            }
            Some(v) => Some(divisible(v + lo + hi, b)?),
        });
    }
    out.extend_from_slice(&d[1 + bs.len()..]);
    Ok(vec![(t, Shape::partial(&out))])
}

fn space_to_batch_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let d = x.shape();
    let (bs, pads) = block_args(d, ctx.input(1), ctx.input(2), "paddings")?;
    let m = bs.len();
    let mut spatial = Vec::with_capacity(m);
    for (i, (&b, [lo, hi])) in bs.iter().zip(&pads).enumerate() {
        let p = d[1 + i] + lo + hi;
        if !p.is_multiple_of(b) {
            return Err(Error::invalid_argument(format!(
                "padded_shape[{i}]={p} is not divisible by block_shape[{i}]={b}"
            )));
        }
        spatial.push(p / b);
    }
    let batch = d[0];
    let rest: usize = d[1 + m..].iter().product();
    let mut shape = vec![batch * bs.iter().product::<usize>()];
    shape.extend_from_slice(&spatial);
    shape.extend_from_slice(&d[1 + m..]);
    let total = checked_num_elements(&shape)?;
    check_alloc(x.dtype(), total)?;
    let out = crate::dispatch_numeric!(x.dtype(), "SpaceToBatchND", T => {
        let src = x.as_slice::<T>()?;
        let mut v = try_filled(T::ZERO, total, x.dtype())?;
        let mut at = 0;
        each_position(&bs, batch, &spatial, |ob, off, pos| {
            let mut flat = ob % batch;
            let mut inside = true;
            for i in 0..m {
                let p = (pos[i] * bs[i] + off[i]) as i64 - pads[i][0] as i64;
                inside &= p >= 0 && (p as usize) < d[1 + i];
                flat = flat * d[1 + i] + p.max(0) as usize;
            }
            if inside {
                v[at..at + rest].copy_from_slice(&src[flat * rest..(flat + 1) * rest]);
            }
            at += rest;
        });
        Tensor::new(&shape, v)?
    });
    Ok(vec![out])
}

/// `BatchToSpaceND(input, block_shape, crops)`: the inverse of `SpaceToBatchND`: moves
/// batch blocks back into the `M` spatial axes, then crops them by `crops` (`[M, 2]`):
/// output `[batch / prod(block_shape)] + [size[i] * block_shape[i] - crops] + rest`. Every
/// dtype; `block_shape` and `crops` int32/int64 (attrs `Tblock_shape`, `Tcrops`). Errors
/// (`InvalidArgument`, TensorFlow's messages, at build time when the arguments are
/// constant): a batch not divisible by the block product, a block below 1, a negative crop
/// or cropped size. Gradient: `SpaceToBatchND(grad, block_shape, crops)`.
pub struct BatchToSpaceND;
impl RegisteredOp for BatchToSpaceND {
    fn op_type(&self) -> &'static str {
        "BatchToSpaceND"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        infer_block(ctx, ctx.dtype(0), true)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(batch_to_space_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let (b, c) = (&ctx.inputs[1], &ctx.inputs[2]);
        Ok(vec![Some(space_to_batch_nd(ctx.scope, &ctx.grad(0)?, b, c)?), None, None])
    }
}

fn batch_to_space_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let d = x.shape();
    let (bs, crops) = block_args(d, ctx.input(1), ctx.input(2), "crops")?;
    let m = bs.len();
    let nb: usize = bs.iter().product();
    if !d[0].is_multiple_of(nb) {
        return Err(Error::invalid_argument(format!(
            "Input batch dimension ({}) is not divisible by product of block sizes ({nb})",
            d[0]
        )));
    }
    let batch = d[0] / nb;
    let mut spatial = Vec::with_capacity(m);
    for (i, (&b, [lo, hi])) in bs.iter().zip(&crops).enumerate() {
        let c = (d[1 + i] * b) as i64 - (lo + hi) as i64;
        if c < 0 {
            return Err(Error::invalid_argument(format!("cropped_shape[{i}]={c} must be non-negative")));
        }
        spatial.push(c as usize);
    }
    let rest: usize = d[1 + m..].iter().product();
    let mut shape = vec![batch];
    shape.extend_from_slice(&spatial);
    shape.extend_from_slice(&d[1 + m..]);
    check_alloc(DType::Int64, checked_num_elements(&shape)?)?;
    let mut flat = Vec::with_capacity(shape.iter().product());
    // each output position (batch b, spatial y) reads input batch off(o) * batch + b at
    // spatial (y + crop_start) / block, where o = (y + crop_start) % block
    each_position(&[], batch, &spatial, |b, _, pos| {
        let (mut ob, mut sp) = (0, 0);
        for i in 0..m {
            let p = pos[i] + crops[i][0];
            ob = ob * bs[i] + p % bs[i];
            sp = sp * d[1 + i] + p / bs[i];
        }
        let mut start = ob * batch + b;
        for &di in &d[1..1 + m] {
            start *= di;
        }
        flat.extend((start + sp) * rest..(start + sp + 1) * rest);
    });
    Ok(vec![Tensor::from_storage(&shape, x.storage().try_gather(&flat)?)?])
}

/// `tf.space_to_batch_nd(input, block_shape, paddings)`: op `SpaceToBatchND`, default name
/// `SpaceToBatchND`. See [`SpaceToBatchND`] for shapes, dtypes and errors.
pub fn space_to_batch_nd(s: &Scope, input: &Output, block_shape: &Output, paddings: &Output) -> Result<Output> {
    s.op("SpaceToBatchND", "SpaceToBatchND")
        .input(input)
        .input(block_shape)
        .input(paddings)
        .attr("T", input.dtype())
        .attr("Tblock_shape", block_shape.dtype())
        .attr("Tpaddings", paddings.dtype())
        .build_output()
}

/// `tf.batch_to_space_nd(input, block_shape, crops)`: op `BatchToSpaceND`, default name
/// `BatchToSpaceND`. See [`BatchToSpaceND`] for shapes, dtypes and errors.
pub fn batch_to_space_nd(s: &Scope, input: &Output, block_shape: &Output, crops: &Output) -> Result<Output> {
    s.op("BatchToSpaceND", "BatchToSpaceND")
        .input(input)
        .input(block_shape)
        .input(crops)
        .attr("T", input.dtype())
        .attr("Tblock_shape", block_shape.dtype())
        .attr("Tcrops", crops.dtype())
        .build_output()
}
