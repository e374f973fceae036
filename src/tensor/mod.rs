//! Tensors: [`DType`], [`Shape`] and dense [`Tensor`] storage (the bottom layer).

mod alloc;
mod convert;
mod dtype;
mod shape;
mod summary;
#[allow(clippy::module_inception)]
mod tensor;

pub use alloc::{check_alloc, checked_num_elements, oom_error, try_collect, try_filled, try_with_capacity};
pub use dtype::DType;
pub use shape::{fmt_dims, Shape};
pub use tensor::{Element, Storage, Tensor};
