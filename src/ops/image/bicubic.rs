//! `ResizeBicubic` and its gradient op `ResizeBicubicGrad`, as TensorFlow's CPU kernels
//! (`resize_bicubic_op.cc`): the cubic convolution kernel of a 1024-entry float32 table,
//! `a = -0.75` (legacy) or Keys' `a = -0.5` with out-of-image taps dropped and the weights
//! renormalized when `half_pixel_centers`.

use super::{infer_resized, nhwc, out_size, Corners};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::constant;
use crate::ops::kernels::{Num, NUMBERS_AND_SMALL_INTS};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};
use std::sync::LazyLock;

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&ResizeBicubic, &ResizeBicubicGrad];

const TABLE: usize = 1024;

/// TensorFlow's `InitCoeffsTable(a)`: pairs (weight of the near tap, weight of the far tap).
fn table(a: f64) -> Vec<f32> {
    let mut t = vec![0f32; (TABLE + 1) * 2];
    for i in 0..=TABLE {
        let x = (i as f64 / TABLE as f64) as f32 as f64;
        t[i * 2] = (((a + 2.0) * x - (a + 3.0)) * x * x + 1.0) as f32;
        let x = x + 1.0;
        t[i * 2 + 1] = (((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a) as f32;
    }
    t
}

static LEGACY: LazyLock<Vec<f32>> = LazyLock::new(|| table(-0.75));
static KEYS: LazyLock<Vec<f32>> = LazyLock::new(|| table(-0.5));

/// The four taps (index, weight) of output position `out` along an axis of `limit` pixels
/// (TensorFlow's `GetWeightsAndIndices`).
fn taps(c: Corners, scale: f32, out: usize, limit: usize) -> [(usize, f32); 4] {
    let f = if c.half_pixel_centers { (out as f32 + 0.5) * scale - 0.5 } else { out as f32 * scale };
    let loc = f.floor() as i64;
    let delta = f - loc as f32;
    let off = (delta * TABLE as f32).round_ties_even() as usize;
    let bound = |v: i64| v.max(0).min(limit as i64 - 1) as usize;
    let idx = [bound(loc - 1), bound(loc), bound(loc + 1), bound(loc + 2)];
    if c.half_pixel_centers {
        let t = &*KEYS;
        let raw = [t[off * 2 + 1], t[off * 2], t[(TABLE - off) * 2], t[(TABLE - off) * 2 + 1]];
        let mut w = [0f32; 4];
        for j in 0..4 {
            w[j] = if idx[j] as i64 == loc - 1 + j as i64 { raw[j] } else { 0.0 };
        }
        let sum = w[0] + w[1] + w[2] + w[3];
        if sum.abs() >= 1000.0 * f32::MIN_POSITIVE {
            let inv = 1.0 / sum;
            w.iter_mut().for_each(|x| *x *= inv);
        }
        [(idx[0], w[0]), (idx[1], w[1]), (idx[2], w[2]), (idx[3], w[3])]
    } else {
        let t = &*LEGACY;
        [
            (idx[0], t[off * 2 + 1]),
            (idx[1], t[off * 2]),
            (idx[2], t[(TABLE - off) * 2]),
            (idx[3], t[(TABLE - off) * 2 + 1]),
        ]
    }
}

fn axis_taps(c: Corners, input: usize, output: usize) -> Vec<[(usize, f32); 4]> {
    let scale = c.scale(input, output);
    (0..output).map(|o| taps(c, scale, o, input)).collect()
}

/// `ResizeBicubic(images, size)` (attrs `T`, `align_corners`, `half_pixel_centers`): NHWC
/// `images` (int8, int16, int32, int64, uint8, uint16, float32, float64) resized to `size`
/// (int32 `[new_height, new_width]`) by cubic convolution over the 4x4 nearest pixels;
/// output float32. Errors: as [`super::Resize`]. Gradient: `ResizeBicubicGrad` (float32 and
/// float64 images; none for integer images, as TensorFlow).
pub struct ResizeBicubic;

impl RegisteredOp for ResizeBicubic {
    fn op_type(&self) -> &'static str {
        "ResizeBicubic"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        Ok(vec![(DType::Float, infer_resized(ctx, ctx.shape(0), 1)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let c = Corners::of(node)?;
        let f =
            crate::dispatch_numeric!(node.attr_type("T")?, "ResizeBicubic", small_ints, T => bicubic::<T> as BicubicFn);
        Ok(Box::new(BicubicKernel { c, f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let image = &ctx.inputs[0];
        if !matches!(image.dtype(), DType::Float | DType::Double) {
            return Ok(vec![None, None]);
        }
        let c = Corners::of(ctx.node)?;
        let g = ctx.grad(0)?;
        let grad = ctx
            .scope
            .op("ResizeBicubicGrad", "ResizeBicubicGrad")
            .input(&g)
            .input(image)
            .attr("T", image.dtype())
            .attr("align_corners", c.align_corners)
            .attr("half_pixel_centers", c.half_pixel_centers)
            .build_output()?;
        Ok(vec![Some(grad), None])
    }
}

type BicubicFn = fn(&Tensor, (usize, usize), Corners) -> Result<Tensor>;

/// A prepared `ResizeBicubic`.
struct BicubicKernel {
    c: Corners,
    f: BicubicFn,
}

impl Kernel for BicubicKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let size = out_size(ctx.input(1))?;
        Ok(vec![(self.f)(ctx.input(0), size, self.c)?])
    }
}

fn bicubic<T: Num>(x: &Tensor, (oh, ow): (usize, usize), c: Corners) -> Result<Tensor> {
    let [b, h, w, ch] = nhwc(x, "input")?;
    if h == 0 || w == 0 {
        return Err(Error::invalid_argument(format!(
            "input image must be of non-zero size, got {}",
            fmt_dims(x.shape())
        )));
    }
    let v = x.as_slice::<T>()?;
    let (ys, xs) = (axis_taps(c, h, oh), axis_taps(c, w, ow));
    let mut out = Vec::with_capacity(b * oh * ow * ch);
    let at = |n: usize, y: usize, xx: usize, k: usize| v[((n * h + y) * w + xx) * ch + k].to_f64() as f32;
    for n in 0..b {
        for yt in &ys {
            for xt in &xs {
                for k in 0..ch {
                    let col = |xi: usize| {
                        at(n, yt[0].0, xi, k) * yt[0].1
                            + at(n, yt[1].0, xi, k) * yt[1].1
                            + at(n, yt[2].0, xi, k) * yt[2].1
                            + at(n, yt[3].0, xi, k) * yt[3].1
                    };
                    out.push(
                        col(xt[0].0) * xt[0].1
                            + col(xt[1].0) * xt[1].1
                            + col(xt[2].0) * xt[2].1
                            + col(xt[3].0) * xt[3].1,
                    );
                }
            }
        }
    }
    Tensor::new(&[b, oh, ow, ch], out)
}

/// `ResizeBicubicGrad(grads, original_image)` (attrs `T`: float32, float64; `align_corners`,
/// `half_pixel_centers`): the gradient of [`ResizeBicubic`]: each element of float32 `grads
/// [batch, new_height, new_width, channels]` spread over the 16 pixels it was interpolated
/// from with the same weights; output `T` shaped like `original_image`. Errors:
/// `InvalidArgument` for ranks other than 4 or a batch or channel count that differs. No
/// gradient.
pub struct ResizeBicubicGrad;

impl RegisteredOp for ResizeBicubicGrad {
    fn op_type(&self) -> &'static str {
        "ResizeBicubicGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::Float])?;
        let t = ctx.check_dtype(1, &[DType::Float, DType::Double])?;
        for (i, what) in [(0, "grads"), (1, "original_image")] {
            if let Some(r) = ctx.shape(i).rank().filter(|&r| r != 4) {
                return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} ({what})")));
            }
        }
        Ok(vec![(t, ctx.shape(1).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let c = Corners::of(node)?;
        let f = crate::dispatch_float!(node.attr_type("T")?, "ResizeBicubicGrad", T => bicubic_grad::<T> as GradFn);
        Ok(Box::new(BicubicGradKernel { c, f }))
    }
}

type GradFn = fn(&Tensor, [usize; 4], Corners) -> Result<Tensor>;

/// A prepared `ResizeBicubicGrad`.
struct BicubicGradKernel {
    c: Corners,
    f: GradFn,
}

impl Kernel for BicubicGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let g = ctx.input(0);
        let [b, _, _, ch] = nhwc(g, "input_grad")?;
        let o = nhwc(ctx.input(1), "original_image")?;
        if o[0] != b || o[3] != ch {
            return Err(Error::invalid_argument(format!(
                "the gradient {} and the original image {} must have one batch size and channel count",
                fmt_dims(g.shape()),
                fmt_dims(ctx.input(1).shape())
            )));
        }
        if o[1] == 0 || o[2] == 0 {
            return Err(Error::invalid_argument("original dimensions must be positive"));
        }
        Ok(vec![(self.f)(g, o, self.c)?])
    }
}

fn bicubic_grad<T: Num>(g: &Tensor, [b, h, w, ch]: [usize; 4], c: Corners) -> Result<Tensor> {
    let [_, gh, gw, _] = nhwc(g, "input_grad")?;
    let v = g.as_slice::<f32>()?;
    let (ys, xs) = (axis_taps(c, h, gh), axis_taps(c, w, gw));
    let mut out = vec![T::ZERO; b * h * w * ch];
    let mut i = 0;
    for n in 0..b {
        for yt in &ys {
            for xt in &xs {
                for k in 0..ch {
                    let gv = T::from_f64(v[i] as f64);
                    for &(yi, wy) in yt {
                        for &(xi, wx) in xt {
                            out[((n * h + yi) * w + xi) * ch + k] +=
                                gv * T::from_f64(wy as f64) * T::from_f64(wx as f64);
                        }
                    }
                    i += 1;
                }
            }
        }
    }
    Tensor::new(&[b, h, w, ch], out)
}

/// `tf.compat.v1.image.resize_bicubic(images, size, align_corners, half_pixel_centers)`: op
/// `ResizeBicubic`, default name `ResizeBicubic`, size const `ResizeBicubic/size`; float32
/// `[batch, size..., channels]`. See [`ResizeBicubic`].
pub fn resize_bicubic(
    s: &Scope,
    images: &Output,
    size: [i32; 2],
    align_corners: bool,
    half_pixel_centers: bool,
) -> Result<Output> {
    let (op, inner) = s.op_scope("ResizeBicubic");
    let size = constant(&inner.named("size"), Tensor::vector(size.to_vec()))?;
    op.op("ResizeBicubic", "ResizeBicubic")
        .input(images)
        .input(&size)
        .attr("T", images.dtype())
        .attr("align_corners", align_corners)
        .attr("half_pixel_centers", half_pixel_centers)
        .build_output()
}
