#!/usr/bin/env python3
"""TensorFlow's side of scripts/bench_models.sh for one frozen model of scripts/gen_models.py.

    python scripts/bench_models_tf.py import MODEL_DIR [REPEATS]   # median time of read + import
    python scripts/bench_models_tf.py run MODEL_DIR                 # one run at batch 8; peak RSS
    python scripts/bench_models_tf.py time MODEL_DIR BATCH THREADS [RUNS]  # median run time
    python scripts/bench_models_tf.py train MODEL_DIR THREADS [RUNS]       # median training step
    python scripts/bench_models_tf.py matmul - THREADS [RUNS]              # MatMul 1024^3

`import` prints {"tf_read_import_ms": [...], "median_ms": M}: each repeat reads frozen.pb,
parses it (GraphDef.FromString) and imports it into a fresh graph (tf.import_graph_def,
name=""). `run` imports, runs input_b8.npy once in a tf.compat.v1.Session, checks the output
against expected_b8.npy and prints {"tf_run_s": ..., "tf_peak_rss_mb": ...} (the process's
ru_maxrss, Python and TensorFlow's runtime included, as a user's serving process has them).
`time` runs input_b{BATCH}.npy in a session with intra_op_parallelism_threads=THREADS
(0 = TensorFlow's default) and inter_op_parallelism_threads=THREADS, two warm-up runs, then
RUNS timed runs (default 10), and prints {"tf_ms": [...], "median_ms": M}. `train` does the
same for one training step of a training model (cnn_bn, lstm_classifier): import_meta_graph of
model.ckpt.meta, restore model.ckpt, run (loss, train_op) on batch_x_0/batch_y_0.npy. `matmul`
times tf.matmul of two float32 [1024, 1024] placeholders (fed) and adds "gflops".
Run with TF_ENABLE_ONEDNN_OPTS=0 in the environment for TensorFlow without oneDNN.
"""
import json
import os
import resource
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1


def read(d):
    with open(os.path.join(d, "frozen.pb"), "rb") as f:
        return f.read()


def timed(s, fetches, feed, runs):
    """Two warm-up runs, then the times of RUNS runs in ms and their median."""
    for _ in range(2):
        s.run(fetches, feed)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        s.run(fetches, feed)
        times.append((time.perf_counter() - t) * 1e3)
    return [round(t, 3) for t in times], round(sorted(times)[len(times) // 2], 3)


def config(threads):
    return v1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)


def main():
    what, d = sys.argv[1], sys.argv[2]
    if what == "matmul":
        threads = int(sys.argv[3])
        runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
        n = 1024
        g = tf.Graph()
        with g.as_default():
            a = v1.placeholder(tf.float32, [n, n])
            b = v1.placeholder(tf.float32, [n, n])
            c = tf.matmul(a, b)
        va = (np.arange(n * n) * 7919 % 1000 / 1000.0).astype(np.float32).reshape(n, n)
        vb = (np.arange(n * n) * 104729 % 1000 / 1000.0).astype(np.float32).reshape(n, n)
        with v1.Session(graph=g, config=config(threads)) as s:
            times, med = timed(s, c, {a: va, b: vb}, runs)
        print(json.dumps({"tf_ms": times, "median_ms": med, "gflops": round(2 * n**3 / (med / 1e3) / 1e9, 1)}))
        return
    m = json.load(open(os.path.join(d, "manifest.json")))
    if what == "train":
        threads = int(sys.argv[3])
        runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
        g = tf.Graph()
        with g.as_default():
            saver = v1.train.import_meta_graph(os.path.join(d, "model.ckpt.meta"))
        feed = {
            g.get_tensor_by_name(m["x"]): np.load(os.path.join(d, "batch_x_0.npy")),
            g.get_tensor_by_name(m["y"]): np.load(os.path.join(d, "batch_y_0.npy")),
        }
        with v1.Session(graph=g, config=config(threads)) as s:
            saver.restore(s, os.path.join(d, "model.ckpt"))
            times, med = timed(s, [m["loss"], m["train_op"]], feed, runs)
        print(json.dumps({"tf_ms": times, "median_ms": med}))
        return
    if what == "import":
        times = []
        for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
            t = time.perf_counter()
            gd = v1.GraphDef.FromString(read(d))
            with tf.Graph().as_default():
                tf.import_graph_def(gd, name="")
            times.append((time.perf_counter() - t) * 1e3)
        print(json.dumps({"tf_read_import_ms": [round(t, 2) for t in times], "median_ms": round(sorted(times)[len(times) // 2], 2)}))
    elif what == "time":
        batch, threads = int(sys.argv[3]), int(sys.argv[4])
        runs = int(sys.argv[5]) if len(sys.argv) > 5 else 10
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(v1.GraphDef.FromString(read(d)), name="")
        cfg = v1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
        x = np.load(os.path.join(d, f"input_b{batch}.npy"))
        with v1.Session(graph=g, config=cfg) as s:
            for _ in range(2):
                s.run(m["output"], {m["input"]: x})
            times = []
            for _ in range(runs):
                t = time.perf_counter()
                s.run(m["output"], {m["input"]: x})
                times.append((time.perf_counter() - t) * 1e3)
        print(json.dumps({"tf_ms": [round(t, 2) for t in times], "median_ms": round(sorted(times)[len(times) // 2], 2)}))
    else:
        t = time.perf_counter()
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(v1.GraphDef.FromString(read(d)), name="")
        with v1.Session(graph=g) as s:
            y = s.run(m["output"], {m["input"]: np.load(os.path.join(d, "input_b8.npy"))})
        err = float(np.abs(y - np.load(os.path.join(d, "expected_b8.npy"))).max())
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"tf_run_s": round(time.perf_counter() - t, 3), "tf_peak_rss_mb": round(rss, 1), "max_abs_err": err}))


if __name__ == "__main__":
    main()
