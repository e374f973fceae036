#!/usr/bin/env python3
"""Generate the TF2 `While` gradient test graph and TensorFlow 2.21's gradients for it
(tests/data/functions/while_v2_grad.pbtxt and while_v2_grad.json, read by
tests/while_loop_v2_grad.rs).

Usage (with the interop virtualenv's python, see interop/setup_venv.sh):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/gen_while_v2_grad.py [OUTDIR]

In graph mode with control flow v2, writes a GraphDef with a function library (the
loops' cond and body functions) holding:

- `rnn`: `tf.while_loop` (a `While` node) running v = tanh(W v) for a fed number of
  steps `n`, and `rnn_y = sum(v * v)`;
- `halve`: a loop with a data-dependent trip count (halve y until sum |y| <= 1) whose
  body multiplies by a fed `scale`, and `halve_y = sum(y * y)`;
- `fn`: a `tf.function` (a `StatefulPartitionedCall`) whose body runs a loop with an `If`
  inside (acc + x * w on even steps, acc * w on odd ones), and `fn_y = sum(fn)`;
- `cond`: a `tf.cond` (an `If` node) of two expressions in x and W, and
  `cond_y = sum(cond * cond)`.

The graph is written before any gradient is built (TensorFlow's gradients of `While` and
`If` add forward outputs of variant dtype, which tensorgraph lacks); the JSON holds, per
case, y, xs and the gradients TensorFlow computes (tf.gradients) for the feeds, for each
trip count `n` (0, 1 and 4) and branch `p`.
"""

import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import numpy as np  # noqa: E402
import tensorflow as tf2  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "functions")


def config():
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def tj(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


RNG = np.random.RandomState(21)
FEEDS = {
    "W:0": (RNG.standard_normal((3, 3)) * 0.6).astype(np.float32),
    "x0:0": RNG.standard_normal((3, 1)).astype(np.float32),
    "x:0": np.array([3.0, -4.0, 1.5], np.float32),
    "scale:0": np.float32(0.6),
    "wf:0": np.float32(1.3),
    "p:0": True,
}


def build():
    W = tf.placeholder(tf.float32, [3, 3], name="W")
    x0 = tf.placeholder(tf.float32, [3, 1], name="x0")
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [3], name="x")
    scale = tf.placeholder(tf.float32, [], name="scale")
    w = tf.placeholder(tf.float32, [], name="wf")
    p = tf.placeholder(tf.bool, [], name="p")
    _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.tanh(tf.matmul(W, v))), [0, x0], name="rnn")
    rnn_y = tf.reduce_sum(v * v, name="rnn_y")
    _, y = tf.while_loop(lambda i, y: tf.reduce_sum(tf.abs(y)) > 1.0, lambda i, y: (i + 1, y * scale), [0, x],
                         name="halve")
    halve_y = tf.reduce_sum(y * y, name="halve_y")

    @tf2.function
    def fn(x, w, n):
        k, acc = tf.while_loop(lambda k, acc: k < n,
                               lambda k, acc: (k + 1, tf.cond(tf.equal(k % 2, 0), lambda: acc + x * w,
                                                              lambda: acc * w)),
                               [0, tf.zeros_like(x)], name="loop")
        return acc
    f = tf.identity(fn(x, w, n), name="fn_out")
    fn_y = tf.reduce_sum(f, name="fn_y")
    c = tf.cond(p, lambda: tf.tanh(tf.matmul(W, x0)), lambda: x0 * x0 * 3.0, name="cond")
    cond_y = tf.reduce_sum(c * c, name="cond_y")
    return [("rnn", rnn_y, [W, x0]), ("halve", halve_y, [x, scale]), ("fn", fn_y, [x, w]),
            ("cond", cond_y, [W, x0])]


def main():
    tf.disable_eager_execution()
    tf.enable_control_flow_v2()
    os.makedirs(OUT, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        cases = build()
        gd = g.as_graph_def()
        grads = [(name, y, xs, tf.gradients(y, xs)) for name, y, xs in cases]
        out = {"feeds": {k: tj(v) for k, v in FEEDS.items()}, "cases": []}
        with tf.Session(graph=g, config=config()) as s:
            for name, y, xs, gs in grads:
                settings = {"rnn": [(0, True), (1, True), (4, True)], "fn": [(0, True), (1, True), (4, True)],
                            "halve": [(0, True)], "cond": [(0, True), (0, False)]}[name]
                for nv, pv in settings:
                    feeds = dict(FEEDS, **{"n:0": np.int32(nv), "p:0": pv})
                    yv, gv = s.run([y, gs], feeds)
                    out["cases"].append({"name": name, "n": nv, "p": pv, "y": y.name, "xs": [t.name for t in xs],
                                         "y_value": tj(yv), "grads": [tj(v) for v in gv]})
    with open(os.path.join(OUT, "while_v2_grad.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(gd))
    out["tensorflow"] = tf2.__version__
    with open(os.path.join(OUT, "while_v2_grad.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
