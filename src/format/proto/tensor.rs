//! `TensorProto` (formats.md §3.3) and its conversion to and from [`Tensor`], with
//! TensorFlow's rules: `tensor_content` for multi-element numeric tensors, typed `*_val`
//! fields otherwise, and a short `*_val` list padded with its last value when read.

use super::types::{data_type_name, dtype_from_proto, dtype_to_proto, TensorShapeProto};
use crate::error::{Error, Result};
use crate::tensor::{checked_num_elements, fmt_dims, DType, Storage, Tensor};
use half::{bf16, f16};

/// The most bytes a `TensorProto` whose typed value list is shorter than its shape (a
/// "splat": one value for the whole shape) may expand to: 1 GiB. TensorFlow's
/// `Tensor::FromProto` allocates whatever the shape says, so a GraphDef of a few bytes could
/// ask for any amount of memory; here the expansion is refused beyond this (`ResourceExhausted`), with an error
/// that says to build the tensor with `Fill` instead. Values spelled out in full
/// (`tensor_content`, a complete `*_val` list) are bounded by the input and never limited.
pub const MAX_SPLAT_BYTES: usize = 1 << 30;

/// `tensorflow.TensorProto`: a constant tensor (the `value` attr of `Const`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// `DataType` number.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The shape (TensorFlow always writes it; a scalar's is empty).
    #[prost(message, optional, tag = "2")]
    pub tensor_shape: Option<TensorShapeProto>,
    /// Version of the representation (unused, 0).
    #[prost(int32, tag = "3")]
    pub version_number: i32,
    /// Raw little-endian row-major element bytes (numeric dtypes). Decoded from a shared
    /// buffer ([`GraphDef::from_shared`](super::GraphDef::from_shared)), this is a view of
    /// that buffer, not a copy (the buffer lives as long as any view of it).
    #[prost(bytes = "bytes", tag = "4")]
    pub tensor_content: prost::bytes::Bytes,
    /// FLOAT values.
    #[prost(float, repeated, tag = "5")]
    pub float_val: Vec<f32>,
    /// DOUBLE values.
    #[prost(double, repeated, tag = "6")]
    pub double_val: Vec<f64>,
    /// INT32, INT16, INT8, UINT8, UINT16 (and quantized) values.
    #[prost(int32, repeated, tag = "7")]
    pub int_val: Vec<i32>,
    /// STRING values.
    #[prost(bytes = "vec", repeated, tag = "8")]
    pub string_val: Vec<Vec<u8>>,
    /// COMPLEX64 values, interleaved real and imaginary parts.
    #[prost(float, repeated, tag = "9")]
    pub scomplex_val: Vec<f32>,
    /// INT64 values.
    #[prost(int64, repeated, tag = "10")]
    pub int64_val: Vec<i64>,
    /// BOOL values.
    #[prost(bool, repeated, tag = "11")]
    pub bool_val: Vec<bool>,
    /// COMPLEX128 values, interleaved.
    #[prost(double, repeated, tag = "12")]
    pub dcomplex_val: Vec<f64>,
    /// HALF and BFLOAT16 values: the 16-bit patterns, zero-extended.
    #[prost(int32, repeated, tag = "13")]
    pub half_val: Vec<i32>,
    /// RESOURCE handles, each a serialized `ResourceHandleProto` (passed through).
    #[prost(bytes = "vec", repeated, tag = "14")]
    pub resource_handle_val: Vec<Vec<u8>>,
    /// VARIANT values, each a serialized `VariantTensorDataProto` (passed through).
    #[prost(bytes = "vec", repeated, tag = "15")]
    pub variant_val: Vec<Vec<u8>>,
    /// UINT32 values.
    #[prost(uint32, repeated, tag = "16")]
    pub uint32_val: Vec<u32>,
    /// UINT64 values.
    #[prost(uint64, repeated, tag = "17")]
    pub uint64_val: Vec<u64>,
    /// FLOAT8 values, one byte each.
    #[prost(bytes = "vec", tag = "18")]
    pub float8_val: Vec<u8>,
}

/// True for the dtypes TensorFlow's `make_tensor_proto` writes as `tensor_content` when
/// the tensor has more than one element (formats.md §3.3).
fn uses_content(d: DType) -> bool {
    matches!(
        d,
        DType::Half
            | DType::BFloat16
            | DType::Float
            | DType::Double
            | DType::Int8
            | DType::Int16
            | DType::Int32
            | DType::Int64
            | DType::UInt8
            | DType::UInt32
            | DType::UInt64
            | DType::QInt8
            | DType::QUInt8
            | DType::QInt16
            | DType::QUInt16
            | DType::QInt32
    )
}

/// Little-endian bytes of numeric storage (`None` for strings).
fn storage_bytes(s: &Storage) -> Option<Vec<u8>> {
    macro_rules! le {
        ($v:expr) => {
            $v.iter().flat_map(|x| x.to_le_bytes()).collect()
        };
    }
    Some(match s {
        Storage::F32(v) => le!(v),
        Storage::F64(v) => le!(v),
        Storage::I32(v) => le!(v),
        Storage::I64(v) => le!(v),
        Storage::Bool(v) => v.iter().map(|&b| b as u8).collect(),
        Storage::I8(v) => le!(v),
        Storage::I16(v) => le!(v),
        Storage::U8(v) => v.clone(),
        Storage::U16(v) => le!(v),
        Storage::U32(v) => le!(v),
        Storage::U64(v) => le!(v),
        Storage::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        Storage::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        Storage::C64(v) => v.iter().flat_map(|c| c.iter().flat_map(|x| x.to_le_bytes())).collect(),
        Storage::C128(v) => v.iter().flat_map(|c| c.iter().flat_map(|x| x.to_le_bytes())).collect(),
        Storage::QI8(v) => v.iter().flat_map(|x| x.0.to_le_bytes()).collect(),
        Storage::QU8(v) => v.iter().map(|x| x.0).collect(),
        Storage::QI16(v) => v.iter().flat_map(|x| x.0.to_le_bytes()).collect(),
        Storage::QU16(v) => v.iter().flat_map(|x| x.0.to_le_bytes()).collect(),
        Storage::QI32(v) => v.iter().flat_map(|x| x.0.to_le_bytes()).collect(),
        Storage::Str(_) | Storage::Variant(_) => return None,
    })
}

/// Numeric storage of `n` elements from little-endian bytes (`bytes.len()` already checked).
fn storage_from_bytes(d: DType, b: &[u8]) -> Result<Storage> {
    if d.is_quantized() {
        return plain_from_bytes(d.plain_integer(), b).into_quantized(d);
    }
    Ok(plain_from_bytes(d, b))
}

/// The little-endian numbers of `b` (`b.len() / size_of::<T>()` of them; a partial
/// last one is ignored): one copy into zeroed (untouched, so not yet cleared) memory,
/// bytes swapped after it on a big-endian machine.
fn from_le<T: bytemuck::Pod>(b: &[u8]) -> Vec<T> {
    let width = std::mem::size_of::<T>();
    let mut v = vec![T::zeroed(); b.len() / width];
    let dst = bytemuck::cast_slice_mut::<T, u8>(&mut v);
    dst.copy_from_slice(&b[..dst.len()]);
    if cfg!(target_endian = "big") {
        dst.chunks_exact_mut(width).for_each(<[u8]>::reverse);
    }
    v
}

/// [`storage_from_bytes`] for the dtypes that are not quantized.
fn plain_from_bytes(d: DType, b: &[u8]) -> Storage {
    macro_rules! from {
        ($t:ty, $w:expr, $var:ident) => {
            Storage::$var(from_le::<$t>(b))
        };
    }
    match d {
        DType::Float => from!(f32, 4, F32),
        DType::Double => from!(f64, 8, F64),
        DType::Int32 => from!(i32, 4, I32),
        DType::Int64 => from!(i64, 8, I64),
        DType::Int8 => from!(i8, 1, I8),
        DType::Int16 => from!(i16, 2, I16),
        DType::UInt8 => Storage::U8(b.to_vec()),
        DType::UInt16 => from!(u16, 2, U16),
        DType::UInt32 => from!(u32, 4, U32),
        DType::UInt64 => from!(u64, 8, U64),
        DType::Bool => Storage::Bool(b.iter().map(|&x| x != 0).collect()),
        DType::Half => Storage::F16(from_le::<f16>(b)),
        DType::BFloat16 => Storage::BF16(from_le::<bf16>(b)),
        DType::Complex64 => Storage::C64(
            b.chunks_exact(8)
                .map(|c| {
                    let re = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    let im = f32::from_le_bytes([c[4], c[5], c[6], c[7]]);
                    [re, im]
                })
                .collect(),
        ),
        DType::Complex128 => Storage::C128(
            b.chunks_exact(16)
                .map(|c| {
                    let mut re = [0u8; 8];
                    let mut im = [0u8; 8];
                    re.copy_from_slice(&c[..8]);
                    im.copy_from_slice(&c[8..]);
                    [f64::from_le_bytes(re), f64::from_le_bytes(im)]
                })
                .collect(),
        ),
        // not fixed-size (`to_tensor` never passes these here) or quantized (made plain first)
        DType::String
        | DType::Resource
        | DType::Variant
        | DType::QInt8
        | DType::QUInt8
        | DType::QInt16
        | DType::QUInt16
        | DType::QInt32 => Storage::Str(Vec::new()),
    }
}

/// `vals` extended to `n` elements TensorFlow's way: none given → `zero` everywhere;
/// fewer than `n` → the last value repeated. Errors: more than `n` values.
fn fill<T: Clone>(vals: &[T], n: usize, zero: T, field: &str) -> Result<Vec<T>> {
    if vals.len() > n {
        return Err(Error::invalid_argument(format!(
            "TensorProto has {} values in {field} for a tensor of {n} elements",
            vals.len()
        )));
    }
    let mut out = vals.to_vec();
    let last = vals.last().cloned().unwrap_or(zero);
    out.resize(n, last);
    Ok(out)
}

/// Pairs of interleaved (re, im) values.
fn pairs<T: Copy>(v: &[T], field: &str) -> Result<Vec<[T; 2]>> {
    if !v.len().is_multiple_of(2) {
        return Err(Error::invalid_argument(format!(
            "TensorProto has an odd number ({}) of values in {field}; complex values come in (re, im) pairs",
            v.len()
        )));
    }
    Ok(v.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
}

impl TensorProto {
    /// The proto TensorFlow's `make_tensor_proto` writes for `t`: `tensor_content` when
    /// the tensor has more than one element and its dtype is HALF, BFLOAT16, FLOAT,
    /// DOUBLE, INT8/16/32/64, UINT8/32/64; the typed `*_val` field otherwise.
    pub fn from_tensor(t: &Tensor) -> TensorProto {
        let mut p = TensorProto {
            dtype: dtype_to_proto(t.dtype()),
            tensor_shape: Some(TensorShapeProto::from_dims(t.shape())),
            ..Default::default()
        };
        if t.num_elements() > 1 && uses_content(t.dtype()) {
            p.tensor_content = storage_bytes(t.storage()).unwrap_or_default().into();
            return p;
        }
        let values = TensorProto::typed_values(t);
        TensorProto { dtype: p.dtype, tensor_shape: p.tensor_shape, ..values }
    }

    /// The proto TensorFlow's `Tensor::AsProtoTensorContent` writes for `t` (what
    /// `TensorSummaryV2` stores): `tensor_content` for every numeric tensor, even a scalar;
    /// the typed `string_val` for strings (`AsProtoField`, as that op does).
    pub fn content_form(t: &Tensor) -> TensorProto {
        let shape = Some(TensorShapeProto::from_dims(t.shape()));
        match storage_bytes(t.storage()) {
            Some(content) => TensorProto {
                dtype: dtype_to_proto(t.dtype()),
                tensor_shape: shape,
                tensor_content: content.into(),
                ..Default::default()
            },
            None => {
                TensorProto { dtype: dtype_to_proto(t.dtype()), tensor_shape: shape, ..TensorProto::typed_values(t) }
            }
        }
    }

    /// The values of `t` in the typed field of its dtype (`float_val`, `int_val`, ...; 8- and
    /// 16-bit integers and every quantized type widened into `int_val`, half floats' bits in `half_val`), with no
    /// dtype, shape or `tensor_content`: what `from_tensor` writes for a single value, and
    /// what TensorFlow's `TensorSliceWriter` writes for V1 checkpoints.
    pub fn typed_values(t: &Tensor) -> TensorProto {
        let mut p = TensorProto::default();
        match t.storage() {
            Storage::F32(v) => p.float_val = v.clone(),
            Storage::F64(v) => p.double_val = v.clone(),
            Storage::I32(v) => p.int_val = v.clone(),
            Storage::I8(v) => p.int_val = v.iter().map(|&x| x as i32).collect(),
            Storage::I16(v) => p.int_val = v.iter().map(|&x| x as i32).collect(),
            Storage::U8(v) => p.int_val = v.iter().map(|&x| x as i32).collect(),
            Storage::U16(v) => p.int_val = v.iter().map(|&x| x as i32).collect(),
            Storage::I64(v) => p.int64_val = v.clone(),
            Storage::U32(v) => p.uint32_val = v.clone(),
            Storage::U64(v) => p.uint64_val = v.clone(),
            Storage::Bool(v) => p.bool_val = v.clone(),
            Storage::F16(v) => p.half_val = v.iter().map(|x| x.to_bits() as i32).collect(),
            Storage::BF16(v) => p.half_val = v.iter().map(|x| x.to_bits() as i32).collect(),
            Storage::C64(v) => p.scomplex_val = v.iter().flatten().copied().collect(),
            Storage::C128(v) => p.dcomplex_val = v.iter().flatten().copied().collect(),
            Storage::Str(v) => p.string_val = v.clone(),
            Storage::QI8(v) => p.int_val = v.iter().map(|x| x.0 as i32).collect(),
            Storage::QU8(v) => p.int_val = v.iter().map(|x| x.0 as i32).collect(),
            Storage::QI16(v) => p.int_val = v.iter().map(|x| x.0 as i32).collect(),
            Storage::QU16(v) => p.int_val = v.iter().map(|x| x.0 as i32).collect(),
            Storage::QI32(v) => p.int_val = v.iter().map(|x| x.0).collect(),
            // never written: a variant `Const` is refused when built (`Const`'s shape function)
            Storage::Variant(_) => {}
        }
        p
    }

    /// How many values the typed field of `dtype` holds (complex values count once per pair).
    fn typed_len(&self, dtype: DType) -> usize {
        match dtype {
            DType::Float => self.float_val.len(),
            DType::Double => self.double_val.len(),
            DType::Int32 | DType::Int8 | DType::Int16 | DType::UInt8 | DType::UInt16 => self.int_val.len(),
            DType::Int64 => self.int64_val.len(),
            DType::UInt32 => self.uint32_val.len(),
            DType::UInt64 => self.uint64_val.len(),
            DType::Bool => self.bool_val.len(),
            DType::Half | DType::BFloat16 => self.half_val.len(),
            DType::Complex64 => self.scomplex_val.len() / 2,
            DType::Complex128 => self.dcomplex_val.len() / 2,
            DType::String => self.string_val.len(),
            _ => 0,
        }
    }

    /// The tensor this proto holds. A non-empty `tensor_content` must hold exactly the
    /// tensor's bytes; otherwise the typed field is read, a short list padded with its
    /// last value and an empty one read as zeros (TensorFlow's rule).
    /// Errors: `InvalidArgument` for a missing or partial shape, a content size mismatch or
    /// too many values; `ResourceExhausted` for a short list that would expand beyond
    /// [`MAX_SPLAT_BYTES`] or memory that cannot be had; `Unimplemented` for dtypes tensorgraph lacks and for
    /// `DT_RESOURCE` (resource handles are never tensors in tensorgraph).
    pub fn to_tensor(&self) -> Result<Tensor> {
        let dtype = dtype_from_proto(self.dtype)?;
        dtype.check_storage("TensorProto")?;
        if self.dtype > super::types::DT_REF_OFFSET {
            return Err(Error::invalid_argument(format!(
                "a TensorProto cannot have the reference dtype {}",
                data_type_name(self.dtype)
            )));
        }
        let dims = match &self.tensor_shape {
            Some(s) => s.to_dims()?,
            None => Vec::new(),
        };
        let n = checked_num_elements(&dims)?;
        if !self.tensor_content.is_empty() && dtype != DType::String {
            let size = dtype.size().unwrap_or(1);
            let want = n.checked_mul(size);
            if want != Some(self.tensor_content.len()) {
                return Err(Error::invalid_argument(format!(
                    "TensorProto of dtype {} and shape {} needs {} bytes of tensor_content, got {}",
                    dtype,
                    fmt_dims(&dims),
                    want.map_or_else(|| "more".to_string(), |w| w.to_string()),
                    self.tensor_content.len()
                )));
            }
            return Tensor::from_storage(&dims, storage_from_bytes(dtype, &self.tensor_content)?);
        }
        // a short value list is expanded to the whole shape: bound it, then check that memory
        let given = self.typed_len(dtype);
        let elem = dtype.size().unwrap_or(std::mem::size_of::<Vec<u8>>());
        if n > given && n.saturating_mul(elem) > MAX_SPLAT_BYTES {
            return Err(Error::new(
                crate::error::Code::ResourceExhausted,
                format!(
                "TensorProto of dtype {dtype} and shape {} gives {given} value(s) to repeat over {n} elements, more \
                 than the {MAX_SPLAT_BYTES} bytes a short value list may expand to; build such a tensor with Fill \
                 (tf.fill) instead of a constant",
                    fmt_dims(&dims)
                ),
            ));
        }
        crate::tensor::check_alloc(dtype, n)
            .map_err(|e| e.context(format!("TensorProto of shape {}", fmt_dims(&dims))))?;
        let storage = match dtype {
            DType::Float => Storage::F32(fill(&self.float_val, n, 0.0, "float_val")?),
            DType::Double => Storage::F64(fill(&self.double_val, n, 0.0, "double_val")?),
            DType::Int32 => Storage::I32(fill(&self.int_val, n, 0, "int_val")?),
            DType::Int8 => Storage::I8(fill(&self.int_val, n, 0, "int_val")?.iter().map(|&x| x as i8).collect()),
            DType::Int16 => Storage::I16(fill(&self.int_val, n, 0, "int_val")?.iter().map(|&x| x as i16).collect()),
            DType::UInt8 => Storage::U8(fill(&self.int_val, n, 0, "int_val")?.iter().map(|&x| x as u8).collect()),
            DType::UInt16 => Storage::U16(fill(&self.int_val, n, 0, "int_val")?.iter().map(|&x| x as u16).collect()),
            DType::Int64 => Storage::I64(fill(&self.int64_val, n, 0, "int64_val")?),
            DType::UInt32 => Storage::U32(fill(&self.uint32_val, n, 0, "uint32_val")?),
            DType::UInt64 => Storage::U64(fill(&self.uint64_val, n, 0, "uint64_val")?),
            DType::Bool => Storage::Bool(fill(&self.bool_val, n, false, "bool_val")?),
            DType::Half => Storage::F16(
                fill(&self.half_val, n, 0, "half_val")?.iter().map(|&x| f16::from_bits(x as u16)).collect(),
            ),
            DType::BFloat16 => Storage::BF16(
                fill(&self.half_val, n, 0, "half_val")?.iter().map(|&x| bf16::from_bits(x as u16)).collect(),
            ),
            DType::Complex64 => {
                Storage::C64(fill(&pairs(&self.scomplex_val, "scomplex_val")?, n, [0.0; 2], "scomplex_val")?)
            }
            DType::Complex128 => {
                Storage::C128(fill(&pairs(&self.dcomplex_val, "dcomplex_val")?, n, [0.0; 2], "dcomplex_val")?)
            }
            DType::String => Storage::Str(fill(&self.string_val, n, Vec::new(), "string_val")?),
            // TensorFlow keeps every quantized type's values in int_val, cast to the type's width
            DType::QInt8 | DType::QUInt8 | DType::QInt16 | DType::QUInt16 | DType::QInt32 => {
                let ints = fill(&self.int_val, n, 0, "int_val")?;
                let plain = match dtype {
                    DType::QInt8 => Storage::I8(ints.iter().map(|&x| x as i8).collect()),
                    DType::QUInt8 => Storage::U8(ints.iter().map(|&x| x as u8).collect()),
                    DType::QInt16 => Storage::I16(ints.iter().map(|&x| x as i16).collect()),
                    DType::QUInt16 => Storage::U16(ints.iter().map(|&x| x as u16).collect()),
                    _ => Storage::I32(ints),
                };
                plain.into_quantized(dtype)?
            }
            DType::Resource | DType::Variant => {
                return Err(Error::internal("resource or variant TensorProto passed the storage check"))
            }
        };
        Tensor::from_storage(&dims, storage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn bytes_match_formats_md() {
        let t = Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap();
        assert_eq!(
            TensorProto::from_tensor(&t).encode_to_vec(),
            [0x08, 0x01, 0x12, 0x04, 0x12, 0x02, 0x08, 0x02, 0x22, 0x08, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]
        );
        let s = TensorProto::from_tensor(&Tensor::scalar(1.5f32));
        assert_eq!(s.encode_to_vec(), [0x08, 0x01, 0x12, 0x00, 0x2a, 0x04, 0, 0, 0xc0, 0x3f]);
        let i = TensorProto::from_tensor(&Tensor::scalar(-5i64));
        assert_eq!(
            i.encode_to_vec(),
            [0x08, 0x09, 0x12, 0x00, 0x52, 0x0a, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        let h = TensorProto::from_tensor(&Tensor::scalar(f16::from_f32(1.5)));
        assert_eq!(h.half_val, [15872]);
        let b = TensorProto::from_tensor(&Tensor::scalar(bf16::from_f32(1.5)));
        assert_eq!(b.half_val, [16320]);
    }

    #[test]
    fn short_lists_are_padded_with_the_last_value() {
        let p = TensorProto {
            dtype: 1,
            tensor_shape: Some(TensorShapeProto::from_dims(&[2, 3])),
            float_val: vec![1.0, 2.0],
            ..Default::default()
        };
        assert_eq!(p.to_tensor().unwrap().to_vec::<f32>().unwrap(), [1.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
        let z = TensorProto { dtype: 7, tensor_shape: Some(TensorShapeProto::from_dims(&[2])), ..Default::default() };
        assert_eq!(z.to_tensor().unwrap().storage(), &Storage::Str(vec![vec![], vec![]]));
        let too_many = TensorProto { float_val: vec![1.0; 7], ..p.clone() };
        assert_eq!(too_many.to_tensor().unwrap_err().code, crate::Code::InvalidArgument);
        let bad = TensorProto { tensor_content: vec![0; 5].into(), ..p };
        assert_eq!(bad.to_tensor().unwrap_err().code, crate::Code::InvalidArgument);
    }

    #[test]
    fn every_dtype_round_trips() {
        for d in DType::ALL {
            for shape in [vec![], vec![1], vec![2, 3], vec![0, 2]] {
                let n: usize = shape.iter().product();
                let t = match d {
                    DType::String => Tensor::strings(&shape, (0..n).map(|i| vec![b'a'; i]).collect()).unwrap(),
                    DType::Complex64 => Tensor::new(&shape, (0..n).map(|i| [i as f32, -1.5]).collect()).unwrap(),
                    DType::Complex128 => Tensor::new(&shape, (0..n).map(|i| [i as f64, 2.5]).collect()).unwrap(),
                    _ => Tensor::from_f64(d, &shape, &(0..n).map(|i| i as f64 + 1.0).collect::<Vec<_>>()).unwrap(),
                };
                let p = TensorProto::from_tensor(&t);
                let back = TensorProto::decode(p.encode_to_vec().as_slice()).unwrap().to_tensor().unwrap();
                assert_eq!(back, t, "{d} {shape:?}");
            }
        }
    }
}
