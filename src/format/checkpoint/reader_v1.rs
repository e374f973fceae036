//! The V1 side of [`CheckpointReader`](super::CheckpointReader): a prefix that names a V1
//! checkpoint file (TensorFlow's single-file `TensorSliceReader` format) is opened with
//! [`TensorSliceReader`], so every reader of checkpoints (`Saver::restore`,
//! `init_from_checkpoint`, the `inspect` and `diff` commands) reads V1 checkpoints too.

use super::table::read_table;
use super::tensor_slices::{is_v1_checkpoint, TensorSliceReader};
use crate::error::{Error, Result};
use crate::tensor::{DType, Tensor};
use std::path::Path;

/// The V1 checkpoint `path` opened, or `None` when `path` is not a V1 checkpoint file (not
/// a file, or another kind of file).
///
/// Errors: `InvalidArgument` for a path that is not UTF-8; as [`TensorSliceReader::open`]
/// for a damaged file.
pub(super) fn open_v1(path: &Path) -> Result<Option<TensorSliceReader>> {
    if !path.is_file() {
        return Ok(None);
    }
    let Ok(bytes) = std::fs::read(path) else { return Ok(None) };
    // an SSTable that fails its checks is reported by the V1 reader, naming the file
    if !is_v1_checkpoint(&bytes) && !(read_table(&bytes, "").is_err() && looks_like_table(&bytes)) {
        return Ok(None);
    }
    let pattern = path
        .to_str()
        .ok_or_else(|| Error::invalid_argument(format!("the V1 checkpoint path {} is not UTF-8", path.display())))?;
    TensorSliceReader::open(pattern).map(Some)
}

/// True when `bytes` end with an SSTable footer's magic number (LevelDB's
/// `0xdb4775248b80fb57`, little-endian).
fn looks_like_table(bytes: &[u8]) -> bool {
    bytes.len() >= 48 && bytes[bytes.len() - 8..] == 0xdb4775248b80fb57u64.to_le_bytes()
}

/// Reads tensor `name` of `dtype` from a V1 checkpoint.
pub(super) fn read_v1(reader: &TensorSliceReader, name: &str, dtype: DType) -> Result<Tensor> {
    reader.read(name, dtype)
}
