//! Ready-made models built from tensorgraph's ops, as a user would write them: [`Mlp`], a
//! classifier with Adam, and [`Forecaster`], its inference graph restored from a checkpoint.
//! Used by the `demo` command, the benchmarks and the interop suite.

mod forecaster;
mod mlp;

pub use forecaster::{Forecaster, ForecasterSpec};
pub use mlp::{Mlp, MlpConfig};
