#!/usr/bin/env python3
"""Writes tests/data/offpath/, files written by TensorFlow 2.21 for tests/offpath_*.rs and
cli/tests/cli_offpath.rs, and prints what TensorFlow does with them (held as literals there):

- unknown_ops.pbtxt: a graph with `Bucketize` (an op type tensorgraph does not register) on
  one branch of a `tf.cond` and on a path of its own;
- placeholder_v9.pbtxt / placeholder_v27.pbtxt: `c = a * b` with `a` a Placeholder whose
  `shape` attr is the empty `{}`, producer 9 and 27 (TF reads `{}` as unknown for producers
  up to 21, as a scalar after);
- freeze_v26.pbtxt / freeze_v26_frozen.pbtxt: a producer-26 graph with a variable, and
  what `convert_variables_to_constants` makes of it (it keeps `producer: 26`);
- saved_model/saved_model.pb: a SavedModel's graph file (a SavedModel proto);
- events.out.tfevents.offpath: a TensorBoard event file.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_offpath.py
"""

import glob
import os
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "offpath")


def write(gd, name):
    tf1.train.write_graph(gd, OUT, name, as_text=True)


def unknown_ops():
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None], name="x")
        p = tf1.placeholder(tf.bool, [], name="p")

        def bucketed():
            b = tf.raw_ops.Bucketize(input=x, boundaries=[0.0, 1.0], name="bucketize")
            return tf.cast(b, tf.float32)

        y = tf1.cond(p, bucketed, lambda: x * 2.0, name="cond")
        tf.identity(y, name="y")
        b2 = tf.raw_ops.Bucketize(input=x, boundaries=[0.5], name="direct")
        tf.identity(b2, name="z")
    write(g.as_graph_def(), "unknown_ops.pbtxt")
    with tf1.Session(graph=g) as s:
        xv = np.array([-1.0, 0.5, 3.0], np.float32)
        print("y (p false):", s.run("y:0", {"x:0": xv, "p:0": False}).tolist())
        print("y (p true):", s.run("y:0", {"x:0": xv, "p:0": True}).tolist())
        print("z:", s.run("z:0", {"x:0": xv}).tolist())


def placeholders():
    g = tf.Graph()
    with g.as_default():
        a = tf1.placeholder(tf.float32, shape=(), name="a")
        b = tf1.placeholder(tf.float32, shape=(), name="b")
        tf.multiply(a, b, name="c")
    gd = g.as_graph_def()
    for producer in (9, 27):
        gd.versions.producer = producer
        write(gd, "placeholder_v%d.pbtxt" % producer)
        g2 = tf.Graph()
        with g2.as_default():
            tf1.import_graph_def(gd, name="")
            print("producer", producer, "a:0 shape", g2.get_tensor_by_name("a:0").shape)
            with tf1.Session(graph=g2) as s:
                try:
                    v = s.run("c:0", {"a:0": np.array([1.0, 2.0, 3.0], np.float32), "b:0": np.float32(2.0)})
                    print("  c:", v.tolist())
                except Exception as e:  # noqa: BLE001
                    print("  error:", type(e).__name__, e)


def freeze_v26():
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 2], name="x")
        w = tf1.Variable([[1.0], [2.0]], name="w")
        tf.matmul(x, w, name="out")
    gd = g.as_graph_def()
    gd.versions.producer = 26
    write(gd, "freeze_v26.pbtxt")
    g2 = tf.Graph()
    with g2.as_default():
        tf1.import_graph_def(gd, name="")
        with tf1.Session(graph=g2) as s:
            s.run("w/Assign")
            frozen = tf1.graph_util.convert_variables_to_constants(s, g2.as_graph_def(), ["out"])
    print("frozen versions:", frozen.versions)
    write(frozen, "freeze_v26_frozen.pbtxt")


def saved_model_and_events():
    tmp = tempfile.mkdtemp()
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None], name="x")
        y = tf.multiply(x, 2.0, name="y")
        with tf1.Session(graph=g) as s:
            d = os.path.join(tmp, "sm")
            builder = tf1.saved_model.Builder(d)
            sig = tf1.saved_model.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(s, ["serve"], signature_def_map={"serving_default": sig})
            builder.save()
        w = tf1.summary.FileWriter(os.path.join(tmp, "ev"), graph=None)
        w.add_summary(tf1.Summary(value=[tf1.Summary.Value(tag="loss", simple_value=0.5)]), 1)
        w.close()
    os.makedirs(os.path.join(OUT, "saved_model"), exist_ok=True)
    shutil.copy(os.path.join(tmp, "sm", "saved_model.pb"), os.path.join(OUT, "saved_model", "saved_model.pb"))
    (ev,) = glob.glob(os.path.join(tmp, "ev", "events.out.tfevents.*"))
    shutil.copy(ev, os.path.join(OUT, "events.out.tfevents.offpath"))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    unknown_ops()
    placeholders()
    freeze_v26()
    saved_model_and_events()
