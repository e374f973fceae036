//! `ConcatV2` (`tf.concat`), TensorFlow 1.x's `Concat` (the axis first), and `ConcatOffset`,
//! the op their gradients slice with.

use super::layout::{int_tensor, interleave, norm_axis, scalar_int};
use super::{cast, const_under, int_values, plain, shape_as, slice_dyn, INTS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};

/// `ConcatV2(values..., axis)`: joins `N` tensors (attr `N`) along `axis` (last input,
/// int32/int64 scalar, attr `Tidx`; negative counts from the end). All dtypes.
pub struct ConcatV2;
impl ConcatV2 {
    /// Errors unless there is a value to concatenate (the count against attr `N` is
    /// checked for every op by `schema::check_input_count`).
    fn check_values(got: usize) -> Result<()> {
        if got == 0 {
            return Err(Error::invalid_argument("ConcatV2 needs at least one value (and the axis)"));
        }
        Ok(())
    }
}
impl RegisteredOp for ConcatV2 {
    fn op_type(&self) -> &'static str {
        "ConcatV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let n = ctx.inputs.len().saturating_sub(1);
        Self::check_values(n)?;
        ctx.check_dtype(n, INTS)?;
        infer_concat(ctx, 0, n, "ConcatV2")
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(concat_kernel)
    }
    // TensorFlow's _ConcatGradHelper: ConcatOffset gives each value's start, Slice cuts its part
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let n = ctx.inputs.len() - 1;
        let mut grads = concat_grad(ctx, 0, n)?;
        grads.push(None);
        Ok(grads)
    }
}

/// The shape function of `ConcatV2` (values `first..first + n`, the axis the other input) and
/// `Concat` (the axis input 0, then the values).
fn infer_concat(ctx: &InferCtx, first: usize, n: usize, op: &str) -> Result<Vec<(DType, Shape)>> {
    let axis_input = if first == 0 { n } else { 0 };
    let shape = |i: usize| ctx.shape(first + i);
    {
        let t = ctx.dtype(first);
        for i in 1..n {
            if ctx.dtype(first + i) != t {
                return Err(Error::invalid_argument(format!(
                    "{op} values must have one dtype: value {i} is {} but value 0 is {t}",
                    ctx.dtype(first + i)
                )));
            }
        }
        let rank = (0..n).find_map(|i| shape(i).rank());
        let Some(rank) = rank else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        for i in 0..n {
            if let Some(r) = shape(i).rank() {
                if r != rank {
                    return Err(Error::invalid_argument(format!(
                        "ConcatOp: Ranks of all input tensors should match: shape[0] = {} vs. shape[{i}] = {}",
                        shape(0),
                        shape(i)
                    )));
                }
            }
        }
        let Some(axis) = ctx.const_input(axis_input) else {
            return Ok(vec![(t, Shape::partial(&vec![None; rank]))]);
        };
        if rank == 0 {
            return Err(Error::invalid_argument("Can't concatenate scalars (use tf.stack instead)"));
        }
        let axis = norm_axis(scalar_int(&axis, &format!("{op} axis"))?, rank, op)?;
        let mut out: Vec<Option<usize>> = vec![None; rank];
        let mut along = Some(0usize);
        for i in 0..n {
            let Some(d) = shape(i).dims() else {
                along = None;
                continue;
            };
            along = along.and_then(|a| d[axis].map(|x| a + x));
            for j in (0..rank).filter(|&j| j != axis) {
                out[j] = match (out[j], d[j]) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(Error::invalid_argument(format!(
                            "ConcatOp: Dimension {j} in both shapes must be equal: shape[0] = {} vs. shape[{i}] = {}",
                            shape(0),
                            shape(i)
                        )))
                    }
                    (a, b) => a.or(b),
                };
            }
        }
        out[axis] = along;
        Ok(vec![(t, Shape::partial(&out))])
    }
}

/// The `ConcatV2` kernel: the values joined along the axis (the last input).
fn concat_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let n = ctx.inputs.len().saturating_sub(1);
    ConcatV2::check_values(n)?;
    Ok(vec![concat_values(&ctx.inputs[..n], ctx.input(n), "ConcatV2")?])
}

/// `vals` joined along `axis` (an int32/int64 scalar), for op `op`'s messages.
fn concat_values(vals: &[Tensor], axis: &Tensor, op: &str) -> Result<Tensor> {
    let x0 = &vals[0];
    let rank = x0.rank();
    if rank == 0 {
        return Err(Error::invalid_argument("Can't concatenate scalars (use tf.stack instead)"));
    }
    let axis = norm_axis(scalar_int(axis, &format!("{op} axis"))?, rank, op)?;
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
    Tensor::from_storage(&out_shape, interleave(&parts, outer, &chunks)?)
}

/// The gradients of the `n` values at inputs `first..first + n` of a `ConcatV2` (`first` 0,
/// axis last) or `Concat` (`first` 1, axis input 0); the axis gets none.
fn concat_grad(ctx: &GradCtx, first: usize, n: usize) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let g = ctx.grad(0)?;
    let axis = &ctx.inputs[if first == 0 { n } else { 0 }];
    let shapes: Vec<Output> = (0..n)
        .map(|i| shape_as(&s.named(if i == 0 { "Shape" } else { "ShapeN" }), &ctx.inputs[first + i], DType::Int32))
        .collect::<Result<_>>()?;
    // ConcatOffset takes an int32 axis (negative counts from the end)
    let axis32 = if axis.dtype() == DType::Int32 { axis.clone() } else { cast(s, axis, DType::Int32)? };
    let offsets = concat_offset(s, &axis32, &shapes)?;
    let mut out = Vec::with_capacity(n + 1);
    for i in 0..n {
        let name = if i == 0 { "Slice".to_string() } else { format!("Slice_{i}") };
        out.push(Some(slice_dyn(&s.named(&name), &g, &offsets[i], &shapes[i])?));
    }
    Ok(out)
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

/// `Concat(concat_dim, values...)`: TensorFlow 1.x's concatenation, emitted by `tf.concat`
/// before 1.0: `ConcatV2` with the axis (int32 scalar, negative counts from the end) as the
/// first input. `N` (at least 2) values of one dtype (any) and rank whose shapes agree except
/// along the axis. Errors and gradient (TensorFlow's `_ConcatGrad`: `ConcatOffset` and one
/// `Slice` per value) as `ConcatV2`'s.
pub struct Concat;
impl RegisteredOp for Concat {
    fn op_type(&self) -> &'static str {
        "Concat"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let n = ctx.inputs.len().saturating_sub(1);
        if n == 0 {
            return Err(Error::invalid_argument("Concat needs the axis and at least one value"));
        }
        ctx.check_dtype(0, &[DType::Int32])?;
        infer_concat(ctx, 1, n, "Concat")
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(|ctx| Ok(vec![concat_values(&ctx.inputs[1..], ctx.input(0), "Concat")?]))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let mut grads = vec![None];
        grads.extend(concat_grad(ctx, 1, ctx.inputs.len() - 1)?);
        Ok(grads)
    }
}

/// TensorFlow 1.x's `tf.concat(concat_dim, values)`: op `Concat` (attrs `N`, `T`), default
/// name `concat`, axis constant `concat/concat_dim`. Errors as [`concat()`]; `values` needs at
/// least two tensors (the `OpDef`'s minimum for `N`).
pub fn concat_v1(s: &Scope, concat_dim: i32, values: &[Output]) -> Result<Output> {
    let base = s.unique_op_name("concat");
    let ax = const_under(s, &base, "concat_dim", Tensor::scalar(concat_dim))?;
    let t = values.first().map(|v| v.dtype()).unwrap_or(DType::Float);
    s.named(&format!("{base}/"))
        .op("Concat", "concat")
        .input(&ax)
        .inputs(values)
        .attr("N", values.len() as i64)
        .attr("T", t)
        .build_output()
}

/// `ConcatOffset(concat_dim, shape...)`: for `N` shape vectors (attr `N`, int32 or int64,
/// attr `shape_type`), the offset of each in the concatenation along `concat_dim`.
pub struct ConcatOffset;
impl RegisteredOp for ConcatOffset {
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
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(concat_offset_kernel)
    }
}

/// The `ConcatOffset` kernel: the offset of each shape in the concatenation.
fn concat_offset_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
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
