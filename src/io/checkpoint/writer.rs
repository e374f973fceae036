//! [`CheckpointWriter`] and [`write_checkpoint`]: write a V2 checkpoint exactly as
//! TensorFlow's `BundleWriter` (the `SaveV2` op) does (formats.md §1.10).

use super::codec::encode_storage;
use super::fsutil::{io_error, write_atomically, AtomicFile};
use super::proto::{
    BundleEntryProto, BundleHeaderProto, Extent, HasLength, TensorShapeProto, TensorSliceProto, VersionDef,
};
use super::slices::slice_key;
use super::table::{build_table, TableOptions};
use super::{data_path, index_path};
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, Tensor};
use prost::Message;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Writes one non-sharded V2 checkpoint: `PREFIX.data-00000-of-00001` and `PREFIX.index`.
///
/// Mirrors TensorFlow's `BundleWriter`: tensor bytes go to the data file back to back in the
/// order they are added (as `SaveV2` keeps its inputs' order); the index holds the header and
/// one entry per key, sorted bytewise. Each file is written under a temporary name in the
/// target directory and renamed into place by [`CheckpointWriter::finish`] (data first, index
/// last); dropping the writer unfinished removes the temporary file and leaves any previous
/// checkpoint untouched.
pub struct CheckpointWriter {
    prefix: PathBuf,
    data: AtomicFile,
    offset: u64,
    entries: BTreeMap<Vec<u8>, BundleEntryProto>,
    options: TableOptions,
}

impl std::fmt::Debug for CheckpointWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointWriter")
            .field("prefix", &self.prefix)
            .field("offset", &self.offset)
            .field("entries", &self.entries.len())
            .finish()
    }
}

impl CheckpointWriter {
    /// Starts a checkpoint with prefix `prefix`, creating its directory if needed (as
    /// `BundleWriter` does) and the temporary data file.
    ///
    /// Errors: I/O errors (with the file named) when the directory or file cannot be created.
    pub fn new(prefix: impl AsRef<Path>) -> Result<CheckpointWriter> {
        let prefix = prefix.as_ref().to_path_buf();
        if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io_error(e, "cannot create checkpoint directory", dir))?;
        }
        let data = AtomicFile::create(&data_path(&prefix, 0, 1))?;
        Ok(CheckpointWriter { prefix, data, offset: 0, entries: BTreeMap::new(), options: TableOptions::default() })
    }

    /// Uses other SSTable settings for the `.index` file (TensorFlow reads any block size and
    /// restart interval; the default reproduces TensorFlow's bytes).
    pub fn with_table_options(mut self, options: TableOptions) -> CheckpointWriter {
        self.options = options;
        self
    }

    fn check_new_key(&self, key: &[u8], name: &str) -> Result<()> {
        if name.is_empty() {
            return Err(Error::invalid_argument("a checkpoint tensor name must not be empty"));
        }
        if self.entries.contains_key(key) {
            return Err(Error::invalid_argument(format!(
                "tensor {name:?} is added twice to checkpoint {}",
                self.prefix.display()
            )));
        }
        Ok(())
    }

    /// Appends `tensor`'s bytes to the data file; returns its entry (dtype, shape, offset, size,
    /// crc).
    fn append(&mut self, tensor: &Tensor) -> Result<BundleEntryProto> {
        let (bytes, crc) = encode_storage(tensor.storage());
        self.data.write_all(&bytes)?;
        let entry = BundleEntryProto {
            dtype: tensor.dtype().as_enum(),
            shape: Some(TensorShapeProto::from_dims(tensor.shape())),
            shard_id: 0,
            offset: self.offset as i64,
            size: bytes.len() as i64,
            crc32c: crc,
            slices: Vec::new(),
        };
        self.offset += bytes.len() as u64;
        Ok(entry)
    }

    /// Adds tensor `name` (any dtype and shape, including 0-d scalars and empty tensors).
    ///
    /// Errors: `InvalidArgument` for an empty or repeated name; I/O errors writing the data file.
    pub fn add(&mut self, name: &str, tensor: &Tensor) -> Result<()> {
        self.check_new_key(name.as_bytes(), name)?;
        let entry = self.append(tensor)?;
        self.entries.insert(name.as_bytes().to_vec(), entry);
        Ok(())
    }

    /// Adds one slice of the partitioned tensor `name` of shape `full_shape` (what `SaveV2`
    /// does for a `shape_and_slices` spec such as `"10 3 4,3:0,3"`): `extents` holds
    /// `(start, length)` per dimension and `slice` the values, of shape the lengths. The full
    /// entry (dtype, full shape, list of slices) is kept under `name`, the data under the
    /// slice's OrderedCode key. A slice covering the whole tensor is stored as a plain tensor.
    ///
    /// Errors: `InvalidArgument` when the extents do not fit `full_shape`, `slice` has another
    /// shape, the dtype or full shape differs from earlier slices of `name`, `name` was added
    /// as a plain tensor, or the same slice is added twice.
    pub fn add_slice(
        &mut self,
        name: &str,
        full_shape: &[usize],
        extents: &[(usize, usize)],
        slice: &Tensor,
    ) -> Result<()> {
        let fits = extents.len() == full_shape.len()
            && extents.iter().zip(full_shape).all(|(&(s, l), &d)| s.checked_add(l).is_some_and(|e| e <= d));
        if !fits {
            return Err(Error::invalid_argument(format!(
                "slice {extents:?} of tensor {name:?} does not fit its shape {}",
                fmt_dims(full_shape)
            )));
        }
        let lens: Vec<usize> = extents.iter().map(|e| e.1).collect();
        if slice.shape() != lens.as_slice() {
            return Err(Error::invalid_argument(format!(
                "slice {extents:?} of tensor {name:?} needs shape {}, got {}",
                fmt_dims(&lens),
                fmt_dims(slice.shape())
            )));
        }
        if extents.iter().zip(full_shape).all(|(&(s, l), &d)| s == 0 && l == d) {
            return self.add(name, slice);
        }
        if name.is_empty() {
            return Err(Error::invalid_argument("a checkpoint tensor name must not be empty"));
        }
        let full_proto = TensorShapeProto::from_dims(full_shape);
        if let Some(full) = self.entries.get(name.as_bytes()) {
            if full.slices.is_empty()
                || full.dtype != slice.dtype().as_enum()
                || full.shape.as_ref() != Some(&full_proto)
            {
                return Err(Error::invalid_argument(format!(
                    "slice of tensor {name:?} ({} {}) conflicts with what was added before under that name",
                    slice.dtype(),
                    fmt_dims(full_shape)
                )));
            }
        }
        let key_ext: Vec<(i64, i64)> = extents.iter().map(|&(s, l)| (s as i64, l as i64)).collect();
        let key = slice_key(name.as_bytes(), &key_ext);
        self.check_new_key(&key, &format!("{name} (slice {extents:?})"))?;
        let entry = self.append(slice)?;
        self.entries.insert(key, entry);
        let proto = TensorSliceProto {
            extent: extents
                .iter()
                .map(|&(s, l)| Extent { start: s as i64, has_length: Some(HasLength::Length(l as i64)) })
                .collect(),
        };
        let full = self.entries.entry(name.as_bytes().to_vec()).or_insert_with(|| BundleEntryProto {
            dtype: slice.dtype().as_enum(),
            shape: Some(full_proto),
            ..Default::default()
        });
        full.slices.push(proto);
        Ok(())
    }

    /// Renames the data file into place, then writes `PREFIX.index` (temporary file + rename).
    ///
    /// Errors: I/O errors naming the file.
    pub fn finish(self) -> Result<()> {
        let CheckpointWriter { prefix, data, entries, options, .. } = self;
        data.commit()?;
        let header = BundleHeaderProto {
            num_shards: 1,
            endianness: 0,
            version: Some(VersionDef { producer: 1, min_consumer: 0, bad_consumers: Vec::new() }),
        };
        let mut kvs = Vec::with_capacity(entries.len() + 1);
        kvs.push((Vec::new(), header.encode_to_vec()));
        kvs.extend(entries.into_iter().map(|(k, e)| (k, e.encode_to_vec())));
        let table = build_table(&kvs, options)?;
        write_atomically(&index_path(&prefix), &table)
    }
}

/// Writes `tensors` as the V2 checkpoint `prefix` (`prefix.data-00000-of-00001` and
/// `prefix.index`), the data in the given order, as `SaveV2` with those tensor names does.
/// Given the same tensors in the same order, the files are byte-identical to TensorFlow's.
///
/// Errors: `InvalidArgument` for an empty or repeated name; I/O errors naming the file.
pub fn write_checkpoint(prefix: impl AsRef<Path>, tensors: &[(String, Tensor)]) -> Result<()> {
    let mut w = CheckpointWriter::new(prefix)?;
    for (name, t) in tensors {
        w.add(name, t)?;
    }
    w.finish()
}
