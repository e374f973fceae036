//! Batch norms folded into the preceding convolution (TensorFlow's `fold_batch_norms` graph
//! transform, done here when a plan is built): an inference batch norm
//! `FusedBatchNorm`/`V2`/`V3(conv, scale, offset, mean, variance)` with `is_training` false,
//! NHWC, float32, constant `scale`/`offset`/`mean`/`variance`, reading a `Conv2D` or
//! `DepthwiseConv2dNative` with a constant filter (directly, or through a `BiasAdd` of a
//! constant bias, as Keras' convolutions with `use_bias` write), computes
//! `conv(x, w) * k + (b - mean) * k + offset` with `k = scale / sqrt(variance + epsilon)`.
//! So the convolution gets the filter `w * k` (per output channel; a new `Const`
//! `<conv>_bn_weights`) and the batch norm becomes a `BiasAdd` of the same name adding
//! `(b - mean) * k + offset` (a new `Const` `<conv>_bn_offset`); `k` and the products are
//! computed in float64 and rounded once. The remapper then fuses the convolution, the
//! `BiasAdd` and a following activation.
//!
//! Only when the convolution (and `BiasAdd`) have the batch norm as their one reader, no
//! control edges, and are not fetched or fed; the batch norm's other outputs (the
//! statistics) must be unread and the batch norm not fetched.

use super::work::{const_node, const_value, Consumers, Work};
use crate::error::Result;
use crate::graph::{AttrValue, Attrs, Node};
use crate::tensor::{DType, Tensor};

pub(super) fn run(w: &mut Work) -> Result<()> {
    let cons = w.consumers();
    for id in w.topo_order() {
        let bn = w.nodes[id].clone();
        if !matches!(bn.op_type, "FusedBatchNorm" | "FusedBatchNormV2" | "FusedBatchNormV3") {
            continue;
        }
        if let Some(plan) = plan_fold(w, &cons, id, &bn) {
            apply(w, id, &bn, plan)?;
        }
    }
    Ok(())
}

/// A fold found: the convolution, its filter, the bias of a `BiasAdd` between (if any),
/// the per-channel multiplier and the new bias.
struct Fold {
    conv: usize,
    filter: Tensor,
    k: Vec<f64>,
    bias: Vec<f64>,
}

/// True when `id` may be folded away: one data reader, no control edges, not fetched/fed.
fn single_reader(w: &Work, cons: &Consumers, id: usize) -> bool {
    w.may_remove(id) && cons.data[id].len() == 1 && cons.control[id].is_empty() && w.nodes[id].control_inputs.is_empty()
}

fn f32_values(t: &Tensor) -> Option<Vec<f64>> {
    (t.dtype() == DType::Float && t.rank() == 1).then(|| t.to_f64_vec().ok()).flatten()
}

fn nhwc(n: &Node) -> bool {
    match n.attrs.get("data_format") {
        None => true,
        Some(AttrValue::String(s)) => s == b"NHWC",
        _ => false,
    }
}

fn plan_fold(w: &Work, cons: &Consumers, id: usize, bn: &Node) -> Option<Fold> {
    if bn.inputs.len() != 5 || !w.may_remove(id) || !bn.control_inputs.is_empty() || !nhwc(bn) {
        return None;
    }
    if bn.attr_bool_or("is_training", true).ok()? || bn.outputs[0].0 != DType::Float {
        return None;
    }
    if (1..bn.outputs.len()).any(|p| cons.reads_of(id, p) > 0) {
        return None;
    }
    let eps = bn.attr_float_or("epsilon", 1e-4).ok()? as f64;
    let [scale, offset, mean, var] = [1, 2, 3, 4].map(|i| const_value(w, bn.inputs[i]).and_then(f32_values));
    let (scale, offset, mean, var) = (scale?, offset?, mean?, var?);
    let c = scale.len();
    if offset.len() != c || mean.len() != c || var.len() != c {
        return None;
    }
    // the producer: a convolution, or a BiasAdd of one
    let src = bn.inputs[0];
    if w.fed.contains(&src) || src.1 != 0 || !single_reader(w, cons, src.0) {
        return None;
    }
    let mut conv = src.0;
    let mut bias = vec![0.0; c];
    let p = &w.nodes[conv];
    if p.op_type == "BiasAdd" {
        if !nhwc(p) || p.inputs.len() != 2 {
            return None;
        }
        bias = const_value(w, p.inputs[1]).and_then(f32_values)?;
        let inner = p.inputs[0];
        if bias.len() != c || w.fed.contains(&inner) || inner.1 != 0 || !single_reader(w, cons, inner.0) {
            return None;
        }
        conv = inner.0;
    }
    let cn = &w.nodes[conv];
    if !matches!(cn.op_type, "Conv2D" | "DepthwiseConv2dNative") || cn.inputs.len() != 2 || !nhwc(cn) {
        return None;
    }
    let filter = const_value(w, cn.inputs[1])?.clone();
    let fs = filter.shape();
    // output channels: the last filter dimension, or in * multiplier for a depthwise one
    let out = if cn.op_type == "Conv2D" { fs.get(3).copied() } else { fs.get(2).zip(fs.get(3)).map(|(a, b)| a * b) };
    if filter.dtype() != DType::Float || fs.len() != 4 || out != Some(c) {
        return None;
    }
    let k: Vec<f64> = scale.iter().zip(&var).map(|(s, v)| s / (v + eps).sqrt()).collect();
    let bias = (0..c).map(|i| (bias[i] - mean[i]) * k[i] + offset[i]).collect();
    Some(Fold { conv, filter, k, bias })
}

fn apply(w: &mut Work, id: usize, bn: &Node, f: Fold) -> Result<()> {
    let conv = w.nodes[f.conv].clone();
    let c = f.k.len();
    let scaled: Vec<f32> =
        f.filter.as_slice::<f32>()?.iter().enumerate().map(|(i, &v)| (v as f64 * f.k[i % c]) as f32).collect();
    let filter = w.add(const_node(
        w.unique_name(&format!("{}_bn_weights", conv.name)),
        Tensor::new(f.filter.shape(), scaled)?,
        &conv.device,
    ));
    let bias: Vec<f32> = f.bias.iter().map(|&v| v as f32).collect();
    let bias =
        w.add(const_node(w.unique_name(&format!("{}_bn_offset", conv.name)), Tensor::new(&[c], bias)?, &bn.device));
    let mut new_conv = (*conv).clone();
    new_conv.inputs[1] = (filter, 0);
    w.replace(f.conv, new_conv);
    let mut attrs = Attrs::new();
    attrs.insert("T".to_string(), AttrValue::Type(DType::Float));
    attrs.insert("data_format".to_string(), AttrValue::String(b"NHWC".to_vec()));
    w.replace(
        id,
        Node {
            name: bn.name.clone(),
            op_type: "BiasAdd",
            inputs: vec![(f.conv, 0), (bias, 0)],
            control_inputs: Vec::new(),
            attrs,
            outputs: vec![bn.outputs[0].clone()],
            device: bn.device.clone(),
        },
    );
    Ok(())
}
