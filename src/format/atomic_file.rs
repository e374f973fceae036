//! Atomic file replacement: write `<name>.tempstate<random>` in the same directory, then
//! rename it over `<name>` (what TensorFlow's bundle writer and `checkpoint` state writer do).

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Wraps an I/O error with what was being done to which file, keeping its code.
pub(crate) fn io_error(e: std::io::Error, what: &str, path: &Path) -> Error {
    Error::from(e).context(format!("{what} {}", path.display()))
}

/// A file being written under a temporary name; removed on drop unless committed.
pub(crate) struct AtomicFile {
    temp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
}

/// Creates a new file `<target>.tempstate<random>` next to `target` (TensorFlow's temporary
/// naming), returning its path and handle. Errors: the file system's, naming `target`.
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
            Err(e) => return Err(io_error(e, "cannot create a temporary file for", target)),
        }
    }
    let e = last_err.unwrap_or_else(|| std::io::Error::other("no free temporary name"));
    Err(io_error(e, "cannot create a temporary file for", target))
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

    /// Flushes, syncs and renames the file into place.
    pub(crate) fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("AtomicFile committed twice");
        let file = out.into_inner().map_err(|e| io_error(e.into_error(), "cannot write", &self.temp))?;
        file.sync_all().map_err(|e| io_error(e, "cannot sync", &self.temp))?;
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

/// Writes `bytes` to `target` atomically (temporary file + rename).
pub(crate) fn write_atomically(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(target)?;
    f.write_all(bytes)?;
    f.commit()
}
