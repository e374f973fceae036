//! Reading event files back: [`EventFileReader`] iterates the events of one file
//! (`tf.compat.v1.train.summary_iterator`), [`event_files`] finds the event files of a log
//! directory.

use super::file_name::is_event_file_name;
use crate::error::{Error, Result};
use crate::format::proto::Event;
use crate::format::tfrecord::{RecordReader, Truncation};
use prost::Message;
use std::path::{Path, PathBuf};

/// The events of one event file, in order (an `Iterator` of `Result<Event>`).
///
/// A last record cut short (a writer killed mid-write, or still writing) ends the
/// iteration after every complete record; [`EventFileReader::truncation`] then says where
/// (print it as a warning). A record whose checksum does not match, or whose bytes are not an
/// `Event`, is a `DataLoss` error naming the file and the record's byte offset, and ends the
/// iteration. No record allocates more than the bytes left in the file.
pub struct EventFileReader {
    records: RecordReader,
    path: PathBuf,
}

impl EventFileReader {
    /// Opens `path`. Errors: the file system's, naming the path.
    pub fn open(path: impl AsRef<Path>) -> Result<EventFileReader> {
        let path = path.as_ref().to_path_buf();
        Ok(EventFileReader { records: RecordReader::open(&path)?, path })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the file ended inside a record, once the iteration reached it.
    pub fn truncation(&self) -> Option<&Truncation> {
        self.records.truncation()
    }

    /// The warning for a truncated file: `PATH: the last record, at byte N, is incomplete ...`.
    pub fn warning(&self) -> Option<String> {
        self.truncation().map(|t| format!("{}: {t}", self.path.display()))
    }
}

impl Iterator for EventFileReader {
    type Item = Result<Event>;

    fn next(&mut self) -> Option<Result<Event>> {
        let offset = self.records.offset();
        let bytes = match self.records.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        Some(Event::decode(bytes.as_slice()).map_err(|e| {
            Error::data_loss(format!(
                "{}: the record at byte {offset} is not an Event ({e}); is this a TensorBoard event file?",
                self.path.display()
            ))
        }))
    }
}

/// The event files at `path`: the file itself, or, for a directory, every file whose name
/// contains `tfevents` in it and its subdirectories (TensorBoard's runs), sorted by path.
/// Errors: `NotFound` for a missing path; the file system's.
pub fn event_files(path: impl AsRef<Path>) -> Result<Vec<PathBuf>> {
    let path = path.as_ref();
    let meta = std::fs::metadata(path).map_err(|e| crate::format::atomic_file::io_error(e, "cannot read", path))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| crate::format::atomic_file::io_error(e, "cannot read", &dir))?;
        for entry in entries {
            let p = entry.map_err(|e| crate::format::atomic_file::io_error(e, "cannot read", &dir))?.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(is_event_file_name) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}
