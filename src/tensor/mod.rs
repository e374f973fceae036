//! Tensors: [`DType`], [`Shape`] and dense [`Tensor`] storage (the bottom layer).

mod alloc;
mod convert;
mod dtype;
mod pool;
mod quantized;
mod shape;
mod summary;
#[allow(clippy::module_inception)]
mod tensor;
mod variant;

// checked sizes and fallible allocation for the layers above (and the CLI); not the
// tensor API users need, so kept out of the docs
#[doc(hidden)]
pub use alloc::{check_alloc, checked_num_elements, oom_error, try_collect, try_filled, try_with_capacity};
pub use dtype::DType;
pub use pool::{pooled_bytes, release_pooled_buffers, PoolUser, MAX_BUFFERS, MAX_POOLED_BYTES, MIN_POOLED_BYTES};
pub use quantized::{QInt16, QInt32, QInt8, QUInt16, QUInt8};
#[doc(hidden)]
pub use shape::fmt_dims;
pub use shape::Shape;
pub use tensor::{Element, Storage, Tensor};
pub use variant::{TensorList, VariantValue};
