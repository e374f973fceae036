//! `StridedSlice` (`tf.strided_slice`, Python's `x[1:3, ..., ::-1, tf.newaxis, 0]`) and
//! `StridedSliceGrad`, its gradient, each the other's gradient. Both resolve the sparse
//! slice spec (begin, end, strides and the five masks) against the input's shape as
//! TensorFlow's `ValidateStridedSliceOp` does, in [`resolve`]: at build time on partial
//! shapes for the static output shape, when run on concrete ones.

use super::layout::{interleave, product_indices, strides as row_strides};
use super::{const_under, const_value, constant, index_dtype, index_tensor, int_values, shape_as, INTS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};

/// The five mask attrs of `StridedSlice` and `StridedSliceGrad`: bit `i` refers to entry
/// `i` of `begin`/`end`/`strides`. `begin`/`end`: ignore that bound (take the dimension
/// from its start/end, in the stride's direction); `ellipsis`: the entry stands for as
/// many full dimensions as needed (at most one bit); `new_axis`: insert a dimension of 1;
/// `shrink_axis`: take the single index `begin[i]` and drop the dimension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceMasks {
    /// `begin_mask`
    pub begin: i64,
    /// `end_mask`
    pub end: i64,
    /// `ellipsis_mask`
    pub ellipsis: i64,
    /// `new_axis_mask`
    pub new_axis: i64,
    /// `shrink_axis_mask`
    pub shrink_axis: i64,
}

impl SliceMasks {
    /// The masks of `node` (0 when absent).
    fn of(node: &Node) -> Result<SliceMasks> {
        Ok(SliceMasks {
            begin: node.attr_int_or("begin_mask", 0)?,
            end: node.attr_int_or("end_mask", 0)?,
            ellipsis: node.attr_int_or("ellipsis_mask", 0)?,
            new_axis: node.attr_int_or("new_axis_mask", 0)?,
            shrink_axis: node.attr_int_or("shrink_axis_mask", 0)?,
        })
    }
}

/// Where a final (output) dimension comes from.
#[derive(Clone, Copy)]
enum Gather {
    /// A processed input dimension.
    Dim(usize),
    /// A `new_axis` entry: a dimension of 1.
    NewAxis,
}

/// A slice spec resolved against an input shape: per input dimension the canonical first
/// index and stride and the number of elements taken (`None`: unknown at build time), and
/// the output's dimensions.
struct Resolved {
    begin: Vec<i64>,
    stride: Vec<i64>,
    sizes: Vec<Option<usize>>,
    final_shape: Vec<Option<usize>>,
}

/// TensorFlow's `ValidateStridedSliceOp`: expands the sparse spec (`strides` has one entry
/// per sparse index; `begin`/`end` may be unknown at build time) over an input of
/// dimensions `dims` (`None`: unknown), bounds-checks it and computes the output shape.
/// Errors: `InvalidArgument` with TensorFlow's messages (sizes that differ, several
/// ellipses, a zero stride, a shrink index out of bounds, more indices than dimensions).
fn resolve(
    dims: &[Option<usize>],
    begin: Option<&[i64]>,
    end: Option<&[i64]>,
    strides: &[i64],
    m: SliceMasks,
) -> Result<Resolved> {
    let n = strides.len();
    let wrong = |v: Option<&[i64]>, limit: usize| v.is_some_and(|v| v.len() != n || v.len() >= limit);
    if wrong(begin, 32) || wrong(end, usize::MAX) {
        let len = |v: Option<&[i64]>| v.map(|v| format!("[{}]", v.len())).unwrap_or_else(|| "?".into());
        return Err(Error::invalid_argument(format!(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes {}, {}, and [{n}] instead.",
            len(begin),
            len(end)
        )));
    }
    if m.ellipsis & (m.ellipsis - 1) != 0 {
        return Err(Error::invalid_argument("Multiple ellipses in slice spec not allowed"));
    }
    let bit = |mask: i64, i: usize| i < 63 && mask & (1i64 << i) != 0;
    // step 1: new axes after the ellipsis; an implicit ellipsis at the end when none
    let mut ellipsis = m.ellipsis;
    let mut sparse_dims = n;
    let mut seen = false;
    let mut new_after_ellipsis = 0usize;
    for i in 0..n {
        if seen && bit(m.new_axis, i) {
            new_after_ellipsis += 1;
        }
        seen |= bit(ellipsis, i);
    }
    if !seen {
        ellipsis |= 1i64 << n;
        sparse_dims += 1;
    }
    // step 2: the dense spec, one entry per input dimension
    let rank = dims.len();
    let (mut b, mut e, mut st) = (vec![0i64; rank], vec![0i64; rank], vec![1i64; rank]);
    let (mut bmask, mut emask, mut shrink) = (vec![false; rank], vec![false; rank], vec![false; rank]);
    let mut gather = Vec::with_capacity(rank + sparse_dims);
    let mut full = 0usize;
    for i in 0..sparse_dims {
        if bit(ellipsis, i) {
            let next = (rank + 1 + new_after_ellipsis).saturating_sub(sparse_dims - i).min(rank);
            while full < next {
                bmask[full] = true;
                emask[full] = true;
                gather.push(Some(Gather::Dim(full)));
                full += 1;
            }
        } else if bit(m.new_axis, i) {
            gather.push(Some(Gather::NewAxis));
        } else {
            if full == rank {
                return Err(Error::invalid_argument(format!(
                    "Index out of range using input dim {full}; input has only {rank} dims"
                )));
            }
            if let Some(v) = begin {
                b[full] = v[i];
            }
            if let Some(v) = end {
                e[full] = v[i];
            }
            st[full] = strides[i];
            bmask[full] = bit(m.begin, i);
            emask[full] = bit(m.end, i);
            shrink[full] = bit(m.shrink_axis, i);
            gather.push((!shrink[full]).then_some(Gather::Dim(full)));
            full += 1;
        }
    }
    // step 3: canonical bounds and the extent of every input dimension
    let known = begin.is_some() && end.is_some();
    let mut sizes = Vec::with_capacity(rank);
    for i in 0..rank {
        let s = st[i];
        if s == 0 {
            return Err(Error::invalid_argument(format!("strides[{i}] must be non-zero")));
        }
        let Some(d) = dims[i] else {
            sizes.push(shrink[i].then_some(1));
            continue;
        };
        let d = d as i64;
        if shrink[i] && s <= 0 {
            return Err(Error::invalid_argument("only stride 1 allowed on non-range indexing."));
        }
        let range = if s > 0 { [0, d] } else { [-1, d - 1] };
        let canonical = |x: i64, masked: bool, c: usize| {
            if masked {
                if s > 0 {
                    range[c]
                } else {
                    range[(c + 1) & 1]
                }
            } else {
                let fwd = if x < 0 { d + x } else { x };
                fwd.clamp(range[0], range[1])
            }
        };
        let interval = if known {
            if shrink[i] {
                let fwd = if b[i] < 0 { d + b[i] } else { b[i] };
                if fwd < 0 || fwd >= d {
                    return Err(Error::invalid_argument(format!("slice index {fwd} of dimension {i} out of bounds.")));
                }
                b[i] = fwd;
                e[i] = fwd + 1;
            } else {
                b[i] = canonical(b[i], bmask[i], 0);
                e[i] = canonical(e[i], emask[i], 1);
            }
            Some(e[i] - b[i])
        } else if shrink[i] {
            Some(1)
        } else if bmask[i] && emask[i] && d > 0 {
            Some(if s < 0 { -d } else { d })
        } else {
            None
        };
        sizes.push(interval.map(|len| {
            if len == 0 || (len < 0) != (s < 0) {
                0
            } else {
                (len / s + i64::from(len % s != 0)) as usize
            }
        }));
    }
    // step 4: the output shape: new axes add a 1, shrunk dimensions go
    let final_shape = gather
        .iter()
        .flatten()
        .map(|g| match g {
            Gather::Dim(i) => sizes[*i],
            Gather::NewAxis => Some(1),
        })
        .collect();
    Ok(Resolved { begin: b, stride: st, sizes, final_shape })
}

impl Resolved {
    /// For a concrete input of shape `dims`: the flat input index of every element taken,
    /// in output order.
    fn indices(&self, dims: &[usize]) -> Vec<usize> {
        let rs = row_strides(dims);
        let per_dim: Vec<Vec<usize>> = (0..dims.len())
            .map(|i| {
                let n = self.sizes[i].unwrap_or(0) as i64;
                (0..n).map(|k| (self.begin[i] + k * self.stride[i]) as usize * rs[i]).collect()
            })
            .collect();
        product_indices(&per_dim)
    }
    /// The output shape, all dimensions known (a concrete input).
    fn concrete_shape(&self) -> Vec<usize> {
        self.final_shape.iter().map(|d| d.unwrap_or(0)).collect()
    }
}

/// Errors unless input `i` (begin, end or strides) can be a vector.
fn check_vector(ctx: &InferCtx, i: usize) -> Result<Option<usize>> {
    let s = ctx.shape(i);
    match s.rank() {
        Some(r) if r != 1 => Err(Error::invalid_argument(format!(
            "Shape must be rank 1 but is rank {r} for input {i} ({}) of {}: begin, end and strides are vectors",
            ["input", "begin", "end", "strides"].get(i).unwrap_or(&"?"),
            ctx.node.op_type
        ))),
        _ => Ok(s.dim(0)),
    }
}

/// The number of sparse slice entries from the lengths of begin, end and strides
/// (`None`: unknown). Errors: `InvalidArgument` when two known lengths differ.
fn sparse_len(ctx: &InferCtx, first: usize) -> Result<Option<usize>> {
    let mut n = None;
    for i in first..first + 3 {
        if let Some(d) = check_vector(ctx, i)? {
            if n.is_some_and(|n| n != d) {
                return Err(Error::invalid_argument(format!(
                    "Dimension 0 in both shapes must be equal, but are {} and {d}: begin, end and strides of {} must have one length",
                    n.unwrap_or(0),
                    ctx.node.op_type
                )));
            }
            n = Some(d);
        }
    }
    Ok(n)
}

/// Errors unless begin, end and strides (inputs `first..first + 3`) are int32/int64 of the
/// dtype of attr `Index`.
fn check_index_dtypes(ctx: &InferCtx, first: usize) -> Result<()> {
    for i in first..first + 3 {
        ctx.check_dtype(i, INTS)?;
        ctx.check_type_attr("Index", i)?;
    }
    Ok(())
}

/// `StridedSlice(input, begin, end, strides)`: the elements `begin[i], begin[i] +
/// strides[i], ...` up to (not including) `end[i]` along every dimension, negative
/// indices counting from the end and negative strides walking backwards, shaped by the
/// five mask attrs ([`SliceMasks`]). `begin`/`end`/`strides` are 1-d int32 or int64 of
/// one length (attr `Index`); any `T`. The static output shape is TensorFlow's (known
/// when `strides` is constant and the input's rank known). Errors: `InvalidArgument` as
/// TensorFlow's (a zero stride, a shrink index out of bounds, several ellipses, more
/// indices than dimensions, lengths that differ). Gradient: `StridedSliceGrad`.
pub struct StridedSlice;
impl RegisteredOp for StridedSlice {
    fn op_type(&self) -> &'static str {
        "StridedSlice"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        check_index_dtypes(ctx, 1)?;
        let t = ctx.dtype(0);
        let n = sparse_len(ctx, 1)?;
        let strides = ctx.const_input(3).map(|v| int_values(&v)).transpose()?;
        let (Some(dims), Some(_), Some(strides)) = (ctx.shape(0).dims(), n, strides) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        let begin = ctx.const_input(1).map(|v| int_values(&v)).transpose()?;
        let end = ctx.const_input(2).map(|v| int_values(&v)).transpose()?;
        let r = resolve(dims, begin.as_deref(), end.as_deref(), &strides, SliceMasks::of(ctx.node)?)?;
        Ok(vec![(t, Shape::partial(&r.final_shape))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(StridedSliceKernel { masks: SliceMasks::of(node)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        strided_slice_gradient(ctx)
    }
}

/// The begin, end and strides values of a kernel's inputs `first..first + 3`.
fn spec_values(ctx: &KernelCtx, first: usize) -> Result<[Vec<i64>; 3]> {
    for i in first..first + 3 {
        if ctx.input(i).rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected begin, end, and strides to be 1D equal size tensors, but got shapes {}, {}, and {} instead.",
                fmt_dims(ctx.input(first).shape()),
                fmt_dims(ctx.input(first + 1).shape()),
                fmt_dims(ctx.input(first + 2).shape())
            )));
        }
    }
    Ok([int_values(ctx.input(first))?, int_values(ctx.input(first + 1))?, int_values(ctx.input(first + 2))?])
}

/// A prepared `StridedSlice`: its masks.
struct StridedSliceKernel {
    masks: SliceMasks,
}

impl Kernel for StridedSliceKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let [b, e, s] = spec_values(ctx, 1)?;
        let x = ctx.input(0);
        let dims: Vec<Option<usize>> = x.shape().iter().map(|&d| Some(d)).collect();
        let r = resolve(&dims, Some(&b), Some(&e), &s, self.masks)?;
        let shape = r.concrete_shape();
        let whole = r.sizes.iter().zip(x.shape()).all(|(n, &d)| *n == Some(d));
        if whole && r.stride.iter().all(|&s| s == 1) {
            return Ok(vec![x.reshape(&shape)?]);
        }
        Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&r.indices(x.shape())))?])
    }
}

/// `StridedSliceGrad(shape, begin, end, strides, dy)`: a tensor of `shape` (1-d int32 or
/// int64, attr `Index` as begin/end/strides) holding zeros except where
/// `StridedSlice(·, begin, end, strides)` with the same masks reads, which get `dy`'s
/// elements: the gradient of `StridedSlice`. Any `T`. Errors: `InvalidArgument` when `dy`
/// is not shaped like that slice's output (TensorFlow: `shape of dy was [..] instead of
/// [..]`), and as [`StridedSlice`]. Gradient (of `dy`): `StridedSlice` of the gradient.
pub struct StridedSliceGrad;
impl RegisteredOp for StridedSliceGrad {
    fn op_type(&self) -> &'static str {
        "StridedSliceGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(5)?;
        ctx.check_dtype(0, INTS)?;
        ctx.check_type_attr("Index", 0)?;
        check_index_dtypes(ctx, 1)?;
        ctx.check_type_attr("T", 4)?;
        sparse_len(ctx, 1)?;
        let shape = match ctx.const_input(0) {
            Some(v) => {
                let v = int_values(&v)?;
                Shape::partial(&v.iter().map(|&d| usize::try_from(d).ok()).collect::<Vec<_>>())
            }
            None => match check_vector(ctx, 0)? {
                Some(r) => Shape::partial(&vec![None; r]),
                None => Shape::unknown(),
            },
        };
        Ok(vec![(ctx.dtype(4), shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(StridedSliceGradKernel { masks: SliceMasks::of(node)? }))
    }
    // TensorFlow's _StridedSliceGradGrad: the gradient of dy slices the incoming gradient
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let i = &ctx.inputs;
        let masks = SliceMasks::of(ctx.node)?;
        let g = strided_slice_dyn(ctx.scope, &ctx.grad(0)?, &i[1], &i[2], &i[3], masks)?;
        Ok(vec![None, None, None, None, Some(g)])
    }
}

/// A prepared `StridedSliceGrad`: its masks.
struct StridedSliceGradKernel {
    masks: SliceMasks,
}

impl Kernel for StridedSliceGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let shape = ctx.input(0);
        if shape.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "shape must be a vector, got a tensor of shape {}",
                fmt_dims(shape.shape())
            )));
        }
        let dims = int_values(shape)?;
        if let Some(&d) = dims.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!("shape {dims:?} of StridedSliceGrad holds {d} < 0")));
        }
        let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let [b, e, s] = spec_values(ctx, 1)?;
        let known: Vec<Option<usize>> = dims.iter().map(|&d| Some(d)).collect();
        let r = resolve(&known, Some(&b), Some(&e), &s, self.masks)?;
        let dy = ctx.input(4);
        let want = r.concrete_shape();
        if dy.shape() != want.as_slice() {
            return Err(Error::invalid_argument(format!(
                "shape of dy was {} instead of {}",
                fmt_dims(dy.shape()),
                fmt_dims(&want)
            )));
        }
        let n = crate::tensor::checked_num_elements(&dims)?;
        crate::tensor::check_alloc(dy.dtype(), n)?;
        // every output element reads dy's element, or the zero appended after them
        let zero = Storage::try_zeros(dy.dtype(), 1)?;
        let with_zero = interleave(&[dy.storage(), &zero], 1, &[dy.num_elements(), 1])?;
        let mut src = vec![dy.num_elements(); n];
        for (k, i) in r.indices(&dims).into_iter().enumerate() {
            src[i] = k;
        }
        Ok(vec![Tensor::from_storage(&dims, with_zero.gather(&src))?])
    }
}

/// TensorFlow's `_StridedSliceGrad`: `StridedSliceGrad(shape(x), begin, end, strides,
/// grad)` with the forward op's masks, under `gradients/<op>_grad/`. As TensorFlow's
/// Python, a shape known at build time is a `Const` `Shape`, and constant arguments are
/// passed as new constants `StridedSliceGrad/shape`, `.../begin`, `.../end`, `.../strides`.
fn strided_slice_gradient(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let (x, begin, end, strides) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2], &ctx.inputs[3]);
    let index = begin.dtype();
    let shape = match x.shape().to_vec() {
        Some(d) => {
            let v: Vec<i64> = d.iter().map(|&v| v as i64).collect();
            constant(&s.named("Shape"), index_tensor(&[v.len()], &v, index)?)?
        }
        None => shape_as(s, x, index)?,
    };
    let base = s.unique_op_name("StridedSliceGrad");
    let arg = |name: &str, o: &Output| -> Result<Output> {
        match const_value(o) {
            Some(v) => const_under(s, &base, name, v),
            None => Ok(o.clone()),
        }
    };
    let (shape, begin, end, strides) =
        (arg("shape", &shape)?, arg("begin", begin)?, arg("end", end)?, arg("strides", strides)?);
    let masks = SliceMasks::of(ctx.node)?;
    let g = strided_slice_grad(&s.named(&format!("{base}/")), &shape, &begin, &end, &strides, &ctx.grad(0)?, masks)?;
    Ok(vec![Some(g), None, None, None])
}

/// `tf.strided_slice(input, begin, end, strides, masks...)` with constant
/// `begin`/`end`/`strides` (consts `StridedSlice/begin`, `.../end`, `.../strides`, int32
/// unless a value needs int64): op `StridedSlice` (attrs `T`, `Index` and the five masks),
/// default name `StridedSlice`. Python's `x[1:3, ::-1]` is `begin = [1, 0]`, `end = [3,
/// 0]`, `strides = [1, -1]`, `masks.begin = masks.end = 0b10`. Output: `input`'s dtype,
/// TensorFlow's static shape. Errors: `InvalidArgument` as [`StridedSlice`] (at build time
/// when the input's shape tells). Gradient: `StridedSliceGrad`.
pub fn strided_slice(
    s: &Scope,
    input: &Output,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    masks: SliceMasks,
) -> Result<Output> {
    let base = s.unique_op_name("StridedSlice");
    let dtype = index_dtype(begin.iter().chain(end).chain(strides));
    let vec = |v: &[i64]| index_tensor(&[v.len()], v, dtype);
    let b = const_under(s, &base, "begin", vec(begin)?)?;
    let e = const_under(s, &base, "end", vec(end)?)?;
    let st = const_under(s, &base, "strides", vec(strides)?)?;
    strided_slice_dyn(&s.named(&format!("{base}/")), input, &b, &e, &st, masks)
}

/// `StridedSlice` with `begin`/`end`/`strides` given as 1-d int32 or int64 tensors of one
/// dtype, default name `StridedSlice`. As [`strided_slice()`].
pub fn strided_slice_dyn(
    s: &Scope,
    input: &Output,
    begin: &Output,
    end: &Output,
    strides: &Output,
    masks: SliceMasks,
) -> Result<Output> {
    let op = s.op("StridedSlice", "StridedSlice").input(input).input(begin).input(end).input(strides);
    with_masks(op.attr("T", input.dtype()).attr("Index", begin.dtype()), masks).build_output()
}

/// `StridedSliceGrad(shape, begin, end, strides, dy)` (`tf.raw_ops.StridedSliceGrad`),
/// default name `StridedSliceGrad`: `dy` scattered into zeros of `shape` where the strided
/// slice with these masks reads. `shape`/`begin`/`end`/`strides` 1-d int32 or int64 of one
/// dtype; any `dy` dtype. Errors: `InvalidArgument` as [`StridedSliceGrad`].
pub fn strided_slice_grad(
    s: &Scope,
    shape: &Output,
    begin: &Output,
    end: &Output,
    strides: &Output,
    dy: &Output,
    masks: SliceMasks,
) -> Result<Output> {
    let op = s.op("StridedSliceGrad", "StridedSliceGrad").input(shape).input(begin).input(end).input(strides);
    with_masks(op.input(dy).attr("T", dy.dtype()).attr("Index", begin.dtype()), masks).build_output()
}

/// Python's `x[...]` indexing in graph mode: op `StridedSlice` named `strided_slice` with
/// its constant arguments `strided_slice/stack`, `.../stack_1`, `.../stack_2` (int32
/// unless a value needs int64), as TensorFlow's `Tensor.__getitem__` builds it; `x[:-2]`
/// is `begin = [0]`, `end = [-2]`, `strides = [1]`, `masks.begin = 1`. As [`strided_slice()`].
pub fn strided_slice_indexing(
    s: &Scope,
    input: &Output,
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    masks: SliceMasks,
) -> Result<Output> {
    let base = s.unique_op_name("strided_slice");
    let dtype = index_dtype(begin.iter().chain(end).chain(strides));
    let vec = |v: &[i64]| index_tensor(&[v.len()], v, dtype);
    let b = const_under(s, &base, "stack", vec(begin)?)?;
    let e = const_under(s, &base, "stack_1", vec(end)?)?;
    let st = const_under(s, &base, "stack_2", vec(strides)?)?;
    let named = s.named(&format!("{base}/"));
    let op = named.op("StridedSlice", "strided_slice").input(input).input(&b).input(&e).input(&st);
    with_masks(op.attr("T", input.dtype()).attr("Index", dtype), masks).build_output()
}

/// `op` with the five mask attrs set.
fn with_masks(op: crate::graph::OpBuilder<'_>, m: SliceMasks) -> crate::graph::OpBuilder<'_> {
    op.attr("begin_mask", m.begin)
        .attr("end_mask", m.end)
        .attr("ellipsis_mask", m.ellipsis)
        .attr("new_axis_mask", m.new_axis)
        .attr("shrink_axis_mask", m.shrink_axis)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dims: &[usize], b: &[i64], e: &[i64], s: &[i64], m: SliceMasks) -> Vec<Option<usize>> {
        let d: Vec<Option<usize>> = dims.iter().map(|&d| Some(d)).collect();
        resolve(&d, Some(b), Some(e), s, m).unwrap().final_shape
    }

    #[test]
    fn python_indexing_shapes() {
        let none = SliceMasks::default();
        // x[1:3] of [4, 5]
        assert_eq!(shape(&[4, 5], &[1], &[3], &[1], none), [Some(2), Some(5)]);
        // x[::-1]
        let be = SliceMasks { begin: 1, end: 1, ..none };
        assert_eq!(shape(&[4], &[0], &[0], &[-1], be), [Some(4)]);
        // x[-1] drops the dimension
        assert_eq!(shape(&[4, 5], &[-1], &[0], &[1], SliceMasks { shrink_axis: 1, ..none }), [Some(5)]);
        // x[..., tf.newaxis] of [2, 3]
        let m = SliceMasks { ellipsis: 1, new_axis: 2, ..none };
        assert_eq!(shape(&[2, 3], &[0, 0], &[0, 0], &[1, 1], m), [Some(2), Some(3), Some(1)]);
    }
}
