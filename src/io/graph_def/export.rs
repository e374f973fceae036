//! `Graph` → `GraphDef` (`tf.Graph.as_graph_def`).

use crate::format::proto::{AttrMap, AttrValue, FunctionDefLibrary, GraphDef, NodeDef, VersionDef};
use crate::graph::{AttrValue as GraphAttr, CallRecord, Graph, GraphData, Node};
use std::sync::Arc;

/// The input string of output `index` of `name`: `name` for output 0, else `name:index`.
pub(crate) fn input_name(name: &str, index: usize) -> String {
    if index == 0 {
        name.to_string()
    } else {
        format!("{name}:{index}")
    }
}

fn node_def(nodes: &[Arc<Node>], n: &Node, add_shapes: bool) -> NodeDef {
    let mut input: Vec<String> = n.inputs.iter().map(|&(src, i)| input_name(&nodes[src].name, i)).collect();
    input.extend(n.control_inputs.iter().map(|&c| format!("^{}", nodes[c].name)));
    let mut attr: AttrMap<AttrValue> = n.attrs.iter().map(|(k, v)| (k.clone(), v.to_proto())).collect();
    // TensorFlow writes the attr for ops with outputs only
    // (an unknown op keeps the shapes its GraphDef gave it: they say more than "unknown")
    let keeps_shapes = attr.contains_key("_output_shapes") && !crate::ops::unknown::is_registered(n.op_type);
    if add_shapes && !n.outputs.is_empty() && !keeps_shapes {
        let shapes = GraphAttr::ListShape(n.outputs.iter().map(|(_, s)| s.clone()).collect());
        attr.insert("_output_shapes".to_string(), shapes.to_proto());
    }
    NodeDef {
        name: n.name.clone(),
        op: n.op_type.to_string(),
        input,
        device: n.device.clone(),
        attr,
        experimental_debug_info: None,
        experimental_type: None,
    }
}

/// A call node instantiated on import, written as the `GraphDef` had it (`rec`).
fn call_node_def(nodes: &[Arc<Node>], n: &Node, rec: &CallRecord, add_shapes: bool) -> NodeDef {
    let mut def = node_def(nodes, n, add_shapes);
    let mut input: Vec<String> = rec.inputs.iter().map(|&(src, i)| input_name(&nodes[src].name, i)).collect();
    input.extend(rec.control_inputs.iter().map(|&c| format!("^{}", nodes[c].name)));
    def.input = input;
    def.op = rec.op.clone();
    let shapes = def.attr.get("_output_shapes").cloned();
    def.attr = rec.attr.clone();
    if let Some(s) = shapes {
        def.attr.insert("_output_shapes".to_string(), s);
    }
    def
}

/// Which nodes `to_graph_def` writes: all but those instantiated from functions on
/// import, unless a written node reads them (a gradient built on an instantiated op).
fn written(g: &GraphData) -> Vec<bool> {
    let f = &g.functions;
    let mut out: Vec<bool> = (0..g.nodes.len()).map(|i| !f.instantiated.contains(&i)).collect();
    if f.instantiated.is_empty() {
        return out;
    }
    let mut stack: Vec<usize> = (0..g.nodes.len()).filter(|&i| out[i]).collect();
    while let Some(i) = stack.pop() {
        let (data, control) = match f.calls.get(&i) {
            Some(rec) => (&rec.inputs, &rec.control_inputs),
            None => (&g.nodes[i].inputs, &g.nodes[i].control_inputs),
        };
        for src in data.iter().map(|&(s, _)| s).chain(control.iter().copied()) {
            if !out[src] {
                out[src] = true;
                stack.push(src);
            }
        }
    }
    out
}

impl Graph {
    /// The function library of the `GraphDef`s imported into this graph (their `library`
    /// fields merged, each function name defined once), as [`Graph::to_graph_def`] writes
    /// it; `None` when there is none.
    pub fn function_library(&self) -> Option<FunctionDefLibrary> {
        let g = self.read();
        (!g.functions.library.is_empty()).then(|| g.functions.library.clone())
    }

    /// True when op `id` was made by instantiating a function body on import (a node of a
    /// called function, or of a lowered `If`/`While`); [`Graph::to_graph_def`] leaves it out
    /// unless another written node reads it.
    pub fn is_instantiated(&self, id: usize) -> bool {
        self.read().functions.instantiated.contains(&id)
    }

    /// The graph as a `GraphDef` (`tf.Graph.as_graph_def()`): every node in creation
    /// order with its op type, inputs (`name`, `name:1`, then control inputs `^name`),
    /// device and attrs, and the graph's [`versions`](Graph::versions): `{producer: 2474}`
    /// as TensorFlow 2.21 writes for a graph built here, an imported GraphDef's (merged)
    /// for an imported one, as TensorFlow keeps them. A
    /// graph imported with a function library writes it back (`library`), its function
    /// calls as they were read (the nodes their instantiation made are left out unless
    /// another written node reads them).
    pub fn to_graph_def(&self) -> GraphDef {
        self.graph_def_impl(false)
    }

    /// As [`Graph::to_graph_def`], each node also carrying the `_output_shapes` attr with
    /// its inferred output shapes (`as_graph_def(add_shapes=True)`, as in `.meta` files).
    pub fn to_graph_def_with_shapes(&self) -> GraphDef {
        self.graph_def_impl(true)
    }

    /// The GraphDef versions this graph writes (`tf.Graph.graph_def_versions`): TensorFlow
    /// 2.21's (`producer` 2474, `min_consumer` 0) for a graph built here; after importing
    /// GraphDefs, the lowest producer, the highest `min_consumer` and all bad consumers of
    /// the graph and the imports (TensorFlow's importer), so that a graph imported from a
    /// producer-26 GraphDef exports, and freezes, as producer 26.
    pub fn versions(&self) -> VersionDef {
        self.read().graph_versions()
    }

    fn graph_def_impl(&self, add_shapes: bool) -> GraphDef {
        let g = self.read();
        let written = written(&g);
        let node = g
            .nodes
            .iter()
            .enumerate()
            .filter(|&(i, _)| written[i])
            .map(|(i, n)| match g.functions.calls.get(&i) {
                Some(rec) => call_node_def(&g.nodes, n, rec, add_shapes),
                None => node_def(&g.nodes, n, add_shapes),
            })
            .collect();
        let library = &g.functions.library;
        GraphDef {
            node,
            library: (!library.is_empty()).then(|| library.clone()),
            version: 0,
            versions: Some(g.graph_versions()),
            debug_info: None,
        }
    }
}
