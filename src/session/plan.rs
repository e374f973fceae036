//! Run plans: the graph pruned to what a (feeds, fetches, targets) signature needs,
//! in execution order, with every input resolved to a value slot or a variable buffer.
//! Built once per signature and cached by the session.

use super::session_state::SessionState;
use crate::error::{Error, Result};
use crate::graph::{traversal, Graph, Node};
use crate::ops::{self, Kernel, VarSlot};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Where a step's input (or a fetch) comes from.
pub(crate) enum Source {
    /// A value computed or fed in this run.
    Slot(usize),
    /// A variable's buffer, read when the consumer runs (name and id for messages).
    Var(Arc<VarSlot>, String),
}

/// One op to run.
pub(crate) struct Step {
    pub node: Arc<Node>,
    /// The node's prepared kernel.
    pub kernel: Box<dyn Kernel>,
    pub inputs: Vec<Source>,
    /// Variable buffers behind reference inputs.
    pub vars: Vec<Option<(Arc<VarSlot>, String)>>,
    pub rng: Option<Arc<Mutex<rand_chacha::ChaCha8Rng>>>,
    /// Slot of output 0; output i goes to `out_base + i`.
    pub out_base: usize,
    /// Slots no later step or fetch reads: freed after this step, so buffers are
    /// released early and variables updated in place are not copied.
    pub release: Vec<usize>,
}

/// A compiled signature.
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Slot for each feed, in the signature's feed order.
    pub feed_slots: Vec<usize>,
    /// (expected dtype, shape, tensor name) for each feed, for validation.
    pub feed_checks: Vec<(crate::DType, crate::Shape, String)>,
    pub fetches: Vec<Source>,
    pub num_slots: usize,
}

/// True for the ops whose value is a session-held variable buffer rather than a computed
/// output: `VariableV2` and TensorFlow 1.x's `Variable` (reference variables) and
/// `VarHandleOp` (resource variables).
pub(crate) fn is_variable_op(op_type: &str) -> bool {
    matches!(op_type, "VariableV2" | "Variable" | "VarHandleOp")
}

/// Signature of a run: fed tensors, fetched tensors, target ops.
pub(crate) type PlanKey = (Vec<(usize, usize)>, Vec<(usize, usize)>, Vec<usize>);

impl Plan {
    pub(crate) fn build(graph: &Graph, state: &SessionState, key: &PlanKey) -> Result<Plan> {
        let (feeds, fetches, targets) = key;
        let g = graph.read();
        let nodes = &g.nodes;
        let mut fed: HashMap<(usize, usize), usize> = HashMap::default();
        for (i, &(op, idx)) in feeds.iter().enumerate() {
            if fed.insert((op, idx), i).is_some() {
                return Err(Error::invalid_argument(format!(
                    "Tensor {}:{idx} is fed more than once; give each fed tensor one value",
                    nodes[op].name
                )));
            }
        }

        // which ops are needed, inputs first: walk back from fetches and targets, not through
        // fed edges; fetched values are computed first (as early as their inputs allow)
        let roots = fetches.iter().filter(|f| !fed.contains_key(f)).map(|&(op, _)| op).chain(targets.iter().copied());
        let order = traversal::post_order(
            nodes.len(),
            roots,
            |id, next| {
                let n = &nodes[id];
                next.extend(n.inputs.iter().filter(|src| !fed.contains_key(src)).map(|&(src, _)| src));
                next.extend_from_slice(&n.control_inputs);
            },
            |id| Error::invalid_argument(format!("the graph has a cycle through op '{}'", nodes[id].name)),
        )?;

        // slots: feeds first, then each non-variable op's outputs
        let mut slot_of: HashMap<(usize, usize), usize> = HashMap::new();
        let mut num_slots = feeds.len();
        let mut feed_checks = Vec::with_capacity(feeds.len());
        for (i, f) in feeds.iter().enumerate() {
            slot_of.insert(*f, i);
            let n = &nodes[f.0];
            let (dt, sh) = n.outputs[f.1].clone();
            feed_checks.push((dt, sh, format!("{}:{}", n.name, f.1)));
        }
        let mut steps = Vec::with_capacity(order.len());
        let source = |slot_of: &HashMap<(usize, usize), usize>, src: (usize, usize)| -> Result<Source> {
            if let Some(&s) = slot_of.get(&src) {
                return Ok(Source::Slot(s));
            }
            let n = &nodes[src.0];
            if is_variable_op(n.op_type) {
                return Ok(Source::Var(state.var_slot(src.0), n.name.clone()));
            }
            Err(Error::internal(format!("no value slot for {}:{}", n.name, src.1)))
        };
        for id in order {
            let node = nodes[id].clone();
            if is_variable_op(node.op_type) {
                continue;
            }
            let def = ops::lookup(node.op_type)?;
            let refs = def.ref_inputs();
            let mut inputs = Vec::with_capacity(node.inputs.len());
            let mut vars = Vec::with_capacity(node.inputs.len());
            for (i, &src) in node.inputs.iter().enumerate() {
                let s = source(&slot_of, src)?;
                if refs.contains(&i) {
                    match &s {
                        Source::Var(slot, name) => vars.push(Some((slot.clone(), name.clone()))),
                        Source::Slot(_) => {
                            return Err(Error::invalid_argument(format!(
                                "input {i} of '{}' ({}) must be a variable (a VariableV2 or VarHandleOp output), but '{}' is a {}",
                                node.name, node.op_type, nodes[src.0].name, nodes[src.0].op_type
                            )))
                        }
                    }
                } else {
                    if nodes[src.0].op_type == "VarHandleOp" {
                        return Err(resource_handle_as_value(
                            &format!("input {i} of '{}' ({})", node.name, node.op_type),
                            &nodes[src.0].name,
                        ));
                    }
                    vars.push(None);
                }
                inputs.push(s);
            }
            let out_base = num_slots;
            for i in 0..node.outputs.len() {
                slot_of.entry((id, i)).or_insert(out_base + i);
            }
            num_slots += node.outputs.len();
            let rng = def.is_stateful().then(|| state.rng_for(&node)).flatten();
            let kernel = def.prepare(&node).map_err(|e| e.context(format!("{} '{}'", node.op_type, node.name)))?;
            steps.push(Step { node, kernel, inputs, vars, rng, out_base, release: Vec::new() });
        }
        for &(op, idx) in fetches {
            if nodes[op].op_type == "VarHandleOp" && !slot_of.contains_key(&(op, idx)) {
                return Err(resource_handle_as_value("a fetch", &nodes[op].name));
            }
        }
        let fetches = fetches.iter().map(|&f| source(&slot_of, f)).collect::<Result<Vec<_>>>()?;
        // the last step reading each slot releases it, unless it is fetched
        let mut last_use: HashMap<usize, usize> = HashMap::new();
        for (i, step) in steps.iter().enumerate() {
            for src in &step.inputs {
                if let Source::Slot(s) = src {
                    last_use.insert(*s, i);
                }
            }
        }
        for f in &fetches {
            if let Source::Slot(s) = f {
                last_use.remove(s);
            }
        }
        for (slot, i) in last_use {
            steps[i].release.push(slot);
        }
        Ok(Plan { steps, feed_slots: (0..feeds.len()).collect(), feed_checks, fetches, num_slots })
    }
}

/// The error for using resource handle `var` (a `VarHandleOp` output) as a tensor value.
fn resource_handle_as_value(what: &str, var: &str) -> Error {
    Error::unimplemented(format!(
        "{what} is the resource handle {var}:0: tensorgraph keeps resource handles inside the session and passes them only to resource-variable ops (ReadVariableOp, AssignVariableOp, ResourceApply*, ...); read the value with a ReadVariableOp (the variable's {var}/Read/ReadVariableOp:0)"
    ))
}
