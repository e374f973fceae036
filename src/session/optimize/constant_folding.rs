//! Constant folding (TensorFlow Grappler's `ConstantFolding`): an op whose data inputs are
//! all `Const`s (unfed, without control inputs) is run once while the plan is built and
//! replaced by its values. A single-output op becomes a `Const` of the same name, in place;
//! each read output of a multi-output op becomes `ConstantFolding/<name>-<i>`. Folding goes
//! in dependency order, so whole constant subgraphs fold.
//!
//! Not folded: fetched, fed or target nodes; ops with control inputs; stateful, random,
//! control-flow and variable ops ([`is_opaque`]); ops without inputs; and any op with an
//! output whose shape is not fully known or takes more than [`MAX_CONSTANT_BYTES`]
//! (TensorFlow's `kMaxConstantSize`, 10 MiB), so a fold never materialises a huge tensor.
//! An op whose kernel fails is left to fail when it runs.

use super::work::{const_node, const_value, is_opaque, Work};
use crate::error::Result;
use crate::ops::{self, KernelCtx, StepResources, ThreadPool};
use crate::tensor::Tensor;

/// The largest tensor a fold may make (TensorFlow's `kMaxConstantSize`: 10 MiB).
pub(crate) const MAX_CONSTANT_BYTES: usize = 10 * 1024 * 1024;

pub(super) fn run(w: &mut Work) -> Result<()> {
    let pool = ThreadPool::serial();
    let step = StepResources::default();
    let cons = w.consumers();
    for id in w.topo_order() {
        let n = w.nodes[id].clone();
        if n.op_type == "Const" || n.inputs.is_empty() || !n.control_inputs.is_empty() || !w.may_remove(id) {
            continue;
        }
        if is_opaque(&n) || !n.outputs.iter().all(|(dt, shape)| fits(*dt, shape)) {
            continue;
        }
        let Some(inputs) = n.inputs.iter().map(|&s| const_value(w, s).cloned()).collect::<Option<Vec<Tensor>>>() else {
            continue;
        };
        let Ok(kernel) = ops::lookup(n.op_type).and_then(|d| d.prepare(&n)) else { continue };
        let vars = vec![None; inputs.len()];
        let mut ctx = KernelCtx {
            node_name: &n.name,
            op_type: n.op_type,
            inputs,
            vars: &vars,
            rng: None,
            step: &step,
            pool: &pool,
            const_inputs: 0,
        };
        let Ok(values) = kernel.compute(&mut ctx) else { continue };
        if values.len() != n.outputs.len()
            || values.iter().any(|v| v.num_elements().saturating_mul(elem_bytes(v)) > MAX_CONSTANT_BYTES)
        {
            continue;
        }
        if values.len() == 1 {
            let v = values.into_iter().next().unwrap_or_else(|| Tensor::zeros(n.outputs[0].0, &[0]));
            w.replace(id, const_node(n.name.clone(), v, &n.device));
        } else {
            for (i, v) in values.into_iter().enumerate() {
                if cons.reads_of(id, i) > 0 {
                    let name = w.unique_name(&format!("ConstantFolding/{}-{i}", n.name));
                    let c = w.add(const_node(name, v, &n.device));
                    w.rewire((id, i), (c, 0));
                }
            }
        }
    }
    Ok(())
}

/// True when an output of `dtype` and `shape` is fully known and at most
/// [`MAX_CONSTANT_BYTES`].
fn fits(dtype: crate::tensor::DType, shape: &crate::tensor::Shape) -> bool {
    let (Some(dims), Some(size)) = (shape.to_vec(), dtype.size()) else { return false };
    dims.iter().try_fold(size, |acc, &d| acc.checked_mul(d)).is_some_and(|b| b <= MAX_CONSTANT_BYTES)
}

fn elem_bytes(v: &Tensor) -> usize {
    v.dtype().size().unwrap_or(usize::MAX / 2)
}
