//! The hot path of checkpoint data files: tensor bytes viewed in place (no copy) for writing,
//! data files written under a temporary name with large writes and renamed into place, and
//! numeric tensors read straight from a data file into their buffer.
//!
//! Numeric tensors are stored little-endian (formats.md §1.6), which is the in-memory layout
//! on little-endian machines, so there the stored bytes *are* the buffer. On big-endian
//! machines (and for string tensors) the portable encoder and decoder in `codec` are used.

use super::bundle_proto::BundleEntryProto;
use super::codec::{decode_fixed, encode_storage};
use super::crc::{mask_crc, unmask_crc};
use super::{data_path, CheckpointReader};
use crate::error::{Error, Result};
use crate::format::atomic_file::{create_temp, io_error};
use crate::tensor::{checked_num_elements, DType, Storage, Tensor};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The bytes stored for `storage`, borrowed when the in-memory layout is the stored one.
fn stored_bytes(storage: &Storage) -> Option<&[u8]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    Some(match storage {
        Storage::F32(v) => bytemuck::cast_slice(v),
        Storage::F64(v) => bytemuck::cast_slice(v),
        Storage::I32(v) => bytemuck::cast_slice(v),
        Storage::I64(v) => bytemuck::cast_slice(v),
        Storage::I8(v) => bytemuck::cast_slice(v),
        Storage::I16(v) => bytemuck::cast_slice(v),
        Storage::U8(v) => bytemuck::cast_slice(v),
        Storage::U16(v) => bytemuck::cast_slice(v),
        Storage::U32(v) => bytemuck::cast_slice(v),
        Storage::U64(v) => bytemuck::cast_slice(v),
        Storage::F16(v) => bytemuck::cast_slice(v),
        Storage::BF16(v) => bytemuck::cast_slice(v),
        Storage::C64(v) => bytemuck::cast_slice(v),
        Storage::C128(v) => bytemuck::cast_slice(v),
        // bool is one byte holding 0 or 1, exactly what TensorFlow stores.
        Storage::Bool(v) => bytemuck::cast_slice(v),
        // strings are encoded; quantized elements are newtypes (not `Pod`), encoded too
        Storage::Str(_)
        | Storage::QI8(_)
        | Storage::QU8(_)
        | Storage::QI16(_)
        | Storage::QU16(_)
        | Storage::QI32(_)
        | Storage::Variant(_) => return None,
    })
}

/// Appends the bytes TensorFlow stores for `tensor` to `file`; returns their length and masked
/// crc32c. Numeric tensors are written straight from their buffer; for large ones the
/// checksum is computed on another thread while the bytes are written.
pub(crate) fn write_tensor(file: &mut DataFile, tensor: &Tensor) -> Result<(u64, u32)> {
    tensor.dtype().check_storage("a checkpoint entry")?;
    match stored_bytes(tensor.storage()) {
        Some(b) if b.len() >= OVERLAP_CRC_BYTES => std::thread::scope(|s| {
            let crc = s.spawn(|| crc32c::crc32c(b));
            file.write_all(b)?;
            let crc = crc.join().map_err(|_| Error::internal("the checksum thread panicked"))?;
            Ok((b.len() as u64, mask_crc(crc)))
        }),
        _ => {
            let (b, crc) = tensor_bytes(tensor);
            file.write_all(&b)?;
            Ok((b.len() as u64, crc))
        }
    }
}

/// Tensors of at least this many bytes have their checksum computed beside the write.
const OVERLAP_CRC_BYTES: usize = 4 << 20;

/// The bytes TensorFlow stores for `tensor` and their masked crc32c: a view of the tensor's
/// buffer for numeric dtypes (little-endian machines), an encoded copy otherwise.
pub(crate) fn tensor_bytes(tensor: &Tensor) -> (Cow<'_, [u8]>, u32) {
    match stored_bytes(tensor.storage()) {
        Some(b) => (Cow::Borrowed(b), mask_crc(crc32c::crc32c(b))),
        None => {
            let (b, crc) = encode_storage(tensor.storage());
            (Cow::Owned(b), crc)
        }
    }
}

/// Size of the write buffer of a data file: small tensors are gathered into 1 MiB writes,
/// larger ones are written with one call straight from their buffer.
const WRITE_BUFFER: usize = 1 << 20;

/// A data file being written under the temporary name `<target>.tempstate<random>` in the
/// target's directory (as TensorFlow's `BundleWriter`); removed on drop unless committed.
pub(crate) struct DataFile {
    temp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
    len: u64,
}

impl DataFile {
    /// Creates the temporary file next to `target`.
    pub(crate) fn create(target: &Path) -> Result<DataFile> {
        let (temp, f) = create_temp(target)?;
        Ok(DataFile {
            temp,
            target: target.to_path_buf(),
            out: Some(BufWriter::with_capacity(WRITE_BUFFER, f)),
            len: 0,
        })
    }

    /// Bytes written so far (the offset of the next tensor).
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The final name of the file.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    /// Appends bytes.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let out = self
            .out
            .as_mut()
            .ok_or_else(|| Error::internal(format!("{} was written after commit", self.temp.display())))?;
        out.write_all(bytes).map_err(|e| io_error(e, "cannot write", &self.temp))?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Flushes the file, syncs it to disk when `sync`, and closes it (still under its
    /// temporary name).
    pub(crate) fn close(&mut self, sync: bool) -> Result<()> {
        if let Some(out) = self.out.take() {
            let file = out.into_inner().map_err(|e| io_error(e.into_error(), "cannot write", &self.temp))?;
            if sync {
                file.sync_all().map_err(|e| io_error(e, "cannot sync", &self.temp))?;
            }
        }
        Ok(())
    }

    /// Closes the file (see [`DataFile::close`]) and renames it into place.
    pub(crate) fn commit(mut self, sync: bool) -> Result<()> {
        self.close(sync)?;
        std::fs::rename(&self.temp, &self.target).map_err(|e| io_error(e, "cannot rename into place", &self.target))?;
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Drop for DataFile {
    fn drop(&mut self) {
        self.out = None;
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Reads `n` elements of fixed-size `dtype` (`size` bytes) from `file` at its current
/// position straight into a new buffer; returns the storage and the crc32c (unmasked) of
/// the stored bytes. Errors: the I/O error of the read.
pub(crate) fn read_fixed(file: &mut File, dtype: DType, n: usize, size: usize) -> std::io::Result<(Storage, u32)> {
    fn direct<T: bytemuck::Pod>(file: &mut File, n: usize) -> std::io::Result<(Vec<T>, u32)> {
        let mut v = vec![T::zeroed(); n];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
        file.read_exact(bytes)?;
        let crc = crc32c::crc32c(bytes);
        Ok((v, crc))
    }
    if cfg!(target_endian = "little") {
        macro_rules! go {
            ($variant:ident, $t:ty) => {{
                let (v, crc) = direct::<$t>(file, n)?;
                return Ok((Storage::$variant(v), crc));
            }};
        }
        match dtype {
            DType::Float => go!(F32, f32),
            DType::Double => go!(F64, f64),
            DType::Int32 => go!(I32, i32),
            DType::Int64 => go!(I64, i64),
            DType::Int8 => go!(I8, i8),
            DType::Int16 => go!(I16, i16),
            DType::UInt8 => go!(U8, u8),
            DType::UInt16 => go!(U16, u16),
            DType::UInt32 => go!(U32, u32),
            DType::UInt64 => go!(U64, u64),
            DType::Half => go!(F16, half::f16),
            DType::BFloat16 => go!(BF16, half::bf16),
            DType::Complex64 => go!(C64, [f32; 2]),
            DType::Complex128 => go!(C128, [f64; 2]),
            DType::Bool
            | DType::String
            | DType::Resource
            | DType::Variant
            | DType::QInt8
            | DType::QUInt8
            | DType::QInt16
            | DType::QUInt16
            | DType::QInt32 => {}
        }
    }
    let mut bytes = vec![0u8; size];
    file.read_exact(&mut bytes)?;
    let crc = crc32c::crc32c(&bytes);
    Ok((decode_fixed(dtype, &bytes), crc))
}

/// Reads tensors `names` of the checkpoint open in `reader`, like [`CheckpointReader::read`]
/// for each, but reading every dense numeric tensor straight from its data file into the
/// tensor's buffer (no intermediate copy) and opening each data file once. Entries this fast
/// path does not cover (strings, partitioned tensors, bool) and every damaged entry go
/// through [`CheckpointReader::read`], so the errors are the reader's: `NotFound` for a
/// missing name or data file, `DataLoss` for a size, bounds or checksum mismatch.
pub(crate) fn read_tensors(reader: &CheckpointReader, names: &[&str]) -> Result<Vec<Tensor>> {
    let sizes: Vec<u64> =
        names.iter().map(|n| reader.get_entry(n).map_or(0, |e| u64::try_from(e.size).unwrap_or(0))).collect();
    let total: u64 = sizes.iter().sum();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(PARALLEL_READERS).min(names.len());
    if threads <= 1 || total < PARALLEL_READ_BYTES {
        let mut files = HashMap::new();
        return names.iter().map(|name| read_one(reader, name, &mut files)).collect();
    }
    // Spread the tensors over the threads by size (largest first to the least loaded); each
    // thread opens its own file handles.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let mut load = vec![0u64; threads];
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); threads];
    for i in order {
        let k = (0..threads).min_by_key(|&k| (load[k], k)).unwrap_or(0);
        load[k] += sizes[i];
        groups[k].push(i);
    }
    let mut out: Vec<Option<Tensor>> = vec![None; names.len()];
    type Read = std::result::Result<Vec<(usize, Tensor)>, (usize, Error)>;
    let results: Vec<Read> = std::thread::scope(|s| {
        let handles: Vec<_> = groups
            .iter()
            .map(|group| {
                s.spawn(move || -> Read {
                    let mut files = HashMap::new();
                    group
                        .iter()
                        .map(|&i| read_one(reader, names[i], &mut files).map(|t| (i, t)).map_err(|e| (i, e)))
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err((0, Error::internal("a checkpoint reader thread panicked")))))
            .collect()
    });
    // Report the error of the first tensor (in the order asked) that failed.
    let mut first_err: Option<(usize, Error)> = None;
    for r in results {
        match r {
            Ok(v) => v.into_iter().for_each(|(i, t)| out[i] = Some(t)),
            Err((i, e)) => {
                if first_err.as_ref().is_none_or(|(j, _)| i < *j) {
                    first_err = Some((i, e));
                }
            }
        }
    }
    if let Some((_, e)) = first_err {
        return Err(e);
    }
    out.into_iter().map(|t| t.ok_or_else(|| Error::internal("a tensor was not read"))).collect()
}

/// Reading uses up to this many threads...
const PARALLEL_READERS: usize = 4;
/// ...when the tensors hold at least this many bytes in all.
const PARALLEL_READ_BYTES: u64 = 8 << 20;

fn read_one(reader: &CheckpointReader, name: &str, files: &mut HashMap<i32, Option<(File, u64)>>) -> Result<Tensor> {
    let Some(entry) = reader.get_entry(name) else { return reader.read(name) };
    let Some(plan) = fast_plan(reader, entry) else { return reader.read(name) };
    let num_shards = reader.header().num_shards as usize;
    let path = data_path(reader.prefix(), entry.shard_id as usize, num_shards);
    let slot = files.entry(entry.shard_id).or_insert_with(|| {
        let f = File::open(&path).ok()?;
        let len = f.metadata().ok()?.len();
        Some((f, len))
    });
    let Some((file, len)) = slot.as_mut() else { return reader.read(name) };
    if plan.offset + plan.size as u64 > *len {
        return reader.read(name);
    }
    let (storage, crc) = file
        .seek(SeekFrom::Start(plan.offset))
        .and_then(|_| read_fixed(file, plan.dtype, plan.n, plan.size))
        .map_err(|e| Error::data_loss(format!("cannot read tensor {name:?} from {}: {e}", path.display())))?;
    if crc != unmask_crc(entry.crc32c) {
        return Err(Error::data_loss(format!(
            "Checksum does not match for tensor {name:?} in {}: stored {:#010x} vs. calculated on the restored bytes \
             {:#010x}",
            path.display(),
            entry.crc32c,
            mask_crc(crc)
        )));
    }
    Tensor::from_storage(&plan.shape, storage)
}

/// What the fast path reads for a well-formed, dense, non-empty, fixed-size entry.
struct FastPlan {
    dtype: DType,
    shape: Vec<usize>,
    n: usize,
    offset: u64,
    size: usize,
}

fn fast_plan(reader: &CheckpointReader, entry: &BundleEntryProto) -> Option<FastPlan> {
    if !entry.slices.is_empty() || entry.shard_id < 0 || entry.shard_id >= reader.header().num_shards {
        return None;
    }
    let dtype = DType::from_enum(entry.dtype).ok().filter(|d| *d != DType::Bool && d.has_storage())?;
    let width = dtype.size()?;
    let shape_proto = entry.shape.as_ref()?;
    if shape_proto.unknown_rank {
        return None;
    }
    let shape: Vec<usize> = shape_proto.dim.iter().map(|d| usize::try_from(d.size).ok()).collect::<Option<_>>()?;
    let n = checked_num_elements(&shape).ok()?;
    let size = n.checked_mul(width).filter(|&b| b > 0 && b as i64 == entry.size)?;
    let offset = u64::try_from(entry.offset).ok()?;
    Some(FastPlan { dtype, shape, n, offset, size })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_match_the_encoder() {
        let ts = [
            Tensor::new(&[3], vec![1.5f32, -2.0, 3.25]).unwrap(),
            Tensor::new(&[2], vec![7i64, -9]).unwrap(),
            Tensor::new(&[3], vec![true, false, true]).unwrap(),
            Tensor::new(&[2], vec![half::bf16::from_f32(1.0), half::bf16::from_f32(-3.0)]).unwrap(),
            Tensor::strings(&[2], vec![b"ab".to_vec(), b"".to_vec()]).unwrap(),
        ];
        for t in &ts {
            let (b, crc) = tensor_bytes(t);
            assert_eq!((b.into_owned(), crc), encode_storage(t.storage()));
        }
    }
}
