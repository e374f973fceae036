#!/usr/bin/env python3
"""TensorFlow 2.21's graph and numbers for tests/sparse_grad_v2.rs: the gradient of
`tf.nn.embedding_lookup_sparse` (combiners sum, mean, sqrtn), which TensorFlow builds with the
SparseSegmentSumGradV2 / MeanGradV2 / SqrtNGradV2 ops (the reductions carry
`sparse_gradient=True`, so the gradient is an IndexedSlices over the distinct ids); the raw
ops with int64 ids and float64 values; and their kernels' errors.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_sparse_grad_v2.py

writes tests/data/sparse_grad_v2/embedding.pbtxt (the graph TensorFlow built) and
embedding.json (`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes them,
with its helpers). Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "sparse_grad_v2")


def embedding(outs, errs):
    rng = np.random.RandomState(5)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    params = dyn(rng.uniform(-1, 1, [6, 3]).astype(np.float32))
    # three rows of ids, with an id repeated in a row and across rows, and ids 2, 3, 5 unused
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], tf.constant([4, 1, 1, 0, 4, 4], tf.int64),
                          [3, 3])
    w = tf.constant(rng.uniform(-1, 1, [3, 3]).astype(np.float32))
    for combiner in ["sum", "mean", "sqrtn"]:
        emb = tf.nn.embedding_lookup_sparse(params, ids, None, combiner=combiner)
        outs[f"emb_{combiner}"] = emb
        g = tf.gradients(tf.reduce_sum(emb * w), params)[0]
        outs[f"grad_{combiner}_values"] = g.values
        outs[f"grad_{combiner}_indices"] = g.indices
        outs[f"grad_{combiner}_dense"] = tf.convert_to_tensor(g)
    grad = dyn(rng.uniform(-1, 1, [3, 2]), tf.float64)
    idx, seg = dyn([3, 1, 3, 0], tf.int64), dyn([0, 0, 2, 2], tf.int32)
    for name, op in [("sum", tf.raw_ops.SparseSegmentSumGradV2), ("mean", tf.raw_ops.SparseSegmentMeanGradV2),
                     ("sqrtn", tf.raw_ops.SparseSegmentSqrtNGradV2)]:
        out, unique = op(grad=grad, indices=idx, segment_ids=seg, dense_output_dim0=5)
        outs[f"raw_{name}_f64"] = out
        outs[f"raw_{name}_unique"] = unique
    empty = tf.raw_ops.SparseSegmentMeanGradV2(grad=grad, indices=dyn(np.zeros([0], np.int32), tf.int32),
                                               segment_ids=dyn(np.zeros([0], np.int32), tf.int32),
                                               dense_output_dim0=5)
    outs["raw_empty"], outs["raw_empty_unique"] = empty
    bad = lambda i, s, d: tf.raw_ops.SparseSegmentSumGradV2(  # noqa: E731
        grad=grad, indices=dyn(i, tf.int32), segment_ids=dyn(s, tf.int32), dense_output_dim0=dyn(d, tf.int32))[0]
    errs["raw_index_oob"] = bad([0, 7], [0, 1], 5)
    errs["raw_index_negative"] = bad([0, -1], [0, 1], 5)
    errs["raw_segment_oob"] = bad([0, 1], [0, 3], 5)
    errs["raw_dim0_vector"] = bad([0, 1], [0, 1], [5])


def main():
    nn4.write("embedding", embedding, dict)


if __name__ == "__main__":
    main()
