#!/usr/bin/env python3
"""TensorFlow 2.21's numbers for tests/public_models.rs and cli/tests/public_models.rs: the
public test files under tests/data/public (see its README.md) run in the TF 2.21 venv
exactly as the tests run them; prints the values the tests hold as literals.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_public_models.py

(the venv is made by interop/setup_venv.sh). Graph mode (tf.compat.v1), CPU.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
PUB = os.path.join(HERE, "..", "tests", "data", "public")


def graph_def(path):
    gd = v1.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    return gd


def regression(path, steps=5):
    """init with w's random start fed as 0.7, then `steps` runs of `train` on y = 0.1 x + 0.3."""
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def(path), name="")
        x = np.linspace(-1.0, 2.0, 8).astype(np.float32)
        y = (0.1 * x + 0.3).astype(np.float32)
        with v1.Session() as s:
            s.run("init", {"random_uniform:0": np.array([0.7], np.float32)})
            for _ in range(steps):
                s.run("train", {"x:0": x, "y:0": y})
            w, b = s.run(["w:0", "b:0"])
    print(f"{os.path.relpath(path, PUB)}: after {steps} steps w = {w.tolist()}, b = {b.tolist()}")


def regression_cli(path):
    """What cli/tests/public_models.rs runs: the loss and the gradients of w and b with the
    variables fed (w = 0.7, b = 0) at the same 8 points; then the loss unfed (TF's error)."""
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def(path), name="")
        x = np.linspace(-1.0, 2.0, 8).astype(np.float32)
        y = (0.1 * x + 0.3).astype(np.float32)
        feed = {"x:0": x, "y:0": y, "w:0": np.array([0.7], np.float32), "b:0": np.array([0.0], np.float32)}
        with v1.Session() as s:
            loss, gw, gb = s.run(["Mean:0", "gradients/mul_grad/Reshape:0", "gradients/add_grad/Reshape_1:0"], feed)
            print(f"{os.path.relpath(path, PUB)}: Mean = {loss!r}, dw = {gw.tolist()}, db = {gb.tolist()}")
            try:
                s.run("Mean:0", {"x:0": x, "y:0": y})
            except tf.errors.OpError as e:
                print(f"{os.path.relpath(path, PUB)}: unfed variables: {type(e).__name__}: "
                      + next(line for line in e.message.splitlines() if "uninitialized" in line).strip())


def multiplication():
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def(os.path.join(PUB, "tensorflow-rust/tensorflow-sys/examples/assets/multiplication.pb")),
                            name="")
        with v1.Session() as s:
            print("multiplication.pb: c =", s.run("c:0", {"a:0": [1, 2, 3], "b:0": 2}).tolist())


def serialized_examples(xs, key="x"):
    out = []
    for v in xs:
        e = tf.train.Example(features=tf.train.Features(feature={key: tf.train.Feature(
            float_list=tf.train.FloatList(value=[v]))}))
        out.append(e.SerializeToString())
    return out


def half_plus_two():
    path = os.path.join(PUB, "serving/saved_model_half_plus_two_cpu/00000123")
    g = tf.Graph()
    with g.as_default(), v1.Session() as s:
        mg = v1.saved_model.loader.load(s, ["serve"], path)
        x = np.array([[1.0], [2.0], [5.0]], np.float32)
        for key in sorted(mg.signature_def):
            sig = mg.signature_def[key]
            inp = list(sig.inputs.values())[0]
            feed = serialized_examples([1.0, 2.0, 5.0]) if inp.dtype == tf.string.as_datatype_enum else x
            for ok, out in sorted(sig.outputs.items()):
                print(f"half_plus_two_cpu {key} {ok}:", s.run(out.name, {inp.name: feed}).reshape(-1).tolist())


def tf2_half_plus_two():
    path = os.path.join(PUB, "serving/saved_model_half_plus_two_tf2_cpu/00000123")
    g = tf.Graph()
    with g.as_default(), v1.Session() as s:
        mg = v1.saved_model.loader.load(s, ["serve"], path)
        for key in ["serving_default", "regress_x2_to_y3", "regress_x_to_y"]:
            sig = mg.signature_def[key]
            inp = list(sig.inputs.values())[0]
            feed = serialized_examples([1.0, 2.0, 5.0]) if inp.dtype == tf.string.as_datatype_enum \
                else np.array([3.0], np.float32)
            for ok, out in sorted(sig.outputs.items()):
                print(f"half_plus_two_tf2_cpu {key} {ok}:", s.run(out.name, {inp.name: feed}).reshape(-1).tolist())


def counter():
    """saved_model_counter: its signatures in one session, in the order tests/public_counter.rs runs them."""
    path = os.path.join(PUB, "serving/saved_model_counter/00000123")
    with tf.Graph().as_default(), v1.Session() as s:
        sig = v1.saved_model.loader.load(s, ["serve"], path).signature_def
        out = lambda key: sig[key].outputs["output"].name  # noqa: E731
        for key, feed in [("get_counter", {}), ("incr_counter", {}),
                          ("incr_counter_by", {sig["incr_counter_by"].inputs["delta"].name: 2.5}),
                          ("get_counter", {}), ("reset_counter", {}), ("get_counter", {})]:
            print(f"counter {key}:", s.run(out(key), feed))


def regression_savedmodel(steps=5):
    """regression_savedmodel: w, b, then `steps` runs of `train` on y = 0.1 x + 0.3, then w, b, SGD/iter."""
    path = os.path.join(PUB, "tensorflow-rust/examples/regression_savedmodel")
    x = np.linspace(-1.0, 2.0, 8).astype(np.float32)
    y = (0.1 * x + 0.3).astype(np.float32)
    with tf.Graph().as_default() as g, v1.Session() as s:
        sig = v1.saved_model.loader.load(s, ["serve"], path).signature_def
        read = lambda key: s.run(sig[key].outputs["output"].name).tolist()  # noqa: E731
        print("regression_savedmodel w:", read("w"), "b:", read("b"))
        train = sig["train"]
        for _ in range(steps):
            feed = {train.inputs["x"].name: x, train.inputs["y"].name: y}
            print("regression_savedmodel train loss:", repr(s.run(train.outputs["loss"].name, feed)))
        it = v1.raw_ops.ReadVariableOp(resource=g.get_tensor_by_name("SGD/iter:0"), dtype=tf.int64)
        print("regression_savedmodel after training w:", read("w"), "b:", read("b"), "SGD/iter:", s.run(it))


if __name__ == "__main__":
    regression(os.path.join(PUB, "tensorflow-rust/examples/regression/model.pb"))
    regression(os.path.join(PUB, "tensorflow-rust/examples/regression_checkpoint/model.pb"))
    for p in ["regression", "regression_checkpoint"]:
        regression_cli(os.path.join(PUB, f"tensorflow-rust/examples/{p}/model.pb"))
    multiplication()
    half_plus_two()
    tf2_half_plus_two()
    counter()
    regression_savedmodel()
