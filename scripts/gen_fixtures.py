#!/usr/bin/env python3
"""Regenerate the TensorFlow 2.21 oracle fixtures (tests/fixtures/tf-2.21).

Usage (with the interop virtualenv's python, see interop/setup_venv.sh):

    PY=$(bash interop/setup_venv.sh | tail -n1)
    $PY scripts/gen_fixtures.py OUTDIR [SET ...]

Writes OUTDIR/<set>/ with the files TensorFlow writes plus manifest.json, for
every set named (all sets when none is named). Each set is built in its own
tf.Graph in tf.compat.v1 graph mode on the CPU with oneDNN off and one thread,
and files are saved from inside the set's folder with relative paths, exactly
as the manifests in tests/fixtures/tf-2.21 describe. Every file the manifest
marks deterministic comes out byte for byte identical on TF 2.21.0 / numpy
2.4.x; event files (wall times, host name in the file name) do not.

scripts/check_fixtures.py regenerates into a temporary folder and compares.
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import base64  # noqa: E402
import collections  # noqa: E402
import contextlib  # noqa: E402
import glob  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import struct  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.core.protobuf import meta_graph_pb2  # noqa: E402
from tensorflow.core.framework import variable_pb2  # noqa: E402
from tensorflow.core.util import event_pb2  # noqa: E402

from tensorflow.python.util import deprecation  # noqa: E402

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
deprecation._PRINT_DEPRECATION_WARNINGS = False

GENERATOR = "scripts/gen_fixtures.py"
TOLERANCE_HINT = ("float32 results: compare with rtol=1e-5, atol=1e-6 "
                  "(exact equality is not expected across kernels)")
EVENT_NOTE = ("file name is events.out.tfevents.<unix time>.<host name>; "
              "records are TFRecord framed (length, masked crc32c)")


# ----------------------------------------------------------------------------
# helpers shared by the sets
# ----------------------------------------------------------------------------

def session_config():
    """One thread for intra- and inter-op work, as the manifests record."""
    return tf.ConfigProto(intra_op_parallelism_threads=1,
                          inter_op_parallelism_threads=1)


def header(name, description):
    m = collections.OrderedDict()
    m["fixture"] = name
    m["description"] = description
    m["generator"] = GENERATOR
    m["tensorflow_version"] = tf.__version__
    m["numpy_version"] = np.__version__
    m["environment"] = collections.OrderedDict([
        ("TF_ENABLE_ONEDNN_OPTS", os.environ["TF_ENABLE_ONEDNN_OPTS"]),
        ("intra_op_parallelism_threads", 1),
        ("inter_op_parallelism_threads", 1),
        ("mode", "tf.compat.v1 graph mode, tf.disable_v2_behavior()"),
    ])
    m["tolerance_hint"] = TOLERANCE_HINT
    return m


@contextlib.contextmanager
def inside(folder):
    """Work from inside `folder` so that savers write relative paths."""
    old = os.getcwd()
    os.makedirs(folder, exist_ok=True)
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def plain(a):
    """numpy value -> JSON value (floats widened exactly to float64)."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return np.stack([a.real.astype(np.float64), a.imag.astype(np.float64)],
                        axis=-1).tolist()
    if a.dtype.kind in "fV" or a.dtype.name == "bfloat16":
        return a.astype(np.float64).tolist()
    return a.tolist()


def bits_hex(a):
    a = np.asarray(a)
    return ["0x%04x" % int(b) for b in a.view(np.uint16).ravel()]


def tensor_json(a, dtype_name=None, name=None):
    """{name?, dtype, shape, values[, bits_hex]} as in the manifests."""
    a = np.asarray(a)
    dtype_name = dtype_name or tf.as_dtype(a.dtype).name
    t = collections.OrderedDict()
    if name is not None:
        t["name"] = name
    t["dtype"] = dtype_name
    t["shape"] = list(a.shape)
    if dtype_name == "string":
        items = [bytes(b) for b in a.ravel()]
        t["values_b64"] = [base64.b64encode(b).decode("ascii") for b in items]
        t["byte_lengths"] = [len(b) for b in items]
        short = []
        for b in items:
            try:
                short.append(b.decode("utf-8") if len(b) <= 64 and b"\0" not in b else None)
            except UnicodeDecodeError:
                short.append(None)
        t["values_utf8_if_short"] = short
        return t
    t["values"] = plain(a)
    if dtype_name in ("float16", "bfloat16"):
        t["bits_hex"] = bits_hex(a)
    return t


def error_json(exc):
    """type, message, first line and the message without python stack lines."""
    msg = str(exc)
    e = collections.OrderedDict()
    e["type"] = type(exc).__name__
    e["message"] = msg
    e["first_line"] = msg.split("\n")[0]
    e["message_without_stack_lines"] = strip_stack_lines(msg)
    return e


def strip_stack_lines(msg):
    return "\n".join(line for line in msg.split("\n")
                     if not line.lstrip().startswith('File "'))


def ops_of(graph):
    return [[op.name, op.type] for op in graph.get_operations()]


def ops_of_graph_def(graph_def):
    return [[n.name, n.op] for n in graph_def.node]


def op_type_counts(ops):
    c = collections.Counter(t for _, t in ops)
    return collections.OrderedDict(sorted(c.items()))


def checkpoint_json(prefix):
    """list_variables and every tensor of a checkpoint, sorted by key."""
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    out = collections.OrderedDict()
    listed = tf.train.list_variables(prefix)
    out["list_variables"] = [[n, list(s)] for n, s in listed]
    out["tensors"] = [tensor_json(reader.get_tensor(n), dtypes[n].name, name=n)
                      for n, _ in listed]
    return out


def write_graph_def(graph_def, path):
    """Binary GraphDef with sorted map fields (what tf.io.write_graph writes)."""
    with open(path, "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))


def frozen_json(path, outputs):
    gd = tf.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    ops = ops_of_graph_def(gd)
    out = collections.OrderedDict()
    out["file"] = os.path.basename(path)
    out["output_nodes"] = list(outputs)
    out["ops"] = ops
    out["op_types"] = op_type_counts(ops)
    return out, gd


def run_graph_def(gd, fetches, feeds=None):
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session(graph=g, config=session_config()) as s:
            return s.run(fetches, feeds or {})


def meta_graph_json(path, with_graph_ops):
    mg = meta_graph_pb2.MetaGraphDef()
    with open(path, "rb") as f:
        mg.ParseFromString(f.read())
    out = collections.OrderedDict()
    mi = mg.meta_info_def
    out["meta_info_def"] = collections.OrderedDict([
        ("tensorflow_version", mi.tensorflow_version),
        ("tensorflow_git_version", mi.tensorflow_git_version),
        ("stripped_op_list", [op.name for op in mi.stripped_op_list.op]),
    ])
    sd = mg.saver_def
    out["saver_def"] = collections.OrderedDict([
        ("filename_tensor_name", sd.filename_tensor_name),
        ("save_tensor_name", sd.save_tensor_name),
        ("restore_op_name", sd.restore_op_name),
        ("max_to_keep", sd.max_to_keep),
        ("sharded", sd.sharded),
        ("keep_checkpoint_every_n_hours", sd.keep_checkpoint_every_n_hours),
        ("version", sd.version),
    ])
    cols = collections.OrderedDict()
    for key in sorted(mg.collection_def):
        cd = mg.collection_def[key]
        kind = cd.WhichOneof("kind")
        if kind == "bytes_list":
            vals = ["<%d bytes proto>" % len(v) for v in cd.bytes_list.value]
        else:
            vals = list(getattr(cd, kind).value)
        cols[key] = collections.OrderedDict([("kind", kind), ("count", len(vals)),
                                             ("values", vals)])
    out["collections"] = cols
    if with_graph_ops:
        out["graph_ops"] = ops_of_graph_def(mg.graph_def)
    vdefs = []
    if "variables" in mg.collection_def:
        for raw in mg.collection_def["variables"].bytes_list.value:
            vd = variable_pb2.VariableDef()
            vd.ParseFromString(raw)
            vdefs.append(collections.OrderedDict([
                ("variable_name", vd.variable_name),
                ("initial_value_name", vd.initial_value_name),
                ("initializer_name", vd.initializer_name),
                ("snapshot_name", vd.snapshot_name),
                ("is_resource", vd.is_resource),
                ("trainable", vd.trainable),
            ]))
    out["variable_defs"] = vdefs
    return out


def read_records(path):
    """TFRecord framing: u64 length, u32 masked crc, data, u32 masked crc."""
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 0, []
    while pos < len(data):
        (n,) = struct.unpack_from("<Q", data, pos)
        out.append(data[pos + 12:pos + 12 + n])
        pos += 12 + n + 4
    return out


def event_records_json(path):
    records = []
    for i, raw in enumerate(read_records(path)):
        ev = event_pb2.Event()
        ev.ParseFromString(raw)
        r = collections.OrderedDict()
        r["index"] = i
        r["step"] = ev.step
        r["wall_time_is_set"] = ev.wall_time > 0
        r["record_bytes"] = len(raw)
        what = ev.WhichOneof("what")
        r["what"] = what
        if what == "file_version":
            r["file_version"] = ev.file_version
        elif what == "graph_def":
            gd = tf.GraphDef()
            gd.ParseFromString(ev.graph_def)
            r["graph_def_bytes"] = len(ev.graph_def)
            r["graph_node_count"] = len(gd.node)
        elif what == "meta_graph_def":
            mg = meta_graph_pb2.MetaGraphDef()
            mg.ParseFromString(ev.meta_graph_def)
            r["meta_graph_def_bytes"] = len(ev.meta_graph_def)
            r["meta_graph_node_count"] = len(mg.graph_def.node)
            r["meta_graph_collections"] = sorted(mg.collection_def)
        elif what == "summary":
            vals = []
            for v in ev.summary.value:
                sv = collections.OrderedDict()
                sv["tag"] = v.tag
                kind = v.WhichOneof("value")
                sv["kind"] = kind
                if kind == "simple_value":
                    sv["simple_value"] = v.simple_value
                elif kind == "histo":
                    h = v.histo
                    sv["histo"] = collections.OrderedDict([
                        ("min", h.min), ("max", h.max), ("num", h.num),
                        ("sum", h.sum), ("sum_squares", h.sum_squares),
                        ("bucket_limit", list(h.bucket_limit)),
                        ("bucket", list(h.bucket)),
                    ])
                vals.append(sv)
            r["summary_values"] = vals
        records.append(r)
    return records


def event_files():
    return sorted(glob.glob("events.out.tfevents.*"))


def files_json():
    out = []
    for name in sorted(os.listdir(".")):
        if name == "manifest.json" or not os.path.isfile(name):
            continue
        with open(name, "rb") as f:
            data = f.read()
        out.append(collections.OrderedDict([
            ("file", name), ("bytes", len(data)),
            ("sha256", hashlib.sha256(data).hexdigest()),
            ("deterministic", not name.startswith("events.out.tfevents.")),
        ]))
    return out


def state_file():
    with open("checkpoint") as f:
        return f.read()


def f32(x):
    """A float32 result as a python float (exact widening)."""
    return float(np.float32(x))


# ----------------------------------------------------------------------------
# seed004 and resource_vars: three [1] variables, add, add_1
# ----------------------------------------------------------------------------

THREE_VARS_TAIL = (
    "add = v1 + v2 (op 'add', type AddV2); add_1 = add + v3 (op 'add_1'). Initialized with "
    "tf.global_variables_initializer() (op 'init'), saved with a default tf.train.Saver() as "
    "model.ckpt (writes model.ckpt.index, model.ckpt.data-00000-of-00001, model.ckpt.meta and the "
    "'checkpoint' state file; saved from inside the folder with a relative path, so the state file "
    "holds relative paths). Then tf.summary.FileWriter(folder, sess.graph) wrote one event file "
    "with the graph (it includes the save/ ops). frozen.pb = "
    "graph_util.convert_variables_to_constants(sess, graph_def, ['add_1']).")


def fx_three_vars(name, use_resource):
    if use_resource:
        kind = ("with use_resource=True (ResourceVariable: VarHandleOp / AssignVariableOp / "
                "ReadVariableOp); ")
    else:
        kind = "(reference variables: VariableV2 / Assign / Identity 'v1/read'); "
    m = header(name, "Three float32 variables of shape [1] (v1=1, v2=2, v3=3) created with "
               "tf.Variable(tf.constant(x, shape=[1]), name=...) " + kind + THREE_VARS_TAIL)
    g = tf.Graph()
    with g.as_default():
        vs = [tf.Variable(tf.constant(float(i), shape=[1]), name="v%d" % i,
                          use_resource=use_resource) for i in (1, 2, 3)]
        add = vs[0] + vs[1]
        add_1 = add + vs[2]
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            m["variables"] = [collections.OrderedDict([
                ("name", v.op.name), ("tensor", v.name), ("dtype", v.dtype.base_dtype.name),
                ("shape", v.shape.as_list()), ("value", plain(sess.run(v)))]) for v in vs]
            m["variable_op_type"] = vs[0].op.type
            a, b = sess.run([add, add_1])
            (fed,) = sess.run([add_1], {add: [10.0]})
            m["expected_fetches"] = [
                collections.OrderedDict([("feeds", {}), ("fetches", collections.OrderedDict(
                    [("add:0", plain(a)), ("add_1:0", plain(b))]))]),
                collections.OrderedDict([
                    ("feeds", {"add:0": [10.0]}), ("fetches", {"add_1:0": plain(fed)}),
                    ("note", "feeding an intermediate tensor replaces its value")]),
            ]
            m["save_returned"] = saver.save(sess, "model.ckpt")
            m["checkpoint_state_file"] = state_file()
            m["checkpoint"] = checkpoint_json("model.ckpt")
            writer = tf.summary.FileWriter(".", sess.graph)
            writer.close()
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), ["add_1"])
            write_graph_def(frozen, "frozen.pb")
        ops = ops_of(g)
        m["built_graph_ops"] = ops
        m["built_graph_op_types"] = op_type_counts(ops)
    m["meta_graph"] = meta_graph_json("model.ckpt.meta", with_graph_ops=True)
    fz, gd = frozen_json("frozen.pb", ["add_1"])
    fz["expected_fetches"] = {"add_1:0": plain(run_graph_def(gd, "add_1:0"))}
    m["frozen_graph"] = fz
    evs = event_files()
    m["event_file"] = collections.OrderedDict([
        ("files", evs), ("records", event_records_json(evs[0])), ("note", EVENT_NOTE)])
    m["import_meta_graph_observations"] = import_meta_graph_observations()
    m["files"] = files_json()
    return m


def import_meta_graph_observations():
    obs = collections.OrderedDict()
    g = tf.Graph()
    with g.as_default():
        saver = tf.train.import_meta_graph("model.ckpt.meta")
        obs["global_variables_after_import"] = [v.name for v in tf.global_variables()]
        obs["trainable_variables_after_import"] = [v.name for v in tf.trainable_variables()]
        with tf.Session(graph=g, config=session_config()) as sess:
            saver.restore(sess, "model.ckpt")
            a, b = sess.run(["add:0", "add_1:0"])
        obs["fetches_after_restore"] = collections.OrderedDict(
            [("add:0", plain(a)), ("add_1:0", plain(b))])
        try:
            with tf.variable_scope(tf.get_variable_scope(), reuse=True):
                tf.get_variable("v1", shape=[1])
            raise AssertionError("get_variable('v1') with reuse=True did not fail")
        except ValueError as e:
            obs["get_variable_v1_reuse_true_error"] = error_json(e)
        v = tf.get_variable("v1", shape=[1])
        obs["get_variable_v1_after_import"] = collections.OrderedDict([
            ("variable_name", v.name), ("op_name", v.op.name),
            ("note", "the imported graph already has an op named 'v1' but the variable store "
                     "(used by get_variable) is empty, so get_variable creates a NEW variable "
                     "and the op name is uniquified to 'v1_1'")])
        obs["global_variables_after_get_variable"] = [x.name for x in tf.global_variables()]
    return obs


def fx_seed004():
    return fx_three_vars("seed004", use_resource=False)


def fx_resource_vars():
    return fx_three_vars("resource_vars", use_resource=True)


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------

def write_manifest(m):
    with open("manifest.json", "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")


SETS = collections.OrderedDict([
    ("seed004", lambda: fx_seed004()),
    ("resource_vars", lambda: fx_resource_vars()),
])


def generate(outdir, names):
    for name in names:
        folder = os.path.join(outdir, name)
        if os.path.exists(folder) and os.listdir(folder):
            raise SystemExit("gen_fixtures: %s is not empty; pick an empty OUTDIR" % folder)
        with inside(folder):
            m = SETS[name]()
            write_manifest(m)
        print("gen_fixtures: wrote %s" % folder, file=sys.stderr)


def main(argv):
    if len(argv) < 1 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    outdir = os.path.abspath(argv[0])
    names = argv[1:] or list(SETS)
    unknown = [n for n in names if n not in SETS]
    if unknown:
        print("gen_fixtures: unknown set(s) %s; known: %s" % (", ".join(unknown), ", ".join(SETS)),
              file=sys.stderr)
        return 2
    generate(outdir, names)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
