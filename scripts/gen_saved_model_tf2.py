#!/usr/bin/env python3
"""Writes tests/data/saved_model_tf2/module: a TF2 SavedModel made by TensorFlow 2.21's
`tf.saved_model.save` (eager, a tf.function signature), read by tests/saved_model_tf2.rs:
a tf.Module with resource variables w [3, 2], b [2] and a `serving_default` signature
y = relu(x @ w + b) (x: float32 [None, 3]).

Prints its output for x = [[1, 2, 3], [-1, 0.5, 2]], which the test holds. Keras models
saved as SavedModels are scripts/gen_saved_model_keras.py's.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_saved_model_tf2.py
"""

import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "saved_model_tf2")
X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)


class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0.5, -1.0], [0.25, 2.0], [-0.75, 0.5]], name="w")
        self.b = tf.Variable([0.1, -0.2], name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": tf.nn.relu(tf.matmul(x, self.w) + self.b)}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    m = Dense()
    tf.saved_model.save(m, os.path.join(OUT, "module"), signatures={"serving_default": m.__call__})
    print("module y:", m(X)["y"].numpy().reshape(-1).tolist())

if __name__ == "__main__":
    main()
