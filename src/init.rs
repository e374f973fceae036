//! Variable initializers (`tf.zeros_initializer`, `tf.glorot_uniform_initializer`, ...).
//! Each builds the ops producing an initial value of a given shape and dtype.

use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::ops;
use crate::tensor::{DType, Tensor};

/// How a variable's initial value is made. Random initializers take an op seed
/// (`None`: nondeterministic, as TensorFlow without seeds).
#[derive(Debug, Clone, PartialEq)]
pub enum Initializer {
    /// `tf.zeros_initializer()`: a `Const` named `zeros`.
    Zeros,
    /// `tf.ones_initializer()`: a `Const` named `ones`.
    Ones,
    /// `tf.constant_initializer(v)`: every element `v`.
    Constant(f64),
    /// A full tensor value (its shape must equal the variable's).
    Value(Tensor),
    /// `tf.random_uniform_initializer(minval, maxval, seed)`.
    RandomUniform {
        /// Lower bound (inclusive).
        minval: f64,
        /// Upper bound (exclusive).
        maxval: f64,
        /// Op seed.
        seed: Option<u64>,
    },
    /// `tf.random_normal_initializer(mean, stddev, seed)`.
    RandomNormal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        stddev: f64,
        /// Op seed.
        seed: Option<u64>,
    },
    /// `tf.truncated_normal_initializer(mean, stddev, seed)`.
    TruncatedNormal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        stddev: f64,
        /// Op seed.
        seed: Option<u64>,
    },
    /// `tf.glorot_uniform_initializer(seed)`: uniform in ±sqrt(6 / (fan_in + fan_out)),
    /// the default of `get_variable` for float variables.
    GlorotUniform {
        /// Op seed.
        seed: Option<u64>,
    },
}

/// `tf.zeros_initializer()`.
pub fn zeros() -> Initializer {
    Initializer::Zeros
}
/// `tf.ones_initializer()`.
pub fn ones() -> Initializer {
    Initializer::Ones
}
/// `tf.constant_initializer(v)`.
pub fn constant(v: f64) -> Initializer {
    Initializer::Constant(v)
}
/// `tf.glorot_uniform_initializer()` (unseeded).
pub fn glorot_uniform() -> Initializer {
    Initializer::GlorotUniform { seed: None }
}
/// `tf.glorot_uniform_initializer(seed)`.
pub fn glorot_uniform_seeded(seed: u64) -> Initializer {
    Initializer::GlorotUniform { seed: Some(seed) }
}
/// `tf.random_uniform_initializer(minval, maxval, seed)`.
pub fn random_uniform(minval: f64, maxval: f64, seed: Option<u64>) -> Initializer {
    Initializer::RandomUniform { minval, maxval, seed }
}
/// `tf.random_normal_initializer(mean, stddev, seed)`.
pub fn random_normal(mean: f64, stddev: f64, seed: Option<u64>) -> Initializer {
    Initializer::RandomNormal { mean, stddev, seed }
}
/// `tf.truncated_normal_initializer(mean, stddev, seed)`.
pub fn truncated_normal(mean: f64, stddev: f64, seed: Option<u64>) -> Initializer {
    Initializer::TruncatedNormal { mean, stddev, seed }
}

/// (fan_in, fan_out) of a weight shape, as TensorFlow's `_compute_fans`.
pub fn fans(dims: &[usize]) -> (f64, f64) {
    match dims.len() {
        0 => (1.0, 1.0),
        1 => (dims[0] as f64, dims[0] as f64),
        2 => (dims[0] as f64, dims[1] as f64),
        n => {
            // in f64: a product of dimensions may not fit in usize
            let receptive: f64 = dims[..n - 2].iter().map(|&d| d as f64).product();
            (dims[n - 2] as f64 * receptive, dims[n - 1] as f64 * receptive)
        }
    }
}

impl Initializer {
    /// The default initializer of `get_variable`: Glorot uniform for floats, zeros otherwise
    /// (integers, bool, and empty strings for string variables, as TensorFlow; `get_variable`
    /// itself refuses a complex variable without an initializer, as TensorFlow does).
    pub fn default_for(dtype: DType) -> Initializer {
        if dtype.is_floating() {
            glorot_uniform()
        } else {
            Initializer::Zeros
        }
    }

    /// Adds the ops making a value of `dims` and `dtype` under scope `s`. `Zeros` makes
    /// every dtype's zero (false, empty strings).
    ///
    /// Errors: `InvalidArgument` when a `Value` has another shape or dtype, when `Ones` or
    /// `Constant` is asked for a string or complex value, or a random initializer for a
    /// non-float dtype; `ResourceExhausted` when the constant's memory cannot be had.
    pub fn build(&self, s: &Scope, dims: &[usize], dtype: DType) -> Result<Output> {
        let fill = |name: &str, v: f64| -> Result<Output> {
            if matches!(dtype, DType::String | DType::Complex64 | DType::Complex128) {
                return Err(Error::invalid_argument(format!(
                    "Initializer::{self:?} makes numbers, not {dtype} values: give a {dtype} variable Initializer::Value (or Zeros)"
                )));
            }
            ops::constant(&s.named(name), Tensor::filled(&Tensor::from_f64(dtype, &[], &[v])?, dims)?)
        };
        match self {
            Initializer::Zeros => ops::constant(&s.named("zeros"), Tensor::try_zeros(dtype, dims)?),
            Initializer::Ones => fill("ones", 1.0),
            Initializer::Constant(v) => fill("Const", *v),
            Initializer::Value(t) => {
                if t.shape() != dims || t.dtype() != dtype {
                    return Err(Error::invalid_argument(format!(
                        "initial value has dtype {} and shape {:?}, the variable wants {dtype} {dims:?}",
                        t.dtype(),
                        t.shape()
                    )));
                }
                ops::constant(&s.named("Const"), t.clone())
            }
            Initializer::RandomUniform { minval, maxval, seed } => {
                ops::random_uniform(s, dims, *minval, *maxval, dtype, *seed)
            }
            Initializer::RandomNormal { mean, stddev, seed } => {
                ops::random_normal(s, dims, *mean, *stddev, dtype, *seed)
            }
            Initializer::TruncatedNormal { mean, stddev, seed } => {
                ops::truncated_normal(s, dims, *mean, *stddev, dtype, *seed)
            }
            Initializer::GlorotUniform { seed } => {
                let (fan_in, fan_out) = fans(dims);
                let limit = (6.0 / (fan_in + fan_out).max(1.0)).sqrt();
                ops::random_uniform(s, dims, -limit, limit, dtype, *seed)
            }
        }
    }
}
