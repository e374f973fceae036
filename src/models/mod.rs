//! Ready-made models built from tensorgraph's ops, as a user would write them: [`Mlp`], a
//! classifier with Adam, and [`Forecaster`], its inference graph restored from a checkpoint;
//! [`Cnn`], a convolutional classifier with batch normalization under a `training` flag
//! ([`layers::batch_normalization`]). Used by the `demo` command, the benchmarks and the
//! interop suite.

mod cnn;
mod forecaster;
pub mod layers;
mod mlp;

pub use cnn::{Cnn, CnnConfig};
pub use forecaster::{Forecaster, ForecasterSpec};
pub use mlp::{Mlp, MlpConfig};
