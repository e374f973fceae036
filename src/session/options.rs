//! [`SessionOptions`]: what a session is made with (TensorFlow's `SessionOptions`, whose
//! `config` is a `ConfigProto`).

use crate::error::{Error, Result};
use crate::format::proto::{ConfigProto, GraphOptions, RewriterConfig};
use prost::Message;

/// The most threads a session's pools may have (`intra_op_parallelism_threads`,
/// `inter_op_parallelism_threads`): more than any machine's cores; a larger count spends
/// seconds creating threads that only wait.
pub const MAX_THREADS: usize = 1024;

/// Options of [`Session::with_options`](crate::session::Session::with_options), as
/// TensorFlow's `SessionOptions`: its `config` is TensorFlow's `ConfigProto` (the thread
/// fields and `graph_options.rewrite_options`). The default is TensorFlow's: every field
/// 0/false, that is kernels split work over one thread per core, in a pool shared by every
/// session of the process, and run plans are optimised (see
/// [`SessionOptions::without_graph_optimization`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// `tf.compat.v1.ConfigProto`'s thread fields.
    pub config: ConfigProto,
}

impl SessionOptions {
    /// TensorFlow's defaults (see [`SessionOptions`]).
    pub fn new() -> SessionOptions {
        SessionOptions::default()
    }

    /// Options with `threads` intra-op and inter-op threads (0 = one per core), as
    /// `ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)`.
    /// Errors: `InvalidArgument` when `threads` exceeds [`MAX_THREADS`].
    pub fn with_threads(threads: usize) -> Result<SessionOptions> {
        if threads > MAX_THREADS {
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            return Err(Error::invalid_argument(format!(
                "{threads} threads is more than {MAX_THREADS}; use 0 (one thread per core: {cores} here) or a count from 1 to {MAX_THREADS}"
            )));
        }
        let n = i32::try_from(threads)
            .map_err(|_| Error::invalid_argument(format!("{threads} threads is more than a ConfigProto holds")))?;
        Ok(SessionOptions {
            config: ConfigProto {
                intra_op_parallelism_threads: n,
                inter_op_parallelism_threads: n,
                use_per_session_threads: false,
                graph_options: None,
            },
        })
    }

    /// These options with every graph optimiser off, as TensorFlow's
    /// `ConfigProto(graph_options=GraphOptions(rewrite_options=RewriterConfig(disable_meta_optimizer=True)))`:
    /// run plans then run the graph's ops as written (no constant folding, batch-norm
    /// folding, fusion, Identity/NoOp removal or common subexpression elimination). Each
    /// optimiser can also be turned off alone through the `RewriterConfig` toggles
    /// (`constant_folding`, `remapping`, `dependency_optimization`,
    /// `common_subgraph_elimination`, `arithmetic_optimization` set to `Toggle::Off`).
    /// `remapping`'s op fusion (conv/matmul + bias or inference batch norm + activation,
    /// bitwise the separate ops' values) runs by default; its batch-norm folding into the
    /// weights (which rounds them) only when `remapping` is set to `Toggle::On`.
    pub fn without_graph_optimization(mut self) -> SessionOptions {
        let graph = self.config.graph_options.get_or_insert_with(GraphOptions::default);
        graph.rewrite_options.get_or_insert_with(RewriterConfig::default).disable_meta_optimizer = true;
        self
    }

    /// Options from a serialized `ConfigProto` (`config.SerializeToString()` in Python);
    /// fields other than the thread fields and the `RewriterConfig` toggles are skipped.
    /// Errors: `InvalidArgument` when the bytes are not a `ConfigProto`, or
    /// `intra_op_parallelism_threads` is negative.
    pub fn from_config_bytes(bytes: &[u8]) -> Result<SessionOptions> {
        let config = ConfigProto::decode(bytes)
            .map_err(|e| Error::invalid_argument(format!("cannot parse the bytes as a ConfigProto: {e}")))?;
        let options = SessionOptions { config };
        options.check()?;
        Ok(options)
    }

    /// Errors: `InvalidArgument` when `intra_op_parallelism_threads` is negative, or it or
    /// `inter_op_parallelism_threads` is above [`MAX_THREADS`].
    pub(crate) fn check(&self) -> Result<()> {
        for (name, n, min) in [
            ("intra_op_parallelism_threads", self.config.intra_op_parallelism_threads, 0),
            ("inter_op_parallelism_threads", self.config.inter_op_parallelism_threads, i32::MIN),
        ] {
            if n < min || n as i64 > MAX_THREADS as i64 {
                let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
                return Err(Error::invalid_argument(format!(
                    "ConfigProto.{name} is {n}; use 0 (one thread per core: {cores} here) or a count from 1 to {MAX_THREADS}"
                )));
            }
        }
        Ok(())
    }
}
