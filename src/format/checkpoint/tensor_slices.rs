//! TensorFlow's V1 checkpoint format ("tensor slices"), what `tf.train.Saver(write_version=V1)`
//! writes through `SaveSlices` and what the `Restore`/`RestoreSlice` ops read: one SSTable
//! file per shard whose empty key holds a `SavedTensorSlices` with the `meta` (each tensor's
//! name, dtype, full shape and saved slices) and whose other keys, the slices' OrderedCode
//! keys (as a bundle's partitioned entries), hold a `SavedTensorSlices` with one slice's
//! values as a `TensorProto`'s typed fields.
//!
//! [`write_tensor_slices`] writes the file TensorFlow 2.21's `SaveSlices` writes, byte for
//! byte; [`TensorSliceReader`] reads TensorFlow's (sharded ones through a file pattern).

use super::bundle_proto::{Extent, HasLength, TensorShapeProto, TensorSliceProto, VersionDef};
use super::slices::{scatter, slice_extents, slice_indices, slice_key};
use super::table::{build_table, read_table, TableOptions};
use crate::error::{Error, Result};
use crate::format::atomic_file::{io_error, write_atomically};
use crate::format::proto::{data_type_name, dtype_from_proto, dtype_to_proto, TensorProto};
use crate::tensor::{checked_num_elements, fmt_dims, DType, Storage, Tensor};
use prost::Message;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a V1 checkpoint file is called in messages (one place for every layer).
pub const V1_CHECKPOINT: &str =
    "a V1 checkpoint (the single-file tensor-slice format of tf.compat.v1.train.Saver(write_version=V1))";

/// What to do with a V1 checkpoint given where a model was wanted.
pub const V1_CHECKPOINT_ADVICE: &str = "it holds variable values, not a graph: restore it into the model's graph (Saver::restore, init_from_checkpoint, or --ckpt on the command line) or list it (CheckpointReader, tensorgraph inspect), which read V1 checkpoints as V2 ones";

/// True when `table`, the bytes of an SSTable, is a V1 checkpoint: its entry of key `""`
/// is a `SavedTensorSlices` holding the `meta`, where a V2 checkpoint index holds its
/// `BundleHeaderProto` (whose field 1 is an integer). False for any other bytes.
pub fn is_v1_checkpoint(table: &[u8]) -> bool {
    let Ok(entries) = read_table(table, "") else { return false };
    entries
        .first()
        .is_some_and(|(k, v)| k.is_empty() && SavedTensorSlices::decode(v.as_slice()).is_ok_and(|s| s.meta.is_some()))
}

/// `tensorflow.SavedSliceMeta`: one tensor of a V1 checkpoint.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedSliceMeta {
    /// The tensor's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its full shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    /// Its `DataType` number.
    #[prost(int32, tag = "3")]
    pub r#type: i32,
    /// The slices saved of it (one with all extents empty: the whole tensor).
    #[prost(message, repeated, tag = "4")]
    pub slice: Vec<TensorSliceProto>,
}

/// `tensorflow.SavedTensorSliceMeta`: every tensor of a V1 checkpoint file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedTensorSliceMeta {
    /// The tensors, in the order they were saved.
    #[prost(message, repeated, tag = "1")]
    pub tensor: Vec<SavedSliceMeta>,
    /// The checkpoint format version (TensorFlow writes `{producer: 1}`).
    #[prost(message, optional, tag = "2")]
    pub versions: Option<VersionDef>,
}

/// `tensorflow.SavedSlice`: the values of one slice.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedSlice {
    /// The tensor's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Which slice.
    #[prost(message, optional, tag = "2")]
    pub slice: Option<TensorSliceProto>,
    /// The values, in the typed `*_val` field of the dtype (no dtype or shape).
    #[prost(message, optional, tag = "3")]
    pub data: Option<TensorProto>,
}

/// `tensorflow.SavedTensorSlices`: the value of every key of a V1 checkpoint file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SavedTensorSlices {
    /// Under the empty key: the file's tensors.
    #[prost(message, optional, tag = "1")]
    pub meta: Option<SavedTensorSliceMeta>,
    /// Under a slice key: that slice's values.
    #[prost(message, optional, tag = "2")]
    pub data: Option<SavedSlice>,
}

/// The extents of a slice, one per dimension: `Some((start, length))`, or `None` for the
/// whole dimension (`-` in a shape-and-slice spec).
pub type SliceExtents = Vec<Option<(usize, usize)>>;

/// One slice to save: tensor `name` of shape `full_shape`, the slice `extents` (`None`: the
/// whole tensor) and its values `data`, of the slice's shape.
#[derive(Debug, Clone)]
pub struct SliceToSave<'a> {
    /// The tensor's name.
    pub name: &'a str,
    /// The full tensor's shape.
    pub full_shape: Vec<usize>,
    /// The slice, or `None` for the whole tensor.
    pub extents: Option<SliceExtents>,
    /// The slice's values.
    pub data: &'a Tensor,
}

/// `extents` made concrete `(start, length)` pairs against `shape` (`None` dimensions
/// whole); `None` when an extent does not fit its dimension or the ranks differ.
pub fn concrete_extents(extents: &[Option<(usize, usize)>], shape: &[usize]) -> Option<Vec<(usize, usize)>> {
    if extents.len() != shape.len() {
        return None;
    }
    extents
        .iter()
        .zip(shape)
        .map(|(e, &d)| match *e {
            None => Some((0, d)),
            Some((s, l)) => s.checked_add(l).filter(|&end| end <= d).map(|_| (s, l)),
        })
        .collect()
}

/// TensorFlow's `DataTypeString` (`float`, `int64`), as V1 restore errors name dtypes.
fn type_name(d: DType) -> String {
    let n = data_type_name(dtype_to_proto(d));
    n.strip_prefix("DT_").map(str::to_ascii_lowercase).unwrap_or(n)
}

/// The `TensorSliceProto` of `extents` (`None`: every dimension whole, written as empty
/// extents) for a tensor of `rank`, and the `(start, length)` pairs of its key (`(0, -1)`
/// for a whole dimension).
fn slice_proto(extents: Option<&[Option<(usize, usize)>]>, rank: usize) -> (TensorSliceProto, Vec<(i64, i64)>) {
    let whole = vec![None; rank];
    let e = extents.unwrap_or(&whole);
    let proto = TensorSliceProto {
        extent: e
            .iter()
            .map(|x| match *x {
                None => Extent { start: 0, has_length: None },
                Some((s, l)) => Extent { start: s as i64, has_length: Some(HasLength::Length(l as i64)) },
            })
            .collect(),
    };
    (proto, e.iter().map(|x| x.map_or((0, -1), |(s, l)| (s as i64, l as i64))).collect())
}

/// Writes the V1 checkpoint file `path` holding `slices` (TensorFlow's `SaveSlices` /
/// `TensorSliceWriter`): the meta under the empty key, tensors in the order first named, then
/// each slice under its key; the file is written to a temporary file and renamed into place.
///
/// Errors: `InvalidArgument` naming the tensor for an empty name, a slice that does not fit
/// the full shape or whose data has another shape, a tensor saved with two dtypes or full
/// shapes, or one slice saved twice; `Unimplemented` for `DT_RESOURCE`; I/O errors naming
/// the file.
pub fn write_tensor_slices(path: impl AsRef<Path>, slices: &[SliceToSave]) -> Result<()> {
    let path = path.as_ref();
    let mut meta =
        SavedTensorSliceMeta { tensor: Vec::new(), versions: Some(VersionDef { producer: 1, ..Default::default() }) };
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut entries: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(slices.len() + 1);
    for s in slices {
        let t = s.data;
        t.dtype().check_storage(&format!("tensor {:?}", s.name))?;
        if s.name.is_empty() {
            return Err(Error::invalid_argument("a checkpoint tensor name must not be empty"));
        }
        let want: Vec<usize> = match &s.extents {
            None => s.full_shape.clone(),
            Some(e) => match concrete_extents(e, &s.full_shape) {
                Some(c) => c.iter().map(|x| x.1).collect(),
                None => {
                    return Err(Error::invalid_argument(format!(
                        "slice {e:?} of tensor {:?} does not fit its shape {}",
                        s.name,
                        fmt_dims(&s.full_shape)
                    )))
                }
            },
        };
        if t.shape() != want.as_slice() {
            return Err(Error::invalid_argument(format!(
                "tensor {:?}: the data has shape {} but the slice needs {}",
                s.name,
                fmt_dims(t.shape()),
                fmt_dims(&want)
            )));
        }
        let (proto, key_ext) = slice_proto(s.extents.as_deref(), s.full_shape.len());
        let shape = TensorShapeProto::from_dims(&s.full_shape);
        let at = *index.entry(s.name).or_insert_with(|| {
            meta.tensor.push(SavedSliceMeta {
                name: s.name.to_string(),
                shape: Some(shape.clone()),
                r#type: dtype_to_proto(t.dtype()),
                slice: Vec::new(),
            });
            meta.tensor.len() - 1
        });
        let m = &mut meta.tensor[at];
        if m.r#type != dtype_to_proto(t.dtype()) || m.shape.as_ref() != Some(&shape) {
            return Err(Error::invalid_argument(format!(
                "tensor {:?} is saved as {} {} and as {} {}",
                s.name,
                data_type_name(m.r#type),
                fmt_dims(&m.shape.as_ref().map(|s| s.to_dims()).transpose()?.unwrap_or_default()),
                type_name(t.dtype()),
                fmt_dims(&s.full_shape)
            )));
        }
        if m.slice.contains(&proto) {
            return Err(Error::invalid_argument(format!("slice {key_ext:?} of tensor {:?} is saved twice", s.name)));
        }
        m.slice.push(proto.clone());
        let value = SavedTensorSlices {
            meta: None,
            data: Some(SavedSlice {
                name: s.name.to_string(),
                slice: Some(proto),
                data: Some(TensorProto::typed_values(t)),
            }),
        };
        entries.push((slice_key(s.name.as_bytes(), &key_ext), value.encode_to_vec()));
    }
    entries.push((Vec::new(), SavedTensorSlices { meta: Some(meta), data: None }.encode_to_vec()));
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let bytes = build_table(&entries, TableOptions::default())?;
    write_atomically(path, &bytes)
}

/// A saved slice of a tensor: its concrete `(start, length)` extents, the index of the file
/// holding it, and its key there.
type SavedAt = (Vec<(usize, usize)>, usize, Vec<u8>);

/// One tensor of an open V1 checkpoint: dtype, full shape, and its saved slices.
#[derive(Debug, Clone)]
struct TensorInfo {
    dtype: DType,
    shape: Vec<usize>,
    slices: Vec<SavedAt>,
}

/// An open V1 checkpoint (TensorFlow's `TensorSliceReader`): every file matching a pattern
/// (a file name, or a pattern with `*` and `?` in its last component, as sharded V1 saves
/// name their files `model.ckpt-?????-of-00002`), their metas merged.
#[derive(Debug)]
pub struct TensorSliceReader {
    pattern: String,
    tensors: HashMap<String, TensorInfo>,
    /// Each file's entries by key.
    files: Vec<HashMap<Vec<u8>, Vec<u8>>>,
}

/// True when `name` matches the glob `pat` (`*`: any run of characters, `?`: one).
fn glob_match(pat: &[u8], name: &[u8]) -> bool {
    match (pat.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob_match(&pat[1..], name) || (!name.is_empty() && glob_match(pat, &name[1..])),
        (Some(b'?'), Some(_)) => glob_match(&pat[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => glob_match(&pat[1..], &name[1..]),
        _ => false,
    }
}

/// The files matching `pattern` (sorted), as TensorFlow's `GetMatchingPaths`.
fn matching_files(pattern: &str) -> Result<Vec<PathBuf>> {
    let path = Path::new(pattern);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if !name.contains(['*', '?']) {
        return Ok(if path.is_file() { vec![path.to_path_buf()] } else { vec![] });
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(listing) = std::fs::read_dir(&dir) else { return Ok(vec![]) };
    let mut out: Vec<PathBuf> = listing
        .filter_map(|e| e.ok())
        .filter(|e| glob_match(name.as_bytes(), e.file_name().to_string_lossy().as_bytes()))
        .map(|e| dir.join(e.file_name()))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    Ok(out)
}

impl TensorSliceReader {
    /// Opens every file matching `pattern` and reads their metas (each file's SSTable is read
    /// whole and its checksums verified).
    ///
    /// Errors: `NotFound` `Unsuccessful TensorSliceReader constructor: Failed to find any
    /// matching files for P` (TensorFlow's words; when `P.index` exists the message adds
    /// that `P` is a V2 checkpoint, which `RestoreV2` reads); `DataLoss` naming the file for
    /// a file that is not an SSTable, is corrupted, or whose meta does not parse; a tensor
    /// whose dtype tensorgraph lacks is `Unimplemented` when read.
    pub fn open(pattern: &str) -> Result<TensorSliceReader> {
        let files = matching_files(pattern)?;
        if files.is_empty() {
            let mut msg =
                format!("Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {pattern}");
            if super::index_path(pattern).is_file() {
                msg.push_str(&format!(
                    " ({pattern}.index exists: {pattern} is a V2 checkpoint, which the V1 ops Restore and RestoreSlice cannot read; read it with RestoreV2 or Saver::restore)"
                ));
            }
            return Err(Error::not_found(msg));
        }
        let mut reader = TensorSliceReader { pattern: pattern.to_string(), tensors: HashMap::new(), files: Vec::new() };
        for (fi, f) in files.iter().enumerate() {
            let file = f.display().to_string();
            let bytes = std::fs::read(f).map_err(|e| io_error(e, "read the V1 checkpoint file", f))?;
            let entries: HashMap<Vec<u8>, Vec<u8>> = read_table(&bytes, &file)?.into_iter().collect();
            // The meta record (key "") must be there and parse, as TensorFlow's `LoadShard`
            // requires: a file without it would otherwise list no tensors at all.
            let meta = entries
                .get(&Vec::new())
                .ok_or_else(|| Error::data_loss(format!("V1 checkpoint file {file} has no meta record (key \"\")")))
                .and_then(|v| {
                    SavedTensorSlices::decode(v.as_slice()).map_err(|e| {
                        Error::data_loss(format!("V1 checkpoint file {file}: its meta record does not parse: {e}"))
                    })
                })?
                .meta
                .unwrap_or_default();
            for t in meta.tensor {
                reader.add_meta(t, fi, &file)?;
            }
            reader.files.push(entries);
        }
        Ok(reader)
    }

    fn add_meta(&mut self, t: SavedSliceMeta, file_index: usize, file: &str) -> Result<()> {
        let bad = |what: String| Error::data_loss(format!("tensor {:?} in V1 checkpoint file {file}: {what}", t.name));
        let shape = t.shape.as_ref().map(|s| s.to_dims()).transpose().map_err(|e| bad(e.message))?.unwrap_or_default();
        let dtype = dtype_from_proto(t.r#type)
            .ok()
            .filter(|d| d.has_storage())
            .ok_or_else(|| Error::unimplemented(format!("tensor {:?} in {file} has DataType {}", t.name, t.r#type)))?;
        let info = self.tensors.entry(t.name.clone()).or_insert_with(|| TensorInfo {
            dtype,
            shape: shape.clone(),
            slices: Vec::new(),
        });
        if info.dtype != dtype || info.shape != shape {
            return Err(bad(format!(
                "saved as {} {} in one file and {} {} in another",
                type_name(info.dtype),
                fmt_dims(&info.shape),
                type_name(dtype),
                fmt_dims(&shape)
            )));
        }
        for s in &t.slice {
            let (key_ext, conc) = slice_extents(s, &shape).map_err(bad)?;
            info.slices.push((conc, file_index, slice_key(t.name.as_bytes(), &key_ext)));
        }
        Ok(())
    }

    /// The names of the tensors in the checkpoint with their dtypes and full shapes, sorted.
    pub fn list(&self) -> Vec<(String, DType, Vec<usize>)> {
        let mut v: Vec<_> = self.tensors.iter().map(|(n, t)| (n.clone(), t.dtype, t.shape.clone())).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// The whole tensor `name`, assembled from its saved slices, checked to be of `dtype`
    /// (TensorFlow's `Restore`).
    ///
    /// Errors: `NotFound` `Tensor name "x" not found in checkpoint files P`;
    /// `InvalidArgument` `Expected to restore a tensor of type float, got a tensor of type
    /// int64 instead: tensor_name = w`; `NotFound` when the saved slices do not cover the
    /// tensor; `DataLoss` for a slice whose data is missing or malformed.
    pub fn read(&self, name: &str, dtype: DType) -> Result<Tensor> {
        let shape = self.info(name, dtype)?.shape.clone();
        let extents: Vec<(usize, usize)> = shape.iter().map(|&d| (0, d)).collect();
        self.read_slice(name, dtype, &shape, &extents)
    }

    /// The slice `extents` (`(start, length)` per dimension) of tensor `name` of full shape
    /// `full_shape` and dtype `dtype` (TensorFlow's `RestoreSlice`).
    ///
    /// Errors as [`TensorSliceReader::read`], and `InvalidArgument` when `full_shape` is not
    /// the saved shape or the extents do not fit it.
    pub fn read_slice(
        &self,
        name: &str,
        dtype: DType,
        full_shape: &[usize],
        extents: &[(usize, usize)],
    ) -> Result<Tensor> {
        let info = self.info(name, dtype)?;
        let fits = extents.len() == info.shape.len()
            && extents.iter().zip(&info.shape).all(|(&(s, l), &d)| s.checked_add(l).is_some_and(|e| e <= d));
        if info.shape != full_shape || !fits {
            return Err(Error::invalid_argument(format!(
                "tensor {name:?} in checkpoint files {} has shape {}; the slice {extents:?} of shape {} does not fit it",
                self.pattern,
                fmt_dims(&info.shape),
                fmt_dims(full_shape)
            )));
        }
        let n = checked_num_elements(&info.shape)?;
        crate::tensor::check_alloc(dtype, n)?;
        let mut full = Storage::try_zeros(dtype, n)?;
        let mut covered = vec![false; n];
        for (conc, fi, key) in &info.slices {
            let bad = |what: &str| {
                Error::data_loss(format!(
                    "slice {conc:?} of tensor {name:?} in checkpoint files {}: {what}",
                    self.pattern
                ))
            };
            let bytes = self.files[*fi].get(key).ok_or_else(|| bad("its data is missing"))?;
            let proto = SavedTensorSlices::decode(bytes.as_slice())
                .ok()
                .and_then(|s| s.data)
                .and_then(|d| d.data)
                .ok_or_else(|| bad("its data does not parse"))?;
            let lens: Vec<usize> = conc.iter().map(|e| e.1).collect();
            let with_type = TensorProto {
                dtype: dtype_to_proto(dtype),
                tensor_shape: Some(TensorShapeProto::from_dims(&lens)),
                ..proto
            };
            let values = with_type.to_tensor().map_err(|e| bad(&e.message))?;
            let idx = slice_indices(&info.shape, conc);
            for &i in &idx {
                covered[i] = true;
            }
            if !scatter(&mut full, values.storage().clone(), &idx) {
                return Err(bad("its data has another dtype"));
            }
        }
        let want = slice_indices(&info.shape, extents);
        if want.iter().any(|&i| !covered[i]) {
            return Err(Error::not_found(format!(
                "the saved slices of tensor {name:?} in checkpoint files {} do not cover the slice {extents:?}",
                self.pattern
            )));
        }
        let lens: Vec<usize> = extents.iter().map(|e| e.1).collect();
        Tensor::from_storage(&lens, full.gather(&want))
    }

    fn info(&self, name: &str, dtype: DType) -> Result<&TensorInfo> {
        let info = self.tensors.get(name).ok_or_else(|| {
            Error::not_found(format!("Tensor name \"{name}\" not found in checkpoint files {}", self.pattern))
        })?;
        if info.dtype != dtype {
            return Err(Error::invalid_argument(format!(
                "Expected to restore a tensor of type {}, got a tensor of type {} instead: tensor_name = {name}",
                type_name(dtype),
                type_name(info.dtype)
            )));
        }
        Ok(info)
    }
}

/// Parses TensorFlow's shape-and-slice spec (`"2 3 1,1:-"`: the full shape's dimensions,
/// then one `start,length` or `-` (whole) per dimension, `:`-separated) into the full shape
/// and the slice's extents; `None` for the empty spec (the whole tensor).
///
/// Errors: `InvalidArgument` naming the spec when it does not parse, has not one extent per
/// dimension, or an extent does not fit its dimension.
pub fn parse_shape_and_slice(spec: &str) -> Result<Option<(Vec<usize>, SliceExtents)>> {
    if spec.is_empty() {
        return Ok(None);
    }
    let bad = |why: &str| {
        Error::invalid_argument(format!("Expected a shape and slice spec such as \"2 3 0,1:-\", got \"{spec}\": {why}"))
    };
    let mut parts: Vec<&str> = spec.split(' ').collect();
    let slice = parts.pop().unwrap_or_default();
    let shape: Vec<usize> = parts
        .iter()
        .map(|p| p.parse::<usize>().map_err(|_| bad("a dimension is not a number")))
        .collect::<Result<_>>()?;
    let specs: Vec<&str> = if slice.is_empty() { Vec::new() } else { slice.split(':').collect() };
    if specs.len() != shape.len() {
        return Err(bad("it needs one extent per dimension"));
    }
    let mut extents = Vec::with_capacity(shape.len());
    for e in specs {
        if e == "-" {
            extents.push(None);
            continue;
        }
        let (s, l) = e.split_once(',').ok_or_else(|| bad("an extent is neither - nor start,length"))?;
        let s = s.parse::<usize>().map_err(|_| bad("bad start"))?;
        let l = l.parse::<usize>().map_err(|_| bad("bad length"))?;
        extents.push(Some((s, l)));
    }
    if concrete_extents(&extents, &shape).is_none() {
        return Err(bad("an extent does not fit its dimension"));
    }
    Ok(Some((shape, extents)))
}
