//! `DType`: TensorFlow's `DataType` enum with its numbers (`types.proto`).

use crate::error::{Error, Result};
use std::fmt;

/// A TensorFlow element type. The discriminant is TensorFlow's `DataType` enum number,
/// as written in `GraphDef` attrs and checkpoint entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum DType {
    /// `DT_FLOAT` (1): 32-bit IEEE float.
    Float = 1,
    /// `DT_DOUBLE` (2): 64-bit IEEE float.
    Double = 2,
    /// `DT_INT32` (3).
    Int32 = 3,
    /// `DT_UINT8` (4).
    UInt8 = 4,
    /// `DT_INT16` (5).
    Int16 = 5,
    /// `DT_INT8` (6).
    Int8 = 6,
    /// `DT_STRING` (7): byte strings.
    String = 7,
    /// `DT_COMPLEX64` (8): two f32, real then imaginary.
    Complex64 = 8,
    /// `DT_INT64` (9).
    Int64 = 9,
    /// `DT_BOOL` (10).
    Bool = 10,
    /// `DT_QINT8` (11): signed 8-bit quantized integers ([`QInt8`](crate::tensor::QInt8)).
    QInt8 = 11,
    /// `DT_QUINT8` (12): unsigned 8-bit quantized integers ([`QUInt8`](crate::tensor::QUInt8)).
    QUInt8 = 12,
    /// `DT_QINT32` (13): signed 32-bit quantized integers ([`QInt32`](crate::tensor::QInt32)).
    QInt32 = 13,
    /// `DT_BFLOAT16` (14).
    BFloat16 = 14,
    /// `DT_QINT16` (15): signed 16-bit quantized integers ([`QInt16`](crate::tensor::QInt16)).
    QInt16 = 15,
    /// `DT_QUINT16` (16): unsigned 16-bit quantized integers ([`QUInt16`](crate::tensor::QUInt16)).
    QUInt16 = 16,
    /// `DT_UINT16` (17).
    UInt16 = 17,
    /// `DT_COMPLEX128` (18): two f64.
    Complex128 = 18,
    /// `DT_HALF` (19): IEEE float16.
    Half = 19,
    /// `DT_UINT32` (22).
    UInt32 = 22,
    /// `DT_UINT64` (23).
    UInt64 = 23,
    /// `DT_VARIANT` (21): opaque run-time values, one per element; the kind tensorgraph has
    /// is a TensorList ([`TensorList`](crate::tensor::TensorList)). Variant tensors exist
    /// only while a graph runs (kernels make them, control flow and function calls pass
    /// them on): they are never serialized (`Const`, checkpoints, `.npy`), zero-filled from
    /// a dtype alone, or fed from bytes, so [`DType::has_storage`] is false for it and it is
    /// in [`DType::GRAPH_ONLY`], not [`DType::ALL`].
    Variant = 21,
    /// `DT_RESOURCE` (20): a resource handle, the output of `VarHandleOp` (resource
    /// variables). A graph-level dtype only: tensorgraph never makes a tensor of it (the
    /// executor hands kernels the variable's buffer instead), so it has no [`Storage`]
    /// variant, is not in [`DType::ALL`], and storage, checkpoint and `TensorProto` code
    /// reject it with an error.
    ///
    /// [`Storage`]: crate::tensor::Storage
    Resource = 20,
}

impl DType {
    /// Every dtype whose values are tensors (has a [`Storage`](crate::tensor::Storage)
    /// variant), in enum order. [`DType::Resource`] is not among them: see
    /// [`DType::GRAPH_ONLY`] and [`DType::ALL_WITH_GRAPH_ONLY`].
    pub const ALL: [DType; 21] = [
        DType::Float,
        DType::Double,
        DType::Int32,
        DType::UInt8,
        DType::Int16,
        DType::Int8,
        DType::String,
        DType::Complex64,
        DType::Int64,
        DType::Bool,
        DType::QInt8,
        DType::QUInt8,
        DType::QInt32,
        DType::BFloat16,
        DType::QInt16,
        DType::QUInt16,
        DType::UInt16,
        DType::Complex128,
        DType::Half,
        DType::UInt32,
        DType::UInt64,
    ];

    /// The dtypes whose values never leave a running graph as bytes: [`DType::Resource`]
    /// (no tensor at all: the session hands kernels the variable's buffer) and
    /// [`DType::Variant`] (opaque run-time values, TensorLists).
    pub const GRAPH_ONLY: [DType; 2] = [DType::Resource, DType::Variant];

    /// [`DType::ALL`] followed by [`DType::GRAPH_ONLY`]: every dtype a graph may name.
    pub const ALL_WITH_GRAPH_ONLY: [DType; 23] = {
        let mut out = [DType::Resource; 23];
        let mut i = 0;
        while i < DType::ALL.len() {
            out[i] = DType::ALL[i];
            i += 1;
        }
        out[22] = DType::Variant;
        out
    };

    /// True for dtypes whose values are plain tensors that can be stored, zero-filled and
    /// serialized (everything but [`DType::Resource`] and [`DType::Variant`]).
    pub fn has_storage(self) -> bool {
        !matches!(self, DType::Resource | DType::Variant)
    }

    /// Errors with `Unimplemented` for a dtype that has no plain tensor values (`DT_RESOURCE`,
    /// `DT_VARIANT`),
    /// naming `what` (the tensor, entry or attr that has it); `Ok` otherwise.
    pub fn check_storage(self, what: &str) -> Result<()> {
        if self.has_storage() {
            return Ok(());
        }
        if self == DType::Variant {
            return Err(Error::unimplemented(format!(
                "{what} has dtype variant: tensorgraph's variant values (TensorLists) exist only while a graph runs, made by the TensorList ops; it does not serialize, store, zero-fill or feed them (build the list in the graph, from a plain tensor with TensorListFromTensor)"
            )));
        }
        Err(Error::unimplemented(format!(
            "{what} has dtype {}: tensorgraph keeps resource handles inside the session and never stores, feeds, fetches or serializes them as tensors; read the variable's value (its ReadVariableOp output) instead",
            self.name()
        )))
    }

    /// TensorFlow's enum number (`DT_FLOAT` = 1, ...).
    pub fn as_enum(self) -> i32 {
        self as i32
    }

    /// The dtype for a TensorFlow enum number. Reference dtypes (`DT_FLOAT_REF` = 101, ...)
    /// map to their base type; 20 is [`DType::Resource`]. Errors: `InvalidArgument` for
    /// numbers tensorgraph does not support.
    pub fn from_enum(v: i32) -> Result<DType> {
        let base = if v > 100 { v - 100 } else { v };
        DType::ALL_WITH_GRAPH_ONLY
            .iter()
            .copied()
            .find(|d| d.as_enum() == base)
            .ok_or_else(|| Error::invalid_argument(format!("unsupported TensorFlow DataType enum value {v}")))
    }

    /// Bytes per element in a checkpoint or `tensor_content`; `None` for `String` and
    /// `Resource` (which has no tensor values).
    pub fn size(self) -> Option<usize> {
        Some(match self {
            DType::Int8 | DType::UInt8 | DType::Bool | DType::QInt8 | DType::QUInt8 => 1,
            DType::Int16 | DType::UInt16 | DType::Half | DType::BFloat16 | DType::QInt16 | DType::QUInt16 => 2,
            DType::Float | DType::Int32 | DType::UInt32 | DType::QInt32 => 4,
            DType::Double | DType::Int64 | DType::UInt64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
            DType::String | DType::Resource | DType::Variant => return None,
        })
    }

    /// True for float32, float64, half and bfloat16.
    pub fn is_floating(self) -> bool {
        matches!(self, DType::Float | DType::Double | DType::Half | DType::BFloat16)
    }

    /// True for complex64 and complex128.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// True for the integer dtypes: int8 to int64 and uint8 to uint64 (not bool).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::Int8
                | DType::Int16
                | DType::Int32
                | DType::Int64
                | DType::UInt8
                | DType::UInt16
                | DType::UInt32
                | DType::UInt64
        )
    }

    /// True for TensorFlow's quantized types: qint8, quint8, qint16, quint16, qint32 (not
    /// counted by [`DType::is_integer`]; TensorFlow's `DType.is_quantized`).
    pub fn is_quantized(self) -> bool {
        matches!(self, DType::QInt8 | DType::QUInt8 | DType::QInt16 | DType::QUInt16 | DType::QInt32)
    }

    /// The name numpy and TensorFlow's Python API use (`float32`, `int64`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::Float => "float32",
            DType::Double => "float64",
            DType::Int32 => "int32",
            DType::UInt8 => "uint8",
            DType::Int16 => "int16",
            DType::Int8 => "int8",
            DType::String => "string",
            DType::Complex64 => "complex64",
            DType::Int64 => "int64",
            DType::Bool => "bool",
            DType::BFloat16 => "bfloat16",
            DType::UInt16 => "uint16",
            DType::Complex128 => "complex128",
            DType::Half => "float16",
            DType::UInt32 => "uint32",
            DType::UInt64 => "uint64",
            DType::QInt8 => "qint8",
            DType::QUInt8 => "quint8",
            DType::QInt16 => "qint16",
            DType::QUInt16 => "quint16",
            DType::QInt32 => "qint32",
            DType::Resource => "resource",
            DType::Variant => "variant",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
