#!/usr/bin/env python3
"""Does TensorFlow 2.21 run the while loops tensorgraph builds, and their gradient loops.

Usage: check_while_loop.py [DIR]
(use the venv python: PY=$(interop/setup_venv.sh | tail -n1); $PY interop/check_while_loop.py)

DIR holds what tests/while_loop_grad.rs::write_for_interop writes
(`TG_WHILE_OUT=DIR cargo test --release --test while_loop_grad write_for_interop`):
loops.pb, the GraphDef of scripts/gen_while_loop.py's programs built here with
`ops::while_loop` plus the gradients built here (TF1 control flow, StackV2/StackPushV2/
StackPopV2, TensorArray gradients), and grads.json naming each case's gradient tensors.
Without DIR the script runs that command itself (from the crate root) into a temporary
directory.

Checks, in graph mode with control flow v1: TensorFlow imports the GraphDef; each loop's
outputs equal TensorFlow's own values (tests/data/while_loop/expected.json); each gradient
built here, run by TensorFlow (GRADIENT_RUNS times, in its parallel executor), equals
the gradient TensorFlow computes itself every time.
Prints PASS/FAIL per check and `interop: N passed, M failed`.
"""
import json
import os
import subprocess
import sys
import tempfile

from tfcheck import Checker, np, tf, tf1

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write(out_dir):
    env = dict(os.environ, TG_WHILE_OUT=out_dir)
    subprocess.run(["cargo", "test", "--release", "--test", "while_loop_grad", "write_for_interop"],
                   cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def feed_value(v):
    return np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"])


# Each gradient case runs this many times in TensorFlow's parallel executor (default
# session: inter-op threads, parallel loop iterations): the gradient stacks' pushes and
# pops are ordered by graph edges (the counters' Add/Sub and NextIteration, b_sync), so
# every run must give TensorFlow's gradients, whatever the schedule.
GRADIENT_RUNS = 20


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tensorgraph-while-")
    if len(sys.argv) <= 1:
        write(out)
    tf1.disable_eager_execution()
    tf1.disable_control_flow_v2()
    want = json.load(open(os.path.join(ROOT, "tests", "data", "while_loop", "expected.json")))
    grads = json.load(open(os.path.join(out, "grads.json")))
    gd = tf1.GraphDef()
    with open(os.path.join(out, "loops.pb"), "rb") as f:
        gd.ParseFromString(f.read())
    c = Checker()
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(gd, name="")
        feeds = {k: feed_value(v) for k, v in want["feeds"].items()}
        with tf1.Session(graph=g) as sess:
            def close(got, ref, what):
                ref = feed_value(ref)
                if np.shape(got) != ref.shape or not np.allclose(got, ref, rtol=1e-4, atol=1e-5):
                    return "%s: TensorFlow gives %r here, %r for its own graph" % (what, got, ref)
                return None

            def forward():
                for fetch, ref in want["runs"].items():
                    name = fetch.replace(" (p false)", "")
                    fd = dict(feeds, **({"p:0": False} if name != fetch else {}))
                    err = close(sess.run(name, fd), ref, fetch)
                    if err:
                        return err
                return None
            c.check("loops built here run in TensorFlow to its own values (%d fetches)" % len(want["runs"]), forward)
            for case, names in sorted(grads.items()):
                def grad(case=case, names=names):
                    for run in range(GRADIENT_RUNS):
                        vals = sess.run(names, feeds)
                        for i, (v, ref) in enumerate(zip(vals, want["grads"][case]["values"])):
                            err = close(v, ref, "%s gradient %d (run %d of %d)" % (case, i, run + 1, GRADIENT_RUNS))
                            if err:
                                return err
                    return None
                c.check("gradient loop of '%s' built here runs in TensorFlow to TensorFlow's gradients (%d runs)"
                        % (case, GRADIENT_RUNS), grad)
    sys.exit(c.summary())


if __name__ == "__main__":
    main()
