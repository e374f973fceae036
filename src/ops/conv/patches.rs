//! `ExtractImagePatches` (TensorFlow's `tf.image.extract_patches`): the `ksizes` windows of an
//! NHWC image, taps `rates` apart, `strides` apart, each flattened into the depth of one
//! output pixel (row, column, channel order), zeros where a SAME window leaves the image.

use super::dilation::{same_padding, spatial4, windowed};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::kernels::{Num, NUMBERS_AND_SMALL_INTS};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&ExtractImagePatches];

/// The window attrs.
#[derive(Clone, Copy)]
struct Win {
    k: (usize, usize),
    strides: (usize, usize),
    rates: (usize, usize),
    same: bool,
}

impl Win {
    fn of(node: &Node) -> Result<Win> {
        Ok(Win {
            k: spatial4(node, "ksizes")?,
            strides: spatial4(node, "strides")?,
            rates: spatial4(node, "rates")?,
            same: same_padding(node)?,
        })
    }
    fn eff(k: usize, r: usize) -> usize {
        k + (k - 1) * (r - 1)
    }
}

/// `ExtractImagePatches(images)` (attrs `T`, `ksizes`, `strides`, `rates`, `padding`): NHWC
/// `images [N, H, W, D]` (int8, int16, int32, int64, uint8, uint16, float32, float64) to
/// `[N, OH, OW, KH * KW * D]`, each output pixel the window's taps in row, column, channel
/// order. Errors: TensorFlow's `Shape must be rank 4`, `Computed output size would be
/// negative`, and attr messages. Gradient: TensorFlow's (`patches_grad.rs`: an
/// `UnsortedSegmentSum` over the patches of the pixel numbers), for static height, width
/// and depth.
pub struct ExtractImagePatches;

impl RegisteredOp for ExtractImagePatches {
    fn op_type(&self) -> &'static str {
        "ExtractImagePatches"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        let w = Win::of(ctx.node)?;
        let x = ctx.shape(0);
        if let Some(r) = x.rank().filter(|&r| r != 4) {
            return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} (images {x})")));
        }
        let oh = x.dim(1).map(|h| windowed(h, Win::eff(w.k.0, w.rates.0), w.strides.0, w.same)).transpose()?;
        let ow = x.dim(2).map(|v| windowed(v, Win::eff(w.k.1, w.rates.1), w.strides.1, w.same)).transpose()?;
        Ok(vec![(
            t,
            Shape::partial(&[x.dim(0), oh.map(|o| o.0), ow.map(|o| o.0), x.dim(3).map(|d| d * w.k.0 * w.k.1)]),
        )])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let f = crate::dispatch_numeric!(node.attr_type("T")?, "ExtractImagePatches", small_ints, T => patches::<T> as PatchFn);
        Ok(Box::new(PatchKernel { win: Win::of(node)?, f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        super::patches_grad::extract_image_patches_grad(ctx)
    }
}

type PatchFn = fn(&Tensor, Win) -> Result<Tensor>;

/// A prepared `ExtractImagePatches`.
struct PatchKernel {
    win: Win,
    f: PatchFn,
}

impl Kernel for PatchKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if x.shape().len() != 4 {
            return Err(Error::invalid_argument(format!("input must be 4-dimensional{}", fmt_dims(x.shape()))));
        }
        Ok(vec![(self.f)(x, self.win)?])
    }
}

fn patches<T: Num>(x: &Tensor, win: Win) -> Result<Tensor> {
    let [n, h, w, d] = *x.shape() else { unreachable!("checked 4-d") };
    let v = x.as_slice::<T>()?;
    let (oh, pt) = windowed(h, Win::eff(win.k.0, win.rates.0), win.strides.0, win.same)?;
    let (ow, pl) = windowed(w, Win::eff(win.k.1, win.rates.1), win.strides.1, win.same)?;
    let depth = win.k.0 * win.k.1 * d;
    let mut out = Vec::with_capacity(n * oh * ow * depth);
    for b in 0..n {
        for oy in 0..oh {
            for ox in 0..ow {
                for i in 0..win.k.0 {
                    let y = (oy * win.strides.0 + i * win.rates.0) as i64 - pt as i64;
                    for j in 0..win.k.1 {
                        let xx = (ox * win.strides.1 + j * win.rates.1) as i64 - pl as i64;
                        if y < 0 || y >= h as i64 || xx < 0 || xx >= w as i64 {
                            out.extend(std::iter::repeat_n(T::ZERO, d));
                        } else {
                            let s = ((b * h + y as usize) * w + xx as usize) * d;
                            out.extend_from_slice(&v[s..s + d]);
                        }
                    }
                }
            }
        }
    }
    Tensor::new(&[n, oh, ow, depth], out)
}

/// `tf.image.extract_patches(images, sizes, strides, rates, padding)`: op
/// `ExtractImagePatches`, default name `ExtractImagePatches`; `sizes`, `strides`, `rates` of 4
/// entries. See [`ExtractImagePatches`].
pub fn extract_image_patches(
    s: &Scope,
    images: &Output,
    sizes: [i64; 4],
    strides: [i64; 4],
    rates: [i64; 4],
    padding: &str,
) -> Result<Output> {
    s.op("ExtractImagePatches", "ExtractImagePatches")
        .input(images)
        .attr("T", images.dtype())
        .attr("ksizes", AttrValue::ListInt(sizes.to_vec()))
        .attr("strides", AttrValue::ListInt(strides.to_vec()))
        .attr("rates", AttrValue::ListInt(rates.to_vec()))
        .attr("padding", padding)
        .build_output()
}
