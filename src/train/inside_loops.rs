//! `tf.gradients` at tensors inside TF1 while loops, as TensorFlow 2.21's
//! `tf.compat.v1.gradients` (control flow v1) treats them:
//!
//! - called while a loop's body is being built (inside `ops::while_loop`'s body
//!   function), of a y inside the body: the gradient of one iteration, plain ops inside the
//!   body (per-step gradients), with respect to tensors the body reads from outside or
//!   to the body's own tensors (its loop variables' `Identity`s included). A path through
//!   the loop's own Switch (to a loop variable's initial value) is TensorFlow's
//!   `ValueError`: `Cannot compute gradient inside while loop with respect to op 'x'. ...`;
//! - a y inside a loop, gradients() called outside its body: TensorFlow returns None for
//!   every x (the loop's back edge puts the ops between on one cycle, so its walk never
//!   starts); refused here, naming what to do instead;
//! - an x inside a loop and a y that is (or depends on) the loop's output: TensorFlow
//!   returns the gradient of x inside its gradient loop, a tensor it marks not fetchable
//!   (`InaccessibleTensorError`); refused here likewise.

use super::while_loops::Loop;
use crate::error::{Error, Result};
use crate::graph::{Node, Output};
use std::collections::HashSet;
use std::sync::Arc;

/// Refuses ys inside (not Exits of) and xs inside the loops `loops` (the loops of the
/// graph whose body is not being built; `owner[id]`: the outermost of them op `id` is in).
pub(crate) fn check_ends(ys: &[Output], xs: &[Output], owner: &[Option<usize>], loops: &[Loop]) -> Result<()> {
    for y in ys {
        if let Some(li) = owner[y.op().id()] {
            if !loops[li].is_exit(y.op().id()) {
                return Err(Error::invalid_argument(format!(
                    "gradients: {} is inside while loop '{}' and gradients() is called outside its body; TensorFlow returns None for every x here (the loop's back edge puts the ops between on a cycle). Take the gradient of the loop's output (its Exit), or call gradients() inside the body function for one iteration's gradient",
                    y.name(),
                    loops[li].frame
                )));
            }
        }
    }
    for x in xs {
        if let Some(li) = owner[x.op().id()] {
            if !loops[li].is_exit(x.op().id()) {
                return Err(Error::invalid_argument(format!(
                    "gradients: {} is inside while loop '{}': its gradient would be a tensor of the gradient loop, which TensorFlow returns but marks not fetchable (InaccessibleTensorError: \"Operation ... has been marked as not fetchable\"). Take gradients with respect to tensors the loop reads from outside, or call gradients() inside the body function for one iteration's gradient",
                    x.name(),
                    loops[li].frame
                )));
            }
        }
    }
    Ok(())
}

/// TensorFlow's `_RaiseNoGradWrtInitialLoopValError`: refuses, while a loop's body is
/// being built, a gradient reaching op `id` when it is a Switch of a loop (its predicate a
/// `LoopCond`), naming the x the path leads to (`from_x`: ops reached from the xs).
pub(crate) fn check_building_loop_op(
    nodes: &[Arc<Node>],
    id: usize,
    from_x: &[bool],
    x_keys: &HashSet<(usize, usize)>,
) -> Result<()> {
    let node = &nodes[id];
    let is_loop_switch = matches!(node.op_type, "Switch" | "RefSwitch")
        && node.inputs.get(1).is_some_and(|&(p, _)| nodes[p].op_type == "LoopCond");
    if !is_loop_switch {
        return Ok(());
    }
    // the x this path comes from: the first xs op met walking back from the Switch
    let x_ops: HashSet<usize> = x_keys.iter().map(|&(op, _)| op).collect();
    let mut seen = HashSet::new();
    let mut queue = std::collections::VecDeque::from([id]);
    let mut target = None;
    while let Some(cur) = queue.pop_front() {
        if x_ops.contains(&cur) {
            target = Some(cur);
            break;
        }
        if seen.insert(cur) {
            queue.extend(nodes[cur].inputs.iter().map(|&(s, _)| s).filter(|&s| from_x[s]));
        }
    }
    Err(Error::invalid_argument(format!(
        "Cannot compute gradient inside while loop with respect to op '{}'. We do not support taking the gradient wrt or through the initial value of a loop variable. Gradients can be computed through loop invariants or wrt the input parameters to the loop body.",
        nodes[target.unwrap_or(id)].name
    )))
}
