//! Common subexpression elimination (TensorFlow Grappler's `DedupComputations` /
//! `common_subgraph_elimination`): two needed ops of one type with the same inputs, control
//! inputs (as sets), attrs and device compute the same values, so the readers of the later
//! one read the earlier one. Nodes go in dependency order, so merging repeats up a chain.
//!
//! Never merged: fetched, fed or target nodes; stateful, random, control-flow and variable
//! ops ([`is_opaque`]); ops reading a variable directly; `Const`s of more than
//! [`MAX_CONST_ELEMENTS`] elements (comparing them would cost more than it saves).

use super::work::{is_opaque, is_variable, Work};
use crate::error::Result;
use crate::graph::{AttrValue, Node};
use std::collections::HashMap;

/// The largest `Const` compared for merging.
const MAX_CONST_ELEMENTS: usize = 1024;

/// What two mergeable nodes share: op type, data inputs, sorted control inputs.
type Key = (&'static str, Vec<(usize, usize)>, Vec<usize>);

pub(super) fn run(w: &mut Work) -> Result<()> {
    let mut seen: HashMap<Key, Vec<usize>> = HashMap::new();
    for id in w.topo_order() {
        let n = w.nodes[id].clone();
        if !w.may_remove(id) || is_opaque(&n) || n.inputs.iter().any(|s| is_variable(w.nodes[s.0].op_type)) {
            continue;
        }
        if n.op_type == "Const" && n.attr_tensor("value").map_or(true, |t| t.num_elements() > MAX_CONST_ELEMENTS) {
            continue;
        }
        let mut ctrl = n.control_inputs.clone();
        ctrl.sort_unstable();
        ctrl.dedup();
        let same = seen.entry((n.op_type, n.inputs.clone(), ctrl)).or_default();
        match same.iter().find(|&&k| equivalent(&w.nodes[k], &n)) {
            Some(&keep) => {
                for port in 0..n.outputs.len() {
                    w.rewire((id, port), (keep, port));
                }
                // readers waiting on the duplicate wait on the one kept
                for c in w.needed_ids() {
                    if w.nodes[c].control_inputs.contains(&id) {
                        let mut node = (*w.nodes[c]).clone();
                        node.control_inputs.retain(|&x| x != id);
                        if !node.control_inputs.contains(&keep) && c != keep {
                            node.control_inputs.push(keep);
                        }
                        w.replace(c, node);
                    }
                }
            }
            None => same.push(id),
        }
    }
    Ok(())
}

/// Same attrs (values compared, `_class` and other `_` attrs ignored), device and outputs.
fn equivalent(a: &Node, b: &Node) -> bool {
    let visible = |n: &Node| -> Vec<(String, AttrValue)> {
        n.attrs.iter().filter(|(k, _)| !k.starts_with('_')).map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    a.device == b.device && a.outputs == b.outputs && visible(a) == visible(b)
}
