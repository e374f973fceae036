#!/usr/bin/env python3
"""Write, with TensorFlow itself, a DIR shaped like `tensorgraph demo --out DIR`.

Usage: make_reference.py DIR [--steps N] [--seed S]

Builds the demo model (check_demo.build_model, F=4, H1=H2=16, C=3), trains a few
Adam steps on random data, saves DIR/model.ckpt with tf.train.Saver (relative
paths in DIR/checkpoint, no .meta) and writes DIR/forecast.json. Used to test
check_demo.py before/independently of the Rust demo.
"""
import argparse
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from check_demo import build_model, var_name  # noqa: E402

tf1 = tf.compat.v1
F, HIDDEN, C = 4, [16, 16], 3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    tf1.disable_v2_behavior()
    os.makedirs(a.dir, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    xs = rng.normal(size=(32, F)).astype(np.float32)
    ys = np.eye(C, dtype=np.float32)[rng.integers(0, C, size=32)]

    tf1.set_random_seed(a.seed)
    m = build_model(F, HIDDEN, C)
    model_vars = tf1.trainable_variables()
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        for _ in range(a.steps):
            sess.run(m["train"], {m["x"]: xs, m["y"]: ys})
        tf1.train.Saver(save_relative_paths=True).save(
            sess, os.path.join(os.path.abspath(a.dir), "model.ckpt"), write_meta_graph=False)
        inputs = xs[:8]
        probs = sess.run(m["probs"], {m["x"]: inputs})

    forecast = {
        "hidden": HIDDEN, "num_features": F, "num_classes": C,
        "variables": [{"name": var_name(v), "dtype": v.dtype.base_dtype.name,
                       "shape": v.shape.as_list()} for v in model_vars],
        "inputs": inputs.tolist(),  # float32 -> exact float64 values
        "probabilities": probs.tolist(),
    }
    with open(os.path.join(a.dir, "forecast.json"), "w") as f:
        json.dump(forecast, f, indent=1)
    print("wrote %s" % a.dir)


if __name__ == "__main__":
    main()
