//! The protobuf **text format** of TensorFlow's graph messages: what
//! `tf.io.write_graph(..., as_text=True)` and `text_format.MessageToString` write (a
//! `.pbtxt` file), and what `text_format.Merge` / `text_format.Parse` read.
//!
//! Writing reproduces Python protobuf's output byte for byte: fields in field-number
//! order, two-space indentation, proto3 defaults left out (but `oneof` members such as
//! `AttrValue.i: 0` written), map fields (`NodeDef.attr`) as one `attr { key: ... value
//! { ... } }` block per entry sorted by key, enums by name (`DT_FLOAT`), strings and bytes
//! with Python's escapes (`\"`, `\'`, `\\`, `\n`, `\r`, `\t`, three-digit octal for other
//! bytes below 32 or from 127), floats in Python's shortest form (`1.0`, `1.7320508`,
//! `1e-05`, `inf`, `nan`) and doubles as Python's `repr`.
//!
//! Reading accepts what protobuf's text parsers accept: fields in any order, `{ }` or
//! `< >` around messages with an optional `:` before them, `[a, b]` lists for repeated
//! fields, enums by name or number, integers in decimal, hex or octal, floats in every
//! Python form (`1`, `1.0`, `.5`, `1e-05`, `inf`, `-Infinity`, `nan`, with an optional `f`
//! suffix), strings in `"` or `'` with C escapes (octal, `\x`, `\u`, `\U`) and adjacent
//! literals joined, `#` comments, and `;` or `,` after a field. A singular message given
//! twice is merged, a scalar given twice keeps the last value (`text_format.Merge`).
//!
//! Every message nested in a `GraphDef` or `MetaGraphDef` is covered, including the ones
//! the Rust structs keep as serialized bytes (`FunctionDefLibrary` with its `FunctionDef`s,
//! `FullTypeDef`, `GraphDebugInfo`, resource handles and variants), except
//! `MetaGraphDef.object_graph_def` (`SavedObjectGraph`) and `TensorInfo.composite_tensor`,
//! whose text form is not implemented (`Unimplemented`). `google.protobuf.Any` values are
//! written as plain `type_url`/`value` fields, not in Python's expanded `[type_url] { }`
//! form, and that expanded form is not read.
//!
//! ```
//! use tensorgraph::format::proto::text::{graph_def_from_text, graph_def_to_text};
//! # fn main() -> tensorgraph::Result<()> {
//! let text = "node {\n  name: \"c\"\n  op: \"Const\"\n}\nversions {\n  producer: 2474\n}\n";
//! let gd = graph_def_from_text(text)?;
//! assert_eq!(gd.node[0].op, "Const");
//! assert_eq!(graph_def_to_text(&gd)?, text);
//! # Ok(()) }
//! ```

mod dynamic;
mod parser;
mod printer;
mod schema;

pub(crate) use printer::c_escape;
#[doc(hidden)]
pub use printer::{format_double, format_float};

use super::{
    AssetFileDef, AttrValue, CheckpointState, CollectionDef, FunctionDefLibrary, GraphDef, MetaGraphDef, MetaInfoDef,
    NameAttrList, NodeDef, OpDef, OpList, SavedModel, SaverDef, SignatureDef, TensorInfo, TensorProto,
    TensorShapeProto, VersionDef,
};
use crate::error::{Error, Result};
use schema::MessageDesc;

/// A message with a protobuf text form (`text_format.MessageToString` /
/// `text_format.Merge`). Implemented for `GraphDef`, `MetaGraphDef` and the messages
/// they contain.
pub trait TextFormat: Sized {
    /// The text form, byte for byte what Python's `text_format.MessageToString(msg)`
    /// writes. Errors: `Unimplemented` when a set field has a message type whose text
    /// form is not implemented (`SavedObjectGraph`, `TensorInfo.composite_tensor`);
    /// `DataLoss` when bytes kept for a nested message (a `FunctionDef`, ...) are not a
    /// valid message.
    fn to_text(&self) -> Result<String>;

    /// Parses the text form (`text_format.Merge` into an empty message).
    /// Errors: `InvalidArgument` naming the line, column and what was expected (an unknown
    /// field, a value of the wrong kind, an integer out of range, a bad escape, an
    /// unterminated string or message, a string field that is not UTF-8);
    /// `Unimplemented` for a field whose text form is not implemented.
    fn from_text(text: &str) -> Result<Self>;
}

fn to_text_impl<M: prost::Message>(m: &M, desc: &'static MessageDesc) -> Result<String> {
    let msg = dynamic::decode(&m.encode_to_vec(), desc, 0)?;
    let mut out = String::new();
    printer::print_message(&msg, desc, 0, &mut out)?;
    Ok(out)
}

fn from_text_impl<M: prost::Message + Default>(text: &str, desc: &'static MessageDesc) -> Result<M> {
    let msg = parser::parse(text, desc)?;
    let bytes = dynamic::encode(&msg, desc);
    M::decode(bytes.as_slice()).map_err(|e| Error::invalid_argument(format!("text is not a valid {}: {e}", desc.name)))
}

macro_rules! text_format {
    ($($ty:ty => $desc:ident),* $(,)?) => {$(
        impl TextFormat for $ty {
            fn to_text(&self) -> Result<String> {
                to_text_impl(self, &schema::$desc)
            }
            fn from_text(text: &str) -> Result<Self> {
                from_text_impl(text, &schema::$desc)
            }
        }
    )*};
}

text_format! {
    GraphDef => GRAPH_DEF,
    NodeDef => NODE_DEF,
    AttrValue => ATTR_VALUE,
    NameAttrList => NAME_ATTR_LIST,
    TensorProto => TENSOR,
    TensorShapeProto => TENSOR_SHAPE,
    VersionDef => VERSION_DEF,
    FunctionDefLibrary => FUNCTION_DEF_LIBRARY,
    OpDef => OP_DEF,
    OpList => OP_LIST,
    MetaGraphDef => META_GRAPH_DEF,
    MetaInfoDef => META_INFO_DEF,
    SaverDef => SAVER_DEF,
    CollectionDef => COLLECTION_DEF,
    SignatureDef => SIGNATURE_DEF,
    TensorInfo => TENSOR_INFO,
    AssetFileDef => ASSET_FILE_DEF,
    CheckpointState => CHECKPOINT_STATE,
    SavedModel => SAVED_MODEL,
}

/// The text form of a `GraphDef`: what `tf.io.write_graph(graph_def, dir, name,
/// as_text=True)` writes (`text_format.MessageToString(graph_def)`).
/// Errors: `DataLoss` when a kept `FunctionDefLibrary` or debug-info message is not valid
/// protobuf (see [`TextFormat::to_text`]).
pub fn graph_def_to_text(graph_def: &GraphDef) -> Result<String> {
    graph_def.to_text()
}

/// Parses a `GraphDef` from its text form (a `.pbtxt` file), like
/// `text_format.Merge(text, tf.compat.v1.GraphDef())`.
/// Errors: `InvalidArgument` naming the line, column and what was expected.
pub fn graph_def_from_text(text: &str) -> Result<GraphDef> {
    GraphDef::from_text(text)
}

/// The text form of a `MetaGraphDef` (`tf.train.export_meta_graph(..., as_text=True)`,
/// `text_format.MessageToString(meta_graph_def)`).
/// Errors: `Unimplemented` when `object_graph_def` or a `TensorInfo.composite_tensor` is
/// set; `DataLoss` for kept bytes that are not valid protobuf.
pub fn meta_graph_def_to_text(meta_graph_def: &MetaGraphDef) -> Result<String> {
    meta_graph_def.to_text()
}

/// Parses a `MetaGraphDef` from its text form (a `.meta` written with `as_text=True`),
/// like `text_format.Merge(text, tf.compat.v1.MetaGraphDef())`.
/// Errors: `InvalidArgument` naming the line, column and what was expected;
/// `Unimplemented` for `object_graph_def` and `composite_tensor`.
pub fn meta_graph_def_from_text(text: &str) -> Result<MetaGraphDef> {
    MetaGraphDef::from_text(text)
}

#[cfg(test)]
mod tests {
    use super::schema::*;

    #[test]
    fn field_tables_are_in_number_order() {
        let all: [&MessageDesc; 13] = [
            &GRAPH_DEF,
            &NODE_DEF,
            &ATTR_VALUE,
            &LIST_VALUE,
            &TENSOR,
            &FUNCTION_DEF,
            &GRAPH_DEBUG_INFO,
            &META_GRAPH_DEF,
            &META_INFO_DEF,
            &OP_DEF,
            &ARG_DEF,
            &TENSOR_INFO,
            &SAVED_MODEL,
        ];
        for d in all {
            assert!(d.fields.windows(2).all(|w| w[0].number < w[1].number), "{}", d.name);
        }
    }
}
