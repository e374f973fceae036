//! A model file's bytes as one shared buffer, read on two threads when large.
//!
//! A frozen graph's constants are most of its bytes (ResNet50's `frozen.pb`: 103 MB), and
//! reading them is mostly the kernel copying from the page cache into fresh memory that it
//! clears first; two threads read the two halves of a large file at once. The bytes are a
//! copy: a file changed, truncated or replaced while or after it is read changes nothing
//! already read (it gives a read error, or the file as it was when read). The decoded
//! `GraphDef`'s `tensor_content` are views of this buffer
//! ([`GraphDef::from_shared`](crate::format::proto::GraphDef::from_shared)).

use prost::bytes::Bytes;
use std::fs::File;
use std::io::{Error, ErrorKind, Read, Seek, SeekFrom};
use std::path::Path;

/// Files at least this large (16 MiB) are read on two threads.
const SPLIT_MIN_BYTES: u64 = 16 << 20;

/// The largest binary protocol buffer message, 2 GiB - 1 bytes: protobuf's limit, which
/// TensorFlow's readers of `GraphDef` and `MetaGraphDef` files share.
pub(crate) const MAX_BINARY_PROTO_BYTES: u64 = i32::MAX as u64;

/// Bytes of a file's start that [`read_shared`] gives its `is_text` test.
const HEAD_BYTES: usize = 4096;

/// The bytes of the regular file at `path`, a model file: one larger than a binary
/// protocol buffer can be ([`MAX_BINARY_PROTO_BYTES`]) is read only when `is_text` says
/// its first 4 KiB are text, so that a large file of another kind is refused without
/// reading it.
/// Errors: those of opening and reading it (`NotFound` for a missing one); `InvalidInput`
/// for something that is not a regular file (a device such as `/dev/zero`, a pipe);
/// `InvalidData` for a binary file over 2 GiB; and `UnexpectedEof` when it shrinks while it
/// is read.
pub(crate) fn read_shared(path: &Path, is_text: impl Fn(&[u8]) -> bool) -> std::io::Result<Bytes> {
    // the kind of file first: stat does not block on a named pipe, open does
    if !std::fs::metadata(path)?.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file (a device, pipe or socket)"));
    }
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file (a device, pipe or socket)"));
    }
    let len = meta.len();
    if len > MAX_BINARY_PROTO_BYTES {
        let mut head = Vec::with_capacity(HEAD_BYTES);
        (&mut file).take(HEAD_BYTES as u64).read_to_end(&mut head)?;
        if !is_text(&head) {
            return Err(Error::new(
                ErrorKind::InvalidData,
                format!(
                    "{len} bytes, more than the 2 GiB a binary GraphDef or MetaGraphDef can hold \
                     (protobuf's limit), and not text: not a model file"
                ),
            ));
        }
        file.seek(SeekFrom::Start(0))?;
    }
    let Ok(size) = usize::try_from(len) else {
        return Err(Error::new(ErrorKind::OutOfMemory, format!("{len} bytes do not fit in memory")));
    };
    if len < SPLIT_MIN_BYTES || cfg!(not(unix)) {
        let mut bytes = Vec::with_capacity(size);
        file.read_to_end(&mut bytes)?;
        return Ok(Bytes::from(bytes));
    }
    let mut bytes = read_halves(&file, size)?;
    // a file that grew meanwhile: the rest too, so a damaged read is never silent
    file.seek(SeekFrom::Start(size as u64))?;
    file.read_to_end(&mut bytes)?;
    Ok(Bytes::from(bytes))
}

/// The first `size` bytes of `file`, each half read by its own thread into its place.
#[cfg(unix)]
fn read_halves(file: &File, size: usize) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    // zeroed, so untouched until read into
    let mut bytes = vec![0u8; size];
    let (first, second) = bytes.split_at_mut(size / 2);
    let at = first.len() as u64;
    std::thread::scope(|s| {
        let other = s.spawn(|| file.read_exact_at(second, at));
        let mine = file.read_exact_at(first, 0);
        other.join().unwrap_or_else(|_| Err(Error::other("the reading thread panicked"))).and(mine)
    })?;
    Ok(bytes)
}

#[cfg(not(unix))]
fn read_halves(_: &File, _: usize) -> std::io::Result<Vec<u8>> {
    unreachable!("read whole where positioned reads are not unix's")
}
