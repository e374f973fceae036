//! TensorFlow's quantized element types (`qint8`, `quint8`, `qint16`, `quint16`, `qint32`):
//! integers that stand for real numbers through a range given beside them (the `min`/`max`
//! tensors of `QuantizeV2` and `Dequantize`). Each is a newtype over its integer, so a
//! quantized tensor is never mistaken for a plain integer one.

macro_rules! quantized {
    ($(#[$doc:meta])* $name:ident, $int:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(pub $int);

        impl From<$int> for $name {
            fn from(v: $int) -> Self {
                $name(v)
            }
        }
        impl From<$name> for $int {
            fn from(v: $name) -> Self {
                v.0
            }
        }
    };
}

quantized!(
    /// One `qint8` element (`DT_QINT8`, TensorFlow's `Eigen::QInt8`): a signed 8-bit quantized value.
    QInt8,
    i8
);
quantized!(
    /// One `quint8` element (`DT_QUINT8`, TensorFlow's `Eigen::QUInt8`): an unsigned 8-bit quantized value.
    QUInt8,
    u8
);
quantized!(
    /// One `qint16` element (`DT_QINT16`, TensorFlow's `Eigen::QInt16`): a signed 16-bit quantized value.
    QInt16,
    i16
);
quantized!(
    /// One `quint16` element (`DT_QUINT16`, TensorFlow's `Eigen::QUInt16`): an unsigned 16-bit quantized value.
    QUInt16,
    u16
);
quantized!(
    /// One `qint32` element (`DT_QINT32`, TensorFlow's `Eigen::QInt32`): a signed 32-bit quantized value.
    QInt32,
    i32
);

use super::{DType, Storage};
use crate::error::{Error, Result};
use std::borrow::Cow;

impl DType {
    /// The plain integer dtype with this dtype's bits: qint8 → int8, quint8 → uint8,
    /// qint16 → int16, quint16 → uint16, qint32 → int32; any other dtype itself. Byte
    /// formats (checkpoints, `tensor_content`, `.npy`) store a quantized tensor as these.
    pub fn plain_integer(self) -> DType {
        match self {
            DType::QInt8 => DType::Int8,
            DType::QUInt8 => DType::UInt8,
            DType::QInt16 => DType::Int16,
            DType::QUInt16 => DType::UInt16,
            DType::QInt32 => DType::Int32,
            other => other,
        }
    }
}

impl Storage {
    /// A quantized storage as its plain integers (`QI8` → `I8`, ... as
    /// [`DType::plain_integer`]), borrowed unchanged for every other dtype.
    pub fn plain(&self) -> Cow<'_, Storage> {
        fn ints<Q: Copy, T>(v: &[Q], f: impl Fn(Q) -> T) -> Vec<T> {
            v.iter().map(|&x| f(x)).collect()
        }
        Cow::Owned(match self {
            Storage::QI8(v) => Storage::I8(ints(v, |x| x.0)),
            Storage::QU8(v) => Storage::U8(ints(v, |x| x.0)),
            Storage::QI16(v) => Storage::I16(ints(v, |x| x.0)),
            Storage::QU16(v) => Storage::U16(ints(v, |x| x.0)),
            Storage::QI32(v) => Storage::I32(ints(v, |x| x.0)),
            other => return Cow::Borrowed(other),
        })
    }

    /// Plain integers as the quantized `dtype` of the same width (the inverse of
    /// [`Storage::plain`]); `self` unchanged when `dtype` is not quantized.
    /// Errors: `Internal` when `self` is not `dtype`'s [`DType::plain_integer`].
    pub fn into_quantized(self, dtype: DType) -> Result<Storage> {
        Ok(match (dtype, self) {
            (DType::QInt8, Storage::I8(v)) => Storage::QI8(v.into_iter().map(QInt8).collect()),
            (DType::QUInt8, Storage::U8(v)) => Storage::QU8(v.into_iter().map(QUInt8).collect()),
            (DType::QInt16, Storage::I16(v)) => Storage::QI16(v.into_iter().map(QInt16).collect()),
            (DType::QUInt16, Storage::U16(v)) => Storage::QU16(v.into_iter().map(QUInt16).collect()),
            (DType::QInt32, Storage::I32(v)) => Storage::QI32(v.into_iter().map(QInt32).collect()),
            (d, s) if !d.is_quantized() => s,
            (d, s) => {
                return Err(Error::internal(format!("{} values cannot be stored as {d}", s.dtype())));
            }
        })
    }
}
