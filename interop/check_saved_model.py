#!/usr/bin/env python3
"""Check, with real TensorFlow 2.21, the SavedModels `examples/write_saved_model.rs DIR` wrote.

Usage: check_saved_model.py DIR [--cli PATH_TO_saved_model_cli]

DIR holds model/ (saved_model.pb: tag sets {serve} and {serve, debug}, variables/),
model_text/ (saved_model.pbtxt), x.npy and expected.json (tensorgraph's outputs). Checks:
  * tf.compat.v1.saved_model.load(sess, ["serve"], model) in a TF1 Session: signature
    serving_default's outputs logits and probs, fed x by its key, equal tensorgraph's (the
    main op ran: scale 0.5);
  * the {serve, debug} meta graph: logits_only gives tensorgraph's logits_debug (scale 1.0);
  * a tag set the model lacks is refused by TensorFlow too;
  * model_text/saved_model.pbtxt loads and gives the same probs;
  * `saved_model_cli show --all --dir model` exits 0 and lists both tag sets and the
    signatures' keys, tensor names and dtypes.
Tolerance rtol=1e-5, atol=1e-6. Prints PASS/FAIL per check, then `interop: N passed, M failed`.
"""
import json
import os
import subprocess
import sys

from tfcheck import Checker, np, tf, tf1  # noqa: F401

RTOL, ATOL = 1e-5, 1e-6


def main():
    args = sys.argv[1:]
    if not args:
        print("usage: check_saved_model.py DIR [--cli saved_model_cli]")
        return 2
    d = args[0]
    cli = args[args.index("--cli") + 1] if "--cli" in args else os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    expected = json.load(open(os.path.join(d, "expected.json")))
    xs = np.load(os.path.join(d, "x.npy"))
    c = Checker()

    def want(key):
        e = expected[key]
        return np.asarray(e["values"], np.float32).reshape(e["shape"])

    def run(model_dir, tags, sig_key, out_keys):
        with tf1.Session(graph=tf1.Graph()) as sess:
            meta = tf1.saved_model.load(sess, tags, model_dir)
            sig = meta.signature_def[sig_key]
            fetches = [sig.outputs[k].name for k in out_keys]
            return sess.run(fetches, {sig.inputs["x"].name: xs})

    def close(got, key):
        w = want(key)
        if got.shape != w.shape:
            return "%s: shape %s, want %s" % (key, got.shape, w.shape)
        if not np.allclose(got, w, rtol=RTOL, atol=ATOL):
            return "%s: max abs diff %.3g" % (key, float(np.max(np.abs(got - w))))
        return None

    def serve():
        logits, probs = run(os.path.join(d, "model"), ["serve"], "serving_default", ["logits", "probs"])
        return close(logits, "logits") or close(probs, "probs")

    def debug():
        (logits,) = run(os.path.join(d, "model"), ["debug", "serve"], "logits_only", ["logits"])
        return close(logits, "logits_debug")

    def bad_tag():
        try:
            run(os.path.join(d, "model"), ["train"], "serving_default", ["probs"])
        except RuntimeError as e:
            return None if "could not be found in SavedModel" in str(e) else str(e)
        return "TensorFlow loaded a tag set the model does not have"

    def text():
        (probs,) = run(os.path.join(d, "model_text"), ["serve"], "serving_default", ["probs"])
        return close(probs, "probs")

    def show():
        p = subprocess.run([cli, "show", "--all", "--dir", os.path.join(d, "model")], capture_output=True, text=True)
        if p.returncode != 0:
            return "saved_model_cli exited %d: %s" % (p.returncode, p.stderr.strip()[-300:])
        for s in ["MetaGraphDef with tag-set: 'serve'", "signature_def['serving_default']",
                  "signature_def['logits_only']", "name: x:0", "name: probs:0", "dtype: DT_FLOAT",
                  "Method name is: tensorflow/serving/predict"]:
            if s not in p.stdout:
                return "saved_model_cli show --all lacks %r:\n%s" % (s, p.stdout[:1500])
        if "'debug', 'serve'" not in p.stdout and "'serve', 'debug'" not in p.stdout:
            return "saved_model_cli show --all does not list the tag set {serve, debug}"
        return None

    c.check("saved_model: TF1 loader runs serving_default to tensorgraph's outputs", serve)
    c.check("saved_model: the {serve, debug} meta graph shares the variables, no main op", debug)
    c.check("saved_model: a missing tag set is refused", bad_tag)
    c.check("saved_model: saved_model.pbtxt loads", text)
    c.check("saved_model: saved_model_cli show --all accepts it", show)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
