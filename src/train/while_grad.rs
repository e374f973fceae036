//! The gradient of a TF1 while loop, as TensorFlow's `control_flow_grad` builds it on a
//! `GradLoopState` (`train/grad_loop_state.rs`): each loop variable's gradient goes round
//! a gradient loop (`_grad/b_exit`, `_grad/b_switch`, a `Switch` on the gradient loop's
//! pivot, a `NextIteration` back edge, an `Exit` for the initial value's gradient), the
//! body's ops are walked backwards with their registered gradients, and each loop
//! invariant's gradient is summed over the iterations (`_grad/b_acc`). A loop nested in
//! the body is one step of that walk (its Enters' inputs are its inputs): its gradient
//! loop is built inside the outer one, with the outer state as its parent.

use super::grad_loop_state::{named_merge, out, GradCall, GradState};
use super::while_loops::Loop;
use crate::error::{Error, Result};
use crate::graph::{traversal, Operation, Output, Scope};
use crate::ops::{self, GradCtx};
use crate::tensor::DType;
use std::collections::HashMap;

/// The gradient of loop `l` given its Exits' gradients (`exit_grads[(exit id, 0)]`):
/// the gradient of each input of the loop's Enters, as ((op id, output index), gradient).
/// `parent` is the state of the loop `l` is nested in, if any (then the gradients given
/// and returned are in the parent's gradient loop). Errors: an op whose gradient fails.
pub(crate) fn loop_gradient(
    call: &GradCall,
    l: &Loop,
    exit_grads: &mut HashMap<(usize, usize), Vec<Output>>,
    parent: Option<&GradState>,
) -> Result<Vec<((usize, usize), Output)>> {
    let g = call.root.graph().clone();
    let nodes = call.nodes;
    let root = call.root;
    let mut grads: Vec<Option<Output>> = Vec::new();
    for v in &l.vars {
        let gs = v.exit.and_then(|e| exit_grads.remove(&(e, 0)));
        grads.push(match gs {
            None => None,
            Some(gs) => Some(sum(root, gs)?),
        });
    }
    if grads.iter().all(Option::is_none) {
        return Ok(vec![]);
    }
    // unused trainable exits get zeros (TensorFlow's ZerosLikeForExit), in the enclosing
    // gradient loop when nested
    for (v, gr) in l.vars.iter().zip(grads.iter_mut()) {
        if let (None, Some(e)) = (&gr, v.exit) {
            if nodes[e].outputs[0].0.is_floating() {
                let value = match parent {
                    None => out(&g, e, 0),
                    Some(p) => p.add_value(&root.name_scope(&format!("{}_grad", nodes[e].name)), &out(&g, e, 0))?,
                };
                *gr = Some(ops::zeros_like(root, &value)?);
            }
        }
    }
    let st = GradState::new(call, l, parent)?;
    // the loop variables' gradients enter the gradient loop
    let mut b_switch = vec![None; l.vars.len()];
    let mut pending: HashMap<(usize, usize), Vec<Output>> = HashMap::new();
    let mut result = Vec::new();
    for (k, v) in l.vars.iter().enumerate() {
        let (Some(gr), Some(exit)) = (&grads[k], v.exit) else { continue };
        let es = root.name_scope(&format!("{}_grad", nodes[exit].name));
        let b_exit = ops::enter(&es.named("b_exit"), gr, &st.frame, false, l.parallel_iterations)?;
        let ss = root.name_scope(&format!("{}_grad", nodes[v.switch].name));
        let m = named_merge(&ss, &[b_exit.clone(), b_exit], "b_switch")?;
        b_switch[k] = Some(m.clone());
        let ms = root.name_scope(&format!("{}_grad", nodes[v.merge].name));
        let (f, t) = ops::switch(&ms, &m, &st.pivot)?;
        let ens = root.name_scope(&format!("{}_grad", nodes[v.enter].name));
        let initial = ops::exit(&ens, &f)?;
        result.push((nodes[v.enter].inputs[0], initial));
        pending.entry(nodes[v.next].inputs[0]).or_default().push(t);
    }
    // the loops directly inside `l`: each is one step (its representative op, the
    // lowest id of its ops) whose inputs are its Enters' inputs
    let mut owner: HashMap<usize, usize> = HashMap::new();
    for (li, o) in call.loops.iter().enumerate() {
        if std::ptr::eq(o, l) || !o.vars.first().is_some_and(|v| l.member[v.enter]) {
            continue;
        }
        for (id, &m) in o.member.iter().enumerate() {
            if m {
                owner.entry(id).or_insert(li);
            }
        }
    }
    let mut rep_of: HashMap<usize, usize> = HashMap::new();
    let mut from_x_inner: HashMap<usize, bool> = HashMap::new();
    for (&id, &li) in &owner {
        let r = rep_of.entry(li).or_insert(id);
        *r = (*r).min(id);
        *from_x_inner.entry(li).or_default() |= call.from_x[id];
    }
    let rep = |id: usize| owner.get(&id).map_or(id, |li| rep_of[li]);
    let inner_at = |id: usize| owner.get(&id).copied().filter(|li| rep_of[li] == id);
    let from_x = |id: usize| owner.get(&id).map_or(call.from_x[id], |li| from_x_inner[li]);
    let is_leaf = |id: usize| {
        l.invariants.contains(&id) || l.vars.iter().any(|v| v.identity == Some(id) || v.switch == id || v.merge == id)
    };
    let roots: Vec<usize> = l.vars.iter().map(|v| rep(nodes[v.next].inputs[0].0)).filter(|&r| l.member[r]).collect();
    let order = traversal::post_order(
        nodes.len(),
        roots.iter().rev().copied(),
        |id, next| {
            if is_leaf(id) {
                return;
            }
            let inputs: Vec<usize> = match inner_at(id) {
                Some(li) => call.loops[li].enters().flat_map(|e| nodes[e].inputs.iter().map(|&(s, _)| s)).collect(),
                None => nodes[id].inputs.iter().map(|&(s, _)| s).collect(),
            };
            next.extend(
                inputs.into_iter().rev().filter(|&s| l.member[s] && !l.is_exit(s)).map(rep).filter(|&s| from_x(s)),
            )
        },
        |id| Error::internal(format!("gradients: a cycle through '{}' inside a while loop body", nodes[id].name)),
    )?;
    for &id in order.iter().rev() {
        let node = nodes[id].clone();
        if let Some(li) = inner_at(id) {
            for ((src, idx), gr) in loop_gradient(call, &call.loops[li], &mut pending, Some(&st))? {
                if l.member[src] && call.from_x[src] {
                    pending.entry((src, idx)).or_default().push(gr);
                }
            }
            continue;
        }
        if l.invariants.contains(&id) {
            if let Some(gs) = pending.remove(&(id, 0)) {
                let gr = sum(root, gs)?;
                let acc = st.accumulate(&node, &gr)?;
                result.push((node.inputs[0], acc));
            }
            continue;
        }
        if let Some(k) = l.vars.iter().position(|v| v.identity == Some(id)) {
            if let (Some(gs), Some(m)) = (pending.remove(&(id, 0)), &b_switch[k]) {
                let gr = sum(root, gs)?;
                let ss = root.name_scope(&format!("{}_grad", nodes[l.vars[k].switch].name));
                let next = ops::next_iteration(&ss, &gr)?;
                g.update_input(&m.op(), 1, &next)?;
            }
            continue;
        }
        if is_leaf(id) {
            continue;
        }
        if matches!(node.op_type, "Enter" | "RefEnter" | "Exit" | "RefExit") {
            return Err(Error::unimplemented(format!(
                "gradients through while loop '{}': {} '{}' belongs to no loop tensorgraph found in it",
                l.frame, node.op_type, node.name
            )));
        }
        let n_out = node.outputs.len();
        let mut og = Vec::with_capacity(n_out);
        for i in 0..n_out {
            og.push(match pending.remove(&(id, i)) {
                None => None,
                Some(gs) => Some(sum(root, gs)?),
            });
        }
        if node.inputs.is_empty() || og.iter().all(Option::is_none) {
            continue;
        }
        if !node.outputs.iter().any(|(d, _)| {
            d.is_floating() || matches!(d, DType::Complex64 | DType::Complex128 | DType::Resource | DType::Variant)
        }) {
            continue;
        }
        let def =
            ops::lookup(node.op_type).map_err(|_| ops::unknown::unknown_op_gradient_error(&node.name, node.op_type))?;
        let scope = root.name_scope(&format!("{}_grad", node.name));
        // a cond Switch's output no gradient reached gets zeros live only in the
        // iterations that took its side (TensorFlow's loop-state ZerosLike): a plain
        // zeros_like of it could read a loop invariant's copy, live in every iteration,
        // and give the Switch's gradient Merge two live inputs
        if st.cond_switch_pred(id).is_some() {
            for (i, gr) in og.iter_mut().enumerate() {
                if gr.is_none() && node.outputs[i].0.is_floating() {
                    *gr = Some(st.switch_zeros(&scope, id, i)?);
                }
            }
        }
        let op = Operation { graph: g.clone(), id };
        let from = g.num_ops();
        let ctx = GradCtx {
            scope: &scope,
            node: &node,
            inputs: node.inputs.iter().map(|&(s, i)| out(&g, s, i)).collect(),
            outputs: (0..n_out).map(|i| op.output(i)).collect::<Result<_>>()?,
            grads: og,
        };
        let in_grads =
            def.gradient(&ctx).map_err(|e| e.context(format!("gradient of '{}' ({})", node.name, node.op_type)))?;
        st.rewire(from..g.num_ops())?;
        for (&(src, idx), gr) in node.inputs.iter().zip(in_grads) {
            if let Some(gr) = gr {
                if l.member[src] && call.from_x[src] {
                    let gr = st.bring_in(&gr)?;
                    pending.entry((src, idx)).or_default().push(gr);
                }
            }
        }
    }
    Ok(result)
}

fn sum(s: &Scope, mut gs: Vec<Output>) -> Result<Output> {
    if gs.len() == 1 {
        return Ok(gs.remove(0));
    }
    ops::add_n(s, &gs)
}
