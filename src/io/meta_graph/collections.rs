//! Graph collections ↔ `CollectionDef`s, including `VariableDef` for variable collections.

use crate::error::{Error, Result};
use crate::format::proto::meta_graph::{BytesList, FloatList, Int64List, Kind, NodeList};
use crate::format::proto::{CollectionDef, VariableDef};
use crate::graph::{CollectionItem, Graph, Node, VariableRecord};
use prost::Message;

/// Collections whose items are `VariableDef` protos (TensorFlow registers these keys).
pub(crate) const VARIABLE_COLLECTIONS: [&str; 6] = [
    "variables",
    "trainable_variables",
    "local_variables",
    "model_variables",
    "moving_average_variables",
    "metric_variables",
];

fn tensor_name(nodes: &[std::sync::Arc<Node>], (op, idx): (usize, usize)) -> String {
    format!("{}:{idx}", nodes[op].name)
}

/// The `VariableDef` of a variable record (`variable_name: "v:0"`, ...).
pub(crate) fn variable_def(nodes: &[std::sync::Arc<Node>], r: &VariableRecord) -> VariableDef {
    VariableDef {
        variable_name: format!("{}:0", nodes[r.var_op].name),
        initial_value_name: tensor_name(nodes, r.initial_value),
        initializer_name: nodes[r.initializer].name.clone(),
        snapshot_name: tensor_name(nodes, r.snapshot),
        trainable: r.trainable,
        is_resource: nodes[r.var_op].op_type == "VarHandleOp",
        ..Default::default()
    }
}

/// Exports one collection. Errors: `InvalidArgument` when it mixes kinds of items.
pub(crate) fn export(graph: &Graph, name: &str, items: &[CollectionItem]) -> Result<CollectionDef> {
    let g = graph.read();
    let nodes = &g.nodes;
    let mixed = || Error::invalid_argument(format!("collection '{name}' mixes kinds of items and cannot be exported"));
    let kind = match items.first() {
        None => Kind::NodeList(NodeList::default()),
        Some(CollectionItem::Variable(_)) | Some(CollectionItem::Bytes(_)) => {
            let mut v = Vec::with_capacity(items.len());
            for it in items {
                v.push(match it {
                    CollectionItem::Variable(r) => variable_def(nodes, r).encode_to_vec(),
                    CollectionItem::Bytes(b) => b.clone(),
                    _ => return Err(mixed()),
                });
            }
            Kind::BytesList(BytesList { value: v })
        }
        Some(CollectionItem::Op(_)) | Some(CollectionItem::Tensor(..)) => {
            let mut v = Vec::with_capacity(items.len());
            for it in items {
                v.push(match it {
                    CollectionItem::Op(id) => nodes[*id].name.clone(),
                    CollectionItem::Tensor(op, idx) => tensor_name(nodes, (*op, *idx)),
                    _ => return Err(mixed()),
                });
            }
            Kind::NodeList(NodeList { value: v })
        }
        Some(CollectionItem::Int(_)) => Kind::Int64List(Int64List {
            value: items
                .iter()
                .map(|i| if let CollectionItem::Int(v) = i { Ok(*v) } else { Err(mixed()) })
                .collect::<Result<_>>()?,
        }),
        Some(CollectionItem::Float(_)) => Kind::FloatList(FloatList {
            value: items
                .iter()
                .map(|i| if let CollectionItem::Float(v) = i { Ok(*v) } else { Err(mixed()) })
                .collect::<Result<_>>()?,
        }),
    };
    Ok(CollectionDef { kind: Some(kind) })
}

/// Resolves `name` (`op` or `op:idx`), under the import scope, to a node id.
fn lookup_op(graph: &Graph, scope: &str, name: &str) -> Result<usize> {
    let full = if scope.is_empty() { name.to_string() } else { format!("{scope}/{name}") };
    Ok(graph.operation_by_name(&full)?.id())
}

fn lookup_tensor(graph: &Graph, scope: &str, name: &str) -> Result<(usize, usize)> {
    let full = if scope.is_empty() { name.to_string() } else { format!("{scope}/{name}") };
    graph.tensor_by_name(&full).map(|o| o.key()).map_err(|e| e.context(format!("entry '{full}'")))
}

/// Rebuilds the items of collection `name` from an imported `CollectionDef`, each item or
/// its error (so that the caller can report every bad item): `NotFound` when an item names
/// an op or tensor the graph lacks; `DataLoss` for an undecodable `VariableDef`.
pub(crate) fn import(graph: &Graph, scope: &str, name: &str, def: &CollectionDef) -> Vec<Result<CollectionItem>> {
    let ctx = |e: Error| e.context(format!("collection '{name}'"));
    let items: Vec<CollectionItem> = match &def.kind {
        None => vec![],
        Some(Kind::NodeList(l)) => {
            return l
                .value
                .iter()
                .map(|n| {
                    if n.contains(':') {
                        lookup_tensor(graph, scope, n).map(|(o, i)| CollectionItem::Tensor(o, i))
                    } else {
                        lookup_op(graph, scope, n).map(CollectionItem::Op)
                    }
                })
                .map(|r| r.map_err(ctx))
                .collect()
        }
        Some(Kind::BytesList(l)) if VARIABLE_COLLECTIONS.contains(&name) => {
            return l
                .value
                .iter()
                .map(|b| {
                    let d = VariableDef::decode(b.as_slice())
                        .map_err(|e| Error::data_loss(format!("bad VariableDef: {e}")))?;
                    let var = lookup_tensor(graph, scope, &d.variable_name)?;
                    let snapshot = lookup_tensor(graph, scope, &d.snapshot_name)?;
                    let initializer = lookup_op(graph, scope, &d.initializer_name)?;
                    let initial_value = if d.initial_value_name.is_empty() {
                        snapshot
                    } else {
                        lookup_tensor(graph, scope, &d.initial_value_name)?
                    };
                    Ok(CollectionItem::Variable(VariableRecord {
                        var_op: var.0,
                        snapshot,
                        initializer,
                        initial_value,
                        trainable: d.trainable,
                    }))
                })
                .map(|r| r.map_err(ctx))
                .collect()
        }
        Some(Kind::BytesList(l)) => l.value.iter().map(|b| CollectionItem::Bytes(b.clone())).collect(),
        Some(Kind::Int64List(l)) => l.value.iter().map(|&v| CollectionItem::Int(v)).collect(),
        Some(Kind::FloatList(l)) => l.value.iter().map(|&v| CollectionItem::Float(v)).collect(),
        Some(Kind::AnyList(_)) => {
            let bytes = def.encode_to_vec();
            vec![CollectionItem::Bytes(bytes)]
        }
    };
    items.into_iter().map(Ok).collect()
}
