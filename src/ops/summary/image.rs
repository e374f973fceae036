//! `ImageSummary`: up to `max_images` images of a `[batch, height, width, channels]` tensor
//! as PNG (through the `png` crate), with TensorFlow's scaling of float images into `uint8`
//! and its `bad_color` for pixels with a non-finite channel.

use super::{collect, dims_text, scalar_string, summary_scope, summary_tensor};
use crate::error::{Error, Result};
use crate::format::proto::{Image, Summary, SummaryKind, SummaryValue};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::constant;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&ImageSummary];

/// PNG bytes of an 8-bit image of `channels` (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA),
/// rows top to bottom. Errors: `Internal` if the encoder fails (it does not for valid sizes).
pub fn encode_png(pixels: &[u8], height: usize, width: usize, channels: usize) -> Result<Vec<u8>> {
    let color = match channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    };
    let mut out = Vec::new();
    let fail = |e: png::EncodingError| Error::internal(format!("PNG encoding of a {height}x{width} image failed: {e}"));
    let mut enc = png::Encoder::new(&mut out, width as u32, height as u32);
    enc.set_color(color);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(fail)?;
    w.write_image_data(pixels).map_err(fail)?;
    w.finish().map_err(fail)?;
    Ok(out)
}

/// One image's pixels (`h*w` pixels of `depth` channels) scaled into `uint8` as
/// TensorFlow's `NormalizeFloatImage`: over the pixels whose channels are all finite, when
/// the smallest value is negative, `v * 127 / max|v| + 128`, otherwise `v * 255 / max`
/// (a scale of 0 when that maximum is below 1e-6), truncated; a pixel with a non-finite
/// channel becomes `bad_color`.
fn normalize(values: &[f64], depth: usize, bad_color: &[u8]) -> Vec<u8> {
    let finite = |p: &[f64]| p.iter().all(|v| v.is_finite());
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in values.chunks(depth).filter(|p| finite(p)) {
        for &v in p {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    const ZERO: f64 = 1e-6;
    let (scale, offset) = if lo < 0.0 {
        let m = lo.abs().max(hi.abs());
        (if m < ZERO { 0.0 } else { 127.0 / m }, 128.0)
    } else {
        (if hi < ZERO { 0.0 } else { 255.0 / hi }, 0.0)
    };
    let mut out = Vec::with_capacity(values.len());
    for p in values.chunks(depth) {
        if finite(p) {
            out.extend(p.iter().map(|&v| (v * scale + offset) as u8));
        } else {
            out.extend_from_slice(&bad_color[..depth]);
        }
    }
    out
}

/// `ImageSummary(tag, tensor)` (attrs `T` in uint8/float32/float16/float64, default float32;
/// `max_images` ≥ 1, default 3; `bad_color`, a uint8 tensor, default `[255, 0, 0, 255]`): a
/// `Summary` with one PNG image per batch entry, up to `max_images`, tagged `TAG/image/i`
/// (`TAG/image` when `max_images` is 1). `uint8` images are written as they are; float
/// images are scaled into 0–255 per image (see TensorFlow's `tf.summary.image`). Errors
/// when run: `InvalidArgument` `Tensor must be 4-D with last dim 1, 3, or 4, not [1,1,1,2]`,
/// an image of height or width 0 (`input tensor must have non-zero dims`), a non-scalar tag, a `bad_color` with fewer values than channels.
pub struct ImageSummary;
impl RegisteredOp for ImageSummary {
    fn op_type(&self) -> &'static str {
        "ImageSummary"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::String])?;
        ctx.check_dtype(1, &[DType::UInt8, DType::Float, DType::Half, DType::Double])?;
        ctx.check_type_attr("T", 1)?;
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let max_images = node.attr_int_or("max_images", 3)?;
        if max_images < 1 {
            return Err(Error::invalid_argument(format!(
                "attr 'max_images' of ImageSummary '{}' is {max_images}; it must be at least 1",
                node.name
            )));
        }
        let bad_color = match node.attrs.get("bad_color") {
            None => vec![255, 0, 0, 255],
            Some(AttrValue::Tensor(t)) if t.dtype() == DType::UInt8 && t.rank() == 1 => t.to_vec::<u8>()?,
            Some(v) => {
                return Err(Error::invalid_argument(format!(
                    "attr 'bad_color' of ImageSummary '{}' must be a uint8 vector, got {v:?}",
                    node.name
                )))
            }
        };
        Ok(Box::new(ImageKernel { max_images: max_images as usize, bad_color }))
    }
}

/// The prepared `ImageSummary`.
struct ImageKernel {
    max_images: usize,
    bad_color: Vec<u8>,
}

impl Kernel for ImageKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let tag = String::from_utf8_lossy(scalar_string(ctx, 0, "tag")?).into_owned();
        let t = ctx.input(1);
        let d = t.shape();
        if d.len() != 4 || ![1, 3, 4].contains(&d[3]) {
            return Err(Error::invalid_argument(format!(
                "Tensor must be 4-D with last dim 1, 3, or 4, not {}",
                dims_text(d)
            )));
        }
        let (batch, h, w, depth) = (d[0], d[1], d[2], d[3]);
        if h * w == 0 {
            return Err(Error::invalid_argument(format!(
                "input tensor must have non-zero dims. Found: [{batch}, {h}, {w}, {depth}]."
            )));
        }
        if self.bad_color.len() < depth {
            return Err(Error::invalid_argument(format!(
                "expected depth <= bad_color.size, got depth = {depth}, bad_color.size = {}",
                self.bad_color.len()
            )));
        }
        let per_image = h * w * depth;
        let mut value = Vec::new();
        for i in 0..batch.min(self.max_images) {
            let pixels = if t.dtype() == DType::UInt8 {
                t.as_slice::<u8>()?[i * per_image..(i + 1) * per_image].to_vec()
            } else {
                let image = Tensor::from_storage(
                    &[per_image],
                    t.storage().gather(&(i * per_image..(i + 1) * per_image).collect::<Vec<_>>()),
                )?;
                normalize(&image.to_f64_vec()?, depth, &self.bad_color)
            };
            let image = Image {
                height: h as i32,
                width: w as i32,
                colorspace: depth as i32,
                encoded_image_string: encode_png(&pixels, h, w, depth)?,
            };
            let tag = if self.max_images > 1 { format!("{tag}/image/{i}") } else { format!("{tag}/image") };
            value.push(SummaryValue { tag, value: Some(SummaryKind::Image(image)), ..Default::default() });
        }
        Ok(vec![summary_tensor(&Summary { value })])
    }
}

/// `tf.compat.v1.summary.image(name, tensor, max_outputs)`: op `ImageSummary` named `name`
/// (cleaned, uniquified; attr `max_images` = `max_outputs`) with the constant `name/tag`,
/// added to the `summaries` collection. `tensor`: `[batch, height, width, 1|3|4]` of uint8,
/// float16, float32 or float64.
pub fn image(s: &Scope, name: &str, tensor: &Output, max_outputs: i64) -> Result<Output> {
    let (op, inner, tag) = summary_scope(s, name);
    let tag = constant(&inner.named("tag"), Tensor::strings(&[], vec![tag.into_bytes()])?)?;
    let out = op
        .op("ImageSummary", "ImageSummary")
        .input(&tag)
        .input(tensor)
        .attr("T", tensor.dtype())
        .attr("max_images", max_outputs)
        .build_output()?;
    collect(out)
}
