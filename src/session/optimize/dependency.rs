//! `Identity` and `NoOp` removal (TensorFlow Grappler's dependency optimiser).
//!
//! An `Identity` is bypassed (its readers read its input) when it is not fetched, fed or a
//! target, has no control inputs and is no node's control input (a `tf.cond` pivot), and
//! its input is neither control flow (`Switch`, `Enter`, ...: the Identities TensorFlow's
//! loops and branches read through), nor a variable or an Identity chain from one (reads of
//! reference variables alias the variable, `session/ref_alias.rs`), nor stateful.
//!
//! A `NoOp` that is not a target is bypassed when no control-flow op is among its control
//! inputs or readers and bypassing adds no edges (TensorFlow's rule: `inputs * outputs <=
//! inputs + outputs`): each reader waits on the NoOp's control inputs instead. Control
//! edges never cross loop frames, so readers and inputs are in the NoOp's frame.

use super::work::{is_opaque, is_variable, Work};
use crate::error::Result;
use crate::graph::Node;
use crate::ops::control_flow::control_flow;

pub(super) fn run(w: &mut Work) -> Result<()> {
    let cons = w.consumers();
    for id in w.topo_order() {
        let n = w.nodes[id].clone();
        if !w.may_remove(id) {
            continue;
        }
        match n.op_type {
            "Identity" if removable_identity(w, &n) && cons.control[id].is_empty() => {
                w.rewire((id, 0), n.inputs[0]);
            }
            "NoOp" if n.inputs.is_empty() => {
                let outs = &cons.control[id];
                let ins = &n.control_inputs;
                let flow = |i: &usize| control_flow(w.nodes[*i].op_type).is_some();
                if ins.iter().any(flow) || outs.iter().any(flow) || ins.len() * outs.len() > ins.len() + outs.len() {
                    continue;
                }
                for &c in outs {
                    let mut node = (*w.nodes[c]).clone();
                    node.control_inputs.retain(|&x| x != id);
                    for &i in ins {
                        if i != c && !node.control_inputs.contains(&i) {
                            node.control_inputs.push(i);
                        }
                    }
                    w.replace(c, node);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The conditions on an `Identity` itself and its input (see the module docs).
fn removable_identity(w: &Work, n: &Node) -> bool {
    if n.inputs.len() != 1 || !n.control_inputs.is_empty() {
        return false;
    }
    // walk back through Identities: a chain from a variable aliases it
    let mut src = n.inputs[0].0;
    loop {
        let p = &w.nodes[src];
        if is_variable(p.op_type) || control_flow(p.op_type).is_some() {
            return false;
        }
        if p.op_type == "Identity" && p.inputs.len() == 1 {
            src = p.inputs[0].0;
            continue;
        }
        return !is_opaque(p) || matches!(p.op_type, "Placeholder" | "PlaceholderWithDefault");
    }
}
