#!/usr/bin/env python3
"""Writes tests/data/legacy/legacy_grad.pbtxt and legacy_grad.json: a TF 1.x-style training
graph in which TensorFlow 2.21 itself emits the legacy op types `Select` and `BatchMatMul`
and their gradients, for tests/ops_legacy_grad.rs.

`tf.compat.v1.where(c, x, y)` still emits `Select` (TF 1.x's `tf.where`), and `Select`'s
registered gradient emits two more `Select`s; `BatchMatMul` (TF 1.x's `tf.matmul` of rank-3
operands before 1.14) comes from `tf.raw_ops.BatchMatMul`, its gradient is TF's
`_BatchMatMul` gradient. `tf.compat.v1.gradients` writes the gradient graph under
`gradients/`. The JSON holds the feeds and TensorFlow's values of the loss and of each
gradient (by tensor name), which the test compares to the imported graph run here and to
tensorgraph's own gradients of the imported loss.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_legacy_grad.py

Deterministic (graph mode, CPU, one thread): rerunning rewrites identical files.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "legacy")


def main():
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [2, 3], name="x")
        y = tf1.placeholder(tf.float32, [2, 3], name="y")
        c = tf1.placeholder(tf.bool, [2], name="c")  # Select's rank-1 condition picks rows
        a = tf1.placeholder(tf.float32, [2, 2, 3], name="a")
        b = tf1.placeholder(tf.float32, [2, 3, 2], name="b")
        sel = tf1.where(c, x * y, y - x, name="select")
        sel_same = tf1.where(tf.greater(x, y), x, y, name="select_same")
        bmm = tf.raw_ops.BatchMatMul(x=a, y=b, name="bmm")
        bmm_adj = tf.raw_ops.BatchMatMul(x=a, y=a, adj_y=True, name="bmm_adj")
        loss = tf.add_n([
            tf.reduce_sum(tf.square(sel)),
            tf.reduce_sum(sel_same),
            tf.reduce_sum(tf.square(bmm)),
            tf.reduce_sum(bmm_adj),
        ], name="loss")
        grads = tf1.gradients(loss, [x, y, a, b])
    ops = sorted({n.op for n in g.as_graph_def().node})
    assert "Select" in ops and "BatchMatMul" in ops, ops
    rng = np.random.RandomState(14)
    feeds = {
        "x:0": rng.uniform(-2, 2, [2, 3]).astype(np.float32),
        "y:0": rng.uniform(-2, 2, [2, 3]).astype(np.float32),
        "c:0": np.array([True, False]),
        "a:0": rng.uniform(-1, 1, [2, 2, 3]).astype(np.float32),
        "b:0": rng.uniform(-1, 1, [2, 3, 2]).astype(np.float32),
    }
    fetches = ["select:0", "select_same:0", "bmm:0", "bmm_adj:0", "loss:0"] + [t.name for t in grads]
    cfg = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    with tf1.Session(graph=g, config=cfg) as s:
        values = s.run(fetches, {g.get_tensor_by_name(k): v for k, v in feeds.items()})
    tf1.train.write_graph(g.as_graph_def(), OUT, "legacy_grad.pbtxt", as_text=True)
    gradient_ops = {}
    for n in g.as_graph_def().node:
        if n.name.startswith("gradients/") and n.op in ("Select", "BatchMatMul", "BatchMatMulV2"):
            gradient_ops[n.name] = n.op
    doc = {
        "source": "scripts/gen_legacy_grad.py, TensorFlow " + tf.__version__,
        "feeds": {k: {"shape": list(v.shape), "values": v.flatten().tolist()} for k, v in feeds.items()},
        "values": {k: {"shape": list(np.shape(v)), "values": np.asarray(v, np.float64).flatten().tolist()}
                   for k, v in zip(fetches, values)},
        "gradients": [t.name for t in grads],
        "gradient_ops": gradient_ops,
        "op_types": ops,
    }
    with open(os.path.join(OUT, "legacy_grad.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps({"gradients": doc["gradients"], "gradient_ops": gradient_ops}, indent=1))


if __name__ == "__main__":
    main()
