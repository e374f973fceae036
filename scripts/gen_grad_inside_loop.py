#!/usr/bin/env python3
"""TensorFlow 2.21's `tf.compat.v1.gradients` at tensors inside TF1 while loops
(tests/data/while_loop/inside_loop.json, read by tests/gradients_inside_loops.rs).

Usage: PY=$(bash interop/setup_venv.sh | tail -n1); $PY scripts/gen_grad_inside_loop.py [OUTDIR]

In graph mode with control flow v1, for loops v <- tanh(v w) over 3 steps from x,
records: `per_step_w` (tf.gradients(tanh(v w), w) called inside the body, summed over
the steps in a loop variable), `per_step_v` (the same with respect to the body's v), and
TensorFlow's answers for the cases it does not support: the gradient with respect to
the initial value from inside the body (its ValueError), a y inside the body with
tf.gradients called after the loop (None), an x inside the body (a tensor of the gradient
loop that TensorFlow will not fetch).
"""
import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
tf.disable_control_flow_v2()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "while_loop")
FEEDS = {"x:0": 0.5, "w:0": 1.3}


def loop(wrt):
    """The loop summing each step's gradient of tanh(v w) with respect to `wrt`."""
    x = tf.placeholder(tf.float32, [], name="x")
    w = tf.placeholder(tf.float32, [], name="w")
    err = {}

    def body(i, v, acc):
        y = tf.tanh(v * w)
        try:
            d, = tf.gradients(y, [{"w": w, "v": v, "x": x}[wrt]])
        except ValueError as e:
            err["error"] = str(e)
            d = tf.zeros([])
        return i + 1, y, acc + d
    _, v, acc = tf.while_loop(lambda i, v, a: i < 3, body, [0, x, 0.0])
    return v, acc, err


def main():
    out = {"feeds": FEEDS, "tensorflow": tf.__version__}
    for wrt in ["w", "v", "x"]:
        g = tf.Graph()
        with g.as_default():
            v, acc, err = loop(wrt)
            if err:
                out["per_step_x_error"] = err["error"]
                continue
            with tf.Session(graph=g) as s:
                vv, av = s.run([v, acc], FEEDS)
            out["per_step_" + wrt] = {"v": float(vv), "acc": float(av)}
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.placeholder(tf.float32, [], name="w")
        box = {}

        def body(i, v):
            box["m"] = v * w
            box["y"] = tf.tanh(box["m"])
            return i + 1, box["y"]
        _, y = tf.while_loop(lambda i, v: i < 3, body, [0, x])
        out["y_inside_called_after"] = [str(d) for d in tf.gradients(box["y"], [w, box["m"]])]
        d, = tf.gradients(y, [box["m"]])
        try:
            with tf.Session(graph=g) as s:
                s.run(d, FEEDS)
            out["x_inside_fetch_error"] = None
        except Exception as e:  # noqa: BLE001 (TensorFlow's InaccessibleTensorError)
            out["x_inside_fetch_error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0])
    with open(os.path.join(OUT, "inside_loop.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
