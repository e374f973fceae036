#!/usr/bin/env python3
"""TensorFlow 2.21's numbers for tests/ops_elementwise_more.rs (Log1p, Expm1, Sin, Cos,
Tan, IsFinite, IsNan, IsInf, reductions over a repeated axis), printed as literals, and
the op types of TensorFlow's gradient graphs for the differentiable ones.

    TF_CPP_MIN_LOG_LEVEL=2 ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_elementwise.py

Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

X = [-2.5, -1.0, -0.3, 0.0, 1e-5, 0.7, 2.0, 3.0]
SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -1.5, 3e38]


def lit(v):
    v = np.asarray(v).reshape(-1)
    if v.dtype == bool:
        return "[" + ", ".join("true" if b else "false" for b in v) + "]"
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def main():
    fns = {"Log1p": tf.math.log1p, "Expm1": tf.math.expm1, "Sin": tf.sin, "Cos": tf.cos, "Tan": tf.tan}
    for dt in (tf.float32, tf.float64):
        g = tf.Graph()
        with g.as_default(), tf.Session() as s:
            x = tf.constant(X, dt)
            for name, f in fns.items():
                print(f"{name} {dt.name}: {lit(s.run(f(x)))}")
    g = tf.Graph()
    with g.as_default(), tf.Session() as s:
        x = tf.constant(SPECIAL, tf.float32)
        for name, f in {"IsFinite": tf.math.is_finite, "IsNan": tf.math.is_nan, "IsInf": tf.math.is_inf}.items():
            print(f"{name}: {lit(s.run(f(x)))}")
    for name, f in fns.items():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [3], name="x")
            before = {op.name for op in g.get_operations()}
            tf.gradients(f(x), x)
            types = sorted({op.type for op in g.get_operations() if op.name.startswith("gradients/")
                            and op.name not in before and "_grad" in op.name})
            print(f"{name} gradient op types: {types}")
    g = tf.Graph()
    with g.as_default(), tf.Session() as s:
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        for axes in ([0, 0], [1, -1]):
            y = tf.reduce_sum(x, axes)
            try:
                s.run(y)
            except tf.errors.InvalidArgumentError as e:
                print(f"Sum {axes}: static {y.shape}: {[m for m in e.message.splitlines() if 'Invalid' in m][0]}")


main()
