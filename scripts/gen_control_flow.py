#!/usr/bin/env python3
"""Generate the TF1 control-flow test graphs and TensorFlow 2.21's results for them
(tests/data/control_flow, read by tests/control_flow_*.rs).

Usage (with the interop virtualenv's python, see interop/setup_venv.sh):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/gen_control_flow.py [OUTDIR]

Writes, in graph mode with control flow v1 (Switch/Merge/Enter/Exit/NextIteration):

- cond.pbtxt: tf.cond (both branches), nested conds, a Merge with no live input;
- loops.pbtxt: tf.while_loop summing 0..999, producing a 1000-element sequence, with
  maximum_iterations, with a loop invariant, nested loops, a loop inside the untaken
  branch of a cond, and a loop of n iterations that allocates 100 KB per iteration;
- variables.pbtxt: while loops updating a reference and a resource variable;
- cond_train.meta, cond_train_ref.meta (MetaGraphDef, text): a small regression net
  with a tf.cond on a training flag (placeholder_with_default) reading a variable in one
  branch, and its GradientDescent train op, with resource and with reference variables;
- expected.json: for each named run, the feeds, fetches and TensorFlow's outputs (or its
  error class and message), and the cond net's initial values and losses.

Every value is deterministic (no random ops, fixed initial values); only the order of
the entries in the meta graphs' serialized cond contexts changes between runs.
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

tf.disable_eager_execution()
tf.disable_control_flow_v2()
tf.logging.set_verbosity(tf.logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "control_flow")


def config():
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def tensor_json(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


RUNS = []


def record(graph_file, gd, name, feeds, fetches, targets=(), setup=()):
    """Runs gd (imported with no prefix) in a fresh session: `setup` targets first, then
    `targets` with `fetches`; records the outputs or the error."""
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session(graph=g, config=config()) as s:
            for t in setup:
                s.run(t)
            run = {"name": name, "graph": graph_file, "setup": list(setup),
                   "feeds": {k: tensor_json(v) for k, v in feeds.items()},
                   "fetches": list(fetches), "targets": list(targets)}
            try:
                out = s.run(list(fetches) + list(targets), feeds)
                run["outputs"] = [tensor_json(o) for o in out[:len(fetches)]]
            except tf.errors.OpError as e:
                run["error"] = {"class": type(e).__name__, "message": e.message}
    RUNS.append(run)


def write_graph(gd, file):
    with open(os.path.join(OUT, file), "w") as f:
        f.write(text_format.MessageToString(gd))


def cond_graph():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        q = tf.placeholder(tf.bool, [], name="q")
        x = tf.placeholder(tf.float32, [None], name="x")
        tf.cond(p, lambda: x * 2.0, lambda: x + 1.0, name="cond")
        tf.cond(p, lambda: tf.cond(q, lambda: x * 3.0, lambda: x - 1.0, name="inner"),
                lambda: x * 0.0 + 5.0, name="outer")
        # a Merge whose only input is on the true side of a Switch
        from tensorflow.python.ops import control_flow_ops
        sw = control_flow_ops.switch(x, p, name="lonely_switch")
        m = control_flow_ops.merge([sw[1] * 4.0], name="lonely_merge")[0]
        tf.identity(m, name="after_merge")
    gd = g.as_graph_def()
    write_graph(gd, "cond.pbtxt")
    xs = np.array([1.0, 2.0, 3.0], np.float32)
    for pv in (True, False):
        record("cond.pbtxt", gd, f"cond_p{int(pv)}", {"p:0": pv, "x:0": xs},
               ["cond/Merge:0", "cond/Merge:1"])
        for qv in (True, False):
            record("cond.pbtxt", gd, f"nested_p{int(pv)}_q{int(qv)}", {"p:0": pv, "q:0": qv, "x:0": xs},
                   ["outer/Merge:0"])
    record("cond.pbtxt", gd, "dead_switch_output", {"p:0": True, "x:0": xs}, ["cond/Switch:0"])
    record("cond.pbtxt", gd, "dead_branch_op", {"p:0": False, "x:0": xs}, ["cond/mul:0"])
    record("cond.pbtxt", gd, "dead_target", {"p:0": False, "x:0": xs}, ["cond/Merge:0"], ["cond/mul"])
    record("cond.pbtxt", gd, "merge_live", {"p:0": True, "x:0": xs}, ["after_merge:0", "lonely_merge:1"])
    record("cond.pbtxt", gd, "merge_no_live_input", {"p:0": False, "x:0": xs}, ["after_merge:0"])


def loops_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        w = tf.placeholder(tf.float32, [3], name="w")
        n = tf.placeholder(tf.int32, [], name="n")
        m = tf.placeholder(tf.int32, [], name="m")
        tf.while_loop(lambda i, s: i < 1000, lambda i, s: (i + 1, s + i), [0, 0], name="sum")
        tf.while_loop(lambda i, a: i < 1000,
                      lambda i, a: (i + 1, tf.concat([a, [tf.cast(i, tf.float32) * 0.5]], 0)),
                      [0, tf.zeros([0])],
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])], name="seq")
        tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=5, name="capped")
        tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=m, name="capped_fed")
        tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a + w * tf.cast(i, tf.float32)),
                      [0, tf.zeros([3])], name="inv")

        def outer_body(i, acc):
            def inner_body(j, a):
                return j + 1, a + tf.cast(i * j, tf.float32) + 1.0
            _, acc = tf.while_loop(lambda j, a: j < 4, inner_body, [0, acc], name="inner")
            return i + 1, acc
        tf.while_loop(lambda i, acc: i < 3, outer_body, [0, tf.constant(0.0)], name="outer")
        tf.cond(p, lambda: tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * 2.0), [0, x],
                                         name="loop")[1],
                lambda: x + 100.0, name="cl")
        tf.while_loop(lambda i, a: i < n,
                      lambda i, a: (i + 1, a + tf.reduce_max(tf.fill([25000], i))), [0, 0], name="big")
    gd = g.as_graph_def()
    write_graph(gd, "loops.pbtxt")
    xs = np.array([1.0, -2.0], np.float32)
    record("loops.pbtxt", gd, "sum", {}, ["sum/Exit:0", "sum/Exit_1:0"])
    record("loops.pbtxt", gd, "sequence", {}, ["seq/Exit_1:0"])
    record("loops.pbtxt", gd, "maximum_iterations", {}, ["capped/Exit_1:0"])
    record("loops.pbtxt", gd, "maximum_iterations_fed_3", {"m:0": np.int32(3)}, ["capped_fed/Exit_1:0"])
    record("loops.pbtxt", gd, "maximum_iterations_fed_20", {"m:0": np.int32(20)}, ["capped_fed/Exit_1:0"])
    record("loops.pbtxt", gd, "invariant", {"w:0": np.array([1.0, 0.5, -2.0], np.float32)}, ["inv/Exit_1:0"])
    record("loops.pbtxt", gd, "nested", {}, ["outer/Exit_1:0", "outer/Exit:0"])
    record("loops.pbtxt", gd, "loop_in_taken_branch", {"p:0": True, "x:0": xs}, ["cl/Merge:0"])
    record("loops.pbtxt", gd, "loop_in_untaken_branch", {"p:0": False, "x:0": xs}, ["cl/Merge:0"])
    record("loops.pbtxt", gd, "big_10000", {"n:0": np.int32(10000)}, ["big/Exit_1:0"])
    record("loops.pbtxt", gd, "fetch_inside_loop", {}, ["sum/add:0"])


def variables_graph():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0, use_resource=False, name="v")
        rv = tf.Variable(1.0, use_resource=True, name="rv")

        def ref_body(i):
            with tf.control_dependencies([tf.assign_add(v, 2.0)]):
                return i + 1
        tf.while_loop(lambda i: i < 7, ref_body, [0], name="ref_loop")

        def res_body(i, acc):
            return i + 1, acc + rv.assign_add(1.0)
        tf.while_loop(lambda i, acc: i < 5, res_body, [0, 0.0], parallel_iterations=1, name="res_loop")
        # a cond updating a reference variable in both branches (RefSwitch)
        p = tf.placeholder(tf.bool, [], name="p")
        c = tf.Variable(10.0, use_resource=False, name="c")
        tf.cond(p, lambda: tf.assign_add(c, 1.0), lambda: tf.assign_sub(c, 3.0), name="refcond")
        tf.variables_initializer([v, rv, c], name="init")
    gd = g.as_graph_def()
    write_graph(gd, "variables.pbtxt")
    # the variables are read in a later run: a read in the loop's run could come first
    record("variables.pbtxt", gd, "ref_variable_loop", {}, ["ref_loop/Exit:0"], setup=["init"])
    record("variables.pbtxt", gd, "ref_variable_after_loop", {}, ["v:0"], setup=["init", "ref_loop/Exit"])
    record("variables.pbtxt", gd, "resource_variable_loop", {}, ["res_loop/Exit_1:0"], setup=["init"])
    record("variables.pbtxt", gd, "ref_cond_true", {"p:0": True}, ["refcond/Merge:0"], setup=["init"])
    record("variables.pbtxt", gd, "ref_cond_false", {"p:0": False}, ["refcond/Merge:0"], setup=["init"])
    record("variables.pbtxt", gd, "resource_variable_after_loop", {}, ["rv/Read/ReadVariableOp:0"],
           setup=["init", "res_loop/Exit_1"])


def cond_train(resource, file):
    """The cond net with resource (or reference) variables: its meta graph in `file`,
    initial values and TensorFlow's losses."""
    rng = np.random.RandomState(7)
    inits = {
        "W1": (rng.standard_normal((4, 5)) * 0.5).astype(np.float32),
        "b1": (rng.standard_normal(5) * 0.1).astype(np.float32),
        "scale": (1.0 + rng.standard_normal(5) * 0.2).astype(np.float32),
        "W2": (rng.standard_normal((5, 3)) * 0.5).astype(np.float32),
        "b2": np.zeros(3, np.float32),
    }
    xs = rng.standard_normal((8, 4)).astype(np.float32)
    ys = rng.standard_normal((8, 3)).astype(np.float32)
    flags = [True, False, True, True, False, True]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 3], name="y")
        training = tf.placeholder_with_default(True, [], name="training")
        var = {k: tf.get_variable(k, initializer=tf.constant(v), use_resource=resource) for k, v in inits.items()}
        h = tf.nn.relu(tf.matmul(x, var["W1"]) + var["b1"])
        mask = tf.constant([1.0, 0.0, 1.0, 1.0, 0.0])
        h = tf.cond(training, lambda: h * mask * var["scale"], lambda: h * 0.6, name="drop")
        logits = tf.matmul(h, var["W2"]) + var["b2"]
        loss = tf.reduce_mean(tf.square(logits - y), name="loss")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        init = tf.global_variables_initializer()
        meta = tf.train.export_meta_graph(as_text=True)
        with open(os.path.join(OUT, file), "w") as f:
            f.write(text_format.MessageToString(meta))
        with tf.Session(graph=g, config=config()) as s:
            s.run(init)
            losses = []
            for flag in flags:
                l, _ = s.run([loss, train], {x: xs, y: ys, training: flag})
                losses.append(float(l))
            final = {k: tensor_json(s.run(v)) for k, v in var.items()}
    return {
        "x": tensor_json(xs), "y": tensor_json(ys), "flags": flags, "learning_rate": 0.1,
        "losses": losses, "final": final, "loss": "loss:0", "train": "train",
        "init": init.name, "meta": file,
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    cond_graph()
    loops_graph()
    variables_graph()
    train = cond_train(True, "cond_train.meta")
    train_ref = cond_train(False, "cond_train_ref.meta")
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"generator": "scripts/gen_control_flow.py", "tensorflow": tf.__version__,
                   "runs": RUNS, "cond_train": train,
                   "cond_train_ref": train_ref}, f, indent=1)
        f.write("\n")
    print(f"gen_control_flow: wrote {len(RUNS)} runs to {OUT}")


if __name__ == "__main__":
    main()
