#!/usr/bin/env python3
"""check_demo_cnn.py DIR — TensorFlow reads what `tensorgraph demo --model cnn --out DIR` wrote.

Checks: TF's import_meta_graph + Saver.restore of model.ckpt gives forecast.json's
probabilities for inputs.npy (batch norm in inference: `training` defaults to false); one TF
train step with `training` fed true runs the batch norm updates (the moving mean moves) and
Adam; TF's import_graph_def of the frozen model.pb gives the same probabilities.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tfcheck import Checker, np, tf, tf1  # noqa: E402


def main(argv):
    d = argv[1]
    c = Checker()
    forecast = json.load(open(os.path.join(d, "forecast.json")))
    want = np.array(forecast["probabilities"], dtype=np.float32)
    x = np.load(os.path.join(d, "inputs.npy"))

    def close(p, what):
        err = float(np.abs(p - want).max())
        return None if err <= 1e-5 else "%s differs from forecast.json by %g" % (what, err)

    def meta_restores_and_trains():
        g = tf.Graph()
        with g.as_default(), tf1.Session() as s:
            saver = tf1.train.import_meta_graph(os.path.join(d, "model.ckpt.meta"))
            saver.restore(s, os.path.join(d, "model.ckpt"))
            bad = close(s.run("probs:0", {"x:0": x}), "TF's probs from the .meta and checkpoint")
            if bad:
                return bad
            labels = np.eye(10, dtype=np.float32)[np.argmax(want, axis=1)]
            before = s.run("bn1/moving_mean:0")
            loss, _ = s.run(["loss:0", "train"], {"x:0": x, "y:0": labels, "training:0": True})
            moved = float(np.abs(s.run("bn1/moving_mean:0") - before).max())
            if not np.isfinite(loss) or moved == 0.0:
                return "a TF train step gave loss %r and moved bn1/moving_mean by %g" % (loss, moved)

    def frozen_runs():
        g = tf.Graph()
        with g.as_default(), tf1.Session() as s:
            gd = tf1.GraphDef()
            with open(os.path.join(d, "model.pb"), "rb") as f:
                gd.ParseFromString(f.read())
            tf.import_graph_def(gd, name="")
            return close(s.run("probs:0", {"x:0": x}), "TF's probs from model.pb")

    c.check("TF restores the CNN demo's .meta + checkpoint, matches its forecast and trains a step", meta_restores_and_trains)
    c.check("TF runs the CNN demo's frozen model.pb to its forecast", frozen_runs)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
