//! `Tensor`: a dense, row-major, immutable n-dimensional array of one [`DType`].
//! Cloning is cheap (the buffer is shared); kernels build new tensors.

use super::alloc::{checked_num_elements, try_collect, try_filled};
use super::{fmt_dims, DType, QInt16, QInt32, QInt8, QUInt16, QUInt8, VariantValue};
use crate::error::{Error, Result};
use half::{bf16, f16};
use std::sync::Arc;

/// A tensor's dimensions, inline up to rank 4.
type Dims = smallvec::SmallVec<[usize; 4]>;

/// Typed row-major storage, one variant per [`DType`].
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// `float32`
    F32(Vec<f32>),
    /// `float64`
    F64(Vec<f64>),
    /// `int32`
    I32(Vec<i32>),
    /// `int64`
    I64(Vec<i64>),
    /// `bool`
    Bool(Vec<bool>),
    /// `int8`
    I8(Vec<i8>),
    /// `int16`
    I16(Vec<i16>),
    /// `uint8`
    U8(Vec<u8>),
    /// `uint16`
    U16(Vec<u16>),
    /// `uint32`
    U32(Vec<u32>),
    /// `uint64`
    U64(Vec<u64>),
    /// `float16`
    F16(Vec<f16>),
    /// `bfloat16`
    BF16(Vec<bf16>),
    /// `complex64`, as (real, imaginary)
    C64(Vec<[f32; 2]>),
    /// `complex128`, as (real, imaginary)
    C128(Vec<[f64; 2]>),
    /// `string`: byte strings
    Str(Vec<Vec<u8>>),
    /// `qint8`
    QI8(Vec<QInt8>),
    /// `quint8`
    QU8(Vec<QUInt8>),
    /// `qint16`
    QI16(Vec<QInt16>),
    /// `quint16`
    QU16(Vec<QUInt16>),
    /// `qint32`
    QI32(Vec<QInt32>),
    /// `variant`: opaque run-time values (TensorLists); never serialized
    Variant(Vec<VariantValue>),
}

macro_rules! storage_dispatch {
    ($s:expr, $v:ident => $body:expr) => {
        match $s {
            Storage::F32($v) => $body,
            Storage::F64($v) => $body,
            Storage::I32($v) => $body,
            Storage::I64($v) => $body,
            Storage::Bool($v) => $body,
            Storage::I8($v) => $body,
            Storage::I16($v) => $body,
            Storage::U8($v) => $body,
            Storage::U16($v) => $body,
            Storage::U32($v) => $body,
            Storage::U64($v) => $body,
            Storage::F16($v) => $body,
            Storage::BF16($v) => $body,
            Storage::C64($v) => $body,
            Storage::C128($v) => $body,
            Storage::Str($v) => $body,
            Storage::QI8($v) => $body,
            Storage::QU8($v) => $body,
            Storage::QI16($v) => $body,
            Storage::QU16($v) => $body,
            Storage::QI32($v) => $body,
            Storage::Variant($v) => $body,
        }
    };
}

impl Storage {
    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            Storage::F32(_) => DType::Float,
            Storage::F64(_) => DType::Double,
            Storage::I32(_) => DType::Int32,
            Storage::I64(_) => DType::Int64,
            Storage::Bool(_) => DType::Bool,
            Storage::I8(_) => DType::Int8,
            Storage::I16(_) => DType::Int16,
            Storage::U8(_) => DType::UInt8,
            Storage::U16(_) => DType::UInt16,
            Storage::U32(_) => DType::UInt32,
            Storage::U64(_) => DType::UInt64,
            Storage::F16(_) => DType::Half,
            Storage::BF16(_) => DType::BFloat16,
            Storage::C64(_) => DType::Complex64,
            Storage::C128(_) => DType::Complex128,
            Storage::Str(_) => DType::String,
            Storage::QI8(_) => DType::QInt8,
            Storage::QU8(_) => DType::QUInt8,
            Storage::QI16(_) => DType::QInt16,
            Storage::QU16(_) => DType::QUInt16,
            Storage::QI32(_) => DType::QInt32,
            Storage::Variant(_) => DType::Variant,
        }
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        storage_dispatch!(self, v => v.len())
    }
    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `n` zero elements (false, empty string) of `dtype`.
    ///
    /// # Panics
    /// For [`DType::Resource`], which has no storage, and when the memory cannot be had;
    /// [`Storage::try_zeros`] returns an error instead (use it when the dtype or the size
    /// comes from a file, a graph or a fed tensor).
    pub fn zeros(dtype: DType, n: usize) -> Storage {
        match Storage::try_zeros(dtype, n) {
            Ok(s) => s,
            Err(e) => panic!("{}", e.message),
        }
    }
    /// `n` zero elements of `dtype`. Errors: `Unimplemented` for [`DType::Resource`];
    /// `ResourceExhausted` naming dtype, count and bytes when the memory cannot be had.
    pub fn try_zeros(dtype: DType, n: usize) -> Result<Storage> {
        dtype.check_storage("a zero-filled tensor")?;
        Ok(match dtype {
            DType::Float => Storage::F32(try_filled(0.0, n, dtype)?),
            DType::Double => Storage::F64(try_filled(0.0, n, dtype)?),
            DType::Int32 => Storage::I32(try_filled(0, n, dtype)?),
            DType::Int64 => Storage::I64(try_filled(0, n, dtype)?),
            DType::Bool => Storage::Bool(try_filled(false, n, dtype)?),
            DType::Int8 => Storage::I8(try_filled(0, n, dtype)?),
            DType::Int16 => Storage::I16(try_filled(0, n, dtype)?),
            DType::UInt8 => Storage::U8(try_filled(0, n, dtype)?),
            DType::UInt16 => Storage::U16(try_filled(0, n, dtype)?),
            DType::UInt32 => Storage::U32(try_filled(0, n, dtype)?),
            DType::UInt64 => Storage::U64(try_filled(0, n, dtype)?),
            DType::Half => Storage::F16(try_filled(f16::ZERO, n, dtype)?),
            DType::BFloat16 => Storage::BF16(try_filled(bf16::ZERO, n, dtype)?),
            DType::Complex64 => Storage::C64(try_filled([0.0; 2], n, dtype)?),
            DType::Complex128 => Storage::C128(try_filled([0.0; 2], n, dtype)?),
            DType::String => Storage::Str(try_filled(Vec::new(), n, dtype)?),
            DType::QInt8 => Storage::QI8(try_filled(QInt8(0), n, dtype)?),
            DType::QUInt8 => Storage::QU8(try_filled(QUInt8(0), n, dtype)?),
            DType::QInt16 => Storage::QI16(try_filled(QInt16(0), n, dtype)?),
            DType::QUInt16 => Storage::QU16(try_filled(QUInt16(0), n, dtype)?),
            DType::QInt32 => Storage::QI32(try_filled(QInt32(0), n, dtype)?),
            DType::Resource | DType::Variant => {
                return Err(Error::internal("resource or variant storage passed the storage check"))
            }
        })
    }
    /// Gathers elements by flat index (used by broadcasting, transposes and slicing):
    /// element `i` of the result is element `idx[i]` of `self`.
    ///
    /// # Panics
    /// When an index is out of range, or the memory cannot be had; [`Storage::try_gather`]
    /// returns the latter as an error (use it when the result is larger than the input).
    pub fn gather(&self, idx: &[usize]) -> Storage {
        match self.try_gather(idx) {
            Ok(s) => s,
            Err(e) => panic!("{}", e.message),
        }
    }
    /// [`Storage::gather`], allocating the result fallibly. Errors: `ResourceExhausted`
    /// naming dtype, count and bytes when the memory cannot be had.
    ///
    /// # Panics
    /// When an index is out of range (a bug in the caller, which computes them).
    pub fn try_gather(&self, idx: &[usize]) -> Result<Storage> {
        let dtype = self.dtype();
        macro_rules! g {
            ($v:expr, $ctor:path) => {
                $ctor(try_collect(idx.iter().map(|&i| $v[i].clone()), dtype)?)
            };
        }
        Ok(match self {
            Storage::F32(v) => g!(v, Storage::F32),
            Storage::F64(v) => g!(v, Storage::F64),
            Storage::I32(v) => g!(v, Storage::I32),
            Storage::I64(v) => g!(v, Storage::I64),
            Storage::Bool(v) => g!(v, Storage::Bool),
            Storage::I8(v) => g!(v, Storage::I8),
            Storage::I16(v) => g!(v, Storage::I16),
            Storage::U8(v) => g!(v, Storage::U8),
            Storage::U16(v) => g!(v, Storage::U16),
            Storage::U32(v) => g!(v, Storage::U32),
            Storage::U64(v) => g!(v, Storage::U64),
            Storage::F16(v) => g!(v, Storage::F16),
            Storage::BF16(v) => g!(v, Storage::BF16),
            Storage::C64(v) => g!(v, Storage::C64),
            Storage::C128(v) => g!(v, Storage::C128),
            Storage::Str(v) => g!(v, Storage::Str),
            Storage::QI8(v) => g!(v, Storage::QI8),
            Storage::QU8(v) => g!(v, Storage::QU8),
            Storage::QI16(v) => g!(v, Storage::QI16),
            Storage::QU16(v) => g!(v, Storage::QU16),
            Storage::QI32(v) => g!(v, Storage::QI32),
            Storage::Variant(v) => g!(v, Storage::Variant),
        })
    }
}

/// Element types that a [`Tensor`] can be built from and viewed as.
pub trait Element: Copy + Send + Sync + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Wraps a vector as storage.
    fn into_storage(v: Vec<Self>) -> Storage;
    /// Views storage as a slice, when the dtype matches.
    fn slice(s: &Storage) -> Option<&[Self]>;
    /// Views storage as a mutable slice, when the dtype matches.
    fn slice_mut(s: &mut Storage) -> Option<&mut [Self]>;
}

macro_rules! element {
    ($t:ty, $dt:expr, $var:ident) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            fn into_storage(v: Vec<Self>) -> Storage {
                Storage::$var(v)
            }
            fn slice(s: &Storage) -> Option<&[Self]> {
                match s {
                    Storage::$var(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(s: &mut Storage) -> Option<&mut [Self]> {
                match s {
                    Storage::$var(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
element!(f32, DType::Float, F32);
element!(f64, DType::Double, F64);
element!(i32, DType::Int32, I32);
element!(i64, DType::Int64, I64);
element!(bool, DType::Bool, Bool);
element!(i8, DType::Int8, I8);
element!(i16, DType::Int16, I16);
element!(u8, DType::UInt8, U8);
element!(u16, DType::UInt16, U16);
element!(u32, DType::UInt32, U32);
element!(u64, DType::UInt64, U64);
element!(f16, DType::Half, F16);
element!(bf16, DType::BFloat16, BF16);
element!([f32; 2], DType::Complex64, C64);
element!([f64; 2], DType::Complex128, C128);
element!(QInt8, DType::QInt8, QI8);
element!(QUInt8, DType::QUInt8, QU8);
element!(QInt16, DType::QInt16, QI16);
element!(QUInt16, DType::QUInt16, QU16);
element!(QInt32, DType::QInt32, QI32);

/// A dense tensor: a concrete shape and row-major [`Storage`] shared by clones.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Inline up to rank 4, so cloning a tensor (a variable read, a fetch) allocates
    /// nothing.
    shape: Dims,
    storage: Arc<Storage>,
}

impl Drop for Tensor {
    /// A large float32 buffer this tensor was the last holder of goes to the buffer pool
    /// while a session is alive (`tensor/pool.rs`), for the next kernel to reuse.
    fn drop(&mut self) {
        super::pool::recycle(&mut self.storage);
    }
}

impl Tensor {
    /// Builds a tensor of `shape` from storage. Errors: `InvalidArgument` when the element
    /// count differs from the product of `shape`.
    pub fn from_storage(shape: &[usize], storage: Storage) -> Result<Tensor> {
        let n = checked_num_elements(shape)?;
        if n != storage.len() {
            return Err(Error::invalid_argument(format!(
                "a tensor of shape {} needs {n} elements, got {}",
                fmt_dims(shape),
                storage.len()
            )));
        }
        Ok(Tensor { shape: Dims::from_slice(shape), storage: Arc::new(storage) })
    }
    /// Builds a tensor of `shape` from a vector of elements (row-major).
    /// Errors: `InvalidArgument` on an element-count mismatch.
    pub fn new<T: Element>(shape: &[usize], data: Vec<T>) -> Result<Tensor> {
        Tensor::from_storage(shape, T::into_storage(data))
    }
    /// A 0-d tensor holding `v`.
    pub fn scalar<T: Element>(v: T) -> Tensor {
        Tensor { shape: Dims::new(), storage: Arc::new(T::into_storage(vec![v])) }
    }
    /// A 1-d tensor holding `v`.
    pub fn vector<T: Element>(v: Vec<T>) -> Tensor {
        Tensor { shape: Dims::from_slice(&[v.len()]), storage: Arc::new(T::into_storage(v)) }
    }
    /// A string tensor of `shape` (`DT_STRING`).
    pub fn strings(shape: &[usize], v: Vec<Vec<u8>>) -> Result<Tensor> {
        Tensor::from_storage(shape, Storage::Str(v))
    }
    /// A tensor of zeros of `dtype` and `shape`.
    ///
    /// # Panics
    /// For [`DType::Resource`] (no tensor has it), a shape whose element count overflows
    /// `usize`, and memory that cannot be had; [`Tensor::try_zeros`] returns these as
    /// errors (use it when the dtype or shape comes from input).
    pub fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
        match Tensor::try_zeros(dtype, shape) {
            Ok(t) => t,
            Err(e) => panic!("Tensor::zeros({dtype}, {}): {}", fmt_dims(shape), e.message),
        }
    }
    /// A tensor of zeros of `dtype` and `shape`. Errors: `Unimplemented` for
    /// [`DType::Resource`]; `InvalidArgument` when the shape's element count overflows;
    /// `ResourceExhausted` naming dtype, count and bytes when the memory cannot be had.
    pub fn try_zeros(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        let n = checked_num_elements(shape)?;
        Ok(Tensor { shape: Dims::from_slice(shape), storage: Arc::new(Storage::try_zeros(dtype, n)?) })
    }
    /// A tensor of `shape` whose every element is element 0 of `value` (TensorFlow's `Fill`).
    /// Errors: `InvalidArgument` when `value` is empty or the shape overflows;
    /// `ResourceExhausted` when the memory cannot be had.
    pub fn filled(value: &Tensor, shape: &[usize]) -> Result<Tensor> {
        let n = checked_num_elements(shape)?;
        if value.num_elements() == 0 {
            return Err(Error::invalid_argument("cannot fill from an empty tensor"));
        }
        let dtype = value.dtype();
        macro_rules! rep {
            ($v:expr, $ctor:path) => {
                $ctor(try_filled($v[0].clone(), n, dtype)?)
            };
        }
        let s = match value.storage() {
            Storage::F32(v) => rep!(v, Storage::F32),
            Storage::F64(v) => rep!(v, Storage::F64),
            Storage::I32(v) => rep!(v, Storage::I32),
            Storage::I64(v) => rep!(v, Storage::I64),
            Storage::Bool(v) => rep!(v, Storage::Bool),
            Storage::I8(v) => rep!(v, Storage::I8),
            Storage::I16(v) => rep!(v, Storage::I16),
            Storage::U8(v) => rep!(v, Storage::U8),
            Storage::U16(v) => rep!(v, Storage::U16),
            Storage::U32(v) => rep!(v, Storage::U32),
            Storage::U64(v) => rep!(v, Storage::U64),
            Storage::F16(v) => rep!(v, Storage::F16),
            Storage::BF16(v) => rep!(v, Storage::BF16),
            Storage::C64(v) => rep!(v, Storage::C64),
            Storage::C128(v) => rep!(v, Storage::C128),
            Storage::Str(v) => rep!(v, Storage::Str),
            Storage::QI8(v) => rep!(v, Storage::QI8),
            Storage::QU8(v) => rep!(v, Storage::QU8),
            Storage::QI16(v) => rep!(v, Storage::QI16),
            Storage::QU16(v) => rep!(v, Storage::QU16),
            Storage::QI32(v) => rep!(v, Storage::QI32),
            Storage::Variant(v) => rep!(v, Storage::Variant),
        };
        Tensor::from_storage(shape, s)
    }
    /// The element dtype.
    pub fn dtype(&self) -> DType {
        self.storage.dtype()
    }
    /// The concrete shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The rank (number of dimensions).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    /// The number of elements.
    pub fn num_elements(&self) -> usize {
        self.storage.len()
    }
    /// True when `self` and `other` share one buffer (one is a clone of the other, or both
    /// of one tensor): then they hold the same elements, since a shared buffer is copied
    /// before any change (copy on write).
    pub fn shares_buffer(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }
    /// The storage.
    pub fn storage(&self) -> &Storage {
        &self.storage
    }
    /// The storage, to change: copied first when the buffer is shared (copy on write).
    pub(super) fn storage_mut(&mut self) -> &mut Storage {
        Arc::make_mut(&mut self.storage)
    }
    /// The elements as a slice of `T`. Errors: `InvalidArgument` when the dtype is not `T`'s.
    pub fn as_slice<T: Element>(&self) -> Result<&[T]> {
        T::slice(&self.storage)
            .ok_or_else(|| Error::invalid_argument(format!("tensor has dtype {}, not {}", self.dtype(), T::DTYPE)))
    }
    /// The elements as a mutable slice of `T`, copying the buffer first when it is shared
    /// (copy on write). Errors: `InvalidArgument` when the dtype is not `T`'s.
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        let dtype = self.dtype();
        T::slice_mut(Arc::make_mut(&mut self.storage))
            .ok_or_else(|| Error::invalid_argument(format!("tensor has dtype {dtype}, not {}", T::DTYPE)))
    }
    /// The elements as a mutable slice of `T` when this tensor is the only holder of its
    /// buffer (no clone of it shares the buffer: not a variable's value, a fed tensor the
    /// caller holds, or a value also fetched or read elsewhere), else `None` (also for
    /// another dtype than `T`'s). Kernels write their output in place with it.
    pub fn unique_mut_slice<T: Element>(&mut self) -> Option<&mut [T]> {
        T::slice_mut(Arc::get_mut(&mut self.storage)?)
    }
    /// The elements copied into a vector of `T`. Errors as [`Tensor::as_slice`].
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        Ok(self.as_slice::<T>()?.to_vec())
    }
    /// The same data under another shape with the same element count.
    /// Errors: `InvalidArgument` on a count mismatch.
    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor> {
        let n = checked_num_elements(shape)?;
        if n != self.num_elements() {
            return Err(Error::invalid_argument(format!(
                "Input to reshape is a tensor with {} values, but the requested shape {} has {n}",
                self.num_elements(),
                fmt_dims(shape)
            )));
        }
        Ok(Tensor { shape: Dims::from_slice(shape), storage: self.storage.clone() })
    }
    /// The elements widened to f64 (numeric dtypes only; bool as 0/1; a quantized type's
    /// integers as they are, not dequantized).
    /// Errors: `InvalidArgument` for string and complex tensors.
    pub fn to_f64_vec(&self) -> Result<Vec<f64>> {
        Ok(match &*self.storage {
            Storage::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::F64(v) => v.clone(),
            Storage::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
            Storage::I8(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::I16(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::U8(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::U16(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::U64(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Storage::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Storage::QI8(v) => v.iter().map(|x| x.0 as f64).collect(),
            Storage::QU8(v) => v.iter().map(|x| x.0 as f64).collect(),
            Storage::QI16(v) => v.iter().map(|x| x.0 as f64).collect(),
            Storage::QU16(v) => v.iter().map(|x| x.0 as f64).collect(),
            Storage::QI32(v) => v.iter().map(|x| x.0 as f64).collect(),
            Storage::C64(_) | Storage::C128(_) | Storage::Str(_) | Storage::Variant(_) => {
                return Err(Error::invalid_argument(format!("cannot read a {} tensor as numbers", self.dtype())))
            }
        })
    }
    /// A tensor of `dtype` and `shape` from f64 values (rounded/truncated as a cast; a
    /// quantized type takes them as its integers; complex64 and complex128 as real parts,
    /// imaginary parts 0).
    /// Errors: `InvalidArgument` for string, resource and variant dtypes or a count mismatch.
    pub fn from_f64(dtype: DType, shape: &[usize], v: &[f64]) -> Result<Tensor> {
        let s = match dtype {
            DType::Float => Storage::F32(v.iter().map(|&x| x as f32).collect()),
            DType::Double => Storage::F64(v.to_vec()),
            DType::Int32 => Storage::I32(v.iter().map(|&x| x as i32).collect()),
            DType::Int64 => Storage::I64(v.iter().map(|&x| x as i64).collect()),
            DType::Bool => Storage::Bool(v.iter().map(|&x| x != 0.0).collect()),
            DType::Int8 => Storage::I8(v.iter().map(|&x| x as i8).collect()),
            DType::Int16 => Storage::I16(v.iter().map(|&x| x as i16).collect()),
            DType::UInt8 => Storage::U8(v.iter().map(|&x| x as u8).collect()),
            DType::UInt16 => Storage::U16(v.iter().map(|&x| x as u16).collect()),
            DType::UInt32 => Storage::U32(v.iter().map(|&x| x as u32).collect()),
            DType::UInt64 => Storage::U64(v.iter().map(|&x| x as u64).collect()),
            DType::Half => Storage::F16(v.iter().map(|&x| f16::from_f64(x)).collect()),
            DType::BFloat16 => Storage::BF16(v.iter().map(|&x| bf16::from_f64(x)).collect()),
            DType::QInt8 => Storage::QI8(v.iter().map(|&x| QInt8(x as i8)).collect()),
            DType::QUInt8 => Storage::QU8(v.iter().map(|&x| QUInt8(x as u8)).collect()),
            DType::QInt16 => Storage::QI16(v.iter().map(|&x| QInt16(x as i16)).collect()),
            DType::QUInt16 => Storage::QU16(v.iter().map(|&x| QUInt16(x as u16)).collect()),
            DType::QInt32 => Storage::QI32(v.iter().map(|&x| QInt32(x as i32)).collect()),
            DType::Complex64 => Storage::C64(v.iter().map(|&x| [x as f32, 0.0]).collect()),
            DType::Complex128 => Storage::C128(v.iter().map(|&x| [x, 0.0]).collect()),
            DType::String | DType::Resource | DType::Variant => {
                return Err(Error::invalid_argument(format!("cannot build a {dtype} tensor from numbers")))
            }
        };
        Tensor::from_storage(shape, s)
    }
}
