//! Image resizing (TensorFlow's `image_ops`): `ResizeBilinear` and
//! `ResizeNearestNeighbor` of NHWC images with the `align_corners` and
//! `half_pixel_centers` attrs, and their gradient ops `ResizeBilinearGrad` and
//! `ResizeNearestNeighborGrad`. Coordinates are computed in float32, as TensorFlow's
//! CPU kernels do. Non-max suppression is in [`nms`], `ResizeBicubic` in [`bicubic`],
//! `CropAndResize` in [`crop_and_resize`](mod@crop_and_resize).

pub mod bicubic;
pub mod crop_and_resize;
pub mod nms;

pub use bicubic::resize_bicubic;
pub use crop_and_resize::crop_and_resize;

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::constant;
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] =
    &[&Resize::BILINEAR, &Resize::NEAREST, &ResizeGrad::BILINEAR, &ResizeGrad::NEAREST];

const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

/// The two attrs every resize op has.
#[derive(Clone, Copy)]
struct Corners {
    align_corners: bool,
    half_pixel_centers: bool,
}

impl Corners {
    /// The attrs of `node`. Errors: TensorFlow's `If half_pixel_centers is True,
    /// align_corners must be False.`
    fn of(node: &Node) -> Result<Corners> {
        let c = Corners {
            align_corners: node.attr_bool_or("align_corners", false)?,
            half_pixel_centers: node.attr_bool_or("half_pixel_centers", false)?,
        };
        if c.align_corners && c.half_pixel_centers {
            return Err(Error::invalid_argument(format!(
                "If half_pixel_centers is True, align_corners must be False. ({} '{}')",
                node.op_type, node.name
            )));
        }
        Ok(c)
    }
    /// The scale from output to input coordinates (TensorFlow's `CalculateResizeScale`).
    fn scale(&self, input: usize, output: usize) -> f32 {
        if self.align_corners && output > 1 {
            (input as f32 - 1.0) / (output as f32 - 1.0)
        } else {
            input as f32 / output as f32
        }
    }
    /// Bilinear source positions for the `output` positions of an axis of `input`:
    /// (lower index, upper index, weight of the upper).
    fn bilinear(&self, input: usize, output: usize) -> Vec<(usize, usize, f32)> {
        let scale = self.scale(input, output);
        (0..output)
            .map(|i| {
                let x = if self.half_pixel_centers { (i as f32 + 0.5) * scale - 0.5 } else { i as f32 * scale };
                let f = x.floor();
                let lower = (f as i64).max(0) as usize;
                let upper = (x.ceil() as i64).min(input as i64 - 1).max(0) as usize;
                (lower, upper, x - f)
            })
            .collect()
    }
    /// Nearest source positions for the `output` positions of an axis of `input`.
    fn nearest(&self, input: usize, output: usize) -> Vec<usize> {
        let scale = self.scale(input, output);
        (0..output)
            .map(|i| {
                let x = if self.half_pixel_centers { (i as f32 + 0.5) * scale } else { i as f32 * scale };
                let v = if self.align_corners { x.round() } else { x.floor() } as i64;
                v.min(input as i64 - 1).max(0) as usize
            })
            .collect()
    }
}

/// The `[new_height, new_width]` of a resize, from a 1-d int32 of 2 elements. Errors:
/// TensorFlow's messages for another shape or a size not positive.
fn out_size(size: &Tensor) -> Result<(usize, usize)> {
    let v = size.as_slice::<i32>()?;
    if size.shape() != [2] {
        return Err(Error::invalid_argument(format!(
            "shape_t must be 1-dimensional with 2 elements, got {}",
            fmt_dims(size.shape())
        )));
    }
    if v[0] <= 0 || v[1] <= 0 {
        return Err(Error::invalid_argument("output dimensions must be positive"));
    }
    Ok((v[0] as usize, v[1] as usize))
}

/// `[batch, height, width, channels]` of a 4-d tensor. Errors: `InvalidArgument`
/// naming `what` otherwise.
fn nhwc(t: &Tensor, what: &str) -> Result<[usize; 4]> {
    match *t.shape() {
        [b, h, w, c] => Ok([b, h, w, c]),
        _ => Err(Error::invalid_argument(format!("{what} must be 4-dimensional, got {}", fmt_dims(t.shape())))),
    }
}

/// The static shape `[batch, size..., channels]` of a resize of `images` to the constant
/// or unknown `size` (input `i`). Errors: TensorFlow's rank messages.
fn infer_resized(ctx: &InferCtx, images: &Shape, i: usize) -> Result<Shape> {
    if let Some(r) = images.rank().filter(|&r| r != 4) {
        return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} (images {images})")));
    }
    let size = ctx.shape(i);
    if let Some(r) = size.rank().filter(|&r| r != 1) {
        return Err(Error::invalid_argument(format!("Shape must be rank 1 but is rank {r} (size)")));
    }
    if let Some(n) = size.dim(0).filter(|&n| n != 2) {
        return Err(Error::invalid_argument(format!("Dimension must be 2 but is {n} (size)")));
    }
    let hw = match ctx.const_input(i) {
        Some(t) => {
            let v = t.as_slice::<i32>()?.to_vec();
            if v.iter().any(|&d| d <= 0) {
                return Err(Error::invalid_argument("output dimensions must be positive"));
            }
            [Some(v[0] as usize), Some(v[1] as usize)]
        }
        None => [None, None],
    };
    Ok(Shape::partial(&[images.dim(0), hw[0], hw[1], images.dim(3)]))
}

/// `ResizeBilinear(images, size)` / `ResizeNearestNeighbor(images, size)` (attrs `T`,
/// `align_corners`, `half_pixel_centers`): NHWC `images` resized to `size` (a 1-d int32
/// `[new_height, new_width]`). Bilinear interpolates the four nearest pixels and gives
/// float32; nearest-neighbor copies one pixel and keeps `T`. float32, float64, int8,
/// int16, int32, int64, uint8, uint16 (uint8 image preprocessing). Errors: `InvalidArgument` with TensorFlow's messages (`Shape must be rank 4`,
/// `output dimensions must be positive`, `If half_pixel_centers is True, align_corners
/// must be False.`). Gradients: `ResizeBilinearGrad` and `ResizeNearestNeighborGrad`.
pub struct Resize {
    op_type: &'static str,
    bilinear: bool,
}

impl Resize {
    const BILINEAR: Resize = Resize { op_type: "ResizeBilinear", bilinear: true };
    const NEAREST: Resize = Resize { op_type: "ResizeNearestNeighbor", bilinear: false };
}

impl RegisteredOp for Resize {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, crate::ops::kernels::NUMBERS_AND_SMALL_INTS)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        let out = if self.bilinear { DType::Float } else { t };
        Ok(vec![(out, infer_resized(ctx, ctx.shape(0), 1)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let c = Corners::of(node)?;
        let t = node.attr_type("T")?;
        let f = if self.bilinear {
            crate::dispatch_numeric!(t, self.op_type, small_ints, T => bilinear::<T> as ResizeFn)
        } else {
            crate::dispatch_numeric!(t, self.op_type, small_ints, T => nearest::<T> as ResizeFn)
        };
        Ok(Box::new(ResizeKernel { c, f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let c = Corners::of(ctx.node)?;
        let (image, g) = (&ctx.inputs[0], ctx.grad(0)?);
        let grad = if self.bilinear {
            resize_grad_op(s, "ResizeBilinearGrad", &g, image, c)?
        } else {
            // TensorFlow passes the image's static height and width as a constant when known
            let hw = image.shape().dims().and_then(|d| Some([d.get(1).copied()??, d.get(2).copied()??]));
            let size = match hw {
                Some([h, w]) => constant(s, Tensor::vector(vec![h as i32, w as i32]))?,
                None => {
                    let sh = crate::ops::array::shape(s, image)?;
                    let m = crate::ops::array::SliceMasks::default();
                    crate::ops::array::strided_slice_indexing(s, &sh, &[1], &[3], &[1], m)?
                }
            };
            resize_grad_op(s, "ResizeNearestNeighborGrad", &g, &size, c)?
        };
        Ok(vec![Some(grad), None])
    }
}

type ResizeFn = fn(&Tensor, (usize, usize), Corners) -> Result<Tensor>;

/// A prepared resize: its attrs and typed kernel.
struct ResizeKernel {
    c: Corners,
    f: ResizeFn,
}

impl Kernel for ResizeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let size = out_size(ctx.input(1))?;
        Ok(vec![(self.f)(ctx.input(0), size, self.c)?])
    }
}

fn bilinear<T: Num>(x: &Tensor, (oh, ow): (usize, usize), c: Corners) -> Result<Tensor> {
    let [b, h, w, ch] = nhwc(x, "input")?;
    let v = x.as_slice::<T>()?;
    let (ys, xs) = (c.bilinear(h, oh), c.bilinear(w, ow));
    let mut out = Vec::with_capacity(b * oh * ow * ch);
    let at = |n: usize, y: usize, x: usize, k: usize| v[((n * h + y) * w + x) * ch + k].to_f64() as f32;
    for n in 0..b {
        for &(y0, y1, dy) in &ys {
            for &(x0, x1, dx) in &xs {
                for k in 0..ch {
                    let (tl, tr, bl, br) = (at(n, y0, x0, k), at(n, y0, x1, k), at(n, y1, x0, k), at(n, y1, x1, k));
                    let top = tl + (tr - tl) * dx;
                    let bottom = bl + (br - bl) * dx;
                    out.push(top + (bottom - top) * dy);
                }
            }
        }
    }
    Tensor::new(&[b, oh, ow, ch], out)
}

fn nearest<T: Num>(x: &Tensor, (oh, ow): (usize, usize), c: Corners) -> Result<Tensor> {
    let [b, h, w, ch] = nhwc(x, "input")?;
    let v = x.as_slice::<T>()?;
    let (ys, xs) = (c.nearest(h, oh), c.nearest(w, ow));
    let mut out = Vec::with_capacity(b * oh * ow * ch);
    for n in 0..b {
        for &y in &ys {
            for &xx in &xs {
                let base = ((n * h + y) * w + xx) * ch;
                out.extend_from_slice(&v[base..base + ch]);
            }
        }
    }
    Tensor::new(&[b, oh, ow, ch], out)
}

/// `ResizeBilinearGrad(grads, original_image)` (attrs `T`, `align_corners`,
/// `half_pixel_centers`): the gradient of `ResizeBilinear`: every element of the float32
/// `grads` (`[batch, new_height, new_width, channels]`) spread over the four pixels it
/// was interpolated from, with the same weights; the output has `original_image`'s shape
/// and dtype (float32, float64). `ResizeNearestNeighborGrad(grads, size)`: the gradient
/// of `ResizeNearestNeighbor`, every element of `grads` (float32, float64, int32, int64)
/// added to the pixel it was copied from; the output is `[batch, size..., channels]`.
/// Errors: `InvalidArgument` as [`Resize`]. No gradient.
pub struct ResizeGrad {
    op_type: &'static str,
    bilinear: bool,
}

impl ResizeGrad {
    const BILINEAR: ResizeGrad = ResizeGrad { op_type: "ResizeBilinearGrad", bilinear: true };
    const NEAREST: ResizeGrad = ResizeGrad { op_type: "ResizeNearestNeighborGrad", bilinear: false };
}

impl RegisteredOp for ResizeGrad {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let g = ctx.shape(0);
        if let Some(r) = g.rank().filter(|&r| r != 4) {
            return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} (grads {g})")));
        }
        if self.bilinear {
            ctx.check_dtype(0, &[DType::Float])?;
            let t = ctx.check_dtype(1, &[DType::Float, DType::Double])?;
            let img = ctx.shape(1);
            if let Some(r) = img.rank().filter(|&r| r != 4) {
                return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} (original_image)")));
            }
            return Ok(vec![(t, img.clone())]);
        }
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, &[DType::Int32])?;
        Ok(vec![(t, infer_resized(ctx, g, 1)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let c = Corners::of(node)?;
        let t = node.attr_type("T")?;
        let f = if self.bilinear {
            crate::dispatch_float!(t, self.op_type, T => bilinear_grad::<T> as GradFn)
        } else {
            crate::dispatch_numeric!(t, self.op_type, T => nearest_grad::<T> as GradFn)
        };
        Ok(Box::new(ResizeGradKernel { c, f, bilinear: self.bilinear }))
    }
}

type GradFn = fn(&Tensor, [usize; 4], Corners) -> Result<Tensor>;

/// A prepared resize gradient: its attrs and typed kernel.
struct ResizeGradKernel {
    c: Corners,
    f: GradFn,
    bilinear: bool,
}

impl Kernel for ResizeGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let g = ctx.input(0);
        let [b, _, _, ch] = nhwc(g, "input_grad")?;
        let original = if self.bilinear {
            let o = nhwc(ctx.input(1), "original_image")?;
            if o[0] != b || o[3] != ch {
                return Err(Error::invalid_argument(format!(
                    "the gradient {} and the original image {} must have one batch size and channel count",
                    fmt_dims(g.shape()),
                    fmt_dims(ctx.input(1).shape())
                )));
            }
            o
        } else {
            let (h, w) = out_size(ctx.input(1))?;
            [b, h, w, ch]
        };
        if original[1] == 0 || original[2] == 0 {
            return Err(Error::invalid_argument("original dimensions must be positive"));
        }
        Ok(vec![(self.f)(g, original, self.c)?])
    }
}

fn bilinear_grad<T: Num>(g: &Tensor, [b, h, w, ch]: [usize; 4], c: Corners) -> Result<Tensor> {
    let [_, oh, ow, _] = nhwc(g, "input_grad")?;
    let v = g.as_slice::<f32>()?;
    let (ys, xs) = (c.bilinear(h, oh), c.bilinear(w, ow));
    let mut out = vec![T::ZERO; b * h * w * ch];
    let mut i = 0;
    for n in 0..b {
        for &(y0, y1, dy) in &ys {
            for &(x0, x1, dx) in &xs {
                for k in 0..ch {
                    let (top, bottom) = ((1.0 - dy) * v[i], dy * v[i]);
                    let mut add = |y: usize, x: usize, val: f32| {
                        out[((n * h + y) * w + x) * ch + k] += T::from_f64(val as f64);
                    };
                    add(y0, x0, top * (1.0 - dx));
                    add(y0, x1, top * dx);
                    add(y1, x0, bottom * (1.0 - dx));
                    add(y1, x1, bottom * dx);
                    i += 1;
                }
            }
        }
    }
    Tensor::new(&[b, h, w, ch], out)
}

fn nearest_grad<T: Num>(g: &Tensor, [b, h, w, ch]: [usize; 4], c: Corners) -> Result<Tensor> {
    let [_, gh, gw, _] = nhwc(g, "input_grad")?;
    let v = g.as_slice::<T>()?;
    // the forward op mapped each of the gh x gw gradient pixels from one of the h x w
    let (ys, xs) = (c.nearest(h, gh), c.nearest(w, gw));
    let mut out = vec![T::ZERO; b * h * w * ch];
    let mut i = 0;
    for n in 0..b {
        for &y in &ys {
            for &x in &xs {
                for k in 0..ch {
                    out[((n * h + y) * w + x) * ch + k] += v[i];
                    i += 1;
                }
            }
        }
    }
    Tensor::new(&[b, h, w, ch], out)
}

/// A resize gradient op.
fn resize_grad_op(s: &Scope, op_type: &str, grads: &Output, other: &Output, c: Corners) -> Result<Output> {
    let t = if op_type == "ResizeBilinearGrad" { other.dtype() } else { grads.dtype() };
    s.op(op_type, op_type)
        .input(grads)
        .input(other)
        .attr("T", t)
        .attr("align_corners", c.align_corners)
        .attr("half_pixel_centers", c.half_pixel_centers)
        .build_output()
}

/// A resize op with a constant size (`<op>/size`).
fn resize(s: &Scope, op_type: &str, images: &Output, size: [i32; 2], c: Corners) -> Result<Output> {
    let (op, inner) = s.op_scope(op_type);
    let size = constant(&inner.named("size"), Tensor::vector(size.to_vec()))?;
    op.op(op_type, op_type)
        .input(images)
        .input(&size)
        .attr("T", images.dtype())
        .attr("align_corners", c.align_corners)
        .attr("half_pixel_centers", c.half_pixel_centers)
        .build_output()
}

/// `tf.compat.v1.image.resize_bilinear(images, size, align_corners, half_pixel_centers)`:
/// op `ResizeBilinear`, default name `ResizeBilinear`, size const `ResizeBilinear/size`;
/// NHWC `images` (float32, float64, int8, int16, int32, int64, uint8, uint16) to float32
/// `[batch, size..., channels]`.
/// Errors: `InvalidArgument` as [`Resize`].
pub fn resize_bilinear(
    s: &Scope,
    images: &Output,
    size: [i32; 2],
    align_corners: bool,
    half_pixel_centers: bool,
) -> Result<Output> {
    resize(s, "ResizeBilinear", images, size, Corners { align_corners, half_pixel_centers })
}

/// `tf.compat.v1.image.resize_nearest_neighbor(images, size, align_corners,
/// half_pixel_centers)`: op `ResizeNearestNeighbor`, default name `ResizeNearestNeighbor`,
/// size const `ResizeNearestNeighbor/size`; the output keeps `images`' dtype. As
/// [`resize_bilinear`].
pub fn resize_nearest_neighbor(
    s: &Scope,
    images: &Output,
    size: [i32; 2],
    align_corners: bool,
    half_pixel_centers: bool,
) -> Result<Output> {
    resize(s, "ResizeNearestNeighbor", images, size, Corners { align_corners, half_pixel_centers })
}
