//! The V1 side of [`CheckpointReader`](super::CheckpointReader): a prefix that names a V1
//! checkpoint file (TensorFlow's single-file `TensorSliceReader` format) is opened with
//! [`TensorSliceReader`], so every reader of checkpoints (`Saver::restore`,
//! `init_from_checkpoint`, the `inspect` and `diff` commands) reads V1 checkpoints too.

use super::tensor_slices::{is_v1_checkpoint, TensorSliceReader};
use super::v1_damage::{damaged_v1_checkpoint, damaged_v1_error};
use crate::error::{Error, Result};
use crate::tensor::{DType, Tensor};
use std::path::Path;

/// The V1 checkpoint `path` opened, or `None` when `path` is not a V1 checkpoint file (not
/// a file, or another kind of file). With `damage_is_error` (a path given as a checkpoint
/// prefix, whose `.index` does not exist), a file that looks like a damaged V1 checkpoint
/// ([`damaged_v1_checkpoint`]) is a `DataLoss` error naming it as one, not `None`.
///
/// Errors: `InvalidArgument` for a path that is not UTF-8; `DataLoss` for a damaged V1
/// file, as above and as [`TensorSliceReader::open`] (a file that is not recognisably V1 is
/// left to the V2 reader).
pub(super) fn open_v1(path: &Path, damage_is_error: bool) -> Result<Option<TensorSliceReader>> {
    if !path.is_file() {
        return Ok(None);
    }
    let Ok(bytes) = std::fs::read(path) else { return Ok(None) };
    if !is_v1_checkpoint(&bytes) {
        return match damaged_v1_checkpoint(&bytes) {
            Some(what) if damage_is_error => Err(damaged_v1_error(path, &what)),
            _ => Ok(None),
        };
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
