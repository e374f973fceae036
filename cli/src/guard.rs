//! What a command may write over: no command replaces one of its inputs, or an existing
//! file of another kind than it writes (a checkpoint's `.index` given as `freeze -o`), unless
//! `--force` is given. Checked before anything is written.

use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::index_path;
use tensorgraph::io::model_file::{checkpoint_prefix, detect, ModelFileKind};

/// The kind of file a command writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// A GraphDef, binary or text (`freeze -o`, the demo's `model.pb`).
    GraphDef,
    /// A meta graph (`.meta`).
    MetaGraph,
    /// A `.npy` array (`run --out`).
    Npy,
    /// A JSON file.
    Json,
    /// A checkpoint's file: its index, a data file or the `checkpoint` state file.
    Checkpoint,
}

impl Writes {
    /// `a GraphDef`: for messages.
    fn describe(self) -> &'static str {
        match self {
            Writes::GraphDef => "a GraphDef",
            Writes::MetaGraph => "a MetaGraphDef",
            Writes::Npy => "a .npy file",
            Writes::Json => "a JSON file",
            Writes::Checkpoint => "a checkpoint",
        }
    }

    /// Whether an existing file of `kind` is of the kind written (and may be replaced).
    fn replaces(self, kind: ModelFileKind) -> bool {
        match self {
            Writes::GraphDef => kind.is_graph_def(),
            Writes::MetaGraph => kind.is_meta(),
            Writes::Npy => kind == ModelFileKind::Npy,
            Writes::Json => kind == ModelFileKind::Json,
            Writes::Checkpoint => matches!(
                kind,
                ModelFileKind::CheckpointIndex | ModelFileKind::CheckpointData | ModelFileKind::CheckpointState
            ),
        }
    }
}

/// An input of a command: the argument that named it (`--meta`, `--feed x`) and its path.
/// A checkpoint input is its prefix, and stands for its index and data files.
pub struct Input {
    /// The argument, for messages.
    pub arg: String,
    /// The file, or the checkpoint prefix.
    pub path: PathBuf,
}

impl Input {
    /// An input named by `arg`.
    pub fn new(arg: impl Into<String>, path: impl Into<PathBuf>) -> Input {
        Input { arg: arg.into(), path: path.into() }
    }
}

/// True when `a` and `b` are the same existing file (through links and relative paths).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `out` is `input`'s file, or an index or data file of the checkpoint `input` is
/// the prefix of.
fn is_input(out: &Path, input: &Input) -> bool {
    same_file(out, &input.path)
        || checkpoint_prefix(out).is_some_and(|p| same_file(&index_path(p), &index_path(&input.path)))
}

/// Checks that the command may write `writes` to `out` (named by argument `arg`, such as
/// `-o`): without `force`, `out` must not be one of `inputs`, and an existing non-empty `out`
/// must hold the kind written. Errors: `InvalidArgument` (an input) or `AlreadyExists` (a
/// file of another kind) naming the file, what it is, and `--force`.
pub fn check_output(arg: &str, out: &Path, writes: Writes, inputs: &[Input], force: bool) -> Result<(), String> {
    let shown = out.display();
    if out.is_dir() {
        return Err(format!("InvalidArgument: {arg} {shown} is a directory; give the file to write"));
    }
    if force || !out.exists() {
        return Ok(());
    }
    if let Some(input) = inputs.iter().find(|i| is_input(out, i)) {
        return Err(format!(
            "InvalidArgument: {arg} {shown} is an input of this command ({} {}); writing there would destroy it. Write to another file, or pass --force to replace it",
            input.arg,
            input.path.display()
        ));
    }
    if std::fs::metadata(out).is_ok_and(|m| m.len() == 0) {
        return Ok(());
    }
    let what = match detect(out) {
        Ok(kind) if writes.replaces(kind) => return Ok(()),
        Ok(kind) => kind.describe().to_string(),
        // content of no kind tensorgraph knows: the reader's parse error would only confuse
        Err(_) => format!("not {} (its content is of no kind tensorgraph recognises)", writes.describe()),
    };
    Err(format!(
        "AlreadyExists: {arg} {shown} exists and is {what}; this command writes {} and does not replace a file of another kind. Write to another file, or pass --force to replace it",
        writes.describe()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_written_replace_their_own() {
        assert!(Writes::GraphDef.replaces(ModelFileKind::TextGraphDef));
        assert!(!Writes::GraphDef.replaces(ModelFileKind::MetaGraph));
        assert!(!Writes::GraphDef.replaces(ModelFileKind::CheckpointIndex));
        assert!(Writes::Checkpoint.replaces(ModelFileKind::CheckpointState));
        assert!(!Writes::Npy.replaces(ModelFileKind::Json));
    }
}
