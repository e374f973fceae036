//! `ConcatV2` (`tf.concat`) and `ConcatOffset`, the op its gradient slices with.

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
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(concat_kernel)
    }
    // TensorFlow's _ConcatGradHelper: ConcatOffset gives each value's start, Slice cuts its part
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        concat_grad(ctx)
    }
}

/// The `ConcatV2` kernel: the values joined along the axis (the last input).
fn concat_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let n = ctx.inputs.len().saturating_sub(1);
    ConcatV2::check_values(n)?;
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

fn concat_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let n = ctx.inputs.len() - 1;
    let g = ctx.grad(0)?;
    let axis = &ctx.inputs[n];
    let shapes: Vec<Output> = (0..n)
        .map(|i| shape_as(&s.named(if i == 0 { "Shape" } else { "ShapeN" }), &ctx.inputs[i], DType::Int32))
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
