//! The V1 side of [`CheckpointReader`](super::CheckpointReader): a prefix that names a V1
//! checkpoint file (TensorFlow's single-file `TensorSliceReader` format) is opened with
//! [`TensorSliceReader`], so every reader of checkpoints (`Saver::restore`,
//! `init_from_checkpoint`, the `inspect` and `diff` commands) reads V1 checkpoints too.

use super::tensor_slices::{is_v1_checkpoint, TensorSliceReader};
use crate::error::{Error, Result};
use crate::tensor::{DType, Tensor};
use std::path::Path;

/// The V1 checkpoint `path` opened, or `None` when `path` is not a V1 checkpoint file (not
/// a file, or another kind of file).
///
/// Errors: `InvalidArgument` for a path that is not UTF-8; as [`TensorSliceReader::open`]
/// for a damaged V1 file (a file that is not recognisably V1 is left to the V2 reader).
pub(super) fn open_v1(path: &Path) -> Result<Option<TensorSliceReader>> {
    if !path.is_file() {
        return Ok(None);
    }
    let Ok(bytes) = std::fs::read(path) else { return Ok(None) };
    if !is_v1_checkpoint(&bytes) {
        return Ok(None);
    }
    let pattern = path
        .to_str()
        .ok_or_else(|| Error::invalid_argument(format!("the V1 checkpoint path {} is not UTF-8", path.display())))?;
    TensorSliceReader::open(pattern).map(Some)
}

/// Reads tensor `name` of `dtype` from a V1 checkpoint.
pub(super) fn read_v1(reader: &TensorSliceReader, name: &str, dtype: DType) -> Result<Tensor> {
    reader.read(name, dtype)
}
