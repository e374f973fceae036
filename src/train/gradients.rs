//! Symbolic gradients (`tf.gradients`): adds the ops computing d(sum ys)/d(xs) to the graph
//! under `gradients/`, each op's part under `gradients/<op>_grad/` built by the op's own
//! gradient function from the registry.

use super::{grad_loop_state, inside_loops, while_grad, while_loops};
use crate::error::{Error, Result};
use crate::graph::{traversal, Output, Scope};
use crate::ops::{self, GradCtx};
use crate::tensor::{DType, Tensor};
use std::collections::{HashMap, HashSet};

/// `tf.gradients(ys, xs)`: the gradient of the sum of `ys` with respect to each of `xs`,
/// `None` where an `x` does not affect any `y`. Ops go in a new `gradients` name scope
/// (`gradients_1` on the next call). `grad_ys` seed the gradients of `ys`, each read
/// through an `Identity` `gradients/grad_ys_<i>` as TensorFlow's (so a TensorArray's
/// gradient source is `gradients` from the seed on); default ones: ops `gradients/Shape`,
/// `gradients/grad_ys_0`, `gradients/Fill`.
///
/// Called while a `while_loop`'s body is being built (`ops::while_loop`'s body function),
/// the gradient is that of one iteration, made of plain ops inside the body (TensorFlow's
/// per-step gradients), as TensorFlow's `tf.compat.v1.gradients` there.
///
/// Errors: `InvalidArgument` when tensors come from another graph; for a y inside a while
/// loop with gradients() called outside its body, and for an x inside a while loop whose
/// output is a y (TensorFlow returns None, resp. a tensor of the gradient loop it marks
/// not fetchable: see `inside_loops.rs`); inside a body, for a path through the loop's
/// own Switch to a loop variable's initial value (TensorFlow's `Cannot compute gradient
/// inside while loop with respect to op 'x'. ...`); `Unimplemented` when the path passes
/// through an op whose gradient needs something tensorgraph lacks.
pub fn gradients(ys: &[Output], xs: &[Output], grad_ys: Option<&[Output]>) -> Result<Vec<Option<Output>>> {
    let Some(first) = ys.first() else {
        return Err(Error::invalid_argument("gradients needs at least one y"));
    };
    let graph = first.graph().clone();
    for t in ys.iter().chain(xs) {
        if !t.graph().same(&graph) {
            return Err(Error::invalid_argument(format!("{} is from another graph", t.name())));
        }
    }
    let nodes: Vec<_> = (0..graph.num_ops()).map(|i| graph.node(i)).collect();
    // ops reachable forward from xs
    let consumers = graph.consumers();
    let from_x = traversal::reachable(nodes.len(), xs.iter().map(|x| x.op().id()), |id, next| {
        next.extend_from_slice(&consumers[id]);
        Ok(())
    })?;
    // TF1 while loops: each outermost loop is one step of the walk (its representative
    // op, `rep`), whose inputs are its Enters' inputs; its gradient is a gradient loop.
    // A loop whose body is being built now (gradients() called inside it) is not: its
    // ops are plain ops of one iteration, as TensorFlow's.
    let building = ops::flow_context::building_while_frames(&graph);
    let loops: Vec<_> = while_loops::find_loops(&nodes)?.into_iter().filter(|l| !building.contains(&l.frame)).collect();
    let mut owner: Vec<Option<usize>> = vec![None; nodes.len()];
    for (li, l) in loops.iter().enumerate() {
        for (id, &m) in l.member.iter().enumerate() {
            if m && owner[id].is_none() {
                owner[id] = Some(li);
            }
        }
    }
    let mut rep_of = vec![usize::MAX; loops.len()];
    for (id, o) in owner.iter().enumerate() {
        if let Some(li) = *o {
            rep_of[li] = rep_of[li].min(id);
        }
    }
    let rep = |id: usize| owner[id].map_or(id, |li| rep_of[li]);
    let loop_at = |id: usize| owner[id].filter(|&li| rep_of[li] == id);
    inside_loops::check_ends(ys, xs, &owner, &loops)?;
    let mut from_x_rep = vec![false; nodes.len()];
    for (id, &f) in from_x.iter().enumerate() {
        if f {
            from_x_rep[rep(id)] = true;
        }
    }
    let inputs_of = |id: usize| -> Vec<usize> {
        match loop_at(id) {
            Some(li) => loops[li].enters().flat_map(|e| nodes[e].inputs.iter().map(|&(s, _)| rep(s))).collect(),
            None => nodes[id].inputs.iter().map(|&(s, _)| rep(s)).collect(),
        }
    };
    // ops between: reach ys backward through data edges, and are reachable from xs; in
    // post-order (inputs first), visiting the ys and each op's inputs last first
    let order = traversal::post_order(
        nodes.len(),
        ys.iter().rev().map(|y| rep(y.op().id())).filter(|&id| from_x_rep[id]),
        |id, next| next.extend(inputs_of(id).into_iter().rev().filter(|&src| from_x_rep[src])),
        |id| Error::internal(format!("gradients: the graph has a cycle through op '{}'", nodes[id].name)),
    )?;
    let mut between = vec![false; nodes.len()];
    for &id in &order {
        between[id] = true;
    }
    let root = graph.scope().name_scope("gradients");
    // gradients flowing into each (op, output)
    let mut pending: HashMap<(usize, usize), Vec<Output>> = HashMap::new();
    for (i, y) in ys.iter().enumerate() {
        let g = match grad_ys.and_then(|g| g.get(i)) {
            // in the gradients' name scope, as TensorFlow's `_DefaultGradYs`, so that a
            // TensorArray gradient finds the same source (`gradients`) from the seed as
            // from the gradients built from it
            Some(g) => ops::identity(&root.named(&format!("grad_ys_{i}")), g)?,
            None => {
                let shape = ops::shape(&root, y)?;
                let one =
                    ops::constant(&root.named(&format!("grad_ys_{i}")), Tensor::from_f64(y.dtype(), &[], &[1.0])?)?;
                ops::fill(&root, &shape, &one)?
            }
        };
        pending.entry(y.key()).or_default().push(g);
    }
    let x_keys: HashSet<(usize, usize)> = xs.iter().map(|x| x.key()).collect();
    // order is post-order (inputs first); walk it backwards
    let call = grad_loop_state::GradCall { root: &root, nodes: &nodes, from_x: &from_x, loops: &loops };
    for &id in order.iter().rev() {
        if let Some(li) = loop_at(id) {
            // an x that is one of the loop's Exits keeps its gradient
            let exits_x: Vec<((usize, usize), Vec<Output>)> = loops[li]
                .vars
                .iter()
                .filter_map(|v| v.exit.map(|e| (e, 0)))
                .filter(|k| x_keys.contains(k))
                .filter_map(|k| pending.get(&k).map(|g| (k, g.clone())))
                .collect();
            for ((src, idx), g) in while_grad::loop_gradient(&call, &loops[li], &mut pending, None)? {
                if between[rep(src)] || x_keys.contains(&(src, idx)) {
                    pending.entry((src, idx)).or_default().push(g);
                }
            }
            pending.extend(exits_x);
            continue;
        }
        let node = nodes[id].clone();
        let op = crate::graph::Operation { graph: graph.clone(), id };
        let n_out = node.outputs.len();
        let has_any = (0..n_out).any(|i| pending.contains_key(&(id, i)));
        if !has_any {
            continue;
        }
        inside_loops::check_building_loop_op(&nodes, id, &from_x, &x_keys)?;
        let mut grads = Vec::with_capacity(n_out);
        for i in 0..n_out {
            let key = (id, i);
            if x_keys.contains(&key) {
                grads.push(None);
                continue;
            }
            grads.push(match pending.remove(&key) {
                None => None,
                Some(gs) => Some(aggregate(&root, gs)?),
            });
        }
        if node.inputs.is_empty() || grads.iter().all(|g| g.is_none()) {
            continue;
        }
        // trainable outputs (TensorFlow's `_IsTrainable`): floating point or complex, or a resource
        // handle (a variable's gradient flows to its handle, through cond's Switches too)
        if !node.outputs.iter().any(|(d, _)| {
            d.is_floating() || matches!(d, DType::Complex64 | DType::Complex128 | DType::Resource | DType::Variant)
        }) {
            continue;
        }
        let def =
            ops::lookup(node.op_type).map_err(|_| ops::unknown::unknown_op_gradient_error(&node.name, node.op_type))?;
        let scope = root.name_scope(&format!("{}_grad", node.name));
        let ctx = GradCtx {
            scope: &scope,
            node: &node,
            inputs: node
                .inputs
                .iter()
                .map(|&(src, idx)| Output { graph: graph.clone(), op: src, index: idx })
                .collect(),
            outputs: (0..n_out).map(|i| op.output(i)).collect::<Result<_>>()?,
            grads,
        };
        let in_grads =
            def.gradient(&ctx).map_err(|e| e.context(format!("gradient of '{}' ({})", node.name, node.op_type)))?;
        for (&(src, idx), g) in node.inputs.iter().zip(in_grads) {
            if let Some(g) = g {
                if between[rep(src)] || x_keys.contains(&(src, idx)) {
                    pending.entry((src, idx)).or_default().push(g);
                }
            }
        }
    }
    xs.iter()
        .map(|x| match pending.remove(&x.key()) {
            None => Ok(None),
            Some(gs) => aggregate(&root, gs).map(Some),
        })
        .collect()
}

fn aggregate(s: &Scope, mut gs: Vec<Output>) -> Result<Output> {
    if gs.len() == 1 {
        return Ok(gs.remove(0));
    }
    ops::add_n(s, &gs)
}
