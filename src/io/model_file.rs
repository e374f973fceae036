//! What a model file is, decided by its content rather than its name: a binary or text
//! `GraphDef`, a binary or text `MetaGraphDef`, a SavedModel, one of a checkpoint's
//! files, or another file a model argument is mistaken for (JSON, `.npy`, a TensorBoard
//! event file). [`detect`] names the form of a path ([`ModelFileKind`]); [`read_model_file`]
//! reads a model in any of its four encodings, and says what the file is when it is not a
//! model. [`read_graph_def_any`](crate::io::graph_def::read_graph_def_any) and
//! [`read_meta_graph`](crate::io::meta_graph::read_meta_graph) read through it.
//!
//! ```no_run
//! use tensorgraph::io::model_file::{detect, read_model_file, Model, ModelFileKind};
//! # fn main() -> tensorgraph::Result<()> {
//! assert_eq!(detect("model.ckpt.index")?, ModelFileKind::CheckpointIndex);
//! let file = read_model_file("exported")?; // no extension: read by content
//! match &file.model {
//!     Model::Graph(gd) => println!("{}: {} nodes", file.kind.describe(), gd.node.len()),
//!     Model::Meta(meta) => println!("a meta graph with {} collections", meta.collection_def.len()),
//! }
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use crate::format::checkpoint::table::TABLE_MAGIC;
use crate::format::checkpoint::tensor_slices::{is_v1_checkpoint, V1_CHECKPOINT, V1_CHECKPOINT_ADVICE};
use crate::format::checkpoint::{damaged_v1_checkpoint, damaged_v1_error, index_path, mask_crc, meta_graph_path};
use crate::format::proto::text::{graph_def_from_text, meta_graph_def_from_text};
use crate::format::proto::{GraphDef, MetaGraphDef};
use prost::bytes::Bytes;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

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

/// The fields of a `checkpoint` state file (`CheckpointState`, in the text format).
const CHECKPOINT_STATE_FIELDS: &[&str] = &[
    "model_checkpoint_path",
    "all_model_checkpoint_paths",
    "all_model_checkpoint_timestamps",
    "last_preserved_timestamp",
];

/// The fields of a `SavedModel` message in the text format (`saved_model.pbtxt`).
const SAVED_MODEL_FIELDS: &[&str] = &["saved_model_schema_version", "meta_graphs"];

/// The file names TensorFlow gives a SavedModel's graph inside its directory.
const SAVED_MODEL_FILES: &[&str] = &["saved_model.pb", "saved_model.pbtxt"];

/// What to do with a SavedModel given where a model file or a checkpoint was wanted (the
/// one place this advice is written; every message about a SavedModel uses it).
pub const SAVED_MODEL_HINT: &str = "load its directory (the one holding saved_model.pb and variables/) with io::saved_model::SavedModelBundle::load(dir, &[\"serve\"]); on the command line, `tensorgraph inspect DIR` shows its tags and signatures and `tensorgraph run DIR --signature KEY --input NAME=FILE.npy` runs one";

/// The forms of file (or directory) a model path can be, as [`detect`] recognises them.
/// The first four are models ([`read_model_file`] reads them); the others are named so
/// that a wrong argument is reported as what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelFileKind {
    /// A binary `GraphDef` (`.pb`, a frozen graph; `tf.io.write_graph(as_text=False)`).
    GraphDef,
    /// A `GraphDef` in the protobuf text format (`.pbtxt`).
    TextGraphDef,
    /// A binary `MetaGraphDef` (`.meta`, `tf.train.export_meta_graph`).
    MetaGraph,
    /// A `MetaGraphDef` in the text format (a `.meta` written with `as_text=True`).
    TextMetaGraph,
    /// A SavedModel: a directory holding `saved_model.pb` (or `.pbtxt`), or that file (by
    /// name, or by content: a `SavedModel` message, an integer field 1 then `MetaGraphDef`s
    /// in field 2). Not a model file: see [`SAVED_MODEL_HINT`].
    SavedModel,
    /// A directory holding a `checkpoint` state file (`tf.train.latest_checkpoint`'s argument).
    CheckpointDir,
    /// A checkpoint prefix (`model.ckpt`): no such file, but `PREFIX.index` exists.
    CheckpointPrefix,
    /// A checkpoint's index (`PREFIX.index`; recognised by name or by its table footer).
    CheckpointIndex,
    /// A checkpoint's data shard (`PREFIX.data-NNNNN-of-NNNNN`, recognised by name).
    CheckpointData,
    /// A V1 checkpoint: TensorFlow's single-file tensor-slice format (an SSTable whose
    /// key `""` holds the tensors' metadata), recognised by content whatever its name.
    V1Checkpoint,
    /// A `checkpoint` state file (recognised by name or by its text fields).
    CheckpointState,
    /// A JSON file (text starting with `{` or `[` and ending with `}` or `]`).
    Json,
    /// A NumPy array file (`.npy`, recognised by its magic bytes `\x93NUMPY`).
    Npy,
    /// A TensorBoard event file (`events.out.tfevents.*`, `tf.summary.FileWriter`): a TFRecord
    /// file whose first record is an `Event` (`brain.Event:2`).
    EventFile,
    /// A TFRecord file other than an event file (`tf.io.TFRecordWriter`), recognised by the
    /// checksum of its first record's length.
    TfRecord,
}

impl ModelFileKind {
    /// What a path of this kind is, for messages: `a MetaGraphDef`, `a checkpoint index (a .index file)`.
    pub fn describe(self) -> &'static str {
        match self {
            ModelFileKind::GraphDef => "a binary GraphDef",
            ModelFileKind::TextGraphDef => "a text GraphDef",
            ModelFileKind::MetaGraph => "a MetaGraphDef",
            ModelFileKind::TextMetaGraph => "a text MetaGraphDef",
            ModelFileKind::SavedModel => "a SavedModel",
            ModelFileKind::CheckpointDir => "a checkpoint directory",
            ModelFileKind::CheckpointPrefix => "a checkpoint prefix",
            ModelFileKind::CheckpointIndex => "a checkpoint index (a .index file)",
            ModelFileKind::CheckpointData => "a checkpoint data file (a .data-NNNNN-of-NNNNN file)",
            ModelFileKind::V1Checkpoint => V1_CHECKPOINT,
            ModelFileKind::CheckpointState => "a checkpoint state file (a `checkpoint` file)",
            ModelFileKind::Json => "a JSON file",
            ModelFileKind::Npy => "a NumPy array file (.npy)",
            ModelFileKind::EventFile => "a TensorBoard event file (tf.summary.FileWriter)",
            ModelFileKind::TfRecord => "a TFRecord file",
        }
    }

    /// The extension that names a model of this kind (`.pb`, `.pbtxt`, `.meta`); `None`
    /// for the kinds that are not models.
    pub fn extension(self) -> Option<&'static str> {
        match self {
            ModelFileKind::GraphDef => Some(".pb"),
            ModelFileKind::TextGraphDef => Some(".pbtxt"),
            ModelFileKind::MetaGraph | ModelFileKind::TextMetaGraph => Some(".meta"),
            _ => None,
        }
    }

    /// True for the four model forms (binary or text `GraphDef` or `MetaGraphDef`).
    pub fn is_model(self) -> bool {
        self.is_graph_def() || self.is_meta()
    }

    /// True for a `GraphDef`, binary or text.
    pub fn is_graph_def(self) -> bool {
        matches!(self, ModelFileKind::GraphDef | ModelFileKind::TextGraphDef)
    }

    /// True for a meta graph, binary or text.
    pub fn is_meta(self) -> bool {
        matches!(self, ModelFileKind::MetaGraph | ModelFileKind::TextMetaGraph)
    }

    /// True for a model in the protobuf text format.
    pub fn is_text(self) -> bool {
        matches!(self, ModelFileKind::TextGraphDef | ModelFileKind::TextMetaGraph)
    }

    /// True for a checkpoint directory, prefix or file.
    pub fn is_checkpoint(self) -> bool {
        matches!(
            self,
            ModelFileKind::CheckpointDir
                | ModelFileKind::CheckpointPrefix
                | ModelFileKind::CheckpointIndex
                | ModelFileKind::CheckpointData
                | ModelFileKind::CheckpointState
                | ModelFileKind::V1Checkpoint
        )
    }

    /// The model kind `path`'s extension names (case-insensitively): `.pb` and `.graphdef`
    /// a binary `GraphDef`; `.pbtxt`, `.pbtext` and `.txt` a text `GraphDef`; `.meta` a
    /// (binary) meta graph; anything else `None`. Only a name: the file need not exist.
    pub fn by_extension(path: impl AsRef<Path>) -> Option<ModelFileKind> {
        let ext = path.as_ref().extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("pb" | "graphdef") => Some(ModelFileKind::GraphDef),
            Some("pbtxt" | "pbtext" | "txt") => Some(ModelFileKind::TextGraphDef),
            Some("meta") => Some(ModelFileKind::MetaGraph),
            _ => None,
        }
    }
}

/// A decoded model.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    /// A `GraphDef`.
    Graph(GraphDef),
    /// A `MetaGraphDef`.
    Meta(Box<MetaGraphDef>),
}

/// A model file read by [`read_model_file`]: where it was, what its content is, and the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFile {
    /// The path it was read from.
    pub path: PathBuf,
    /// Its encoding, by content (always a model kind: [`ModelFileKind::is_model`]).
    pub kind: ModelFileKind,
    /// The decoded model.
    pub model: Model,
}

impl ModelFile {
    /// The graph: the `GraphDef`, or the meta graph's `graph_def` (empty when it has none).
    pub fn graph_def(&self) -> Cow<'_, GraphDef> {
        match &self.model {
            Model::Graph(gd) => Cow::Borrowed(gd),
            Model::Meta(m) => match &m.graph_def {
                Some(gd) => Cow::Borrowed(gd),
                None => Cow::Owned(GraphDef::default()),
            },
        }
    }

    /// True unless the file's extension names another model kind than its content (a
    /// `.meta` renamed `.pb`, text named `.pb`). A missing or unknown extension agrees, and
    /// so does `.meta` for a text meta graph.
    pub fn extension_agrees(&self) -> bool {
        match ModelFileKind::by_extension(&self.path) {
            None => true,
            Some(claimed) => named(claimed, self.kind),
        }
    }
}

/// Whether an extension naming `claimed` (see [`ModelFileKind::by_extension`]) names `kind`.
fn named(claimed: ModelFileKind, kind: ModelFileKind) -> bool {
    claimed == kind || (claimed == ModelFileKind::MetaGraph && kind == ModelFileKind::TextMetaGraph)
}

/// The checkpoint prefix a checkpoint file's name gives: `X` for `X.index` and for
/// `X.data-NNNNN-of-NNNNN` (five digits each); `None` for any other name.
pub fn checkpoint_prefix(path: impl AsRef<Path>) -> Option<PathBuf> {
    let path = path.as_ref();
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".index").filter(|s| !s.is_empty()).or_else(|| {
        let (stem, tail) = name.rsplit_once(".data-")?;
        let (a, b) = tail.split_once("-of-")?;
        let digits = |s: &str| s.len() == 5 && s.bytes().all(|c| c.is_ascii_digit());
        (digits(a) && digits(b) && !stem.is_empty()).then_some(stem)
    })?;
    Some(path.with_file_name(stem))
}

/// The checkpoint form `path` has by its name and what exists, without reading any
/// content: a directory holding a `checkpoint` file, a prefix whose `PREFIX.index` exists,
/// or an existing `checkpoint`, `.index` or `.data-NNNNN-of-NNNNN` file; else `None`.
pub fn checkpoint_form(path: impl AsRef<Path>) -> Option<ModelFileKind> {
    let path = path.as_ref();
    if path.is_dir() {
        return path.join("checkpoint").is_file().then_some(ModelFileKind::CheckpointDir);
    }
    if index_path(path).is_file() {
        return Some(ModelFileKind::CheckpointPrefix);
    }
    if !path.is_file() {
        return None;
    }
    if path.file_name().is_some_and(|n| n == "checkpoint") {
        return Some(ModelFileKind::CheckpointState);
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    checkpoint_prefix(path).map(|_| {
        if name.ends_with(".index") {
            ModelFileKind::CheckpointIndex
        } else {
            ModelFileKind::CheckpointData
        }
    })
}

/// What `path` is, decided by its content where it is a file (the extension only breaks
/// ties between binary encodings): one of [`ModelFileKind`]. Directories are SavedModels
/// (holding `saved_model.pb`) or checkpoint directories (holding a `checkpoint` file);
/// checkpoint files are recognised by name first (a data shard is raw bytes), then an
/// index by its table footer and a state file by its fields; JSON, `.npy` and TFRecord
/// (event) files by their content. A binary model is decoded to tell a `GraphDef` from a
/// `MetaGraphDef`; text is parsed.
///
/// Errors, each naming the path: `NotFound` when nothing is there; `InvalidArgument` for
/// any other directory, an empty file (no bytes, or only whitespace and `#` comments), and
/// text that does not parse (with line and column); `DataLoss` for a binary file that
/// decodes as no model (damaged, truncated, or another kind of file).
pub fn detect(path: impl AsRef<Path>) -> Result<ModelFileKind> {
    Ok(match probe(path.as_ref())? {
        Probed::Model(file) => file.kind,
        Probed::Other(kind) => kind,
    })
}

/// Reads the model file `path` by its content, whatever its extension: a binary or text
/// `GraphDef` or `MetaGraphDef` (see [`detect`]). [`ModelFile::extension_agrees`] says
/// whether its name matched.
///
/// Errors: those of [`detect`], and `InvalidArgument` when `path` is a checkpoint (naming
/// which part, or that it is a V1 checkpoint), a SavedModel (with [`SAVED_MODEL_HINT`]) or
/// another file that is not a model (an event file, `.npy`, JSON), saying what to give instead.
pub fn read_model_file(path: impl AsRef<Path>) -> Result<ModelFile> {
    let path = path.as_ref();
    match probe(path)? {
        Probed::Model(file) => Ok(file),
        Probed::Other(kind) => Err(not_a_model(path, kind)),
    }
}

/// The error for a path that is a `kind` (not a model) where a model was wanted.
fn not_a_model(path: &Path, kind: ModelFileKind) -> Error {
    let shown = path.display();
    match kind {
        ModelFileKind::SavedModel => {
            return Error::invalid_argument(format!("{shown} is a SavedModel, not a model file; {SAVED_MODEL_HINT}"))
        }
        ModelFileKind::V1Checkpoint => {
            return Error::invalid_argument(format!("{shown} is {V1_CHECKPOINT}, not a model; {V1_CHECKPOINT_ADVICE}"))
        }
        _ => {}
    }
    if !kind.is_checkpoint() {
        return Error::invalid_argument(format!(
            "{shown} is {}, not a model; give the model's .meta, .pb or .pbtxt file",
            kind.describe()
        ));
    }
    let meta = meta_graph_path(path);
    let give = if kind == ModelFileKind::CheckpointPrefix && meta.is_file() {
        format!("its meta graph is {}", meta.display())
    } else {
        "give the model's .meta, .pb or .pbtxt file".to_string()
    };
    Error::invalid_argument(format!(
        "{shown} is {}, not a model; {give} (a checkpoint is read with CheckpointReader or restored with Saver::restore)",
        kind.describe()
    ))
}

/// A probed path: a decoded model, or another recognised form.
enum Probed {
    Model(ModelFile),
    Other(ModelFileKind),
}

fn probe(path: &Path) -> Result<Probed> {
    let shown = path.display();
    if path.is_dir() {
        if SAVED_MODEL_FILES.iter().any(|f| path.join(f).is_file()) {
            return Ok(Probed::Other(ModelFileKind::SavedModel));
        }
        return match checkpoint_form(path) {
            Some(kind) => Ok(Probed::Other(kind)),
            None => Err(Error::invalid_argument(format!(
                "{shown} is a directory, not a model file; give a .pb, .pbtxt or .meta file"
            ))),
        };
    }
    match checkpoint_form(path) {
        // a `.index` name on a V1 checkpoint (whose single file may be named anything)
        Some(ModelFileKind::CheckpointIndex) if std::fs::read(path).is_ok_and(|b| is_v1_checkpoint(&b)) => {
            return Ok(Probed::Other(ModelFileKind::V1Checkpoint));
        }
        Some(kind) => return Ok(Probed::Other(kind)),
        None => {}
    }
    let bytes = match super::file_bytes::read_shared(path, starts_as_text) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::not_found(format!("{shown} does not exist")));
        }
        Err(e) => return Err(Error::from(e).context(format!("reading {shown}"))),
    };
    let is_saved_model_file = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| SAVED_MODEL_FILES.contains(&n));
    if is_saved_model_file && !bytes.is_empty() {
        return Ok(Probed::Other(ModelFileKind::SavedModel));
    }
    // shared: a GraphDef's constants are views of the file's bytes, not copies
    match sniff_shared(&bytes, ModelFileKind::by_extension(path)) {
        Sniffed::Model(kind, model) => Ok(Probed::Model(ModelFile { path: path.to_path_buf(), kind, model })),
        Sniffed::Other(kind) => Ok(Probed::Other(kind)),
        Sniffed::DamagedV1Checkpoint(what) => Err(damaged_v1_error(path, &what)),
        Sniffed::Empty => Err(Error::invalid_argument(format!("{shown} is empty (0 bytes)"))),
        Sniffed::Blank => Err(Error::invalid_argument(format!("{shown} is empty (only whitespace and comments)"))),
        Sniffed::BadText(kind, e) => Err(Error::invalid_argument(format!(
            "{shown}: not a valid {}: {}",
            kind.describe().trim_start_matches("a "),
            e.message
        ))),
        Sniffed::Damaged(None, e) => Err(Error::data_loss(format!(
            "{shown} is damaged (truncated?) or not a model file: it reads as neither a GraphDef nor a MetaGraphDef ({})",
            e.message
        ))),
        Sniffed::Damaged(Some(kind), e) => Err(Error::data_loss(format!(
            "{shown} is damaged (truncated?) or not a model file: its fields are laid out as {}'s, but it does not decode as one ({}); {}",
            kind.describe(),
            e.message,
            match kind {
                ModelFileKind::MetaGraph => "a meta graph is read with read_meta_graph or Graph::import_meta_graph",
                _ => "a GraphDef is read with read_graph_def_any and added to a graph with import_graph_def (not import_meta_graph)",
            }
        ))),
    }
}

/// What some bytes are, without a path ([`sniff`]).
pub(crate) enum Sniffed {
    /// A model of this kind, decoded.
    Model(ModelFileKind, Model),
    /// A recognised form that is not a model.
    Other(ModelFileKind),
    /// No bytes.
    Empty,
    /// Only whitespace and comments.
    Blank,
    /// Text of this kind that does not parse.
    BadText(ModelFileKind, Error),
    /// A damaged V1 checkpoint: what is wrong with it (see [`damaged_v1_checkpoint`]).
    DamagedV1Checkpoint(String),
    /// Binary that decodes as no model: the kind its top-level fields suggest (see
    /// [`binary_layout`]) and that kind's decoding error, or no kind and the first
    /// decoder's error.
    Damaged(Option<ModelFileKind>, Error),
}

/// Decodes `bytes` as the model `kind`; also says whether any field of it was found
/// (protobuf skips unknown fields, so most bytes decode as something).
/// A `GraphDef`'s `tensor_content` are views of `bytes`.
fn decode(bytes: &Bytes, kind: ModelFileKind) -> Result<(Model, bool)> {
    let text = || std::str::from_utf8(bytes).map_err(|e| Error::invalid_argument(format!("not UTF-8 ({e})")));
    let model = match kind {
        ModelFileKind::TextGraphDef => Model::Graph(graph_def_from_text(text()?)?),
        ModelFileKind::MetaGraph => Model::Meta(Box::new(MetaGraphDef::from_bytes(bytes)?)),
        ModelFileKind::TextMetaGraph => Model::Meta(Box::new(meta_graph_def_from_text(text()?)?)),
        _ => Model::Graph(GraphDef::from_shared(bytes.clone())?),
    };
    let found = match &model {
        Model::Graph(gd) => !gd.node.is_empty() || gd.versions.is_some() || gd.library.is_some(),
        Model::Meta(m) => m.graph_def.is_some() || m.meta_info_def.is_some(),
    };
    Ok((model, found))
}

/// Decides what `bytes` are; `claimed` is what the file's extension names (see
/// [`ModelFileKind::by_extension`]), tried first among the binary model kinds.
///
/// Text (see [`text_format_first_field`]) is a text meta graph when its first field is one
/// of a `MetaGraphDef`'s, a checkpoint state file or a text SavedModel by theirs, else a
/// text `GraphDef`. Binary bytes are a checkpoint index by the table footer; else they are
/// decoded as the claimed binary kind, then as a `GraphDef`, then as a `MetaGraphDef`, and
/// the first in which a field of the message is found wins. When none has a field, the
/// claimed kind is taken as an empty model (a file is what its name says when nothing
/// contradicts it).
pub(crate) fn sniff(bytes: &[u8], claimed: Option<ModelFileKind>) -> Sniffed {
    sniff_shared(&Bytes::copy_from_slice(bytes), claimed)
}

/// [`sniff`] on a shared buffer: a decoded `GraphDef`'s constants are views of `bytes`.
fn sniff_shared(bytes: &Bytes, claimed: Option<ModelFileKind>) -> Sniffed {
    if bytes.is_empty() {
        return Sniffed::Empty;
    }
    // a V1 checkpoint cut short or with a damaged block is named as such, not as an index
    // or a damaged model (a protobuf message never starts as one: its first byte is a tag)
    if let Some(what) = damaged_v1_checkpoint(bytes) {
        return Sniffed::DamagedV1Checkpoint(what);
    }
    if bytes.len() >= 8 && bytes[bytes.len() - 8..] == TABLE_MAGIC.to_le_bytes() {
        let kind = if is_v1_checkpoint(bytes) { ModelFileKind::V1Checkpoint } else { ModelFileKind::CheckpointIndex };
        return Sniffed::Other(kind);
    }
    if let Some(kind) = other_file_kind(bytes) {
        return Sniffed::Other(kind);
    }
    let text_field = text_format_first_field(bytes);
    if text_field.is_none() {
        if let Some(bad) = text_with_bad_utf8(bytes) {
            return bad;
        }
    }
    if text_field.is_none() && binary_layout(bytes) == Some(ModelFileKind::SavedModel) {
        return Sniffed::Other(ModelFileKind::SavedModel);
    }
    let text_kind = match text_field {
        Some("") => return Sniffed::Blank,
        Some(f) if CHECKPOINT_STATE_FIELDS.contains(&f) => return Sniffed::Other(ModelFileKind::CheckpointState),
        Some(f) if SAVED_MODEL_FIELDS.contains(&f) => return Sniffed::Other(ModelFileKind::SavedModel),
        Some(f) if META_FIELDS.contains(&f) => Some(ModelFileKind::TextMetaGraph),
        Some(_) => Some(ModelFileKind::TextGraphDef),
        None => None,
    };
    // Candidates, most likely first: text by its first field, the extension's binary
    // kind, then the other binary kinds.
    let mut candidates: Vec<ModelFileKind> = text_kind.into_iter().collect();
    if let Some(c @ (ModelFileKind::GraphDef | ModelFileKind::MetaGraph)) = claimed {
        candidates.push(c);
    }
    for k in [ModelFileKind::GraphDef, ModelFileKind::MetaGraph] {
        if !candidates.contains(&k) {
            candidates.push(k);
        }
    }
    let mut first_err: Option<(ModelFileKind, Error)> = None;
    // every binary kind's decoding error, for a damaged file whose layout names its kind
    let mut errors: Vec<(ModelFileKind, Error)> = Vec::new();
    // what the extension names, when it decodes without any of its fields: used only
    // when no other kind fits and the bytes are not text
    let mut fallback: Option<(ModelFileKind, Model)> = None;
    for &kind in &candidates {
        match decode(bytes, kind) {
            Ok((model, true)) => return Sniffed::Model(kind, model),
            Ok((model, false)) if claimed.is_some_and(|c| named(c, kind)) => {
                fallback = fallback.or(Some((kind, model)));
            }
            Ok((_, false)) => {
                first_err.get_or_insert((kind, Error::data_loss(format!("no field of {} found", kind.describe()))));
            }
            Err(e) => {
                errors.push((kind, e.clone()));
                first_err.get_or_insert((kind, e));
            }
        }
    }
    if let Some((kind, model)) = fallback.filter(|_| text_kind.is_none()) {
        return Sniffed::Model(kind, model);
    }
    match first_err {
        Some((kind, e)) if kind.is_text() => Sniffed::BadText(kind, e),
        Some((_, e)) => match binary_layout(bytes).and_then(|k| errors.into_iter().find(|(kind, _)| *kind == k)) {
            // the claimed kind failed first, but the bytes are laid out as the other kind
            Some((kind, e)) => Sniffed::Damaged(Some(kind), e),
            None => Sniffed::Damaged(None, e),
        },
        None => Sniffed::Damaged(None, Error::data_loss("no model kind fits")),
    }
}

/// Which binary message the top-level protobuf fields of `bytes` are laid out as, read as
/// far as they are whole (a truncated file included): a `GraphDef` repeats field 1 (a
/// `node` each), a `MetaGraphDef` has one field 1 (`meta_info_def`) and then field 2
/// (`graph_def`), both messages; a `SavedModel` has an integer field 1 (its schema version)
/// and then field 2 (a `MetaGraphDef`). `None` when the fields say none of these (too few
/// of them, or not protobuf).
fn binary_layout(bytes: &[u8]) -> Option<ModelFileKind> {
    fn varint(b: &[u8], pos: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *b.get(*pos)?;
            *pos += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    let mut pos = 0;
    let mut fields = Vec::new();
    while pos < bytes.len() && fields.len() < 3 {
        let Some(key) = varint(bytes, &mut pos) else { break };
        let skip = match key & 7 {
            0 => varint(bytes, &mut pos).map(|_| 0),
            1 => Some(8),
            2 => varint(bytes, &mut pos).and_then(|n| usize::try_from(n).ok()),
            5 => Some(4),
            _ => None,
        };
        let Some(skip) = skip else { break };
        fields.push((key >> 3, key & 7));
        match pos.checked_add(skip) {
            Some(end) if end <= bytes.len() => pos = end,
            _ => break, // the field runs past the end: counted, and the scan stops
        }
    }
    const LEN: u64 = 2;
    match fields.as_slice() {
        // SavedModel: saved_model_schema_version (an integer), then meta_graphs
        [(1, 0), (2, LEN), ..] => Some(ModelFileKind::SavedModel),
        [(1, LEN), (1 | 4, _), ..] => Some(ModelFileKind::GraphDef),
        [(1, LEN), (2, _), ..] => Some(ModelFileKind::MetaGraph),
        _ => None,
    }
}

/// The kinds of file that are neither models nor checkpoints but are given as one by
/// mistake, by their content: `.npy` by its magic bytes, a TFRecord file (an event file when
/// its first record holds `brain.Event:`) by the masked CRC-32C of its first record's length,
/// JSON by its brackets (no protobuf, binary or text, starts with `{` or `[`).
fn other_file_kind(bytes: &[u8]) -> Option<ModelFileKind> {
    if bytes.starts_with(b"\x93NUMPY") {
        return Some(ModelFileKind::Npy);
    }
    if let (Some(len), Some(crc)) = (bytes.get(..8), bytes.get(8..12)) {
        if mask_crc(crc32c::crc32c(len)).to_le_bytes() == crc {
            let n = u64::from_le_bytes(len.try_into().ok()?);
            let end = usize::try_from(n).map_or(bytes.len(), |n| n.saturating_add(12).min(bytes.len()));
            let first = &bytes[12..end];
            let event = first.windows(12).any(|w| w == b"brain.Event:");
            return Some(if event { ModelFileKind::EventFile } else { ModelFileKind::TfRecord });
        }
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).trim();
    let json = (text.starts_with('{') && text.ends_with('}')) || (text.starts_with('[') && text.ends_with(']'));
    json.then_some(ModelFileKind::Json)
}

/// The valid UTF-8 start of `bytes`: all of them when they are valid, else those before the
/// first invalid sequence.
fn utf8_prefix(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(e) => &bytes[..e.valid_up_to()],
    }
}

/// True when the start of a file (`head`, its first bytes, possibly cut inside a UTF-8
/// sequence) is a text-format message with a first field (see [`text_format_first_field`]),
/// or text with invalid UTF-8 sequences ([`lossy_text_kind`]).
pub(crate) fn starts_as_text(head: &[u8]) -> bool {
    text_format_first_field(utf8_prefix(head)).is_some_and(|field| !field.is_empty()) || lossy_text_kind(head).is_some()
}

/// Text that is not UTF-8: when the bytes before the first invalid UTF-8 sequence are a
/// text-format message with a first field, the text kind that field names and an error
/// giving the invalid byte's offset, line and column. Text format is UTF-8 (a `bytes`
/// field's other values are written as escapes such as `\303`), so such a file is damaged
/// text, not binary.
fn text_with_bad_utf8(bytes: &[u8]) -> Option<Sniffed> {
    let valid = utf8_prefix(bytes);
    if valid.len() == bytes.len() {
        return None;
    }
    let kind = lossy_text_kind(bytes)?;
    let at = valid.len();
    let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&valid[line_start..]).chars().count() + 1;
    Some(Sniffed::BadText(
        kind,
        Error::invalid_argument(format!(
            "invalid UTF-8 at byte {at} (line {line}, column {column}): byte 0x{:02x}; text-format files are UTF-8 \
             (other bytes of a string are written as escapes such as \\303)",
            bytes[at]
        )),
    ))
}

/// Bytes of a file's start that [`lossy_text_kind`] reads.
const LOSSY_HEAD_BYTES: usize = 64 << 10;

/// The text kind of bytes that are text but for invalid UTF-8 sequences (a Latin-1 comment,
/// a damaged byte): their first 64 KiB, the invalid sequences read as U+FFFD, hold no
/// control characters other than whitespace, and their first field names the kind (a
/// text `GraphDef` when no field can be read but letters are there). `None` for binary
/// bytes: every binary model has control characters among its first bytes (field tags
/// and lengths).
fn lossy_text_kind(bytes: &[u8]) -> Option<ModelFileKind> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(LOSSY_HEAD_BYTES)]);
    if head.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c')) {
        return None;
    }
    match text_format_first_field(head.as_bytes()) {
        Some(f) if META_FIELDS.contains(&f) => Some(ModelFileKind::TextMetaGraph),
        Some(f) if !f.is_empty() => Some(ModelFileKind::TextGraphDef),
        _ => head.chars().any(|c| c.is_ascii_alphabetic()).then_some(ModelFileKind::TextGraphDef),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension() {
        assert_eq!(ModelFileKind::by_extension("a/t.txt"), Some(ModelFileKind::TextGraphDef));
        assert_eq!(ModelFileKind::by_extension("m.ckpt.META"), Some(ModelFileKind::MetaGraph));
        assert_eq!(ModelFileKind::by_extension("frozen"), None);
        assert_eq!(ModelFileKind::by_extension("model.ckpt"), None);
    }

    #[test]
    fn checkpoint_prefixes_by_name() {
        assert_eq!(checkpoint_prefix("d/m.ckpt.data-00000-of-00001"), Some(PathBuf::from("d/m.ckpt")));
        assert_eq!(checkpoint_prefix("m.ckpt.index"), Some(PathBuf::from("m.ckpt")));
        assert_eq!(checkpoint_prefix("m.ckpt.data-0-of-1"), None);
        assert_eq!(checkpoint_prefix(".index"), None);
        assert_eq!(checkpoint_prefix("m.ckpt"), None);
    }

    #[test]
    fn sniffing_bytes() {
        assert!(matches!(sniff(b"", None), Sniffed::Empty));
        assert!(matches!(sniff(b"# nothing\n", None), Sniffed::Blank));
        let state = b"model_checkpoint_path: \"model.ckpt\"\n";
        assert!(matches!(sniff(state, None), Sniffed::Other(ModelFileKind::CheckpointState)));
        let saved = b"saved_model_schema_version: 1\n";
        assert!(matches!(sniff(saved, None), Sniffed::Other(ModelFileKind::SavedModel)));
        assert!(matches!(sniff(b"node { name: 1 }", None), Sniffed::BadText(ModelFileKind::TextGraphDef, _)));
        assert!(matches!(sniff(&[0x0a, 0x3b, 0x0a], None), Sniffed::Damaged(None, _)));
        let node = b"node { name: \"a\" op: \"NoOp\" }";
        assert!(matches!(sniff(node, Some(ModelFileKind::GraphDef)), Sniffed::Model(ModelFileKind::TextGraphDef, _)));
    }
}
