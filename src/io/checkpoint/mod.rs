//! TensorFlow V2 checkpoints (tensor bundles). Being written.
