"""TensorFlow's side of examples/bench_events.rs: 100,000 scalar events through
tf.compat.v1.summary.FileWriter.add_summary (serialized summaries), then close; prints the
total time and the per-call times (median, 99th percentile, max).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/bench_events_tf.py [N]
"""
import os
import shutil
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
d = tempfile.mkdtemp()
summaries = [tf1.Summary(value=[tf1.Summary.Value(tag="loss", simple_value=float(i))]).SerializeToString() for i in range(n)]
lat = []
t0 = time.perf_counter()
w = tf1.summary.FileWriter(d)
for i, s in enumerate(summaries):
    t = time.perf_counter()
    w.add_summary(s, i)
    lat.append((time.perf_counter() - t) * 1e6)
w.close()
total = time.perf_counter() - t0
lat.sort()
print("tensorflow: %d scalar events in %.3f s; add_summary median %.2f us, p99 %.2f us, max %.1f us"
      % (n, total, lat[len(lat) // 2], lat[int((len(lat) - 1) * 0.99)], lat[-1]))
shutil.rmtree(d)
