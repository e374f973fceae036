//! Model files on the command line, decided in one place for `run`, `freeze`, `inspect` and
//! `diff`: whether a path names a model file or a checkpoint ([`is_model_path`]), reading
//! a model by its content when its extension is missing or wrong ([`read_model`], through
//! the library's [`tensorgraph::io::model_file`]), and the op types a model uses that
//! tensorgraph does not implement ([`unsupported_op_types`], [`warn_unknown_ops`]).

use std::collections::BTreeMap;
use std::path::Path;
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::model_file::{checkpoint_form, detect, read_model_file, ModelFile, ModelFileKind};
use tensorgraph::ops;

/// True when `path` names a checkpoint rather than a model file: any directory (a
/// checkpoint directory is read through its `checkpoint` state file), or what
/// [`checkpoint_form`] recognises by name (a prefix whose `PREFIX.index` exists, an
/// existing `.index`, `.data-NNNNN-of-NNNNN` or `checkpoint` state file), or a V1 checkpoint
/// file (recognised by its content; the checkpoint reader reads it).
pub fn is_checkpoint_path(path: &Path) -> bool {
    path.is_dir() || checkpoint_form(path).is_some() || matches!(detect(path), Ok(ModelFileKind::V1Checkpoint))
}

/// The decision of what a path argument names, shared by all subcommands: a model file
/// when it is not a checkpoint (see [`is_checkpoint_path`]) and either has a model
/// extension (`.pb`, `.pbtxt`, `.txt`, `.meta`; whether or not it exists, so that a missing
/// model is reported as one) or is an existing regular file.
pub fn is_model_path(path: &Path) -> bool {
    !is_checkpoint_path(path) && (ModelFileKind::by_extension(path).is_some() || path.is_file())
}

/// Reads the model file `path`, given as argument `arg` (`MODEL`, `--meta`), by its
/// content (the library's [`read_model_file`]): a file whose extension is missing or
/// names another format is read as what it holds, with a note on stderr when the
/// extension disagrees (`note: t.pb holds a MetaGraphDef; reading it as .meta`).
///
/// Errors: the library's message with the argument named (`InvalidArgument: MODEL m.pb is
/// empty (0 bytes)`); a checkpoint given as the model says which part of a checkpoint it
/// is and where it goes.
pub fn read_model(path: &Path, arg: &str) -> Result<ModelFile, String> {
    let file = read_model_file(path).map_err(|e| model_error(path, arg, e))?;
    if !file.extension_agrees() {
        let ext = file.kind.extension().unwrap_or_default();
        eprintln!("note: {} holds {}; reading it as {ext}", path.display(), file.kind.describe());
    }
    Ok(file)
}

/// The message for a model argument that could not be read: the library's, with `arg`
/// before the path; for a checkpoint, where it goes instead.
fn model_error(path: &Path, arg: &str, e: tensorgraph::Error) -> String {
    let shown = path.display().to_string();
    match detect(path) {
        // (a V1 checkpoint: the library's message says what it is and what to do)
        Ok(kind) if kind.is_checkpoint() && kind != ModelFileKind::V1Checkpoint => {
            let what = if kind == ModelFileKind::CheckpointDir { "pass it" } else { "pass its checkpoint prefix" };
            format!("{}: {arg} {shown} is {}, not a model; {what} to --ckpt or to inspect", e.code, kind.describe())
        }
        Ok(ModelFileKind::SavedModel) => format!("{}: {arg} {}", e.code, e.message),
        _ if path.is_dir() => format!("{}: {arg} {} (a checkpoint directory goes to --ckpt)", e.code, e.message),
        _ if e.message.starts_with(&shown) => format!("{}: {arg} {}", e.code, without_library_calls(&e.message)),
        _ => e.to_string(),
    }
}

/// The library's message for a damaged model without its closing advice on which library
/// call reads the kind (`; a meta graph is read with read_meta_graph ...`): a command-line
/// user calls none, and the command already reads each kind with the right one.
fn without_library_calls(message: &str) -> &str {
    ["; a meta graph is read with ", "; a GraphDef is read with "]
        .iter()
        .find_map(|advice| message.find(advice))
        .map_or(message, |i| &message[..i])
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
/// implement in `gd` (function calls of its library count as implemented), with their node
/// counts, most frequent first.
pub fn unsupported_op_types<'a>(gd: &GraphDef, counts: &BTreeMap<&'a str, usize>) -> Vec<(&'a str, usize)> {
    let mut v: Vec<(&str, usize)> = counts
        .iter()
        .map(|(&op, &n)| (op, n))
        .filter(|(op, _)| !tensorgraph::io::graph_def::runs_op_type(gd, op))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// `Switch (2), Merge (1)`.
pub fn op_counts_text(types: &[(&str, usize)]) -> String {
    types.iter().map(|(op, n)| format!("{op} ({n})")).collect::<Vec<_>>().join(", ")
}

/// Warns once, on stderr, when the graph loaded from model file `path` kept nodes whose op
/// types tensorgraph does not implement (the library's warning): `warning: m.pb: 2 node(s) have op types tensorgraph does not implement:
/// Bucketize (2); they were kept, and only a run that needs one of them fails`.
pub fn warn_unknown_ops(graph: &tensorgraph::Graph, path: &Path) {
    let Some(warning) = ops::unknown::unknown_ops_warning_for(&graph.unknown_ops()) else { return };
    eprintln!("warning: {}: {warning}", path.display());
}

/// What to do with a file of `kind` given where another kind was wanted, for messages:
/// which command (or library call) reads it. `path` is shown in the advice.
pub fn reads_it(path: &Path, kind: ModelFileKind) -> String {
    let p = path.display();
    match kind {
        ModelFileKind::SavedModel => tensorgraph::io::model_file::SAVED_MODEL_HINT.to_string(),
        ModelFileKind::EventFile => format!("`tensorgraph events {p}` lists its events"),
        k if k.is_model() => format!("`tensorgraph inspect {p}` summarizes a model"),
        k if k.is_checkpoint() || k == ModelFileKind::V1Checkpoint => {
            format!("`tensorgraph inspect {p}` lists a checkpoint's tensors")
        }
        ModelFileKind::Npy => format!("it is an array to feed (`--feed NAME={p}`)"),
        _ => "tensorgraph does not read it".to_string(),
    }
}

/// The kind of the existing regular file `path` when [`detect`] recognises it as something
/// other than `wanted` allows (`None` for a file it cannot name, or a directory).
pub fn other_kind(path: &Path, wanted: impl Fn(ModelFileKind) -> bool) -> Option<ModelFileKind> {
    if !path.is_file() {
        return None;
    }
    detect(path).ok().filter(|k| !wanted(*k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_counts() {
        assert_eq!(op_counts_text(&[("Switch", 2), ("Merge", 1)]), "Switch (2), Merge (1)");
    }
}
