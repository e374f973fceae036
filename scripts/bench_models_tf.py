#!/usr/bin/env python3
"""TensorFlow's side of scripts/bench_models.sh for one frozen model of scripts/gen_models.py.

    python scripts/bench_models_tf.py import MODEL_DIR [REPEATS]   # median time of read + import
    python scripts/bench_models_tf.py run MODEL_DIR                 # one run at batch 8; peak RSS
    python scripts/bench_models_tf.py time MODEL_DIR BATCH THREADS [RUNS]  # median run time

`import` prints {"tf_read_import_ms": [...], "median_ms": M}: each repeat reads frozen.pb,
parses it (GraphDef.FromString) and imports it into a fresh graph (tf.import_graph_def,
name=""). `run` imports, runs input_b8.npy once in a tf.compat.v1.Session, checks the output
against expected_b8.npy and prints {"tf_run_s": ..., "tf_peak_rss_mb": ...} (the process's
ru_maxrss, Python and TensorFlow's runtime included, as a user's serving process has them).
`time` runs input_b{BATCH}.npy in a session with intra_op_parallelism_threads=THREADS
(0 = TensorFlow's default) and inter_op_parallelism_threads=THREADS, two warm-up runs, then
RUNS timed runs (default 10), and prints {"tf_ms": [...], "median_ms": M}.
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


def main():
    what, d = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(d, "manifest.json")))
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
