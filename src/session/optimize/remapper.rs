//! Op fusion (TensorFlow Grappler's remapper): `Conv2D` + `BiasAdd` or an inference
//! `FusedBatchNorm`/`V2`/`V3` (+ `Relu`, `Relu6`, `Elu` or `LeakyRelu`) becomes one
//! `_FusedConv2D`, `DepthwiseConv2dNative` + the same one `_FusedDepthwiseConv2dNative`, and
//! `MatMul` + `BiasAdd` (+ the same activations) one `_FusedMatMul`, with TensorFlow's
//! attrs: the convolution's or product's own, `fused_ops` (`["BiasAdd"]`,
//! `["FusedBatchNorm", "Relu"]`, ...), `num_args` (1 for the bias, 4 for the batch norm's
//! scale, offset, mean and variance), `epsilon` (the batch norm's), `leakyrelu_alpha`. A
//! convolution + `BiasAdd` + batch norm (Keras' `Conv2D(use_bias=True)` before
//! `BatchNormalization`, as in ResNet50) becomes one fused convolution with `fused_ops`
//! `["BiasAdd", "FusedBatchNorm", ...]` and 5 arguments, tensorgraph's own extension (the
//! optimised graph is internal to a session; TensorFlow fuses only the bias there). The
//! fused node takes the name (and id) of the last op of the pattern, so its readers and a
//! fetch of it are unchanged; its kernel applies the bias or normalisation and the
//! activation as it writes its output, with the same arithmetic as the separate ops, so the
//! values are bitwise theirs (which is why this pass runs by default, unlike
//! [`super::batch_norm_folding`]).
//!
//! Only when each op before the last has that op as its one reader, no control edges, and
//! is neither fetched nor fed (a batch norm that ends the pattern also has only its `y`
//! read); float32 or float64, NHWC.

use super::work::{Consumers, Work};
use crate::error::Result;
use crate::graph::{AttrValue, Node};
use crate::tensor::DType;

const ACTIVATIONS: [&str; 4] = ["Relu", "Relu6", "Elu", "LeakyRelu"];
const BATCH_NORMS: [&str; 3] = ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"];

pub(super) fn run(w: &mut Work) -> Result<()> {
    let cons = w.consumers();
    let order = w.topo_order();
    let mut used = vec![false; w.nodes.len()];
    // activations first, then batch norms, then biases, so that the longest pattern wins
    for pass in 0..3 {
        for &id in &order {
            let n = w.nodes[id].clone();
            let fits = match pass {
                0 => ACTIVATIONS.contains(&n.op_type),
                1 => is_middle(&n) && n.op_type != "BiasAdd",
                _ => n.op_type == "BiasAdd" && is_middle(&n),
            };
            if !fits || used[id] || w.is_fed(id) || !n.control_inputs.is_empty() {
                continue;
            }
            let (middle, act) = if pass == 0 {
                let Some(&src) = n.inputs.first() else { continue };
                if n.inputs.len() != 1 || src.1 != 0 || !inner_ok(w, &cons, src) || !is_middle(&w.nodes[src.0]) {
                    continue;
                }
                (src.0, Some(&n))
            } else {
                (id, None)
            };
            let m = w.nodes[middle].clone();
            let batch_norm = m.op_type != "BiasAdd";
            // a batch norm that ends the pattern: only its `y` may be read, and it is not
            // fetched (its other outputs disappear)
            if batch_norm
                && act.is_none()
                && (w.preserve.contains(&middle) || cons.data[middle].iter().any(|c| c.2 != 0))
            {
                continue;
            }
            if used[middle] || !nhwc(&m) {
                continue;
            }
            let mut src = m.inputs[0];
            if src.1 != 0 || !inner_ok(w, &cons, src) || used[src.0] {
                continue;
            }
            // a batch norm after a convolution's BiasAdd takes the bias too
            let bias = if batch_norm { bias_before(w, &cons, &used, src) } else { None };
            if let Some(b) = bias {
                src = w.nodes[b].inputs[0];
            }
            let base = w.nodes[src.0].clone();
            let fused_type = match base.op_type {
                "Conv2D" if nhwc(&base) => "_FusedConv2D",
                "DepthwiseConv2dNative" if nhwc(&base) => "_FusedDepthwiseConv2dNative",
                "MatMul" if !batch_norm && bias.is_none() => "_FusedMatMul",
                _ => continue,
            };
            if !matches!(base.outputs[0].0, DType::Float | DType::Double) || base.inputs.len() != 2 {
                continue;
            }
            let mut attrs = base.attrs.clone();
            attrs.retain(|k, _| !matches!(k.as_str(), "grad_a" | "grad_b"));
            let mut fused_ops = vec![if batch_norm { b"FusedBatchNorm".to_vec() } else { b"BiasAdd".to_vec() }];
            let mut args = m.inputs[1..].to_vec();
            if let Some(b) = bias {
                fused_ops.insert(0, b"BiasAdd".to_vec());
                args.insert(0, w.nodes[b].inputs[1]);
            }
            let mut alpha = 0.2f32;
            if let Some(a) = act {
                fused_ops.push(a.op_type.as_bytes().to_vec());
                if a.op_type == "LeakyRelu" {
                    alpha = a.attr_float_or("alpha", 0.2)?;
                }
            }
            let epsilon = if batch_norm { m.attr_float_or("epsilon", 1e-4)? } else { 1e-4 };
            attrs.insert("fused_ops".to_string(), AttrValue::ListString(fused_ops));
            attrs.insert("num_args".to_string(), AttrValue::Int(args.len() as i64));
            attrs.insert("epsilon".to_string(), AttrValue::Float(epsilon));
            attrs.insert("leakyrelu_alpha".to_string(), AttrValue::Float(alpha));
            let root = act.unwrap_or(&m);
            let fused = Node {
                name: root.name.clone(),
                op_type: fused_type,
                inputs: [&base.inputs[..], &args[..]].concat(),
                control_inputs: base.control_inputs.clone(),
                attrs,
                outputs: vec![root.outputs[0].clone()],
                device: base.device.clone(),
            };
            for x in [id, middle, src.0].into_iter().chain(bias) {
                used[x] = true;
            }
            w.replace(id, fused);
        }
    }
    Ok(())
}

/// True for the op a fusion takes between the product and the activation: a `BiasAdd`
/// with two inputs, or an inference batch norm (`is_training` false, `exponential_avg_factor`
/// 1) of five inputs whose statistics have the input's dtype.
fn is_middle(n: &Node) -> bool {
    match n.op_type {
        "BiasAdd" => n.inputs.len() == 2,
        t if BATCH_NORMS.contains(&t) => {
            n.inputs.len() == 5
                && !n.attr_bool_or("is_training", true).unwrap_or(true)
                && n.attr_float_or("exponential_avg_factor", 1.0).is_ok_and(|f| f == 1.0)
                && n.attrs.get("U").is_none_or(|u| Some(u) == n.attrs.get("T"))
        }
        _ => false,
    }
}

/// The `BiasAdd` node whose output `src` is, when it may fuse with the batch norm that
/// reads it: two inputs, NHWC, not yet fused, and reading output 0 of a `Conv2D` or
/// `DepthwiseConv2dNative` that may disappear into the fusion.
fn bias_before(w: &Work, cons: &Consumers, used: &[bool], src: (usize, usize)) -> Option<usize> {
    let b = &w.nodes[src.0];
    if b.op_type != "BiasAdd" || b.inputs.len() != 2 || !nhwc(b) || used[src.0] {
        return None;
    }
    let conv = b.inputs[0];
    let ok = conv.1 == 0
        && !used[conv.0]
        && inner_ok(w, cons, conv)
        && matches!(w.nodes[conv.0].op_type, "Conv2D" | "DepthwiseConv2dNative");
    ok.then_some(src.0)
}

/// True when output `src` may disappear into a fusion: its node has this one reader, no
/// control edges, and is neither fetched nor fed.
fn inner_ok(w: &Work, cons: &Consumers, src: (usize, usize)) -> bool {
    w.may_remove(src.0)
        && !w.fed.contains(&src)
        && cons.data[src.0].len() == 1
        && cons.control[src.0].is_empty()
        && w.nodes[src.0].control_inputs.is_empty()
}

fn nhwc(n: &Node) -> bool {
    match n.attrs.get("data_format") {
        None => true,
        Some(AttrValue::String(s)) => s == b"NHWC",
        _ => false,
    }
}
