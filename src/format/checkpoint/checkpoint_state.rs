//! The `checkpoint` state file: a text-format `CheckpointState` proto naming the newest
//! checkpoint of a directory (TensorFlow's `checkpoint_management.py`; formats.md §2),
//! read and written with the text format of [`crate::format::proto::text`].

use crate::error::{Error, Result};
use crate::format::atomic_file::{io_error, write_atomically};
use crate::format::proto::text::TextFormat;
pub use crate::format::proto::CheckpointState;
use std::path::{Path, PathBuf};

/// Default name of the state file inside a checkpoint directory.
pub const CHECKPOINT_STATE_FILENAME: &str = "checkpoint";

/// The path of the state file of `dir`.
fn state_path(dir: &Path) -> PathBuf {
    dir.join(CHECKPOINT_STATE_FILENAME)
}

/// Joins a relative checkpoint path onto `dir`, as `get_checkpoint_state` does.
fn resolve(dir: &Path, p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() {
        p.to_string()
    } else {
        dir.join(path).to_string_lossy().into_owned()
    }
}

/// Reads `dir/checkpoint` like `tf.train.get_checkpoint_state(dir)`: relative paths in it are
/// joined onto `dir`. Returns `Ok(None)` when the file does not exist.
///
/// Errors: `InvalidArgument` naming the file when it does not parse or names no
/// `model_checkpoint_path`; other I/O errors naming the file.
pub fn read_checkpoint_state(dir: impl AsRef<Path>) -> Result<Option<CheckpointState>> {
    let dir = dir.as_ref();
    let path = state_path(dir);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(e, "cannot read checkpoint state", &path)),
    };
    let text = String::from_utf8(text)
        .map_err(|_| Error::invalid_argument(format!("checkpoint state {} is not UTF-8 text", path.display())))?;
    let mut st =
        CheckpointState::from_text(&text).map_err(|e| e.context(format!("bad checkpoint state {}", path.display())))?;
    if st.model_checkpoint_path.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Invalid checkpoint state loaded from {}: model_checkpoint_path is empty",
            path.display()
        )));
    }
    st.model_checkpoint_path = resolve(dir, &st.model_checkpoint_path);
    for p in &mut st.all_model_checkpoint_paths {
        *p = resolve(dir, p);
    }
    Ok(Some(st))
}

/// The path as written into the state file of `dir`: relative to `dir` when it lies inside it.
fn relative_to(dir: &Path, p: &str) -> String {
    if dir.as_os_str().is_empty() {
        return p.to_string();
    }
    match Path::new(p).strip_prefix(dir) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => p.to_string(),
    }
}

/// Writes `state` to `dir/checkpoint` atomically (temporary file + rename) in the text format
/// TensorFlow writes (`update_checkpoint_state`). Paths inside `dir` (absolute, or relative
/// starting with `dir`) are written relative to `dir`, as `Saver.save` does for a relative
/// save directory or with `save_relative_paths=True`; other paths are written as given.
///
/// Errors: `InvalidArgument` when `model_checkpoint_path` is empty; I/O errors naming the file.
pub fn write_checkpoint_state(dir: impl AsRef<Path>, state: &CheckpointState) -> Result<()> {
    let dir = dir.as_ref();
    if state.model_checkpoint_path.is_empty() {
        return Err(Error::invalid_argument("a checkpoint state needs a model_checkpoint_path"));
    }
    let st = CheckpointState {
        model_checkpoint_path: relative_to(dir, &state.model_checkpoint_path),
        all_model_checkpoint_paths: state.all_model_checkpoint_paths.iter().map(|p| relative_to(dir, p)).collect(),
        all_model_checkpoint_timestamps: state.all_model_checkpoint_timestamps.clone(),
        last_preserved_timestamp: state.last_preserved_timestamp,
    };
    write_atomically(&state_path(dir), st.to_text()?.as_bytes())
}

/// The prefix of the newest checkpoint of `dir`, like `tf.train.latest_checkpoint(dir)`:
/// [`find_latest_checkpoint`](super::find_latest_checkpoint) without its note (a state file
/// naming a path that no longer exists falls back to the same base name in `dir`).
/// `Ok(None)` when there is no state file.
///
/// Errors: as [`find_latest_checkpoint`](super::find_latest_checkpoint): `NotFound` naming
/// the stale path and `dir` when the checkpoint it names is gone; as
/// [`read_checkpoint_state`] for a damaged state file.
pub fn latest_checkpoint(dir: impl AsRef<Path>) -> Result<Option<PathBuf>> {
    Ok(super::find_latest_checkpoint(dir)?.map(|l| l.prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_roundtrip() {
        let st = CheckpointState {
            model_checkpoint_path: "model.ckpt-2".into(),
            all_model_checkpoint_paths: vec!["model.ckpt-1".into(), "model.ckpt-2".into()],
            all_model_checkpoint_timestamps: vec![1700000000.25, 1700000100.125],
            last_preserved_timestamp: 1699999999.5,
        };
        let text = st.to_text().unwrap();
        assert_eq!(
            text,
            "model_checkpoint_path: \"model.ckpt-2\"\nall_model_checkpoint_paths: \"model.ckpt-1\"\n\
             all_model_checkpoint_paths: \"model.ckpt-2\"\nall_model_checkpoint_timestamps: 1700000000.25\n\
             all_model_checkpoint_timestamps: 1700000100.125\nlast_preserved_timestamp: 1699999999.5\n"
        );
        assert_eq!(CheckpointState::from_text(&text).unwrap(), st);
        let odd = CheckpointState { model_checkpoint_path: "a\"b\\c\td\n\u{e9}'\u{1}".into(), ..Default::default() };
        // Python's text_format.MessageToString (as_utf8=False) writes UTF-8 bytes as octal escapes
        assert_eq!(odd.to_text().unwrap(), "model_checkpoint_path: \"a\\\"b\\\\c\\td\\n\\303\\251\\'\\001\"\n");
        assert_eq!(CheckpointState::from_text(&odd.to_text().unwrap()).unwrap(), odd);
        assert!(CheckpointState::from_text("bogus: 1").is_err());
        assert!(CheckpointState::from_text("model_checkpoint_path: \"x").is_err());
        let big = CheckpointState { last_preserved_timestamp: 1e16, ..Default::default() };
        assert_eq!(big.to_text().unwrap(), "last_preserved_timestamp: 1e+16\n");
    }
}
