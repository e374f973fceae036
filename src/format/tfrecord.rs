//! TFRecord framing (formats.md §4.2), the container of TensorBoard's event files: each
//! record is its length (`u64` little-endian), the masked CRC-32C of those 8 bytes, the
//! payload, and the payload's masked CRC-32C. [`encode_record`] frames a payload;
//! [`RecordReader`] reads a file back record by record, checking both checksums and never
//! allocating more than the bytes left in the file.

use super::checkpoint::crc::{mask_crc, unmask_crc};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Bytes of a record's header: length and its checksum.
const HEADER: u64 = 12;
/// Bytes of a record's footer: the payload's checksum.
const FOOTER: u64 = 4;

/// Frames `payload` as one TFRecord (`tensorflow::io::RecordWriter` without compression).
pub fn encode_record(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + (HEADER + FOOTER) as usize);
    let len = (payload.len() as u64).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&mask_crc(crc32c::crc32c(&len)).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&mask_crc(crc32c::crc32c(payload)).to_le_bytes());
    out
}

/// Where a file ended inside a record (a writer stopped mid-write).
#[derive(Clone, Debug, PartialEq)]
pub struct Truncation {
    /// Byte offset of the incomplete record.
    pub offset: u64,
    /// Bytes of it present.
    pub have: u64,
    /// Bytes the record needs (header only, 12, when its length was cut).
    pub need: u64,
}

impl std::fmt::Display for Truncation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the last record, at byte {}, is incomplete ({} of {} bytes): the writer stopped mid-write; \
             the records before it were read",
            self.offset, self.have, self.need
        )
    }
}

/// Reads the records of a TFRecord file in order (an `Iterator` of payloads).
///
/// A record cut short at the end of the file ends the iteration (`None`) and is reported by
/// [`RecordReader::truncation`]; a checksum mismatch is `DataLoss` naming the file and the
/// record's byte offset, after which the iteration ends. A length larger than the rest of the
/// file is a truncation, so no record allocates more than the file holds.
pub struct RecordReader {
    path: PathBuf,
    input: BufReader<File>,
    offset: u64,
    size: u64,
    done: bool,
    truncation: Option<Truncation>,
}

impl RecordReader {
    /// Opens `path`. Errors: the file system's (`NotFound`, ...), naming the path;
    /// `InvalidArgument` for a directory, device, pipe or socket.
    pub fn open(path: impl AsRef<Path>) -> Result<RecordReader> {
        let path = path.as_ref().to_path_buf();
        // the kind of file first: stat does not block on a named pipe, open does, and a
        // device such as /dev/zero would read forever
        let meta = std::fs::metadata(&path).map_err(|e| super::atomic_file::io_error(e, "cannot read", &path))?;
        if !meta.is_file() {
            return Err(Error::invalid_argument(format!(
                "{}: not a regular file ({}): TFRecord files are read from regular files",
                path.display(),
                if meta.is_dir() { "a directory" } else { "a device, pipe or socket" }
            )));
        }
        let file = File::open(&path).map_err(|e| super::atomic_file::io_error(e, "cannot read", &path))?;
        let size = file.metadata().map_err(|e| super::atomic_file::io_error(e, "cannot read", &path))?.len();
        Ok(RecordReader { path, input: BufReader::new(file), offset: 0, size, done: false, truncation: None })
    }

    /// The byte offset of the next record.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The incomplete last record, once the iteration has reached it.
    pub fn truncation(&self) -> Option<&Truncation> {
        self.truncation.as_ref()
    }

    fn corrupt(&mut self, what: &str) -> Error {
        self.done = true;
        Error::data_loss(format!(
            "{}: corrupt record at byte {}: {what}; the file was damaged after it was written",
            self.path.display(),
            self.offset
        ))
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<()> {
        let path = self.path.clone();
        self.input.read_exact(buf).map_err(|e| super::atomic_file::io_error(e, "cannot read", &path))
    }

    fn next_record(&mut self) -> Result<Option<Vec<u8>>> {
        let left = self.size - self.offset;
        if left == 0 {
            return Ok(None);
        }
        if left < HEADER {
            self.truncation = Some(Truncation { offset: self.offset, have: left, need: HEADER });
            return Ok(None);
        }
        let mut header = [0u8; HEADER as usize];
        self.read_exact(&mut header)?;
        let len_bytes: [u8; 8] = header[..8].try_into().expect("8 bytes");
        let stored = u32::from_le_bytes(header[8..].try_into().expect("4 bytes"));
        if unmask_crc(stored) != crc32c::crc32c(&len_bytes) {
            return Err(self.corrupt("the checksum of its length does not match"));
        }
        let len = u64::from_le_bytes(len_bytes);
        let need = len.saturating_add(HEADER + FOOTER);
        if need > left {
            self.truncation = Some(Truncation { offset: self.offset, have: left, need });
            return Ok(None);
        }
        let mut payload = vec![0u8; len as usize];
        self.read_exact(&mut payload)?;
        let mut footer = [0u8; FOOTER as usize];
        self.read_exact(&mut footer)?;
        if unmask_crc(u32::from_le_bytes(footer)) != crc32c::crc32c(&payload) {
            return Err(self.corrupt("the checksum of its data does not match"));
        }
        self.offset += need;
        Ok(Some(payload))
    }
}

impl Iterator for RecordReader {
    type Item = Result<Vec<u8>>;

    fn next(&mut self) -> Option<Result<Vec<u8>>> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_as_tensorflow() {
        // the seed event file's first record: length 62, masked crc d9d240e7 (formats.md §4.3)
        let r = encode_record(&[0u8; 62]);
        assert_eq!(&r[..12], &[62, 0, 0, 0, 0, 0, 0, 0, 0xd9, 0xd2, 0x40, 0xe7]);
        assert_eq!(r.len(), 62 + 16);
    }
}
