//! [`find_latest_checkpoint`]: the newest checkpoint of a directory through its `checkpoint`
//! state file (`tf.train.latest_checkpoint`), falling back to the same file name in the
//! state file's own directory when the path it names is gone (a directory moved, or copied
//! from another machine), with a note saying so.

use super::checkpoint_state::{read_checkpoint_state, CHECKPOINT_STATE_FILENAME};
use super::index_path;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The newest checkpoint of a directory, as [`find_latest_checkpoint`] found it.
#[derive(Debug, Clone, PartialEq)]
pub struct LatestCheckpoint {
    /// The checkpoint prefix (`dir/model.ckpt-3`), or the V1 checkpoint file.
    pub prefix: PathBuf,
    /// Set when the state file names a path that does not exist and `prefix` is the file
    /// of the same name found in the state file's directory instead: says which path was
    /// stale and what was taken.
    pub note: Option<String>,
}

/// True when a checkpoint with prefix `p` exists: `p.index`, or a V1 checkpoint file `p`.
fn exists(p: &Path) -> bool {
    index_path(p).is_file() || p.is_file()
}

/// The newest checkpoint of `dir` (`tf.train.latest_checkpoint(dir)`): the state file's
/// `model_checkpoint_path`, joined onto `dir` when relative. When that checkpoint does not
/// exist (its `.index`, or a V1 file of that name), the checkpoint of the same base name
/// in `dir` is taken if there is one, with a [`LatestCheckpoint::note`] naming the stale
/// path (TensorFlow resolves only relative paths against the directory; an absolute path
/// written on another machine or before the directory was moved is resolved the same way
/// here). `Ok(None)` when `dir` has no state file.
///
/// Errors: `NotFound` naming the stale path and `dir` when neither the named checkpoint nor
/// one of its base name in `dir` exists; as
/// [`read_checkpoint_state`](super::read_checkpoint_state) for a damaged state file.
pub fn find_latest_checkpoint(dir: impl AsRef<Path>) -> Result<Option<LatestCheckpoint>> {
    let dir = dir.as_ref();
    let Some(st) = read_checkpoint_state(dir)? else { return Ok(None) };
    let named = PathBuf::from(&st.model_checkpoint_path);
    if exists(&named) {
        return Ok(Some(LatestCheckpoint { prefix: named, note: None }));
    }
    let state_file = dir.join(CHECKPOINT_STATE_FILENAME);
    if let Some(base) = named.file_name() {
        let local = dir.join(base);
        if local != named && exists(&local) {
            let note = format!(
                "the checkpoint state file {} names {}, which does not exist; using {} (the same name in the state \
                 file's directory: the checkpoints were probably moved or copied from elsewhere)",
                state_file.display(),
                named.display(),
                local.display()
            );
            return Ok(Some(LatestCheckpoint { prefix: local, note: Some(note) }));
        }
    }
    let base = named.file_name().map(|b| b.to_string_lossy().into_owned()).unwrap_or_default();
    Err(Error::not_found(format!(
        "the checkpoint state file {} names {}, which does not exist ({} is missing), and {} holds no checkpoint \
         {base:?} either; the checkpoint was moved or deleted: pass its prefix, or correct model_checkpoint_path in \
         the state file",
        state_file.display(),
        named.display(),
        index_path(&named).display(),
        dir.display()
    )))
}
