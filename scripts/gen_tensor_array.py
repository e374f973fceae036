#!/usr/bin/env python3
"""Generate the TensorArray test graph and TensorFlow 2.21's results for it
(tests/data/tensor_array, read by tests/ops_tensor_array.rs).

Usage (with the interop virtualenv's python, see interop/setup_venv.sh):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/gen_tensor_array.py [OUTDIR]

Writes, in graph mode with control flow v1:

- lstm.pbtxt: a frozen `tf.compat.v1.nn.dynamic_rnn` over an LSTM cell of 4 units (LSTMCell's math) (batch 2, time
  5, input 3, fixed seed), fed by the placeholder `x`, with `loss = sum(outputs * w)` and
  TensorFlow's own `tf.gradients(loss, [kernel, x])` (the gradient while loop with its
  StackV2/StackPushV2/StackPopV2 ops and TensorArrayGradV3), frozen to constants;
- lstm.json: the input, the names of the fetched tensors, and TensorFlow's values of the
  outputs, the final state, the loss and both gradients.
"""

import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402

tf.disable_eager_execution()
tf.disable_control_flow_v2()
tf.disable_resource_variables()
tf.logging.set_verbosity(tf.logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "tensor_array")


def tensor_json(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


class LSTM:
    """`tf.nn.rnn_cell.LSTMCell(4)`'s computation (forget_bias 1, no peepholes) as a
    plain RNNCell-like object: TensorFlow 2.21 without tf-keras has no LSTMCell."""

    def __init__(self, units, seed):
        self.units = units
        self.seed = seed
        self.output_size = units
        self.state_size = (units, units)

    def zero_state(self, batch, dtype):
        return (tf.zeros([batch, self.units], dtype), tf.zeros([batch, self.units], dtype))

    def __call__(self, inputs, state):
        c, h = state
        with tf.variable_scope("lstm_cell", reuse=tf.AUTO_REUSE):
            n_in = inputs.shape[-1] + self.units
            kernel = tf.get_variable("kernel", [n_in, 4 * self.units],
                                     initializer=tf.glorot_uniform_initializer(seed=self.seed))
            bias = tf.get_variable("bias", [4 * self.units], initializer=tf.zeros_initializer())
        z = tf.nn.bias_add(tf.matmul(tf.concat([inputs, h], 1), kernel), bias)
        i, j, f, o = tf.split(z, 4, axis=1)
        new_c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
        new_h = tf.tanh(new_c) * tf.sigmoid(o)
        return new_h, (new_c, new_h)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(7)
    x_val = rng.uniform(-1, 1, size=(2, 5, 3)).astype(np.float32)
    w_val = rng.uniform(-1, 1, size=(2, 5, 4)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [2, 5, 3], name="x")
        cell = LSTM(4, seed=3)
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        outputs = tf.identity(outputs, name="outputs")
        c = tf.identity(state[0], name="state_c")
        h = tf.identity(state[1], name="state_h")
        loss = tf.reduce_sum(outputs * tf.constant(w_val), name="loss")
        kernel = [v for v in tf.global_variables() if v.name.endswith("kernel:0")][0]
        bias = [v for v in tf.global_variables() if v.name.endswith("bias:0")][0]
        gk, gx = tf.gradients(loss, [kernel, x])
        gk = tf.identity(gk, name="grad_kernel")
        gx = tf.identity(gx, name="grad_x")
        names = ["outputs", "state_c", "state_h", "loss", "grad_kernel", "grad_x"]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            # a non-zero bias, so the gradient check sees it
            s.run(bias.assign(rng.uniform(-0.5, 0.5, size=bias.shape).astype(np.float32)))
            values = s.run([outputs, c, h, loss, gk, gx], {x: x_val})
            frozen = tf.graph_util.convert_variables_to_constants(s, g.as_graph_def(), names)
    # the frozen graph runs in TensorFlow to the same values
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as s:
            again = s.run([n + ":0" for n in names], {"x:0": x_val})
    for a, b in zip(values, again):
        assert np.allclose(a, b, atol=1e-6), "the frozen graph differs"
    with open(os.path.join(OUT, "lstm.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(frozen))
    ops = sorted({n.op for n in frozen.node})
    doc = {
        "feeds": {"x:0": tensor_json(x_val)},
        "fetches": {n + ":0": tensor_json(v) for n, v in zip(names, values)},
        "op_types": ops,
    }
    with open(os.path.join(OUT, "lstm.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print("wrote", OUT, len(frozen.node), "nodes; ops:", " ".join(ops))


if __name__ == "__main__":
    main()
