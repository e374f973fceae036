#!/usr/bin/env python3
"""TensorFlow 2.21's graph and numbers for tests/conv_dilations.rs: Conv2D with `dilations`
and with `padding="EXPLICIT"` (`tf.nn.conv2d(..., dilations=...)`, explicit paddings as
nested lists), alone and together, with TensorFlow's gradient subgraphs
(Conv2DBackpropInput/Filter carrying the same attrs) where its CPU kernels have them (not for
dilation rates above 1: "Current CPU implementations do not yet support dilation rates
larger than 1.").

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_conv_dilations.py

writes tests/data/conv_dilations/conv.pbtxt (the graph TensorFlow built) and conv.json
(`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes them, with its
helpers). Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "conv_dilations")


def conv(outs, errs):
    rng = np.random.RandomState(7)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), np.shape(v))  # noqa: E731
    x = dyn(rng.uniform(-1, 1, [2, 9, 8, 3]).astype(np.float32))
    f = dyn(rng.uniform(-1, 1, [3, 3, 3, 4]).astype(np.float32))
    cases = {
        "dil2_same": dict(strides=1, padding="SAME", dilations=[1, 2, 2, 1]),
        "dil23_valid": dict(strides=1, padding="VALID", dilations=[1, 2, 3, 1]),
        "explicit": dict(strides=[1, 2, 2, 1], padding=[[0, 0], [1, 2], [0, 3], [0, 0]]),
        "explicit_dil": dict(strides=[1, 1, 2, 1], padding=[[0, 0], [2, 0], [1, 1], [0, 0]], dilations=[1, 2, 1, 1]),
    }
    for name, kw in cases.items():
        y = tf.nn.conv2d(x, f, **kw)
        outs[name] = y
        if "dilations" in kw:
            continue  # TF 2.21's CPU backprop kernels refuse dilation rates above 1
        w = tf.constant(rng.uniform(-1, 1, y.shape.as_list()).astype(np.float32))
        gx, gf = tf.gradients(tf.reduce_sum(y * w), [x, f])
        outs[f"{name}_dx"] = gx
        outs[f"{name}_df"] = gf
    x64 = dyn(rng.uniform(-1, 1, [1, 6, 6, 2]), tf.float64)
    f64 = dyn(rng.uniform(-1, 1, [2, 2, 2, 3]), tf.float64)
    outs["dil_f64"] = tf.nn.conv2d(x64, f64, 1, "SAME", dilations=[1, 3, 3, 1])


def main():
    nn4.write("conv", conv, dict)


if __name__ == "__main__":
    main()
