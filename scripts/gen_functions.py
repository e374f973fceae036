#!/usr/bin/env python3
"""Generate the function-library test graphs and TensorFlow 2.21's results for them
(tests/data/functions, read by tests/functions_*.rs).

Usage (with the interop virtualenv's python, see interop/setup_venv.sh):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/gen_functions.py [OUTDIR]

Writes, each a GraphDef with a `library` of FunctionDefs:

- defun.pbtxt: TF1 `function.Defun` functions called by name (one with two outputs, one
  calling another, one generic in its dtype) and the gradient of a call;
- tf2_var.pbtxt: a TF1-style graph with a resource variable and `tf.function`s called as
  `StatefulPartitionedCall` (nested calls, a variable read inside, a control output that
  assigns the variable), and the gradients of the call;
- tf2_frozen.pbtxt: a TF2 `tf.function` with nested calls and a variable read, frozen by
  `convert_variables_to_constants_v2` without lowering control flow (the calls stay
  `StatefulPartitionedCall`/`PartitionedCall`, with `If` inside);
- cond_v2.pbtxt: `tf.cond` with control flow v2 (`If`/`StatelessIf`, taking one branch),
  with a branch that has a side effect, and the gradient through it;
- while_v2.pbtxt: `tf.while_loop` with control flow v2 (`While`/`StatelessWhile`) with a
  data-dependent trip count, a loop with a nested `If`, and nested loops;
- expected.json: for each named run, the feeds, fetches and TensorFlow's outputs.
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
from tensorflow.python.framework import function  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "functions")
RUNS = []


def config():
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def tensor_json(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


def record(graph_file, gd, name, feeds, fetches, targets=(), setup=()):
    """Runs gd (imported with no prefix) in a fresh TF1 session: `setup` targets first,
    then `targets` with `fetches`; records the outputs."""
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session(graph=g, config=config()) as s:
            for t in setup:
                s.run(t)
            out = s.run(list(fetches) + list(targets), feeds)
    RUNS.append({"name": name, "graph": graph_file, "setup": list(setup),
                 "feeds": {k: tensor_json(v) for k, v in feeds.items()},
                 "fetches": list(fetches), "targets": list(targets),
                 "outputs": [tensor_json(o) for o in out[:len(fetches)]]})


def write_graph(gd, file):
    with open(os.path.join(OUT, file), "w") as f:
        f.write(text_format.MessageToString(gd))


def defun_graph():
    g = tf.Graph()
    with g.as_default():
        @function.Defun(tf.float32, tf.float32, func_name="AffineAndDiff")
        def affine_and_diff(x, y):
            return x * y + 1.0, x - y

        @function.Defun(tf.float32, func_name="Outer")
        def outer(x):
            a, b = affine_and_diff(x, x * 2.0)
            return tf.tanh(a) + b

        @function.Defun(func_name="Square")
        def square(x):
            return x * x

        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.placeholder(tf.float32, [None], name="y")
        a, b = affine_and_diff(x, y, name="call")
        o = outer(x, name="outer_call")
        s32 = square(x, name="sq_f32")
        s64 = square(tf.cast(x, tf.float64), name="sq_f64")
        tf.identity(a, name="a")
        tf.identity(b, name="b")
        loss = tf.reduce_sum(o * y, name="loss")
        gx, gy = tf.gradients(loss, [x, y], name="grad")
        tf.identity(gx, name="grad_x")
        tf.identity(gy, name="grad_y")
    gd = g.as_graph_def()
    write_graph(gd, "defun.pbtxt")
    feeds = {"x:0": np.array([0.5, -1.0, 2.0], np.float32), "y:0": np.array([1.5, 2.0, -0.25], np.float32)}
    record("defun.pbtxt", gd, "defun_two_outputs", feeds, ["call:0", "call:1", "a:0", "b:0"])
    record("defun.pbtxt", gd, "defun_nested", feeds, ["outer_call:0", "loss:0"])
    record("defun.pbtxt", gd, "defun_generic", feeds, ["sq_f32:0", "sq_f64:0"])
    record("defun.pbtxt", gd, "defun_gradient", feeds, ["grad_x:0", "grad_y:0"])


def tf2_var_graph():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0, 3.0], name="v", use_resource=True)
        c = tf.Variable(0.0, name="counter", use_resource=True)

        @tf2.function
        def scale(x):
            return x * v

        @tf2.function
        def model(x):
            h = scale(x) + 1.0
            return tf.nn.relu(h), tf.reduce_sum(h)

        @tf2.function
        def bump(x):
            c.assign_add(1.0)
            return x + 0.0

        x = tf.placeholder(tf.float32, [3], name="x")
        r, s = model(x)
        tf.identity(r, name="relu_out")
        tf.identity(s, name="sum_out")
        tf.identity(bump(x), name="bumped")
        loss = tf.reduce_sum(r * r, name="loss")
        gx, gv = tf.gradients(loss, [x, v.handle], name="grad")
        tf.identity(gx, name="grad_x")
        tf.identity(gv, name="grad_v")
        tf.variables_initializer([v, c], name="init")
    gd = g.as_graph_def()
    write_graph(gd, "tf2_var.pbtxt")
    feeds = {"x:0": np.array([0.5, -1.0, 2.0], np.float32)}
    record("tf2_var.pbtxt", gd, "tf2_nested_calls_read_a_variable", feeds, ["relu_out:0", "sum_out:0"],
           setup=["init"])
    record("tf2_var.pbtxt", gd, "tf2_call_gradient", feeds, ["grad_x:0", "grad_v:0"], setup=["init"])
    record("tf2_var.pbtxt", gd, "tf2_control_output_runs", feeds, ["bumped:0"], setup=["init"])
    # the call's control output assigned the counter: read it after two runs of `bumped`
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session(graph=g2, config=config()) as s:
            s.run("init")
            s.run("bumped:0", feeds)
            s.run("bumped:0", feeds)
            rd = tf.raw_ops.ReadVariableOp(resource=g2.get_tensor_by_name("counter:0"), dtype=tf.float32)
            counter = s.run(rd)
    RUNS.append({"name": "tf2_counter_after_two_runs", "graph": "tf2_var.pbtxt", "value": tensor_json(counter)})


def tf2_frozen_graph():
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2
    v = tf2.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
    b = tf2.Variable([0.25, -0.5], name="b")

    @tf2.function
    def dense(x):
        return tf2.matmul(x, v) + b

    @tf2.function
    def pick(h, flag):
        return tf2.cond(flag, lambda: tf2.nn.relu(h), lambda: h * 2.0)

    @tf2.function(input_signature=[tf2.TensorSpec([None, 2], tf2.float32, name="x"),
                                   tf2.TensorSpec([], tf2.bool, name="flag")])
    def model(x, flag):
        return pick(dense(x), flag)

    cf = model.get_concrete_function()
    frozen = convert_variables_to_constants_v2(cf, lower_control_flow=False)
    gd = frozen.graph.as_graph_def()
    write_graph(gd, "tf2_frozen.pbtxt")
    xs = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -3.0]], np.float32)
    ins = [t.name for t in frozen.inputs]
    outs = [t.name for t in frozen.outputs]
    for fl in (True, False):
        want = model(tf2.constant(xs), tf2.constant(fl)).numpy()
        RUNS.append({"name": f"tf2_frozen_flag{int(fl)}", "graph": "tf2_frozen.pbtxt", "setup": [],
                     "feeds": {ins[0]: tensor_json(xs), ins[1]: tensor_json(np.array(fl))},
                     "fetches": outs, "targets": [], "outputs": [tensor_json(want)]})


def cond_v2_graph():
    """The graph is written before its gradient is built: TensorFlow's gradient of `If`
    rewrites the forward branches to return their intermediates as optionals (variant
    tensors, which tensorgraph lacks); tensorgraph builds its own gradient on the written
    graph (tests compare it with TensorFlow's values, computed here)."""
    tf.enable_control_flow_v2()
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        x = tf.placeholder(tf.float32, [None], name="x")
        w = tf.Variable([2.0, -1.0, 0.5], name="w", use_resource=True)
        c = tf.Variable(0.0, name="taken", use_resource=True)
        out = tf.cond(p, lambda: tf.tanh(x) * w, lambda: x * x + 3.0, name="cond")
        tf.identity(out, name="cond_out")
        # a stateful branch: the true branch counts how often it is taken

        def bump():
            with tf.control_dependencies([c.assign_add(1.0)]):
                return tf.identity(x)
        side = tf.cond(p, bump, lambda: x * 0.0, name="side")
        tf.identity(side, name="side_out")
        # two outputs, one branch returning a constant
        two = tf.cond(p, lambda: (x + 1.0, tf.constant(7)), lambda: (x - 1.0, tf.constant(9)), name="two")
        tf.identity(two[0], name="two_0")
        tf.identity(two[1], name="two_1")
        loss = tf.reduce_sum(out * out, name="loss")
        tf.variables_initializer([w, c], name="init")
        gd = g.as_graph_def()
        gx, gw = tf.gradients(loss, [x, w.handle], name="grad")
    write_graph(gd, "cond_v2.pbtxt")
    xs = np.array([0.5, -1.0, 2.0], np.float32)
    for pv in (True, False):
        f = {"p:0": pv, "x:0": xs}
        record("cond_v2.pbtxt", gd, f"if_p{int(pv)}", f, ["cond_out:0", "two_0:0", "two_1:0"], setup=["init"])
        record("cond_v2.pbtxt", gd, f"if_side_p{int(pv)}", f, ["side_out:0"], setup=["init"])
        with tf.Session(graph=g, config=config()) as s:
            s.run("init")
            vx, vw = s.run([gx, gw], f)
            RUNS.append({"name": f"if_grad_p{int(pv)}", "graph": "cond_v2.pbtxt", "feeds": f_json(f),
                         "grad_x": tensor_json(vx), "grad_w": tensor_json(vw)})
            s.run("side_out:0", f)
            rd = tf.raw_ops.ReadVariableOp(resource=c.handle, dtype=tf.float32)
            RUNS.append({"name": f"if_taken_count_p{int(pv)}", "graph": "cond_v2.pbtxt",
                         "value": tensor_json(s.run(rd))})
    tf.disable_control_flow_v2()


def f_json(feeds):
    return {k: tensor_json(v) for k, v in feeds.items()}


def while_v2_graph():
    tf.enable_control_flow_v2()
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        x = tf.placeholder(tf.float32, [None], name="x")
        # data-dependent trip count: halve until the sum is below 1
        i, y = tf.while_loop(lambda i, y: tf.reduce_sum(tf.abs(y)) > 1.0, lambda i, y: (i + 1, y * 0.5),
                             [0, x], name="halve")
        tf.identity(i, name="halve_i")
        tf.identity(y, name="halve_y")
        # fed trip count, a captured tensor and an If in the body
        k, acc = tf.while_loop(lambda k, acc: k < n,
                               lambda k, acc: (k + 1, tf.cond(tf.equal(k % 2, 0), lambda: acc + x, lambda: acc * 2.0)),
                               [0, tf.zeros_like(x)], name="loop")
        tf.identity(k, name="loop_k")
        tf.identity(acc, name="loop_acc")

        def outer_body(a, s):
            _, s2 = tf.while_loop(lambda b, t: b < a, lambda b, t: (b + 1, t + tf.cast(a * b, tf.float32)),
                                  [0, s], name="inner")
            return a + 1, s2
        _, nested = tf.while_loop(lambda a, s: a < n, outer_body, [0, tf.constant(0.0)], name="outer")
        tf.identity(nested, name="nested_out")
    gd = g.as_graph_def()
    write_graph(gd, "while_v2.pbtxt")
    xs = np.array([3.0, -4.0, 1.5], np.float32)
    for nv in (0, 1, 5):
        record("while_v2.pbtxt", gd, f"while_n{nv}", {"n:0": np.int32(nv), "x:0": xs},
               ["halve_i:0", "halve_y:0", "loop_k:0", "loop_acc:0", "nested_out:0"])
    tf.disable_control_flow_v2()


def main():
    os.makedirs(OUT, exist_ok=True)
    tf2_frozen_graph()  # eager, before graph mode is switched on
    tf.disable_eager_execution()
    defun_graph()
    tf2_var_graph()
    cond_v2_graph()
    while_v2_graph()
    RUNS.append({"name": "_version", "tensorflow": tf2.__version__})
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"runs": RUNS}, f, indent=1)


if __name__ == "__main__":
    main()
