#!/usr/bin/env python3
"""Check, with real TensorFlow 2.21, the graphs `examples/export_graphs.rs DIR` wrote.

Usage: check_graphs.py DIR

DIR holds model.ckpt.meta (+ the model.ckpt checkpoint), frozen.pb, frozen.pbtxt and
graph.json (see examples/export_graphs.rs). Checks:
  * frozen.pb: tf.import_graph_def(name="") runs "probs:0" on the inputs to tensorgraph's
    probabilities; it holds no variables; its [name, op] list is graph.json's frozen_ops;
  * frozen.pbtxt: parsed with text_format into a GraphDef, it equals frozen.pb and runs to
    the same probabilities;
  * model.ckpt.meta: tf.compat.v1.train.import_meta_graph + saver.restore(model.ckpt) gives
    the same probabilities; its meta_info_def.stripped_op_list is TensorFlow's registry
    OpDef of each op type the graph uses, sorted by name; TensorFlow's own
    convert_variables_to_constants of that graph (outputs as graph.json's output_nodes)
    gives the nodes and constants of frozen.pb (attrs compared as written: both sides
    carry every attr with a default);
  * one run of the train op ("train") on the batch gives every global variable (weights,
    biases, Adam slots, beta powers) as tensorgraph's next step (variables_after_step).
Tolerance rtol=1e-5, atol=1e-6. Prints PASS/FAIL per check, then
`interop: N passed, M failed`; exits 1 on failure.
"""
import json
import os
import sys

from google.protobuf import text_format
from tfcheck import np, tf, tf1  # noqa: F401
from tensorflow.python.framework import op_def_registry  # noqa: E402 (after tfcheck sets up TF)
RTOL, ATOL = 1e-5, 1e-6

PASSED = 0
FAILED = 0


def report(ok, what, detail=""):
    global PASSED, FAILED
    if ok:
        PASSED += 1
        print("PASS  graphs: %s" % what)
    else:
        FAILED += 1
        print("FAIL  graphs: %s%s" % (what, (": " + detail) if detail else ""))


def brief(e):
    return str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__


def array(entry):
    return np.asarray(entry["values"], dtype=np.float64).reshape(entry["shape"])


def close(got, want):
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return False, "shape %s, want %s" % (got.shape, want.shape)
    if np.allclose(got, want, rtol=RTOL, atol=ATOL):
        return True, ""
    return False, "max abs diff %.3g" % float(np.max(np.abs(got - want)))


def check(what, fn):
    """Run fn() -> (ok, detail); an exception is a failure."""
    try:
        ok, detail = fn()
    except Exception as e:  # noqa: BLE001
        ok, detail = False, "%s: %s" % (type(e).__name__, brief(e))
    report(ok, what, detail)


def run_graph_def(gd, inputs):
    copy = tf1.GraphDef()  # import_graph_def may add default attrs to its argument
    copy.CopyFrom(gd)
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(copy, name="")
        with tf1.Session(graph=g) as sess:
            return sess.run("probs:0", {"x:0": inputs.astype(np.float32)})


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    tf1.disable_v2_behavior()
    with open(os.path.join(d, "graph.json")) as f:
        doc = json.load(f)
    inputs = array(doc["inputs"]).astype(np.float32)
    labels = array(doc["labels"]).astype(np.float32)
    probs = array(doc["probs"])

    frozen = tf1.GraphDef()
    with open(os.path.join(d, "frozen.pb"), "rb") as f:
        frozen.ParseFromString(f.read())

    check("frozen.pb imports and runs probs to tensorgraph's values",
          lambda: close(run_graph_def(frozen, inputs), probs))

    def frozen_ops():
        ops = [[n.name, n.op] for n in frozen.node]
        if any(op in ("VariableV2", "VarHandleOp", "Assign") for _, op in ops):
            return False, "variables remain: %s" % ops
        return ops == doc["frozen_ops"], "ops %s, graph.json %s" % (ops, doc["frozen_ops"])
    check("frozen.pb holds constants only, nodes as graph.json", frozen_ops)

    def pbtxt():
        gd = tf1.GraphDef()
        with open(os.path.join(d, "frozen.pbtxt")) as f:
            text_format.Merge(f.read(), gd)
        binary = tf1.GraphDef()  # parsed afresh: import_graph_def may add default attrs to its argument
        with open(os.path.join(d, "frozen.pb"), "rb") as f:
            binary.ParseFromString(f.read())
        det = lambda m: m.SerializeToString(deterministic=True)  # noqa: E731
        if det(gd) != det(binary):
            return False, "text GraphDef differs from frozen.pb"
        return close(run_graph_def(gd, inputs), probs)
    check("frozen.pbtxt parses (text_format) to frozen.pb and runs to the same probs", pbtxt)

    g = tf.Graph()
    with g.as_default(), tf1.Session(graph=g) as sess:
        try:
            saver = tf1.train.import_meta_graph(os.path.join(d, "model.ckpt.meta"))
            saver.restore(sess, os.path.join(d, "model.ckpt"))
            report(True, "import_meta_graph + Saver.restore")
        except Exception as e:  # noqa: BLE001
            report(False, "import_meta_graph + Saver.restore", brief(e))
            return finish()
        feed = {"x:0": inputs, "y:0": labels}

        def stripped_op_list():
            meta = tf1.MetaGraphDef()
            with open(os.path.join(d, "model.ckpt.meta"), "rb") as f:
                meta.ParseFromString(f.read())
            ops = meta.meta_info_def.stripped_op_list.op
            names = [o.name for o in ops]
            used = sorted({n.op for n in meta.graph_def.node})
            if names != used:
                return False, "stripped_op_list %s, graph ops %s" % (names, used)
            bad = [o.name for o in ops if o != op_def_registry.get(o.name)]
            return not bad, "OpDefs differ from TensorFlow's registry: %s" % bad
        check("meta graph's stripped_op_list is TF's OpDefs of the graph's op types, sorted", stripped_op_list)
        check("restored meta graph runs probs to tensorgraph's values",
              lambda: close(sess.run("probs:0", {"x:0": inputs}), probs))

        def tf_freeze():
            gd = tf1.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), doc["output_nodes"])
            # ours with TensorFlow's default attrs filled in (as TF's importer does for its
            # own graph: e.g. MatMul's grad_a/grad_b, which tensorgraph does not write)
            # tensorgraph writes every attr of the OpDef (defaults included), as TF does
            ours = {n.name: n for n in frozen.node}
            names = [[n.name, n.op] for n in gd.node]
            if names != doc["frozen_ops"]:
                return False, "TF froze %s, tensorgraph %s" % (names, doc["frozen_ops"])
            for n in gd.node:
                if n.op == "Const":
                    a = tf.make_ndarray(n.attr["value"].tensor)
                    b = tf.make_ndarray(ours[n.name].attr["value"].tensor)
                    if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
                        return False, "constant %s differs" % n.name
                elif n != ours[n.name]:
                    return False, "node %s differs: TF %s, tensorgraph %s" % (n.name, n, ours[n.name])
            return True, ""
        check("TF's convert_variables_to_constants of the restored graph equals frozen.pb", tf_freeze)

        def train_step():
            sess.run(g.get_operation_by_name(doc["train_op"]), feed)
            want = doc["variables_after_step"]
            names = sorted(v.op.name for v in tf1.global_variables())
            if names != sorted(want):
                return False, "variables %s, tensorgraph %s" % (names, sorted(want))
            bad = []
            for v in tf1.global_variables():
                ok, detail = close(sess.run(v), array(want[v.op.name]))
                if not ok:
                    bad.append("%s (%s)" % (v.op.name, detail))
            return not bad, "; ".join(bad)
        check("one train step from the checkpoint gives tensorgraph's next-step variables", train_step)
    return finish()


def finish():
    print("interop: %d passed, %d failed" % (PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
