//! Padding ops: `Pad` and `PadV2` (TensorFlow's `tf.pad` in `CONSTANT` mode). Their
//! gradient, which slices, is in `pad_slice_grad.rs` with Slice's, which pads.
//!
//! The kernels work for every dtype (bool and string included): the output gathers flat
//! element indices from the input followed by one fill element.

use super::{constant, index_dtype, index_tensor, int_values};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{check_alloc, checked_num_elements, fmt_dims, try_filled, DType, Element, Shape, Storage, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&Pad, &PadV2];

const INTS: &[DType] = &[DType::Int32, DType::Int64];

/// TensorFlow's pad kernels handle ranks 0 to 8.
const MAX_DIMS: usize = 8;

// ---------------------------------------------------------------- shared inference / kernel

/// Paddings values as `[before, after]` rows.
fn rows(v: &[i64]) -> Vec<[i64; 2]> {
    v.chunks(2).map(|c| [c[0], c.get(1).copied().unwrap_or(0)]).collect()
}

/// Shape inference of `Pad`/`PadV2` (TensorFlow's `PadShapeFn`): `paddings` is a
/// `[rank, 2]` matrix; the output dimension `i` is `before + dim + after` where both are
/// known at build time.
fn infer_pad(ctx: &InferCtx, op: &str, n_inputs: usize) -> Result<Vec<(DType, Shape)>> {
    ctx.expect_inputs(n_inputs)?;
    ctx.check_dtype(1, INTS)?;
    ctx.check_type_attr("T", 0)?;
    ctx.check_type_attr("Tpaddings", 1)?;
    let t = ctx.dtype(0);
    if n_inputs == 3 && ctx.dtype(2) != t {
        return Err(Error::invalid_argument(format!(
            "Input 'constant_values' of '{op}' Op has type {} that does not match type {t} of argument 'input'.",
            ctx.dtype(2)
        )));
    }
    let (x, p) = (ctx.shape(0), ctx.shape(1));
    // (the graph builder prefixes the node's name and type)
    let context = || format!(" (input shape {x}, paddings shape {p})");
    if p.rank().is_some_and(|r| r != 2) || p.dim(1).is_some_and(|c| c != 2) {
        return Err(Error::invalid_argument(format!("paddings must be a matrix with 2 columns: {p}{}", context())));
    }
    if let (Some(n), Some(r)) = (p.dim(0), x.rank()) {
        if n != r {
            return Err(Error::invalid_argument(format!(
                "The first dimension of paddings must be the rank of inputs{p}, {x}{}",
                context()
            )));
        }
    }
    let rank = p.dim(0).or(x.rank());
    let Some(pv) = ctx.const_input(1) else {
        return Ok(vec![(t, rank.map_or_else(Shape::unknown, |r| Shape::partial(&vec![None; r])))]);
    };
    let pv = rows(&int_values(&pv)?);
    if let Some(&[b, a]) = pv.iter().find(|r| r[0] < 0 || r[1] < 0) {
        return Err(Error::invalid_argument(format!(
            "Paddings must be non-negative: {b} {a} (input shape {x}, paddings {pv:?})"
        )));
    }
    let out: Vec<Option<usize>> = pv
        .iter()
        .enumerate()
        .map(|(i, &[b, a])| {
            x.dims().and_then(|d| d[i]).and_then(|d| d.checked_add(b as usize)?.checked_add(a as usize))
        })
        .collect();
    Ok(vec![(t, Shape::partial(&out))])
}

/// `x`'s elements followed by `fill`'s first (same dtype).
fn with_fill(x: &Storage, fill: &Storage) -> Result<Storage> {
    macro_rules! go {
        ($($v:ident),*) => {
            match (x, fill) {
                $((Storage::$v(a), Storage::$v(f)) if !f.is_empty() => {
                    let mut out = Vec::with_capacity(a.len() + 1);
                    out.extend_from_slice(a);
                    out.push(f[0].clone());
                    Storage::$v(out)
                })*
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "the pad value must be one {} element, got {} {} element(s)",
                        x.dtype(),
                        fill.len(),
                        fill.dtype()
                    )))
                }
            }
        };
    }
    Ok(go!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str))
}

/// The `Pad`/`PadV2` kernel (TensorFlow's `PadOp`); `fill` is the scalar pad value.
fn compute_pad(x: &Tensor, p: &Tensor, fill: &Tensor) -> Result<Tensor> {
    let dims = x.rank();
    if dims > MAX_DIMS {
        return Err(Error::unimplemented(format!("inputs rank not in [0,{MAX_DIMS}]: {dims}")));
    }
    if p.rank() != 2 || p.shape()[1] != 2 {
        return Err(Error::invalid_argument(format!(
            "paddings must be a matrix with 2 columns: {}",
            fmt_dims(p.shape())
        )));
    }
    if p.shape()[0] != dims {
        return Err(Error::invalid_argument(format!(
            "The first dimension of paddings must be the rank of inputs{}, {}",
            fmt_dims(p.shape()),
            fmt_dims(x.shape())
        )));
    }
    let pv = rows(&int_values(p)?);
    let mut out_shape = Vec::with_capacity(dims);
    for (&[b, a], &d) in pv.iter().zip(x.shape()) {
        if b < 0 || a < 0 {
            return Err(Error::invalid_argument(format!(
                "Paddings must be non-negative: {b} {a} (input shape {}, paddings {pv:?})",
                fmt_dims(x.shape())
            )));
        }
        let n = (d as u64).checked_add(b as u64).and_then(|n| n.checked_add(a as u64));
        let n = n.and_then(|n| usize::try_from(n).ok()).filter(|&n| n <= i64::MAX as usize).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Encountered overflow when padding input shape {} with paddings {pv:?}",
                fmt_dims(x.shape())
            ))
        })?;
        out_shape.push(n);
    }
    if pv.iter().all(|&r| r == [0, 0]) {
        return Ok(x.clone());
    }
    let n_out = checked_num_elements(&out_shape)?;
    check_alloc(x.dtype(), n_out)?;
    // numbers: the fill written once, each innermost input row copied into place
    macro_rules! rows_of {
        ($($t:ty),*) => {
            $(if let (Ok(xs), Ok(&[f])) = (x.as_slice::<$t>(), fill.as_slice::<$t>()) {
                return Tensor::new(&out_shape, pad_rows(xs, x.shape(), &pv, &out_shape, f)?);
            })*
        };
    }
    rows_of!(f32, f64, i32, i64, u8);
    check_alloc(DType::Int64, n_out)?;
    // per dimension, the input offset of each output position (None: padding)
    let mut stride = 1usize;
    let mut per_dim: Vec<Vec<Option<usize>>> = Vec::with_capacity(dims);
    for (i, &d) in x.shape().iter().enumerate().rev() {
        let b = pv[i][0] as usize;
        per_dim.push((0..out_shape[i]).map(|j| (j >= b && j < b + d).then(|| (j - b) * stride)).collect());
        stride *= d;
    }
    per_dim.reverse();
    let fill_at = x.num_elements();
    let mut idx: Vec<Option<usize>> = vec![Some(0)];
    for off in &per_dim {
        let mut next = Vec::with_capacity(idx.len() * off.len());
        for &base in &idx {
            next.extend(off.iter().map(|&o| base.zip(o).map(|(b, o)| b + o)));
        }
        idx = next;
    }
    let flat: Vec<usize> = idx.into_iter().map(|i| i.unwrap_or(fill_at)).collect();
    Tensor::from_storage(&out_shape, with_fill(x.storage(), fill.storage())?.gather(&flat))
}

/// `xs` (of `shape`) padded with `fill` to `out_shape`, `pads[d][0]` before along each
/// dimension: the output filled once, then each innermost row of the input copied into
/// place. Errors: `ResourceExhausted` when the output cannot be allocated.
fn pad_rows<T: Element>(xs: &[T], shape: &[usize], pads: &[[i64; 2]], out_shape: &[usize], fill: T) -> Result<Vec<T>> {
    let mut out = try_filled(fill, checked_num_elements(out_shape)?, T::DTYPE)?;
    let rank = shape.len();
    if xs.is_empty() || rank == 0 {
        return Ok(out);
    }
    let mut ostride = vec![1usize; rank];
    for d in (0..rank - 1).rev() {
        ostride[d] = ostride[d + 1] * out_shape[d + 1];
    }
    let row = shape[rank - 1];
    // the input index of the row being copied, odometer style over the outer dimensions
    let mut at = vec![0usize; rank - 1];
    for src in xs.chunks_exact(row) {
        let o: usize = (0..rank - 1).map(|d| (at[d] + pads[d][0] as usize) * ostride[d]).sum::<usize>()
            + pads[rank - 1][0] as usize;
        out[o..o + row].copy_from_slice(src);
        for d in (0..rank - 1).rev() {
            at[d] += 1;
            if at[d] < shape[d] {
                break;
            }
            at[d] = 0;
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------- Pad

/// `Pad(input, paddings)`: `input` (any dtype, attr `T`) padded with zeros (false, empty
/// strings); `paddings` is an int32/int64 (attr `Tpaddings`) `[rank, 2]` matrix of
/// non-negative `[before, after]` counts per dimension.
pub struct Pad;
impl RegisteredOp for Pad {
    fn op_type(&self) -> &'static str {
        "Pad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_pad(ctx, "Pad", 2)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|ctx| {
            let x = ctx.input(0);
            let zero = Tensor::try_zeros(x.dtype(), &[])?;
            Ok(vec![compute_pad(x, ctx.input(1), &zero)?])
        })))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        super::pad_slice_grad::pad_grad(ctx)
    }
}

/// `PadV2(input, paddings, constant_values)`: as [`Pad`], filling with the scalar
/// `constant_values` (dtype `T`).
pub struct PadV2;
impl RegisteredOp for PadV2 {
    fn op_type(&self) -> &'static str {
        "PadV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_pad(ctx, "PadV2", 3)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(pad_v2_kernel)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        super::pad_slice_grad::pad_grad(ctx)
    }
}

/// The `PadV2` kernel: checks `constant_values` is a scalar, then pads with it.
fn pad_v2_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (x, c) = (ctx.input(0), ctx.input(2));
    if c.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "constant_values must be a scalar. Found: {}",
            fmt_dims(c.shape())
        )));
    }
    Ok(vec![compute_pad(x, ctx.input(1), c)?])
}

/// The `[n, 2]` paddings tensor of `paddings`: int32, or int64 when a value needs it.
fn paddings_tensor(paddings: &[[i64; 2]]) -> Result<Tensor> {
    let v: Vec<i64> = paddings.iter().flatten().copied().collect();
    index_tensor(&[paddings.len(), 2], &v, index_dtype(&v))
}

/// `tf.pad(input, paddings)` (mode `CONSTANT`, fill 0) with constant paddings: op `Pad`
/// (attrs `T`, `Tpaddings`), default name `Pad`, paddings a `[rank, 2]` const
/// `Pad/paddings`: int32, or int64 when a value does not fit (as Python TensorFlow's
/// constants). `input` any dtype; output dimension `i` is
/// `paddings[i][0] + input.shape[i] + paddings[i][1]`, the new elements zero (false,
/// empty string). Errors: `InvalidArgument` naming the input shape and paddings when
/// `paddings` has not one row per dimension of `input`, or holds a negative count.
/// Gradient (w.r.t. `input`): `Slice` of the incoming gradient.
pub fn pad(s: &Scope, input: &Output, paddings: &[[i64; 2]]) -> Result<Output> {
    let p = paddings_tensor(paddings)?;
    let (op, inner) = s.op_scope("Pad");
    let p = constant(&inner.named("paddings"), p)?;
    pad_dyn(&op, input, &p)
}

/// `Pad` with `paddings` a `[rank, 2]` int32 or int64 tensor, default name `Pad`. As
/// [`pad`]; when `paddings` is not a build-time constant, the output has `input`'s rank
/// and unknown dimensions, and bad paddings are reported when the op runs.
pub fn pad_dyn(s: &Scope, input: &Output, paddings: &Output) -> Result<Output> {
    s.op("Pad", "Pad")
        .input(input)
        .input(paddings)
        .attr("T", input.dtype())
        .attr("Tpaddings", paddings.dtype())
        .build_output()
}

/// `tf.pad(input, paddings, constant_values=c)` with `c` a scalar tensor of `input`'s
/// dtype and constant paddings: op `PadV2` (attrs `T`, `Tpaddings`), default name
/// `PadV2`, paddings a const `PadV2/paddings` as in [`pad`]. As [`pad`], the new elements `c`.
/// Errors as [`pad`], and `InvalidArgument` when `c`'s dtype differs from `input`'s, or
/// (when run) `c` is not a scalar. Gradient: as [`pad`]; none for `c` (as TensorFlow).
pub fn pad_v2(s: &Scope, input: &Output, paddings: &[[i64; 2]], constant_values: &Output) -> Result<Output> {
    let p = paddings_tensor(paddings)?;
    let (op, inner) = s.op_scope("PadV2");
    let p = constant(&inner.named("paddings"), p)?;
    pad_v2_dyn(&op, input, &p, constant_values)
}

/// `PadV2` with `paddings` a `[rank, 2]` int32 or int64 tensor, default name `PadV2`.
/// As [`pad_v2`] and [`pad_dyn`].
pub fn pad_v2_dyn(s: &Scope, input: &Output, paddings: &Output, constant_values: &Output) -> Result<Output> {
    s.op("PadV2", "PadV2")
        .input(input)
        .input(paddings)
        .input(constant_values)
        .attr("T", input.dtype())
        .attr("Tpaddings", paddings.dtype())
        .build_output()
}
