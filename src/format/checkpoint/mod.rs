//! TensorFlow V2 checkpoints ("tensor bundles") and the `checkpoint` state file.
//!
//! A checkpoint with prefix `P` is the SSTable `P.index` (a header plus one
//! `BundleEntryProto` per tensor, keyed by name) and the raw tensor bytes in
//! `P.data-00000-of-00001` (more shards for sharded saves). This module reads what TensorFlow
//! writes ([`CheckpointReader`], all dtypes, sharded and partitioned tensors) and writes files
//! TensorFlow reads, byte-identical to TensorFlow's own ([`write_checkpoint`],
//! [`CheckpointWriter`]; [`write_checkpoint_sharded`] spreads the data over several files).
//! [`latest_checkpoint`] and the [`CheckpointState`] functions handle
//! the directory's `checkpoint` file. Layouts: `shared/docs/formats.md` §0–§2.

mod codec;
mod data_file;

#[doc(hidden)]
pub mod bundle_proto;
mod checkpoint_state;
pub(crate) mod crc;
mod latest;
mod prefix;
mod reader;
mod reader_v1;
mod slices;
#[doc(hidden)]
pub mod table;
pub mod tensor_slices;
mod v1_damage;
mod writer;

pub use checkpoint_state::{
    latest_checkpoint, read_checkpoint_state, write_checkpoint_state, CheckpointState, CHECKPOINT_STATE_FILENAME,
};
#[doc(hidden)]
pub use crc::{mask_crc, unmask_crc};
pub(crate) use data_file::read_tensors;
pub use latest::{find_latest_checkpoint, LatestCheckpoint};
pub use prefix::{
    check_save_prefix, checkpoints_near, missing_checkpoint_message, names_a_checkpoint_file,
    resolve_checkpoint_prefix, strip_checkpoint_suffix,
};
pub use reader::{CheckpointReader, UndecodableEntry};
#[doc(hidden)]
pub use slices::slice_key;
pub use tensor_slices::{
    concrete_extents, parse_shape_and_slice, write_tensor_slices, SliceExtents, SliceToSave, TensorSliceReader,
};
pub use v1_damage::{damaged_v1_checkpoint, damaged_v1_error};
pub use writer::{write_checkpoint, write_checkpoint_sharded, CheckpointWriter, MAX_SHARDS};

use std::path::{Path, PathBuf};

/// `PREFIX.index`: the index file of the checkpoint `prefix` (the suffix is appended, never
/// substituted for an extension).
pub fn index_path(prefix: impl AsRef<Path>) -> PathBuf {
    let mut s = prefix.as_ref().as_os_str().to_os_string();
    s.push(".index");
    PathBuf::from(s)
}

/// `PREFIX.meta`: the meta graph `Saver.save` writes beside the checkpoint `prefix`
/// (TensorFlow's `meta_graph_filename`; the suffix is appended, as for [`index_path`]).
pub fn meta_graph_path(prefix: impl AsRef<Path>) -> PathBuf {
    let mut s = prefix.as_ref().as_os_str().to_os_string();
    s.push(".meta");
    PathBuf::from(s)
}

/// `PREFIX.data-SSSSS-of-NNNNN`: data shard `shard` of `num_shards` of the checkpoint `prefix`
/// (TensorFlow's `DataFilename`).
pub fn data_path(prefix: impl AsRef<Path>, shard: usize, num_shards: usize) -> PathBuf {
    let mut s = prefix.as_ref().as_os_str().to_os_string();
    s.push(format!(".data-{shard:05}-of-{num_shards:05}"));
    PathBuf::from(s)
}
