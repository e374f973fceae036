#!/usr/bin/env python3
"""Time in TensorFlow 2.21 the work our Rust benches time (session_run, mlp_adam).

Usage: bench_tf.py [--seed004-meta PATH] [--runs N] [--steps N]
(use the venv python: PY=$(interop/setup_venv.sh | tail -n1); $PY scripts/bench_tf.py)

tf.compat.v1 graph mode, 1 intra-op and 1 inter-op thread, TF_ENABLE_ONEDNN_OPTS
unset (TF's default; removed from the environment if set).
  (a) sess.run("add_1:0") of the seed004 graph: imported from --seed004-meta
      (default: the shared fixture) and restored from its checkpoint, or, if that
      file is absent, rebuilt (float32 [1] variables v1=1, v2=2, v3=3;
      add = v1 + v2; add_1 = add + v3). Median microseconds per run.
  (b) one Adam step, sess.run(train_op, feed), of a 784-256-256-10 relu MLP with
      softmax cross-entropy on a fixed float32 batch of 64. Median ms per step.
  (c) tf.compat.v1.train.Saver save and restore of 16 float32 variables of 16 MiB
      each (256 MiB; write_meta_graph=False, state file written) in a temporary
      directory (--ckpt-dir to choose where). Median seconds per save / restore.
      Compare with benches/checkpoint_io.rs (checkpoint_256mib/save, /restore).
  (d) a 20,000-node chain (placeholder x float32 [1], a Const, then 19,998 AddV2 ops
      add, add_1, ... each adding the Const to the previous): Python graph building
      (tf.add in a new tf.Graph, graph mode) and tf.import_graph_def(gd, name="") of its
      GraphDef into a new graph, and the same import from the serialized bytes
      (GraphDef.FromString, then tf.import_graph_def). Median ms over --graph-reps.
      Compare with benches/graph_import.rs (graph_20000/build, graph_20000/import,
      graph_20000/parse_and_import).
Prints one JSON line: {"tf_add_run_us": ..., "tf_mlp_adam_step_ms": ...,
"tf_save_256mib_s": ..., "tf_restore_256mib_s": ..., "tf_build_20000_ms": ...,
"tf_import_20000_ms": ..., "tf_parse_import_20000_ms": ...}
"""
import argparse
import json
import os
import sys
import tempfile
import time

os.environ.pop("TF_ENABLE_ONEDNN_OPTS", None)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf.get_logger().setLevel("ERROR")
DEFAULT_META = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "tf-2.21", "seed004", "model.ckpt.meta")


THREADS = 1


def config():
    return tf1.ConfigProto(intra_op_parallelism_threads=THREADS, inter_op_parallelism_threads=THREADS)


def median_time(fn, n, warmup):
    """Median wall time of fn() in seconds over n calls, after warmup calls."""
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def bench_add(meta, runs):
    g = tf.Graph()
    with g.as_default(), tf1.Session(graph=g, config=config()) as sess:
        if meta and os.path.isfile(meta):
            print("bench_tf: seed004 from %s" % meta, file=sys.stderr)
            tf1.train.import_meta_graph(meta).restore(sess, meta[: -len(".meta")])
        else:
            print("bench_tf: seed004 rebuilt (no meta file)", file=sys.stderr)
            v = [tf1.Variable(tf.constant(float(i), shape=[1]), name="v%d" % i) for i in (1, 2, 3)]
            add = tf.add(v[0], v[1], name="add")
            tf.add(add, v[2], name="add_1")
            sess.run(tf1.global_variables_initializer())
        out = g.get_tensor_by_name("add_1:0")
        assert sess.run(out).tolist() == [6.0]
        return median_time(lambda: sess.run(out), runs, warmup=200) * 1e6


def bench_mlp(steps, batch=64, sizes=(784, 256, 256, 10)):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    ys = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], size=batch)]
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(0)
        x = tf1.placeholder(tf.float32, [None, sizes[0]], name="x")
        y = tf1.placeholder(tf.float32, [None, sizes[-1]], name="y")
        h = x
        for i in range(len(sizes) - 1):
            with tf1.variable_scope("layer%d" % (i + 1)):
                w = tf1.get_variable("weights", [sizes[i], sizes[i + 1]])
                b = tf1.get_variable("biases", [sizes[i + 1]], initializer=tf1.zeros_initializer())
            h = tf.matmul(h, w) + b
            if i < len(sizes) - 2:
                h = tf.nn.relu(h)
        loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
        train_op = tf1.train.AdamOptimizer(0.001).minimize(loss)
        with tf1.Session(graph=g, config=config()) as sess:
            sess.run(tf1.global_variables_initializer())
            feed = {x: xs, y: ys}
            return median_time(lambda: sess.run(train_op, feed), steps, warmup=20) * 1e3


def bench_checkpoint(reps, ckpt_dir=None, nvars=16, elems=4 << 20):
    """Median seconds of Saver.save and Saver.restore of nvars float32 [elems] variables."""
    g = tf.Graph()
    with g.as_default():
        tf1.set_random_seed(0)
        for i in range(nvars):
            tf1.Variable(tf1.random_uniform([elems], seed=i), name="v%02d" % i)
        saver = tf1.train.Saver(max_to_keep=1)
        with tf1.Session(graph=g, config=config()) as sess, \
                tempfile.TemporaryDirectory(dir=ckpt_dir) as d:
            sess.run(tf1.global_variables_initializer())
            prefix = os.path.join(d, "model.ckpt")
            save = median_time(lambda: saver.save(sess, prefix, write_meta_graph=False), reps, warmup=1)
            restore = median_time(lambda: saver.restore(sess, prefix), reps, warmup=1)
            return save, restore


def build_chain(nodes=20000):
    """The 20,000-node AddV2 chain of benches/graph_import.rs, in a new graph."""
    g = tf.Graph()
    with g.as_default():
        prev = tf1.placeholder(tf.float32, [1], name="x")
        c = tf.constant([1.0], dtype=tf.float32)
        for _ in range(nodes - 2):
            prev = tf.add(prev, c)
    return g


def bench_graph(reps, nodes=20000):
    """Median ms of building the chain in Python, of tf.import_graph_def of its GraphDef,
    and of that import from the serialized bytes."""
    gd = build_chain(nodes).as_graph_def()
    assert len(gd.node) == nodes, len(gd.node)
    ops = sorted({n.op for n in gd.node})
    print("bench_tf: chain graph of %d nodes, op types %s" % (len(gd.node), ops), file=sys.stderr)

    data = gd.SerializeToString()

    def do_import(parse):
        with tf.Graph().as_default():
            tf.import_graph_def(tf1.GraphDef.FromString(data) if parse else gd, name="")

    build = median_time(lambda: build_chain(nodes), reps, warmup=1)
    imp = median_time(lambda: do_import(False), reps, warmup=1)
    parse_imp = median_time(lambda: do_import(True), reps, warmup=1)
    return build * 1e3, imp * 1e3, parse_imp * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed004-meta", default=DEFAULT_META)
    ap.add_argument("--runs", type=int, default=20000, help="sess.run calls timed for (a)")
    ap.add_argument("--steps", type=int, default=300, help="Adam steps timed for (b)")
    ap.add_argument("--ckpt-reps", type=int, default=10, help="saves and restores timed for (c)")
    ap.add_argument("--ckpt-dir", default=None, help="parent of the temporary directory for (c)")
    ap.add_argument("--only-checkpoint", action="store_true", help="run (c) only")
    ap.add_argument("--graph-reps", type=int, default=5, help="builds and imports timed for (d)")
    ap.add_argument("--only-graph", action="store_true", help="run (d) only")
    ap.add_argument("--only-mlp", action="store_true", help="run (b) only")
    ap.add_argument("--threads", type=int, default=1, help="intra- and inter-op threads (0 = TensorFlow's default)")
    a = ap.parse_args()
    global THREADS
    THREADS = a.threads
    if a.only_mlp:
        print(json.dumps({"tf_mlp_adam_step_ms": round(bench_mlp(a.steps), 4), "threads": a.threads}))
        return
    tf1.disable_v2_behavior()
    res = {}
    if not a.only_checkpoint and not a.only_graph:
        res["tf_add_run_us"] = round(bench_add(a.seed004_meta, a.runs), 3)
        res["tf_mlp_adam_step_ms"] = round(bench_mlp(a.steps), 4)
    if not a.only_graph:
        save_s, restore_s = bench_checkpoint(a.ckpt_reps, a.ckpt_dir)
        res["tf_save_256mib_s"] = round(save_s, 4)
        res["tf_restore_256mib_s"] = round(restore_s, 4)
    if not a.only_checkpoint:
        build_ms, import_ms, parse_import_ms = bench_graph(a.graph_reps)
        res["tf_build_20000_ms"] = round(build_ms, 2)
        res["tf_import_20000_ms"] = round(import_ms, 2)
        res["tf_parse_import_20000_ms"] = round(parse_import_ms, 2)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
