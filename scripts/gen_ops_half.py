#!/usr/bin/env python3
"""TensorFlow 2.21's float16 and bfloat16 results for tests/ops_half.rs: one GraphDef of
math and nn ops on float16 and bfloat16 constants (tests/data/ops_half/graph.pbtxt) and
the values TensorFlow's CPU kernels compute for each (tests/data/ops_half/expected.json:
fetch name, dtype, shape, values as float64; infinities and NaN as strings).

    TF_CPP_MIN_LOG_LEVEL=2 ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_half.py

Built in graph mode (tf.compat.v1), run on CPU. An op TensorFlow cannot run for a dtype
is left out and printed.
"""

import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "ops_half"


def cases(dt, rng):
    """(name, builder) pairs; each builder makes the op from float16/bfloat16 constants."""
    def c(shape, scale=1.0, positive=False):
        v = rng.standard_normal(shape).astype(np.float32) * scale
        if positive:
            v = np.abs(v) + 0.1
        return tf.constant(v.astype(np.float32), dtype=tf.float32) if dt is None else tf.cast(tf.constant(v), dt)

    x = c([2, 3, 4])
    pos = c([2, 3, 4], positive=True)
    y = c([2, 3, 4])
    img = c([1, 5, 5, 3])
    f = c([3, 3, 3, 4], 0.3)
    dw = c([3, 3, 3, 2], 0.3)
    a = c([4, 6])
    b = c([6, 5])
    ba = c([2, 3, 4])
    bb = c([2, 4, 2])
    bias = c([4])
    big = c([2, 3, 4], 300.0)
    scale, offset = tf.constant(rng.standard_normal([3]).astype(np.float32)), tf.constant(
        rng.standard_normal([3]).astype(np.float32))
    mean, var = tf.constant(rng.standard_normal([3]).astype(np.float32)), tf.constant(
        (np.abs(rng.standard_normal([3])) + 0.5).astype(np.float32))
    return [
        ("relu", lambda: tf.nn.relu(x)),
        ("relu6", lambda: tf.nn.relu6(x * 4)),
        ("elu", lambda: tf.nn.elu(x)),
        ("selu", lambda: tf.nn.selu(x)),
        ("leaky", lambda: tf.nn.leaky_relu(x, 0.2)),
        ("softplus", lambda: tf.nn.softplus(x)),
        ("softsign", lambda: tf.nn.softsign(x)),
        ("sigmoid", lambda: tf.sigmoid(x)),
        ("tanh", lambda: tf.tanh(x)),
        ("softmax", lambda: tf.nn.softmax(x)),
        ("log_softmax", lambda: tf.nn.log_softmax(x)),
        ("erf", lambda: tf.math.erf(x)),
        ("exp", lambda: tf.exp(x)),
        ("log", lambda: tf.math.log(pos)),
        ("sqrt", lambda: tf.sqrt(pos)),
        ("rsqrt", lambda: tf.math.rsqrt(pos)),
        ("square", lambda: tf.square(x)),
        ("add", lambda: tf.add(x, y)),
        ("mul", lambda: x * y),
        ("div", lambda: tf.realdiv(x, pos)),
        ("maximum", lambda: tf.maximum(x, y)),
        ("sqd", lambda: tf.math.squared_difference(x, y)),
        ("overflow", lambda: big * big),
        ("addn", lambda: tf.add_n([x, y, pos])),
        ("clip", lambda: tf.clip_by_value(x, -0.5, 0.5)),
        ("greater", lambda: tf.greater(x, y)),
        ("argmax", lambda: tf.argmax(x, axis=2)),
        ("l2", lambda: tf.nn.l2_loss(x)),
        ("mean", lambda: tf.reduce_mean(x, axis=[0, 2])),
        ("sum", lambda: tf.reduce_sum(x, axis=1)),
        ("max", lambda: tf.reduce_max(x, axis=2)),
        ("cumsum", lambda: tf.cumsum(x, axis=2)),
        ("topk", lambda: tf.nn.top_k(x, 2).values),
        ("matmul", lambda: tf.matmul(a, b)),
        ("bmm", lambda: tf.matmul(ba, bb)),
        ("conv", lambda: tf.nn.conv2d(img, f, [1, 1, 1, 1], "SAME")),
        ("depthwise", lambda: tf.nn.depthwise_conv2d(img, dw, [1, 1, 1, 1], "VALID")),
        ("bias_add", lambda: tf.nn.bias_add(x, bias)),
        ("fused_bn", lambda: tf.nn.fused_batch_norm(img, scale, offset, mean, var, is_training=False)[0]),
        ("max_pool", lambda: tf.nn.max_pool2d(img, 2, 2, "VALID")),
        ("avg_pool", lambda: tf.nn.avg_pool2d(img, 2, 1, "SAME")),
        ("resize_bilinear", lambda: tf.image.resize_bilinear(img, [7, 8])),
        ("resize_nearest", lambda: tf.image.resize_nearest_neighbor(img, [7, 8])),
    ]


def value(x, dtype):
    """A JSON value: a bool, a finite float, or "inf", "-inf", "nan" as strings."""
    if dtype == tf.bool:
        return bool(x)
    x = float(x)
    return x if np.isfinite(x) else str(x)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    g = tf.Graph()
    fetches = []
    with g.as_default():
        for dt in (tf.float16, tf.bfloat16):
            rng = np.random.default_rng(7)
            for name, build in cases(dt, rng):
                with tf.name_scope(None):
                    t = tf.identity(build(), name=f"{name}_{dt.name}")
                fetches.append(t)
    expected = []
    with tf.Session(graph=g) as s:
        for t in fetches:
            try:
                v = s.run(t)
            except tf.errors.OpError as e:
                print(f"TensorFlow cannot run {t.name}: {type(e).__name__}")
                continue
            expected.append({
                "fetch": t.name,
                "dtype": t.dtype.name,
                "shape": list(v.shape),
                "values": [value(x, t.dtype) for x in np.asarray(v).reshape(-1)],
            })
    tf.io.write_graph(g.as_graph_def(), str(OUT), "graph.pbtxt", as_text=True)
    (OUT / "expected.json").write_text(json.dumps(expected, indent=None) + "\n")
    print(f"{len(expected)} of {len(fetches)} fetches written to {OUT}")


if __name__ == "__main__":
    main()
