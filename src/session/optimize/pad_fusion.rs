//! Zero padding fused into the convolution that reads it: `Pad(x, paddings)` with constant
//! `paddings` of the form `[[0, 0], [top, bottom], [left, right], [0, 0]]`, read only by a
//! `Conv2D` or `DepthwiseConv2dNative` (NHWC, `VALID` or `EXPLICIT` padding), becomes that
//! convolution reading `x` with `padding = "EXPLICIT"` and those counts added to its
//! `explicit_paddings` (TensorFlow's attrs). Keras writes this pattern for every strided
//! convolution it pads by hand (`ZeroPadding2D` before MobileNetV2's depthwise
//! convolutions and ResNet50's first one), and the padded copy of the activation was a
//! tenth of MobileNetV2's time. TensorFlow's CPU Grappler keeps the `Pad`.
//!
//! The convolution then reads the zeros it would have read from the copy: `Conv2D` writes
//! them into its patch matrix, so its values are bitwise the same; the depthwise
//! convolution skips the taps in the padding instead of adding `0 * w`, the same values for
//! every finite filter. Part of the `remapping` toggle, as the other fusions.

use super::work::{const_value, Consumers, Work};
use crate::error::Result;
use crate::graph::{AttrValue, Node};

pub(super) fn run(w: &mut Work) -> Result<()> {
    let cons = w.consumers();
    for id in w.needed_ids() {
        let conv = w.nodes[id].clone();
        if !matches!(conv.op_type, "Conv2D" | "DepthwiseConv2dNative") || !nhwc(&conv) {
            continue;
        }
        let Some(&src) = conv.inputs.first() else { continue };
        let Some(pads) = fusable_pad(w, &cons, src) else { continue };
        let Some(attrs) = with_padding(&conv, pads) else { continue };
        let x = w.nodes[src.0].inputs[0];
        let mut inputs = conv.inputs.clone();
        inputs[0] = x;
        w.replace(id, Node { inputs, attrs, ..(*conv).clone() });
    }
    Ok(())
}

/// The `[top, bottom, left, right]` of the `Pad` whose output `src` is, when it may
/// disappear into its one reader: output 0 of a `Pad` (zeros: not `PadV2` or `MirrorPad`)
/// with constant `[4, 2]` paddings that pad only the height and width, no control edges,
/// neither fetched nor fed, read once.
fn fusable_pad(w: &Work, cons: &Consumers, src: (usize, usize)) -> Option<[i64; 4]> {
    let pad = &w.nodes[src.0];
    let alone = src.1 == 0
        && pad.op_type == "Pad"
        && pad.inputs.len() == 2
        && pad.control_inputs.is_empty()
        && w.may_remove(src.0)
        && cons.data[src.0].len() == 1
        && cons.control[src.0].is_empty();
    if !alone {
        return None;
    }
    let paddings = const_value(w, pad.inputs[1])?;
    if paddings.shape() != [4, 2] {
        return None;
    }
    let v = paddings.to_f64_vec().ok()?;
    let ok = v[0] == 0.0 && v[1] == 0.0 && v[6] == 0.0 && v[7] == 0.0 && v[2..6].iter().all(|&p| p >= 0.0);
    ok.then(|| [v[2] as i64, v[3] as i64, v[4] as i64, v[5] as i64])
}

/// `conv`'s attrs with `pads` added to its padding: `VALID` becomes `EXPLICIT` with
/// `[0, 0, top, bottom, left, right, 0, 0]`; an `EXPLICIT` padding adds them. `None` for
/// `SAME` (its padding depends on the input's size) or unreadable attrs.
fn with_padding(conv: &Node, pads: [i64; 4]) -> Option<crate::graph::Attrs> {
    let mut explicit = match conv.attrs.get("padding") {
        Some(AttrValue::String(p)) if p == b"VALID" => vec![0; 8],
        Some(AttrValue::String(p)) if p == b"EXPLICIT" => match conv.attrs.get("explicit_paddings") {
            Some(AttrValue::ListInt(e)) if e.len() == 8 => e.clone(),
            _ => return None,
        },
        _ => return None,
    };
    for (e, p) in explicit[2..6].iter_mut().zip(pads) {
        *e += p;
    }
    let mut attrs = conv.attrs.clone();
    attrs.insert("padding".to_string(), AttrValue::String(b"EXPLICIT".to_vec()));
    attrs.insert("explicit_paddings".to_string(), AttrValue::ListInt(explicit));
    Some(attrs)
}

fn nhwc(n: &Node) -> bool {
    match n.attrs.get("data_format") {
        None => true,
        Some(AttrValue::String(s)) => s == b"NHWC",
        _ => false,
    }
}
