//! Model files on the command line, decided in one place for `run`, `freeze`, `inspect` and
//! `diff`: whether a path names a model file or a checkpoint ([`is_model_path`]), reading
//! a model by its content when its extension is missing or wrong ([`read_model`]), and the
//! op types a model uses that tensorgraph does not implement ([`check_op_types`]).

use std::collections::BTreeMap;
use std::path::Path;
use tensorgraph::io::checkpoint::index_path;
use tensorgraph::io::checkpoint::table::TABLE_MAGIC;
use tensorgraph::io::graph_def::text_format_first_field;
use tensorgraph::io::proto::text::{graph_def_from_text, meta_graph_def_from_text};
use tensorgraph::io::proto::{GraphDef, MetaGraphDef};
use tensorgraph::{ops, Error};

/// The top-level fields of a `MetaGraphDef`: a text file starting with one of them is a
/// text meta graph; any other text is read as a text `GraphDef`.
const META_FIELDS: &[&str] = &[
    "meta_info_def",
    "graph_def",
    "saver_def",
    "collection_def",
    "signature_def",
    "asset_file_def",
    "object_graph_def",
];

/// The op types of TF1 control flow (`tf.cond`, `tf.while_loop`).
const CONTROL_FLOW_OPS: &[&str] = &["Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "RefSwitch"];

/// The op types that call TF2 functions.
const FUNCTION_CALL_OPS: &[&str] = &["StatefulPartitionedCall", "PartitionedCall"];

/// How a model file is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A binary `GraphDef` (`.pb`, a frozen graph).
    GraphDef,
    /// A `GraphDef` in the protobuf text format (`.pbtxt`).
    TextGraphDef,
    /// A binary `MetaGraphDef` (`.meta`).
    Meta,
    /// A `MetaGraphDef` in the text format (a `.meta` written with `as_text=True`).
    TextMeta,
}

impl Format {
    /// What a file of this format holds, for messages: `a MetaGraphDef`.
    pub fn describe(self) -> &'static str {
        match self {
            Format::GraphDef => "a binary GraphDef",
            Format::TextGraphDef => "a text GraphDef",
            Format::Meta => "a MetaGraphDef",
            Format::TextMeta => "a text MetaGraphDef",
        }
    }

    /// The extension that names this format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::GraphDef => ".pb",
            Format::TextGraphDef => ".pbtxt",
            Format::Meta | Format::TextMeta => ".meta",
        }
    }

    /// True for a meta graph (binary or text).
    pub fn is_meta(self) -> bool {
        matches!(self, Format::Meta | Format::TextMeta)
    }
}

/// The format `path`'s extension names: `.pb` and `.graphdef` a binary GraphDef; `.pbtxt`,
/// `.pbtext` and `.txt` a text GraphDef; `.meta` a meta graph (binary, or text when its
/// content is); anything else `None`.
pub fn format_by_extension(path: &Path) -> Option<Format> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("pb" | "graphdef") => Some(Format::GraphDef),
        Some("pbtxt" | "pbtext" | "txt") => Some(Format::TextGraphDef),
        Some("meta") => Some(Format::Meta),
        _ => None,
    }
}

/// True when `path` names a checkpoint rather than a model file: a directory (read through
/// its `checkpoint` state file), a prefix whose `PREFIX.index` exists, or an existing
/// `.index`, `.data-NNNNN-of-NNNNN` or `checkpoint` state file.
pub fn is_checkpoint_path(path: &Path) -> bool {
    if path.is_dir() || index_path(path).is_file() {
        return true;
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    path.is_file()
        && (name == "checkpoint"
            || name.strip_suffix(".index").is_some_and(|s| !s.is_empty())
            || crate::inspect::strip_data_suffix(name).is_some())
}

/// The decision of what a path argument names, shared by all subcommands: a model file
/// when it is not a checkpoint (see [`is_checkpoint_path`]) and either has a model
/// extension (`.pb`, `.pbtxt`, `.txt`, `.meta`; whether or not it exists, so that a missing
/// model is reported as one) or is an existing regular file.
pub fn is_model_path(path: &Path) -> bool {
    !is_checkpoint_path(path) && (format_by_extension(path).is_some() || path.is_file())
}

/// What a model file holds.
pub enum Model {
    /// A `GraphDef`.
    Graph(GraphDef),
    /// A `MetaGraphDef`.
    Meta(Box<MetaGraphDef>),
}

/// A model file, decoded.
pub struct ModelFile {
    /// How the file was encoded (by its content).
    pub format: Format,
    /// Its content.
    pub model: Model,
}

impl ModelFile {
    /// The graph: the `GraphDef`, or the meta graph's `graph_def` (empty when it has none).
    pub fn graph_def(&self) -> std::borrow::Cow<'_, GraphDef> {
        match &self.model {
            Model::Graph(gd) => std::borrow::Cow::Borrowed(gd),
            Model::Meta(m) => match &m.graph_def {
                Some(gd) => std::borrow::Cow::Borrowed(gd),
                None => std::borrow::Cow::Owned(GraphDef::default()),
            },
        }
    }
}

/// Decodes `bytes` as `format`; also says whether any field of the format was found
/// (protobuf skips unknown fields, so most bytes decode as something).
fn decode(bytes: &[u8], format: Format) -> Result<(Model, bool), Error> {
    let text = || std::str::from_utf8(bytes).map_err(|e| Error::invalid_argument(format!("not UTF-8 ({e})")));
    let model = match format {
        Format::GraphDef => Model::Graph(GraphDef::from_bytes(bytes)?),
        Format::TextGraphDef => Model::Graph(graph_def_from_text(text()?)?),
        Format::Meta => Model::Meta(Box::new(MetaGraphDef::from_bytes(bytes)?)),
        Format::TextMeta => Model::Meta(Box::new(meta_graph_def_from_text(text()?)?)),
    };
    let found = match &model {
        Model::Graph(gd) => !gd.node.is_empty() || gd.versions.is_some() || gd.library.is_some(),
        Model::Meta(m) => m.graph_def.is_some() || m.meta_info_def.is_some(),
    };
    Ok((model, found))
}

/// Reads the model file `path`, given as argument `arg` (`MODEL`, `--meta`), by its
/// content: a file whose extension is missing or names another format is read as what it
/// holds, with a note on stderr when the extension disagrees
/// (`note: t.pb holds a MetaGraphDef; reading it as .meta`).
///
/// Errors, as messages naming the file: a directory, a missing file, an empty file
/// (`InvalidArgument`); text that does not parse (`InvalidArgument`, with line and
/// column); a damaged binary file or one that is no model (`DataLoss`).
pub fn read_model(path: &Path, arg: &str) -> Result<ModelFile, String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!(
            "InvalidArgument: {arg} {shown} is a directory; give a .pb, .pbtxt or .meta file (a checkpoint directory goes to --ckpt)"
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("model file {shown} does not exist"));
        }
        Err(e) => return Err(Error::from(e).context(format!("reading {shown}")).to_string()),
    };
    if bytes.is_empty() {
        return Err(format!("InvalidArgument: {arg} {shown} is empty (0 bytes)"));
    }
    if bytes.len() >= 8 && bytes[bytes.len() - 8..] == TABLE_MAGIC.to_le_bytes() {
        return Err(format!(
            "InvalidArgument: {arg} {shown} is a checkpoint index (a .index file), not a model; pass its checkpoint prefix to --ckpt or to inspect"
        ));
    }
    let text_field = text_format_first_field(&bytes);
    if text_field == Some("") {
        return Err(format!("InvalidArgument: {arg} {shown} is empty (only whitespace and comments)"));
    }
    let claimed = format_by_extension(path);
    // Candidates, most likely first: text by its first field, the extension's binary
    // format, then the other binary formats.
    let mut candidates: Vec<Format> = Vec::with_capacity(3);
    match text_field {
        Some(f) if META_FIELDS.contains(&f) => candidates.push(Format::TextMeta),
        Some(_) => candidates.push(Format::TextGraphDef),
        None => {}
    }
    if let Some(c @ (Format::GraphDef | Format::Meta)) = claimed {
        candidates.push(c);
    }
    for f in [Format::GraphDef, Format::Meta] {
        if !candidates.contains(&f) {
            candidates.push(f);
        }
    }
    let named = |f: Format| claimed == Some(f) || (claimed == Some(Format::Meta) && f == Format::TextMeta);
    let mut first_err: Option<(Format, Error)> = None;
    // what the extension names, when it decodes without any of its fields: used only
    // when no other format fits and the file is not text
    let mut fallback: Option<(Format, Model)> = None;
    for &format in &candidates {
        match decode(&bytes, format) {
            Ok((model, true)) => {
                if claimed.is_some() && !named(format) {
                    eprintln!("note: {shown} holds {}; reading it as {}", format.describe(), format.extension());
                }
                return Ok(ModelFile { format, model });
            }
            Ok((model, false)) if named(format) => fallback = fallback.or(Some((format, model))),
            Ok((_, false)) => {
                first_err.get_or_insert((format, Error::data_loss(format!("no field of {} found", format.describe()))));
            }
            Err(e) => {
                first_err.get_or_insert((format, e));
            }
        }
    }
    if let Some((format, model)) = fallback.filter(|_| text_field.is_none()) {
        return Ok(ModelFile { format, model });
    }
    let (format, e) = first_err.expect("at least one candidate format");
    Err(match format {
        Format::TextGraphDef => format!("InvalidArgument: {shown}: not a valid text GraphDef: {}", e.message),
        Format::TextMeta => format!("InvalidArgument: {shown}: not a valid text MetaGraphDef: {}", e.message),
        Format::GraphDef | Format::Meta => format!(
            "DataLoss: {shown} is damaged (truncated?) or not a model file: it reads as neither a GraphDef nor a MetaGraphDef ({})",
            e.message
        ),
    })
}

/// The number of nodes of each op type of `gd`, by op type.
pub fn op_type_counts(gd: &GraphDef) -> BTreeMap<&str, usize> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &gd.node {
        *counts.entry(n.op.as_str()).or_insert(0) += 1;
    }
    counts
}

/// The op types among `counts` (see [`op_type_counts`]) that tensorgraph does not
/// implement, with their node counts, most frequent first.
pub fn unsupported_op_types<'a>(counts: &BTreeMap<&'a str, usize>) -> Vec<(&'a str, usize)> {
    let mut v: Vec<(&str, usize)> =
        counts.iter().map(|(&op, &n)| (op, n)).filter(|(op, _)| ops::lookup(op).is_err()).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// `Switch (2), Merge (1)`.
pub fn op_counts_text(types: &[(&str, usize)]) -> String {
    types.iter().map(|(op, n)| format!("{op} ({n})")).collect::<Vec<_>>().join(", ")
}

/// `A`, `A and B`, `A, B and C`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What a user can do about unsupported op types: one sentence per kind of problem
/// (TF1 control flow; calls of TF2 functions).
pub fn unsupported_advice(types: &[(&str, usize)]) -> Vec<String> {
    let mut advice = Vec::new();
    let control: Vec<&str> = types.iter().map(|t| t.0).filter(|op| CONTROL_FLOW_OPS.contains(op)).collect();
    if !control.is_empty() {
        advice.push(format!(
            "{} {} TF1 control flow (tf.cond, tf.while_loop), which tensorgraph does not support yet",
            and_list(&control),
            if control.len() == 1 { "is" } else { "are" }
        ));
    }
    let calls: Vec<&str> = types.iter().map(|t| t.0).filter(|op| FUNCTION_CALL_OPS.contains(op)).collect();
    if !calls.is_empty() {
        advice.push(format!(
            "{} means the graph calls TF2 functions: export it as a frozen TF1 graph (convert_variables_to_constants_v2 on a concrete function, or build and save it with tf.compat.v1)",
            and_list(&calls)
        ));
    }
    advice
}

/// Fails when `gd` (the graph of model file `path`) uses op types tensorgraph does not
/// implement, naming them all with advice. Errors: an `Unimplemented` message.
pub fn check_op_types(gd: &GraphDef, path: &Path) -> Result<(), String> {
    let types = unsupported_op_types(&op_type_counts(gd));
    if types.is_empty() {
        return Ok(());
    }
    let mut msg = format!(
        "loading {}: Unimplemented: op types not registered (tensorgraph has no kernel for them): {}",
        path.display(),
        op_counts_text(&types)
    );
    for a in unsupported_advice(&types) {
        msg.push_str(". ");
        msg.push_str(&a);
    }
    Err(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(format_by_extension(Path::new("a/t.txt")), Some(Format::TextGraphDef));
        assert_eq!(format_by_extension(Path::new("m.ckpt.META")), Some(Format::Meta));
        assert_eq!(format_by_extension(Path::new("frozen")), None);
        assert_eq!(format_by_extension(Path::new("model.ckpt")), None);
    }

    #[test]
    fn advice() {
        let a = unsupported_advice(&[("Switch", 2), ("Merge", 1), ("Foo", 1)]);
        assert_eq!(
            a,
            ["Switch and Merge are TF1 control flow (tf.cond, tf.while_loop), which tensorgraph does not support yet"]
        );
        assert_eq!(and_list(&["A", "B", "C"]), "A, B and C");
        assert!(unsupported_advice(&[("PartitionedCall", 1)])[0].contains("convert_variables_to_constants_v2"));
        assert_eq!(op_counts_text(&[("Switch", 2), ("Merge", 1)]), "Switch (2), Merge (1)");
    }
}
