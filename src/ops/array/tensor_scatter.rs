//! `TensorScatterUpdate`, `TensorScatterAdd`, `TensorScatterSub`, `TensorScatterMax` and
//! `TensorScatterMin` (`tf.tensor_scatter_nd_update/add/sub/max/min`): `tensor` with the
//! slices that `indices` picks replaced by, increased by, decreased by, or the larger or
//! smaller of themselves and `updates`, as `ScatterNd` picks them.

use super::gather_nd::{check_updates_shape, gather_nd, index_name, known, slice_offsets, tf_dims, tuple_text};
use super::{cast, identity, int_values, shape_as, zeros_like, INTS, NUMBERS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// How the updates combine with the tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `TensorScatterUpdate`: replaced (the last of repeated indices wins).
    Update,
    /// `TensorScatterAdd`: added (repeated indices add up).
    Add,
    /// `TensorScatterSub`: subtracted.
    Sub,
    /// `TensorScatterMax`: the larger of the two (repeated indices: the largest).
    Max,
    /// `TensorScatterMin`: the smaller of the two.
    Min,
}

impl Kind {
    /// TensorFlow's op type.
    pub fn op_type(self) -> &'static str {
        match self {
            Kind::Update => "TensorScatterUpdate",
            Kind::Add => "TensorScatterAdd",
            Kind::Sub => "TensorScatterSub",
            Kind::Max => "TensorScatterMax",
            Kind::Min => "TensorScatterMin",
        }
    }
}

/// A tensor scatter `(tensor, indices, updates)`: `tensor` float32, float64, int32, int64;
/// `indices` int32/int64 of shape `[..., r]`; `updates` of shape `indices.shape[:-1] +
/// tensor.shape[r:]`. Output: `tensor`'s shape and dtype. Errors (`InvalidArgument`,
/// TensorFlow's texts): at build time for known shapes that do not fit (ScatterNd's
/// messages); when run, `indices[0] = [5] does not index into shape [4,3]`, `The inner 1
/// dimensions of output.shape=[4,3] must match the inner 1 dimensions of
/// updates.shape=[1,2]`, `Inner dimensions of output shape must match inner dimensions of
/// updates shape. Output: [4,3] updates: [1]`. Gradients (`array_grad.py`): to `tensor`
/// `Identity(g)` (with the updated slices zeroed for Update: `TensorScatterUpdate(
/// Identity(g), indices, zeros)`), to `updates` `GatherNd(g, indices)` (negated for Sub);
/// for Max and Min (`_TensorScatterMinOrMaxGrad`) `g` shared equally among the tensor's
/// element and the updates equal to the result there.
pub struct TensorScatter(pub Kind);

impl RegisteredOp for TensorScatter {
    fn op_type(&self) -> &'static str {
        self.0.op_type()
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, INTS)?;
        if ctx.dtype(2) != t {
            return Err(Error::invalid_argument(format!(
                "{}: updates must have the tensor's dtype {t}, got {}",
                self.0.op_type(),
                ctx.dtype(2)
            )));
        }
        if let (Some(id), Some(ud), Some(od)) = (ctx.shape(1).dims(), ctx.shape(2).dims(), ctx.shape(0).dims()) {
            check_updates_shape(id, ud, od)?;
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ScatterKernel(self.0)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (indices, updates) = (&ctx.inputs[1], &ctx.inputs[2]);
        let g = ctx.grad(0)?;
        let gu = gather_nd(s, &g, indices)?;
        Ok(match self.0 {
            Kind::Update => {
                let gt = tensor_scatter(s, Kind::Update, &identity(s, &g)?, indices, &zeros_like(s, updates)?)?;
                vec![Some(gt), None, Some(gu)]
            }
            Kind::Add => vec![Some(identity(s, &g)?), None, Some(gu)],
            Kind::Sub => vec![Some(identity(s, &g)?), None, Some(crate::ops::neg(s, &gu)?)],
            Kind::Max | Kind::Min => min_max_grad(s, &ctx.inputs[0], indices, updates, &ctx.outputs[0], &g)?,
        })
    }
}

/// A binary op of one dtype (`Equal`, `AddV2`, `Mul`, `RealDiv`), built here because the
/// array family does not use the math family's builders.
fn binary(s: &Scope, op: &str, x: &Output, y: &Output) -> Result<Output> {
    s.op(op, op).input(x).input(y).attr("T", x.dtype()).build_output()
}

/// TensorFlow's `_TensorScatterMinOrMaxGrad`: the gradient divided among the tensor's
/// element and the updates that equal the output there.
fn min_max_grad(
    s: &Scope,
    x: &Output,
    indices: &Output,
    updates: &Output,
    out: &Output,
    g: &Output,
) -> Result<Vec<Option<Output>>> {
    let dt = g.dtype();
    let x_ind = cast(s, &binary(s, "Equal", x, out)?, dt)?;
    let y_out = gather_nd(s, out, indices)?;
    let y_ind = cast(s, &binary(s, "Equal", updates, &y_out)?, dt)?;
    let ys_ind = super::gather_nd::scatter_nd(s, indices, &y_ind, &shape_as(s, x, indices.dtype())?)?;
    let ind = binary(s, "AddV2", &x_ind, &ys_ind)?;
    let x_grad = binary(s, "RealDiv", &binary(s, "Mul", g, &x_ind)?, &ind)?;
    let y_grad = binary(s, "Mul", &gather_nd(s, &binary(s, "RealDiv", g, &ind)?, indices)?, &y_ind)?;
    Ok(vec![Some(x_grad), None, Some(y_grad)])
}

struct ScatterKernel(Kind);

/// TensorFlow's `PrepareAndValidateInputs` of the tensor scatters: the slice offsets.
fn offsets(t: &Tensor, idx: &Tensor, upd: &Tensor) -> Result<(Vec<usize>, usize)> {
    let dims = t.shape();
    if idx.rank() == 0 {
        return Err(Error::invalid_argument("Indices shape must have rank at least one."));
    }
    let r = idx.shape()[idx.rank() - 1];
    let outer = idx.rank() - 1;
    let ud = upd.shape();
    if ud.len() < outer || idx.shape()[..outer] != ud[..outer] {
        return Err(Error::invalid_argument(format!(
            "The outer {outer} dimensions of indices.shape={} must match the outer {outer} dimensions of updates.shape={}",
            tf_dims(&known(idx.shape())),
            tf_dims(&known(ud))
        )));
    }
    if dims.len() < r + (ud.len() - outer) {
        return Err(Error::invalid_argument(format!(
            "Inner dimensions of output shape must match inner dimensions of updates shape. Output: {} updates: {}",
            tf_dims(&known(dims)),
            tf_dims(&known(ud))
        )));
    }
    if dims[r..] != ud[outer..] {
        return Err(Error::invalid_argument(format!(
            "The inner {} dimensions of output.shape={} must match the inner {} dimensions of updates.shape={}",
            dims.len() - r,
            tf_dims(&known(dims)),
            ud.len() - outer,
            tf_dims(&known(ud))
        )));
    }
    let slice: usize = dims[r..].iter().product();
    let ids = int_values(idx)?;
    let batch = &idx.shape()[..outer];
    let offs = if r == 0 {
        vec![0; batch.iter().product()]
    } else {
        slice_offsets(&ids, r, dims, slice).map_err(|i| {
            Error::invalid_argument(format!(
                "{} = {} does not index into shape {}",
                index_name(batch, i),
                tuple_text(&ids, r, i),
                tf_dims(&known(dims))
            ))
        })?
    };
    Ok((offs, slice))
}

impl Kernel for ScatterKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (t, idx, upd) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (offs, slice) = offsets(t, idx, upd)?;
        let kind = self.0;
        let out = crate::dispatch_numeric!(t.dtype(), kind.op_type(), T => {
            let u = upd.as_slice::<T>()?;
            let mut acc = t.as_slice::<T>()?.to_vec();
            for (i, &o) in offs.iter().enumerate() {
                for k in 0..slice {
                    let v = u[i * slice + k];
                    let a = &mut acc[o + k];
                    *a = match kind {
                        Kind::Update => v,
                        Kind::Add => a.add_wrapping(v),
                        Kind::Sub => a.sub_wrapping(v),
                        Kind::Max => if v > *a { v } else { *a },
                        Kind::Min => if v < *a { v } else { *a },
                    };
                }
            }
            Tensor::new(t.shape(), acc)?
        });
        Ok(vec![out])
    }
}

/// `tf.tensor_scatter_nd_update/add/sub/max/min(tensor, indices, updates)`: op `kind.op_type()`,
/// default name the op type (attrs `T`, `Tindices`). Shapes, dtypes and errors as
/// [`TensorScatter`].
pub fn tensor_scatter(s: &Scope, kind: Kind, tensor: &Output, indices: &Output, updates: &Output) -> Result<Output> {
    s.op(kind.op_type(), kind.op_type())
        .input(tensor)
        .input(indices)
        .input(updates)
        .attr("T", tensor.dtype())
        .attr("Tindices", indices.dtype())
        .build_output()
}
