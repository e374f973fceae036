#!/usr/bin/env python3
"""TensorFlow 2.21's values for the stateless random ops and the seeded stateful ones
(RandomUniform, RandomStandardNormal, TruncatedNormal; tests/ops_stateless_random.rs):
writes tests/data/stateless_random/cases.json, and the TensorFlow-written meta graph
tests/data/stateless_random/init_v2.meta with its variables' values after `init`
(init_values.json).

    TF_USE_LEGACY_KERAS=1 TF_CPP_MIN_LOG_LEVEL=2 ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_stateless_random.py

Each case runs one op in a tf.compat.v1 graph on CPU. Values are stored as their bits
(float32 as uint32, float64 as uint64) so the test can compare them exactly; errors are
stored as (status code name, message).
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers needs tf-keras
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "stateless_random", "cases.json")

SHAPES = [[], [1], [3], [5], [2, 3], [7, 9], [4, 33]]
SEEDS = [([0, 0], "int64"), ([1, 2], "int32"), ([-7, 123456789], "int32"), ([2**40 + 5, -(2**50)], "int64")]
KEY_COUNTERS = [
    (2**64 - 1, [2**64 - 2, 7]),  # the counter's low half carries into the high half
    (0x0123456789ABCDEF, [0, 2**64 - 1]),
]
DTYPES = {"float32": (tf.float32, np.uint32), "float64": (tf.float64, np.uint64)}


def run(build):
    g = tf.Graph()
    with g.as_default():
        outs = build()
        with v1.Session(graph=g) as sess:
            return sess.run(outs)


def bits(a, np_bits):
    return [int(x) for x in np.asarray(a).reshape(-1).view(np_bits)]


def kernel_message(m):
    """The kernel's own message: the line before the `[[{{node ...}}]]` TensorFlow adds."""
    lines = [x for x in m.split("\n") if x.strip()]
    for i, x in enumerate(lines):
        if x.strip().startswith("[[{{node"):
            return lines[i - 1].strip()
    return lines[-1]


def main():
    cases = []
    for seed, sdt in SEEDS:
        key, counter = run(lambda: tf.raw_ops.StatelessRandomGetKeyCounter(seed=tf.constant(seed, dtype=sdt)))
        cases.append({"op": "StatelessRandomGetKeyCounter", "seed": seed, "seed_dtype": sdt,
                      "key": [int(k) for k in key], "counter": [int(c) for c in counter]})
        for op in ["StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"]:
            for dname, (dt, nb) in DTYPES.items():
                for shape in SHAPES:
                    v = run(lambda: getattr(tf.raw_ops, op)(
                        shape=tf.constant(shape, dtype=tf.int32), seed=tf.constant(seed, dtype=sdt), dtype=dt))
                    cases.append({"op": op, "dtype": dname, "shape": shape, "seed": seed, "seed_dtype": sdt,
                                  "bits": bits(v, nb)})
    for key, counter in KEY_COUNTERS:
        for alg in [1, 3]:
            for op in ["StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"]:
                for dname, (dt, nb) in DTYPES.items():
                    for shape in SHAPES:
                        v = run(lambda: getattr(tf.raw_ops, op)(
                            shape=tf.constant(shape, dtype=tf.int64), key=tf.constant(np.array([key], dtype=np.uint64)),
                            counter=tf.constant(np.array(counter, dtype=np.uint64)), alg=tf.constant(alg, dtype=tf.int32),
                            dtype=dt))
                        cases.append({"op": op, "dtype": dname, "shape": shape, "key": [key], "counter": counter,
                                      "alg": alg, "bits": bits(v, nb)})
    # the stateful ops with their seeds set: two runs of one session (the second starts
    # 256 Philox blocks per value further along), then a new session repeating the first
    for op in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"]:
        for dname, (dt, nb) in DTYPES.items():
            for shape, seed, seed2 in [([5], 87654321, 1), ([2, 3], 1, 0), ([7, 9], 0, 42), ([4, 33], -5, 2**40)]:
                g = tf.Graph()
                with g.as_default():
                    r = getattr(tf.raw_ops, op)(shape=tf.constant(shape, tf.int32), dtype=dt, seed=seed, seed2=seed2)
                    with v1.Session(graph=g) as sess:
                        runs = [bits(sess.run(r), nb) for _ in range(2)]
                cases.append({"op": op, "dtype": dname, "shape": shape, "seed": seed, "seed2": seed2, "runs": runs})
    # errors: (op, inputs) -> TensorFlow's status
    errors = []

    def err(name, build):
        try:
            run(build)
            raise SystemExit(f"{name}: no error")
        except tf.errors.OpError as e:
            errors.append({"case": name, "code": type(e).__name__, "message": kernel_message(e.message)})

    u64 = tf.uint64
    err("seed_shape", lambda: tf.raw_ops.StatelessRandomUniform(
        shape=v1.placeholder_with_default([2], None), seed=v1.placeholder_with_default(tf.constant([1, 2, 3], tf.int64), None)))
    err("key_shape", lambda: tf.raw_ops.StatelessRandomUniformV2(
        shape=[2], key=v1.placeholder_with_default(tf.constant([1, 2], u64), None),
        counter=tf.constant([0, 0], u64), alg=1))
    err("alg_threefry", lambda: tf.raw_ops.StatelessRandomUniformV2(
        shape=[2], key=tf.constant([1], u64), counter=tf.constant([0, 0], u64), alg=2))
    err("alg_rank", lambda: tf.raw_ops.StatelessRandomUniformV2(
        shape=[2], key=tf.constant([1], u64), counter=tf.constant([0, 0], u64),
        alg=v1.placeholder_with_default([1], None)))
    err("negative_dim", lambda: tf.raw_ops.StatelessRandomNormalV2(
        shape=v1.placeholder_with_default([2, -3], None), key=tf.constant([1], u64),
        counter=tf.constant([0, 0], u64), alg=1))
    err("shape_rank", lambda: tf.raw_ops.StatelessRandomNormal(
        shape=v1.placeholder_with_default([[2]], None), seed=tf.constant([1, 2], tf.int64)))
    err("get_key_counter_seed", lambda: tf.raw_ops.StatelessRandomGetKeyCounter(
        seed=v1.placeholder_with_default(tf.constant([1], tf.int64), None)))
    with open(OUT, "w") as f:
        json.dump({"written_by": f"TensorFlow {tf.__version__}, scripts/gen_stateless_random.py",
                   "cases": cases, "errors": errors}, f)
    print(len(cases), "cases;", json.dumps(errors, indent=1))




def init_graph():
    """tests/data/stateless_random/init_v2.meta: tf.compat.v1.layers.dense/conv2d and
    get_variable with TF2 initializers (graph mode, TF2 behaviour: the initializers build
    StatelessRandomGetKeyCounter + StatelessRandomUniformV2 / NormalV2 / TruncatedNormalV2),
    and init_values.json: every variable after running `init` in TensorFlow."""
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        h = v1.layers.dense(x, 3, name="d1")
        v1.layers.conv2d(tf.reshape(x, [-1, 2, 2, 1]), 2, 1, name="c1")
        v1.get_variable("w", [4, 2])
        v1.get_variable("n", [5, 3], initializer=tf.keras.initializers.RandomNormal(seed=7))
        v1.get_variable("t", [6, 7], initializer=tf.keras.initializers.TruncatedNormal(seed=11))
        v1.get_variable("he", [3, 3, 2, 4], initializer=tf.keras.initializers.HeNormal(seed=5))
        v1.get_variable("d", [9], dtype=tf.float64, initializer=tf.keras.initializers.RandomUniform(-2.0, 3.0, seed=3))
        tf.identity(h, name="y")
        init = v1.global_variables_initializer()
        v1.train.export_meta_graph(os.path.join(os.path.dirname(OUT), "init_v2.meta"))
        ops = sorted({n.op for n in g.as_graph_def().node if "Random" in n.op})
        with v1.Session(graph=g) as sess:
            sess.run(init)
            values = {v.op.name: {"dtype": v.dtype.base_dtype.name, "shape": v.shape.as_list(),
                                  "values": sess.run(v).reshape(-1).tolist()} for v in v1.global_variables()}
    with open(os.path.join(os.path.dirname(OUT), "init_values.json"), "w") as f:
        json.dump({"written_by": f"TensorFlow {tf.__version__}, scripts/gen_stateless_random.py",
                   "random_ops": ops, "variables": values}, f, indent=1)
    print("init graph:", ops, sorted(values))


if __name__ == "__main__":
    main()
    init_graph()
