#!/usr/bin/env python3
"""Check TensorBoard event files both ways with TensorFlow 2.21 and TensorBoard 2.21.

Usage: check_events.py DEMO_DIR --tensorgraph BIN [--example EXAMPLE_BIN]

DEMO_DIR is what `tensorgraph demo --out DEMO_DIR` wrote; its event file is in DEMO_DIR/logs.
  * TensorBoard's event_accumulator reads DEMO_DIR/logs: the graph has as many nodes as the
    GraphDef event tensorgraph wrote, and the scalar series training_loss and
    held_out_accuracy have the steps and values `tensorgraph events --json` reports;
    the weight histograms are there;
  * tf.compat.v1.train.summary_iterator reads every event tensorgraph wrote, and each
    event's values equal what `tensorgraph events --json` reads;
  * tf.compat.v1.summary.FileWriter writes scalars, histograms, images, text, the graph and
    meta graph into a temporary directory, and `tensorgraph events --json` reads every one
    back with TensorFlow's values (histogram buckets exactly);
  * a real TensorBoard server (python -m tensorboard.main) on a free localhost port serves
    DEMO_DIR/logs: /data/plugin/scalars/tags lists the scalar tags, /data/plugin/scalars/scalars
    the training_loss steps and values, /data/plugin/graphs/graph the graph's nodes; the
    server is stopped afterwards.
Prints PASS/FAIL per check, then `interop: N passed, M failed`; exits 1 on failure.
"""
import argparse
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from tfcheck import Checker, np, tf, tf1


def ours(binary, path, *extra):
    out = subprocess.run([binary, "events", path, "--json", *extra], check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def tf_lines(path):
    """summary_iterator's events flattened as `events --json` flattens them: (step, kind, tag, value)."""
    rows = []
    for e in tf1.train.summary_iterator(path):
        what = e.WhichOneof("what")
        if what == "summary":
            for v in e.summary.value:
                kind = v.WhichOneof("value")
                val = {"simple_value": lambda: float(np.float32(v.simple_value)),
                       "histo": lambda: list(v.histo.bucket),
                       "image": lambda: [v.image.height, v.image.width, v.image.colorspace],
                       "tensor": lambda: tf.make_ndarray(v.tensor).tolist()}[kind]()
                rows.append((e.step, kind, v.tag, val))
        else:
            rows.append((e.step, what, None, None))
    return rows


def our_rows(lines):
    kinds = {"scalar": "simple_value", "histogram": "histo", "image": "image", "tensor": "tensor",
             "session_log": "session_log", "run_metadata": "tagged_run_metadata"}
    rows = []
    for o in lines:
        kind = kinds.get(o["kind"], o["kind"])
        val = None
        if kind == "simple_value":
            val = float(np.float32(o["value"]))
        elif kind == "histo":
            val = o["value"]["bucket"]
        elif kind == "image":
            val = [o["value"][k] for k in ("height", "width", "colorspace")]
        elif kind == "tensor":
            v = o["value"]
            val = v.get("values", [s.encode() for s in v.get("strings", [])])
            if v["shape"] == [] and len(val) == 1:
                val = val[0]
        rows.append((o["step"], kind, o.get("tag"), val))
    return rows


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read().decode())


def example_logs(example, binary, steps=12):
    """Runs examples/tensorboard_logs for `steps` steps and reads its logdir with TensorBoard's
    event_accumulator; returns what differs (None when all is there)."""
    tmp = tempfile.mkdtemp(prefix="tensorgraph-example-logs.")
    try:
        return _example_logs(example, binary, os.path.join(tmp, "run1"), steps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _example_logs(example, binary, logdir, steps):
    from tensorboard.backend.event_processing import event_accumulator as ea
    out = subprocess.run([example, logdir, str(steps)], check=True, capture_output=True, text=True).stdout
    printed = [float(np.float32(line.split("loss ")[1])) for line in out.splitlines() if line.startswith("step ")]
    if len(printed) != steps:
        return "the example printed %d losses for %d steps: %s" % (len(printed), steps, out[:300])
    acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0})
    acc.Reload()
    tags = acc.Tags()
    want_tags = {"scalars": ["loss"], "histograms": ["weights"], "images": ["weights_image/image"]}
    for kind, want in want_tags.items():
        if tags[kind] != want:
            return "%s tags: TensorBoard sees %s, the example writes %s" % (kind, tags[kind], want)
    if tags["graph"] is not True or tags["meta_graph"] is not True:
        return "graph / meta graph missing: %s" % tags
    steps_want = list(range(steps))
    scalars = [(s.step, float(np.float32(s.value))) for s in acc.Scalars("loss")]
    if scalars != list(zip(steps_want, printed)):
        return "loss: TensorBoard %s vs the example's %s" % (scalars[:4], printed[:4])
    lines = ours(binary, logdir)
    buckets = {o["step"]: o["value"]["bucket"] for o in lines if o["kind"] == "histogram"}
    hists = acc.Histograms("weights")
    if [h.step for h in hists] != steps_want:
        return "weights histogram steps %s" % [h.step for h in hists]
    for h in hists:
        v = h.histogram_value
        if v.num != 3 or list(v.bucket) != buckets[h.step] or sum(v.bucket) != 3 or v.min > v.max:
            return "weights histogram at step %d: %s vs buckets %s" % (h.step, v, buckets[h.step])
    images = acc.Images("weights_image/image")
    if [i.step for i in images] != steps_want:
        return "image steps %s" % [i.step for i in images]
    for i in images:
        png = tf.io.decode_png(i.encoded_image_string).numpy()
        if (i.height, i.width, png.shape) != (3, 1, (3, 1, 1)):
            return "image at step %d: %dx%d, PNG %s" % (i.step, i.height, i.width, png.shape)
    nodes = [o["value"]["nodes"] for o in lines if o["kind"] == "graph_def"]
    if nodes != [len(acc.Graph().node)]:
        return "graph: TensorBoard sees %d nodes, tensorgraph wrote %s" % (len(acc.Graph().node), nodes)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("demo_dir")
    ap.add_argument("--tensorgraph", required=True)
    ap.add_argument("--example", help="examples/tensorboard_logs binary: check its logs too")
    a = ap.parse_args()
    c = Checker()
    logs = os.path.join(a.demo_dir, "logs")
    files = sorted(glob.glob(os.path.join(logs, "events.out.tfevents.*")))
    lines = ours(a.tensorgraph, logs)
    graph_nodes = [o["value"]["nodes"] for o in lines if o["kind"] == "graph_def"]
    series = {}
    for o in lines:
        if o["kind"] == "scalar":
            series.setdefault(o["tag"], []).append((o["step"], float(np.float32(o["value"]))))

    def accumulator():
        from tensorboard.backend.event_processing import event_accumulator as ea
        acc = ea.EventAccumulator(logs, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0})
        acc.Reload()
        if len(files) != 1 or len(graph_nodes) != 1:
            return "expected one event file with one graph, got %s and %s" % (files, graph_nodes)
        n = len(acc.Graph().node)
        if n != graph_nodes[0]:
            return "graph: TensorBoard sees %d nodes, tensorgraph wrote %d" % (n, graph_nodes[0])
        for tag in ("training_loss", "held_out_accuracy"):
            got = [(s.step, s.value) for s in acc.Scalars(tag)]
            if got != series[tag] or not got:
                return "%s: TensorBoard %s... vs tensorgraph %s..." % (tag, got[:3], series[tag][:3])
        hist = [t for t in acc.Tags()["histograms"] if t.startswith("weights/")]
        if len(hist) < 4:
            return "weight histograms: %s" % hist
        if acc.Tags()["meta_graph"] is not True:
            return "no meta graph: %s" % acc.Tags()
    c.check("TensorBoard's event_accumulator reads the demo's logs (graph, scalars, histograms)", accumulator)

    def iterator():
        want = our_rows(lines)
        got = tf_lines(files[0])
        if got != want:
            for i, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    return "event value %d: TF %s vs tensorgraph %s" % (i, str(g)[:200], str(w)[:200])
            return "TF read %d values, tensorgraph %d" % (len(got), len(want))
    c.check("summary_iterator reads every event tensorgraph wrote, with the same values", iterator)

    tmp = tempfile.mkdtemp(prefix="tensorgraph-tf-events.")

    def tf_written():
        g = tf.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, [None], name="x")
            w = tf1.Variable(np.linspace(-1, 2, 16).astype(np.float32), name="w")
            tf1.summary.scalar("mean", tf.reduce_mean(x))
            tf1.summary.histogram("x", x)
            tf1.summary.histogram("w", w)
            tf1.summary.image("img", tf.reshape(tf.range(24, dtype=tf.float32) / 23.0, [2, 2, 2, 3]), max_outputs=2)
            tf1.summary.text("note", tf.constant(["hello", "world"]))
            merged = tf1.summary.merge_all()
            with tf1.Session() as s:
                s.run(tf1.global_variables_initializer())
                fw = tf1.summary.FileWriter(tmp, s.graph)
                for step, vals in enumerate([[1.0, 2.0], [0.5, -3.25, 7.0], [0.0]]):
                    fw.add_summary(s.run(merged, {x: vals}), step)
                fw.add_session_log(tf1.SessionLog(status=tf1.SessionLog.STOP), 3)
                fw.close()
        path = glob.glob(os.path.join(tmp, "events.out.tfevents.*"))[0]
        got = our_rows(ours(a.tensorgraph, path))
        want = tf_lines(path)
        if got != want:
            for i, (g2, w2) in enumerate(zip(got, want)):
                if g2 != w2:
                    return "value %d: tensorgraph %s vs TF %s" % (i, str(g2)[:200], str(w2)[:200])
            return "tensorgraph read %d values, TF %d" % (len(got), len(want))
        kinds = {r[1] for r in got}
        need = {"file_version", "graph_def", "meta_graph_def", "simple_value", "histo", "image", "tensor", "session_log"}
        if not need <= kinds:
            return "kinds read: %s" % sorted(kinds)
        nodes = [o["value"]["nodes"] for o in ours(a.tensorgraph, path) if o["kind"] == "graph_def"]
        if nodes != [len(g.as_graph_def().node)]:
            return "graph nodes %s vs %d" % (nodes, len(g.as_graph_def().node))
    c.check("tensorgraph reads every event TF's FileWriter writes (scalars, histograms, images, text, graph, meta graph)", tf_written)

    def server():
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir", logs, "--port", str(port),
                                 "--host", "127.0.0.1", "--load_fast", "false"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = "http://127.0.0.1:%d" % port
            tags = None
            for _ in range(120):
                try:
                    tags = get_json(base + "/data/plugin/scalars/tags")
                    if tags.get(".", {}):
                        break
                except Exception:
                    pass
                time.sleep(0.5)
            if not tags or "training_loss" not in tags.get(".", {}):
                return "scalar tags served: %s" % tags
            pts = get_json(base + "/data/plugin/scalars/scalars?run=.&tag=training_loss")
            got = [(p[1], float(np.float32(p[2]))) for p in pts]
            if got != series["training_loss"]:
                return "training_loss served %s... vs %s..." % (got[:3], series["training_loss"][:3])
            with urllib.request.urlopen(base + "/data/plugin/graphs/graph?run=.", timeout=30) as r:
                text = r.read().decode()
            n = text.count("\nnode {") + text.startswith("node {")
            if n != graph_nodes[0]:
                return "graphs plugin served %d nodes, tensorgraph wrote %d" % (n, graph_nodes[0])
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    c.check("a tensorboard server on localhost serves the demo's scalars and graph", server)

    if a.example:
        c.check("TensorBoard's event_accumulator reads every tag, step and value of examples/tensorboard_logs",
                lambda: example_logs(a.example, a.tensorgraph))
    sys.exit(c.summary())


if __name__ == "__main__":
    main()
