//! The gradient TensorFlow builds for `tf.nn.embedding_lookup_sparse` (combiners sum, mean
//! and sqrtn): `SparseSegmentSumGradV2` / `MeanGradV2` / `SqrtNGradV2`, the rows of the
//! gradient at the distinct ids with those ids sorted. A graph TensorFlow 2.21 built
//! (`tests/data/sparse_grad_v2/embedding.pbtxt`, by `scripts/gen_sparse_grad_v2.py`) imports
//! and runs to TensorFlow's values (the embeddings, the gradient's values, indices and dense
//! form; the raw ops with int64 ids on float64), and the kernels refuse what TensorFlow's
//! refuse with its messages.

mod common;

const DIR: &str = "sparse_grad_v2";

#[test]
fn embedding_lookup_sparse_gradients_run_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "embedding", 20);
}

/// An id out of `[0, dense_output_dim0)`, a segment id past the gradient's rows, a vector
/// `dense_output_dim0`.
#[test]
fn the_v2_gradient_kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    common::refuses_as_tensorflow(DIR, "embedding", 4, |_, m| m.to_string());
}
