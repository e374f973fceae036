//! `DataType` (as `i32`, formats.md §3.1) and `TensorShapeProto` (§3.2), with conversions
//! to tensorgraph's [`DType`] and [`Shape`].

use crate::error::{Error, Result};
use crate::tensor::{DType, Shape};

/// `DT_INVALID` (0): no dtype.
pub const DT_INVALID: i32 = 0;
/// `DT_RESOURCE` (20): a resource handle (resource variables).
pub const DT_RESOURCE: i32 = 20;
/// `DT_VARIANT` (21): a variant (TensorList, datasets, ...).
pub const DT_VARIANT: i32 = 21;
/// Added to a base `DataType` to make its reference type (`DT_FLOAT_REF` = 101).
pub const DT_REF_OFFSET: i32 = 100;

const NAMES: [&str; 34] = [
    "DT_INVALID",
    "DT_FLOAT",
    "DT_DOUBLE",
    "DT_INT32",
    "DT_UINT8",
    "DT_INT16",
    "DT_INT8",
    "DT_STRING",
    "DT_COMPLEX64",
    "DT_INT64",
    "DT_BOOL",
    "DT_QINT8",
    "DT_QUINT8",
    "DT_QINT32",
    "DT_BFLOAT16",
    "DT_QINT16",
    "DT_QUINT16",
    "DT_UINT16",
    "DT_COMPLEX128",
    "DT_HALF",
    "DT_RESOURCE",
    "DT_VARIANT",
    "DT_UINT32",
    "DT_UINT64",
    "DT_FLOAT8_E5M2",
    "DT_FLOAT8_E4M3FN",
    "DT_FLOAT8_E4M3FNUZ",
    "DT_FLOAT8_E4M3B11FNUZ",
    "DT_FLOAT8_E5M2FNUZ",
    "DT_INT4",
    "DT_UINT4",
    "DT_INT2",
    "DT_UINT2",
    "DT_FLOAT4_E2M1FN",
];

/// TensorFlow's name of a `DataType` number (`DT_FLOAT`, `DT_FLOAT_REF`, `DT_RESOURCE`);
/// `DataType(<n>)` for numbers TensorFlow 2.21 does not define.
pub fn data_type_name(v: i32) -> String {
    let (base, suffix) = if v > DT_REF_OFFSET { (v - DT_REF_OFFSET, "_REF") } else { (v, "") };
    match usize::try_from(base).ok().and_then(|b| NAMES.get(b)) {
        Some(n) if !(suffix == "_REF" && base == 0) => format!("{n}{suffix}"),
        _ => format!("DataType({v})"),
    }
}

/// The tensorgraph dtype of a `DataType` number; a reference type (`DT_FLOAT_REF`) maps to
/// its base type; `DT_RESOURCE` is [`DType::Resource`] and `DT_VARIANT` [`DType::Variant`]
/// (graph-level dtypes: valid in attrs and op signatures, never as serialized tensor contents). Errors: `Unimplemented` naming the type for
/// ones tensorgraph lacks (8/4-bit float types),
/// `InvalidArgument` for `DT_INVALID` and numbers TensorFlow does not define.
pub fn dtype_from_proto(v: i32) -> Result<DType> {
    if let Ok(d) = DType::from_enum(v) {
        if v > 0 {
            return Ok(d);
        }
    }
    let name = data_type_name(v);
    if v == DT_INVALID || name.starts_with("DataType(") {
        Err(Error::invalid_argument(format!("invalid TensorFlow DataType {name}")))
    } else {
        Err(Error::unimplemented(format!("tensorgraph does not support the TensorFlow dtype {name}")))
    }
}

/// The `DataType` number of a tensorgraph dtype (`DT_FLOAT` = 1).
pub fn dtype_to_proto(d: DType) -> i32 {
    d.as_enum()
}

/// `tensorflow.TensorShapeProto.Dim`: one dimension.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct Dim {
    /// Size of the dimension; -1 = unknown.
    #[prost(int64, tag = "1")]
    pub size: i64,
    /// Optional name of the dimension.
    #[prost(string, tag = "2")]
    pub name: String,
}

/// `tensorflow.TensorShapeProto` (formats.md §3.2). Field 1 is unused by TensorFlow.
#[derive(Clone, PartialEq, Eq, Hash, prost::Message)]
pub struct TensorShapeProto {
    /// The dimensions, outermost first; empty for a scalar.
    #[prost(message, repeated, tag = "2")]
    pub dim: Vec<Dim>,
    /// True when the rank is unknown (then `dim` is empty).
    #[prost(bool, tag = "3")]
    pub unknown_rank: bool,
}

impl TensorShapeProto {
    /// The proto of a fully known shape.
    pub fn from_dims(dims: &[usize]) -> Self {
        TensorShapeProto {
            dim: dims.iter().map(|&d| Dim { size: d as i64, name: String::new() }).collect(),
            unknown_rank: false,
        }
    }

    /// The proto of a possibly partial shape: unknown rank as `unknown_rank: true`,
    /// unknown dimensions as size -1.
    pub fn from_shape(s: &Shape) -> Self {
        match s.dims() {
            None => TensorShapeProto { dim: Vec::new(), unknown_rank: true },
            Some(d) => TensorShapeProto {
                dim: d.iter().map(|x| Dim { size: x.map_or(-1, |v| v as i64), name: String::new() }).collect(),
                unknown_rank: false,
            },
        }
    }

    /// The partial shape: `unknown_rank` as an unknown rank, size -1 as an unknown
    /// dimension. Errors: `InvalidArgument` for a size below -1.
    pub fn to_shape(&self) -> Result<Shape> {
        if self.unknown_rank {
            return Ok(Shape::unknown());
        }
        let dims = self
            .dim
            .iter()
            .map(|d| match d.size {
                -1 => Ok(None),
                s if s >= 0 => usize::try_from(s).map(Some).map_err(|_| bad_dim(s)),
                s => Err(bad_dim(s)),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Shape::partial(&dims))
    }

    /// The dimensions of a fully known shape. Errors: `InvalidArgument` when the rank or
    /// a dimension is unknown or negative.
    pub fn to_dims(&self) -> Result<Vec<usize>> {
        let s = self.to_shape()?;
        s.to_vec().ok_or_else(|| Error::invalid_argument(format!("a tensor needs a fully defined shape, got {s}")))
    }
}

fn bad_dim(s: i64) -> Error {
    Error::invalid_argument(format!("Shape has a dimension of size {s}; sizes must be >= -1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_dtypes() {
        assert_eq!(data_type_name(1), "DT_FLOAT");
        assert_eq!(data_type_name(101), "DT_FLOAT_REF");
        assert_eq!(data_type_name(20), "DT_RESOURCE");
        assert_eq!(data_type_name(99), "DataType(99)");
        assert_eq!(dtype_from_proto(101).unwrap(), DType::Float);
        assert_eq!(dtype_from_proto(20).unwrap(), DType::Resource);
        assert_eq!(dtype_to_proto(DType::Resource), DT_RESOURCE);
        assert_eq!(dtype_from_proto(21).unwrap(), DType::Variant);
        assert_eq!(dtype_from_proto(24).unwrap_err().code, crate::Code::Unimplemented);
        assert_eq!(dtype_from_proto(0).unwrap_err().code, crate::Code::InvalidArgument);
        for d in DType::ALL_WITH_GRAPH_ONLY {
            assert_eq!(dtype_from_proto(dtype_to_proto(d)).unwrap(), d);
        }
    }

    #[test]
    fn shapes() {
        let s = Shape::partial(&[None, Some(3)]);
        assert_eq!(TensorShapeProto::from_shape(&s).to_shape().unwrap(), s);
        assert_eq!(TensorShapeProto::from_shape(&Shape::unknown()).to_shape().unwrap(), Shape::unknown());
        assert!(TensorShapeProto { dim: vec![Dim { size: -2, name: String::new() }], unknown_rank: false }
            .to_shape()
            .is_err());
    }
}
