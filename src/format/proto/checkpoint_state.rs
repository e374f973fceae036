//! `tensorflow.CheckpointState` (`checkpoint_state.proto`): the message of a checkpoint
//! directory's `checkpoint` file (formats.md §2), written in the text format.

/// `tensorflow.CheckpointState`: the newest checkpoint and those not yet deleted.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CheckpointState {
    /// Prefix of the newest checkpoint (field 1).
    #[prost(string, tag = "1")]
    pub model_checkpoint_path: String,
    /// Prefixes of the kept checkpoints, oldest first, the last being the newest (field 2).
    #[prost(string, repeated, tag = "2")]
    pub all_model_checkpoint_paths: Vec<String>,
    /// Seconds since the epoch at which each of `all_model_checkpoint_paths` was saved (field 3;
    /// written by `tf.train.CheckpointManager`, empty for `tf.train.Saver`).
    #[prost(double, repeated, tag = "3")]
    pub all_model_checkpoint_timestamps: Vec<f64>,
    /// Time of the last checkpoint kept by `keep_checkpoint_every_n_hours` (field 4; 0 = unset).
    #[prost(double, tag = "4")]
    pub last_preserved_timestamp: f64,
}
