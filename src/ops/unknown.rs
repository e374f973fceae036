//! Nodes whose op type tensorgraph does not register ("unknown ops"). TensorFlow refuses a
//! whole GraphDef for one unknown op type; here an import keeps such nodes (their schema
//! unknown, their outputs of unknown shape), and only a run that needs one fails. This file
//! holds what the layers above share about them: the interned op-type names
//! (`op_type_name`), the list of a graph's unknown ops ([`Graph::unknown_ops`]), the
//! one-line warning ([`unknown_ops_warning`]) and the errors of a run or a gradient that
//! reaches one.

use super::{lookup, Kernel, KernelCtx};
use crate::error::{Error, Result};
use crate::graph::{Graph, Operation};
use crate::tensor::Tensor;
use rustc_hash::FxHashSet as HashSet;
use std::sync::{LazyLock, Mutex};

/// Op-type names of unknown ops, interned: a node stores its op type as `&'static str`.
static UNKNOWN_NAMES: LazyLock<Mutex<HashSet<&'static str>>> = LazyLock::new(Default::default);

/// True when tensorgraph registers op type `op_type` (see [`lookup`]).
pub fn is_registered(op_type: &str) -> bool {
    lookup(op_type).is_ok()
}

/// The `&'static str` a node stores for op type `op_type`: the registry's name for a
/// registered type, else the name interned (kept for the life of the process, once per
/// distinct name).
pub(crate) fn op_type_name(op_type: &str) -> &'static str {
    if let Ok(def) = lookup(op_type) {
        return def.op_type();
    }
    let mut names = UNKNOWN_NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&name) = names.get(op_type) {
        return name;
    }
    let name: &'static str = Box::leak(op_type.to_string().into_boxed_str());
    names.insert(name);
    name
}

impl Graph {
    /// The ops of this graph whose op type tensorgraph does not register, in creation
    /// order: nodes an import kept although it cannot run them (see
    /// [`import_graph_def`](crate::io::graph_def::import_graph_def)). A run that needs one
    /// fails with `Unimplemented` naming them; other runs are unaffected.
    pub fn unknown_ops(&self) -> Vec<Operation> {
        let g = self.read();
        g.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !is_registered(n.op_type))
            .map(|(id, _)| Operation { graph: self.clone(), id })
            .collect()
    }
}

/// The warning for unknown ops, one line, their op types with node counts, most frequent
/// first: `3 node(s) have op types tensorgraph does not implement: Bucketize (2), Foo (1);
/// they were kept, and only a run that needs one of them fails`. `None` when `op_types`
/// (one entry per node) is empty.
pub fn unknown_ops_warning<'a>(op_types: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut total = 0;
    for op in op_types {
        total += 1;
        match counts.iter_mut().find(|(o, _)| *o == op) {
            Some((_, n)) => *n += 1,
            None => counts.push((op, 1)),
        }
    }
    if total == 0 {
        return None;
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let types = counts.iter().map(|(op, n)| format!("{op} ({n})")).collect::<Vec<_>>().join(", ");
    Some(format!(
        "{total} node(s) have op types tensorgraph does not implement: {types}; they were kept, and only a run that needs one of them fails"
    ))
}

/// The warning for the unknown ops `ops` of one graph, one line: [`unknown_ops_warning`]
/// for those of op types tensorgraph does not implement, and for function calls an import
/// kept because their function cannot be instantiated, `1 function call(s) cannot be
/// instantiated: 'call' (function 'F' cannot be instantiated: ...); they were kept, and only
/// a run that needs one of them fails`. `None` when `ops` is empty.
pub fn unknown_ops_warning_for(ops: &[Operation]) -> Option<String> {
    let graph = ops.first()?.graph().clone();
    let g = graph.read();
    let mut calls = Vec::new();
    let mut types = Vec::new();
    for op in ops {
        match g.functions.uninstantiable.get(&op.id()) {
            Some((name, e)) => calls.push(format!("'{name}' ({})", e.message)),
            None => types.push(g.nodes[op.id()].op_type),
        }
    }
    let calls = (!calls.is_empty()).then(|| {
        format!(
            "{} function call(s) cannot be instantiated: {}; they were kept, and only a run that needs one of them fails",
            calls.len(),
            calls.join(", ")
        )
    });
    match (unknown_ops_warning(types), calls) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// `'a' (Bucketize), 'b' (Foo)`.
fn node_list(nodes: &[(String, &str)]) -> String {
    nodes.iter().map(|(name, op)| format!("'{name}' ({op})")).collect::<Vec<_>>().join(", ")
}

/// The `Unimplemented` error of a run whose plan needs the unknown ops `nodes` (name, op
/// type), all of them named: `the run needs 2 node(s) whose op types tensorgraph does not
/// implement: 'a' (Bucketize), 'b' (Foo); feed or fetch around them`.
pub fn unknown_ops_error(nodes: &[(String, &str)]) -> Error {
    Error::unimplemented(format!(
        "the run needs {} node(s) whose op types tensorgraph does not implement: {}; feed or fetch around them",
        nodes.len(),
        node_list(nodes)
    ))
}

/// The kernel of an unknown op in a plan where it may not run (it sits after a `Switch`,
/// on a branch that may be dead): fails only when it runs live, naming itself and every
/// unknown op of the plan.
pub(crate) struct UnknownKernel {
    message: String,
}

impl UnknownKernel {
    /// The kernel of unknown node `name` (op type `op_type`) in a plan whose unknown ops
    /// are `all`.
    pub(crate) fn new(name: &str, op_type: &str, all: &[(String, &str)]) -> Self {
        let message = format!(
            "node '{name}' ({op_type}) was reached on the run's live path, but tensorgraph does not implement op type {op_type}; the run's plan holds {} such node(s): {}",
            all.len(),
            node_list(all)
        );
        UnknownKernel { message }
    }
}

impl Kernel for UnknownKernel {
    fn compute(&self, _ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        Err(Error::unimplemented(self.message.clone()))
    }
}

/// The `Unimplemented` error of a gradient through unknown node `name` (op type `op_type`).
pub fn unknown_op_gradient_error(name: &str, op_type: &str) -> Error {
    Error::unimplemented(format!(
        "cannot compute the gradient through node '{name}' ({op_type}): tensorgraph does not implement op type {op_type}"
    ))
}
