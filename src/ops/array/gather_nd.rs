//! `GatherNd` (`tf.gather_nd`) and `ScatterNd` (`tf.scatter_nd`). Each one's gradient is
//! the other op (TensorFlow's `_GatherNdGrad`, `_ScatterNdGrad`), so both live here.

use super::{constant, index_tensor, int_values, plain, shape_as, INTS, NUMBERS};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{check_alloc, checked_num_elements, try_filled, DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&GatherNd, &ScatterNd];

/// A shape as TensorFlow's messages write it: `[2,3,?]`.
pub(super) fn tf_dims(d: &[Option<usize>]) -> String {
    let v: Vec<String> = d.iter().map(|x| x.map_or("?".to_string(), |v| v.to_string())).collect();
    format!("[{}]", v.join(","))
}

pub(super) fn known(d: &[usize]) -> Vec<Option<usize>> {
    d.iter().map(|&v| Some(v)).collect()
}

/// `indices[1,0]`: the position `i` of an index tuple among the `batch` dims.
pub(super) fn index_name(batch: &[usize], mut i: usize) -> String {
    let mut at = vec![0; batch.len()];
    for (k, &d) in batch.iter().enumerate().rev() {
        if d > 0 {
            at[k] = i % d;
            i /= d;
        }
    }
    let v: Vec<String> = at.iter().map(|v| v.to_string()).collect();
    format!("indices[{}]", v.join(","))
}

/// The flat offsets of the slices `indices` (shape `[..., r]`, values `ids`) picks from a
/// tensor of shape `dims`, each `slice` elements long; `Err(i)` names the first tuple out
/// of range.
pub(super) fn slice_offsets(
    ids: &[i64],
    r: usize,
    dims: &[usize],
    slice: usize,
) -> std::result::Result<Vec<usize>, usize> {
    let n = ids.len().checked_div(r).unwrap_or(ids.len());
    let mut strides = vec![slice; r];
    for j in (0..r.saturating_sub(1)).rev() {
        strides[j] = strides[j + 1] * dims[j + 1];
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut off = 0;
        for j in 0..r {
            let v = ids[i * r + j];
            if v < 0 || v as usize >= dims[j] {
                return Err(i);
            }
            off += v as usize * strides[j];
        }
        out.push(off);
    }
    Ok(out)
}

pub(super) fn tuple_text(ids: &[i64], r: usize, i: usize) -> String {
    let v: Vec<String> = ids[i * r..(i + 1) * r].iter().map(|v| v.to_string()).collect();
    format!("[{}]", v.join(", "))
}

/// `GatherNd(params, indices)`: the slices of `params` that the last axis of `indices`
/// (int32/int64, shape `[..., r]`, `r <= rank(params)`) indexes; output shape
/// `indices.shape[:-1] + params.shape[r:]`. Every dtype (attrs `Tparams`, `Tindices`,
/// `bad_indices_policy`: "" and "DEFAULT" only, which check every index on CPU). Errors:
/// `InvalidArgument` for scalar indices or `r > rank(params)` (at build time when the
/// shapes are known, TensorFlow's messages) and, when run, for an index tuple out of
/// range (`indices[1] = [1, 3] does not index into param shape [2,3,4], node name: ...`).
/// Gradient (`_GatherNdGrad`, densified): `ScatterNd(indices, grad, Shape(params))`.
pub struct GatherNd;
impl RegisteredOp for GatherNd {
    fn op_type(&self) -> &'static str {
        "GatherNd"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let t = ctx.dtype(0);
        let (p, idx) = (ctx.shape(0), ctx.shape(1));
        let Some(id) = idx.dims() else { return Ok(vec![(t, Shape::unknown())]) };
        if id.is_empty() {
            return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0 for input 1 (indices)"));
        }
        let (Some(pd), Some(r)) = (p.dims(), id[id.len() - 1]) else { return Ok(vec![(t, Shape::unknown())]) };
        if r > pd.len() {
            return Err(Error::invalid_argument(format!(
                "indices.shape[-1] must be <= params.rank, but saw indices shape: {} and params shape: {}",
                tf_dims(id),
                tf_dims(pd)
            )));
        }
        let mut out = id[..id.len() - 1].to_vec();
        out.extend_from_slice(&pd[r..]);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        check_policy(node)?;
        plain(gather_nd_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (p, idx) = (&ctx.inputs[0], &ctx.inputs[1]);
        // array_ops.shape: a constant when the shape is fully known
        let ps = match p.shape().dims().and_then(|d| d.iter().copied().collect::<Option<Vec<usize>>>()) {
            Some(d) => {
                let v: Vec<i64> = d.iter().map(|&x| x as i64).collect();
                constant(&s.named("Const"), index_tensor(&[v.len()], &v, idx.dtype())?)?
            }
            None => shape_as(s, p, idx.dtype())?,
        };
        Ok(vec![Some(scatter_nd(s, idx, &ctx.grad(0)?, &ps)?), None])
    }
}

/// `bad_indices_policy`: TensorFlow's CPU kernels accept "" and "DEFAULT" (check every
/// index) and "ERROR"; "IGNORE" is refused here.
fn check_policy(node: &Node) -> Result<()> {
    let p = match node.attrs.get("bad_indices_policy") {
        Some(AttrValue::String(s)) => String::from_utf8_lossy(s).into_owned(),
        _ => String::new(),
    };
    match p.as_str() {
        "" | "DEFAULT" | "ERROR" => Ok(()),
        _ => Err(Error::unimplemented(format!(
            "{} '{}' with bad_indices_policy = \"{p}\": tensorgraph checks every index (\"\", DEFAULT, ERROR)",
            node.op_type, node.name
        ))),
    }
}

fn gather_nd_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (p, idx) = (ctx.input(0), ctx.input(1));
    if idx.rank() == 0 {
        return Err(Error::invalid_argument("indices must be at least a vector, got a scalar"));
    }
    let r = idx.shape()[idx.rank() - 1];
    if r > p.rank() {
        return Err(Error::invalid_argument(format!(
            "index innermost dimension length must be <= params rank; saw: {r} vs. {}",
            p.rank()
        )));
    }
    let batch = &idx.shape()[..idx.rank() - 1];
    let slice: usize = p.shape()[r..].iter().product();
    let mut shape = batch.to_vec();
    shape.extend_from_slice(&p.shape()[r..]);
    check_alloc(DType::Int64, checked_num_elements(&shape)?)?;
    let ids = int_values(idx)?;
    let offs = if r == 0 {
        vec![0; batch.iter().product()]
    } else {
        slice_offsets(&ids, r, p.shape(), slice).map_err(|i| {
            Error::invalid_argument(format!(
                "{} = {} does not index into param shape {}, node name: {}",
                index_name(batch, i),
                tuple_text(&ids, r, i),
                tf_dims(&known(p.shape())),
                ctx.node_name()
            ))
        })?
    };
    let flat: Vec<usize> = offs.iter().flat_map(|&o| o..o + slice).collect();
    Ok(vec![Tensor::from_storage(&shape, p.storage().try_gather(&flat)?)?])
}

/// `ScatterNd(indices, updates, shape)`: a zero tensor of `shape` with `updates` added at
/// the slices `indices` (int32/int64, shape `[..., r]`) names, repeated indices summed;
/// `updates` has shape `indices.shape[:-1] + shape[r:]`. float32, float64, int32, int64.
/// Errors: `InvalidArgument` for updates of the wrong shape (at build time when known,
/// TensorFlow's message) and, when run, a negative `shape` or an index tuple out of range
/// (`indices[1] = [8] does not index into shape [8]`). Gradient (`_ScatterNdGrad`):
/// `GatherNd(grad, indices)` for `updates`.
pub struct ScatterNd;
impl RegisteredOp for ScatterNd {
    fn op_type(&self) -> &'static str {
        "ScatterNd"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, INTS)?;
        let t = ctx.check_dtype(1, NUMBERS)?;
        ctx.check_dtype(2, INTS)?;
        let out = match ctx.const_input(2) {
            Some(v) => {
                let v = int_values(&v)?;
                Shape::partial(&v.iter().map(|&d| (d >= 0).then_some(d as usize)).collect::<Vec<_>>())
            }
            None => Shape::unknown(),
        };
        if let (Some(id), Some(ud), Some(od)) = (ctx.shape(0).dims(), ctx.shape(1).dims(), out.dims()) {
            check_updates_shape(id, ud, od)?;
        }
        Ok(vec![(t, out)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        check_policy(node)?;
        plain(scatter_nd_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![None, Some(gather_nd(ctx.scope, &ctx.grad(0)?, &ctx.inputs[0])?), None])
    }
}

/// TensorFlow's `ScatterNdShapeHelper`: `updates` must be `indices.shape[:-1] + shape[r:]`.
pub(super) fn check_updates_shape(id: &[Option<usize>], ud: &[Option<usize>], od: &[Option<usize>]) -> Result<()> {
    let Some((&Some(r), outer)) = id.split_last() else { return Ok(()) };
    let k = outer.len();
    let merge = |a: &[Option<usize>], b: &[Option<usize>]| -> std::result::Result<(), String> {
        if a.len() != b.len() {
            return Err(format!("Shapes must be equal rank, but are {} and {}", a.len(), b.len()));
        }
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if let (Some(x), Some(y)) = (x, y) {
                if x != y {
                    return Err(format!(
                        "Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are {} and {}.",
                        tf_dims(a),
                        tf_dims(b)
                    ));
                }
            }
        }
        Ok(())
    };
    let pu = &ud[..k.min(ud.len())];
    merge(outer, pu).map_err(|m| {
        Error::invalid_argument(format!(
            "Dimensions [0,{k}) of indices[shape={}] = {} must match dimensions [0,{k}) of updates[shape={}] = {}: {m}",
            tf_dims(id),
            tf_dims(outer),
            tf_dims(ud),
            tf_dims(pu)
        ))
    })?;
    let so = &od[r.min(od.len())..];
    let su = &ud[k.min(ud.len())..];
    merge(so, su).map_err(|m| {
        Error::invalid_argument(format!(
            "Dimensions [{r},{}) of input[shape={}] = {} must match dimensions [{k},{}) of updates[shape={}] = {}: {m}",
            od.len(),
            tf_dims(od),
            tf_dims(so),
            ud.len(),
            tf_dims(ud),
            tf_dims(su)
        ))
    })
}

fn scatter_nd_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (idx, upd) = (ctx.input(0), ctx.input(1));
    let dims = int_values(ctx.input(2))?;
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return Err(Error::invalid_argument(format!("Dimension {d} must be >= 0")));
    }
    let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    if idx.rank() == 0 {
        return Err(Error::invalid_argument("indices must be at least a vector, got a scalar"));
    }
    let r = idx.shape()[idx.rank() - 1];
    let batch = &idx.shape()[..idx.rank() - 1];
    let mut want = batch.to_vec();
    want.extend_from_slice(dims.get(r..).unwrap_or(&[]));
    if r > dims.len() || upd.shape() != want.as_slice() {
        return Err(Error::invalid_argument(format!(
            "Must have updates.shape = indices.shape[:batch_dim] + params_shape[slice_dim:], got updates.shape: {}, indices.shape: {}, params_shape: {}, slice_dim: {r}, and batch_dim: {}",
            tf_dims(&known(upd.shape())),
            tf_dims(&known(idx.shape())),
            tf_dims(&known(&dims)),
            batch.len()
        )));
    }
    let total = checked_num_elements(&dims)?;
    let slice: usize = dims[r..].iter().product();
    let ids = int_values(idx)?;
    let offs = if r == 0 {
        vec![0; batch.iter().product()]
    } else {
        slice_offsets(&ids, r, &dims, slice).map_err(|i| {
            Error::invalid_argument(format!(
                "{} = {} does not index into shape {}",
                index_name(batch, i),
                tuple_text(&ids, r, i),
                tf_dims(&known(&dims))
            ))
        })?
    };
    let out = crate::dispatch_numeric!(upd.dtype(), "ScatterNd", T => {
        let u = upd.as_slice::<T>()?;
        let mut acc = try_filled(T::ZERO, total, upd.dtype())?;
        for (i, &o) in offs.iter().enumerate() {
            for k in 0..slice {
                acc[o + k] += u[i * slice + k];
            }
        }
        Tensor::new(&dims, acc)?
    });
    Ok(vec![out])
}

/// `tf.gather_nd(params, indices)`: op `GatherNd`, default name `GatherNd`. `indices`
/// int32/int64 of shape `[..., r]`; output `indices.shape[:-1] + params.shape[r:]`, of
/// `params`' dtype. Errors: `InvalidArgument` for scalar indices or `r > rank(params)`,
/// and when run for an index out of range.
pub fn gather_nd(s: &Scope, params: &Output, indices: &Output) -> Result<Output> {
    s.op("GatherNd", "GatherNd")
        .input(params)
        .input(indices)
        .attr("Tparams", params.dtype())
        .attr("Tindices", indices.dtype())
        .build_output()
}

/// `tf.scatter_nd(indices, updates, shape)`: op `ScatterNd`, default name `ScatterNd`.
/// `indices` and `shape` int32/int64 (one dtype); `updates` float32, float64, int32 or
/// int64 of shape `indices.shape[:-1] + shape[r:]`; output of `shape`, repeated indices
/// summed. Errors: `InvalidArgument` for mismatched shapes, and when run for an index
/// out of range.
pub fn scatter_nd(s: &Scope, indices: &Output, updates: &Output, shape: &Output) -> Result<Output> {
    s.op("ScatterNd", "ScatterNd")
        .input(indices)
        .input(updates)
        .input(shape)
        .attr("T", updates.dtype())
        .attr("Tindices", indices.dtype())
        .build_output()
}
