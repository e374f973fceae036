#!/usr/bin/env python3
"""Check, with real TensorFlow 2.21, what `tensorgraph demo --out DIR` wrote.

Usage: check_demo.py DIR

DIR must hold a TF V2 checkpoint with prefix DIR/model.ckpt (model.ckpt.index,
model.ckpt.data-00000-of-00001), its meta graph DIR/model.ckpt.meta (written by
Saver::save), the DIR/checkpoint state file, the frozen inference graph DIR/model.pb,
DIR/inputs.npy (the standardized rows fed to "x") and DIR/forecast.json:

  {"hidden": [H1, H2], "num_features": F, "num_classes": C,
   "variables": [{"name": "layer1/weights", "dtype": "float32", "shape": [F, H1]}, ...],
   "inputs": [[F floats], ...],          # rows fed to placeholder "x"
   "probabilities": [[C floats], ...]}   # what tensorgraph computed for "probs"

The same model is built here with tf.compat.v1 (see build_model) and:
  * the checkpoint's variable names, shapes and dtypes must equal exactly those of
    the TF model's tf.global_variables() (6 model variables, their Adam slots
    <var>/Adam and <var>/Adam_1, beta1_power, beta2_power);
  * every entry of forecast.json "variables" must be one of them (same dtype, shape);
  * tf.train.latest_checkpoint(DIR) must resolve to DIR/model.ckpt;
  * tf.train.Saver().restore must succeed, and "probs" on the inputs must match
    the probabilities (np.allclose, rtol=1e-5, atol=1e-6);
  * tf.train.import_meta_graph(model.ckpt.meta) must rebuild the graph with its saver,
    saver.restore(model.ckpt) must succeed, and "probs:0" must match the probabilities;
    its SaverDef names save/Const:0, save/control_dependency:0 and save/restore_all;
  * model.pb (tf.import_graph_def) must hold no variables and "probs:0" must match;
  * inputs.npy must equal forecast.json "inputs" (float32).
Prints PASS/FAIL per check, then `interop: N passed, M failed`; exits 1 on failure.
"""
import json
import os
import shutil
import sys
import tempfile

from tfcheck import Checker, np, tf, tf1
RTOL, ATOL = 1e-5, 1e-6


def build_model(num_features, hidden, num_classes, learning_rate=0.01):
    """Build the demo model in the current default graph; return its tensors/ops."""
    x = tf1.placeholder(tf.float32, [None, num_features], name="x")
    y = tf1.placeholder(tf.float32, [None, num_classes], name="y")
    h = x
    sizes = [num_features] + list(hidden)
    for i in range(len(hidden)):
        with tf1.variable_scope("layer%d" % (i + 1)):
            w = tf1.get_variable("weights", [sizes[i], sizes[i + 1]])
            b = tf1.get_variable("biases", [sizes[i + 1]], initializer=tf1.zeros_initializer())
        h = tf.nn.relu(tf.matmul(h, w) + b)
    with tf1.variable_scope("output"):
        w = tf1.get_variable("weights", [sizes[-1], num_classes])
        b = tf1.get_variable("biases", [num_classes], initializer=tf1.zeros_initializer())
    logits = tf.matmul(h, w) + b
    probs = tf.nn.softmax(logits, name="probs")
    loss = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = tf1.train.AdamOptimizer(learning_rate).minimize(loss)
    return {"x": x, "y": y, "probs": probs, "loss": loss, "train": train}


def var_name(v):
    return v.name[:-2] if v.name.endswith(":0") else v.name


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tf1.disable_v2_behavior()
    out = os.path.abspath(argv[1])
    prefix = os.path.join(out, "model.ckpt")
    c = Checker()
    st = {}  # state shared between checks

    def files_exist():
        missing = [f for f in ("model.ckpt.index", "model.ckpt.data-00000-of-00001", "model.ckpt.meta",
                               "checkpoint", "model.pb", "inputs.npy", "forecast.json")
                   if not os.path.isfile(os.path.join(out, f))]
        return "missing in %s: %s" % (out, ", ".join(missing)) if missing else None

    def forecast_valid():
        with open(os.path.join(out, "forecast.json")) as f:
            fc = json.load(f)
        h, F, C = fc["hidden"], fc["num_features"], fc["num_classes"]
        assert isinstance(h, list) and len(h) == 2 and all(isinstance(n, int) and n > 0 for n in h), \
            "hidden must be 2 positive ints, got %r" % (h,)
        assert isinstance(F, int) and F > 0 and isinstance(C, int) and C > 0, "bad num_features/num_classes"
        xs = np.asarray(fc["inputs"], dtype=np.float64).astype(np.float32)
        ps = np.asarray(fc["probabilities"], dtype=np.float64).astype(np.float32)
        assert xs.ndim == 2 and xs.shape[0] > 0 and xs.shape[1] == F, "inputs shape %s, want [n>0, %d]" % (xs.shape, F)
        assert ps.shape == (xs.shape[0], C), "probabilities shape %s, want %s" % (ps.shape, (xs.shape[0], C))
        for v in fc["variables"]:
            assert set(v) >= {"name", "dtype", "shape"}, "bad variables entry %r" % (v,)
        st["fc"], st["xs"], st["ps"] = fc, xs, ps

    def tf_model_vars():
        fc = st["fc"]
        g = tf.Graph()
        with g.as_default():
            m = build_model(fc["num_features"], fc["hidden"], fc["num_classes"])
            st["want"] = {var_name(v): (v.dtype.base_dtype.name, list(v.shape.as_list()))
                          for v in tf1.global_variables()}
        st["graph"], st["model"] = g, m

    def ckpt_vars():
        reader = tf1.train.load_checkpoint(prefix)
        dtypes = {k: d.name for k, d in reader.get_variable_to_dtype_map().items()}
        st["got"] = {n: (dtypes.get(n), list(s)) for n, s in tf1.train.list_variables(prefix)}

    def same_names_shapes_dtypes():
        want, got = st["want"], st["got"]
        errs = []
        for n in sorted(set(want) - set(got)):
            errs.append("missing %s %s" % (n, want[n]))
        for n in sorted(set(got) - set(want)):
            errs.append("unexpected %s %s" % (n, got[n]))
        for n in sorted(set(want) & set(got)):
            if want[n] != got[n]:
                errs.append("%s: checkpoint %s, TF model %s" % (n, got[n], want[n]))
        return "; ".join(errs) if errs else None

    def forecast_vars_in_ckpt():
        bad = [v for v in st["fc"]["variables"]
               if st["got"].get(v["name"]) != (v["dtype"], list(v["shape"]))]
        return ("not in checkpoint (name, dtype, shape): %r" % bad) if bad else None

    def latest():
        p = tf1.train.latest_checkpoint(out)
        if p is None or os.path.realpath(p) != os.path.realpath(prefix):
            return "latest_checkpoint(%s) = %r, want %s" % (out, p, prefix)

    def restore_and_compare():
        with st["graph"].as_default(), tf1.Session(graph=st["graph"]) as sess:
            tf1.train.Saver().restore(sess, prefix)
            probs = sess.run(st["model"]["probs"], {st["model"]["x"]: st["xs"]})
        if not np.allclose(probs, st["ps"], rtol=RTOL, atol=ATOL):
            i = np.unravel_index(np.argmax(np.abs(probs - st["ps"])), probs.shape)
            return "max |diff| %.3g at %s: TF %r vs tensorgraph %r" % (
                np.max(np.abs(probs - st["ps"])), tuple(int(j) for j in i), float(probs[i]), float(st["ps"][i]))

    def close(probs, what):
        if probs.shape != st["ps"].shape:
            return "%s: shape %s, want %s" % (what, probs.shape, st["ps"].shape)
        if not np.allclose(probs, st["ps"], rtol=RTOL, atol=ATOL):
            return "%s: max |diff| %.3g vs tensorgraph" % (what, np.max(np.abs(probs - st["ps"])))

    def meta_graph_restores():
        g = tf.Graph()
        with g.as_default(), tf1.Session(graph=g) as sess:
            saver = tf1.train.import_meta_graph(prefix + ".meta")
            sd = saver.saver_def
            names = (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name)
            if names != ("save/Const:0", "save/control_dependency:0", "save/restore_all"):
                return "SaverDef names %r" % (names,)
            saver.restore(sess, prefix)
            probs = sess.run("probs:0", {"x:0": st["xs"]})
            # TF saves through the imported save/ ops too
            tmp = tempfile.mkdtemp()
            try:
                resaved = saver.save(sess, os.path.join(tmp, "resaved"), write_meta_graph=False)
                names = sorted(n for n, _ in tf1.train.list_variables(resaved))
            finally:
                shutil.rmtree(tmp)
            if names != sorted(st["got"]):
                return "saver.save through the imported ops wrote %s" % names
            # the train op keeps training through the imported graph
            if not tf1.get_collection("train_op"):
                return "no train_op collection in the meta graph"
        return close(probs, "import_meta_graph + restore")

    def frozen_runs():
        gd = tf1.GraphDef()
        with open(os.path.join(out, "model.pb"), "rb") as f:
            gd.ParseFromString(f.read())
        variables = [n.name for n in gd.node if n.op in ("VariableV2", "VarHandleOp")]
        if variables:
            return "model.pb holds variables: %s" % variables
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(gd, name="")
        with tf1.Session(graph=g) as sess:
            probs = sess.run("probs:0", {"x:0": st["xs"]})
        return close(probs, "model.pb")

    def inputs_npy():
        a = np.load(os.path.join(out, "inputs.npy"))
        if a.dtype != np.float32 or not np.array_equal(a, st["xs"]):
            return "inputs.npy %s %s differs from forecast.json inputs %s" % (a.dtype, a.shape, st["xs"].shape)

    def needs(*keys):
        missing = [k for k in keys if k not in st]
        if missing:
            raise RuntimeError("skipped: an earlier check failed (%s)" % ", ".join(missing))

    c.check("checkpoint (.index, .data, .meta), state file, model.pb, inputs.npy and forecast.json exist in %s"
            % out, files_exist)
    c.check("forecast.json is well formed", forecast_valid)
    c.check("TF builds the model from forecast.json sizes", lambda: needs("fc") or tf_model_vars())
    c.check("tf.train.list_variables / load_checkpoint read the checkpoint", ckpt_vars)
    c.check("checkpoint has the same variable names, dtypes and shapes as TF's global_variables()",
            lambda: needs("want", "got") or same_names_shapes_dtypes())
    c.check("forecast.json variables are all in the checkpoint",
            lambda: needs("fc", "got") or forecast_vars_in_ckpt())
    c.check("tf.train.latest_checkpoint(DIR) resolves to DIR/model.ckpt", latest)
    c.check("tf.train.Saver().restore + probs match forecast.json (rtol=1e-5, atol=1e-6)",
            lambda: needs("graph", "xs") or restore_and_compare())
    c.check("tf.train.import_meta_graph(model.ckpt.meta) + saver.restore + probs match forecast.json;"
            " saver.save through its save/ ops",
            lambda: needs("xs", "got") or meta_graph_restores())
    c.check("model.pb (tf.import_graph_def) holds no variables and probs match forecast.json",
            lambda: needs("xs") or frozen_runs())
    c.check("inputs.npy equals forecast.json inputs", lambda: needs("xs") or inputs_npy())

    return c.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
