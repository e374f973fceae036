//! Tensors: [`DType`], [`Shape`] and dense [`Tensor`] storage (the bottom layer).

mod dtype;
mod shape;
mod summary;
#[allow(clippy::module_inception)]
mod tensor;

pub use dtype::DType;
pub use shape::{fmt_dims, Shape};
pub use tensor::{check_alloc, checked_num_elements, Element, Storage, Tensor};
