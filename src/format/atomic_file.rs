//! Atomic file replacement: write `<name>.tempstate<random>` in the same directory, then
//! rename it over `<name>` (what TensorFlow's bundle writer and `checkpoint` state writer do).

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Wraps an I/O error with what was being done to which file, keeping its code; a path
/// that is a directory where a file was expected is `FailedPrecondition` (TensorFlow's code
/// for `EISDIR`) saying so, not the bare `Is a directory (os error 21)`.
pub(crate) fn io_error(e: std::io::Error, what: &str, path: &Path) -> Error {
    if e.kind() == std::io::ErrorKind::IsADirectory {
        let msg = format!("{what} {0}: {0} is a directory; give the path of a file", path.display());
        return Error::failed_precondition(msg).with_source(e);
    }
    Error::from(e).context(format!("{what} {}", path.display()))
}

/// A file being written under a temporary name; removed on drop unless committed.
pub(crate) struct AtomicFile {
    temp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
}

/// Creates a new file `<target>.tempstate<random>` next to `target` (TensorFlow's temporary
/// naming), returning its path and handle. Errors: `NotFound` when the directory of `target`
/// does not exist, `InvalidArgument` when a component of it is a file; else the file
/// system's, naming `target`.
pub(crate) fn create_temp(target: &Path) -> Result<(PathBuf, File)> {
    let name = target
        .file_name()
        .ok_or_else(|| Error::invalid_argument(format!("{} does not name a file", target.display())))?;
    let mut last_err = None;
    for _ in 0..16 {
        let mut temp_name = name.to_os_string();
        temp_name.push(format!(".tempstate{:016x}", rand::random::<u64>()));
        let temp = target.with_file_name(temp_name);
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(f) => return Ok((temp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => {
                return Err(missing_directory(target)
                    .unwrap_or_else(|| io_error(e, "cannot create a temporary file for", target)))
            }
        }
    }
    let e = last_err.unwrap_or_else(|| std::io::Error::other("no free temporary name"));
    Err(io_error(e, "cannot create a temporary file for", target))
}

/// The error for writing `target` when its directory is missing or is not a directory:
/// `NotFound: cannot write d/x.pb: the directory d does not exist` (or `InvalidArgument: ...
/// d is not a directory`); `None` when the directory is there.
fn missing_directory(target: &Path) -> Option<Error> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // the nearest ancestor that exists says which of the two it is
    let mut existing = dir;
    while !existing.exists() {
        match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => existing = p,
            _ => break,
        }
    }
    if existing.exists() && !existing.is_dir() {
        return Some(Error::invalid_argument(format!(
            "cannot write {}: {} is not a directory",
            target.display(),
            existing.display()
        )));
    }
    (!dir.is_dir()).then(|| {
        Error::not_found(format!("cannot write {}: the directory {} does not exist", target.display(), dir.display()))
    })
}

impl AtomicFile {
    /// Creates the temporary file next to `target`.
    pub(crate) fn create(target: &Path) -> Result<AtomicFile> {
        let (temp, f) = create_temp(target)?;
        Ok(AtomicFile { temp, target: target.to_path_buf(), out: Some(BufWriter::new(f)) })
    }

    /// Appends bytes.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let out = self.out.as_mut().expect("AtomicFile used after commit");
        out.write_all(bytes).map_err(|e| io_error(e, "cannot write", &self.temp))
    }

    /// Flushes, syncs (when `sync`) and renames the file into place.
    pub(crate) fn commit(mut self, sync: bool) -> Result<()> {
        let out = self.out.take().expect("AtomicFile committed twice");
        let file = out.into_inner().map_err(|e| io_error(e.into_error(), "cannot write", &self.temp))?;
        if sync {
            file.sync_all().map_err(|e| io_error(e, "cannot sync", &self.temp))?;
        }
        drop(file);
        std::fs::rename(&self.temp, &self.target).map_err(|e| io_error(e, "cannot rename into place", &self.target))?;
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        self.out = None;
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `target` atomically (temporary file, synced to disk, then rename).
pub(crate) fn write_atomically(target: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_synced(target, bytes, true)
}

/// As [`write_atomically`]; the temporary file is synced to disk before the rename only
/// when `sync` (without, the write is still atomic for other processes, not for a power loss).
pub(crate) fn write_atomically_synced(target: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    let mut f = AtomicFile::create(target)?;
    f.write_all(bytes)?;
    f.commit(sync)
}
