//! Shape-manipulating ops (TensorFlow's `array_ops` and a few `math_ops`): ConcatV2,
//! ConcatOffset, Pack, Unpack, Slice, Tile, GatherV2, UnsortedSegmentSum, Transpose,
//! InvertPermutation, Squeeze and Range.
//!
//! The data-movement kernels (concat, pack, slice, tile, gather, transpose) work for
//! every dtype (bool and string included) by gathering flat element indices.

use super::array::{cast, constant, index_dtype, index_tensor, int_values, reshape, zeros_like};
use super::kernels::Num;
use super::{GradCtx, InferCtx, KernelCtx, OpDef};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};

pub(super) static DEFS: &[&dyn OpDef] = &[
    &ConcatV2,
    &ConcatOffset,
    &Pack,
    &Unpack,
    &Slice,
    &Tile,
    &GatherV2,
    &UnsortedSegmentSum,
    &Transpose,
    &InvertPermutation,
    &Squeeze,
    &Range,
];

const INTS: &[DType] = &[DType::Int32, DType::Int64];
const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

// ---------------------------------------------------------------- helpers

/// Normalizes `axis` (negative counts from the end) against `rank` (an axis in
/// `[-rank, rank)`). Errors: `InvalidArgument` naming `what`, the axis and the range.
fn norm_axis(axis: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::invalid_argument(format!(
            "{what}: Expected axis in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// The single integer of a scalar (or one-element) int32/int64 tensor.
fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    let v = int_values(t)?;
    match v[..] {
        [x] if t.rank() <= 1 => Ok(x),
        _ => Err(Error::invalid_argument(format!(
            "{what} must be a scalar, got a tensor of shape {}",
            fmt_dims(t.shape())
        ))),
    }
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Flat indices of the cartesian product of per-dimension offsets: output element
/// `(i0, i1, ...)` reads input element `per_dim[0][i0] + per_dim[1][i1] + ...`.
fn product_indices(per_dim: &[Vec<usize>]) -> Vec<usize> {
    let mut out = vec![0usize];
    for d in per_dim {
        let mut next = Vec::with_capacity(out.len() * d.len());
        for &b in &out {
            next.extend(d.iter().map(|&o| b + o));
        }
        out = next;
    }
    out
}

/// Concatenates `parts` (same dtype) block-wise: for each of `outer` rows, `chunks[i]`
/// elements of part `i` in turn.
fn interleave(parts: &[&Storage], outer: usize, chunks: &[usize]) -> Result<Storage> {
    let total: usize = chunks.iter().sum::<usize>() * outer;
    macro_rules! go {
        ($($v:ident),*) => {
            match parts[0] {
                $(Storage::$v(_) => {
                    let mut slices = Vec::with_capacity(parts.len());
                    for p in parts {
                        match p {
                            Storage::$v(x) => slices.push(x),
                            other => {
                                return Err(Error::invalid_argument(format!(
                                    "all values must have one dtype: {} vs {}",
                                    parts[0].dtype(),
                                    other.dtype()
                                )))
                            }
                        }
                    }
                    let mut out = Vec::with_capacity(total);
                    for o in 0..outer {
                        for (s, &c) in slices.iter().zip(chunks) {
                            out.extend_from_slice(&s[o * c..(o + 1) * c]);
                        }
                    }
                    Storage::$v(out)
                })*
            }
        };
    }
    Ok(go!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str))
}

/// A 1-d int tensor of `dtype` (int32 or int64) holding `v`.
fn int_tensor(dtype: DType, v: &[i64]) -> Result<Tensor> {
    index_tensor(&[v.len()], v, dtype)
}

/// A constant `Const` named `<base>/<suffix>` for an op about to be named `base`.
fn const_under(s: &Scope, base: &str, suffix: &str, value: Tensor) -> Result<Output> {
    constant(&s.named(&format!("{base}/{suffix}/")), value)
}

/// `Shape(x)` with `out_type = dtype`.
fn shape_of(s: &Scope, x: &Output, dtype: DType) -> Result<Output> {
    s.op("Shape", "Shape").input(x).attr("T", x.dtype()).attr("out_type", dtype).build_output()
}

/// The constant value of an op output at gradient-building time (a `Const` node).
fn const_value(o: &Output) -> Option<Tensor> {
    let n = o.graph().node(o.op().id());
    (n.op_type == "Const").then(|| n.attr_tensor("value").ok().cloned()).flatten()
}

// ---------------------------------------------------------------- ConcatV2

/// `ConcatV2(values..., axis)`: joins `N` tensors (attr `N`) along `axis` (last input,
/// int32/int64 scalar, attr `Tidx`; negative counts from the end). All dtypes.
pub struct ConcatV2;
impl ConcatV2 {
    fn check_n(ctx_n: Option<i64>, got: usize) -> Result<()> {
        if let Some(n) = ctx_n {
            if n as usize != got {
                return Err(Error::invalid_argument(format!("attr N = {n} but {got} values were given")));
            }
        }
        if got == 0 {
            return Err(Error::invalid_argument("ConcatV2 needs at least one value (and the axis)"));
        }
        Ok(())
    }
}
impl OpDef for ConcatV2 {
    fn op_type(&self) -> &'static str {
        "ConcatV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let n = ctx.inputs.len().saturating_sub(1);
        Self::check_n(
            ctx.node.attrs.get("N").and_then(|v| if let AttrValue::Int(i) = v { Some(*i) } else { None }),
            n,
        )?;
        ctx.check_dtype(n, INTS)?;
        let t = ctx.dtype(0);
        for i in 1..n {
            if ctx.dtype(i) != t {
                return Err(Error::invalid_argument(format!(
                    "ConcatV2 values must have one dtype: value {i} is {} but value 0 is {t}",
                    ctx.dtype(i)
                )));
            }
        }
        let rank = (0..n).find_map(|i| ctx.shape(i).rank());
        let Some(rank) = rank else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        for i in 0..n {
            if let Some(r) = ctx.shape(i).rank() {
                if r != rank {
                    return Err(Error::invalid_argument(format!(
                        "ConcatOp: Ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] = {}",
                        ctx.shape(0),
                        ctx.shape(i)
                    )));
                }
            }
        }
        let Some(axis) = ctx.const_input(n) else {
            return Ok(vec![(t, Shape::partial(&vec![None; rank]))]);
        };
        if rank == 0 {
            return Err(Error::invalid_argument("Can't concatenate scalars (use tf.stack instead)"));
        }
        let axis = norm_axis(scalar_int(&axis, "ConcatV2 axis")?, rank, "ConcatV2")?;
        let mut out: Vec<Option<usize>> = vec![None; rank];
        let mut along = Some(0usize);
        for i in 0..n {
            let Some(d) = ctx.shape(i).dims() else {
                along = None;
                continue;
            };
            along = along.and_then(|a| d[axis].map(|x| a + x));
            for j in (0..rank).filter(|&j| j != axis) {
                out[j] = match (out[j], d[j]) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(Error::invalid_argument(format!(
                            "ConcatOp: Dimension {j} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {}",
                            ctx.shape(0),
                            ctx.shape(i)
                        )))
                    }
                    (a, b) => a.or(b),
                };
            }
        }
        out[axis] = along;
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let n = ctx.inputs.len().saturating_sub(1);
        Self::check_n(None, n)?;
        let vals = &ctx.inputs[..n];
        let x0 = &vals[0];
        let rank = x0.rank();
        if rank == 0 {
            return Err(Error::invalid_argument("Can't concatenate scalars (use tf.stack instead)"));
        }
        let axis = norm_axis(scalar_int(ctx.input(n), "ConcatV2 axis")?, rank, "ConcatV2")?;
        let mut out_shape = x0.shape().to_vec();
        out_shape[axis] = 0;
        for (i, v) in vals.iter().enumerate() {
            let ok = v.rank() == rank
                && v.dtype() == x0.dtype()
                && (0..rank).all(|j| j == axis || v.shape()[j] == x0.shape()[j]);
            if !ok {
                return Err(Error::invalid_argument(format!(
                    "ConcatOp: Dimensions of inputs should match: shape[0] = {} {} vs. shape[{i}] = {} {} (axis {axis})",
                    x0.dtype(),
                    fmt_dims(x0.shape()),
                    v.dtype(),
                    fmt_dims(v.shape())
                )));
            }
            out_shape[axis] += v.shape()[axis];
        }
        let outer: usize = x0.shape()[..axis].iter().product();
        let chunks: Vec<usize> = vals.iter().map(|v| v.shape()[axis..].iter().product()).collect();
        let parts: Vec<&Storage> = vals.iter().map(|v| v.storage()).collect();
        Ok(vec![Tensor::from_storage(&out_shape, interleave(&parts, outer, &chunks)?)?])
    }
    // TensorFlow's _ConcatGradHelper: ConcatOffset gives each value's start, Slice cuts its part
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let n = ctx.inputs.len() - 1;
        let g = ctx.grad(0)?;
        let axis = &ctx.inputs[n];
        let shapes: Vec<Output> = (0..n)
            .map(|i| shape_of(&s.named(if i == 0 { "Shape" } else { "ShapeN" }), &ctx.inputs[i], DType::Int32))
            .collect::<Result<_>>()?;
        // ConcatOffset takes an int32 axis (negative counts from the end)
        let axis32 = if axis.dtype() == DType::Int32 { axis.clone() } else { cast(s, axis, DType::Int32)? };
        let offsets = concat_offset(s, &axis32, &shapes)?;
        let mut out = Vec::with_capacity(n + 1);
        for i in 0..n {
            let name = if i == 0 { "Slice".to_string() } else { format!("Slice_{i}") };
            out.push(Some(slice_dyn(&s.named(&name), &g, &offsets[i], &shapes[i])?));
        }
        out.push(None);
        Ok(out)
    }
}

/// `tf.concat(values, axis)`: op `ConcatV2` (attrs `N`, `T`, `Tidx = int32`), default name
/// `concat`, axis constant `concat/axis`. `values` (at least one) share a dtype (any) and
/// rank, and their shapes agree except along `axis` (negative counts from the end); the
/// output's `axis` dimension is the sum of theirs. Errors: `InvalidArgument` naming the
/// shapes on a rank, dtype or dimension mismatch or an axis out of range.
pub fn concat(s: &Scope, values: &[Output], axis: i32) -> Result<Output> {
    let base = s.unique_op_name("concat");
    let ax = const_under(s, &base, "axis", Tensor::scalar(axis))?;
    concat_dyn(&s.named(&format!("{base}/")), values, &ax)
}

/// `ConcatV2` with the axis given as a tensor (int32 or int64 scalar), default name `concat`.
/// Errors as [`concat()`].
pub fn concat_dyn(s: &Scope, values: &[Output], axis: &Output) -> Result<Output> {
    let t = values.first().map(|v| v.dtype()).unwrap_or(DType::Float);
    s.op("ConcatV2", "concat")
        .inputs(values)
        .input(axis)
        .attr("N", values.len() as i64)
        .attr("T", t)
        .attr("Tidx", axis.dtype())
        .build_output()
}

// ---------------------------------------------------------------- ConcatOffset

/// `ConcatOffset(concat_dim, shape...)`: for `N` shape vectors (attr `N`, int32 or int64,
/// attr `shape_type`), the offset of each in the concatenation along `concat_dim`.
pub struct ConcatOffset;
impl OpDef for ConcatOffset {
    fn op_type(&self) -> &'static str {
        "ConcatOffset"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 2 {
            return Err(Error::invalid_argument("ConcatOffset needs concat_dim and at least one shape"));
        }
        ctx.check_dtype(0, INTS)?;
        Ok((1..ctx.inputs.len()).map(|i| (ctx.dtype(i), ctx.shape(i).clone())).collect())
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let shapes: Vec<Vec<i64>> = ctx.inputs[1..].iter().map(int_values).collect::<Result<_>>()?;
        let rank = shapes[0].len();
        let axis = norm_axis(scalar_int(ctx.input(0), "concat_dim")?, rank, "ConcatOffset")?;
        let mut off = 0i64;
        let mut out = Vec::with_capacity(shapes.len());
        for (i, sh) in shapes.iter().enumerate() {
            if sh.len() != rank || (0..rank).any(|j| j != axis && sh[j] != shapes[0][j]) {
                return Err(Error::invalid_argument(format!(
                    "input dimensions must match: shape[0] = {:?} vs. shape[{i}] = {sh:?} (concat_dim {axis})",
                    shapes[0]
                )));
            }
            let mut o = vec![0i64; rank];
            o[axis] = off;
            off += sh[axis];
            out.push(int_tensor(ctx.input(i + 1).dtype(), &o)?);
        }
        Ok(out)
    }
}

fn concat_offset(s: &Scope, axis: &Output, shapes: &[Output]) -> Result<Vec<Output>> {
    let op = s
        .op("ConcatOffset", "ConcatOffset")
        .input(axis)
        .inputs(shapes)
        .attr("N", shapes.len() as i64)
        .attr("shape_type", DType::Int32)
        .build()?;
    (0..shapes.len()).map(|i| op.output(i)).collect()
}

// ---------------------------------------------------------------- Pack / Unpack

/// `Pack(values...)`: stacks `N` tensors of one shape (attr `N`) along a new dimension at
/// attr `axis` (default 0; in `[-(rank+1), rank]`). All dtypes.
pub struct Pack;
impl OpDef for Pack {
    fn op_type(&self) -> &'static str {
        "Pack"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("Pack needs at least one value"));
        }
        let t = ctx.same_dtypes()?;
        let mut shape = ctx.shape(0).clone();
        for i in 1..ctx.inputs.len() {
            shape = shape.merge(ctx.shape(i)).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                    ctx.shape(0),
                    ctx.shape(i)
                ))
            })?;
        }
        let Some(dims) = shape.dims() else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        let axis = ctx.node.attr_int_or("axis", 0)?;
        let ax = norm_axis(axis, dims.len() + 1, "Pack")?;
        let mut d = dims.to_vec();
        d.insert(ax, Some(ctx.inputs.len()));
        Ok(vec![(t, Shape::partial(&d))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x0 = ctx.input(0);
        for (i, v) in ctx.inputs.iter().enumerate() {
            if v.shape() != x0.shape() || v.dtype() != x0.dtype() {
                return Err(Error::invalid_argument(format!(
                    "Shapes of all inputs must match: values[0].shape = {} {} != values[{i}].shape = {} {}",
                    x0.dtype(),
                    fmt_dims(x0.shape()),
                    v.dtype(),
                    fmt_dims(v.shape())
                )));
            }
        }
        let ax = norm_axis(ctx.node.attr_int_or("axis", 0)?, x0.rank() + 1, "Pack")?;
        let outer: usize = x0.shape()[..ax].iter().product();
        let inner: usize = x0.shape()[ax..].iter().product();
        let mut shape = x0.shape().to_vec();
        shape.insert(ax, ctx.inputs.len());
        let parts: Vec<&Storage> = ctx.inputs.iter().map(|v| v.storage()).collect();
        let chunks = vec![inner; parts.len()];
        Ok(vec![Tensor::from_storage(&shape, interleave(&parts, outer, &chunks)?)?])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let axis = ctx.node.attr_int_or("axis", 0)?;
        let parts = unstack(ctx.scope, &ctx.grad(0)?, ctx.inputs.len(), axis)?;
        Ok(parts.into_iter().map(Some).collect())
    }
}

/// `tf.stack(values, axis)`: op `Pack` (attrs `N`, `T`, `axis`), default name `stack`.
/// `values` (at least one) share a dtype (any) and shape `S`; the output has shape `S`
/// with `N` inserted at `axis` (in `[-(rank+1), rank]`). Errors: `InvalidArgument`
/// naming both shapes when they differ, or for an axis out of range. Gradient: `Unpack`.
pub fn stack(s: &Scope, values: &[Output], axis: i64) -> Result<Output> {
    let t = values.first().map(|v| v.dtype()).unwrap_or(DType::Float);
    s.op("Pack", "stack").inputs(values).attr("N", values.len() as i64).attr("T", t).attr("axis", axis).build_output()
}

/// `Unpack(value)`: splits along attr `axis` (default 0) into attr `num` tensors. All dtypes.
pub struct Unpack;
impl OpDef for Unpack {
    fn op_type(&self) -> &'static str {
        "Unpack"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let num = ctx.node.attr_int_or("num", -1)?;
        let axis = ctx.node.attr_int_or("axis", 0)?;
        let x = ctx.shape(0);
        let Some(dims) = x.dims() else {
            if num < 0 {
                return Err(Error::invalid_argument("Unpack needs attr num when the input rank is unknown"));
            }
            return Ok(vec![(ctx.dtype(0), Shape::unknown()); num as usize]);
        };
        let ax = norm_axis(axis, dims.len(), "Unpack")?;
        let num = match (num, dims[ax]) {
            (n, Some(d)) if n >= 0 && n as usize != d => {
                return Err(Error::invalid_argument(format!(
                    "Dimension must be {n} but is {d} for Unpack of {x} along axis {axis}"
                )))
            }
            (_, Some(d)) => d,
            (n, None) if n >= 0 => n as usize,
            _ => return Err(Error::invalid_argument(format!("Unpack of {x} along axis {axis} needs attr num"))),
        };
        let mut d = dims.to_vec();
        d.remove(ax);
        Ok(vec![(ctx.dtype(0), Shape::partial(&d)); num])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.rank() == 0 {
            return Err(Error::invalid_argument("Unpack of a scalar: the input must be at least rank 1"));
        }
        let ax = norm_axis(ctx.node.attr_int_or("axis", 0)?, x.rank(), "Unpack")?;
        let n = x.shape()[ax];
        let num = ctx.node.attr_int_or("num", n as i64)?;
        if num != n as i64 {
            return Err(Error::invalid_argument(format!(
                "Input shape axis {ax} must equal {num}, got shape {}",
                fmt_dims(x.shape())
            )));
        }
        let outer: usize = x.shape()[..ax].iter().product();
        let inner: usize = x.shape()[ax + 1..].iter().product();
        let mut shape = x.shape().to_vec();
        shape.remove(ax);
        (0..n)
            .map(|k| {
                let idx = product_indices(&[
                    (0..outer).map(|o| o * n * inner).collect(),
                    (0..inner).map(|i| k * inner + i).collect(),
                ]);
                Tensor::from_storage(&shape, x.storage().gather(&idx))
            })
            .collect()
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let axis = ctx.node.attr_int_or("axis", 0)?;
        let gs: Vec<Output> = (0..ctx.outputs.len())
            .map(|i| match &ctx.grads[i] {
                Some(g) => Ok(g.clone()),
                None => zeros_like(&ctx.scope.named(&format!("zeros_like_{i}")), &ctx.outputs[i]),
            })
            .collect::<Result<_>>()?;
        Ok(vec![Some(stack(ctx.scope, &gs, axis)?)])
    }
}

/// `tf.unstack(value, num, axis)`: op `Unpack` (attrs `num`, `T`, `axis`), default name
/// `unstack`; `num` tensors, each `value`'s shape without `axis`. Errors:
/// `InvalidArgument` when `value`'s `axis` dimension is known and is not `num`.
pub fn unstack(s: &Scope, value: &Output, num: usize, axis: i64) -> Result<Vec<Output>> {
    let op = s
        .op("Unpack", "unstack")
        .input(value)
        .attr("num", num as i64)
        .attr("T", value.dtype())
        .attr("axis", axis)
        .build()?;
    (0..num).map(|i| op.output(i)).collect()
}

// ---------------------------------------------------------------- Slice

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
impl OpDef for Slice {
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
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let r = Self::resolve(x.shape(), &int_values(ctx.input(1))?, &int_values(ctx.input(2))?)?;
        let st = strides(x.shape());
        let per_dim: Vec<Vec<usize>> =
            r.iter().zip(&st).map(|(&(b, n), &s)| (b..b + n).map(|i| i * s).collect()).collect();
        let shape: Vec<usize> = r.iter().map(|&(_, n)| n).collect();
        if shape == x.shape() {
            return Ok(vec![x.clone()]);
        }
        Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&product_indices(&per_dim)))?])
    }
    // TensorFlow's _SliceGrad: Pad the gradient back to the input's shape
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        super::pad::slice_grad(ctx)
    }
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

// ---------------------------------------------------------------- Tile

/// `Tile(input, multiples)`: repeats `input` `multiples[i]` times along dimension `i`
/// (`multiples` int32/int64, attr `Tmultiples`). All dtypes.
pub struct Tile;
impl OpDef for Tile {
    fn op_type(&self) -> &'static str {
        "Tile"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let x = ctx.shape(0);
        let m = ctx.const_input(1).map(|b| int_values(&b)).transpose()?;
        let rank = x.rank().or(m.as_ref().map(|m| m.len())).or(ctx.shape(1).dim(0));
        let Some(rank) = rank else {
            return Ok(vec![(ctx.dtype(0), Shape::unknown())]);
        };
        if let Some(m) = &m {
            if m.len() != rank {
                return Err(Error::invalid_argument(format!(
                    "Expected multiples argument to be a vector of length {rank} but got length {} (input {x}, multiples {m:?})",
                    m.len()
                )));
            }
            if let Some(&v) = m.iter().find(|&&v| v < 0) {
                return Err(Error::invalid_argument(format!(
                    "Expected multiples to be non-negative, got {v} in {m:?} (input {x})"
                )));
            }
        }
        let out: Vec<Option<usize>> = (0..rank)
            .map(|i| match (x.dims().and_then(|d| d[i]), m.as_ref().map(|m| m[i] as usize)) {
                (Some(d), Some(k)) => Some(d * k),
                (_, Some(0)) => Some(0),
                _ => None,
            })
            .collect();
        Ok(vec![(ctx.dtype(0), Shape::partial(&out))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let m = int_values(ctx.input(1))?;
        if m.len() != x.rank() || m.iter().any(|&v| v < 0) {
            return Err(Error::invalid_argument(format!(
                "Expected multiples argument to be a vector of length {} with non-negative entries but got {m:?} (input {})",
                x.rank(),
                fmt_dims(x.shape())
            )));
        }
        let shape: Vec<usize> = x.shape().iter().zip(&m).map(|(&d, &k)| d * k as usize).collect();
        crate::tensor::checked_num_elements(&shape)?;
        let st = strides(x.shape());
        let per_dim: Vec<Vec<usize>> = x
            .shape()
            .iter()
            .zip(&shape)
            .zip(&st)
            .map(|((&d, &n), &s)| (0..n).map(|i| (i % d.max(1)) * s).collect())
            .collect();
        Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&product_indices(&per_dim)))?])
    }
    // TensorFlow's _TileGrad: reshape the gradient to [m0, d0, m1, d1, ...] and sum the m axes
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, m) = (&ctx.inputs[0], &ctx.inputs[1]);
        let m = if m.dtype() == DType::Int32 { m.clone() } else { cast(s, m, DType::Int32)? };
        let xs = shape_of(s, x, DType::Int32)?;
        let both = stack(s, &[m, xs], 0)?;
        let perm = constant(&s.named("transpose/perm"), Tensor::vector(vec![1i32, 0]))?;
        let split = reshape(
            s,
            &transpose_dyn(s, &both, &perm)?,
            &constant(&s.named("Reshape/shape"), Tensor::vector(vec![-1i32]))?,
        )?;
        let n =
            s.op("Size", "Size").input(&split).attr("T", DType::Int32).attr("out_type", DType::Int32).build_output()?;
        let axes = range_dyn(
            s,
            &constant(&s.named("range/start"), Tensor::scalar(0i32))?,
            &n,
            &constant(&s.named("range/delta"), Tensor::scalar(2i32))?,
        )?;
        let g = reshape(&s.named("Reshape_1"), &ctx.grad(0)?, &split)?;
        let sum = s
            .op("Sum", "Sum")
            .input(&g)
            .input(&axes)
            .attr("T", g.dtype())
            .attr("Tidx", DType::Int32)
            .attr("keep_dims", false)
            .build_output()?;
        Ok(vec![Some(sum), None])
    }
}

/// `tf.tile(input, multiples)` with constant multiples (int32 const `Tile/multiples`): op
/// `Tile` (attrs `T`, `Tmultiples`), default name `Tile`. `input` any dtype; output
/// dimension `i` is `input.shape[i] * multiples[i]`. Errors: `InvalidArgument` naming the
/// shape when `multiples` has the wrong length or a negative entry. Gradient: Reshape + Sum.
pub fn tile(s: &Scope, input: &Output, multiples: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("Tile");
    let m =
        const_under(s, &base, "multiples", Tensor::vector(multiples.iter().map(|&v| v as i32).collect::<Vec<_>>()))?;
    tile_dyn(&s.named(&format!("{base}/")), input, &m)
}

/// `Tile` with `multiples` a 1-d int32 or int64 tensor. As [`tile`].
pub fn tile_dyn(s: &Scope, input: &Output, multiples: &Output) -> Result<Output> {
    s.op("Tile", "Tile")
        .input(input)
        .input(multiples)
        .attr("T", input.dtype())
        .attr("Tmultiples", multiples.dtype())
        .build_output()
}

// ---------------------------------------------------------------- GatherV2

/// `GatherV2(params, indices, axis)`: slices of `params` along `axis` picked by
/// `indices` (attrs `Tparams`, `Tindices`, `Taxis`, `batch_dims` = 0 only). Output shape
/// `params.shape[:axis] + indices.shape + params.shape[axis+1:]`. All dtypes.
pub struct GatherV2;
impl GatherV2 {
    fn check_batch_dims(ctx_node: &crate::graph::Node) -> Result<()> {
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
impl OpDef for GatherV2 {
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
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        Self::check_batch_dims(ctx.node)?;
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
        let flat =
            product_indices(&[(0..outer).map(|o| o * n * inner).collect(), picks, (0..inner).collect::<Vec<_>>()]);
        let mut shape = p.shape()[..ax].to_vec();
        shape.extend_from_slice(idx.shape());
        shape.extend_from_slice(&p.shape()[ax + 1..]);
        Ok(vec![Tensor::from_storage(&shape, p.storage().gather(&flat))?])
    }
    // TensorFlow's _GatherV2Grad (densified): UnsortedSegmentSum of the gradient rows by
    // index, with transposes moving `axis` to the front and back
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
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
        let ps = shape_of(s, p, DType::Int32)?;
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

// ---------------------------------------------------------------- UnsortedSegmentSum

/// `UnsortedSegmentSum(data, segment_ids, num_segments)`: `out[j, ...]` is the sum of the
/// `data[i..., ...]` with `segment_ids[i...] == j` (negative ids dropped). Numeric dtypes.
pub struct UnsortedSegmentSum;
impl OpDef for UnsortedSegmentSum {
    fn op_type(&self) -> &'static str {
        "UnsortedSegmentSum"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        let n = ctx.const_input(2).map(|t| scalar_int(&t, "num_segments")).transpose()?.map(|v| v.max(0) as usize);
        let (Some(d), Some(ir)) = (ctx.shape(0).dims(), ctx.shape(1).rank()) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        if ir > d.len() {
            return Err(Error::invalid_argument(format!(
                "segment_ids {} must be a prefix of data's shape {}",
                ctx.shape(1),
                ctx.shape(0)
            )));
        }
        let mut out = vec![n];
        out.extend_from_slice(&d[ir..]);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let (data, ids) = (ctx.input(0), ctx.input(1));
        let n = scalar_int(ctx.input(2), "num_segments")?;
        if n < 0 {
            return Err(Error::invalid_argument(format!("num_segments must be non-negative, got {n}")));
        }
        let n = n as usize;
        let ir = ids.rank();
        if ir > data.rank() || data.shape()[..ir] != *ids.shape() {
            return Err(Error::invalid_argument(format!(
                "segment_ids.shape = {} must be a prefix of data.shape = {}",
                fmt_dims(ids.shape()),
                fmt_dims(data.shape())
            )));
        }
        let inner: usize = data.shape()[ir..].iter().product();
        let idv = int_values(ids)?;
        let mut shape = vec![n];
        shape.extend_from_slice(&data.shape()[ir..]);
        let out = crate::dispatch_numeric!(data.dtype(), "UnsortedSegmentSum", T => {
            let x = data.as_slice::<T>()?;
            let mut acc = vec![T::ZERO; n * inner];
            for (i, &j) in idv.iter().enumerate() {
                if j < 0 {
                    continue;
                }
                if j as usize >= n {
                    return Err(Error::invalid_argument(format!(
                        "segment_ids[{i}] = {j} is out of range [0, {n})"
                    )));
                }
                let j = j as usize;
                for k in 0..inner {
                    acc[j * inner + k] += x[i * inner + k];
                }
            }
            Tensor::new(&shape, acc)?
        });
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        // TensorFlow's _UnsortedSegmentSumGrad: gather the gradient rows back (ids assumed in range)
        let g = gather(ctx.scope, &ctx.grad(0)?, &ctx.inputs[1], 0)?;
        Ok(vec![Some(g), None, None])
    }
}

/// `tf.math.unsorted_segment_sum(data, segment_ids, num_segments)`: op
/// `UnsortedSegmentSum`, default name `UnsortedSegmentSum`. `segment_ids` (int32/int64)
/// has a prefix of `data`'s shape; output `[num_segments] + data.shape[ids.rank:]`.
/// Errors: `InvalidArgument` when run with an id `>= num_segments` (negative ids are dropped).
pub fn unsorted_segment_sum(s: &Scope, data: &Output, segment_ids: &Output, num_segments: &Output) -> Result<Output> {
    s.op("UnsortedSegmentSum", "UnsortedSegmentSum")
        .input(data)
        .input(segment_ids)
        .input(num_segments)
        .attr("T", data.dtype())
        .attr("Tindices", segment_ids.dtype())
        .attr("Tnumsegments", num_segments.dtype())
        .build_output()
}

// ---------------------------------------------------------------- Transpose

/// Checks that `perm` is a permutation of `0..rank`.
fn check_perm(perm: &[i64], rank: usize, input: &str) -> Result<Vec<usize>> {
    if perm.len() != rank {
        return Err(Error::invalid_argument(format!(
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {} (input {input}, perm {perm:?})",
            perm.len()
        )));
    }
    let mut seen = vec![false; rank];
    for &p in perm {
        if p < 0 || p as usize >= rank {
            return Err(Error::invalid_argument(format!(
                "{p} is out of range [0 .. {rank}) in perm {perm:?} (input {input})"
            )));
        }
        if std::mem::replace(&mut seen[p as usize], true) {
            return Err(Error::invalid_argument(format!(
                "{p} appears more than once in perm {perm:?} (input {input})"
            )));
        }
    }
    Ok(perm.iter().map(|&p| p as usize).collect())
}

/// `Transpose(x, perm)`: output dimension `i` is input dimension `perm[i]` (`perm`
/// int32/int64, attr `Tperm`). All dtypes.
pub struct Transpose;
impl OpDef for Transpose {
    fn op_type(&self) -> &'static str {
        "Transpose"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let x = ctx.shape(0);
        let perm = ctx.const_input(1).map(|p| int_values(&p)).transpose()?;
        let rank = x.rank().or(perm.as_ref().map(|p| p.len())).or(ctx.shape(1).dim(0));
        let Some(rank) = rank else {
            return Ok(vec![(ctx.dtype(0), Shape::unknown())]);
        };
        let Some(perm) = perm else {
            return Ok(vec![(ctx.dtype(0), Shape::partial(&vec![None; rank]))]);
        };
        let perm = check_perm(&perm, rank, &x.to_string())?;
        let out: Vec<Option<usize>> = perm.iter().map(|&p| x.dims().and_then(|d| d[p])).collect();
        Ok(vec![(ctx.dtype(0), Shape::partial(&out))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let perm = check_perm(&int_values(ctx.input(1))?, x.rank(), &fmt_dims(x.shape()))?;
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(vec![x.clone()]);
        }
        let st = strides(x.shape());
        let shape: Vec<usize> = perm.iter().map(|&p| x.shape()[p]).collect();
        let per_dim: Vec<Vec<usize>> = perm.iter().map(|&p| (0..x.shape()[p]).map(|i| i * st[p]).collect()).collect();
        Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&product_indices(&per_dim)))?])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let p = &ctx.inputs[1];
        let inv = s.op("InvertPermutation", "InvertPermutation").input(p).attr("T", p.dtype()).build_output()?;
        Ok(vec![Some(transpose_dyn(s, &ctx.grad(0)?, &inv)?), None])
    }
}

/// `tf.transpose(x, perm)` with a constant `perm` (int32 const `transpose/perm`): op
/// `Transpose` (attrs `T`, `Tperm`), default name `transpose`. Output dimension `i` is
/// `x`'s dimension `perm[i]`; any dtype. Errors: `InvalidArgument` naming the shape and
/// perm when `perm` is not a permutation of `0..rank`. Gradient: the inverse transpose.
pub fn transpose(s: &Scope, x: &Output, perm: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("transpose");
    let p = const_under(s, &base, "perm", Tensor::vector(perm.iter().map(|&v| v as i32).collect::<Vec<_>>()))?;
    transpose_dyn(&s.named(&format!("{base}/")), x, &p)
}

/// `Transpose` with `perm` a 1-d int32/int64 tensor. As [`transpose`].
pub fn transpose_dyn(s: &Scope, x: &Output, perm: &Output) -> Result<Output> {
    s.op("Transpose", "transpose").input(x).input(perm).attr("T", x.dtype()).attr("Tperm", perm.dtype()).build_output()
}

/// `InvertPermutation(x)`: `y[x[i]] = i` for a 1-d int32/int64 permutation.
pub struct InvertPermutation;
impl OpDef for InvertPermutation {
    fn op_type(&self) -> &'static str {
        "InvertPermutation"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, INTS)?;
        if let Some(r) = ctx.shape(0).rank().filter(|&r| r != 1) {
            return Err(Error::invalid_argument(format!("InvertPermutation: x must be 1-D, got rank {r}")));
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.rank() != 1 {
            return Err(Error::invalid_argument(format!(
                "InvertPermutation: x must be 1-D, got {}",
                fmt_dims(x.shape())
            )));
        }
        let v = int_values(x)?;
        let p = check_perm(&v, v.len(), &fmt_dims(x.shape()))?;
        let mut inv = vec![0i64; p.len()];
        for (i, &j) in p.iter().enumerate() {
            inv[j] = i as i64;
        }
        Ok(vec![int_tensor(x.dtype(), &inv)?])
    }
}

// ---------------------------------------------------------------- Squeeze

/// `Squeeze(input)`: removes size-1 dimensions (all of them, or those in attr
/// `squeeze_dims`, negative counting from the end). All dtypes.
pub struct Squeeze;
impl Squeeze {
    fn dims_attr(node: &crate::graph::Node) -> Result<Vec<i64>> {
        match node.attrs.get("squeeze_dims").or_else(|| node.attrs.get("axis")) {
            None => Ok(vec![]),
            Some(AttrValue::ListInt(v)) => Ok(v.clone()),
            Some(v) => Err(Error::invalid_argument(format!("attr squeeze_dims should be a list of ints, got {v:?}"))),
        }
    }
    fn squeeze(dims: &[Option<usize>], sq: &[i64], shape: &str) -> Result<Option<Vec<Option<usize>>>> {
        let mut drop = vec![false; dims.len()];
        for &a in sq {
            let ax = norm_axis(a, dims.len(), "Squeeze")?;
            match dims[ax] {
                Some(1) | None => drop[ax] = true,
                Some(d) => {
                    return Err(Error::invalid_argument(format!(
                        "Can not squeeze dim[{ax}], expected a dimension of 1, got {d} for input shape {shape}"
                    )))
                }
            }
        }
        if sq.is_empty() {
            if dims.iter().any(|d| d.is_none()) {
                return Ok(None);
            }
            for (i, d) in dims.iter().enumerate() {
                drop[i] = *d == Some(1);
            }
        }
        Ok(Some(dims.iter().zip(&drop).filter(|(_, &x)| !x).map(|(&d, _)| d).collect()))
    }
}
impl OpDef for Squeeze {
    fn op_type(&self) -> &'static str {
        "Squeeze"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let x = ctx.shape(0);
        let shape = match x.dims() {
            Some(d) => match Self::squeeze(d, &Self::dims_attr(ctx.node)?, &x.to_string())? {
                Some(v) => Shape::partial(&v),
                None => Shape::unknown(),
            },
            None => Shape::unknown(),
        };
        Ok(vec![(ctx.dtype(0), shape)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let d: Vec<Option<usize>> = x.shape().iter().map(|&v| Some(v)).collect();
        let out = Self::squeeze(&d, &Self::dims_attr(ctx.node)?, &fmt_dims(x.shape()))?.unwrap_or_default();
        let out: Vec<usize> = out.into_iter().map(|v| v.unwrap_or(1)).collect();
        Ok(vec![x.reshape(&out)?])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let sh = shape_of(s, &ctx.inputs[0], DType::Int32)?;
        Ok(vec![Some(reshape(s, &ctx.grad(0)?, &sh)?)])
    }
}

/// `tf.squeeze(input, axis)`: op `Squeeze` (attrs `T`, `squeeze_dims`), default name
/// `Squeeze`. With `axis` empty removes every dimension of size 1, else only those listed
/// (negative counts from the end). Any dtype. Errors: `InvalidArgument` naming the shape
/// when a listed dimension is not 1 or is out of range. Gradient: Reshape to the input shape.
pub fn squeeze(s: &Scope, input: &Output, axis: &[i64]) -> Result<Output> {
    s.op("Squeeze", "Squeeze")
        .input(input)
        .attr("T", input.dtype())
        .attr("squeeze_dims", AttrValue::ListInt(axis.to_vec()))
        .build_output()
}

// ---------------------------------------------------------------- Range

/// `Range(start, limit, delta)`: `[start, start + delta, ...)` up to `limit` (exclusive),
/// 0-d inputs of attr `Tidx` (float32, float64, int32, int64).
pub struct Range;
impl Range {
    fn count(start: f64, limit: f64, delta: f64) -> Result<usize> {
        if delta == 0.0 {
            return Err(Error::invalid_argument(format!("Requires delta != 0: {delta}")));
        }
        if delta > 0.0 && start > limit {
            return Err(Error::invalid_argument(format!("Requires start <= limit when delta > 0: {start}/{limit}")));
        }
        if delta < 0.0 && start < limit {
            return Err(Error::invalid_argument(format!("Requires start >= limit when delta < 0: {start}/{limit}")));
        }
        let n = ((limit - start) / delta).ceil();
        if !n.is_finite() || n > 1e12 {
            return Err(Error::invalid_argument(format!("Range of {start}..{limit} by {delta} is too large")));
        }
        Ok(n as usize)
    }
    fn scalar_f64(t: &Tensor, what: &str) -> Result<f64> {
        match t.to_f64_vec()?[..] {
            [x] if t.rank() == 0 || t.rank() == 1 => Ok(x),
            _ => Err(Error::invalid_argument(format!("{what} must be a scalar, not shape {}", fmt_dims(t.shape())))),
        }
    }
}
impl OpDef for Range {
    fn op_type(&self) -> &'static str {
        "Range"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.same_dtypes_as("Tidx")?;
        ctx.check_dtype(0, NUMBERS)?;
        let vals: Option<Vec<f64>> =
            (0..3).map(|i| ctx.const_input(i).and_then(|v| Self::scalar_f64(&v, "range argument").ok())).collect();
        let n = match vals {
            Some(v) => Some(Self::count(v[0], v[1], v[2])?),
            None => None,
        };
        Ok(vec![(t, Shape::partial(&[n]))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let t = ctx.input(0).dtype();
        let start = Self::scalar_f64(ctx.input(0), "start")?;
        let limit = Self::scalar_f64(ctx.input(1), "limit")?;
        let delta = Self::scalar_f64(ctx.input(2), "delta")?;
        let n = Self::count(start, limit, delta)?;
        let out = match t {
            DType::Int32 => Tensor::vector((0..n).map(|i| (start as i64 + i as i64 * delta as i64) as i32).collect()),
            DType::Int64 => Tensor::vector((0..n).map(|i| start as i64 + i as i64 * delta as i64).collect()),
            DType::Float => {
                let (a, d) = (start as f32, delta as f32);
                Tensor::vector((0..n).map(|i| a + i as f32 * d).collect())
            }
            DType::Double => Tensor::vector((0..n).map(|i| start + i as f64 * delta).collect()),
            other => return Err(Error::invalid_argument(format!("Range has no kernel for dtype {other}"))),
        };
        Ok(vec![out])
    }
}

/// `tf.range(start, limit, delta)` with int32 constants `range/start`, `range/limit`,
/// `range/delta`: op `Range` (attr `Tidx = int32`), default name `range`. Errors:
/// `InvalidArgument` for `delta = 0` or a `start`/`limit` order against `delta`'s sign.
pub fn range(s: &Scope, start: i32, limit: i32, delta: i32) -> Result<Output> {
    let base = s.unique_op_name("range");
    let a = const_under(s, &base, "start", Tensor::scalar(start))?;
    let b = const_under(s, &base, "limit", Tensor::scalar(limit))?;
    let c = const_under(s, &base, "delta", Tensor::scalar(delta))?;
    range_dyn(&s.named(&format!("{base}/")), &a, &b, &c)
}

/// `Range` with 0-d tensor arguments of one dtype (float32, float64, int32, int64). As [`range`].
pub fn range_dyn(s: &Scope, start: &Output, limit: &Output, delta: &Output) -> Result<Output> {
    s.op("Range", "range").input(start).input(limit).input(delta).attr("Tidx", start.dtype()).build_output()
}

/// `Shape` of `x` as `dtype` (int32 or int64), default name `Shape`.
pub fn shape_as(s: &Scope, x: &Output, dtype: DType) -> Result<Output> {
    shape_of(s, x, dtype)
}
