//! Graph → `MetaGraphDef` (`tf.train.export_meta_graph`).

use super::collections;
use crate::error::Result;
use crate::format::proto::{MetaGraphDef, MetaInfoDef, SaverDef};
use crate::graph::Graph;
use std::path::Path;

/// The graph's meta graph: its `GraphDef` with `_output_shapes` (as TensorFlow's
/// `export_meta_graph`), every collection (`variables` and `trainable_variables` as
/// `VariableDef`s, `train_op` as node names, ...), `saver_def` when given (see
/// [`Saver::as_saver_def`](crate::train::Saver::as_saver_def); [`Saver::export_meta_graph`](crate::train::Saver::export_meta_graph)
/// passes its saver's), and `meta_info_def` whose
/// `stripped_op_list` holds the full `OpDef` (descriptions stripped: inputs, outputs, attrs
/// with defaults and allowed values) of each op type used, sorted by name, as TensorFlow's
/// `stripped_op_list_for_graph` writes it (see [`crate::ops::schema::stripped_op_list`]).
/// Errors: `InvalidArgument` when a collection mixes kinds of items.
pub fn export_meta_graph(graph: &Graph, saver_def: Option<SaverDef>) -> Result<MetaGraphDef> {
    let graph_def = graph.to_graph_def_with_shapes();
    let stripped = crate::ops::schema::stripped_op_list(graph_def.node.iter().map(|n| n.op.as_str()));
    let mut collection_def = std::collections::BTreeMap::new();
    for name in graph.collection_names() {
        collection_def.insert(name.clone(), collections::export(graph, &name, &graph.collection(&name))?);
    }
    Ok(MetaGraphDef {
        meta_info_def: Some(MetaInfoDef { stripped_op_list: Some(stripped), ..Default::default() }),
        graph_def: Some(graph_def),
        saver_def,
        collection_def,
        ..Default::default()
    })
}

/// Writes `meta` to `path` (a `.meta` file), atomically (temporary file, then rename).
/// Errors: the file system's, naming the path.
pub fn write_meta_graph(meta: &MetaGraphDef, path: impl AsRef<Path>) -> Result<()> {
    crate::format::atomic_file::write_atomically(path.as_ref(), &meta.to_bytes())
}
