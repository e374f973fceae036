//! Freezing a graph: variables become constants holding a session's values
//! (`tf.compat.v1.graph_util.convert_variables_to_constants`), and pruning a `GraphDef` to
//! what some nodes need (`tf.compat.v1.graph_util.extract_sub_graph`).

use crate::error::{Error, Result};
use crate::format::proto::{AttrMap, AttrValue, AttrValueKind, GraphDef, NodeDef, TensorProto, DT_RESOURCE};
use crate::graph::{traversal, Graph};
use crate::session::Session;
use crate::tensor::Tensor;
use std::collections::{HashMap, HashSet};

/// Op types of variables that freezing turns into `Const` nodes (TensorFlow's list).
const VARIABLE_OPS: [&str; 3] = ["Variable", "VariableV2", "VarHandleOp"];

/// True for op types that modify (or test) the variable they get as input: kept after
/// freezing, they would have a constant where they need a variable.
fn mutates_variable(op: &str) -> bool {
    matches!(
        op,
        "Assign"
            | "AssignAdd"
            | "AssignSub"
            | "AssignVariableOp"
            | "AssignAddVariableOp"
            | "AssignSubVariableOp"
            | "IsVariableInitialized"
            | "VarIsInitializedOp"
            | "CountUpTo"
            | "DestroyResourceOp"
    ) || ["Apply", "ResourceApply", "SparseApply", "ResourceSparseApply", "Scatter", "ResourceScatter"]
        .iter()
        .any(|p| op.starts_with(p))
}

/// The node name of a `GraphDef` input: `^a` → `a`, `a:1` → `a`.
fn node_name(input: &str) -> &str {
    let s = input.strip_prefix('^').unwrap_or(input);
    match s.rsplit_once(':') {
        Some((n, idx)) if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => s,
    }
}

/// Resolves a requested output (`"probs"`, also accepted as `"probs:0"`) to a node name
/// of `index`. Errors: `NotFound` naming it.
fn resolve_output<'a>(index: &HashMap<&'a str, usize>, name: &'a str) -> Result<&'a str> {
    if index.contains_key(name) {
        return Ok(name);
    }
    if let Some(node) = name.strip_prefix('^') {
        return Err(Error::invalid_argument(format!(
            "output '{name}' is written as a control input; give the node name '{node}'"
        )));
    }
    if let Some((node, idx)) = name.rsplit_once(':') {
        if index.contains_key(node) && idx.parse::<usize>().is_err() {
            return Err(Error::invalid_argument(format!(
                "output '{name}': the output index '{idx}' is not a number (write '{node}' or '{node}:0')"
            )));
        }
    }
    let bare = node_name(name);
    if index.contains_key(bare) {
        return Ok(bare);
    }
    Err(Error::not_found(format!("Output node '{name}' is not in the graph")))
}

/// `tf.compat.v1.graph_util.extract_sub_graph(graph_def, dest_nodes)`: the nodes of
/// `graph_def` that `dest_nodes` need, following data and control inputs, in their
/// original order; `library` and `versions` are copied (an absent library becomes an
/// empty one, as TensorFlow's `CopyFrom` writes it).
///
/// A destination may be given as a node name (`probs`) or, unlike TensorFlow, as a tensor
/// name (`probs:0`; the index is not checked, as a GraphDef does not say how many outputs
/// a node has). Errors: `NotFound` naming a destination the GraphDef lacks;
/// `InvalidArgument` when a node names an input the GraphDef lacks.
pub fn extract_sub_graph(graph_def: &GraphDef, dest_nodes: &[&str]) -> Result<GraphDef> {
    let nodes = &graph_def.node;
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    let roots =
        dest_nodes.iter().map(|d| resolve_output(&index, d).map(|name| index[name])).collect::<Result<Vec<_>>>()?;
    let keep = traversal::reachable(nodes.len(), roots, |i, next| {
        for input in &nodes[i].input {
            let Some(&j) = index.get(node_name(input)) else {
                return Err(Error::invalid_argument(format!("Node '{}': Unknown input node '{input}'", nodes[i].name)));
            };
            next.push(j);
        }
        Ok(())
    })?;
    Ok(GraphDef {
        node: nodes.iter().zip(&keep).filter(|(_, k)| **k).map(|(n, _)| n.clone()).collect(),
        library: Some(graph_def.library.clone().unwrap_or_default()),
        version: graph_def.version,
        versions: graph_def.versions.clone(),
        debug_info: None,
    })
}

/// The `Const` node TensorFlow writes for a frozen variable: only its name, op, `dtype` and
/// `value` (`make_tensor_proto` of the value; device and other attrs are dropped).
fn const_node(name: &str, dtype: AttrValue, value: &Tensor) -> NodeDef {
    let mut attr = AttrMap::new();
    attr.insert("dtype".to_string(), dtype);
    attr.insert("value".to_string(), AttrValue::new(AttrValueKind::Tensor(Box::new(TensorProto::from_tensor(value)))));
    NodeDef { name: name.to_string(), op: "Const".to_string(), attr, ..Default::default() }
}

/// The session's value of the variable node `var` (`VariableV2`/`Variable`: its state;
/// `VarHandleOp`: what `<name>/Read/ReadVariableOp`, or else any `ReadVariableOp` of the
/// handle, reads, as TensorFlow runs). Errors: `FailedPrecondition` for an uninitialized
/// variable or a resource variable nothing reads.
fn variable_value(graph: &Graph, session: &Session, var: &NodeDef) -> Result<Tensor> {
    let op = graph.operation_by_name(&var.name)?;
    if var.op != "VarHandleOp" {
        return session.variable_value(&op).ok_or_else(|| crate::ops::uninitialized(&var.name));
    }
    let read = graph.operation_by_name(&format!("{}/Read/ReadVariableOp", var.name)).ok().or_else(|| {
        let g = graph.read();
        g.nodes
            .iter()
            .position(|n| n.op_type == "ReadVariableOp" && n.inputs.first().is_some_and(|&(src, _)| src == op.id()))
            .map(|id| crate::graph::Operation { graph: graph.clone(), id })
    });
    let Some(read) = read else {
        return Err(Error::failed_precondition(format!(
            "cannot freeze resource variable '{}': the graph has no ReadVariableOp of it to read its value",
            var.name
        )));
    };
    session.fetch(&[], &read.output(0)?).map_err(|e| e.context(format!("reading resource variable '{}'", var.name)))
}

/// Freezes `graph` for serving, as `tf.compat.v1.graph_util.convert_variables_to_constants(
/// session, graph.as_graph_def(), outputs)` does:
///
/// 1. the graph is pruned to the nodes the `outputs` (node names such as `probs`) need,
///    following data and control inputs ([`extract_sub_graph`]), keeping the graph's order;
///    initializers, `Assign`s, saver and training ops drop out unless an output needs them;
/// 2. each remaining `VariableV2` (or `Variable`, `VarHandleOp`) becomes a `Const` node of
///    the same name whose `dtype` and `value` attrs hold the session's current value (written
///    as `make_tensor_proto` writes it: `tensor_content` for more than one element);
/// 3. each `ReadVariableOp` of a frozen resource variable becomes an `Identity` (attr `T` from
///    its `dtype`, `_class` kept), and `Identity` nodes passing the handle on get `T` = the
///    variable's dtype.
///
/// Everything else is copied unchanged (`v1/read` stays an `Identity` with its `_class`).
/// The result imports with [`import_graph_def`](super::import_graph_def) here and with
/// `tf.import_graph_def` in TensorFlow.
///
/// Differences from TensorFlow: an output may also be written `probs:0`; an output that
/// needs an op modifying a variable (`Assign`, `ApplyAdam`, ...) is an error here, where
/// TensorFlow writes a graph that fails to import; tensorgraph's `_output_shapes` attrs
/// (kept from an imported `.meta`) are dropped, as TensorFlow's graphs never hold them.
///
/// Errors: `NotFound` naming an output the graph lacks, with the closest node names (`Did you
/// mean 'add_1'?`, or `'import/probs'` for `probs`); `InvalidArgument` when `outputs`
/// is empty, an output index is past the op's outputs, `session` runs another graph or
/// an output needs an op that modifies a variable;
/// `FailedPrecondition` naming an uninitialized variable the outputs need.
pub fn freeze(graph: &Graph, session: &Session, outputs: &[&str]) -> Result<GraphDef> {
    if !session.graph().same(graph) {
        return Err(Error::invalid_argument(
            "freeze: the session runs another graph; pass the session created on this graph",
        ));
    }
    if outputs.is_empty() {
        return Err(Error::invalid_argument("freeze: give at least one output node name (e.g. \"probs\")"));
    }
    for o in outputs {
        // node names hold no ':', so what comes before one is the node
        let bare = o.strip_prefix('^').unwrap_or(o);
        let node = bare.split_once(':').map_or(bare, |(n, _)| n);
        if graph.operation_by_name(node).is_err() {
            let hint = graph.similar_names(node, "");
            return Err(Error::not_found(format!("Output node '{o}' is not in the graph.{hint}")));
        }
        if let (name, Some(idx)) = (node_name(o), o.rsplit_once(':').map(|(_, i)| i)) {
            let Ok(op) = graph.operation_by_name(name) else { continue }; // InvalidArgument below
            let n = op.num_outputs();
            if idx.parse::<usize>().map_or(true, |i| i >= n) {
                return Err(Error::invalid_argument(format!(
                    "freeze: output '{o}' names output {idx} of '{name}', which has {n} output(s)"
                )));
            }
        }
    }
    let mut full = graph.to_graph_def();
    for n in &mut full.node {
        n.attr.remove("_output_shapes");
    }
    let mut gd = extract_sub_graph(&full, outputs)?;
    drop(full);

    // variables to convert, and their dtypes
    let mut converted: HashMap<String, AttrValue> = HashMap::new();
    for i in 0..gd.node.len() {
        if !VARIABLE_OPS.contains(&gd.node[i].op.as_str()) {
            continue;
        }
        let var = &gd.node[i];
        let value = variable_value(graph, session, var)?;
        let dtype = var.attr.get("dtype").cloned().unwrap_or_else(|| {
            AttrValue::new(AttrValueKind::Type(crate::format::proto::dtype_to_proto(value.dtype())))
        });
        let node = const_node(&var.name, dtype.clone(), &value);
        converted.insert(var.name.clone(), dtype);
        gd.node[i] = node;
    }
    if converted.is_empty() {
        return Ok(gd);
    }

    // consumers of converted variables (and of Identity nodes passing resource handles on)
    let mut resource_like: HashMap<String, AttrValue> = converted.clone();
    let mut visited: HashSet<usize> = HashSet::new();
    loop {
        let mut changed = false;
        for i in 0..gd.node.len() {
            if visited.contains(&i) {
                continue;
            }
            let n = &gd.node[i];
            let Some(dtype) =
                n.input.iter().filter(|s| !s.starts_with('^')).find_map(|s| resource_like.get(node_name(s))).cloned()
            else {
                continue;
            };
            let src = n.input.iter().map(|s| node_name(s)).find(|s| resource_like.contains_key(*s)).unwrap_or("");
            if mutates_variable(&n.op) {
                return Err(Error::invalid_argument(format!(
                    "cannot freeze: node '{}' ({}) modifies variable '{src}', which freezing turns into a constant; choose outputs that do not depend on it",
                    n.name, n.op
                )));
            }
            visited.insert(i);
            match n.op.as_str() {
                "ReadVariableOp" => {
                    let old = gd.node[i].clone();
                    let mut attr = AttrMap::new();
                    attr.insert("T".to_string(), old.attr.get("dtype").cloned().unwrap_or(dtype));
                    if let Some(c) = old.attr.get("_class") {
                        attr.insert("_class".to_string(), c.clone());
                    }
                    gd.node[i] = NodeDef {
                        name: old.name,
                        op: "Identity".to_string(),
                        input: old.input,
                        attr,
                        ..Default::default()
                    };
                }
                "Identity"
                    if gd.node[i].attr.get("T").is_some_and(|t| t.value == Some(AttrValueKind::Type(DT_RESOURCE))) =>
                {
                    gd.node[i].attr.insert("T".to_string(), dtype.clone());
                    resource_like.insert(gd.node[i].name.clone(), dtype);
                    changed = true;
                }
                _ => {}
            }
        }
        if !changed {
            break;
        }
    }
    Ok(gd)
}
