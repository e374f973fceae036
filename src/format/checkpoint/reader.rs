//! [`CheckpointReader`]: reads a V2 checkpoint (tensor bundle), mirroring TensorFlow's
//! `BundleReader` / `tf.train.load_checkpoint` (formats.md §1).

use super::bundle_proto::{BundleEntryProto, BundleHeaderProto, ENDIANNESS_BIG};
use super::codec::{decode_fixed, decode_strings};
use super::crc::{mask_crc, unmask_crc};
use super::reader_v1::{open_v1, read_v1};
use super::slices::{scatter, slice_extents, slice_indices, slice_key};
use super::table::read_table;
use super::tensor_slices::TensorSliceReader;
use super::{data_path, index_path, missing_checkpoint_message, resolve_checkpoint_prefix};
use crate::error::{Code, Error, Result};
use crate::format::atomic_file::io_error;
use crate::tensor::{checked_num_elements, DType, Storage, Tensor};
use prost::Message;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// An open checkpoint: a V2 checkpoint's parsed `.index` plus lazily opened `.data-*` shard
/// files, or a V1 checkpoint file (read through [`TensorSliceReader`]).
///
/// Mirrors TensorFlow's `BundleReader` (and `tf.train.load_checkpoint`'s
/// `list_variables` / `get_tensor`). The reader is `Send + Sync`; reads lock the shard files.
#[derive(Debug)]
pub struct CheckpointReader {
    prefix: PathBuf,
    index_file: String,
    header: BundleHeaderProto,
    entries: BTreeMap<Vec<u8>, BundleEntryProto>,
    listing: Vec<(String, DType, Vec<usize>)>,
    problems: Vec<UndecodableEntry>,
    shards: Mutex<HashMap<i32, (File, u64)>>,
    /// Set for a V1 checkpoint (then `entries` is empty and `header` the default).
    v1: Option<TensorSliceReader>,
}

/// An index entry that [`CheckpointReader::list`] leaves out because it cannot be decoded,
/// with what is wrong with it; [`CheckpointReader::problems`] lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndecodableEntry {
    /// The entry's key; bytes that are not UTF-8 are shown as `\xNN` escapes.
    pub name: String,
    /// What cannot be decoded (`DataType 999 is not a TensorFlow dtype`, ...).
    pub problem: String,
}

/// `key` as text: UTF-8 as is, other bytes as `\xNN` escapes (never a lossy `U+FFFD`, so two
/// different keys never show as the same name).
pub(crate) fn display_key(key: &[u8]) -> String {
    let mut s = String::with_capacity(key.len());
    for chunk in key.utf8_chunks() {
        s.push_str(chunk.valid());
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

/// What is wrong with the entry `key` (a listed tensor, not a slice of one) that keeps it from
/// being read, if anything: a key that is not UTF-8, a dtype that is not a TensorFlow
/// `DataType` or has no tensor values here, a slice that does not fit the shape or whose entry
/// is missing.
fn entry_problem(
    key: &[u8],
    entry: &BundleEntryProto,
    entries: &BTreeMap<Vec<u8>, BundleEntryProto>,
) -> Option<String> {
    if std::str::from_utf8(key).is_err() {
        return Some("the key is not UTF-8, so no name can read it".into());
    }
    match DType::from_enum(entry.dtype) {
        Err(_) => return Some(format!("DataType {} is not a TensorFlow dtype", entry.dtype)),
        Ok(d) if !d.has_storage() => {
            return Some(format!("DataType {} ({d}) has no tensor values tensorgraph can read", entry.dtype))
        }
        Ok(_) => {}
    }
    let shape = entry_shape(entry).ok()?;
    for (i, slice) in entry.slices.iter().enumerate() {
        match slice_extents(slice, &shape) {
            Err(what) => return Some(format!("slice {i}: {what}")),
            Ok((ext, _)) if !entries.contains_key(&slice_key(key, &ext)) => {
                return Some(format!("slice {i} {ext:?}: its entry is missing"))
            }
            Ok(_) => {}
        }
    }
    None
}

/// The entry's shape as dimensions. Errors: a description of an invalid shape.
fn entry_shape(entry: &BundleEntryProto) -> std::result::Result<Vec<usize>, String> {
    let Some(shape) = &entry.shape else { return Ok(Vec::new()) };
    if shape.unknown_rank {
        return Err("shape has unknown rank".into());
    }
    shape
        .dim
        .iter()
        .map(|d| usize::try_from(d.size).map_err(|_| format!("shape has invalid dimension {}", d.size)))
        .collect()
}

impl CheckpointReader {
    /// Opens the checkpoint with prefix `prefix` (`dir/model.ckpt` for the files
    /// `dir/model.ckpt.index` and `dir/model.ckpt.data-00000-of-00001`): reads and verifies the
    /// whole `.index` SSTable. Data files are opened only when a tensor is read.
    ///
    /// Entries the reader cannot decode never vanish: an entry whose protobuf cannot be parsed
    /// or whose shape is invalid (negative dimension, unknown rank) makes `open` fail naming it,
    /// as TensorFlow's `CheckpointReader` refuses it (it `CHECK`-fails building its variable
    /// map); an entry whose dtype is not a TensorFlow `DataType` (or has no values here), whose
    /// slice spec does not fit its shape, or whose key is not UTF-8 is listed by
    /// [`problems`](Self::problems) with what is wrong (TensorFlow lists such entries and fails
    /// when one is read; here [`read`](Self::read) fails the same way).
    ///
    /// `prefix` may also be one of the checkpoint's files (`model.ckpt.index`,
    /// `model.ckpt.data-00000-of-00001`), a directory (its newest checkpoint, through its
    /// `checkpoint` state file) or a V1 checkpoint file (TensorFlow's single-file
    /// tensor-slice format, `tf.compat.v1.train.Saver(write_version=V1)`), read through
    /// [`TensorSliceReader`]: see [`resolve_checkpoint_prefix`].
    ///
    /// Errors: `NotFound` when `prefix.index` does not exist (and `prefix` is no V1 file);
    /// `DataLoss` naming the index file when it is truncated or corrupted (bad block
    /// checksum, malformed block, missing header, undecodable entry or invalid shape, naming
    /// the entry's key); `InvalidArgument` when the bundle's version forbids this reader;
    /// `Unimplemented` for big-endian bundles; as [`resolve_checkpoint_prefix`] for an empty
    /// path or a directory without a checkpoint; as [`TensorSliceReader::open`] for a
    /// damaged V1 file.
    pub fn open(prefix: impl AsRef<Path>) -> Result<CheckpointReader> {
        let prefix = resolve_checkpoint_prefix(prefix)?;
        let index = index_path(&prefix);
        let index_file = index.display().to_string();
        if !index.is_file() {
            if let Some(v1) = open_v1(&prefix, true)? {
                return Ok(CheckpointReader {
                    index_file: prefix.display().to_string(),
                    prefix,
                    header: BundleHeaderProto::default(),
                    entries: BTreeMap::new(),
                    listing: v1.list(),
                    problems: Vec::new(),
                    shards: Mutex::new(HashMap::new()),
                    v1: Some(v1),
                });
            }
        }
        let bytes = std::fs::read(&index).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_found(missing_checkpoint_message(&prefix))
            } else {
                io_error(e, "cannot read checkpoint index", &index)
            }
        })?;
        if let Some(v1) = open_v1(&index, false)? {
            // a V1 checkpoint file named like an index
            return Ok(CheckpointReader {
                index_file,
                prefix: index,
                header: BundleHeaderProto::default(),
                entries: BTreeMap::new(),
                listing: v1.list(),
                problems: Vec::new(),
                shards: Mutex::new(HashMap::new()),
                v1: Some(v1),
            });
        }
        let kvs = read_table(&bytes, &index_file)?;
        let mut it = kvs.into_iter();
        let header = match it.next() {
            Some((k, v)) if k.is_empty() => BundleHeaderProto::decode(v.as_slice()).map_err(|e| {
                Error::data_loss(format!("corrupted checkpoint index {index_file}: bad bundle header: {e}"))
            })?,
            _ => {
                return Err(Error::data_loss(format!(
                    "corrupted checkpoint index {index_file}: the bundle header (key \"\") is missing"
                )))
            }
        };
        let version = header.version.clone().unwrap_or_default();
        if version.producer < 0 || version.min_consumer > 1 || version.bad_consumers.contains(&1) {
            return Err(Error::invalid_argument(format!(
                "checkpoint {index_file} has version producer {} min_consumer {} bad_consumers {:?}, which this reader \
                 (version 1) may not read",
                version.producer, version.min_consumer, version.bad_consumers
            )));
        }
        if header.endianness == ENDIANNESS_BIG {
            return Err(Error::unimplemented(format!(
                "checkpoint {index_file} was written on a big-endian machine; reading it is not implemented"
            )));
        }
        let mut entries = BTreeMap::new();
        for (k, v) in it {
            let entry = BundleEntryProto::decode(v.as_slice()).map_err(|e| {
                Error::data_loss(format!(
                    "corrupted checkpoint index {index_file}: bad entry for \"{}\": {e}",
                    display_key(&k)
                ))
            })?;
            if let Err(what) = entry_shape(&entry) {
                return Err(Error::data_loss(format!(
                    "corrupted checkpoint index {index_file}: entry \"{}\": {what}",
                    display_key(&k)
                )));
            }
            entries.insert(k, entry);
        }
        // Slice keys of partitioned tensors are hidden, as tf.train.list_variables does.
        let mut hidden = HashSet::new();
        for (k, e) in &entries {
            for s in &e.slices {
                let ext: Vec<(i64, i64)> = s
                    .extent
                    .iter()
                    .map(|x| match x.has_length {
                        Some(super::bundle_proto::HasLength::Length(l)) => (x.start, l),
                        None => (0, -1),
                    })
                    .collect();
                hidden.insert(slice_key(k, &ext));
            }
        }
        let mut listing = Vec::new();
        let mut problems = Vec::new();
        for (k, e) in entries.iter().filter(|(k, _)| !hidden.contains(*k)) {
            match entry_problem(k, e, &entries) {
                Some(problem) => problems.push(UndecodableEntry { name: display_key(k), problem }),
                None => {
                    let dtype = DType::from_enum(e.dtype)?;
                    let shape = entry_shape(e).map_err(Error::data_loss)?;
                    listing.push((display_key(k), dtype, shape));
                }
            }
        }
        Ok(CheckpointReader {
            prefix,
            index_file,
            header,
            entries,
            listing,
            problems,
            shards: Mutex::new(HashMap::new()),
            v1: None,
        })
    }

    /// The checkpoint prefix this reader was opened with.
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }

    /// The bundle header (number of shards, endianness, version); the default (empty)
    /// header for a V1 checkpoint.
    pub fn header(&self) -> &BundleHeaderProto {
        &self.header
    }

    /// True when the checkpoint is a V1 checkpoint file (read through [`TensorSliceReader`]).
    pub fn is_v1(&self) -> bool {
        self.v1.is_some()
    }

    /// Every tensor as `(name, dtype, shape)`, sorted by name, like `tf.train.list_variables`:
    /// the header and the slice entries of partitioned tensors are left out (a partitioned
    /// tensor is listed once with its full shape). Entries that cannot be decoded are not
    /// here but in [`problems`](Self::problems); a listing is complete only when that is empty.
    pub fn list(&self) -> Vec<(String, DType, Vec<usize>)> {
        self.listing.clone()
    }

    /// The entries [`list`](Self::list) leaves out because they cannot be decoded (a dtype that
    /// is not a TensorFlow `DataType` or has no values here, a slice spec that does not fit the
    /// shape or whose slice entry is missing, a key that is not UTF-8), sorted by key, each with
    /// its problem. `tensorgraph inspect` and `diff` show them and exit non-zero.
    pub fn problems(&self) -> &[UndecodableEntry] {
        &self.problems
    }

    /// True when the index has an entry named `name`.
    pub fn contains(&self, name: &str) -> bool {
        if self.v1.is_some() {
            return self.listing.iter().any(|(n, _, _)| n == name);
        }
        !name.is_empty() && self.entries.contains_key(name.as_bytes())
    }

    /// The raw index entry (`BundleEntryProto`) of `name`, `None` when there is none (and
    /// always for a V1 checkpoint, which has no index entries).
    pub fn get_entry(&self, name: &str) -> Option<&BundleEntryProto> {
        if name.is_empty() {
            return None;
        }
        self.entries.get(name.as_bytes())
    }

    /// Reads tensor `name` (`CheckpointReader.get_tensor`), opening its data file if needed and
    /// verifying its size and crc32c. A partitioned tensor is assembled from its slices.
    ///
    /// Errors: `NotFound` when there is no such entry (or its data file is missing);
    /// `DataLoss` naming the tensor and the file when the recorded size does not match the dtype
    /// and shape, the data lies beyond the end of the data file, the checksum does not match, a
    /// string tensor is malformed or a slice is missing; `Unimplemented` for dtypes tensorgraph
    /// does not support.
    pub fn read(&self, name: &str) -> Result<Tensor> {
        if let Some(v1) = &self.v1 {
            let dtype =
                self.listing.iter().find(|(n, _, _)| n == name).map(|e| e.1).ok_or_else(|| self.key_not_found(name))?;
            return read_v1(v1, name, dtype);
        }
        let entry = self.get_entry(name).ok_or_else(|| self.key_not_found(name))?;
        if entry.slices.is_empty() {
            self.read_entry(name, entry)
        } else {
            self.read_sliced(name, entry)
        }
    }

    /// `NotFound` `Key NAME not found in checkpoint PREFIX`, with the closest keys the
    /// checkpoint has (` Did you mean 'dense/kernel'?`).
    fn key_not_found(&self, name: &str) -> Error {
        let hint = crate::error::suggest::suggest(name, self.listing.iter().map(|(n, _, _)| n.as_str()));
        let stop = if hint.is_empty() { "" } else { "." };
        Error::not_found(format!("Key {name} not found in checkpoint {}{stop}{hint}", self.prefix.display()))
    }

    fn dtype_of(&self, name: &str, entry: &BundleEntryProto) -> Result<DType> {
        DType::from_enum(entry.dtype).ok().filter(|d| d.has_storage()).ok_or_else(|| {
            Error::unimplemented(format!(
                "tensor {name:?} in checkpoint {} has DataType {}, which tensorgraph does not support",
                self.prefix.display(),
                entry.dtype
            ))
        })
    }

    fn bad_entry(&self, name: &str, what: impl std::fmt::Display) -> Error {
        Error::data_loss(format!("tensor {name:?} in checkpoint {}: {what}", self.index_file))
    }

    /// Reads a non-partitioned entry.
    fn read_entry(&self, name: &str, entry: &BundleEntryProto) -> Result<Tensor> {
        let dtype = self.dtype_of(name, entry)?;
        let shape = entry_shape(entry).map_err(|w| self.bad_entry(name, w))?;
        let n = checked_num_elements(&shape).map_err(|e| self.bad_entry(name, e.message))?;
        let size =
            u64::try_from(entry.size).map_err(|_| self.bad_entry(name, format!("negative size {}", entry.size)))?;
        let offset = u64::try_from(entry.offset)
            .map_err(|_| self.bad_entry(name, format!("negative offset {}", entry.offset)))?;
        match dtype.size() {
            Some(w) => {
                let need = n.checked_mul(w).map(|b| b as u64);
                if need != Some(size) {
                    return Err(self.bad_entry(
                        name,
                        format!(
                            "entry records {size} bytes but {n} elements of {dtype} need {}",
                            n as u128 * w as u128
                        ),
                    ));
                }
            }
            None => {
                if n == 0 && size == 0 {
                    return Tensor::from_storage(&shape, Storage::Str(Vec::new()));
                }
                if (size as u128) < n as u128 + 4 {
                    return Err(self.bad_entry(name, format!("entry records {size} bytes, too few for {n} strings")));
                }
            }
        }
        let data_file = data_path(&self.prefix, entry.shard_id.max(0) as usize, self.header.num_shards.max(0) as usize);
        let bytes = if size == 0 { Vec::new() } else { self.read_bytes(name, entry.shard_id, offset, size)? };
        let (storage, crc) = if dtype == DType::String {
            let (v, crc) = decode_strings(n, &bytes).map_err(|w| {
                Error::data_loss(format!("tensor {name:?} in {}: corrupted string data: {w}", data_file.display()))
            })?;
            (Storage::Str(v), crc)
        } else {
            let crc = crc32c::crc32c(&bytes);
            (decode_fixed(dtype, &bytes), crc)
        };
        if crc != unmask_crc(entry.crc32c) {
            return Err(Error::data_loss(format!(
                "Checksum does not match for tensor {name:?} in {}: stored {:#010x} vs. calculated on the restored \
                 bytes {:#010x}",
                data_file.display(),
                entry.crc32c,
                mask_crc(crc)
            )));
        }
        Tensor::from_storage(&shape, storage).map_err(|e| self.bad_entry(name, e.message))
    }

    /// Reads `size` bytes at `offset` of shard `shard`, after checking they lie in the file.
    fn read_bytes(&self, name: &str, shard: i32, offset: u64, size: u64) -> Result<Vec<u8>> {
        let num_shards = self.header.num_shards;
        if shard < 0 || shard >= num_shards {
            return Err(self.bad_entry(name, format!("shard id {shard} outside the bundle's {num_shards} shard(s)")));
        }
        let path = data_path(&self.prefix, shard as usize, num_shards as usize);
        let mut shards = self.shards.lock().unwrap_or_else(|e| e.into_inner());
        let (file, len) = match shards.entry(shard) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let file = File::open(&path).map_err(|e| {
                    let code = if e.kind() == std::io::ErrorKind::NotFound { Code::NotFound } else { Code::Unknown };
                    Error::new(
                        code,
                        format!("cannot open checkpoint data file {} for tensor {name:?}: {e}", path.display()),
                    )
                })?;
                let len = file.metadata().map_err(|e| io_error(e, "cannot stat", &path))?.len();
                v.insert((file, len))
            }
        };
        let end = offset.checked_add(size);
        if end.is_none_or(|e| e > *len) {
            return Err(Error::data_loss(format!(
                "tensor {name:?} is recorded at bytes {offset}..{} of {}, but the file has only {len} bytes \
                 (truncated?)",
                offset as u128 + size as u128,
                path.display()
            )));
        }
        let mut buf = vec![0u8; size as usize];
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut buf))
            .map_err(|e| Error::data_loss(format!("cannot read tensor {name:?} from {}: {e}", path.display())))?;
        Ok(buf)
    }

    /// Assembles a partitioned tensor from its slice entries.
    fn read_sliced(&self, name: &str, entry: &BundleEntryProto) -> Result<Tensor> {
        let dtype = self.dtype_of(name, entry)?;
        let shape = entry_shape(entry).map_err(|w| self.bad_entry(name, w))?;
        let n = checked_num_elements(&shape).map_err(|e| self.bad_entry(name, e.message))?;
        let mut parts = Vec::with_capacity(entry.slices.len());
        let mut total: u128 = 0;
        for slice in &entry.slices {
            let (key_ext, conc) = slice_extents(slice, &shape).map_err(|w| self.bad_entry(name, w))?;
            let key = slice_key(name.as_bytes(), &key_ext);
            let sub = self
                .entries
                .get(&key)
                .filter(|s| s.slices.is_empty())
                .ok_or_else(|| self.bad_entry(name, format!("the entry of slice {key_ext:?} is missing")))?;
            let lens: Vec<usize> = conc.iter().map(|e| e.1).collect();
            let part = self.read_entry(&format!("{name} (slice {key_ext:?})"), sub)?;
            if part.dtype() != dtype || part.shape() != lens.as_slice() {
                return Err(self.bad_entry(
                    name,
                    format!("slice {key_ext:?} holds a {} tensor of shape {:?}", part.dtype(), part.shape()),
                ));
            }
            total += part.num_elements() as u128;
            parts.push((conc, part));
        }
        // Only allocate the full tensor when the slices that were read can fill it.
        if total < n as u128 {
            return Err(self.bad_entry(name, "the stored slices do not cover the whole tensor"));
        }
        let mut full = Storage::try_zeros(dtype, n)?;
        let mut covered = vec![false; n];
        for (conc, part) in parts {
            let idx = slice_indices(&shape, &conc);
            for &i in &idx {
                covered[i] = true;
            }
            if !scatter(&mut full, part.storage().clone(), &idx) {
                return Err(Error::internal(format!("dtype mismatch assembling {name:?}")));
            }
        }
        if covered.iter().any(|c| !c) {
            return Err(self.bad_entry(name, "the stored slices do not cover the whole tensor"));
        }
        Tensor::from_storage(&shape, full)
    }
}
