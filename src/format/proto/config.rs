//! `tensorflow.ConfigProto` (`config.proto`): a session's options. Only the thread
//! fields and the graph optimiser's switches (`graph_options.rewrite_options`, TensorFlow's
//! `RewriterConfig` in `rewriter_config.proto`) are kept; the others (devices, GPU options,
//! ...) are skipped when read, as tensorgraph has nothing to do with them.

/// `tensorflow.ConfigProto`, its thread-pool fields and graph options
/// (`tf.compat.v1.ConfigProto`).
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct ConfigProto {
    /// Threads a single op may split its work over (field 2; 0 = one per core, the
    /// default, as TensorFlow).
    #[prost(int32, tag = "2")]
    pub intra_op_parallelism_threads: i32,
    /// Threads independent ops run on (field 5; 0 = one per core, as TensorFlow;
    /// negative = the calling thread only).
    #[prost(int32, tag = "5")]
    pub inter_op_parallelism_threads: i32,
    /// Give this session its own threads instead of sharing the process-wide pool
    /// (field 9).
    #[prost(bool, tag = "9")]
    pub use_per_session_threads: bool,
    /// Graph options (field 10): the graph optimiser's switches.
    #[prost(message, optional, tag = "10")]
    pub graph_options: Option<GraphOptions>,
}

/// `tensorflow.GraphOptions`: only its `rewrite_options` (field 10) are kept.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct GraphOptions {
    /// The graph optimiser's switches (TensorFlow's Grappler `RewriterConfig`).
    #[prost(message, optional, tag = "10")]
    pub rewrite_options: Option<RewriterConfig>,
}

/// `tensorflow.RewriterConfig.Toggle`: `DEFAULT` and `ON` run an optimiser, `OFF` skips it
/// (the others run it as `ON` does here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Toggle {
    /// The optimiser's default (on, for the ones tensorgraph has).
    Default = 0,
    /// On.
    On = 1,
    /// Off.
    Off = 2,
    /// On, more aggressively (TensorFlow); as `On` here.
    Aggressive = 3,
    /// TensorFlow's MLIR variant; as `On` here.
    ExperimentalMlir = 4,
    /// TensorFlow's MLIR and Grappler variants; as `On` here.
    ExperimentalBoth = 5,
}

/// `tensorflow.RewriterConfig`, the fields for the optimisers tensorgraph has (see
/// `ARCHITECTURE.md`, "Graph optimisation"); other fields are skipped when read.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct RewriterConfig {
    /// Constant folding (field 3).
    #[prost(enumeration = "Toggle", tag = "3")]
    pub constant_folding: i32,
    /// Arithmetic optimisations (field 7); `OFF` also turns off common subexpression
    /// elimination, which TensorFlow's arithmetic optimiser does (`DedupComputations`).
    #[prost(enumeration = "Toggle", tag = "7")]
    pub arithmetic_optimization: i32,
    /// Identity and NoOp removal (field 8).
    #[prost(enumeration = "Toggle", tag = "8")]
    pub dependency_optimization: i32,
    /// Op fusion (field 14): batch norms folded into convolutions, `_FusedConv2D`,
    /// `_FusedMatMul`.
    #[prost(enumeration = "Toggle", tag = "14")]
    pub remapping: i32,
    /// Common subexpression elimination (field 24).
    #[prost(enumeration = "Toggle", tag = "24")]
    pub common_subgraph_elimination: i32,
    /// Turns every optimiser off (field 19).
    #[prost(bool, tag = "19")]
    pub disable_meta_optimizer: bool,
}
