//! `GraphDef` files in the protobuf text format (`.pbtxt`), and reading either format.

use crate::error::{Error, Result};
use crate::format::atomic_file::write_atomically;
use crate::format::proto::text::{graph_def_from_text, graph_def_to_text};
use crate::format::proto::GraphDef;
use crate::io::model_file::{read_model_file, Model};
use std::path::Path;

/// Writes `graph_def` in the text format, byte for byte what
/// `tf.io.write_graph(graph_def, dir, name, as_text=True)` writes. The file is replaced
/// atomically (written under a temporary name, then renamed).
/// Errors: those of [`graph_def_to_text`]; the file system's, with the path.
pub fn write_graph_def_text(graph_def: &GraphDef, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let text = graph_def_to_text(graph_def).map_err(|e| e.context(format!("writing {}", path.display())))?;
    write_atomically(path, text.as_bytes())
}

/// Reads a text-format `GraphDef` file (a `.pbtxt`), like
/// `text_format.Merge(open(path).read(), tf.compat.v1.GraphDef())`.
/// Errors: `NotFound` for a missing file; `InvalidArgument` naming the line and column
/// when the text is not a `GraphDef` (or not UTF-8).
pub fn read_graph_def_text(path: impl AsRef<Path>) -> Result<GraphDef> {
    let path = path.as_ref();
    let bytes = read(path)?;
    parse_text(&bytes).map_err(|e| e.context(path.display()))
}

/// Reads a `GraphDef` file in either format, by its content (see
/// [`read_model_file`](crate::io::model_file::read_model_file)): text or binary whatever
/// the extension says, as TensorFlow's `ReadBinaryProto` / `ReadTextProto` pair (or the
/// `freeze_graph` tool's `input_binary` flag) would with the right choice made for you.
/// Errors: `NotFound` for a missing file; `InvalidArgument` for text that is not a
/// `GraphDef` (with line and column), an empty file or a directory; `DataLoss` when a
/// binary file is not a `GraphDef` (damaged or truncated); and, naming what the file is
/// and what reads it, `InvalidArgument` for a meta graph (`Graph::import_meta_graph`) or a
/// checkpoint or a SavedModel (naming `SavedModelBundle::load`).
pub fn read_graph_def_any(path: impl AsRef<Path>) -> Result<GraphDef> {
    let path = path.as_ref();
    let file = read_model_file(path)?;
    match file.model {
        Model::Graph(gd) => Ok(gd),
        Model::Meta(_) => Err(Error::invalid_argument(format!(
            "{} is {} (.meta): import it with Graph::import_meta_graph, or read it with read_meta_graph; it is not a GraphDef",
            path.display(),
            file.kind.describe()
        ))),
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::from(e).context(format!("reading {}", path.display())))
}

fn parse_text(bytes: &[u8]) -> Result<GraphDef> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid_argument(format!("a text GraphDef must be UTF-8 ({e})")))?;
    graph_def_from_text(text)
}
