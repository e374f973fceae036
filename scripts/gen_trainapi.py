#!/usr/bin/env python3
"""Writes tests/data/trainapi/, what TensorFlow 2.21 writes and computes for
tests/checkpoint_v1.rs, tests/moving_average.rs and tests/global_step.rs:

- v1/model.ckpt: a V1 checkpoint (tf.compat.v1.train.Saver(write_version=V1)) holding
  `w` (float32 2x3), `count` (int64 scalar), `part` (float32 4x2, a variable partitioned in
  two, saved as two slices of one tensor) and `label` (a string scalar);
- trainapi.json: those values; the shadow values of an ExponentialMovingAverage(0.9,
  num_updates=global_step) after each of three updates; the node names and op types TF adds
  for get_or_create_global_step, ExponentialMovingAverage.apply and
  minimize(global_step=...) with reference variables (TF1's).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_trainapi.py
"""

import json
import os
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_resource_variables()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "trainapi")
os.makedirs(os.path.join(OUT, "v1"), exist_ok=True)
facts = {}

# A V1 checkpoint.
g = tf.Graph()
with g.as_default():
    w = tf1.get_variable("w", initializer=tf.constant([[1.5, -2.0, 3.25], [0.0, 4.0, -0.5]]))
    count = tf1.get_variable("count", initializer=tf.constant(7, tf.int64))
    part = tf1.get_variable(
        "part",
        initializer=tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2) / 4),
        partitioner=tf1.fixed_size_partitioner(2),
    )
    label = tf1.get_variable("label", initializer=tf.constant(b"hello"), dtype=tf.string)
    saver = tf1.train.Saver(write_version=tf1.train.SaverDef.V1)
    with tf1.Session() as s:
        s.run(tf1.global_variables_initializer())
        tmp = tempfile.mkdtemp()
        saver.save(s, os.path.join(tmp, "model.ckpt"), write_meta_graph=False)
        shutil.copy(os.path.join(tmp, "model.ckpt"), os.path.join(OUT, "v1", "model.ckpt"))
        shutil.rmtree(tmp)
        facts["v1"] = {
            "w": s.run(w).tolist(),
            "count": int(s.run(count)),
            "part": s.run(tf.concat(list(part), 0)).tolist(),
            "label": s.run(label).decode(),
        }
    reader = tf1.train.NewCheckpointReader(os.path.join(OUT, "v1", "model.ckpt"))
    facts["v1_listing"] = sorted([k, str(v)] for k, v in reader.get_variable_to_shape_map().items())

# Global step, moving averages and minimize(global_step=...).
g = tf.Graph()
with g.as_default():
    v = tf1.get_variable("v", initializer=tf.constant([1.0, 2.0]))
    w = tf1.get_variable("s/w", initializer=tf.constant(3.0))
    n0 = len(g.as_graph_def().node)
    gs = tf1.train.get_or_create_global_step()
    n1 = len(g.as_graph_def().node)
    ema = tf1.train.ExponentialMovingAverage(0.9, num_updates=gs)
    apply = ema.apply([v, w])
    n2 = len(g.as_graph_def().node)
    loss = tf.reduce_sum(v * v) + w * w
    train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    nodes = g.as_graph_def().node
    facts["global_step_nodes"] = [[n.name, n.op] for n in nodes[n0:n1]]
    facts["ema_update_nodes"] = [
        [n.name, n.op, list(n.input)] for n in nodes[n1:n2] if n.name.startswith("ExponentialMovingAverage")
    ]
    facts["ema_colocation"] = {
        n.name: [c.decode() for c in n.attr["_class"].list.s] for n in nodes[n1:n2] if "_class" in n.attr
    }
    facts["minimize_tail_nodes"] = [[n.name, n.op, list(n.input)] for n in nodes[-3:]]
    facts["variables_to_restore"] = sorted([k, x.op.name] for k, x in ema.variables_to_restore().items())
    facts["moving_average_variables"] = [x.op.name for x in tf1.moving_average_variables()]
    with tf1.Session() as s:
        # TF 2.21's shadow initializer (a cond on IsVariableInitialized) fails when it runs
        # before the variable's own initializer: initialize the variables first.
        s.run([v.initializer, w.initializer, gs.initializer])
        s.run(tf1.global_variables_initializer())
        steps = []
        for _ in range(3):
            s.run(train)
            s.run(apply)
            steps.append(
                {
                    "global_step": int(s.run(gs)),
                    "v": s.run(v).tolist(),
                    "s/w": float(s.run(w)),
                    "v/ExponentialMovingAverage": s.run(ema.average(v)).tolist(),
                    "s/w/ExponentialMovingAverage": float(s.run(ema.average(w))),
                }
            )
        facts["ema_steps"] = steps

with open(os.path.join(OUT, "trainapi.json"), "w") as f:
    json.dump(facts, f, indent=1)
    f.write("\n")
print(json.dumps(facts, indent=1))
