//! `CropAndResize` (TensorFlow's `tf.image.crop_and_resize`) and its gradient ops
//! `CropAndResizeGradImage` and `CropAndResizeGradBoxes`, as TensorFlow's CPU kernels
//! (`crop_and_resize_op.cc`): box coordinates normalized to `[0, 1]` of the image's
//! `height - 1` and `width - 1`, sample positions computed in float32, positions outside the
//! image filled with `extrapolation_value`.

use super::nhwc;
use crate::error::{Code, Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::constant;
use crate::ops::kernels::{Num, NUMBERS_AND_SMALL_INTS};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// A shape as TensorFlow's `TensorShape::DebugString` writes it in these messages: `[5,6,3]`.
fn fmt_dims(d: &[usize]) -> String {
    format!("[{}]", d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] =
    &[&CropAndResize, &CropAndResizeGradImage, &CropAndResizeGradBoxes];

/// The `method` attr: `"bilinear"` (the default) or `"nearest"`. Errors: TensorFlow's
/// `method must be 'bilinear' or 'nearest'` (`only_bilinear`: `method must be 'bilinear'`).
fn method(node: &Node, only_bilinear: bool) -> Result<bool> {
    let m = match node.attrs.get("method") {
        None => "bilinear".to_string(),
        Some(AttrValue::String(s)) => String::from_utf8_lossy(s).into_owned(),
        Some(v) => {
            return Err(Error::invalid_argument(format!(
                "attr 'method' of '{}' must be a string, got {v:?}",
                node.name
            )))
        }
    };
    match m.as_str() {
        "bilinear" => Ok(true),
        "nearest" if !only_bilinear => Ok(false),
        _ if only_bilinear => {
            Err(Error::invalid_argument(format!("method must be 'bilinear' ({} '{}')", node.op_type, node.name)))
        }
        _ => Err(Error::invalid_argument(format!(
            "method must be 'bilinear' or 'nearest' ({} '{}')",
            node.op_type, node.name
        ))),
    }
}

/// Checks `boxes` `[num_boxes, 4]` and `box_ind` `[num_boxes]` (int32 in `[0, batch)`);
/// returns the boxes and indices. Errors: TensorFlow's messages (`boxes must be 2-D`, `boxes
/// must have 4 columns`, `box_index has incompatible shape`; `OutOfRange` `box_index has
/// values outside [0, batch_size)`).
fn boxes_of<'a>(boxes: &'a Tensor, box_ind: &'a Tensor, batch: usize) -> Result<(&'a [f32], &'a [i32])> {
    if boxes.num_elements() == 0 && box_ind.num_elements() == 0 {
        return Ok((&[], &[]));
    }
    let [n, cols] = *boxes.shape() else {
        return Err(Error::invalid_argument(format!("boxes must be 2-D, got: {}", fmt_dims(boxes.shape()))));
    };
    if cols != 4 {
        return Err(Error::invalid_argument("boxes must have 4 columns"));
    }
    if box_ind.shape().len() != 1 {
        return Err(Error::invalid_argument(format!("box_index must be 1-D, got: {}", fmt_dims(box_ind.shape()))));
    }
    if box_ind.shape()[0] != n {
        return Err(Error::invalid_argument("box_index has incompatible shape"));
    }
    let (b, ind) = (boxes.as_slice::<f32>()?, box_ind.as_slice::<i32>()?);
    if ind.iter().any(|&i| i < 0 || i as usize >= batch) {
        return Err(Error::new(Code::OutOfRange, "box_index has values outside [0, batch_size)"));
    }
    Ok((b, ind))
}

/// The sample positions along one axis of `size` image pixels for a crop of `crop` from
/// normalized `lo` to `hi`: `None` outside the image (TensorFlow's float32 arithmetic).
fn positions(lo: f32, hi: f32, size: usize, crop: usize) -> Vec<Option<f32>> {
    let last = (size - 1) as f32;
    let scale = if crop > 1 { (hi - lo) * last / (crop - 1) as f32 } else { 0.0 };
    (0..crop)
        .map(|i| {
            let p = if crop > 1 { lo * last + i as f32 * scale } else { 0.5 * (lo + hi) * last };
            (0.0..=last).contains(&p).then_some(p)
        })
        .collect()
}

/// Lower index, upper index and weight of the upper of a position.
fn lerp(p: f32) -> (usize, usize, f32) {
    let (f, c) = (p.floor(), p.ceil());
    (f as usize, c as usize, p - f)
}

/// `CropAndResize(image, boxes, box_ind, crop_size)` (attrs `T`, `method`,
/// `extrapolation_value`): for each box `[y1, x1, y2, x2]` of float32 `boxes [num_boxes, 4]`,
/// the window of image `box_ind[b]` of NHWC `image` (int8, int16, int32, int64, uint8, uint16,
/// float32, float64) resampled to `crop_size` (int32 `[crop_height, crop_width]`), bilinearly
/// or nearest; output float32 `[num_boxes, crop_height, crop_width, depth]`. Errors: TensorFlow's
/// shape-function messages (`Dimension must be 4 but is 3`) and kernel messages (`boxes must
/// have 4 columns`, `crop dimensions must be positive`, `OutOfRange` `box_index has values
/// outside [0, batch_size)`). Gradients: `CropAndResizeGradImage` (float images) and
/// `CropAndResizeGradBoxes`.
pub struct CropAndResize;

fn check_rank(s: &Shape, r: usize, what: &str) -> Result<()> {
    match s.rank() {
        Some(k) if k != r => {
            Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {k} ({what} {s})")))
        }
        _ => Ok(()),
    }
}

/// The shape function's checks of boxes and box_ind (TensorFlow's `CropAndResize` shape fn):
/// returns num_boxes.
fn infer_boxes(ctx: &InferCtx, boxes: usize, ind: usize) -> Result<Option<usize>> {
    let (b, i) = (ctx.shape(boxes), ctx.shape(ind));
    check_rank(b, 2, "boxes")?;
    check_rank(i, 1, "box_ind")?;
    if let Some(c) = b.dim(1).filter(|&c| c != 4) {
        return Err(Error::invalid_argument(format!("Dimension must be 4 but is {c} (boxes {b})")));
    }
    match (b.dim(0), i.dim(0)) {
        (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {x} and {y} (boxes {b}, box_ind {i})"
        ))),
        (x, y) => Ok(x.or(y)),
    }
}

/// The two entries of a constant int32 size input `i` (else unknown).
fn const_pair(ctx: &InferCtx, i: usize) -> [Option<usize>; 2] {
    match ctx.const_input(i).and_then(|t| t.as_slice::<i32>().ok().map(|v| v.to_vec())) {
        Some(v) if v.len() == 2 && v.iter().all(|&d| d > 0) => [Some(v[0] as usize), Some(v[1] as usize)],
        _ => [None, None],
    }
}

impl RegisteredOp for CropAndResize {
    fn op_type(&self) -> &'static str {
        "CropAndResize"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        ctx.check_dtype(1, &[DType::Float])?;
        ctx.check_dtype(2, &[DType::Int32])?;
        ctx.check_dtype(3, &[DType::Int32])?;
        let img = ctx.shape(0);
        check_rank(img, 4, "image")?;
        let n = infer_boxes(ctx, 1, 2)?;
        check_rank(ctx.shape(3), 1, "crop_size")?;
        let [h, w] = const_pair(ctx, 3);
        Ok(vec![(DType::Float, Shape::partial(&[n, h, w, img.dim(3)]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let bilinear = method(node, false)?;
        let ext = node.attr_float_or("extrapolation_value", 0.0)?;
        let f = crate::dispatch_numeric!(node.attr_type("T")?, "CropAndResize", small_ints, T => crop::<T> as CropFn);
        Ok(Box::new(CropKernel { bilinear, ext, f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let (image, boxes, ind) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2]);
        let method = ctx.node.attrs.get("method").cloned().unwrap_or_else(|| AttrValue::String(b"bilinear".to_vec()));
        let t = image.dtype();
        let grad_image = if matches!(t, DType::Float | DType::Double | DType::Half) {
            // TensorFlow passes the image's static shape as a constant when fully known
            let size = match image.shape().to_vec() {
                Some(d) => constant(s, Tensor::vector(d.iter().map(|&x| x as i32).collect::<Vec<_>>()))?,
                None => crate::ops::array::shape(s, image)?,
            };
            Some(
                s.op("CropAndResizeGradImage", "CropAndResizeGradImage")
                    .input(&g)
                    .input(boxes)
                    .input(ind)
                    .input(&size)
                    .attr("T", t)
                    .attr("method", method)
                    .build_output()?,
            )
        } else {
            None
        };
        let grad_boxes = s
            .op("CropAndResizeGradBoxes", "CropAndResizeGradBoxes")
            .input(&g)
            .input(image)
            .input(boxes)
            .input(ind)
            .attr("T", t)
            .attr("method", "bilinear")
            .build_output()?;
        Ok(vec![grad_image, Some(grad_boxes), None, None])
    }
}

type CropFn = fn(&Tensor, &[f32], &[i32], (usize, usize), bool, f32) -> Result<Tensor>;

/// A prepared `CropAndResize`: method, extrapolation value and typed kernel.
struct CropKernel {
    bilinear: bool,
    ext: f32,
    f: CropFn,
}

impl Kernel for CropKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let image = ctx.input(0);
        if image.shape().len() != 4 {
            return Err(Error::invalid_argument(format!("input image must be 4-D{}", fmt_dims(image.shape()))));
        }
        let [batch, h, w, _] = nhwc(image, "image")?;
        if h == 0 || w == 0 {
            return Err(Error::invalid_argument("image dimensions must be positive"));
        }
        let size = ctx.input(3);
        if size.shape().len() != 1 {
            return Err(Error::invalid_argument(format!("crop_size must be 1-D{}", fmt_dims(size.shape()))));
        }
        let cs = size.as_slice::<i32>()?;
        if cs.len() != 2 {
            return Err(Error::invalid_argument(format!("crop_size must have two elements{}", fmt_dims(size.shape()))));
        }
        if cs[0] <= 0 || cs[1] <= 0 {
            return Err(Error::invalid_argument("crop dimensions must be positive"));
        }
        let (boxes, ind) = boxes_of(ctx.input(1), ctx.input(2), batch)?;
        Ok(vec![(self.f)(image, boxes, ind, (cs[0] as usize, cs[1] as usize), self.bilinear, self.ext)?])
    }
}

fn crop<T: Num>(
    image: &Tensor,
    boxes: &[f32],
    ind: &[i32],
    (ch, cw): (usize, usize),
    bilinear: bool,
    ext: f32,
) -> Result<Tensor> {
    let [_, h, w, d] = nhwc(image, "image")?;
    let v = image.as_slice::<T>()?;
    let at = |b: usize, y: usize, x: usize, k: usize| v[((b * h + y) * w + x) * d + k].to_f64() as f32;
    let mut out = Vec::with_capacity(ind.len() * ch * cw * d);
    for (bx, &bi) in boxes.chunks(4).zip(ind) {
        let b = bi as usize;
        let (ys, xs) = (positions(bx[0], bx[2], h, ch), positions(bx[1], bx[3], w, cw));
        for y in &ys {
            for x in &xs {
                let (Some(y), Some(x)) = (y, x) else {
                    out.extend(std::iter::repeat_n(ext, d));
                    continue;
                };
                if bilinear {
                    let ((y0, y1, dy), (x0, x1, dx)) = (lerp(*y), lerp(*x));
                    for k in 0..d {
                        let (tl, tr, bl, br) = (at(b, y0, x0, k), at(b, y0, x1, k), at(b, y1, x0, k), at(b, y1, x1, k));
                        let top = tl + (tr - tl) * dx;
                        let bottom = bl + (br - bl) * dx;
                        out.push(top + (bottom - top) * dy);
                    }
                } else {
                    let (yi, xi) = (y.round() as usize, x.round() as usize);
                    out.extend((0..d).map(|k| at(b, yi, xi, k)));
                }
            }
        }
    }
    Tensor::new(&[ind.len(), ch, cw, d], out)
}

/// `CropAndResizeGradImage(grads, boxes, box_ind, image_size)` (attrs `T`: float32, float64;
/// `method`): the gradient of [`CropAndResize`] with respect to the image: each element of
/// float32 `grads [num_boxes, crop_height, crop_width, depth]` added to the pixels it was
/// sampled from, with the bilinear weights (or to the nearest pixel); output `T` of
/// `image_size` (int32 `[batch, height, width, depth]`). Errors: as [`CropAndResize`];
/// `image_size must be 1-D with 4 elements`. No gradient.
pub struct CropAndResizeGradImage;

impl RegisteredOp for CropAndResizeGradImage {
    fn op_type(&self) -> &'static str {
        "CropAndResizeGradImage"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_dtype(0, &[DType::Float])?;
        check_rank(ctx.shape(0), 4, "grads")?;
        infer_boxes(ctx, 1, 2)?;
        let t = ctx.node.attr_type("T")?;
        let shape = match ctx.const_input(3).and_then(|t| t.as_slice::<i32>().ok().map(|v| v.to_vec())) {
            Some(v) if v.len() == 4 && v.iter().all(|&d| d >= 0) => {
                Shape::known(&v.iter().map(|&d| d as usize).collect::<Vec<_>>())
            }
            _ => Shape::partial(&[None; 4]),
        };
        Ok(vec![(t, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let bilinear = method(node, false)?;
        let f =
            crate::dispatch_float!(node.attr_type("T")?, "CropAndResizeGradImage", T => grad_image::<T> as GradImageFn);
        Ok(Box::new(GradImageKernel { bilinear, f }))
    }
}

type GradImageFn = fn(&Tensor, &[f32], &[i32], [usize; 4], bool) -> Result<Tensor>;

/// A prepared `CropAndResizeGradImage`.
struct GradImageKernel {
    bilinear: bool,
    f: GradImageFn,
}

/// `[num_boxes, crop_height, crop_width, depth]` of `grads`, checked against the boxes.
fn grads_dims(grads: &Tensor, num_boxes: usize, depth: Option<usize>) -> Result<[usize; 4]> {
    let [n, ch, cw, d] = match *grads.shape() {
        [a, b, c, e] => [a, b, c, e],
        _ => return Err(Error::invalid_argument(format!("grads image must be 4-D{}", fmt_dims(grads.shape())))),
    };
    if ch == 0 || cw == 0 {
        return Err(Error::invalid_argument("grads dimensions must be positive"));
    }
    if n != num_boxes {
        return Err(Error::invalid_argument("boxes and grads have incompatible shape"));
    }
    if depth.is_some_and(|x| x != d) {
        return Err(Error::invalid_argument("image_size and grads are incompatible"));
    }
    Ok([n, ch, cw, d])
}

impl Kernel for GradImageKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let size = ctx.input(3);
        let sv = size.as_slice::<i32>()?;
        if size.shape().len() != 1 || sv.len() != 4 {
            return Err(Error::invalid_argument(format!(
                "image_size must be 1-D with 4 elements{}",
                fmt_dims(size.shape())
            )));
        }
        if sv[1] <= 0 || sv[2] <= 0 {
            return Err(Error::invalid_argument("image dimensions must be positive"));
        }
        if sv[0] < 0 || sv[3] < 0 {
            return Err(Error::invalid_argument("image_size must not be negative"));
        }
        let dims = [sv[0] as usize, sv[1] as usize, sv[2] as usize, sv[3] as usize];
        let (boxes, ind) = boxes_of(ctx.input(1), ctx.input(2), dims[0])?;
        grads_dims(ctx.input(0), ind.len(), Some(dims[3]))?;
        Ok(vec![(self.f)(ctx.input(0), boxes, ind, dims, self.bilinear)?])
    }
}

fn grad_image<T: Num>(
    grads: &Tensor,
    boxes: &[f32],
    ind: &[i32],
    [batch, h, w, d]: [usize; 4],
    bilinear: bool,
) -> Result<Tensor> {
    let [_, ch, cw, _] = grads_dims(grads, ind.len(), Some(d))?;
    let g = grads.as_slice::<f32>()?;
    let mut out = vec![T::ZERO; batch * h * w * d];
    let mut i = 0;
    for (bx, &bi) in boxes.chunks(4).zip(ind) {
        let b = bi as usize;
        let (ys, xs) = (positions(bx[0], bx[2], h, ch), positions(bx[1], bx[3], w, cw));
        for y in &ys {
            for x in &xs {
                let (Some(y), Some(x)) = (y, x) else {
                    i += d;
                    continue;
                };
                let mut add = |yy: usize, xx: usize, k: usize, v: f32| {
                    out[((b * h + yy) * w + xx) * d + k] += T::from_f64(v as f64)
                };
                if bilinear {
                    let ((y0, y1, dy), (x0, x1, dx)) = (lerp(*y), lerp(*x));
                    for k in 0..d {
                        let (top, bottom) = ((1.0 - dy) * g[i], dy * g[i]);
                        add(y0, x0, k, (1.0 - dx) * top);
                        add(y0, x1, k, dx * top);
                        add(y1, x0, k, (1.0 - dx) * bottom);
                        add(y1, x1, k, dx * bottom);
                        i += 1;
                    }
                } else {
                    let (yi, xi) = (y.round() as usize, x.round() as usize);
                    for k in 0..d {
                        add(yi, xi, k, g[i]);
                        i += 1;
                    }
                }
            }
        }
    }
    Tensor::new(&[batch, h, w, d], out)
}

/// `CropAndResizeGradBoxes(grads, image, boxes, box_ind)` (attrs `T`: the image's dtype, as
/// [`CropAndResize`]; `method`: `"bilinear"` only): the gradient of bilinear [`CropAndResize`]
/// with respect to the box coordinates; output float32 `[num_boxes, 4]`. TensorFlow uses it
/// for the nearest method too. Errors: as [`CropAndResize`]. No gradient.
pub struct CropAndResizeGradBoxes;

impl RegisteredOp for CropAndResizeGradBoxes {
    fn op_type(&self) -> &'static str {
        "CropAndResizeGradBoxes"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_dtype(0, &[DType::Float])?;
        ctx.check_dtype(1, NUMBERS_AND_SMALL_INTS)?;
        check_rank(ctx.shape(0), 4, "grads")?;
        check_rank(ctx.shape(1), 4, "image")?;
        let n = infer_boxes(ctx, 2, 3)?;
        Ok(vec![(DType::Float, Shape::partial(&[n, Some(4)]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        method(node, true)?;
        let f = crate::dispatch_numeric!(node.attr_type("T")?, "CropAndResizeGradBoxes", small_ints, T => grad_boxes::<T> as GradBoxesFn);
        Ok(Box::new(GradBoxesKernel(f)))
    }
}

type GradBoxesFn = fn(&Tensor, &Tensor, &[f32], &[i32]) -> Result<Tensor>;

/// A prepared `CropAndResizeGradBoxes`.
struct GradBoxesKernel(GradBoxesFn);

impl Kernel for GradBoxesKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let image = ctx.input(1);
        if image.shape().len() != 4 {
            return Err(Error::invalid_argument(format!("input image must be 4-D{}", fmt_dims(image.shape()))));
        }
        let [batch, h, w, d] = nhwc(image, "image")?;
        if h == 0 || w == 0 {
            return Err(Error::invalid_argument("image dimensions must be positive"));
        }
        let (boxes, ind) = boxes_of(ctx.input(2), ctx.input(3), batch)?;
        grads_dims(ctx.input(0), ind.len(), Some(d))?;
        Ok(vec![(self.0)(ctx.input(0), image, boxes, ind)?])
    }
}

fn grad_boxes<T: Num>(grads: &Tensor, image: &Tensor, boxes: &[f32], ind: &[i32]) -> Result<Tensor> {
    let [_, h, w, d] = nhwc(image, "image")?;
    let [_, ch, cw, _] = nhwc(grads, "grads")?;
    let (g, v) = (grads.as_slice::<f32>()?, image.as_slice::<T>()?);
    let at = |b: usize, y: usize, x: usize, k: usize| v[((b * h + y) * w + x) * d + k].to_f64() as f32;
    let mut out = vec![0f32; ind.len() * 4];
    let (hl, wl) = ((h - 1) as f32, (w - 1) as f32);
    let hr = if ch > 1 { hl / (ch - 1) as f32 } else { 0.0 };
    let wr = if cw > 1 { wl / (cw - 1) as f32 } else { 0.0 };
    for (n, (bx, &bi)) in boxes.chunks(4).zip(ind).enumerate() {
        let b = bi as usize;
        let (ys, xs) = (positions(bx[0], bx[2], h, ch), positions(bx[1], bx[3], w, cw));
        let o = &mut out[n * 4..n * 4 + 4];
        for (yi, y) in ys.iter().enumerate() {
            let Some(y) = y else { continue };
            let (y0, y1, dy) = lerp(*y);
            for (xi, x) in xs.iter().enumerate() {
                let Some(x) = x else { continue };
                let (x0, x1, dx) = lerp(*x);
                for k in 0..d {
                    let (tl, tr, bl, br) = (at(b, y0, x0, k), at(b, y0, x1, k), at(b, y1, x0, k), at(b, y1, x1, k));
                    let top = g[((n * ch + yi) * cw + xi) * d + k];
                    let gy = ((1.0 - dx) * (bl - tl) + dx * (br - tr)) * top;
                    let gx = ((1.0 - dy) * (tr - tl) + dy * (br - bl)) * top;
                    if ch > 1 {
                        o[0] += gy * (hl - yi as f32 * hr);
                        o[2] += gy * (yi as f32 * hr);
                    } else {
                        o[0] += gy * 0.5 * hl;
                        o[2] += gy * 0.5 * hl;
                    }
                    if cw > 1 {
                        o[1] += gx * (wl - xi as f32 * wr);
                        o[3] += gx * (xi as f32 * wr);
                    } else {
                        o[1] += gx * 0.5 * wl;
                        o[3] += gx * 0.5 * wl;
                    }
                }
            }
        }
    }
    Tensor::new(&[ind.len(), 4], out)
}

/// `tf.image.crop_and_resize(image, boxes, box_indices, crop_size, method,
/// extrapolation_value)`: op `CropAndResize`, default name `CropAndResize`, crop size const
/// `CropAndResize/crop_size`. See [`CropAndResize`] for shapes, dtypes and errors.
pub fn crop_and_resize(
    s: &Scope,
    image: &Output,
    boxes: &Output,
    box_indices: &Output,
    crop_size: [i32; 2],
    method: &str,
    extrapolation_value: f32,
) -> Result<Output> {
    let (op, inner) = s.op_scope("CropAndResize");
    let size = constant(&inner.named("crop_size"), Tensor::vector(crop_size.to_vec()))?;
    op.op("CropAndResize", "CropAndResize")
        .input(image)
        .input(boxes)
        .input(box_indices)
        .input(&size)
        .attr("T", image.dtype())
        .attr("method", method)
        .attr("extrapolation_value", extrapolation_value)
        .build_output()
}
