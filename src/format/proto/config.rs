//! `tensorflow.ConfigProto` (`config.proto`): a session's options. Only the thread
//! fields are kept; the others (devices, GPU and graph options, ...) are skipped when
//! read, as tensorgraph has nothing to do with them.

/// `tensorflow.ConfigProto`, its thread-pool fields (`tf.compat.v1.ConfigProto`).
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
}
