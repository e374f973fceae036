#!/usr/bin/env python3
"""Generate the while_loop builder's reference graphs and TensorFlow 2.21's values for them
(tests/data/while_loop, read by tests/while_loop_*.rs).

Usage (with the interop virtualenv's python, see interop/setup_venv.sh):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/gen_while_loop.py [OUTDIR]

In graph mode with control flow v1 (`tf.compat.v1.disable_control_flow_v2()`), writes:

- loops.pbtxt: the forward programs the tests build again with `ops::while_loop` (same
  names, so the node names and op types can be compared): `sum`, `fib`, `capped` and
  `uncapped` (maximum_iterations), `nested` (a loop in a loop reading a tensor from outside
  both), `cond` (a loop in a cond branch), `ta` (a TensorArray written in a loop), `tanh`
  (x = tanh(W x) for 4 steps), `gru` (a GRU cell over a TensorArray of inputs), `nest2`
  (a nested loop with a weight read in the inner body), `condloop` (a cond inside a loop
  body, with a cond on `p` nested in one branch);
- expected.json: for each run the feeds, fetches and TensorFlow's outputs; for each
  gradient case the gradients TensorFlow computes (tf.gradients on the same graph; for
  `condloop` and `incond`, the loop in the cond, also with `p` false); the
  shape-change error message; the trained classifier's initial values and first losses.

Raw TensorArray ops (gen_data_flow_ops) are used so that the node names are those of the
builders here. Every value is deterministic (fixed seeds, no random ops in the graphs).
"""

import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.python.ops import gen_data_flow_ops as dfo  # noqa: E402

tf.disable_eager_execution()
tf.disable_control_flow_v2()
tf.logging.set_verbosity(tf.logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "while_loop")


def config():
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def tj(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


RNG = np.random.RandomState(11)
FEEDS = {
    "x:0": np.float32(1.5),
    "p:0": True,
    "W:0": (RNG.standard_normal((3, 3)) * 0.6).astype(np.float32),
    "x0:0": RNG.standard_normal((3, 1)).astype(np.float32),
    "xs:0": RNG.standard_normal((5, 2, 3)).astype(np.float32),
    "Wz:0": (RNG.standard_normal((3, 4)) * 0.5).astype(np.float32),
    "Uz:0": (RNG.standard_normal((4, 4)) * 0.5).astype(np.float32),
    "Wr:0": (RNG.standard_normal((3, 4)) * 0.5).astype(np.float32),
    "Ur:0": (RNG.standard_normal((4, 4)) * 0.5).astype(np.float32),
    "Wh:0": (RNG.standard_normal((3, 4)) * 0.5).astype(np.float32),
    "Uh:0": (RNG.standard_normal((4, 4)) * 0.5).astype(np.float32),
    "wn:0": np.float32(0.7),
    "wc:0": np.float32(0.8),
}


def gru_cell(x, h, Wz, Uz, Wr, Ur, Wh, Uh):
    z = tf.sigmoid(tf.matmul(x, Wz) + tf.matmul(h, Uz))
    r = tf.sigmoid(tf.matmul(x, Wr) + tf.matmul(h, Ur))
    hc = tf.tanh(tf.matmul(x, Wh) + tf.matmul(r * h, Uh))
    return (1.0 - z) * h + z * hc


def build():
    """The forward programs; returns the gradient cases (name, y, xs)."""
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    i0 = tf.constant(0, name="i0")
    s0 = tf.constant(0.0, name="s0")
    n = tf.constant(1000, name="n")
    tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x), [i0, s0], name="sum")
    a0 = tf.constant(0.0, name="a0")
    b0 = tf.constant(1.0, name="b0")
    k = tf.constant(25, name="k")
    tf.while_loop(lambda i, a, b: i < k, lambda i, a, b: (i + 1, b, a + b), [i0, a0, b0], name="fib")
    ten = tf.constant(10, name="ten")
    m5 = tf.constant(5, name="m5")
    m100 = tf.constant(100, name="m100")
    tf.while_loop(lambda i, s: i < ten, lambda i, s: [i + 1, s * x], [i0, x], maximum_iterations=m5, name="capped")
    tf.while_loop(lambda i, s: i < ten, lambda i, s: [i + 1, s * x], [i0, x], maximum_iterations=m100,
                  name="uncapped")
    three = tf.constant(3, name="three")

    def outer_body(i, s):
        j0 = tf.constant(0, name="j0")
        _, t = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + x * tf.cast(j, tf.float32)), [j0, s])
        return i + 1, t
    tf.while_loop(lambda i, s: i < three, outer_body, [i0, s0], name="nested")
    five = tf.constant(5, name="five")
    tf.cond(p, lambda: tf.while_loop(lambda i, s: i < five, lambda i, s: (i + 1, s * x), [i0, x])[1],
            lambda: x * x)
    # a TensorArray written in a loop
    size = tf.constant(5, name="size")
    ta, flow = dfo.tensor_array_v3(size, tf.float32, name="ta")

    def ta_body(i, f):
        return i + 1, dfo.tensor_array_write_v3(ta, i, tf.cast(i, tf.float32) * x, f)
    _, fl = tf.while_loop(lambda i, f: i < size, ta_body, [i0, flow], name="ta_loop")
    idx = tf.constant([0, 1, 2, 3, 4], name="idx")
    dfo.tensor_array_gather_v3(ta, idx, fl, tf.float32, name="gathered")
    # x = tanh(W x), 4 steps
    W = tf.placeholder(tf.float32, [3, 3], name="W")
    x0 = tf.placeholder(tf.float32, [3, 1], name="x0")
    four = tf.constant(4, name="four")
    _, xt = tf.while_loop(lambda i, v: i < four, lambda i, v: (i + 1, tf.tanh(tf.matmul(W, v))), [i0, x0],
                          name="tanh")
    tanh_y = tf.reduce_sum(xt * xt, name="tanh_y")
    # a GRU over a TensorArray of inputs, outputs to another TensorArray
    xs = tf.placeholder(tf.float32, [5, 2, 3], name="xs")
    ws = [tf.placeholder(tf.float32, s, name=nm) for nm, s in
          [("Wz", [3, 4]), ("Uz", [4, 4]), ("Wr", [3, 4]), ("Ur", [4, 4]), ("Wh", [3, 4]), ("Uh", [4, 4])]]
    xin, xin_flow = dfo.tensor_array_v3(size, tf.float32, name="xin")
    xin_flow = dfo.tensor_array_scatter_v3(xin, idx, xs, xin_flow, name="xin_scatter")
    hout, hout_flow = dfo.tensor_array_v3(size, tf.float32, name="hout")
    h0 = tf.zeros([2, 4], name="h0")

    def gru_body(t, h, f):
        xt_ = tf.reshape(dfo.tensor_array_read_v3(xin, t, xin_flow, tf.float32), [2, 3])
        h2 = gru_cell(xt_, h, *ws)
        return t + 1, h2, dfo.tensor_array_write_v3(hout, t, h2, f)
    _, hT, hf = tf.while_loop(lambda t, h, f: t < size, gru_body, [i0, h0, hout_flow], name="gru")
    hs = dfo.tensor_array_gather_v3(hout, idx, hf, tf.float32, name="hs")
    gru_y = tf.add(tf.reduce_sum(hs * hs), tf.reduce_sum(hT), name="gru_y")
    # nested loop gradient: the inner body multiplies by w, the outer adds x
    w = tf.placeholder(tf.float32, [], name="wn")
    two = tf.constant(2, name="two")

    def n2_body(i, s):
        j0 = tf.constant(0, name="j0")
        _, t = tf.while_loop(lambda j, t: j < two, lambda j, t: (j + 1, tf.tanh(t * w)), [j0, s])
        return i + 1, t + x
    _, n2 = tf.while_loop(lambda i, s: i < three, n2_body, [i0, x], name="nest2")
    nest2_y = tf.identity(n2, name="nest2_y")
    # a cond inside a loop body: tanh(v wc) or v wc (on p) on even steps, v v + wc on odd ones
    wc = tf.placeholder(tf.float32, [], name="wc")

    def cl_body(i, v):
        even = tf.equal(i % 2, 0)
        t = tf.cond(even, lambda: tf.cond(p, lambda: tf.tanh(v * wc), lambda: v * wc), lambda: v * v + wc)
        return i + 1, t
    _, cl = tf.while_loop(lambda i, v: i < four, cl_body, [i0, x], name="condloop")
    condloop_y = tf.identity(cl, name="condloop_y")
    return [("tanh", tanh_y, [W, x0]), ("gru", gru_y, [xs] + ws), ("nest2", nest2_y, [w, x]),
            ("sum", tf.get_default_graph().get_tensor_by_name("sum/Exit_1:0"), [x]),
            ("capped", tf.get_default_graph().get_tensor_by_name("capped/Exit_2:0"), [x]),
            ("nested", tf.get_default_graph().get_tensor_by_name("nested/Exit_1:0"), [x]),
            ("condloop", condloop_y, [x, wc]),
            ("incond", tf.get_default_graph().get_tensor_by_name("cond/Merge:0"), [x])]


def main():
    os.makedirs(OUT, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        cases = build()
        gd = g.as_graph_def()
        with open(os.path.join(OUT, "loops.pbtxt"), "w") as f:
            f.write(text_format.MessageToString(gd))
        fetches = ["sum/Exit:0", "sum/Exit_1:0", "fib/Exit_1:0", "capped/Exit_1:0", "capped/Exit_2:0",
                   "uncapped/Exit_1:0", "uncapped/Exit_2:0", "nested/Exit_1:0", "cond/Merge:0", "gathered:0",
                   "tanh_y:0", "gru_y:0", "nest2_y:0", "condloop_y:0"]
        grads = {}
        before = {n.name for n in g.as_graph_def().node}
        for name, y, xs in cases:
            gs = tf.gradients(y, xs)
            if name == "tanh":
                # TensorFlow's own gradient nodes for the tanh loop (compared in a test)
                tanh_grad_nodes = sorted((n.name, n.op) for n in g.as_graph_def().node if n.name not in before)
            grads[name] = {"y": y.name, "xs": [t.name for t in xs], "grads": [gg.name if gg is not None else print(name, t) for gg, t in zip(gs, xs)]}
        with tf.Session(graph=g, config=config()) as s:
            out = s.run(fetches, FEEDS)
            runs = {f: tj(o) for f, o in zip(fetches, out)}
            out_false = s.run("cond/Merge:0", dict(FEEDS, **{"p:0": False}))
            runs["cond/Merge:0 (p false)"] = tj(out_false)
            for name, case in grads.items():
                vals = s.run(case["grads"], FEEDS)
                case["values"] = [tj(v) for v in vals]
                if name in ("condloop", "incond"):
                    vals = s.run(case["grads"], dict(FEEDS, **{"p:0": False}))
                    case["values_p_false"] = [tj(v) for v in vals]
    # the shape-change error
    err = None
    g2 = tf.Graph()
    with g2.as_default():
        v0 = tf.constant([1.0], name="v0")
        try:
            tf.while_loop(lambda v: tf.size(v) < 5, lambda v: tf.concat([v, v], 0), [v0])
        except ValueError as e:
            err = str(e)
    expected = {
        "feeds": {k: tj(v) for k, v in FEEDS.items()},
        "runs": runs,
        "grads": grads,
        "tanh_grad_nodes": [list(t) for t in tanh_grad_nodes],
        "shape_error": err,
        "train": train(),
    }
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


def train():
    """A sequence classifier (a tanh RNN over a TensorArray, while_loop, then a dense
    layer and softmax cross-entropy) trained with Adam; its initial values, data and TF's
    losses over 6 steps."""
    rng = np.random.RandomState(5)
    T, B, D, H, C = 6, 8, 3, 5, 2
    data = rng.standard_normal((T, B, D)).astype(np.float32)
    labels = (data.sum(axis=(0, 2)) > 0).astype(np.int32)
    inits = {
        "Wx": (rng.standard_normal((D, H)) * 0.4).astype(np.float32),
        "Wh": (rng.standard_normal((H, H)) * 0.4).astype(np.float32),
        "b": np.zeros(H, np.float32),
        "Wo": (rng.standard_normal((H, C)) * 0.4).astype(np.float32),
    }
    g = tf.Graph()
    with g.as_default():
        v = {k: tf.get_variable(k, initializer=val) for k, val in inits.items()}
        seq = tf.constant(data, name="seq")
        lab = tf.constant(labels, name="labels")
        steps = tf.constant(T, name="steps")
        i0 = tf.constant(0, name="i0")
        idx = tf.range(T, name="idx")
        xin, xf = dfo.tensor_array_v3(steps, tf.float32, name="xin")
        xf = dfo.tensor_array_scatter_v3(xin, idx, seq, xf, name="xin_scatter")
        h0 = tf.zeros([B, H], name="h0")

        def body(t, h):
            xt = tf.reshape(dfo.tensor_array_read_v3(xin, t, xf, tf.float32), [B, D])
            return t + 1, tf.tanh(tf.matmul(xt, v["Wx"]) + tf.matmul(h, v["Wh"]) + v["b"])
        _, hT = tf.while_loop(lambda t, h: t < steps, body, [i0, h0], name="rnn")
        logits = tf.matmul(hT, v["Wo"], name="logits")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=logits), name="loss")
        opt = tf.train.AdamOptimizer(0.05).minimize(loss)
        losses = []
        with tf.Session(graph=g, config=config()) as s:
            s.run(tf.global_variables_initializer())
            for _ in range(6):
                losses.append(float(s.run([loss, opt])[0]))
    return {"inits": {k: tj(val) for k, val in inits.items()}, "data": tj(data), "labels": tj(labels),
            "losses": losses}


if __name__ == "__main__":
    main()
