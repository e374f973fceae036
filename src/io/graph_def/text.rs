//! `GraphDef` files in the protobuf text format (`.pbtxt`), and reading either format.

use crate::error::{Error, Result};
use crate::format::atomic_file::write_atomically;
use crate::format::proto::text::{graph_def_from_text, graph_def_to_text};
use crate::format::proto::GraphDef;
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

/// Reads a `GraphDef` file in either format, as TensorFlow's `ReadBinaryProto` /
/// `ReadTextProto` pair (or the `freeze_graph` tool's `input_binary` flag) would: a
/// `.pbtxt` (or `.pbtext`, `.txt`) file as text, a `.pb` (or `.graphdef`) file as binary,
/// and any other file as text when it looks like a text-format message (see
/// [`text_format_first_field`]) that parses, else as binary.
/// Errors: `NotFound` for a missing file; `InvalidArgument` (text, with line and
/// column) or `DataLoss` (binary) when the file is not a `GraphDef`.
pub fn read_graph_def_any(path: impl AsRef<Path>) -> Result<GraphDef> {
    let path = path.as_ref();
    let bytes = read(path)?;
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let result = match ext.as_deref() {
        Some("pbtxt" | "pbtext" | "txt") => parse_text(&bytes),
        Some("pb" | "graphdef") => super::decode_binary(&bytes),
        _ if text_format_first_field(&bytes).is_some() => {
            parse_text(&bytes).or_else(|text_err| GraphDef::from_bytes(&bytes).map_err(|_| text_err))
        }
        _ => super::decode_binary(&bytes),
    };
    result.map_err(|e| e.context(path.display()))
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::from(e).context(format!("reading {}", path.display())))
}

fn parse_text(bytes: &[u8]) -> Result<GraphDef> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid_argument(format!("a text GraphDef must be UTF-8 ({e})")))?;
    graph_def_from_text(text)
}

/// Sniffs the protobuf text format: when `bytes` look like a text-format message, the
/// name of its first field (`node` for a `.pbtxt` GraphDef, `meta_info_def` or
/// `graph_def` for a `.meta` written with `as_text=True`); `Some("")` when they hold nothing
/// but whitespace and `#` comments (an empty message); `None` when they are not text.
///
/// Text here is UTF-8 without control characters other than tab, newline, carriage
/// return and form feed, whose first token after whitespace and comments (and an optional
/// byte-order mark) is an identifier followed by `{`, `<` or `:`. Printable bytes alone are
/// not enough: a truncated binary `GraphDef` such as `0a 3b 0a` (`"\n;\n"`) is not text.
pub fn text_format_first_field(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c')) {
        return None;
    }
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    loop {
        rest = rest.trim_start();
        match rest.strip_prefix('#') {
            Some(comment) => rest = comment.split_once('\n').map_or("", |(_, after)| after),
            None => break,
        }
    }
    if rest.is_empty() {
        return Some("");
    }
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let (field, after) = rest.split_at(end);
    let starts_like_a_name = field.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    let after = after.trim_start();
    (starts_like_a_name && after.starts_with(['{', '<', ':'])).then_some(field)
}
