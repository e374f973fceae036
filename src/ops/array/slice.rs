//! `Slice` (`tf.slice`); its gradient, which pads, is in `ops/pad.rs`.

use super::layout::{product_indices, strides};
use super::{const_under, index_dtype, index_tensor, int_values, plain, INTS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// `Slice(input, begin, size)`: the block starting at `begin` of extent `size` (`-1`: to
/// the end); `begin`/`size` int32 or int64 (attr `Index`). All dtypes.
pub struct Slice;
impl Slice {
    /// (begin, size) per dimension, checked against `dims`.
    fn resolve(dims: &[usize], begin: &[i64], size: &[i64]) -> Result<Vec<(usize, usize)>> {
        if begin.len() != dims.len() || size.len() != dims.len() {
            return Err(Error::invalid_argument(format!(
                "Expected begin and size arguments to be 1-D tensors of size {}, but got shapes [{}] and [{}] instead (input {})",
                dims.len(),
                begin.len(),
                size.len(),
                fmt_dims(dims)
            )));
        }
        let mut out = Vec::with_capacity(dims.len());
        for i in 0..dims.len() {
            let (b, d) = (begin[i], dims[i] as i64);
            if b < 0 || b > d {
                return Err(Error::invalid_argument(format!(
                    "Expected begin[{i}] in [0, {d}], but got {b} (input {}, begin {begin:?}, size {size:?})",
                    fmt_dims(dims)
                )));
            }
            let sz = if size[i] == -1 { d - b } else { size[i] };
            if sz < 0 || b + sz > d {
                return Err(Error::invalid_argument(format!(
                    "Expected size[{i}] in [0, {}], but got {} (input {}, begin {begin:?}, size {size:?})",
                    d - b,
                    size[i],
                    fmt_dims(dims)
                )));
            }
            out.push((b as usize, sz as usize));
        }
        Ok(out)
    }
}
impl RegisteredOp for Slice {
    fn op_type(&self) -> &'static str {
        "Slice"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        let t = ctx.dtype(0);
        let x = ctx.shape(0);
        let begin = ctx.const_input(1).map(|b| int_values(&b)).transpose()?;
        let size = ctx.const_input(2).map(|b| int_values(&b)).transpose()?;
        let rank = x
            .rank()
            .or(begin.as_ref().map(|b| b.len()))
            .or(size.as_ref().map(|b| b.len()))
            .or(ctx.shape(1).dim(0))
            .or(ctx.shape(2).dim(0));
        let Some(rank) = rank else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        for (what, v) in [("begin", &begin), ("size", &size)] {
            if let Some(v) = v {
                if v.len() != rank {
                    return Err(Error::invalid_argument(format!(
                        "Slice: {what} {v:?} has {} entries but the input {x} has rank {rank}",
                        v.len()
                    )));
                }
            }
        }
        let mut out = vec![None; rank];
        for (i, o) in out.iter_mut().enumerate() {
            let d = x.dims().and_then(|d| d[i]);
            let b = begin.as_ref().map(|b| b[i]);
            if let (Some(d), Some(b)) = (d, b) {
                if b < 0 || b as usize > d {
                    return Err(Error::invalid_argument(format!(
                        "Expected begin[{i}] in [0, {d}], but got {b} (input {x}, begin {:?})",
                        begin.as_deref().unwrap_or(&[])
                    )));
                }
            }
            *o = match size.as_ref().map(|s| s[i]) {
                Some(-1) => match (d, b) {
                    (Some(d), Some(b)) => Some(d - b as usize),
                    _ => None,
                },
                Some(sz) if sz < -1 => {
                    return Err(Error::invalid_argument(format!("Expected size[{i}] >= -1, but got {sz} (input {x})")))
                }
                Some(sz) => {
                    if let (Some(d), Some(b)) = (d, b) {
                        if b + sz > d as i64 {
                            return Err(Error::invalid_argument(format!(
                                "Expected size[{i}] in [0, {}], but got {sz} (input {x}, begin {b})",
                                d as i64 - b
                            )));
                        }
                    }
                    Some(sz as usize)
                }
                None => None,
            };
        }
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(slice_kernel)
    }
    // TensorFlow's _SliceGrad: Pad the gradient back to the input's shape
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        super::pad_slice_grad::slice_grad(ctx)
    }
}

/// The `Slice` kernel: gathers the block of the input at `begin` of extent `size`.
fn slice_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let r = Slice::resolve(x.shape(), &int_values(ctx.input(1))?, &int_values(ctx.input(2))?)?;
    let st = strides(x.shape());
    let per_dim: Vec<Vec<usize>> = r.iter().zip(&st).map(|(&(b, n), &s)| (b..b + n).map(|i| i * s).collect()).collect();
    let shape: Vec<usize> = r.iter().map(|&(_, n)| n).collect();
    if shape == x.shape() {
        return Ok(vec![x.clone()]);
    }
    Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&product_indices(&per_dim)))?])
}

/// `tf.slice(input, begin, size)` with constant `begin`/`size` (int32 consts
/// `Slice/begin`, `Slice/size`): op `Slice` (attrs `T`, `Index`), default name `Slice`.
/// One entry per dimension of `input` (any dtype); `size[i] = -1` takes the rest of
/// dimension `i`. Output: `input`'s dtype, shape `size` (with -1 resolved). Errors:
/// `InvalidArgument` naming the input shape, begin and size when they do not fit.
/// Gradient (w.r.t. `input`): the incoming gradient zero-padded back to `input`'s shape
/// (TensorFlow's `_SliceGrad`: `Pad` under `gradients/Slice_grad/`); none for begin/size.
pub fn slice(s: &Scope, input: &Output, begin: &[i64], size: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("Slice");
    let dtype = index_dtype(begin.iter().chain(size));
    let b = const_under(s, &base, "begin", index_tensor(&[begin.len()], begin, dtype)?)?;
    let z = const_under(s, &base, "size", index_tensor(&[size.len()], size, dtype)?)?;
    slice_dyn(&s.named(&format!("{base}/")), input, &b, &z)
}

/// `Slice` with `begin`/`size` given as 1-d int32 or int64 tensors of one dtype. As [`slice()`].
pub fn slice_dyn(s: &Scope, input: &Output, begin: &Output, size: &Output) -> Result<Output> {
    s.op("Slice", "Slice")
        .input(input)
        .input(begin)
        .input(size)
        .attr("T", input.dtype())
        .attr("Index", begin.dtype())
        .build_output()
}
