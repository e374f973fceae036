//! Graphs in TensorFlow's formats: [`Graph::to_graph_def`](crate::Graph::to_graph_def)
//! exports a graph as a `GraphDef` (`tf.Graph.as_graph_def`), and [`import_graph_def`]
//! adds a `GraphDef` (a frozen `.pb`, or a `.meta` file's `graph_def`) to a graph with
//! the semantics of `tf.import_graph_def`: name prefix, input map, return elements.
//! [`freeze`] turns a graph's variables into constants holding a session's values
//! (`convert_variables_to_constants`), pruned to what given outputs need ([`extract_sub_graph`]).
//!
//! ```no_run
//! use tensorgraph::io::graph_def::{import_graph_def, read_graph_def, ImportGraphDefOptions};
//! use tensorgraph::{Graph, Session};
//! # fn main() -> tensorgraph::Result<()> {
//! let gd = read_graph_def("frozen.pb")?;
//! let graph = Graph::new();
//! let r = import_graph_def(&graph, &gd, &ImportGraphDefOptions::new().return_elements(&["add_1:0"]))?;
//! let sess = Session::new(&graph)?;
//! let v = sess.run(&[], &[&r.output(0)?], &[])?; // "import/add_1:0"
//! # Ok(()) }
//! ```

mod dangling;
mod export;
mod freeze;
mod functions;
mod import;
mod text;
mod unknown_outputs;

pub use crate::format::proto::{GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER};
pub use crate::io::model_file::text_format_first_field;
pub(crate) use dangling::{dangling_references, without_dangling_references};
pub use freeze::{extract_sub_graph, freeze};
pub(crate) use import::import_graph_def_logged;
pub use import::{import_graph_def, ImportGraphDefOptions, ImportResult, ReturnElement};
pub use text::{read_graph_def_any, read_graph_def_text, write_graph_def_text};

use crate::error::{Error, Result};
use crate::format::proto::GraphDef;
use std::path::Path;

/// Reads a binary `GraphDef` file (a frozen `.pb`).
/// Errors: `NotFound` for a missing file; `DataLoss` when it is not a `GraphDef`.
pub fn read_graph_def(path: impl AsRef<Path>) -> Result<GraphDef> {
    let path = path.as_ref();
    let bytes = crate::io::file_bytes::read_shared(path, crate::io::model_file::starts_as_text)
        .map_err(|e| Error::from(e).context(format!("reading {}", path.display())))?;
    decode_binary(bytes).map_err(|e| e.context(path.display()))
}

/// Decodes a binary `GraphDef`; when that fails, the error says what the bytes are
/// instead (by [`model_file`](crate::io::model_file)'s sniffing: text for
/// `read_graph_def_text`, a `.meta` for `Graph::import_meta_graph`, a SavedModel, a V1
/// checkpoint, a checkpoint index, an event file), or that the file is damaged.
/// The constants' `tensor_content` are views of `bytes` ([`GraphDef::from_shared`]).
pub(crate) fn decode_binary(bytes: prost::bytes::Bytes) -> Result<GraphDef> {
    use crate::io::model_file::{sniff, ModelFileKind, Sniffed};
    GraphDef::from_shared(bytes.clone()).map_err(|e| {
        let hint = match sniff(&bytes, None) {
            Sniffed::Model(kind, _) | Sniffed::BadText(kind, _) if kind.is_text() => {
                "the file looks like text: read a .pbtxt with read_graph_def_text or read_graph_def_any".to_string()
            }
            Sniffed::Model(kind, _) if kind.is_meta() => {
                "the file is a MetaGraphDef (.meta): import it with Graph::import_meta_graph".to_string()
            }
            Sniffed::Other(ModelFileKind::SavedModel) => {
                format!("the file is a SavedModel, not a GraphDef; {}", crate::io::model_file::SAVED_MODEL_HINT)
            }
            Sniffed::Other(kind @ ModelFileKind::V1Checkpoint) => format!(
                "the file is {}, not a model; {}",
                kind.describe(),
                crate::format::checkpoint::tensor_slices::V1_CHECKPOINT_ADVICE
            ),
            Sniffed::Other(kind) => format!("the file is {}, not a model", kind.describe()),
            Sniffed::DamagedV1Checkpoint(what) => format!(
                "the file is a damaged {}, not a model: {what}",
                crate::format::checkpoint::tensor_slices::V1_CHECKPOINT.trim_start_matches("a ")
            ),
            _ => "the file is not a binary GraphDef (a frozen .pb), or it is damaged (truncated?)".to_string(),
        };
        e.context(hint)
    })
}

/// Writes `graph_def` as a binary file (`tf.io.write_graph(..., as_text=False)`),
/// atomically: a temporary file renamed into place.
/// Errors: the file system's, with the path.
pub fn write_graph_def(graph_def: &GraphDef, path: impl AsRef<Path>) -> Result<()> {
    crate::format::atomic_file::write_atomically(path.as_ref(), &graph_def.to_bytes())
}

/// Whether importing `graph_def` gives nodes of op type `op_type` something to run: a
/// registered op, a functional op (`PartitionedCall`, `StatefulPartitionedCall`, `If`,
/// `StatelessIf`, `While`, `StatelessWhile`, `SymbolicGradient`) instantiated from the
/// GraphDef's function library on import, or a call of one of the library's functions (TF1
/// `Defun`). Other op types are kept on import and fail only the runs that need them.
pub fn runs_op_type(graph_def: &GraphDef, op_type: &str) -> bool {
    crate::ops::lookup(op_type).is_ok()
        || functions::is_functional_op(op_type)
        || graph_def
            .library
            .as_ref()
            .and_then(|l| l.functions().ok())
            .is_some_and(|fs| fs.iter().any(|f| f.name() == op_type))
}
