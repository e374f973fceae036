#!/usr/bin/env python3
"""Writes tests/data/saved_model/tf1_dense: a TF1-style SavedModel made by TensorFlow's own
`tf.compat.v1.saved_model.Builder` (the format TF Serving's half_plus_two files have), read
by tests/saved_model.rs, which runs it to the values TensorFlow computed here.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_saved_model.py

(the venv is made by interop/setup_venv.sh). The model, in a tf.compat.v1 graph:

  * x: float32 placeholder [None, 3];
  * dense/kernel [3, 2] and dense/bias [2]: global variables with fixed values (saved in
    variables/variables.*);
  * scale: a *local* variable (not in the checkpoint) set to 0.5 by the main op, so a run
    gives the right numbers only when the loader ran the main op;
  * vocab_path: a local string variable the main op assigns from the asset tensor, which the
    loader feeds with the path of assets/vocab.txt (TensorFlow's asset mechanism);
  * y = (x @ kernel + bias) * scale and probs = softmax(y).

Signatures: `serving_default` (predict: inputs {x}, outputs {y, probs}) and `vocab`
(outputs {path}: the asset path). Tag set {"serve"}. Beside the model, `x.npy` (the input,
2x3), `y.npy` and `probs.npy` (TensorFlow's outputs for it) and `expected.json` (the
signatures as `saved_model_cli show --all` would list them: keys, tensor names, dtypes, shapes).
"""

import json
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "saved_model")
MODEL = os.path.join(OUT, "tf1_dense")


def main():
    if os.path.exists(MODEL):
        shutil.rmtree(MODEL)
    os.makedirs(OUT, exist_ok=True)
    vocab_src = os.path.join(OUT, "vocab.txt")
    with open(vocab_src, "w") as f:
        f.write("a\nb\nc\n")

    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        with tf1.variable_scope("dense"):
            kernel = tf1.get_variable(
                "kernel", initializer=np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], np.float32))
            bias = tf1.get_variable("bias", initializer=np.array([0.1, -0.2], np.float32))
        scale = tf1.get_variable("scale", initializer=1.0, trainable=False,
                                 collections=[tf1.GraphKeys.LOCAL_VARIABLES], use_resource=False)
        vocab_var = tf1.Variable("", trainable=False, collections=[tf1.GraphKeys.LOCAL_VARIABLES],
                                 name="vocab_path", use_resource=False)
        y = tf.multiply(tf.matmul(x, kernel) + bias, scale, name="y")
        probs = tf.nn.softmax(y, name="probs")

        asset = tf.constant(vocab_src, name="asset_filepath")
        tf1.add_to_collection(tf1.GraphKeys.ASSET_FILEPATHS, asset)
        main_op = tf.group(tf1.assign(scale, 0.5), tf1.assign(vocab_var, asset), name="main_op")

        info = tf1.saved_model.utils.build_tensor_info
        serving = tf1.saved_model.signature_def_utils.build_signature_def(
            inputs={"x": info(x)}, outputs={"y": info(y), "probs": info(probs)},
            method_name=tf1.saved_model.signature_constants.PREDICT_METHOD_NAME)
        vocab_sig = tf1.saved_model.signature_def_utils.build_signature_def(
            inputs={}, outputs={"path": info(vocab_var.value())},
            method_name=tf1.saved_model.signature_constants.PREDICT_METHOD_NAME)

        xs = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], np.float32)
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            builder = tf1.saved_model.Builder(MODEL)
            builder.add_meta_graph_and_variables(
                sess, [tf1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": serving, "vocab": vocab_sig},
                assets_collection=tf1.get_collection(tf1.GraphKeys.ASSET_FILEPATHS),
                main_op=main_op)
            builder.save()

    # TensorFlow's own loader gives the expected values
    with tf1.Session(graph=tf1.Graph()) as sess:
        meta = tf1.saved_model.loader.load(sess, ["serve"], MODEL)
        sig = meta.signature_def["serving_default"]
        got_y, got_probs = sess.run([sig.outputs["y"].name, sig.outputs["probs"].name],
                                    {sig.inputs["x"].name: xs})
        path = sess.run(meta.signature_def["vocab"].outputs["path"].name)
    assert path.decode().endswith(os.path.join("tf1_dense", "assets", "vocab.txt")), path
    np.save(os.path.join(OUT, "x.npy"), xs)
    np.save(os.path.join(OUT, "y.npy"), got_y)
    np.save(os.path.join(OUT, "probs.npy"), got_probs)
    os.remove(vocab_src)

    signatures = {}
    for key, s in sorted(meta.signature_def.items()):
        def infos(m):
            return {k: {"name": v.name, "dtype": tf.dtypes.as_dtype(v.dtype).name,
                        "shape": None if v.tensor_shape.unknown_rank
                        else [d.size for d in v.tensor_shape.dim]}
                    for k, v in sorted(m.items())}
        signatures[key] = {"method_name": s.method_name, "inputs": infos(s.inputs), "outputs": infos(s.outputs)}
    expected = {
        "tensorflow": tf.__version__,
        "tags": list(meta.meta_info_def.tags),
        "signatures": signatures,
        "collections": sorted(meta.collection_def.keys()),
        "asset_file_def": [a.filename for a in meta.asset_file_def],
    }
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(expected, indent=1, sort_keys=True))
    print("y", got_y.tolist(), "probs", got_probs.tolist())


if __name__ == "__main__":
    main()
