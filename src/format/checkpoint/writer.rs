//! [`CheckpointWriter`], [`write_checkpoint`] and [`write_checkpoint_sharded`]: write a V2
//! checkpoint exactly as TensorFlow's `BundleWriter` (the `SaveV2` op) does (formats.md §1.10),
//! in one data file or spread over several (a sharded save, formats.md §1.9).

use super::bundle_proto::{
    BundleEntryProto, BundleHeaderProto, Extent, HasLength, TensorShapeProto, TensorSliceProto, VersionDef,
};
use super::data_file::{write_tensor, DataFile};
use super::slices::slice_key;
use super::table::{build_table, TableOptions};
use super::{data_path, index_path};
use crate::error::{Error, Result};
use crate::format::atomic_file::{io_error, write_atomically};
use crate::tensor::{fmt_dims, Storage, Tensor};
use prost::Message;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most data files one checkpoint may have (the shard number has five digits).
pub const MAX_SHARDS: usize = 99_999;

/// Writes one V2 checkpoint: `PREFIX.data-SSSSS-of-NNNNN` (one file per shard) and `PREFIX.index`.
///
/// Mirrors TensorFlow's `BundleWriter`: tensor bytes go to a data file back to back in the
/// order they are added (as `SaveV2` keeps its inputs' order); the index holds the header
/// (`num_shards`) and one entry per key (with its `shard_id` and offset), sorted bytewise.
/// With one shard ([`CheckpointWriter::new`]) the files are byte-identical to TensorFlow's.
/// With N shards ([`CheckpointWriter::with_num_shards`]) each tensor goes to the shard holding
/// the fewest bytes so far (the first such), which is the layout TensorFlow's sharded `Saver`
/// produces when its variables are spread over N devices: N data files, one merged index.
///
/// Each file is written under a temporary name (`<file>.tempstate<random>`) in the target
/// directory and renamed into place by [`CheckpointWriter::finish`]: data files first, the
/// index last, so a checkpoint whose `.index` exists is complete. Dropping the writer
/// unfinished removes the temporary files and leaves any previous checkpoint untouched.
pub struct CheckpointWriter {
    prefix: PathBuf,
    shards: Vec<DataFile>,
    entries: BTreeMap<Vec<u8>, BundleEntryProto>,
    options: TableOptions,
    sync: bool,
}

impl std::fmt::Debug for CheckpointWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointWriter")
            .field("prefix", &self.prefix)
            .field("num_shards", &self.shards.len())
            .field("bytes", &self.shards.iter().map(DataFile::len).sum::<u64>())
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// An index key and its entry.
type KeyedEntry = (Vec<u8>, BundleEntryProto);

/// Bytes `t` will take in a data file (exact for numeric tensors, close for strings).
fn stored_size(t: &Tensor) -> u64 {
    match t.storage() {
        Storage::Str(v) => 4 + v.iter().map(|s| s.len() as u64 + varint_len(s.len() as u64)).sum::<u64>(),
        _ => (t.num_elements() * t.dtype().size().unwrap_or(1)) as u64,
    }
}

/// Bytes of the varint encoding of `x`.
fn varint_len(x: u64) -> u64 {
    u64::from((64 - x.leading_zeros()).max(1).div_ceil(7))
}

/// Appends `tensor`'s bytes to `file` (shard `shard`); returns its entry (dtype, shape, shard,
/// offset, size, crc).
fn append(file: &mut DataFile, shard: usize, tensor: &Tensor) -> Result<BundleEntryProto> {
    let offset = file.len();
    let (size, crc) = write_tensor(file, tensor)?;
    Ok(BundleEntryProto {
        dtype: tensor.dtype().as_enum(),
        shape: Some(TensorShapeProto::from_dims(tensor.shape())),
        shard_id: shard as i32,
        offset: offset as i64,
        size: size as i64,
        crc32c: crc,
        slices: Vec::new(),
    })
}

impl CheckpointWriter {
    /// Starts a checkpoint with prefix `prefix` and one data file, creating its directory if
    /// needed (as `BundleWriter` does) and the temporary data file.
    ///
    /// Errors: I/O errors (with the file named) when the directory or file cannot be created.
    pub fn new(prefix: impl AsRef<Path>) -> Result<CheckpointWriter> {
        CheckpointWriter::with_num_shards(prefix, 1)
    }

    /// Starts a sharded checkpoint with `num_shards` data files
    /// `PREFIX.data-00000-of-0000N` ... `PREFIX.data-0000{N-1}-of-0000N` and one index whose
    /// header records `num_shards = N` (TensorFlow's `Saver(sharded=True)` layout, one shard
    /// per device). Every shard file is written, an empty one when no tensor goes there.
    ///
    /// Errors: `InvalidArgument` when `num_shards` is 0 or above 99999; I/O errors naming the
    /// directory or file that cannot be created.
    pub fn with_num_shards(prefix: impl AsRef<Path>, num_shards: usize) -> Result<CheckpointWriter> {
        let prefix = prefix.as_ref().to_path_buf();
        if num_shards == 0 || num_shards > MAX_SHARDS {
            return Err(Error::invalid_argument(format!(
                "a checkpoint needs 1 to {MAX_SHARDS} shards, got {num_shards} for {}",
                prefix.display()
            )));
        }
        if let Some(dir) = prefix.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io_error(e, "cannot create checkpoint directory", dir))?;
        }
        let shards =
            (0..num_shards).map(|k| DataFile::create(&data_path(&prefix, k, num_shards))).collect::<Result<_>>()?;
        Ok(CheckpointWriter { prefix, shards, entries: BTreeMap::new(), options: TableOptions::default(), sync: true })
    }

    /// Uses other SSTable settings for the `.index` file (TensorFlow reads any block size and
    /// restart interval; the default reproduces TensorFlow's bytes).
    pub fn with_table_options(mut self, options: TableOptions) -> CheckpointWriter {
        self.options = options;
        self
    }

    /// Whether [`CheckpointWriter::finish`] flushes the data files to disk (`fsync`) before
    /// renaming them into place (default: true). Without it a save is still atomic for the
    /// processes of the machine (a killed writer never leaves a half-written checkpoint under
    /// the final names), as TensorFlow's, which does not sync either; with it the checkpoint
    /// also survives a power loss once `finish` returns. The index is always synced.
    pub fn sync(mut self, sync: bool) -> CheckpointWriter {
        self.sync = sync;
        self
    }

    /// The number of data files.
    pub fn num_shards(&self) -> usize {
        self.shards.len()
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

    /// The shard holding the fewest bytes (the first of them).
    fn lightest_shard(&self) -> usize {
        (0..self.shards.len()).min_by_key(|&k| (self.shards[k].len(), k)).unwrap_or(0)
    }

    /// Appends `tensor`'s bytes to the lightest shard; returns its entry.
    fn append(&mut self, tensor: &Tensor) -> Result<BundleEntryProto> {
        let k = self.lightest_shard();
        append(&mut self.shards[k], k, tensor)
    }

    /// Adds tensor `name` (any dtype and shape, including 0-d scalars and empty tensors) to
    /// the shard holding the fewest bytes.
    ///
    /// Errors: `InvalidArgument` for an empty or repeated name; I/O errors writing the data file.
    pub fn add(&mut self, name: &str, tensor: &Tensor) -> Result<()> {
        self.check_new_key(name.as_bytes(), name)?;
        let entry = self.append(tensor)?;
        self.entries.insert(name.as_bytes().to_vec(), entry);
        Ok(())
    }

    /// Adds tensor `name` to data file `shard` (0-based), as TensorFlow places a variable in
    /// the shard of its device.
    ///
    /// Errors: `InvalidArgument` for an empty or repeated name or a shard outside
    /// `0..num_shards`; I/O errors writing the data file.
    pub fn add_to_shard(&mut self, name: &str, tensor: &Tensor, shard: usize) -> Result<()> {
        self.check_new_key(name.as_bytes(), name)?;
        let n = self.shards.len();
        let file = self.shards.get_mut(shard).ok_or_else(|| {
            Error::invalid_argument(format!("shard {shard} is outside the checkpoint's {n} shard(s)"))
        })?;
        let entry = append(file, shard, tensor)?;
        self.entries.insert(name.as_bytes().to_vec(), entry);
        Ok(())
    }

    /// Adds all `tensors`, in order, as repeated [`CheckpointWriter::add`] calls would place
    /// them (each to the lightest shard, by the sizes they will take), writing the shards in
    /// parallel, one thread per shard that receives tensors. Nothing is added unless the
    /// names are all new and distinct.
    ///
    /// Errors: `InvalidArgument` for an empty or repeated name; I/O errors writing a data
    /// file (the writer should then be dropped).
    pub fn add_all(&mut self, tensors: &[(String, Tensor)]) -> Result<()> {
        let mut seen = std::collections::HashSet::with_capacity(tensors.len());
        for (name, _) in tensors {
            self.check_new_key(name.as_bytes(), name)?;
            if !seen.insert(name.as_str()) {
                return Err(Error::invalid_argument(format!(
                    "tensor {name:?} is added twice to checkpoint {}",
                    self.prefix.display()
                )));
            }
        }
        let n = self.shards.len();
        let mut load: Vec<u64> = self.shards.iter().map(DataFile::len).collect();
        let mut plan: Vec<Vec<&(String, Tensor)>> = vec![Vec::new(); n];
        for item in tensors {
            let k = (0..n).min_by_key(|&k| (load[k], k)).unwrap_or(0);
            load[k] += stored_size(&item.1);
            plan[k].push(item);
        }
        let busy = plan.iter().filter(|p| !p.is_empty()).count();
        let results: Vec<Result<Vec<KeyedEntry>>> = if busy <= 1 {
            self.shards.iter_mut().zip(&plan).enumerate().map(|(k, (f, items))| write_items(f, k, items)).collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = self
                    .shards
                    .iter_mut()
                    .zip(&plan)
                    .enumerate()
                    .map(|(k, (f, items))| s.spawn(move || write_items(f, k, items)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err(Error::internal("a checkpoint shard writer panicked"))))
                    .collect()
            })
        };
        for r in results {
            self.entries.extend(r?);
        }
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

    /// Renames the data files into place (shard order), then writes `PREFIX.index` (temporary
    /// file + rename) with header `num_shards = N`.
    ///
    /// Errors: I/O errors naming the file.
    pub fn finish(self) -> Result<()> {
        let CheckpointWriter { prefix, mut shards, entries, options, sync } = self;
        let num_shards = shards.len() as i32;
        // Close (and sync) every file before the first rename, so a failure leaves no data
        // file of this checkpoint under its final name.
        for f in &mut shards {
            f.close(sync)?;
        }
        for f in shards {
            f.commit(sync)?;
        }
        let header = BundleHeaderProto {
            num_shards,
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

/// Writes `items` to `file` (shard `shard`) in order; returns their keys and entries.
fn write_items(
    file: &mut DataFile,
    shard: usize,
    items: &[&(String, Tensor)],
) -> Result<Vec<(Vec<u8>, BundleEntryProto)>> {
    items
        .iter()
        .map(|(name, t)| Ok((name.as_bytes().to_vec(), append(file, shard, t)?)))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.context(format!("writing {}", file.target().display())))
}

/// Writes `tensors` as the V2 checkpoint `prefix` (`prefix.data-00000-of-00001` and
/// `prefix.index`), the data in the given order, as `SaveV2` with those tensor names does.
/// Given the same tensors in the same order, the files are byte-identical to TensorFlow's.
///
/// Errors: `InvalidArgument` for an empty or repeated name; I/O errors naming the file.
pub fn write_checkpoint(prefix: impl AsRef<Path>, tensors: &[(String, Tensor)]) -> Result<()> {
    write_checkpoint_sharded(prefix, tensors, 1)
}

/// Writes `tensors` as the sharded V2 checkpoint `prefix`: `num_shards` data files
/// `prefix.data-0000k-of-0000N` (each tensor in the shard holding the fewest bytes so far,
/// shards written in parallel) and one `prefix.index` whose entries carry their `shard_id`
/// and whose header has `num_shards = N`. TensorFlow reads it (`tf.train.load_checkpoint`,
/// `Saver.restore`) like the output of its sharded `Saver`. With `num_shards = 1` this is
/// [`write_checkpoint`].
///
/// Errors: `InvalidArgument` for an empty or repeated name or `num_shards` outside
/// 1..=99999; I/O errors naming the file.
pub fn write_checkpoint_sharded(
    prefix: impl AsRef<Path>,
    tensors: &[(String, Tensor)],
    num_shards: usize,
) -> Result<()> {
    let mut w = CheckpointWriter::with_num_shards(prefix, num_shards)?;
    w.add_all(tensors)?;
    w.finish()
}
