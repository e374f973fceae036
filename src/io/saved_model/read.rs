//! Reading a SavedModel directory's `saved_model.pb` / `.pbtxt` and choosing a meta graph
//! by its tags (`loader_impl.parse_saved_model`, `get_meta_graph_def_from_tags`).

use super::{SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT};
use crate::error::{Error, Result};
use crate::format::proto::text::TextFormat;
use crate::format::proto::{MetaGraphDef, SavedModel};
use crate::io::model_file::detect;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The checkpoint prefix of a SavedModel's variables: `DIR/variables/variables`
/// (`path_helpers.get_variables_path`).
pub fn variables_prefix(export_dir: impl AsRef<Path>) -> PathBuf {
    export_dir.as_ref().join("variables").join("variables")
}

/// Reads the `SavedModel` message of directory `export_dir`: `saved_model.pb`, else
/// `saved_model.pbtxt` (`loader_impl.parse_saved_model`). A path to the
/// `saved_model.pb(txt)` file itself is taken as its directory.
///
/// Errors: `NotFound` when `export_dir` does not exist, or is a directory without either
/// file (saying what it is when it is a checkpoint directory); `InvalidArgument` when it is
/// a file of another kind, naming the kind and what reads it; `DataLoss` when
/// `saved_model.pb` does not decode; `InvalidArgument` when `saved_model.pbtxt` does not
/// parse (line and column).
pub fn read_saved_model(export_dir: impl AsRef<Path>) -> Result<SavedModel> {
    let dir = saved_model_dir(export_dir.as_ref())?;
    let pb = dir.join(SAVED_MODEL_FILENAME_PB);
    if pb.is_file() {
        let bytes = std::fs::read(&pb).map_err(|e| crate::format::atomic_file::io_error(e, "read", &pb))?;
        return SavedModel::from_bytes(&bytes).map_err(|e| e.context(pb.display()));
    }
    let pbtxt = dir.join(SAVED_MODEL_FILENAME_PBTXT);
    let text = std::fs::read_to_string(&pbtxt).map_err(|e| crate::format::atomic_file::io_error(e, "read", &pbtxt))?;
    SavedModel::from_text(&text).map_err(|e| e.context(pbtxt.display()))
}

/// The SavedModel directory `path` names, checked to hold `saved_model.pb` or `.pbtxt`.
pub(crate) fn saved_model_dir(path: &Path) -> Result<PathBuf> {
    let shown = path.display();
    if !path.exists() {
        return Err(Error::not_found(format!("SavedModel directory {shown} does not exist")));
    }
    let is_model_file = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == SAVED_MODEL_FILENAME_PB || n == SAVED_MODEL_FILENAME_PBTXT);
    if path.is_file() && is_model_file {
        return Ok(path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf));
    }
    if path.is_file() {
        let what = detect(path).map(|k| k.describe()).unwrap_or("a file");
        return Err(Error::invalid_argument(format!(
            "{shown} is {what}, not a SavedModel directory; give the directory that holds saved_model.pb, or read this file with the command or function for {what}"
        )));
    }
    if [SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT].iter().any(|f| path.join(f).is_file()) {
        return Ok(path.to_path_buf());
    }
    let what = match detect(path) {
        Ok(kind) => format!(" (it is {})", kind.describe()),
        Err(_) => String::new(),
    };
    Err(Error::not_found(format!(
        "{shown} is not a SavedModel{what}: SavedModel file does not exist at: {}/{{{SAVED_MODEL_FILENAME_PBTXT}|{SAVED_MODEL_FILENAME_PB}}}; give the directory that holds saved_model.pb",
        shown
    )))
}

/// The tags of `meta` (`meta_info_def.tags`).
pub(crate) fn tags_of(meta: &MetaGraphDef) -> Vec<String> {
    meta.meta_info_def.as_ref().map(|m| m.tags.clone()).unwrap_or_default()
}

/// `{"serve", "gpu"}` for a tag set, as the errors and the CLI write it.
pub(crate) fn fmt_tags(tags: &[String]) -> String {
    let set: BTreeSet<&str> = tags.iter().map(String::as_str).collect();
    let inner: Vec<String> = set.iter().map(|t| format!("\"{t}\"")).collect();
    format!("{{{}}}", inner.join(", "))
}

/// The meta graph of `model` whose tag set equals `tags` (order and repeats ignored), as
/// `SavedModelLoader.get_meta_graph_def_from_tags`.
/// Errors: `NotFound` naming the tags asked for and every available tag set.
pub(crate) fn meta_graph_for_tags<'a>(model: &'a SavedModel, tags: &[&str], dir: &Path) -> Result<&'a MetaGraphDef> {
    let want: BTreeSet<&str> = tags.iter().copied().collect();
    for meta in &model.meta_graphs {
        let have = tags_of(meta);
        if have.iter().map(String::as_str).collect::<BTreeSet<&str>>() == want {
            return Ok(meta);
        }
    }
    let asked: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
    let available: Vec<String> = model.meta_graphs.iter().map(|m| fmt_tags(&tags_of(m))).collect();
    Err(Error::not_found(format!(
        "MetaGraphDef associated with tags {} could not be found in SavedModel {}; available tag sets: {}; load one of those",
        fmt_tags(&asked),
        dir.display(),
        if available.is_empty() { "none (the SavedModel has no meta graphs)".to_string() } else { available.join(", ") },
    )))
}
