//! The conds inside a while loop's body (TensorFlow's `CondContext`s nested in a
//! `WhileContext`), found from the graph's structure: TensorFlow's Python records each
//! op's control-flow context, a GraphDef does not, so here an op's branches are derived
//! from what makes it live. A cond `Switch`'s output `p` runs in branch (pred, p) inside
//! the branches of its input; a cond `Merge` runs in the branches its inputs share; any
//! other op runs in the innermost branches of its inputs (data and control). The loops'
//! own Enters, Merges and Switches are no conds. Used by the loop gradient
//! (`grad_loop_state.rs`): a forward value inside a branch is pushed only when its branch
//! ran, and popped only when the popped predicate says so.

use super::while_loops::Loop;
use crate::error::{Error, Result};
use crate::graph::{traversal, Node};
use std::collections::HashSet;
use std::sync::Arc;

/// One cond branch: the predicate (through the Identities it was read by, so the cond's
/// `pred_id` and its pivots' `pred` are one) and the side (0 false, 1 true).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Branch {
    pub pred: (usize, usize),
    pub side: usize,
}

/// The cond branches of every op of one loop's body.
pub(crate) struct CondContexts {
    /// Per op id of the loop: its branches, outermost first (for a cond Switch, those of
    /// its input, before the switch).
    ctx: Vec<Vec<Branch>>,
    cond_switch: Vec<bool>,
    nodes_pred: Vec<Option<(usize, usize)>>,
}

impl CondContexts {
    /// The branches of the ops of loop `l` (`loops`: every loop of the graph of `nodes`).
    /// Errors: `Internal` for a cycle other than a loop's back edge.
    pub fn new(nodes: &[Arc<Node>], l: &Loop, loops: &[Loop]) -> Result<CondContexts> {
        let n = nodes.len();
        let mut loop_switch = HashSet::new();
        let mut loop_merge = HashSet::new();
        for o in loops {
            for v in &o.vars {
                loop_switch.insert(v.switch);
                loop_merge.insert(v.merge);
            }
        }
        let own_merge: HashSet<usize> = l.vars.iter().map(|v| v.merge).collect();
        let own_enter: HashSet<usize> = l.enters().collect();
        let mut cond_switch = vec![false; n];
        let mut nodes_pred = vec![None; n];
        for id in 0..n {
            if l.member[id] && matches!(nodes[id].op_type, "Switch" | "RefSwitch") && !loop_switch.contains(&id) {
                if let Some(&p) = nodes[id].inputs.get(1) {
                    cond_switch[id] = true;
                    nodes_pred[id] = Some(canonical(nodes, p));
                }
            }
        }
        // what op `id`'s branches are made from: (op, output) pairs, None for a control input
        let sources = |id: usize| -> Vec<(usize, Option<usize>)> {
            if !l.member[id] || own_enter.contains(&id) || own_merge.contains(&id) || l.is_exit(id) {
                return vec![];
            }
            let node = &nodes[id];
            if loop_merge.contains(&id) {
                return node.inputs.first().map(|&(s, i)| vec![(s, Some(i))]).unwrap_or_default();
            }
            let mut v: Vec<(usize, Option<usize>)> = node.inputs.iter().map(|&(s, i)| (s, Some(i))).collect();
            v.extend(node.control_inputs.iter().map(|&c| (c, None)));
            v
        };
        let roots: Vec<usize> = (0..n).filter(|&id| l.member[id]).collect();
        let order = traversal::post_order(
            n,
            roots,
            |id, next| next.extend(sources(id).into_iter().map(|(s, _)| s).filter(|&s| l.member[s])),
            |id| Error::internal(format!("gradients: a cycle through '{}' inside a while loop body", nodes[id].name)),
        )?;
        let mut ctx: Vec<Vec<Branch>> = vec![Vec::new(); n];
        for id in order {
            let of = |s: usize, port: Option<usize>| -> Vec<Branch> {
                if !l.member[s] {
                    return vec![];
                }
                let mut c = ctx[s].clone();
                if let (true, Some(side), Some(pred)) = (cond_switch[s], port, nodes_pred[s]) {
                    c.push(Branch { pred, side });
                }
                c
            };
            let srcs = sources(id);
            let node = &nodes[id];
            let is_cond_merge = matches!(node.op_type, "Merge" | "RefMerge") && !loop_merge.contains(&id);
            let c = if cond_switch[id] {
                // the switched value's branches (the predicate's, if deeper)
                longest(srcs.iter().filter(|(_, p)| p.is_some()).map(|&(s, p)| of(s, p)))
            } else if is_cond_merge {
                let mut inputs = srcs.iter().filter(|(_, p)| p.is_some()).map(|&(s, p)| of(s, p));
                let first = inputs.next().unwrap_or_default();
                inputs.fold(first, |a, b| a.iter().zip(&b).take_while(|(x, y)| x == y).map(|(x, _)| *x).collect())
            } else {
                longest(srcs.iter().map(|&(s, p)| of(s, p)))
            };
            ctx[id] = c;
        }
        Ok(CondContexts { ctx, cond_switch, nodes_pred })
    }

    /// The branches output `index` of op `id` runs in, outermost first (none for an op
    /// outside the loop or made after the analysis).
    pub fn of(&self, id: usize, index: usize) -> Vec<Branch> {
        let Some(c) = self.ctx.get(id) else { return vec![] };
        let mut c = c.clone();
        if let (true, Some(pred)) = (self.cond_switch[id], self.nodes_pred[id]) {
            c.push(Branch { pred, side: index });
        }
        c
    }

    /// The predicate of op `id` if it is a cond `Switch` of the loop.
    pub fn switch_pred(&self, id: usize) -> Option<(usize, usize)> {
        self.nodes_pred.get(id).copied().flatten()
    }

    /// The innermost branch output `index` of op `id` runs in, if any.
    pub fn innermost(&self, id: usize, index: usize) -> Option<Branch> {
        self.of(id, index).last().copied()
    }
}

/// The longest of the branch lists (the first of equal length).
fn longest(it: impl Iterator<Item = Vec<Branch>>) -> Vec<Branch> {
    it.fold(Vec::new(), |a, b| if b.len() > a.len() { b } else { a })
}

/// A predicate through the Identities that read it.
fn canonical(nodes: &[Arc<Node>], mut p: (usize, usize)) -> (usize, usize) {
    while matches!(nodes[p.0].op_type, "Identity" | "RefIdentity") {
        match nodes[p.0].inputs.first() {
            Some(&src) => p = src,
            None => break,
        }
    }
    p
}
