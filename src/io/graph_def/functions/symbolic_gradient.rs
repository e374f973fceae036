//! `SymbolicGradient` (TF1's gradient of a `Defun` call, `f` its function): the function
//! is instantiated on import like a call, the node imported as an `IdentityN` of the
//! function's inputs, and once the graph holds the instantiated ops, tensorgraph's
//! symbolic gradients of the function's outputs (weighted by the node's incoming
//! gradients) replace those inputs.

use crate::error::{Error, Result};
use crate::graph::{Graph, Output};
use crate::ops;
use crate::train::gradients;

/// A `SymbolicGradient` node: imported as an `IdentityN` of the function's instantiated
/// inputs `xs`, then rewired to the gradients of its outputs `ys` weighted by `dys`
/// (names in the `GraphDef`).
pub(crate) struct SymbolicGradient {
    pub node: String,
    pub xs: Vec<String>,
    pub ys: Vec<String>,
    pub dys: Vec<String>,
}

/// Builds the gradients of the `SymbolicGradient` nodes in `grads` in `graph`, whose
/// `GraphDef` names were imported under `prefix` (`""`: unchanged); the ops added are
/// recorded as instantiated.
/// Errors: a gradient tensorgraph cannot build, naming the node.
pub(crate) fn build_gradients(graph: &Graph, grads: &[SymbolicGradient], prefix: &str) -> Result<()> {
    let full = |name: &str| if prefix.is_empty() { name.to_string() } else { format!("{prefix}/{name}") };
    let tensor = |name: &str| -> Result<Output> {
        let name = full(name);
        graph.tensor_by_name(if name.contains(':') { name.clone() } else { format!("{name}:0") }.as_str())
    };
    let start = graph.read().nodes.len();
    for sg in grads {
        let context = |e: Error| e.context(format!("gradient of SymbolicGradient '{}'", full(&sg.node)));
        let xs: Vec<Output> = sg.xs.iter().map(|n| tensor(n)).collect::<Result<_>>()?;
        let ys: Vec<Output> = sg.ys.iter().map(|n| tensor(n)).collect::<Result<_>>()?;
        let dys: Vec<Output> = sg.dys.iter().map(|n| tensor(n)).collect::<Result<_>>()?;
        let op = graph.operation_by_name(&full(&sg.node))?;
        let dxs =
            if ys.is_empty() { vec![None; xs.len()] } else { gradients(&ys, &xs, Some(&dys)).map_err(context)? };
        for (i, (dx, x)) in dxs.into_iter().zip(&xs).enumerate() {
            let dx = match dx {
                Some(d) => d,
                None => ops::zeros_like(&graph.scope().name_scope(&full(&sg.node)), x).map_err(context)?,
            };
            graph.update_input(&op, i, &dx).map_err(context)?;
        }
    }
    // the gradient's ops are the instantiation's: not written back by to_graph_def
    let mut g = graph.write();
    let end = g.nodes.len();
    g.functions.instantiated.extend(start..end);
    Ok(())
}
