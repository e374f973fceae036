#!/usr/bin/env python3
"""Writes tests/data/resource_shared_name/graph.pbtxt, read by tests/resource_shared_name.rs:
VarHandleOps that name one resource through (container, shared_name), as TensorFlow's
resource manager keys them, and prints what TensorFlow 2.21 reads through each handle
after assigning through another (the test holds these values).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_resource_shared_name.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_resource_variable_ops as rv  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "resource_shared_name")


def main():
    g = tf.Graph()
    with g.as_default():
        h = {}
        for name, container, shared in [("a", "", "v"), ("b", "", "v"), ("c", "", ""), ("d", "", ""),
                                        ("e", "box", "v"), ("f", "localhost", "v")]:
            h[name] = rv.var_handle_op(dtype=tf.float32, shape=[2], container=container, shared_name=shared,
                                       name=name)
        rv.assign_variable_op(h["a"], tf.constant([1.0, 2.0], name="one_two"), name="assign_a")
        rv.assign_variable_op(h["c"], tf.constant([3.0, 4.0], name="three_four"), name="assign_c")
        rv.assign_add_variable_op(h["b"], tf.constant([10.0, 10.0], name="ten"), name="add_to_b")
        for name in h:
            rv.read_variable_op(h[name], tf.float32, name=f"read_{name}")
    tf.io.write_graph(g.as_graph_def(), OUT, "graph.pbtxt", as_text=True)
    with v1.Session(graph=g) as s:
        s.run(["assign_a", "assign_c"])
        for name in h:
            try:
                print(f"read_{name}:", s.run(f"read_{name}:0").tolist())
            except tf.errors.OpError as e:
                print(f"read_{name}:", type(e).__name__)
        s.run("add_to_b")
        print("after add_to_b, read_a:", s.run("read_a:0").tolist())


if __name__ == "__main__":
    main()
