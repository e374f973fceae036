//! `Squeeze` (`tf.squeeze`).

use super::layout::norm_axis;
use super::{prepared, reshape, shape_as};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// `Squeeze(input)`: removes size-1 dimensions (all of them, or those in attr
/// `squeeze_dims`, negative counting from the end). All dtypes.
pub struct Squeeze;
impl Squeeze {
    fn dims_attr(node: &Node) -> Result<Vec<i64>> {
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
impl RegisteredOp for Squeeze {
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
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepared(SqueezeKernel { dims: Self::dims_attr(node)? })
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let sh = shape_as(s, &ctx.inputs[0], DType::Int32)?;
        Ok(vec![Some(reshape(s, &ctx.grad(0)?, &sh)?)])
    }
}

/// The `Squeeze` kernel, with the `squeeze_dims` attr read once (empty: every size-1
/// dimension).
struct SqueezeKernel {
    dims: Vec<i64>,
}
impl Kernel for SqueezeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let d: Vec<Option<usize>> = x.shape().iter().map(|&v| Some(v)).collect();
        let out = Squeeze::squeeze(&d, &self.dims, &fmt_dims(x.shape()))?.unwrap_or_default();
        let out: Vec<usize> = out.into_iter().map(|v| v.unwrap_or(1)).collect();
        Ok(vec![x.reshape(&out)?])
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
