//! `Pack` (`tf.stack`) and `Unpack` (`tf.unstack`).

use super::layout::{interleave, norm_axis, product_indices};
use super::{prepared, zeros_like};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};

/// `Pack(values...)`: stacks `N` tensors of one shape (attr `N`) along a new dimension at
/// attr `axis` (default 0; in `[-(rank+1), rank]`). All dtypes.
pub struct Pack;
impl RegisteredOp for Pack {
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
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(PackKernel { axis: node.attr_int_or("axis", 0)? })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let axis = ctx.node.attr_int_or("axis", 0)?;
        let parts = unstack(ctx.scope, &ctx.grad(0)?, ctx.inputs.len(), axis)?;
        Ok(parts.into_iter().map(Some).collect())
    }
}

/// The `Pack` kernel, with the `axis` attr read once.
struct PackKernel {
    axis: i64,
}
impl Kernel for PackKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
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
        let ax = norm_axis(self.axis, x0.rank() + 1, "Pack")?;
        let outer: usize = x0.shape()[..ax].iter().product();
        let inner: usize = x0.shape()[ax..].iter().product();
        let mut shape = x0.shape().to_vec();
        shape.insert(ax, ctx.inputs.len());
        let parts: Vec<&Storage> = ctx.inputs.iter().map(|v| v.storage()).collect();
        let chunks = vec![inner; parts.len()];
        Ok(vec![Tensor::from_storage(&shape, interleave(&parts, outer, &chunks)?)?])
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
impl RegisteredOp for Unpack {
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
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let num = node.attrs.contains_key("num").then(|| node.attr_int_or("num", 0)).transpose()?;
        prepared(UnpackKernel { axis: node.attr_int_or("axis", 0)?, num })
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

/// The `Unpack` kernel, with the `axis` and `num` attrs read once.
struct UnpackKernel {
    axis: i64,
    /// The `num` attr (the input's `axis` dimension when absent).
    num: Option<i64>,
}
impl Kernel for UnpackKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.rank() == 0 {
            return Err(Error::invalid_argument("Unpack of a scalar: the input must be at least rank 1"));
        }
        let ax = norm_axis(self.axis, x.rank(), "Unpack")?;
        let n = x.shape()[ax];
        let num = self.num.unwrap_or(n as i64);
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
