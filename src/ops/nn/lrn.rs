//! `LRN` and `LRNGrad` (`tf.nn.local_response_normalization`, `tf.nn.lrn`): each channel
//! divided by a power of the sum of squares of its neighbouring channels.

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&LRN(false), &LRN(true)];

/// The OpDef's dtypes; TensorFlow's CPU kernels run float32 and half (bfloat16 has none).
const FLOATS: &[DType] = &[DType::Half, DType::BFloat16, DType::Float];

/// The attrs of `LRN` and `LRNGrad`, with TensorFlow's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LrnOptions {
    /// Half-width of the window over channels (default 5).
    pub depth_radius: i64,
    /// Offset added to the scaled sum (default 1).
    pub bias: f32,
    /// Scale of the sum of squares (default 1; not divided by the window size).
    pub alpha: f32,
    /// Exponent (default 0.5).
    pub beta: f32,
}

impl Default for LrnOptions {
    fn default() -> Self {
        LrnOptions { depth_radius: 5, bias: 1.0, alpha: 1.0, beta: 0.5 }
    }
}

impl LrnOptions {
    fn of(node: &Node) -> Result<LrnOptions> {
        let d = LrnOptions::default();
        Ok(LrnOptions {
            depth_radius: node.attr_int_or("depth_radius", d.depth_radius)?,
            bias: node.attr_float_or("bias", d.bias)?,
            alpha: node.attr_float_or("alpha", d.alpha)?,
            beta: node.attr_float_or("beta", d.beta)?,
        })
    }
}

/// `LRN(input)` (attrs of [`LrnOptions`]): for `input` `[batch, rows, cols, depth]` (half,
/// float32), `out[..., c] = in[..., c] / (bias + alpha * sum(in[..., c'] ** 2 for c' in
/// [c - depth_radius, c + depth_radius])) ** beta`. `LRNGrad(input_grads, input_image,
/// output_image)`: its gradient with respect to `input_image` (all three one shape).
/// Errors (`InvalidArgument`, TensorFlow's texts): `Shape must be rank 4 but is rank 2` at
/// build time, `in must be 4-dimensional`, `inputs must be 4-dimensional`, `input_grads,
/// input_image, and out_image should have the same shape` when run; bfloat16 has no kernel.
/// Gradient of `LRN`: `LRNGrad` with the same attrs; `LRNGrad` has none (as TensorFlow).
#[allow(clippy::upper_case_acronyms)]
pub struct LRN(pub bool);

impl RegisteredOp for LRN {
    fn op_type(&self) -> &'static str {
        if self.0 {
            "LRNGrad"
        } else {
            "LRN"
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let n = if self.0 { 3 } else { 1 };
        ctx.expect_inputs(n)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        let mut shape = Shape::unknown();
        for i in 0..n {
            if let Some(r) = ctx.shape(i).rank().filter(|&r| r != 4) {
                return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r}")));
            }
            shape = shape.merge(ctx.shape(i)).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "input_grads, input_image, and out_image should have the same shape: {} and {}",
                    shape,
                    ctx.shape(i)
                ))
            })?;
        }
        Ok(vec![(t, if n == 1 { Shape::partial(&[None; 4]).merge(&shape).unwrap_or(shape) } else { shape })])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Half) {
            return Err(Error::invalid_argument(format!(
                "{} '{}' has no kernel for dtype {t} (TensorFlow's CPU kernels run float32 and half)",
                self.op_type(),
                node.name
            )));
        }
        let o = LrnOptions::of(node)?;
        if o.depth_radius < 0 || o.depth_radius > i32::MAX as i64 {
            return Err(Error::invalid_argument(format!(
                "depth_radius = {} larger than int max or negative",
                o.depth_radius
            )));
        }
        Ok(Box::new(LrnKernel { o, grad: self.0 }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if self.0 {
            return Ok(vec![None; 3]);
        }
        let o = LrnOptions::of(ctx.node)?;
        Ok(vec![Some(lrn_grad(ctx.scope, &ctx.grad(0)?, &ctx.inputs[0], &ctx.outputs[0], o)?)])
    }
}

struct LrnKernel {
    o: LrnOptions,
    grad: bool,
}

impl Kernel for LrnKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (r, bias, alpha, beta) =
            (self.o.depth_radius as usize, self.o.bias as f64, self.o.alpha as f64, self.o.beta as f64);
        if !self.grad {
            if x.rank() != 4 {
                return Err(Error::invalid_argument("in must be 4-dimensional"));
            }
            let depth = x.shape()[3];
            let v = x.to_f64_vec()?;
            let mut out = vec![0.0; v.len()];
            for (row, o) in v.chunks(depth.max(1)).zip(out.chunks_mut(depth.max(1))) {
                for c in 0..depth {
                    let (lo, hi) = (c.saturating_sub(r), (c + r + 1).min(depth));
                    let sum: f64 = row[lo..hi].iter().map(|a| a * a).sum();
                    o[c] = row[c] * (bias + alpha * sum).powf(-beta);
                }
            }
            return Ok(vec![Tensor::from_f64(x.dtype(), x.shape(), &out)?]);
        }
        let (g, img, outv) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if g.rank() != 4 || img.rank() != 4 {
            return Err(Error::invalid_argument("inputs must be 4-dimensional"));
        }
        if img.shape() != g.shape() || outv.shape() != g.shape() {
            return Err(Error::invalid_argument("input_grads, input_image, and out_image should have the same shape"));
        }
        let depth = g.shape()[3];
        let (gv, iv, ov) = (g.to_f64_vec()?, img.to_f64_vec()?, outv.to_f64_vec()?);
        let mut dx = vec![0.0; gv.len()];
        let d1 = depth.max(1);
        for (((gs, is), os), dxs) in gv.chunks(d1).zip(iv.chunks(d1)).zip(ov.chunks(d1)).zip(dx.chunks_mut(d1)) {
            // TensorFlow's SingleThreadedLRNGrad: for each output channel j, its window's
            // norm, then the contribution to every input channel k of the window.
            for j in 0..depth {
                let (lo, hi) = (j.saturating_sub(r), (j + r + 1).min(depth));
                let norm = alpha * is[lo..hi].iter().map(|a| a * a).sum::<f64>() + bias;
                for k in lo..hi {
                    let mut dyi = -2.0 * alpha * beta * is[k] * os[j] / norm;
                    if k == j {
                        dyi += norm.powf(-beta);
                    }
                    dxs[k] += dyi * gs[j];
                }
            }
        }
        Ok(vec![Tensor::from_f64(g.dtype(), g.shape(), &dx)?])
    }
}

/// `tf.nn.local_response_normalization(input, depth_radius, bias, alpha, beta)`: op `LRN`,
/// default name `LRN`. See [`LRN`].
pub fn lrn(s: &Scope, input: &Output, o: LrnOptions) -> Result<Output> {
    s.op("LRN", "LRN")
        .input(input)
        .attr("T", input.dtype())
        .attr("depth_radius", o.depth_radius)
        .attr("bias", o.bias)
        .attr("alpha", o.alpha)
        .attr("beta", o.beta)
        .build_output()
}

/// Op `LRNGrad(input_grads, input_image, output_image)`, default name `LRNGrad`: the
/// gradient of [`lrn`] with respect to its input. See [`LRN`].
pub fn lrn_grad(s: &Scope, grads: &Output, input: &Output, output: &Output, o: LrnOptions) -> Result<Output> {
    s.op("LRNGrad", "LRNGrad")
        .input(grads)
        .input(input)
        .input(output)
        .attr("T", input.dtype())
        .attr("depth_radius", o.depth_radius)
        .attr("bias", o.bias)
        .attr("alpha", o.alpha)
        .attr("beta", o.beta)
        .build_output()
}
