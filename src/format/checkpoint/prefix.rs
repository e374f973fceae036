//! The paths users give for a checkpoint: a prefix (`dir/model.ckpt`), one of its files
//! (`model.ckpt.index`, `model.ckpt.data-00000-of-00001`), a V1 checkpoint file, or a
//! directory with a `checkpoint` state file. [`resolve_checkpoint_prefix`] turns each into
//! the prefix the readers take; [`check_save_prefix`] refuses the ones a save cannot use.

use super::find_latest_checkpoint;
use super::index_path;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// `X` for a file name `X.index` or `X.data-NNNNN-of-NNNNN` (a checkpoint's own files),
/// `None` for any other name.
pub fn strip_checkpoint_suffix(path: &Path) -> Option<PathBuf> {
    let s = path.to_str()?;
    if let Some(stem) = s.strip_suffix(".index") {
        return (!stem.is_empty() && !stem.ends_with('/')).then(|| PathBuf::from(stem));
    }
    let (stem, tail) = s.rsplit_once(".data-")?;
    let (a, b) = tail.split_once("-of-")?;
    let digits = |x: &str| x.len() == 5 && x.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b) && !stem.is_empty() && !stem.ends_with('/')).then(|| PathBuf::from(stem))
}

/// The checkpoint prefix `path` stands for, as every reader of the library takes it
/// ([`CheckpointReader::open`](super::CheckpointReader::open), `Saver::restore`,
/// `init_from_checkpoint`):
/// - a prefix whose `.index` exists, or a V1 checkpoint file: itself;
/// - `X.index` or `X.data-NNNNN-of-NNNNN` (an existing file): `X`;
/// - a directory: its newest checkpoint through its `checkpoint` state file
///   ([`find_latest_checkpoint`], falling back to the same base name in the directory for a
///   stale path);
/// - anything else: itself (the reader then says what is missing).
///
/// Errors: `InvalidArgument` for an empty path; `NotFound` for a directory without a state
/// file (TensorFlow's "Couldn't find 'checkpoint' file or checkpoints in given directory"),
/// naming the prefixes of the checkpoints it holds (`dir/model.ckpt-3`) to pass
/// instead; as [`find_latest_checkpoint`] for a stale or damaged state file.
pub fn resolve_checkpoint_prefix(path: impl AsRef<Path>) -> Result<PathBuf> {
    let path = path.as_ref();
    if path.as_os_str().is_empty() {
        return Err(Error::invalid_argument(
            "the checkpoint path is empty; pass a checkpoint prefix such as dir/model.ckpt (the path without .index)",
        ));
    }
    if index_path(path).is_file() {
        return Ok(path.to_path_buf());
    }
    if path.is_dir() {
        if let Some(latest) = find_latest_checkpoint(path)? {
            return Ok(latest.prefix);
        }
        let mut found: Vec<String> = std::fs::read_dir(path)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".index")).map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        let there = if found.is_empty() {
            "it holds no *.index file".to_string()
        } else {
            format!(
                "its checkpoints: {}",
                found.iter().map(|f| path.join(f).display().to_string()).collect::<Vec<_>>().join(", ")
            )
        };
        return Err(Error::not_found(format!(
            "Couldn't find 'checkpoint' file or checkpoints in given directory {}: pass a checkpoint prefix such as {} \
             ({there})",
            path.display(),
            path.join(found.first().map(String::as_str).unwrap_or("model.ckpt")).display()
        )));
    }
    if path.is_file() {
        if let Some(stem) = strip_checkpoint_suffix(path).filter(|s| index_path(s).is_file()) {
            return Ok(stem);
        }
    }
    Ok(path.to_path_buf())
}

/// Checks `prefix` as the prefix of a checkpoint to write (`Saver.save`'s `save_path`).
///
/// Errors: `InvalidArgument` for an empty prefix, a prefix ending in a separator or naming
/// an existing directory (TensorFlow would write `dir/.index`), and one ending in `.index`
/// or `.data-NNNNN-of-NNNNN` (the files would be `X.index.index`), naming the prefix to
/// use instead.
pub fn check_save_prefix(prefix: &Path) -> Result<()> {
    let shown = prefix.display();
    if prefix.as_os_str().is_empty() {
        return Err(Error::invalid_argument(
            "cannot save a checkpoint to an empty path; pass a prefix such as dir/model.ckpt (the files \
             PREFIX.index and PREFIX.data-00000-of-00001 are written)",
        ));
    }
    if prefix.to_str().is_some_and(|s| s.ends_with('/') || s.ends_with(std::path::MAIN_SEPARATOR)) || prefix.is_dir() {
        return Err(Error::invalid_argument(format!(
            "cannot save a checkpoint to {shown}: it is a directory; pass a prefix inside it such as {}",
            prefix.join("model.ckpt").display()
        )));
    }
    if let Some(stem) = strip_checkpoint_suffix(prefix) {
        return Err(Error::invalid_argument(format!(
            "cannot save a checkpoint to {shown}: that is the name of one of a checkpoint's files; pass its prefix {}",
            stem.display()
        )));
    }
    Ok(())
}
