//! The gradient of `ExtractImagePatches`, as TensorFlow's `_ExtractImagePatchesGrad`
//! builds it: the patches of an image of pixel numbers give each patch element's source
//! pixel, and an `UnsortedSegmentSum` over them adds the incoming gradient back (padding's
//! number 0 becomes segment -1, which it drops).

use crate::error::{Error, Result};
use crate::graph::Output;
use crate::ops::array::{cast, constant, reshape_to, transpose, unsorted_segment_sum};
use crate::ops::math::sub;
use crate::ops::GradCtx;
use crate::tensor::{DType, Tensor};

/// TensorFlow's `_ExtractImagePatchesGrad` for an input with static height, width and depth
/// and an output with static height and width (the batch may be unknown); `Unimplemented`
/// otherwise. Ops: `Const` (the pixel numbers 1..H·W as float32 `[1, H, W, 1]`),
/// `ExtractImagePatches`, `Cast`, `Sub`, `Reshape`, `Transpose`, `UnsortedSegmentSum`.
pub(super) fn extract_image_patches_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let (x, y, node) = (&ctx.inputs[0], &ctx.outputs[0], ctx.node);
    let (xs, ys) = (x.shape(), y.shape());
    let dims = (xs.dim(1), xs.dim(2), xs.dim(3), ys.dim(1), ys.dim(2));
    let (Some(rows_in), Some(cols_in), Some(ch), Some(rows_out), Some(cols_out)) = dims else {
        return Err(Error::unimplemented(format!(
            "the gradient of ExtractImagePatches '{}' needs static height, width and depth (input {xs}, output {ys})",
            node.name
        )));
    };
    let ks = match node.attrs.get("ksizes") {
        Some(crate::graph::AttrValue::ListInt(k)) if k.len() == 4 => k.clone(),
        other => return Err(Error::invalid_argument(format!("ExtractImagePatches: bad ksizes {other:?}"))),
    };
    let n = rows_in * cols_in;
    let numbers = Tensor::new(&[1, rows_in, cols_in, 1], (1..=n).map(|v| v as f32).collect::<Vec<f32>>())?;
    let idx = constant(s, numbers)?;
    let mut op = s.op("ExtractImagePatches", "ExtractImagePatches").input(&idx).attr("T", DType::Float);
    for name in ["ksizes", "strides", "rates", "padding"] {
        let v = node.attrs.get(name).cloned().ok_or_else(|| Error::invalid_argument(format!("missing attr {name}")))?;
        op = op.attr(name, v);
    }
    let patched = cast(s, &op.build_output()?, DType::Int32)?;
    let one = constant(s, Tensor::scalar(1i32))?;
    let segment_ids = sub(s, &reshape_to(s, &patched, &[-1])?, &one)?;
    let (kr, kc) = (ks[1], ks[2]);
    let (ro, co, ch) = (rows_out as i64, cols_out as i64, ch as i64);
    let g = reshape_to(s, &ctx.grad(0)?, &[-1, ro, co, kr, kc, ch])?;
    let g = reshape_to(s, &transpose(s, &g, &[1, 2, 3, 4, 0, 5])?, &[ro * co * kr * kc, -1])?;
    let num = constant(s, Tensor::scalar(n as i32))?;
    let out = unsorted_segment_sum(s, &g, &segment_ids, &num)?;
    let out = reshape_to(s, &out, &[rows_in as i64, cols_in as i64, -1, ch])?;
    Ok(vec![Some(transpose(s, &out, &[2, 0, 1, 3])?)])
}
