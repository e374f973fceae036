#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! Layers, bottom up: [`tensor`] and [`error`], [`format`](mod@format) (bytes only), [`graph`], [`ops`]
//! (the op registry and the builder functions), [`init`], [`session`], [`train`], [`io`],
//! [`models`]. ARCHITECTURE.md in the repository has the rules and how to add an op.
#![warn(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links, rustdoc::private_intra_doc_links, rustdoc::redundant_explicit_links)]

pub mod error;
pub mod format;
pub mod graph;
pub mod init;
pub mod io;
pub mod models;
pub mod ops;
pub mod session;
pub mod tensor;
pub mod train;

// The kernels' dtype-dispatch and element-function macros, by path (`crate::dispatch_numeric!`)
// and for the crate only.
pub(crate) use ops::kernels::{dispatch_float, dispatch_numeric};
pub(crate) use ops::math::binary::{__map2, binary_fns};
pub(crate) use ops::math::unary::{__map1, unary_fns};

pub use error::{Code, Error, Result};
pub use graph::{Graph, Operation, Output, Reuse, Scope, Variable};
pub use ops::VariableOptions;
pub use session::{Session, SessionOptions, MAX_THREADS};
pub use tensor::{DType, Shape, Tensor};
