#!/usr/bin/env python3
"""Writes tests/data/saved_model_keras: small Keras models saved as TF2 SavedModels by
TensorFlow 2.21, read by tests/saved_model_keras.rs and cli/tests/saved_model_keras.rs.

- `tf_keras/`: a tf-keras (Keras 2, `TF_USE_LEGACY_KERAS=1`) functional model
  Conv2D(4, 3x3) -> BatchNormalization -> ReLU -> Flatten -> Dense(3), saved by
  `model.save(DIR, save_format="tf")` (Keras' own SavedModel: resource variables, a
  `serving_default` signature over `StatefulPartitionedCall`, the object graph's restore).
- `keras3/`: the same model in Keras 3 (the venv's `keras`), written by `model.export(DIR)`
  (an `ExportArchive`: signatures `serve` and `serving_default`).

Fixed seeds; the batch-norm moving statistics are set to non-trivial values so that a model
that ignores them gives other numbers. Inputs `x1.npy` (batch 1) and `x8.npy` (batch 8) and
TensorFlow's outputs `<model>_y1.npy`, `<model>_y8.npy` sit beside the models.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_saved_model_keras.py
"""

import os
import shutil
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "saved_model_keras")


def stats(n, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    return [
        rng.uniform(0.5, 1.5, n).astype(np.float32),  # gamma
        rng.uniform(-0.2, 0.2, n).astype(np.float32),  # beta
        rng.uniform(-0.3, 0.3, n).astype(np.float32),  # moving mean
        rng.uniform(0.5, 2.0, n).astype(np.float32),  # moving variance
    ]


def build(keras):
    import numpy as np
    keras.utils.set_random_seed(7)
    x = keras.Input(shape=(6, 6, 2), name="image")
    h = keras.layers.Conv2D(4, 3, padding="valid", name="conv")(x)
    h = keras.layers.BatchNormalization(name="bn", epsilon=1e-3)(h)
    h = keras.layers.ReLU(name="relu")(h)
    h = keras.layers.Flatten(name="flatten")(h)
    y = keras.layers.Dense(3, name="logits")(h)
    model = keras.Model(x, y, name="small_cnn")
    model.get_layer("bn").set_weights(stats(4, 11))
    return model


def inputs():
    import numpy as np
    rng = np.random.default_rng(3)
    x8 = rng.uniform(-1.0, 1.0, (8, 6, 6, 2)).astype(np.float32)
    return x8[:1].copy(), x8


def write(kind):
    import numpy as np
    import tensorflow as tf
    x1, x8 = inputs()
    if kind == "tf_keras":
        import tf_keras as keras
        model = build(keras)
        model.save(os.path.join(OUT, kind), save_format="tf")
    else:
        import keras
        model = build(keras)
        model.export(os.path.join(OUT, kind), verbose=False)
    loaded = tf.saved_model.load(os.path.join(OUT, kind))
    fn = loaded.signatures["serving_default"]
    for name, x in (("1", x1), ("8", x8)):
        out = fn(tf.constant(x))
        (key, y), = out.items()
        y = y.numpy()
        np.testing.assert_allclose(y, np.asarray(model(x)), rtol=1e-5, atol=1e-6)
        np.save(os.path.join(OUT, f"{kind}_y{name}.npy"), y)
        print(kind, "batch", name, "output key", key, "inputs",
              list(fn.structured_input_signature[1].keys()), "y[0] =", y[0].tolist())
    if kind == "tf_keras":
        np.save(os.path.join(OUT, "x1.npy"), x1)
        np.save(os.path.join(OUT, "x8.npy"), x8)


def main():
    if len(sys.argv) == 2:
        write(sys.argv[1])
        return
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    # One process each: TF_USE_LEGACY_KERAS decides which Keras `tf.keras` is at import.
    subprocess.check_call([sys.executable, __file__, "tf_keras"], env={**os.environ, "TF_USE_LEGACY_KERAS": "1"})
    subprocess.check_call([sys.executable, __file__, "keras3"], env={**os.environ, "TF_USE_LEGACY_KERAS": "0"})
    for kind in ("tf_keras", "keras3"):
        for d in ("assets",):
            p = os.path.join(OUT, kind, d)
            if os.path.isdir(p) and not os.listdir(p):
                os.rmdir(p)


if __name__ == "__main__":
    main()
