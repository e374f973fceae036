//! The TF1 while loops of a graph, found from its structure (so loops built here,
//! imported from TensorFlow's GraphDefs, or lowered from TF2 `While` at import are the
//! same): per frame its loop variables (`Enter` → `Merge` → `Switch` → `Identity` /
//! `Exit`, the `NextIteration` back edge), its loop invariants (constant `Enter`s), its
//! `LoopCond`, and every op inside it (nested loops included).

use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::control_flow::enter_attrs;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One loop variable's ops.
#[derive(Debug, Clone)]
pub(crate) struct LoopVar {
    pub enter: usize,
    pub merge: usize,
    pub switch: usize,
    pub identity: Option<usize>,
    pub exit: Option<usize>,
    pub next: usize,
}

/// One while loop (one frame).
#[derive(Debug, Clone)]
pub(crate) struct Loop {
    pub frame: String,
    pub parallel_iterations: i64,
    pub vars: Vec<LoopVar>,
    /// The constant (loop-invariant) Enters.
    pub invariants: Vec<usize>,
    pub pivot: usize,
    /// `member[id]`: op `id` runs inside the loop (its Enters and Exits included).
    pub member: Vec<bool>,
}

impl Loop {
    /// Whether `id` is one of this loop's own Exits (an op of the enclosing frame).
    pub fn is_exit(&self, id: usize) -> bool {
        self.vars.iter().any(|v| v.exit == Some(id))
    }
    /// The loop's own Enters (loop variables and invariants).
    pub fn enters(&self) -> impl Iterator<Item = usize> + '_ {
        self.vars.iter().map(|v| v.enter).chain(self.invariants.iter().copied())
    }
}

/// Every while loop of the graph whose nodes are `nodes`, outer loops before the loops
/// nested in them. Errors: `InvalidArgument` for a loop whose Enter, Merge, Switch and
/// NextIteration are not wired as TensorFlow's `while_loop` wires them.
pub(crate) fn find_loops(nodes: &[Arc<Node>]) -> Result<Vec<Loop>> {
    let n = nodes.len();
    let mut consumers = vec![Vec::new(); n];
    for (id, node) in nodes.iter().enumerate() {
        for &(src, _) in &node.inputs {
            consumers[src].push(id);
        }
        for &c in &node.control_inputs {
            consumers[c].push(id);
        }
    }
    let mut frames: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (id, node) in nodes.iter().enumerate() {
        if matches!(node.op_type, "Enter" | "RefEnter") {
            frames.entry(enter_attrs(node)?.0).or_default().push(id);
        }
    }
    let find = |id: usize, op: &[&str], input: (usize, usize)| -> Option<usize> {
        consumers[id]
            .iter()
            .copied()
            .find(|&c| op.contains(&nodes[c].op_type) && nodes[c].inputs.first() == Some(&input))
    };
    let mut loops = Vec::new();
    for (frame, enters) in frames {
        let mut vars = Vec::new();
        let mut invariants = Vec::new();
        let mut pivot = None;
        let mut parallel_iterations = 10;
        for &e in &enters {
            let (_, constant, pi) = enter_attrs(&nodes[e])?;
            parallel_iterations = pi as i64;
            if constant {
                invariants.push(e);
                continue;
            }
            let bad = || {
                Error::invalid_argument(format!(
                    "the while loop of frame '{frame}' is not wired as TensorFlow's while_loop: Enter '{}' does not lead to a Merge, Switch and NextIteration",
                    nodes[e].name
                ))
            };
            let merge = find(e, &["Merge", "RefMerge"], (e, 0)).ok_or_else(bad)?;
            let switch = find(merge, &["Switch", "RefSwitch"], (merge, 0)).ok_or_else(bad)?;
            let next = nodes[merge].inputs.get(1).map(|&(s, _)| s).ok_or_else(bad)?;
            pivot = nodes[switch].inputs.get(1).map(|&(s, _)| s);
            vars.push(LoopVar {
                enter: e,
                merge,
                switch,
                identity: find(switch, &["Identity", "RefIdentity"], (switch, 1)),
                exit: find(switch, &["Exit", "RefExit"], (switch, 0)),
                next,
            });
        }
        let Some(pivot) = pivot else { continue };
        let mut member = vec![false; n];
        let mut stack = enters.clone();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut member[id], true) {
                continue;
            }
            if vars.iter().any(|v| v.exit == Some(id)) {
                continue;
            }
            stack.extend(consumers[id].iter().copied().filter(|&c| !member[c]));
        }
        loops.push(Loop { frame, parallel_iterations, vars, invariants, pivot, member });
    }
    // outer loops first: a loop inside another has fewer members
    loops.sort_by_key(|l| std::cmp::Reverse(l.member.iter().filter(|&&m| m).count()));
    Ok(loops)
}
