//! A model file's bytes as one shared buffer: mapped when large, read when small.
//!
//! A frozen graph's constants are most of its bytes (ResNet50's `frozen.pb`: 103 MB).
//! Reading it copies every byte out of the page cache into fresh memory that the kernel
//! first clears; mapping it does neither, and the decoded `GraphDef`'s `tensor_content`
//! are views of the mapping ([`GraphDef::from_shared`](crate::format::proto::GraphDef::from_shared)),
//! so the weights are copied once, into the tensors an import makes.
//!
//! A mapping shows the file as it is on disk while the buffer lives: a file changed or
//! truncated in place by another program meanwhile changes (or, truncated, faults) what
//! the views read, as with any memory-mapped file. tensorgraph's own writers never do
//! that (they write a temporary file and rename it into place, which leaves a mapped file
//! untouched); the buffer lives as long as the `GraphDef` read from it.

use prost::bytes::Bytes;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Files at least this large (16 MiB) are mapped rather than read.
pub(crate) const MAP_MIN_BYTES: u64 = 16 << 20;

/// The bytes of the file at `path`: a read-only mapping of it when it is at least
/// [`MAP_MIN_BYTES`] long and the system maps it, else a buffer read from it.
/// Errors: those of opening and reading the file (`NotFound` for a missing one).
pub(crate) fn read_shared(path: &Path) -> std::io::Result<Bytes> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if len >= MAP_MIN_BYTES {
        // SAFETY: the mapping is read-only and outlives every view of it (the `Bytes`
        // own it); a file changed in place by another program meanwhile is the
        // documented hazard of the module
        let mapped = unsafe { memmap2::MmapOptions::new().populate().map(&file) };
        if let Ok(map) = mapped {
            if map.len() as u64 == len {
                return Ok(Bytes::from_owner(map));
            }
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(Bytes::from(bytes))
}
