//! Reads of reference variables that alias the variable's buffer.
//!
//! In TensorFlow an `Identity` of a reference variable (`v/read`, and `tf.identity(v)` of a
//! `RefVariable`) outputs a tensor that shares the variable's buffer, and in-place updates
//! (`Assign`, `AssignAdd`, `Apply*` without copy) write into that buffer. A consumer therefore
//! sees the variable's value at the time *it* runs, not at the time the `Identity` ran. TF1
//! code relies on this: `with tf.control_dependencies([update]): after = tf.identity(v)`
//! gives the value after `update` (batch norm's UPDATE_OPS, moving averages).
//!
//! The plan reproduces it without sharing buffers: an `Identity` whose input is a reference
//! variable, or another such `Identity`, is an alias of that variable, and a consumer of an
//! alias that has control inputs (the program ordered it after something, typically an
//! update) reads the variable when it runs ([`super::plan::InputMode::ReadVar`]). Other
//! consumers get the value read when the alias ran: where TensorFlow's result would depend
//! on the executor's order (an optimizer's update racing a gradient op reading `v/read`,
//! which TF's `gate_gradients` orders and tensorgraph's gradients do not gate), they see the
//! value before the run's updates. A fetch of the alias itself returns the value read when
//! the alias ran. Resource variables have
//! no aliasing in TensorFlow (a `ReadVariableOp` is a snapshot, copied on a later write), so
//! their reads are values.

use crate::graph::Node;
use std::collections::HashMap;
use std::sync::Arc;

/// The reference variable (node id) behind each aliasing (item, port) of `ops`, the plan's
/// items. `var_node(src)` is `Some(id)` when input `src` is a reference variable's output
/// itself (not fed); `item_of(src)` is the item producing `src` when it is not fed.
pub(crate) fn ref_aliases(
    ops: &[Arc<Node>],
    var_node: &impl Fn(&(usize, usize)) -> Option<usize>,
    item_of: &impl Fn(&(usize, usize)) -> Option<usize>,
) -> HashMap<(usize, usize), usize> {
    let mut aliases: HashMap<(usize, usize), usize> = HashMap::new();
    loop {
        let mut changed = false;
        for (it, n) in ops.iter().enumerate() {
            if n.op_type != "Identity" || aliases.contains_key(&(it, 0)) {
                continue;
            }
            let Some(src) = n.inputs.first() else { continue };
            let var = var_node(src).or_else(|| item_of(src).and_then(|j| aliases.get(&(j, src.1)).copied()));
            if let Some(v) = var {
                aliases.insert((it, 0), v);
                changed = true;
            }
        }
        if !changed {
            return aliases;
        }
    }
}

/// True for the op types of reference variables (`VariableV2`, TF 1.x's `Variable`), whose
/// reads alias the buffer.
pub(crate) fn is_ref_variable_op(op_type: &str) -> bool {
    matches!(op_type, "VariableV2" | "Variable")
}
