//! tensorgraph: TensorFlow 1.x graph mode in pure Rust.
#![warn(missing_docs)]

pub mod error;
pub mod io;
pub mod tensor;

pub use error::{Code, Error, Result};
pub use tensor::{DType, Shape, Tensor};
