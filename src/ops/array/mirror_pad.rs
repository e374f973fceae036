//! `MirrorPad` (`tf.pad` in `REFLECT` and `SYMMETRIC` modes) and `MirrorPadGrad`, each
//! the other's gradient.

use super::layout::{product_indices, strides};
use super::{const_under, index_tensor, int_values, INTS};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// The `mode` attr: `REFLECT` (the edge is not repeated: `[1, 2, 3]` padded by 2 on the
/// left gives `3, 2, 1, 2, 3`) or `SYMMETRIC` (it is: `2, 1, 1, 2, 3`).
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Reflect,
    Symmetric,
}

fn mode_of(node: &Node) -> Result<Mode> {
    match node.attrs.get("mode") {
        Some(AttrValue::String(m)) if m == b"REFLECT" => Ok(Mode::Reflect),
        Some(AttrValue::String(m)) if m == b"SYMMETRIC" => Ok(Mode::Symmetric),
        v => Err(Error::invalid_argument(format!(
            "attr 'mode' of '{}' ({}) must be \"REFLECT\" or \"SYMMETRIC\", got {v:?}",
            node.name, node.op_type
        ))),
    }
}

/// The `[rank, 2]` paddings of a kernel, checked non-negative and against `rank`.
fn paddings(p: &Tensor, rank: usize) -> Result<Vec<(usize, usize)>> {
    let v = int_values(p)?;
    if p.shape() != [rank, 2] {
        return Err(Error::invalid_argument(format!(
            "The first dimension of paddings must be the rank of inputs: paddings {} for an input of rank {rank}",
            fmt_dims(p.shape())
        )));
    }
    if v.iter().any(|&x| x < 0) {
        return Err(Error::invalid_argument(format!("Paddings must be non-negative: {v:?}")));
    }
    Ok(v.chunks(2).map(|c| (c[0] as usize, c[1] as usize)).collect())
}

/// For one dimension of size `d` padded by `(before, after)`: the source index of every
/// padded position. Errors: TensorFlow's messages for paddings too large for the mode.
fn mirror_map(d: usize, (before, after): (usize, usize), mode: Mode, dim: usize) -> Result<Vec<usize>> {
    let limit = if mode == Mode::Reflect { d.saturating_sub(1) } else { d };
    for p in [before, after] {
        if p > limit {
            return Err(Error::invalid_argument(
                match mode {
                    Mode::Reflect => {
                        format!("paddings must be less than the dimension size: {before}, {after} not less than {d}")
                    }
                    Mode::Symmetric => {
                        format!(
                            "paddings must be no greater than the dimension size: {before}, {after} greater than {d}"
                        )
                    }
                } + &format!(" (dimension {dim})"),
            ));
        }
    }
    let off = usize::from(mode == Mode::Reflect);
    Ok((0..before + d + after)
        .map(|i| {
            if i < before {
                before - i - 1 + off
            } else if i - before < d {
                i - before
            } else {
                // mirrored from the end
                let k = i - before - d;
                d - 1 - k - off
            }
        })
        .collect())
}

/// The padded shape of `x` (partial) by constant `[rank, 2]` paddings `p` (`None`:
/// unknown), or the unpadded one when `grad`.
fn padded_shape(x: &Shape, p: Option<Vec<i64>>, rank_of_p: Option<usize>, grad: bool) -> Result<Shape> {
    let rank = x.rank().or(rank_of_p);
    let Some(rank) = rank else { return Ok(Shape::unknown()) };
    let Some(p) = p else { return Ok(Shape::partial(&vec![None; rank])) };
    if p.len() != 2 * rank {
        return Err(Error::invalid_argument(format!(
            "The first dimension of paddings must be the rank of inputs: {} paddings for an input {x} of rank {rank}",
            p.len() / 2
        )));
    }
    if p.iter().any(|&v| v < 0) {
        return Err(Error::invalid_argument(format!("Paddings must be non-negative: {p:?}")));
    }
    let dims = (0..rank)
        .map(|i| {
            let d = x.dims().and_then(|d| d[i])?;
            let total = (p[2 * i] + p[2 * i + 1]) as usize;
            if grad {
                d.checked_sub(total)
            } else {
                Some(d + total)
            }
        })
        .collect::<Vec<_>>();
    Ok(Shape::partial(&dims))
}

/// `MirrorPad(input, paddings)` (attrs `T`, `Tpaddings`, `mode`): `input` padded by
/// `paddings` (`[rank, 2]` int32/int64: before and after each dimension) with its own
/// values mirrored at the edges (`mode` `REFLECT` or `SYMMETRIC`). Any dtype. Errors:
/// `InvalidArgument` with TensorFlow's messages (negative paddings, paddings of another
/// rank; when run, `paddings must be less than the dimension size` in `REFLECT`, `no
/// greater than` in `SYMMETRIC`). Gradient: `MirrorPadGrad` of the gradient.
pub struct MirrorPad;
impl RegisteredOp for MirrorPad {
    fn op_type(&self) -> &'static str {
        "MirrorPad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_mirror(ctx, false)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(MirrorPadKernel { mode: mode_of(node)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let mode = mode_str(ctx.node)?;
        Ok(vec![Some(mirror_pad_op(ctx.scope, "MirrorPadGrad", &ctx.grad(0)?, &ctx.inputs[1], mode)?), None])
    }
}

fn mode_str(node: &Node) -> Result<&'static str> {
    Ok(match mode_of(node)? {
        Mode::Reflect => "REFLECT",
        Mode::Symmetric => "SYMMETRIC",
    })
}

fn infer_mirror(ctx: &InferCtx, grad: bool) -> Result<Vec<(DType, Shape)>> {
    ctx.expect_inputs(2)?;
    ctx.check_dtype(1, INTS)?;
    mode_of(ctx.node)?;
    let ps = ctx.shape(1);
    if let Some(r) = ps.rank().filter(|&r| r != 2) {
        return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {r} (paddings)")));
    }
    let p = ctx.const_input(1).map(|p| int_values(&p)).transpose()?;
    Ok(vec![(ctx.dtype(0), padded_shape(ctx.shape(0), p, ps.dim(0), grad)?)])
}

/// A prepared `MirrorPad`: its mode.
struct MirrorPadKernel {
    mode: Mode,
}

/// The per-dimension source maps of mirror-padding a tensor of shape `dims`.
fn maps(dims: &[usize], p: &[(usize, usize)], mode: Mode) -> Result<Vec<Vec<usize>>> {
    dims.iter().zip(p).enumerate().map(|(i, (&d, &pp))| mirror_map(d, pp, mode, i)).collect()
}

impl Kernel for MirrorPadKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let p = paddings(ctx.input(1), x.rank())?;
        let m = maps(x.shape(), &p, self.mode)?;
        let st = strides(x.shape());
        let per_dim: Vec<Vec<usize>> = m.iter().zip(&st).map(|(m, &s)| m.iter().map(|&i| i * s).collect()).collect();
        let shape: Vec<usize> = m.iter().map(|m| m.len()).collect();
        Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&product_indices(&per_dim)))?])
    }
}

/// `MirrorPadGrad(input, paddings)` (attrs as `MirrorPad`): the gradient of `MirrorPad`:
/// `input` (shaped like the padded tensor) with every padded element added onto the
/// element it mirrors, then the padding cut off. float32, float64, int32, int64. Errors:
/// `InvalidArgument` as [`MirrorPad`]. Gradient: `MirrorPad` of the gradient.
pub struct MirrorPadGrad;
impl RegisteredOp for MirrorPadGrad {
    fn op_type(&self) -> &'static str {
        "MirrorPadGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_mirror(ctx, true)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let mode = mode_of(node)?;
        let t = node.attr_type("T")?;
        let f = crate::dispatch_numeric!(t, "MirrorPadGrad", T => mirror_pad_grad::<T> as GradFn);
        Ok(Box::new(MirrorPadGradKernel { mode, f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let mode = mode_str(ctx.node)?;
        Ok(vec![Some(mirror_pad_op(ctx.scope, "MirrorPad", &ctx.grad(0)?, &ctx.inputs[1], mode)?), None])
    }
}

type GradFn = fn(&Tensor, &[(usize, usize)], Mode) -> Result<Tensor>;

/// A prepared `MirrorPadGrad`: its mode and typed kernel.
struct MirrorPadGradKernel {
    mode: Mode,
    f: GradFn,
}

impl Kernel for MirrorPadGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let g = ctx.input(0);
        let p = paddings(ctx.input(1), g.rank())?;
        Ok(vec![(self.f)(g, &p, self.mode)?])
    }
}

fn mirror_pad_grad<T: Num>(g: &Tensor, p: &[(usize, usize)], mode: Mode) -> Result<Tensor> {
    let mut dims = Vec::with_capacity(g.rank());
    for (i, (&n, &(a, b))) in g.shape().iter().zip(p).enumerate() {
        let d = n.checked_sub(a + b).ok_or_else(|| {
            Error::invalid_argument(format!(
                "MirrorPadGrad: paddings {a}, {b} exceed dimension {i} of the gradient {}",
                fmt_dims(g.shape())
            ))
        })?;
        dims.push(d);
    }
    let m = maps(&dims, p, mode)?;
    let st = strides(&dims);
    let per_dim: Vec<Vec<usize>> = m.iter().zip(&st).map(|(m, &s)| m.iter().map(|&i| i * s).collect()).collect();
    let mut out = vec![T::ZERO; dims.iter().product()];
    for (&v, i) in g.as_slice::<T>()?.iter().zip(product_indices(&per_dim)) {
        out[i] += v;
    }
    Tensor::new(&dims, out)
}

/// A `MirrorPad` or `MirrorPadGrad` op.
fn mirror_pad_op(s: &Scope, op_type: &str, input: &Output, paddings: &Output, mode: &str) -> Result<Output> {
    s.op(op_type, op_type)
        .input(input)
        .input(paddings)
        .attr("T", input.dtype())
        .attr("Tpaddings", paddings.dtype())
        .attr("mode", mode)
        .build_output()
}

/// `tf.pad(input, paddings, mode)` for `mode` `"REFLECT"` or `"SYMMETRIC"` with constant
/// paddings (int32 const `MirrorPad/paddings`): op `MirrorPad`, default name `MirrorPad`.
/// Errors: `InvalidArgument` for another mode and as [`MirrorPad`].
pub fn mirror_pad(s: &Scope, input: &Output, paddings: &[[i64; 2]], mode: &str) -> Result<Output> {
    let base = s.unique_op_name("MirrorPad");
    let flat: Vec<i64> = paddings.iter().flatten().copied().collect();
    let p = const_under(s, &base, "paddings", index_tensor(&[paddings.len(), 2], &flat, DType::Int32)?)?;
    mirror_pad_op(&s.named(&format!("{base}/")), "MirrorPad", input, &p, mode)
}

/// `MirrorPad` with `paddings` a `[rank, 2]` int32/int64 tensor. As [`mirror_pad`].
pub fn mirror_pad_dyn(s: &Scope, input: &Output, paddings: &Output, mode: &str) -> Result<Output> {
    mirror_pad_op(s, "MirrorPad", input, paddings, mode)
}

/// `MirrorPadGrad(input, paddings)` (`tf.raw_ops.MirrorPadGrad`), default name
/// `MirrorPadGrad`. As [`MirrorPadGrad`].
pub fn mirror_pad_grad_op(s: &Scope, input: &Output, paddings: &Output, mode: &str) -> Result<Output> {
    mirror_pad_op(s, "MirrorPadGrad", input, paddings, mode)
}
