//! The paths users give for a checkpoint: a prefix (`dir/model.ckpt`), one of its files
//! (`model.ckpt.index`, `model.ckpt.data-00000-of-00001`), a V1 checkpoint file, or a
//! directory with a `checkpoint` state file. [`resolve_checkpoint_prefix`] turns each into
//! the prefix the readers take; [`check_save_prefix`] refuses the ones a save cannot use.

use super::find_latest_checkpoint;
use super::index_path;
use super::CHECKPOINT_STATE_FILENAME;
use crate::error::suggest::{closest_names, did_you_mean};
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
/// - `X.meta` (the meta graph `Saver.save` writes beside it) when `X.index` or the file `X`
///   exists: `X`;
/// - the `checkpoint` state file, or a directory: the newest checkpoint through that state
///   file
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
    if path.is_file() && path.file_name().is_some_and(|n| n == CHECKPOINT_STATE_FILENAME) {
        // the `checkpoint` state file itself: the newest checkpoint of its directory
        return resolve_checkpoint_prefix(
            path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")),
        );
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
        // the meta graph Saver.save writes beside the checkpoint (`X.meta`): the checkpoint
        // `X` (a V2 prefix, or a V1 file, which the reader then reads or refuses)
        if let Some(stem) = meta_stem(path).filter(|s| index_path(s).is_file() || s.is_file()) {
            return Ok(stem);
        }
    }
    Ok(path.to_path_buf())
}

/// `X` for a path `X.meta` (`X` not empty), else `None`.
fn meta_stem(path: &Path) -> Option<PathBuf> {
    let stem = path.to_str()?.strip_suffix(".meta")?;
    (!stem.is_empty() && !stem.ends_with('/')).then(|| PathBuf::from(stem))
}

/// The `NotFound` message for a checkpoint path `prefix` that names no checkpoint (its
/// `.index` is missing and it is no V1 file). A path ending in `.index` or `.data-*` is
/// named as given (not `X.index.index`), with the V1 file `X` to pass when that exists; a
/// path `X.meta` as a meta graph without its checkpoint `X`; any other prefix with the
/// checkpoints near it ([`checkpoints_near`]), so the user sees what to pass; a device,
/// pipe or socket (`/dev/zero`) as not a regular file.
pub fn missing_checkpoint_message(prefix: &Path) -> String {
    let shown = prefix.display();
    if std::fs::metadata(prefix).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return format!(
            "checkpoint {shown} not found: {shown} is not a regular file (a device, pipe or socket), and {} does not \
             exist (a V2 checkpoint prefix names the files PREFIX.index and PREFIX.data-*)",
            index_path(prefix).display()
        );
    }
    if let Some(stem) = strip_checkpoint_suffix(prefix) {
        return if stem.is_file() {
            format!(
                "checkpoint {shown} not found: {shown} does not exist; {} is a V1 checkpoint (one file, without \
                 .index or .data files): pass {}",
                stem.display(),
                stem.display()
            )
        } else {
            format!(
                "checkpoint {shown} not found: {shown} does not exist (a V2 checkpoint's files are PREFIX.index and \
                 PREFIX.data-*; here PREFIX would be {})",
                stem.display()
            )
        };
    }
    if let Some(stem) = meta_stem(prefix) {
        return format!(
            "checkpoint {shown} not found: {shown} names a meta graph (the model Saver.save writes beside a \
             checkpoint), and there is no checkpoint {} beside it ({} does not exist)",
            stem.display(),
            index_path(&stem).display()
        );
    }
    format!(
        "checkpoint {shown} not found: {} does not exist (a V2 checkpoint prefix names the files PREFIX.index and \
         PREFIX.data-*){}",
        index_path(prefix).display(),
        checkpoints_near(prefix)
    )
}

/// Whether `path` is named as one of a checkpoint's files or its meta graph (`X.index`,
/// `X.data-NNNNN-of-NNNNN`, `X.meta`) rather than as a prefix: for such a path whose
/// checkpoint is missing, [`missing_checkpoint_message`] says what to pass instead.
pub fn names_a_checkpoint_file(path: &Path) -> bool {
    strip_checkpoint_suffix(path).is_some() || meta_stem(path).is_some()
}

/// For a checkpoint prefix `prefix` that does not exist: the checkpoints beside it whose
/// names start with its file name (`; checkpoints beside it: dir/model.ckpt-1000`, for
/// `model.ckpt` when only `model.ckpt-1000` exists), else the closest prefixes beside it
/// (`. Did you mean 'dir/model.ckpt'?` for the misspelt `model.ckt`); empty when none.
pub fn checkpoints_near(prefix: &Path) -> String {
    let base = prefix.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = prefix.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).filter_map(|e| e.file_name().to_str().map(String::from)).collect())
        .unwrap_or_default();
    let mut near: Vec<String> = names
        .iter()
        .filter(|n| !base.is_empty() && n.starts_with(base) && n.len() > base.len() && !n.ends_with(".meta"))
        .map(|n| strip_checkpoint_suffix(Path::new(n)).map_or(n.clone(), |s| s.display().to_string()))
        .collect();
    near.sort();
    near.dedup();
    if !near.is_empty() {
        let shown: Vec<String> = near.iter().take(5).map(|n| prefix.with_file_name(n).display().to_string()).collect();
        return format!("; checkpoints beside it: {}", shown.join(", "));
    }
    if base.is_empty() {
        return String::new();
    }
    // a misspelt prefix (`model.ckt` beside `model.ckpt`): the closest prefixes beside it
    let prefixes = names.iter().filter_map(|n| n.strip_suffix(".index"));
    let paths: Vec<String> =
        closest_names(base, prefixes).iter().map(|n| prefix.with_file_name(n).display().to_string()).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    match paths.is_empty() {
        true => String::new(),
        false => format!(".{}", did_you_mean(&paths, "")),
    }
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
