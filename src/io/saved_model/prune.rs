//! The save half of a sharded saver holds op types tensorgraph does not register
//! (`StaticRegexFullMatch`, `StringJoin`, `ShardedFilename`, `MergeV2Checkpoints`: every
//! SavedModel TensorFlow 1.x's builder writes has them). Loading never runs them (the
//! variables are restored by name), so they are left out of the import when nothing the
//! loader or a signature uses depends on them.

use crate::format::proto::meta_graph::Kind;
use crate::format::proto::{MetaGraphDef, TensorInfo, TensorInfoEncoding, VariableDef};
use prost::Message;
use std::collections::{BTreeSet, HashMap};

/// The op name of a `NodeDef` input or a tensor name (`^a`, `a:1` → `a`).
fn op_of(input: &str) -> &str {
    let s = input.strip_prefix('^').unwrap_or(input);
    s.split_once(':').map_or(s, |(op, _)| op)
}

/// Every op name the meta graph refers to outside its `GraphDef`: signatures, collections
/// (op and tensor names, `VariableDef`s), the saver's restore op and filename tensor, assets.
fn referenced(meta: &MetaGraphDef) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let info = |t: &TensorInfo, names: &mut BTreeSet<String>| {
        if let Some(TensorInfoEncoding::Name(n)) = &t.encoding {
            names.insert(op_of(n).to_string());
        }
    };
    for sig in meta.signature_def.values() {
        for t in sig.inputs.values().chain(sig.outputs.values()) {
            info(t, &mut names);
        }
    }
    for a in &meta.asset_file_def {
        if let Some(t) = &a.tensor_info {
            info(t, &mut names);
        }
    }
    for c in meta.collection_def.values() {
        match &c.kind {
            Some(Kind::NodeList(l)) => names.extend(l.value.iter().map(|n| op_of(n).to_string())),
            Some(Kind::BytesList(l)) => {
                for b in &l.value {
                    if let Ok(v) = VariableDef::decode(b.as_slice()) {
                        for n in [&v.variable_name, &v.initializer_name, &v.snapshot_name, &v.initial_value_name] {
                            if !n.is_empty() {
                                names.insert(op_of(n).to_string());
                            }
                        }
                    }
                }
            }
            Some(Kind::AnyList(l)) => {
                for a in &l.value {
                    if let Ok(d) = crate::format::proto::AssetFileDef::decode(a.value.as_slice()) {
                        if let Some(t) = &d.tensor_info {
                            info(t, &mut names);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(s) = &meta.saver_def {
        names.insert(op_of(&s.restore_op_name).to_string());
        names.insert(op_of(&s.filename_tensor_name).to_string());
    }
    names
}

/// `meta` without the nodes of unregistered op types and the nodes that depend on them,
/// when none of those is an ancestor of (or is) a node the meta graph refers to; returns
/// the names left out (empty, with `meta` unchanged, otherwise: the import then reports the
/// unregistered op types as usual).
pub(crate) fn prune_unrunnable(meta: &MetaGraphDef) -> (MetaGraphDef, Vec<String>) {
    let Some(gd) = meta.graph_def.as_ref() else { return (meta.clone(), vec![]) };
    let unknown: Vec<usize> =
        gd.node.iter().enumerate().filter(|(_, n)| crate::ops::lookup(&n.op).is_err()).map(|(i, _)| i).collect();
    if unknown.is_empty() {
        return (meta.clone(), vec![]);
    }
    let index: HashMap<&str, usize> = gd.node.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    // consumers of each node, to find the descendants of the unknown ones
    let mut consumers: Vec<Vec<usize>> = vec![vec![]; gd.node.len()];
    for (i, n) in gd.node.iter().enumerate() {
        for inp in &n.input {
            if let Some(&j) = index.get(op_of(inp)) {
                consumers[j].push(i);
            }
        }
    }
    let mut removed = vec![false; gd.node.len()];
    let mut stack = unknown;
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut removed[i], true) {
            stack.extend(consumers[i].iter().copied());
        }
    }
    // ancestors of everything referenced must all stay
    let mut needed = vec![false; gd.node.len()];
    let mut stack: Vec<usize> = referenced(meta).iter().filter_map(|n| index.get(n.as_str()).copied()).collect();
    while let Some(i) = stack.pop() {
        if removed[i] {
            return (meta.clone(), vec![]);
        }
        if !std::mem::replace(&mut needed[i], true) {
            stack.extend(gd.node[i].input.iter().filter_map(|inp| index.get(op_of(inp)).copied()));
        }
    }
    let mut out = meta.clone();
    let mut names = Vec::new();
    if let Some(g) = out.graph_def.as_mut() {
        let nodes = std::mem::take(&mut g.node);
        for (n, gone) in nodes.into_iter().zip(&removed) {
            if *gone {
                names.push(n.name);
            } else {
                g.node.push(n);
            }
        }
    }
    // the loader never saves: a save tensor left out is no dangling reference of the import
    if let Some(def) = out.saver_def.as_mut() {
        if names.iter().any(|n| n == op_of(&def.save_tensor_name)) {
            def.save_tensor_name.clear();
        }
    }
    (out, names)
}
