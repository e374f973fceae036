//! The execution copy the optimiser rewrites: the graph's nodes by id (a rewritten node is
//! a new `Arc` at the same id, a new node is appended), with what the plan's signature
//! forbids touching (fed tensors, fetched and target nodes).

use crate::graph::Node;
use crate::ops::control_flow::control_flow;
use crate::ops::{self, schema};
use crate::tensor::DType;
use std::collections::HashSet;
use std::sync::Arc;

/// The nodes being optimised for one run signature.
pub(crate) struct Work {
    /// Node ids are the graph's; new nodes are appended.
    pub nodes: Vec<Arc<Node>>,
    /// Fed tensors (node id, output).
    pub fed: HashSet<(usize, usize)>,
    /// Fetched and target nodes: kept as they are (TensorFlow's `nodes_to_preserve`).
    pub preserve: HashSet<usize>,
    /// The nodes the fetches and targets need (recomputed after each pass).
    pub needed: Vec<bool>,
    roots: Vec<usize>,
}

/// Data and control consumers of each node, among the needed ones.
pub(crate) struct Consumers {
    /// (consumer, input index) of each (node, output), by node id.
    pub data: Vec<Vec<(usize, usize, usize)>>,
    /// Consumers with a control input on each node.
    pub control: Vec<Vec<usize>>,
}

impl Consumers {
    /// How many data inputs read output `port` of `id`.
    pub fn reads_of(&self, id: usize, port: usize) -> usize {
        self.data[id].iter().filter(|c| c.2 == port).count()
    }
}

impl Work {
    pub(crate) fn new(
        nodes: Vec<Arc<Node>>,
        fed: HashSet<(usize, usize)>,
        fetches: &[(usize, usize)],
        targets: &[usize],
    ) -> Work {
        let preserve: HashSet<usize> = fetches.iter().map(|f| f.0).chain(targets.iter().copied()).collect();
        let roots: Vec<usize> =
            fetches.iter().filter(|f| !fed.contains(f)).map(|f| f.0).chain(targets.iter().copied()).collect();
        let mut w = Work { nodes, fed, preserve, needed: Vec::new(), roots };
        w.refresh();
        w
    }

    /// Recomputes [`Work::needed`]: what the roots reach through unfed data inputs and
    /// control inputs.
    pub(crate) fn refresh(&mut self) {
        let mut needed = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = self.roots.clone();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut needed[id], true) {
                continue;
            }
            let n = &self.nodes[id];
            stack.extend(n.inputs.iter().filter(|s| !self.fed.contains(s)).map(|s| s.0));
            stack.extend_from_slice(&n.control_inputs);
        }
        self.needed = needed;
    }

    /// The needed node ids, in id order.
    pub(crate) fn needed_ids(&self) -> Vec<usize> {
        (0..self.nodes.len()).filter(|&i| self.needed[i]).collect()
    }

    /// The needed nodes, inputs before their consumers (a depth-first post-order from the
    /// roots; an edge closing a cycle, a loop's back edge, is left out).
    pub(crate) fn topo_order(&self) -> Vec<usize> {
        // 0 unvisited, 1 on the stack, 2 done
        let mut state = vec![0u8; self.nodes.len()];
        let mut order = Vec::new();
        for &root in &self.roots {
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            while let Some(&mut (id, ref mut next)) = stack.last_mut() {
                let n = &self.nodes[id];
                let ins = n.inputs.len();
                let total = ins + n.control_inputs.len();
                if *next < total {
                    let k = *next;
                    *next += 1;
                    let src = if k < ins {
                        if self.fed.contains(&n.inputs[k]) {
                            continue;
                        }
                        n.inputs[k].0
                    } else {
                        n.control_inputs[k - ins]
                    };
                    if state[src] == 0 {
                        state[src] = 1;
                        stack.push((src, 0));
                    }
                } else {
                    state[id] = 2;
                    order.push(id);
                    stack.pop();
                }
            }
        }
        order
    }

    /// Data and control consumers among the needed nodes (a consumer reading a fed
    /// tensor is not a consumer of its producer).
    pub(crate) fn consumers(&self) -> Consumers {
        let mut data = vec![Vec::new(); self.nodes.len()];
        let mut control = vec![Vec::new(); self.nodes.len()];
        for id in self.needed_ids() {
            let n = &self.nodes[id];
            for (i, src) in n.inputs.iter().enumerate() {
                if !self.fed.contains(src) {
                    data[src.0].push((id, i, src.1));
                }
            }
            for &c in &n.control_inputs {
                control[c].push(id);
            }
        }
        Consumers { data, control }
    }

    /// True when some output of `id` is fed.
    pub(crate) fn is_fed(&self, id: usize) -> bool {
        (0..self.nodes[id].outputs.len()).any(|p| self.fed.contains(&(id, p)))
    }

    /// True when the optimiser may rewrite `id` away: not fetched, not a target, no output
    /// fed.
    pub(crate) fn may_remove(&self, id: usize) -> bool {
        !self.preserve.contains(&id) && !self.is_fed(id)
    }

    /// Appends `node`; returns its id.
    pub(crate) fn add(&mut self, node: Node) -> usize {
        self.nodes.push(Arc::new(node));
        self.needed.push(false);
        self.nodes.len() - 1
    }

    /// Replaces node `id` by `node` (same id: its consumers now read `node`).
    pub(crate) fn replace(&mut self, id: usize, node: Node) {
        self.nodes[id] = Arc::new(node);
    }

    /// Makes every needed data input reading `from` read `to` instead.
    pub(crate) fn rewire(&mut self, from: (usize, usize), to: (usize, usize)) {
        for id in self.needed_ids() {
            if self.nodes[id].inputs.contains(&from) {
                let n = Arc::make_mut(&mut self.nodes[id]);
                for src in n.inputs.iter_mut().filter(|s| **s == from) {
                    *src = to;
                }
            }
        }
    }

    /// A fresh node name: `base`, or `base_1`, `base_2`, ... when taken.
    pub(crate) fn unique_name(&self, base: &str) -> String {
        let taken = |n: &str| self.nodes.iter().any(|x| x.name == n);
        if !taken(base) {
            return base.to_string();
        }
        (1..).map(|i| format!("{base}_{i}")).find(|n| !taken(n)).unwrap_or_default()
    }
}

/// True for ops the optimiser never rewrites, removes or merges: stateful ops (TensorFlow's
/// `is_stateful` or tensorgraph's), control flow, variables, placeholders, unregistered
/// ops, and ops with reference inputs or resource or variant outputs (a variant value is
/// never folded into a `Const`: it has no serialized form here).
pub(crate) fn is_opaque(n: &Node) -> bool {
    let Ok(def) = ops::lookup(n.op_type) else { return true };
    def.is_stateful()
        || schema::op_def(n.op_type).is_none_or(|d| d.is_stateful)
        || control_flow(n.op_type).is_some()
        || is_variable(n.op_type)
        || matches!(n.op_type, "Placeholder" | "PlaceholderWithDefault")
        || n.outputs.iter().any(|o| matches!(o.0, DType::Resource | DType::Variant))
        || !def.ref_inputs().is_empty()
}

/// True for variable ops (`VariableV2`, `Variable`, `VarHandleOp`).
pub(crate) fn is_variable(op_type: &str) -> bool {
    matches!(op_type, "VariableV2" | "Variable" | "VarHandleOp")
}

/// A `Const` node `name` holding `value` (attrs `dtype` and `value`, as TensorFlow's).
pub(crate) fn const_node(name: String, value: crate::tensor::Tensor, device: &str) -> Node {
    let mut attrs = crate::graph::Attrs::new();
    let dtype = value.dtype();
    let shape = crate::tensor::Shape::known(value.shape());
    attrs.insert("dtype".to_string(), crate::graph::AttrValue::Type(dtype));
    attrs.insert("value".to_string(), crate::graph::AttrValue::Tensor(value));
    Node {
        name,
        op_type: "Const",
        inputs: Vec::new(),
        control_inputs: Vec::new(),
        attrs,
        outputs: vec![(dtype, shape)],
        device: device.to_string(),
    }
}

/// The value of `src` when it is a `Const` without control inputs and not fed.
pub(crate) fn const_value(w: &Work, src: (usize, usize)) -> Option<&crate::tensor::Tensor> {
    let n = &w.nodes[src.0];
    if n.op_type != "Const" || !n.control_inputs.is_empty() || w.fed.contains(&src) {
        return None;
    }
    n.attr_tensor("value").ok()
}
