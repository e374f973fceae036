//! `BroadcastTo` (`tf.broadcast_to`): a tensor repeated along new leading dimensions and
//! dimensions of 1 to a given shape (NumPy rules), and its gradient, which sums back.

use super::{
    const_under, const_value, constant, index_dtype, index_tensor, int_values, plain, reshape, shape_as, INTS,
};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::{broadcast_indices, broadcast_shape};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// `BroadcastTo(input, shape)` (attrs `T`, `Tidx`): `input` broadcast to `shape` (1-d
/// int32/int64), any dtype. Errors: `InvalidArgument` when `input` has more dimensions
/// than `shape` or a dimension that is neither 1 nor the target's (at build time when
/// known: `Dimensions must be equal, but are 2 and 3`; when run: `Incompatible shapes:
/// [2] vs. [3, 3]`). Gradient (TensorFlow's `_BroadcastToGrad`): the incoming gradient
/// summed over the broadcast axes (`BroadcastGradientArgs`, `Sum` with `keep_dims`),
/// reshaped to the input's shape.
pub struct BroadcastTo;
impl RegisteredOp for BroadcastTo {
    fn op_type(&self) -> &'static str {
        "BroadcastTo"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let x = ctx.shape(0);
        let target: Vec<Option<usize>> = match ctx.const_input(1) {
            Some(t) => int_values(&t)?.iter().map(|&d| usize::try_from(d).ok()).collect(),
            None => match ctx.shape(1).dim(0) {
                Some(n) => vec![None; n],
                None => return Ok(vec![(ctx.dtype(0), Shape::unknown())]),
            },
        };
        let Some(dims) = x.dims() else {
            return Ok(vec![(ctx.dtype(0), Shape::partial(&target))]);
        };
        if dims.len() > target.len() {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank {} but is rank {} (BroadcastTo of {x} to {})",
                target.len(),
                dims.len(),
                Shape::partial(&target)
            )));
        }
        let lead = target.len() - dims.len();
        let mut out = target.clone();
        for (i, &d) in dims.iter().enumerate() {
            let o = &mut out[lead + i];
            match (d, *o) {
                (Some(a), Some(b)) if a != 1 && a != b => {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {a} and {b} (BroadcastTo of {x} to {})",
                        Shape::partial(&target)
                    )))
                }
                (Some(a), None) if a != 1 => *o = Some(a),
                _ => {}
            }
        }
        Ok(vec![(ctx.dtype(0), Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(broadcast_to_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, target) = (&ctx.inputs[0], &ctx.inputs[1]);
        let index = target.dtype();
        let x_shape = shape_as(s, x, index)?;
        let target = match const_value(target) {
            Some(v) => constant(s, v)?,
            None => target.clone(),
        };
        let args = s.op("BroadcastGradientArgs", "BroadcastGradientArgs").input(&target).input(&x_shape);
        let axes = args.attr("T", index).build()?.output(1)?;
        // Sum built here, not through math::reduce_sum: the array family does not import math
        let g = ctx.grad(0)?;
        let sum = s.op("Sum", "Sum").input(&g).input(&axes).attr("T", g.dtype()).attr("Tidx", index);
        let sum = sum.attr("keep_dims", true).build_output()?;
        Ok(vec![Some(reshape(s, &sum, &x_shape)?), None])
    }
}

fn broadcast_to_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let target = int_values(ctx.input(1))?;
    if let Some(&d) = target.iter().find(|&&d| d < 0) {
        return Err(Error::invalid_argument(format!("BroadcastTo shape {target:?} holds {d} < 0")));
    }
    let target: Vec<usize> = target.iter().map(|&d| d as usize).collect();
    let incompatible =
        || Error::invalid_argument(format!("Incompatible shapes: {} vs. {}", fmt_dims(x.shape()), fmt_dims(&target)));
    if x.rank() > target.len() || broadcast_shape(x.shape(), &target).map_err(|_| incompatible())? != target {
        return Err(incompatible());
    }
    if x.shape() == target.as_slice() {
        return Ok(vec![x.clone()]);
    }
    crate::tensor::check_alloc(x.dtype(), crate::tensor::checked_num_elements(&target)?)?;
    Ok(vec![Tensor::from_storage(&target, x.storage().gather(&broadcast_indices(x.shape(), &target)))?])
}

/// `tf.broadcast_to(input, shape)` with a constant shape (int32 const
/// `BroadcastTo/shape`, int64 when a dimension needs it): op `BroadcastTo`, default name
/// `BroadcastTo`. Errors: `InvalidArgument` as [`BroadcastTo`].
pub fn broadcast_to_shape(s: &Scope, input: &Output, shape: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("BroadcastTo");
    let t = const_under(s, &base, "shape", index_tensor(&[shape.len()], shape, index_dtype(shape))?)?;
    broadcast_to(&s.named(&format!("{base}/")), input, &t)
}

/// `BroadcastTo(input, shape)` with `shape` a 1-d int32/int64 tensor, default name
/// `BroadcastTo`. As [`broadcast_to_shape`].
pub fn broadcast_to(s: &Scope, input: &Output, shape: &Output) -> Result<Output> {
    s.op("BroadcastTo", "BroadcastTo")
        .input(input)
        .input(shape)
        .attr("T", input.dtype())
        .attr("Tidx", shape.dtype())
        .build_output()
}
