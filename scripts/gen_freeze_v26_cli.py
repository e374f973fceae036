#!/usr/bin/env python3
"""Writes tests/data/offpath/freeze_v26_ckpt/: what `tensorgraph freeze` is given on the
command line for a producer-26 graph, all written by TensorFlow 2.21, for
cli/tests/cli_offpath.rs:

- model.ckpt.meta, model.ckpt.index, model.ckpt.data-00000-of-00001: tests/data/offpath/
  freeze_v26.pbtxt (producer 26) imported into a TF graph, `w` set to [[1.5], [-2]], then
  `tf.compat.v1.train.Saver().save` (TF's importer keeps the lower producer, so the meta
  graph says `producer: 26`);
- frozen.pbtxt: `convert_variables_to_constants` of that graph in that session for output
  `out` (it keeps `producer: 26`).

Prints the meta graph's and the frozen graph's versions and `out` for x = [[1, 2]].

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_freeze_v26_cli.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "offpath")
OUT = os.path.join(DATA, "freeze_v26_ckpt")


def main():
    gd = tf1.GraphDef()
    with open(os.path.join(DATA, "freeze_v26.pbtxt")) as f:
        text_format.Parse(f.read(), gd)
    assert gd.versions.producer == 26
    os.makedirs(OUT, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(gd, name="")
        # an imported resource variable is in no collection: the saver gets its read, whose
        # input is the handle (as ResourceVariableSaveable takes a tensor)
        saver = tf1.train.Saver({"w": g.get_tensor_by_name("w/Read/ReadVariableOp:0")})
        with tf1.Session(graph=g) as s:
            s.run("w/Assign", {"w/Initializer/initial_value:0": np.array([[1.5], [-2.0]], np.float32)})
            saver.save(s, os.path.join(OUT, "model.ckpt"), write_state=False)
            frozen = tf1.graph_util.convert_variables_to_constants(s, g.as_graph_def(), ["out"])
            print("out for x = [[1, 2]]:", s.run("out:0", {"x:0": [[1.0, 2.0]]}).tolist())
    meta = tf1.MetaGraphDef()
    with open(os.path.join(OUT, "model.ckpt.meta"), "rb") as f:
        meta.ParseFromString(f.read())
    print("meta graph versions:", meta.graph_def.versions)
    print("frozen versions:", frozen.versions)
    tf1.train.write_graph(frozen, OUT, "frozen.pbtxt", as_text=True)


if __name__ == "__main__":
    main()
