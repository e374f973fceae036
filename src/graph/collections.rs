//! Standard collection names (`tf.GraphKeys`).

/// `tf.GraphKeys.GLOBAL_VARIABLES`
pub const GLOBAL_VARIABLES: &str = "variables";
/// `tf.GraphKeys.TRAINABLE_VARIABLES`
pub const TRAINABLE_VARIABLES: &str = "trainable_variables";
/// `tf.GraphKeys.TRAIN_OP`
pub const TRAIN_OP: &str = "train_op";
/// `tf.GraphKeys.GLOBAL_STEP`
pub const GLOBAL_STEP: &str = "global_step";
