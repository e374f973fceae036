#!/usr/bin/env python3
"""TensorFlow 2.21's numbers for tests/ops_gather_scatter_nd.rs (GatherNd, ScatterNd:
values, shapes, error messages, the op types of their gradients), printed as literals.

    TF_CPP_MIN_LOG_LEVEL=2 ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nd.py [space_batch|dilated]

With no argument: GatherNd/ScatterNd; `space_batch`: SpaceToBatchND/BatchToSpaceND
(tests/ops_space_batch.rs); `depth_roll`: SpaceToDepth, DepthToSpace, Roll
(tests/ops_depth_roll.rs); `dilated`: writes tests/data/dilated_conv.pbtxt (dilated
convolutions and their gradient, as TensorFlow writes them) and prints its outputs.

Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()


def show(name, build):
    g = tf.Graph()
    with g.as_default():
        try:
            out = build()
        except ValueError as e:
            print(f"{name}: build error: {str(e).splitlines()[0]}")
            return
        with tf.Session() as s:
            try:
                v = np.asarray(s.run(out))
                print(f"{name}: static {out.shape} shape {list(v.shape)} values {v.reshape(-1).tolist()}")
            except tf.errors.OpError as e:
                msg = [m for m in e.message.splitlines() if m.strip() and not m[0].isspace()
                       and "Graph execution" not in m and "Detected at node" not in m and not m.startswith("Node:")][0]
                print(f"{name}: run error {type(e).__name__}: {msg}")


def grad_types(name, build):
    g = tf.Graph()
    with g.as_default():
        x, y = build()
        tf.gradients(y, x)
        types = sorted({op.type for op in g.get_operations() if "_grad/" in op.name})
        print(f"{name} gradient op types: {types}")


def main():
    p = lambda: tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))  # noqa: E731
    show("gnd_full", lambda: tf.gather_nd(p(), [[1, 2, 3], [0, 1, 0]]))
    show("gnd_rows", lambda: tf.gather_nd(p(), [[[1], [0]], [[1], [1]]]))
    show("gnd_slices", lambda: tf.gather_nd(p(), [[0, 2], [1, 0]]))
    show("gnd_empty_last", lambda: tf.gather_nd(p(), np.zeros([2, 0], np.int32)))
    show("gnd_int64", lambda: tf.gather_nd(tf.constant([[1, 2], [3, 4]], tf.int64), tf.constant([[1, 0]], tf.int64)))
    show("gnd_oob", lambda: tf.gather_nd(p(), [[0, 1], [1, 3]]))
    show("gnd_oob2", lambda: tf.gather_nd(p(), [[[0, 1]], [[-1, 0]]]))
    show("gnd_too_deep", lambda: tf.gather_nd(p(), [[0, 1, 2, 3]]))
    show("gnd_scalar_idx", lambda: tf.gather_nd(p(), 1))
    sh = lambda v: tf.constant(v, tf.int32)  # noqa: E731
    show("snd_1d", lambda: tf.scatter_nd([[4], [3], [1], [7], [4]], tf.constant([9., 10., 11., 12., 13.]), sh([8])))
    show("snd_slices", lambda: tf.scatter_nd([[0], [2]], tf.constant([[5., 5.], [6., 7.]]), sh([4, 2])))
    show("snd_int", lambda: tf.scatter_nd(tf.constant([[1, 1], [0, 0], [1, 1]], tf.int64), tf.constant([1, 2, 3]),
                                          tf.constant([2, 2], tf.int64)))
    show("snd_oob", lambda: tf.scatter_nd([[1], [8]], tf.constant([1., 2.]), sh([8])))
    show("snd_bad_updates", lambda: tf.scatter_nd([[1], [2]], tf.constant([1., 2., 3.]), sh([8])))
    show("snd_fed_shape", lambda: tf.scatter_nd([[1], [2]], tf.constant([1., 2.]),
                                               tf.placeholder_with_default(sh([4]), [None])))
    grad_types("GatherNd", lambda: (lambda x: (x, tf.gather_nd(x, [[0, 1], [1, 2]])))(
        tf.placeholder(tf.float32, [2, 3, 4])))
    grad_types("ScatterNd", lambda: (lambda u: (u, tf.scatter_nd([[0], [2]], u, [4, 2])))(
        tf.placeholder(tf.float32, [2, 2])))


if len(sys.argv) == 1:
    main()


def space_batch():
    """SpaceToBatchND / BatchToSpaceND values and errors."""
    x = lambda: tf.constant(np.arange(1, 33, dtype=np.float32).reshape(2, 4, 2, 2))  # noqa: E731
    show("s2b", lambda: tf.space_to_batch_nd(x(), [2, 2], [[0, 0], [1, 1]]))
    show("s2b_1d", lambda: tf.space_to_batch_nd(tf.constant(np.arange(1, 7).reshape(1, 6, 1)), [3], [[2, 1]]))
    show("s2b_indiv", lambda: tf.space_to_batch_nd(x(), [3, 1], [[0, 0], [0, 0]]))
    show("s2b_neg", lambda: tf.space_to_batch_nd(x(), [2, 1], [[0, -1], [0, 0]]))
    show("s2b_block0", lambda: tf.space_to_batch_nd(x(), [0, 1], [[0, 0], [0, 0]]))
    show("b2s", lambda: tf.batch_to_space_nd(x(), [2, 1], [[1, 2], [0, 1]]))
    show("b2s_int", lambda: tf.batch_to_space_nd(tf.constant(np.arange(8).reshape(4, 1, 2, 1)), [2, 2], [[0, 0], [0, 1]]))
    show("b2s_indiv", lambda: tf.batch_to_space_nd(x(), [3, 1], [[0, 0], [0, 0]]))
    show("b2s_negcrop", lambda: tf.batch_to_space_nd(x(), [1, 1], [[0, -1], [0, 0]]))
    show("b2s_crop", lambda: tf.batch_to_space_nd(x(), [1, 1], [[3, 3], [0, 0]]))
    grad_types("SpaceToBatchND", lambda: (lambda v: (v, tf.space_to_batch_nd(v, [2, 2], [[0, 0], [1, 1]])))(
        tf.placeholder(tf.float32, [2, 4, 2, 2])))
    grad_types("BatchToSpaceND", lambda: (lambda v: (v, tf.batch_to_space_nd(v, [2, 1], [[1, 2], [0, 1]])))(
        tf.placeholder(tf.float32, [2, 4, 2, 2])))


def dilated(path):
    """A TensorFlow graph of dilated convolutions (layers.conv2d(dilation_rate=2),
    atrous_conv2d) and their gradient, written to `path`; prints the outputs."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [1, 7, 6, 2], name="x")
        k = np.sin(np.arange(3 * 3 * 2 * 3, dtype=np.float32)).reshape(3, 3, 2, 3)
        y1 = tf.compat.v1.layers.conv2d(x, 3, 3, dilation_rate=2, padding="same", use_bias=False,
                                        kernel_initializer=tf.constant_initializer(k), name="c1")
        y2 = tf.nn.atrous_conv2d(x, tf.constant(k), rate=2, padding="VALID")
        out = tf.identity(tf.reduce_sum(y1 * y1) + tf.reduce_sum(y2 * 0.5), name="out")
        gx = tf.identity(tf.gradients(out, x)[0], name="grad_x")
        types = sorted({op.type for op in g.get_operations()})
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            gd = tf.graph_util.convert_variables_to_constants(s, g.as_graph_def(), ["out", "grad_x"])
            xv = np.cos(np.arange(7 * 6 * 2, dtype=np.float32)).reshape(1, 7, 6, 2)
            o, gv = s.run([out, gx], {x: xv})
    tf.io.write_graph(gd, os.path.dirname(path), os.path.basename(path), as_text=True)
    print("op types:", types)
    print("out", float(o))
    print("grad_x", gv.reshape(-1).tolist())


def depth_roll():
    """SpaceToDepth / DepthToSpace / Roll values, errors and gradient op types."""
    x = lambda: tf.constant(np.arange(32, dtype=np.float32).reshape(1, 4, 2, 4))  # noqa: E731
    show("s2d", lambda: tf.nn.space_to_depth(x(), 2))
    show("d2s", lambda: tf.nn.depth_to_space(x(), 2))
    show("s2d_bad", lambda: tf.nn.space_to_depth(tf.zeros([1, 3, 2, 1]), 2))
    show("d2s_bad", lambda: tf.nn.depth_to_space(tf.zeros([1, 2, 2, 6]), 2))
    r = lambda: tf.constant(np.arange(12).reshape(3, 4))  # noqa: E731
    show("roll_1", lambda: tf.roll(r(), 1, 0))
    show("roll_2", lambda: tf.roll(r(), [-1, 5], [1, 0]))
    show("roll_rep", lambda: tf.roll(r(), [1, 2], [-1, 1]))
    show("roll_badaxis", lambda: tf.roll(r(), 1, tf.placeholder_with_default(2, [])))
    show("roll_sizes", lambda: tf.roll(r(), [1, 2], [0]))
    for name, f in [("SpaceToDepth", lambda v: tf.nn.space_to_depth(v, 2)),
                    ("DepthToSpace", lambda v: tf.nn.depth_to_space(v, 2)),
                    ("Roll", lambda v: tf.roll(v, [1, -2], [1, 2]))]:
        grad_types(name, lambda f=f: (lambda v: (v, f(v)))(tf.placeholder(tf.float32, [1, 4, 2, 4])))


if len(sys.argv) > 1 and sys.argv[1] == "depth_roll":
    depth_roll()
if len(sys.argv) > 1 and sys.argv[1] == "space_batch":
    space_batch()
elif len(sys.argv) > 1 and sys.argv[1] == "dilated":
    dilated(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "dilated_conv.pbtxt"))
