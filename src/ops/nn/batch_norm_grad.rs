//! The gradient ops of fused batch normalization (TensorFlow's `nn_ops`):
//! `FusedBatchNormGrad`, `FusedBatchNormGradV2`, `FusedBatchNormGradV3`, as TensorFlow's
//! CPU kernels compute them. The forward ops, and the attrs and layout both share, are in
//! [`batch_norm`](super::batch_norm).

use super::batch_norm::{
    all_shapes, check_len, infer_dtypes, merge_channels, read_attrs, with_rank, BnAttrs, FusedBatchNormVersion, Layout,
};
use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] =
    &[&FusedBatchNormGrad::V1, &FusedBatchNormGrad::V2, &FusedBatchNormGrad::V3];

/// `FusedBatchNormGrad`/`V2`/`V3(y_backprop, x, scale, reserve_space_1, reserve_space_2
/// [, reserve_space_3])`: the gradients of a fused batch norm with respect to `x`,
/// `scale` and `offset`. Training mode: `reserve_space_1`/`_2` are the batch mean and
/// biased variance the forward op saved, and `x_backprop = scale / sqrt(var + eps) *
/// (dy - mean(dy) - (x - mean) * mean(dy * (x - mean)) / (var + eps))`; inference:
/// they are the population mean and variance and `x_backprop = dy * scale / sqrt(var +
/// eps)`. In both, `scale_backprop = sum(dy * (x - mean) / sqrt(var + eps))` and
/// `offset_backprop = sum(dy)`. Outputs 3 and 4 are empty (`[0]`, TensorFlow's static
/// shape; its CPU kernel fills scalars). Attrs as [`FusedBatchNorm`](super::batch_norm::FusedBatchNorm) without
/// `exponential_avg_factor`. Its own gradient (TensorFlow's `_FusedBatchNormGradGrad`) is
/// not implemented.
pub struct FusedBatchNormGrad(FusedBatchNormVersion);
impl FusedBatchNormGrad {
    const V1: FusedBatchNormGrad = FusedBatchNormGrad(FusedBatchNormVersion::V1);
    const V2: FusedBatchNormGrad = FusedBatchNormGrad(FusedBatchNormVersion::V2);
    const V3: FusedBatchNormGrad = FusedBatchNormGrad(FusedBatchNormVersion::V3);
}

impl RegisteredOp for FusedBatchNormGrad {
    fn op_type(&self) -> &'static str {
        self.0.grad_op()
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.0 == FusedBatchNormVersion::V3 { 6 } else { 5 })?;
        let a = read_attrs(ctx.node)?;
        let (t, u) = infer_dtypes(ctx, self.0, 2, 2)?;
        let dy = with_rank(ctx, 0, a.rank)?;
        let x = with_rank(ctx, 1, a.rank)?;
        let merged = match (dy, x) {
            (Some(p), Some(q)) => Some(
                p.iter()
                    .zip(&q)
                    .map(|(&p, &q)| match (p, q) {
                        (Some(p), Some(q)) if p != q => Err(Error::invalid_argument(format!(
                            "Dimensions must be equal, but are {p} and {q} for y_backprop and x with input shapes: {}",
                            all_shapes(ctx)
                        ))),
                        (p, q) => Ok(p.or(q)),
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            (p, q) => p.or(q),
        };
        let cd = if a.channels_first { 1 } else { a.rank - 1 };
        let mut c = merged.as_ref().and_then(|d| d[cd]);
        for i in 2..5 {
            c = merge_channels(ctx, c, i)?;
        }
        let xs = match merged {
            Some(mut d) => {
                d[cd] = c;
                Shape::partial(&d)
            }
            None => Shape::unknown(),
        };
        let vec = Shape::partial(&[c]);
        Ok(vec![(t, xs), (u, vec.clone()), (u, vec), (u, Shape::known(&[0])), (u, Shape::known(&[0]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let u = node.outputs.get(1).map_or(DType::Float, |o| o.0);
        Ok(Box::new(GradKernel { attrs: read_attrs(node)?, u }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Err(Error::unimplemented(format!(
            "the gradient of {} ('{}') (TensorFlow's _FusedBatchNormGradGrad) is not implemented",
            ctx.node.op_type, ctx.node.name
        )))
    }
}

/// The prepared gradient kernel.
struct GradKernel {
    attrs: BnAttrs,
    u: DType,
}

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = &self.attrs;
        let (dy, x) = (ctx.input(0), ctx.input(1));
        let l = Layout::new(x.shape(), a, "x")?;
        if dy.shape() != x.shape() {
            return Err(Error::invalid_argument(format!(
                "x and y_backprop must have same shape, but x has shape {} and y_backprop has shape {}",
                fmt_dims(x.shape()),
                fmt_dims(dy.shape())
            )));
        }
        let (scale, mean, var) = (ctx.input(2).to_f64_vec()?, ctx.input(3).to_f64_vec()?, ctx.input(4).to_f64_vec()?);
        check_len(&scale, l.c, "scale", "")?;
        check_len(&mean, l.c, "reserve_space_1 (the mean)", "")?;
        check_len(&var, l.c, "reserve_space_2 (the variance)", "")?;
        let (dyv, xv) = (dy.to_f64_vec()?, x.to_f64_vec()?);
        let inv: Vec<f64> = var.iter().map(|v| 1.0 / (v + a.epsilon).sqrt()).collect();
        let d_offset = l.sums(|_, i| dyv[i]);
        let dy_xc = l.sums(|ch, i| dyv[i] * (xv[i] - mean[ch]));
        let d_scale: Vec<f64> = dy_xc.iter().zip(&inv).map(|(s, k)| s * k).collect();
        let n = l.rest().max(1) as f64;
        let dx = l.map(|ch, i| {
            let k = scale[ch] * inv[ch];
            if a.training {
                let xc = xv[i] - mean[ch];
                k * (dyv[i] - d_offset[ch] / n - xc * inv[ch] * inv[ch] * dy_xc[ch] / n)
            } else {
                dyv[i] * k
            }
        });
        Ok(vec![
            Tensor::from_f64(x.dtype(), x.shape(), &dx)?,
            Tensor::from_f64(self.u, &[l.c], &d_scale)?,
            Tensor::from_f64(self.u, &[l.c], &d_offset)?,
            Tensor::from_f64(self.u, &[0], &[])?,
            Tensor::from_f64(self.u, &[0], &[])?,
        ])
    }
}

// ---------------------------------------------------------------- builder

/// The gradient op of `version` (`FusedBatchNormGrad`, `FusedBatchNormGradV2`,
/// `FusedBatchNormGradV3`), default name its op type: inputs `y_backprop`, `x`, `scale`,
/// `reserve_space_1`, `reserve_space_2` and, for V3, `reserve_space_3` (ignored on the
/// CPU; pass the forward op's output 5). Returns the operation: outputs `x_backprop`,
/// `scale_backprop`, `offset_backprop` and two empty placeholders. Errors:
/// `InvalidArgument` at build time for wrong ranks, channel counts or dtypes, or a V3
/// call without `reserve_space_3`.
#[allow(clippy::too_many_arguments)]
pub fn fused_batch_norm_grad(
    s: &Scope,
    version: FusedBatchNormVersion,
    y_backprop: &Output,
    x: &Output,
    scale: &Output,
    reserve_space: [&Output; 2],
    reserve_space_3: Option<&Output>,
    epsilon: f32,
    data_format: &str,
    is_training: bool,
) -> Result<Operation> {
    let op_type = version.grad_op();
    let mut b =
        s.op(op_type, op_type).input(y_backprop).input(x).input(scale).input(reserve_space[0]).input(reserve_space[1]);
    match (version, reserve_space_3) {
        (FusedBatchNormVersion::V3, Some(r)) => b = b.input(r),
        (FusedBatchNormVersion::V3, None) => {
            return Err(Error::invalid_argument(
                "FusedBatchNormGradV3 needs reserve_space_3 (the forward op's output 5)",
            ))
        }
        _ => {}
    }
    b = b
        .attr("T", x.dtype())
        .attr("epsilon", epsilon)
        .attr("data_format", data_format)
        .attr("is_training", is_training);
    if version != FusedBatchNormVersion::V1 {
        b = b.attr("U", scale.dtype());
    }
    b.build()
}
