//! Op fusion (TensorFlow Grappler's remapper): `Conv2D` + `BiasAdd` (+ `Relu`, `Relu6`,
//! `Elu` or `LeakyRelu`) becomes one `_FusedConv2D`, `DepthwiseConv2dNative` + `BiasAdd`
//! (+ the same activations) one `_FusedDepthwiseConv2dNative`, and `MatMul` + `BiasAdd`
//! (+ the same activations) one `_FusedMatMul`, with TensorFlow's attrs: the convolution's or product's
//! own, `fused_ops` (`["BiasAdd"]` or `["BiasAdd", "Relu"]`, ...), `num_args` 1, `epsilon`,
//! `leakyrelu_alpha`. The fused node takes the name (and id) of the last op of the pattern,
//! so its readers and a fetch of it are unchanged; its kernel adds the bias and applies the
//! activation as the matrix product writes its output.
//!
//! Only when each op before the last has that op as its one reader, no control edges, and
//! is neither fetched nor fed; float32 or float64, NHWC.

use super::work::{Consumers, Work};
use crate::error::Result;
use crate::graph::{AttrValue, Node};
use crate::tensor::DType;

const ACTIVATIONS: [&str; 4] = ["Relu", "Relu6", "Elu", "LeakyRelu"];

pub(super) fn run(w: &mut Work) -> Result<()> {
    let cons = w.consumers();
    let order = w.topo_order();
    let mut used = vec![false; w.nodes.len()];
    // activations first, so that the longest pattern wins
    for pass in 0..2 {
        for &id in &order {
            let n = w.nodes[id].clone();
            let fits = if pass == 0 { ACTIVATIONS.contains(&n.op_type) } else { n.op_type == "BiasAdd" };
            if !fits || used[id] || w.is_fed(id) || !n.control_inputs.is_empty() {
                continue;
            }
            let (bias_add, act) = if pass == 0 {
                let Some(&src) = n.inputs.first() else { continue };
                if n.inputs.len() != 1 || src.1 != 0 || !inner_ok(w, &cons, src) || w.nodes[src.0].op_type != "BiasAdd"
                {
                    continue;
                }
                (src.0, Some(&n))
            } else {
                (id, None)
            };
            let b = w.nodes[bias_add].clone();
            if used[bias_add] || b.inputs.len() != 2 || !nhwc(&b) {
                continue;
            }
            let src = b.inputs[0];
            if src.1 != 0 || !inner_ok(w, &cons, src) || used[src.0] {
                continue;
            }
            let base = w.nodes[src.0].clone();
            let fused_type = match base.op_type {
                "Conv2D" if nhwc(&base) => "_FusedConv2D",
                "DepthwiseConv2dNative" if nhwc(&base) => "_FusedDepthwiseConv2dNative",
                "MatMul" => "_FusedMatMul",
                _ => continue,
            };
            if !matches!(base.outputs[0].0, DType::Float | DType::Double) || base.inputs.len() != 2 {
                continue;
            }
            let mut attrs = base.attrs.clone();
            attrs.retain(|k, _| !matches!(k.as_str(), "grad_a" | "grad_b"));
            let mut fused_ops = vec![b"BiasAdd".to_vec()];
            let mut alpha = 0.2f32;
            if let Some(a) = act {
                fused_ops.push(a.op_type.as_bytes().to_vec());
                if a.op_type == "LeakyRelu" {
                    alpha = a.attr_float_or("alpha", 0.2)?;
                }
            }
            attrs.insert("fused_ops".to_string(), AttrValue::ListString(fused_ops));
            attrs.insert("num_args".to_string(), AttrValue::Int(1));
            attrs.insert("epsilon".to_string(), AttrValue::Float(1e-4));
            attrs.insert("leakyrelu_alpha".to_string(), AttrValue::Float(alpha));
            let root = act.unwrap_or(&b);
            let fused = Node {
                name: root.name.clone(),
                op_type: fused_type,
                inputs: vec![base.inputs[0], base.inputs[1], b.inputs[1]],
                control_inputs: base.control_inputs.clone(),
                attrs,
                outputs: vec![root.outputs[0].clone()],
                device: base.device.clone(),
            };
            for x in [id, bias_add, src.0] {
                used[x] = true;
            }
            w.replace(id, fused);
        }
    }
    Ok(())
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
