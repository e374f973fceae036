//! A SavedModel signature as plain values: its key, method and the inputs and outputs by
//! key, each with its tensor name, dtype and shape (what `saved_model_cli show` lists).

use crate::format::proto::{data_type_name, dtype_from_proto, SignatureDef, TensorInfo, TensorInfoEncoding};
use crate::tensor::{DType, Shape};
use std::fmt;

/// One input or output of a [`Signature`] (a `TensorInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct TensorSpec {
    /// The key callers use (`"x"`).
    pub key: String,
    /// The tensor's name in the graph (`"x:0"`); for a sparse tensor its values tensor.
    pub name: String,
    /// The dtype (`None` for one tensorgraph does not support; [`TensorSpec::dtype_name`]
    /// still names it).
    pub dtype: Option<DType>,
    /// TensorFlow's name of the `DataType` (`DT_FLOAT`).
    pub dtype_name: String,
    /// The static shape (unknown dimensions as `None`).
    pub shape: Shape,
    /// True for a sparse (`coo_sparse`) or composite tensor, which tensorgraph does not
    /// feed or fetch by key.
    pub is_sparse: bool,
}

impl TensorSpec {
    /// The spec of `info` under `key`.
    pub fn from_tensor_info(key: &str, info: &TensorInfo) -> TensorSpec {
        let (name, is_sparse) = match &info.encoding {
            Some(TensorInfoEncoding::Name(n)) => (n.clone(), false),
            Some(TensorInfoEncoding::CooSparse(c)) => (c.values_tensor_name.clone(), true),
            Some(TensorInfoEncoding::CompositeTensor(_)) | None => (String::new(), true),
        };
        TensorSpec {
            key: key.to_string(),
            name,
            dtype: dtype_from_proto(info.dtype).ok(),
            dtype_name: data_type_name(info.dtype),
            shape: info.tensor_shape.as_ref().and_then(|s| s.to_shape().ok()).unwrap_or_else(Shape::unknown),
            is_sparse,
        }
    }
}

impl fmt::Display for TensorSpec {
    /// `x: x:0 DT_FLOAT (-1, 3)`, the shape as `saved_model_cli` writes it (`-1` unknown,
    /// `unknown_rank` for an unknown rank).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = match self.shape.dims() {
            None => "unknown_rank".to_string(),
            Some(d) => {
                let dims: Vec<String> = d.iter().map(|x| x.map_or("-1".to_string(), |v| v.to_string())).collect();
                if dims.len() == 1 {
                    format!("({},)", dims[0])
                } else {
                    format!("({})", dims.join(", "))
                }
            }
        };
        write!(f, "{}: {} {} {shape}", self.key, self.name, self.dtype_name)
    }
}

/// A signature of a SavedModel's meta graph (a `SignatureDef` under its key).
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    /// The key (`"serving_default"`).
    pub key: String,
    /// `"tensorflow/serving/predict"`, `".../classify"`, `".../regress"`, or empty.
    pub method_name: String,
    /// The inputs, sorted by key.
    pub inputs: Vec<TensorSpec>,
    /// The outputs, sorted by key.
    pub outputs: Vec<TensorSpec>,
}

impl Signature {
    /// The signature `def` under `key`.
    pub fn from_def(key: &str, def: &SignatureDef) -> Signature {
        Signature {
            key: key.to_string(),
            method_name: def.method_name.clone(),
            inputs: def.inputs.iter().map(|(k, v)| TensorSpec::from_tensor_info(k, v)).collect(),
            outputs: def.outputs.iter().map(|(k, v)| TensorSpec::from_tensor_info(k, v)).collect(),
        }
    }

    /// The input called `key`.
    pub fn input(&self, key: &str) -> Option<&TensorSpec> {
        self.inputs.iter().find(|s| s.key == key)
    }

    /// The output called `key`.
    pub fn output(&self, key: &str) -> Option<&TensorSpec> {
        self.outputs.iter().find(|s| s.key == key)
    }
}

impl fmt::Display for Signature {
    /// Several lines: `signature 'serving_default' (tensorflow/serving/predict)`, then one
    /// line per input and output (`  input  x: x:0 DT_FLOAT (-1, 3)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let method = if self.method_name.is_empty() { String::new() } else { format!(" ({})", self.method_name) };
        write!(f, "signature '{}'{method}", self.key)?;
        for s in &self.inputs {
            write!(f, "\n  input  {s}")?;
        }
        for s in &self.outputs {
            write!(f, "\n  output {s}")?;
        }
        Ok(())
    }
}
