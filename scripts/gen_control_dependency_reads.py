#!/usr/bin/env python3
"""Writes tests/data/control_dependency_reads/{ref,resource}.pbtxt for
tests/control_dependency_reads.rs: a variable `ticks` (0.0), `bump` adding 1 to it, and
`after = tf.identity(ticks)` built under `tf.control_dependencies([bump])`, with a
reference and with a resource variable. Prints what TensorFlow 2.21 fetches for `after`
three times in one session ([1.0, 2.0, 3.0] for both: the read runs after the update).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_control_dependency_reads.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
out = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "control_dependency_reads")
os.makedirs(out, exist_ok=True)
for kind in ["ref", "resource"]:
    g = tf.Graph()
    with g.as_default():
        ticks = tf1.Variable(0.0, name="ticks", use_resource=(kind == "resource"))
        bump = tf1.assign_add(ticks, 1.0, name="bump")
        with tf.control_dependencies([bump]):
            after = tf.identity(ticks, name="after")
        tf1.global_variables_initializer()
        with tf1.Session() as s:
            s.run("init")
            print(kind, [float(s.run(after)) for _ in range(3)])
    tf.io.write_graph(g.as_graph_def(), out, kind + ".pbtxt", as_text=True)
