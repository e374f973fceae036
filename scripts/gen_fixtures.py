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
    # an OpError's str() appends the op's python stack; .message is TF's own text
    msg = exc.message if isinstance(exc, tf.errors.OpError) else str(exc)
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


# What each set builds, in words (the manifests' 'description' fields).
DESCRIPTIONS = {
    'seed004': (
        'Three float32 variables of shape [1] (v1=1, v2=2, v3=3) created with '
        'tf.Variable(tf.constant(x, shape=[1]), name=...) (reference variables: '
        "VariableV2 / Assign / Identity 'v1/read'); add = v1 + v2 (op 'add', type "
        "AddV2); add_1 = add + v3 (op 'add_1'). Initialized with "
        "tf.global_variables_initializer() (op 'init'), saved with a default "
        'tf.train.Saver() as model.ckpt (writes model.ckpt.index, '
        "model.ckpt.data-00000-of-00001, model.ckpt.meta and the 'checkpoint' state "
        'file; saved from inside the folder with a relative path, so the state file '
        'holds relative paths). Then tf.summary.FileWriter(folder, sess.graph) wrote '
        'one event file with the graph (it includes the save/ ops). frozen.pb = '
        "graph_util.convert_variables_to_constants(sess, graph_def, ['add_1'])."),
    'resource_vars': (
        'Three float32 variables of shape [1] (v1=1, v2=2, v3=3) created with '
        'tf.Variable(tf.constant(x, shape=[1]), name=...) with use_resource=True '
        '(ResourceVariable: VarHandleOp / AssignVariableOp / ReadVariableOp); add = '
        "v1 + v2 (op 'add', type AddV2); add_1 = add + v3 (op 'add_1'). Initialized "
        "with tf.global_variables_initializer() (op 'init'), saved with a default "
        'tf.train.Saver() as model.ckpt (writes model.ckpt.index, '
        "model.ckpt.data-00000-of-00001, model.ckpt.meta and the 'checkpoint' state "
        'file; saved from inside the folder with a relative path, so the state file '
        'holds relative paths). Then tf.summary.FileWriter(folder, sess.graph) wrote '
        'one event file with the graph (it includes the save/ ops). frozen.pb = '
        "graph_util.convert_variables_to_constants(sess, graph_def, ['add_1'])."),
    'dtypes': (
        'One reference variable (tf.Variable(tf.constant(value), name=...)) per '
        "dtype, plus a 0-d float32 scalar 'scalar' and an empty float32 [0,3] tensor "
        "'empty', saved with a default tf.train.Saver() as model.ckpt. The bfloat16 "
        'variable was made from tf.cast(float32 constant [1, -2.5, 3.140625, 1e30], '
        'bfloat16): the first three are exact, 1e30 rounds to 0x714a = '
        "1.0002555517425873e30. The string variable holds: 'hello', '' (empty), 300 x"
        " 'x', UTF-8 'héllo ☃', and the 6 raw bytes 00 ff 01 'b' 'i' 'n'. float16 "
        'includes 65504 (max finite) and 6e-8 (subnormal, stored as 0x0001 = '
        '5.96e-8); float32 includes -0.0 and the smallest subnormal; float64 includes'
        ' 5e-324.'),
    'events': (
        'tf.summary.FileWriter(folder, graph) for a graph with a float32 scalar '
        "placeholder 'loss_value', a variable 'w' (16 values linspace(-1, 2)), s_loss"
        " = tf.summary.scalar('loss', loss_value) (op 'loss', ScalarSummary) and "
        "s_hist = tf.summary.histogram('weights', w) (op 'weights', "
        'HistogramSummary). add_summary(sess.run(s_loss, {loss_value: v}), step) for '
        '(step, v) in (0, 1.0), (1, 0.5), (2, 0.25); then '
        'add_summary(sess.run(s_hist), 2); close(). The file holds TFRecord-framed '
        "Event protos: file_version 'brain.Event:2' first, then the graph_def, then a"
        ' meta_graph_def (FileWriter.add_graph writes both in TF 2.21 graph mode), '
        'then the 4 summaries.'),
    'scopes': (
        'One graph built step by step with name_scope, variable_scope (nested, '
        'reuse=True, AUTO_REUSE, scope.reuse_variables(), re-entering by object and '
        'by string, default_name), tf.Variable and tf.get_variable, and repeated ops '
        "that get _1/_2 suffixes. 'construction_steps' gives, in order, what each "
        'step did and the name TF assigned (tensor or variable name, its op name and '
        "op type). graph.pbtxt is tf.train.write_graph(graph, folder, 'graph.pbtxt', "
        "as_text=True) at the end. 'errors' holds the exact ValueError texts; note "
        'that a failed variable_scope entry still consumes its name scope.'),
    'cnn_frozen': (
        'Small CNN on NHWC 8x8x1 input, frozen with convert_variables_to_constants '
        "(output node 'probs'). input = placeholder float32 [None,8,8,1] 'input'; "
        'conv1/Conv2D = conv2d(input, conv1/weights [3,3,1,4], strides 1, SAME); '
        'conv1/BiasAdd = bias_add(., conv1/biases [4]); conv1/Relu; pool1 = '
        'max_pool(ksize 2x2, strides 2, VALID) -> [N,4,4,4]; conv2/Conv2D = '
        'conv2d(pool1, conv2/weights [2,2,4,6], strides 2, VALID) -> [N,2,2,6] (no '
        'bias); conv2/Relu; pool2 = avg_pool(2x2, strides 2, VALID) -> [N,1,1,6]; '
        'flatten = reshape(., [-1,6]); fc/logits = add(matmul(flatten, fc/weights '
        '[6,3]), fc/biases [3]); probs = softmax. Weights: numpy RandomState(88) '
        'normals.'),
    'mlp': (
        '2-hidden-layer MLP 4-16-16-3 with relu on a synthetic 3-class data set (3 '
        'gaussian blobs, 50 rows each, unit variance, centers below, rows shuffled; '
        'data.npy float32 [150,4], labels.npy int64 [150]). x = placeholder float32 '
        "[None,4] 'x', y = placeholder int64 [None] 'y'. For scope in hidden1, "
        "hidden2, output: with tf.variable_scope(scope): W = get_variable('weights'),"
        " b = get_variable('biases') (glorot-uniform numpy values, zero biases; see "
        'init.ckpt), z = tf.nn.bias_add(tf.matmul(h, W), b), h = relu(z) (output: '
        "tf.identity(z, name='logits') so the tensor is 'output/logits:0'). probs = "
        "tf.nn.softmax(logits, name='probs'); loss = "
        'reduce_mean(sparse_softmax_cross_entropy_with_logits(labels=y, '
        "logits=logits), name='loss'); accuracy = "
        "reduce_mean(cast(equal(argmax(logits,1), y), float32), name='accuracy'); "
        "train = AdamOptimizer(0.01).minimize(loss, name='train'); 200 full-batch "
        'steps. init.ckpt = the initial values (saved before training, no .meta); '
        "model.ckpt(.meta) = after training; frozen.pb has output node 'probs'."),
    'weight_def_adam': (
        "x = placeholder float32 [None,4] 'x'; y = placeholder float32 [None,3] 'y' "
        "(one-hot labels); with tf.variable_scope('weight_def'): W = "
        "get_variable('weights', [4,3]), b = get_variable('biases', [3]) (constant "
        "initializers holding the values under 'initial_values'); logits = "
        "tf.add(tf.matmul(x, W), b, name='logits'); probs = tf.nn.softmax(logits, "
        "name='probs'); loss = "
        'reduce_mean(softmax_cross_entropy_with_logits_v2(labels=y, logits=logits), '
        "name='loss'); train = tf.train.AdamOptimizer(0.01) (beta1=0.9, beta2=0.999, "
        "epsilon=1e-8).minimize(loss, name='train'). Trained 5 steps on the fixed "
        'batch (X, Y) below. Saved with tf.train.Saver() (all global variables, incl.'
        ' optimizer slots) as full.ckpt and with tf.train.Saver(var_list=[W, b]) as '
        "model_only.ckpt (that second saver's ops are under 'save_1/'). Both saves "
        "wrote .meta files; the 'checkpoint' state file was written by both savers in"
        ' turn.'),
}

# scopes: (description, code) of each construction step, in order.
SCOPE_STEPS = [
    ("constant named 'c'",
     "tf.constant(1.0, name='c')"),
    ("second constant named 'c' gets a _1 suffix",
     "tf.constant(2.0, name='c')"),
    ("third constant named 'c'",
     "tf.constant(3.0, name='c')"),
    ("explicit name 'c_1' that is already taken",
     "tf.constant(4.0, name='c_1')"),
    ('unnamed constant',
     'tf.constant(5.0)'),
    ('second unnamed constant',
     'tf.constant(6.0)'),
    ('operator + on tensors',
     'c + c'),
    ('operator + again',
     'c + c'),
    ('tf.add',
     'tf.add(c, c)'),
    ('tf.add again',
     'tf.add(c, c)'),
    ('tf.math.add',
     'tf.math.add(c, c)'),
    ('tf.identity',
     'tf.identity(c)'),
    ('tf.identity again',
     'tf.identity(c)'),
    ('tf.identity a third time',
     'tf.identity(c)'),
    ('tf.matmul of [1,1] constants',
     'tf.matmul(tf.ones([1,1]), tf.ones([1,1]))'),
    ("operator + inside name_scope('ns')",
     "with tf.name_scope('ns'): c + c"),
    ("constant 'k' inside name_scope('ns')",
     "tf.constant(0.0, name='k')"),
    ("nested name_scope('inner') in 'ns'",
     "tf.identity(c, name='id')"),
    ("re-entering name_scope('ns') by string gives 'ns_1'",
     "with tf.name_scope('ns'): tf.identity(c, name='id')"),
    ("name_scope('ns/') (trailing slash) re-enters the existing 'ns' exactly",
     "with tf.name_scope('ns/'): tf.identity(c, name='id2')"),
    ("third name_scope('ns') -> 'ns_2'; the returned scope string",
     "with tf.name_scope('ns') as s: s"),
    ("get_variable in variable_scope('vs')",
     "tf.get_variable('w', [2])"),
    ("an op in variable_scope('vs') (variable_scope also opens name scope 'vs')",
     "tf.identity(c, name='op')"),
    ("tf.Variable inside variable_scope('vs')",
     "tf.Variable(1.0, name='tv')"),
    ("get_variable inside name_scope('nsin') inside variable_scope('vs'): name_scope "
     'is ignored by get_variable',
     "tf.get_variable('w_ns', [1])"),
    ("tf.Variable inside name_scope('nsin') inside variable_scope('vs'): name_scope "
     'is used',
     "tf.Variable(1.0, name='tv_ns')"),
    ("variable_scope('vs', reuse=True): get_variable returns the same variable",
     "tf.get_variable('w', [2])"),
    ("op inside the re-entered variable_scope('vs', reuse=True): name scope becomes "
     "'vs_2' (the failed attempt above already used 'vs_1')",
     "tf.identity(c, name='op')"),
    ("tf.Variable inside reused variable_scope('vs')",
     "tf.Variable(2.0, name='tv')"),
    ('nested variable_scope outer/inner',
     "tf.get_variable('w', [1])"),
    ('op in nested variable_scope',
     'tf.identity(c)'),
    ('reuse is inherited by the nested scope',
     "with variable_scope('outer', reuse=True): with variable_scope('inner'): "
     "tf.get_variable('w', [1])"),
    ('AUTO_REUSE creates when missing',
     "tf.get_variable('w', [2])"),
    ('AUTO_REUSE returns the existing one',
     "tf.get_variable('w', [2])"),
    ('op in second AUTO_REUSE scope',
     'tf.identity(c)'),
    ("variable_scope('rv') as scope: first get_variable",
     "tf.get_variable('w', [1])"),
    ('after scope.reuse_variables(), get_variable returns the same variable',
     "tf.get_variable('w', [1])"),
    ("re-entering variable_scope with the scope object: variables by the object's "
     'name, name scope uniquified',
     'with tf.variable_scope(scope): tf.identity(c)'),
    ("tf.Variable in variable_scope('vs2')",
     "tf.Variable(1.0, name='v')"),
    ("tf.Variable in variable_scope('vs2') a second time: the name scope is 'vs2_1', "
     "so the variable is 'vs2_1/v'",
     "tf.Variable(1.0, name='v')"),
    ("get_variable in re-entered 'vs2' still uses 'vs2/'",
     "tf.get_variable('gv', [1])"),
    ("variable_scope(None, default_name='layer')",
     "tf.get_variable('w', [1])"),
    ("second variable_scope(None, default_name='layer')",
     "tf.get_variable('w', [1])"),
    ("tf.Variable named 'v' at top level",
     "tf.Variable(0.0, name='v')"),
    ("tf.Variable named 'v' at top level again",
     "tf.Variable(0.0, name='v')"),
    ('tf.Variable with no name',
     'tf.Variable(0.0)'),
    ('tf.Variable with no name again',
     'tf.Variable(0.0)'),
    ("get_variable 'v' at top level when op 'v' exists (from tf.Variable): the "
     'variable store does not know it, so a new variable is created and its ops are '
     'uniquified',
     "tf.get_variable('v', [1])"),
    ("variable_scope('vs_1') explicitly (the name scope 'vs_1' was already used by a "
     'failed attempt above)',
     "tf.get_variable('x', [1])"),
    ('op inside it',
     'tf.identity(c)'),
]


# ----------------------------------------------------------------------------
# seed004 and resource_vars: three [1] variables, add, add_1
# ----------------------------------------------------------------------------

def fx_three_vars(name, use_resource):
    m = header(name, DESCRIPTIONS[name])
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
# dtypes: one reference variable per dtype, saved
# ----------------------------------------------------------------------------

DTYPE_NOTES = ["JSON floats are exact (16/32-bit values widened to float64); -0.0 is written as -0.0",
               "string values: values_b64 (standard base64) are authoritative"]


def dtype_values():
    """(variable name, initial value builder) in creation order."""
    strings = np.array([b"hello", b"", b"x" * 300, u"h\u00e9llo \u2603".encode("utf-8"),
                        b"\x00\xff\x01bin"], dtype=object)
    return [
        ("v_float16", lambda: tf.constant(np.array([1.5, -0.25, 65504.0, 6e-8, 0.0], np.float16))),
        # the float32 constant already holds 1e30 rounded to bfloat16 (0x714a0000)
        ("v_bfloat16", lambda: tf.cast(tf.constant(np.array(
            [1.0, -2.5, 3.140625, 1.0002555517425873e30], np.float32)), tf.bfloat16)),
        ("v_float32", lambda: tf.constant(np.array([[1.5, -2.25, 0.1],
                                                    [3e38, 1e-45, -0.0]], np.float32))),
        ("v_float64", lambda: tf.constant(np.array([3.141592653589793, -1e300, 5e-324],
                                                   np.float64))),
        ("v_int8", lambda: tf.constant(np.array([-128, 127, 0, -1], np.int8))),
        ("v_int16", lambda: tf.constant(np.array([-32768, 32767, 1], np.int16))),
        ("v_int32", lambda: tf.constant(np.array([-2**31, 2**31 - 1, 7], np.int32))),
        ("v_int64", lambda: tf.constant(np.array([-2**63, 2**63 - 1, 42], np.int64))),
        ("v_uint8", lambda: tf.constant(np.array([0, 255, 128], np.uint8))),
        ("v_uint16", lambda: tf.constant(np.array([0, 65535, 0x1234], np.uint16))),
        ("v_bool", lambda: tf.constant(np.array([True, False, True]))),
        ("v_string", lambda: tf.constant(strings)),
        ("v_complex64", lambda: tf.constant(np.array([1 + 2j, -3.5 - 0.5j, 0j], np.complex64))),
        ("scalar", lambda: tf.constant(np.float32(42.5))),
        ("empty", lambda: tf.constant(np.zeros((0, 3), np.float32))),
    ]


def fx_dtypes():
    m = header("dtypes", DESCRIPTIONS["dtypes"])
    g = tf.Graph()
    with g.as_default():
        vs = [tf.Variable(make(), name=name) for name, make in dtype_values()]
        saver = tf.train.Saver()
        init = tf.global_variables_initializer()
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            m["variables"] = [tensor_json(sess.run(v), v.dtype.base_dtype.name, name=v.op.name)
                              for v in vs]
            saver.save(sess, "model.ckpt")
    m["checkpoint"] = checkpoint_json("model.ckpt")
    m["checkpoint_state_file"] = state_file()
    m["dtype_enum"] = collections.OrderedDict(
        (v.dtype.base_dtype.name, v.dtype.base_dtype.as_datatype_enum)
        for v in vs if v.op.name.startswith("v_"))
    m["notes"] = DTYPE_NOTES
    m["meta_graph"] = meta_graph_json("model.ckpt.meta", with_graph_ops=False)
    m["files"] = files_json()
    return m


# ----------------------------------------------------------------------------
# events: a FileWriter with the graph, scalar and histogram summaries
# ----------------------------------------------------------------------------

EVENT_NOTES = ["wall_time differs between runs; event file bytes are not reproducible",
               "histogram buckets are TF's default exponential buckets; only non-empty buckets "
               "(and the limits around them) are written"]


def fx_events():
    m = header("events", DESCRIPTIONS["events"])
    g = tf.Graph()
    with g.as_default():
        loss_value = tf.placeholder(tf.float32, shape=[], name="loss_value")
        w = tf.Variable(np.linspace(-1, 2, 16).astype(np.float32), name="w")
        s_loss = tf.summary.scalar("loss", loss_value)
        s_hist = tf.summary.histogram("weights", w)
        init = tf.global_variables_initializer()
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            writer = tf.summary.FileWriter(".", g)
            for step, v in ((0, 1.0), (1, 0.5), (2, 0.25)):
                writer.add_summary(sess.run(s_loss, {loss_value: v}), step)
            writer.add_summary(sess.run(s_hist), 2)
            writer.close()
            w_value = sess.run(w)
    evs = event_files()
    m["event_files"] = evs
    m["records"] = event_records_json(evs[0])
    m["histogram_input"] = tensor_json(w_value)
    m["graph_ops"] = ops_of(g)
    m["notes"] = EVENT_NOTES
    m["files"] = files_json()
    return m


# ----------------------------------------------------------------------------
# scopes: name_scope / variable_scope naming, step by step
# ----------------------------------------------------------------------------

SCOPE_ERRORS = [
    ("a_existing_variable_reuse_false",
     "with tf.variable_scope('vs'): tf.get_variable('w', [2])  # 'vs/w' already exists"),
    ("b_missing_variable_reuse_true",
     "with tf.variable_scope('vs', reuse=True): tf.get_variable('missing', [3])"),
    ("c_reuse_with_other_shape",
     "with tf.variable_scope('vs', reuse=True): tf.get_variable('w', [3])  # exists with shape [2]"),
]

SCOPE_NOTES = [
    "Op-name uniquification is case-insensitive: after 'add' and 'add_1' exist, tf.add (default "
    "name 'Add') becomes 'Add_2' (step 9), not 'Add'.",
    "An explicit name that is taken gets a suffix too: 'c_1' -> 'c_1_1' (step 4).",
    "A name scope entered by string is uniquified ('ns', 'ns_1', 'ns_2'); a trailing slash "
    "('ns/') re-enters that exact scope.",
    "Entering a variable_scope always opens a new (uniquified) name scope, also when the entry "
    "then fails (errors.a consumed 'vs_1').",
    "get_variable names ignore name_scope; tf.Variable names use the current name scope (which "
    "may carry a _N suffix when a variable_scope is re-entered).",
    "'message_without_stack_lines' drops the python source lines that TF appends ('Originally "
    "defined at:' ...), which depend on the generating script.",
]


def build_scopes_graph():
    """Builds the graph; returns (results of the steps in order, {error key: exception})."""
    r, errors = [], {}
    c = tf.constant(1.0, name="c")
    r.append(c)
    r.append(tf.constant(2.0, name="c"))
    r.append(tf.constant(3.0, name="c"))
    r.append(tf.constant(4.0, name="c_1"))
    r.append(tf.constant(5.0))
    r.append(tf.constant(6.0))
    r.append(c + c)
    r.append(c + c)
    r.append(tf.add(c, c))
    r.append(tf.add(c, c))
    r.append(tf.math.add(c, c))
    r.append(tf.identity(c))
    r.append(tf.identity(c))
    r.append(tf.identity(c))
    r.append(tf.matmul(tf.ones([1, 1]), tf.ones([1, 1])))
    with tf.name_scope("ns"):
        r.append(c + c)
        r.append(tf.constant(0.0, name="k"))
        with tf.name_scope("inner"):
            r.append(tf.identity(c, name="id"))
    with tf.name_scope("ns"):
        r.append(tf.identity(c, name="id"))
    with tf.name_scope("ns/"):
        r.append(tf.identity(c, name="id2"))
    with tf.name_scope("ns") as s:
        r.append(s)
    with tf.variable_scope("vs"):
        r.append(tf.get_variable("w", [2]))
        r.append(tf.identity(c, name="op"))
        r.append(tf.Variable(1.0, name="tv"))
        with tf.name_scope("nsin"):
            r.append(tf.get_variable("w_ns", [1]))
            r.append(tf.Variable(1.0, name="tv_ns"))
    try:
        with tf.variable_scope("vs"):
            tf.get_variable("w", [2])
    except ValueError as e:
        errors["a_existing_variable_reuse_false"] = e
    with tf.variable_scope("vs", reuse=True):
        r.append(tf.get_variable("w", [2]))
        r.append(tf.identity(c, name="op"))
        r.append(tf.Variable(2.0, name="tv"))
    try:
        with tf.variable_scope("vs", reuse=True):
            tf.get_variable("missing", [3])
    except ValueError as e:
        errors["b_missing_variable_reuse_true"] = e
    try:
        with tf.variable_scope("vs", reuse=True):
            tf.get_variable("w", [3])
    except ValueError as e:
        errors["c_reuse_with_other_shape"] = e
    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            r.append(tf.get_variable("w", [1]))
            r.append(tf.identity(c))
    with tf.variable_scope("outer", reuse=True):
        with tf.variable_scope("inner"):
            r.append(tf.get_variable("w", [1]))
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        r.append(tf.get_variable("w", [2]))
    with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
        r.append(tf.get_variable("w", [2]))
        r.append(tf.identity(c))
    with tf.variable_scope("rv") as scope:
        r.append(tf.get_variable("w", [1]))
        scope.reuse_variables()
        r.append(tf.get_variable("w", [1]))
    with tf.variable_scope(scope):
        r.append(tf.identity(c))
    with tf.variable_scope("vs2"):
        r.append(tf.Variable(1.0, name="v"))
    with tf.variable_scope("vs2"):
        r.append(tf.Variable(1.0, name="v"))
        r.append(tf.get_variable("gv", [1]))
    with tf.variable_scope(None, default_name="layer"):
        r.append(tf.get_variable("w", [1]))
    with tf.variable_scope(None, default_name="layer"):
        r.append(tf.get_variable("w", [1]))
    r.append(tf.Variable(0.0, name="v"))
    r.append(tf.Variable(0.0, name="v"))
    r.append(tf.Variable(0.0))
    r.append(tf.Variable(0.0))
    r.append(tf.get_variable("v", [1]))
    with tf.variable_scope("vs_1"):
        r.append(tf.get_variable("x", [1]))
        r.append(tf.identity(c))
    return r, errors


def fx_scopes():
    m = header("scopes", DESCRIPTIONS["scopes"])
    g = tf.Graph()
    with g.as_default():
        results, errors = build_scopes_graph()
        assert len(results) == len(SCOPE_STEPS), (len(results), len(SCOPE_STEPS))
        steps = []
        for i, ((desc, code), res) in enumerate(zip(SCOPE_STEPS, results)):
            st = collections.OrderedDict([("step", i + 1), ("description", desc), ("code", code)])
            if isinstance(res, str):
                st["name"] = res
            else:
                st["name"] = res.name
                st["op_name"] = res.op.name
                st["op_type"] = res.op.type
            steps.append(st)
        m["construction_steps"] = steps
        errs = collections.OrderedDict()
        for key, code in SCOPE_ERRORS:
            e = error_json(errors[key])
            e["code"] = code
            errs[key] = e
        m["errors"] = errs
        m["notes"] = SCOPE_NOTES
        m["global_variables"] = [v.name for v in tf.global_variables()]
        m["graph_ops"] = ops_of(g)
        tf.train.write_graph(g, ".", "graph.pbtxt", as_text=True)
    m["files"] = files_json()
    return m


# ----------------------------------------------------------------------------
# cnn_frozen: a small NHWC CNN, frozen
# ----------------------------------------------------------------------------

CNN_INTERMEDIATES = [("conv1/Relu:0", "intermediate_conv1_relu.npy"),
                     ("pool1:0", "intermediate_pool1.npy"),
                     ("conv2/Relu:0", "intermediate_conv2_relu.npy"),
                     ("pool2:0", "intermediate_pool2.npy"),
                     ("fc/logits:0", "intermediate_logits.npy")]


def fx_cnn_frozen():
    m = header("cnn_frozen", DESCRIPTIONS["cnn_frozen"])
    r = np.random.RandomState(88)
    weights = collections.OrderedDict()
    weights["conv1/weights"] = (r.randn(3, 3, 1, 4) * 0.5).astype(np.float32)
    weights["conv1/biases"] = (r.randn(4) * 0.1).astype(np.float32)
    weights["conv2/weights"] = (r.randn(2, 2, 4, 6) * 0.5).astype(np.float32)
    weights["fc/weights"] = (r.randn(6, 3) * 0.5).astype(np.float32)
    weights["fc/biases"] = (r.randn(3) * 0.1).astype(np.float32)
    inp = r.uniform(-1, 1, (4, 8, 8, 1)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="input")
        var = {}
        for full, value in weights.items():
            scope, leaf = full.split("/")
            with tf.variable_scope(scope):
                var[full] = tf.get_variable(leaf, initializer=tf.constant(value))
        with tf.name_scope("conv1/"):
            h = tf.nn.conv2d(x, var["conv1/weights"], strides=[1, 1, 1, 1], padding="SAME")
            h = tf.nn.bias_add(h, var["conv1/biases"])
            h = tf.nn.relu(h)
        h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID",
                           name="pool1")
        with tf.name_scope("conv2/"):
            h = tf.nn.conv2d(h, var["conv2/weights"], strides=[1, 2, 2, 1], padding="VALID")
            h = tf.nn.relu(h)
        h = tf.nn.avg_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID",
                           name="pool2")
        h = tf.reshape(h, [-1, 6], name="flatten")
        with tf.name_scope("fc/"):
            logits = tf.add(tf.matmul(h, var["fc/weights"]), var["fc/biases"], name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        init = tf.global_variables_initializer()
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            expected = sess.run(probs, {x: inp})
            inter = sess.run([t for t, _ in CNN_INTERMEDIATES], {x: inp})
            frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(),
                                                                  ["probs"])
    write_graph_def(frozen, "frozen.pb")
    np.save("input.npy", inp)
    np.save("expected.npy", expected)
    for (_, fname), value in zip(CNN_INTERMEDIATES, inter):
        np.save(fname, value)
    fz, gd = frozen_json("frozen.pb", ["probs"])
    again = run_graph_def(gd, "probs:0", {"input:0": inp})
    m["input"] = collections.OrderedDict([("file", "input.npy"), ("shape", list(inp.shape)),
                                          ("feed", "input:0")])
    m["expected"] = collections.OrderedDict([
        ("file", "expected.npy"), ("fetch", "probs:0"), ("shape", list(expected.shape)),
        ("frozen_graph_reproduces", bool(np.allclose(again, expected, rtol=1e-5, atol=1e-6)))])
    m["intermediates"] = collections.OrderedDict(CNN_INTERMEDIATES)
    m["weights"] = collections.OrderedDict((k, tensor_json(v)) for k, v in weights.items())
    m["frozen_graph"] = fz
    m["files"] = files_json()
    return m


# ----------------------------------------------------------------------------
# mlp: a 4-16-16-3 relu MLP trained with Adam on three gaussian blobs
# ----------------------------------------------------------------------------

MLP_CENTERS = [[0, 0, 0, 0], [2.5, 2.5, 0, 1], [0, 2.5, 2.5, -1]]
MLP_LAYERS = [("hidden1", 4, 16), ("hidden2", 16, 16), ("output", 16, 3)]
MLP_STEPS = 200


def mlp_data():
    """numpy RandomState(150): per class normal(0,1,(50,4)) + center, then a permutation."""
    r = np.random.RandomState(150)
    xs, ys = [], []
    for label, center in enumerate(MLP_CENTERS):
        xs.append(r.normal(0, 1, (50, 4)) + np.array(center, np.float64))
        ys.append(np.full(50, label, np.int64))
    perm = r.permutation(150)
    return np.concatenate(xs)[perm].astype(np.float32), np.concatenate(ys)[perm]


def mlp_initial_values():
    """Glorot-uniform weights from numpy RandomState(1234), layer by layer; zero biases."""
    r = np.random.RandomState(1234)
    values = collections.OrderedDict()
    for scope, fan_in, fan_out in MLP_LAYERS:
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        values[scope + "/weights"] = r.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)
        values[scope + "/biases"] = np.zeros(fan_out, np.float32)
    return values


def fx_mlp():
    m = header("mlp", DESCRIPTIONS["mlp"])
    data, labels = mlp_data()
    init_values = mlp_initial_values()
    np.save("data.npy", data)
    np.save("labels.npy", labels)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        h = x
        for scope, fan_in, fan_out in MLP_LAYERS:
            with tf.variable_scope(scope):
                w = tf.get_variable("weights", [fan_in, fan_out], initializer=tf.constant_initializer(
                    init_values[scope + "/weights"]))
                b = tf.get_variable("biases", [fan_out], initializer=tf.constant_initializer(
                    init_values[scope + "/biases"]))
                z = tf.nn.bias_add(tf.matmul(h, w), b)
                h = tf.identity(z, name="logits") if scope == "output" else tf.nn.relu(z)
        logits = h
        probs = tf.nn.softmax(logits, name="probs")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits), name="loss")
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32),
                                  name="accuracy")
        train = tf.train.AdamOptimizer(0.01).minimize(loss, name="train")
        saver = tf.train.Saver()
        init = tf.global_variables_initializer()
        feed = {x: data, y: labels}
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            saver.save(sess, "init.ckpt", write_meta_graph=False)
            initial_loss, initial_acc = sess.run([loss, accuracy], feed)
            losses = np.array([sess.run([loss, train], feed)[0] for _ in range(MLP_STEPS)],
                              np.float32)
            final_loss, final_acc = sess.run([loss, accuracy], feed)
            saver.save(sess, "model.ckpt")
            inputs = data[:10]
            expected = sess.run(probs, {x: inputs})
            frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(),
                                                                  ["probs"])
    np.save("losses.npy", losses)
    np.save("inputs.npy", inputs)
    np.save("expected_probs.npy", expected)
    write_graph_def(frozen, "frozen.pb")
    fz, gd = frozen_json("frozen.pb", ["probs"])
    again = run_graph_def(gd, "probs:0", {"x:0": inputs})
    m["data"] = collections.OrderedDict([
        ("file", "data.npy"), ("labels_file", "labels.npy"), ("rows", int(data.shape[0])),
        ("centers", MLP_CENTERS),
        ("generator", "numpy RandomState(150): per class normal(0,1,(50,4)) + center, then a "
                      "permutation from the same RandomState")])
    m["training"] = collections.OrderedDict([
        ("steps", MLP_STEPS), ("optimizer", "AdamOptimizer(0.01)"), ("batch", "all 150 rows"),
        ("initial_loss", f32(initial_loss)), ("initial_accuracy", f32(initial_acc)),
        ("losses_file", "losses.npy"),
        ("losses_note", "losses.npy[i] = loss fetched with the i-th train step (before that "
                        "step's update)"),
        ("first_losses", plain(losses[:5])),
        ("final_loss", f32(final_loss)), ("final_accuracy", f32(final_acc))])
    m["inference"] = collections.OrderedDict([
        ("inputs_file", "inputs.npy"), ("expected_file", "expected_probs.npy"),
        ("feeds", {"x:0": "inputs.npy (= data.npy[:10])"}), ("fetch", "probs:0"),
        ("frozen_graph_reproduces", bool(np.allclose(again, expected, rtol=1e-5, atol=1e-6)))])
    m["initial_values"] = collections.OrderedDict(
        (k, tensor_json(v)) for k, v in init_values.items())
    m["checkpoints"] = collections.OrderedDict([("init.ckpt", checkpoint_json("init.ckpt")),
                                                ("model.ckpt", checkpoint_json("model.ckpt"))])
    m["checkpoint_state_file"] = state_file()
    ops = ops_of(g)
    m["graph_ops"] = ops
    m["graph_op_types"] = op_type_counts(ops)
    m["frozen_graph"] = fz
    m["meta_graph"] = meta_graph_json("model.ckpt.meta", with_graph_ops=False)
    m["files"] = files_json()
    return m


# ----------------------------------------------------------------------------
# weight_def_adam: softmax regression in variable_scope('weight_def'), Adam, two savers
# ----------------------------------------------------------------------------

ADAM = "tf.train.AdamOptimizer(0.01) (beta1=0.9, beta2=0.999, epsilon=1e-8)"
WD_STEPS = 5


def weight_def_data():
    """numpy RandomState(4): W = 0.5 randn(4,3), b = 0.1 randn(3), X = randn(8,4), then the
    forecast inputs randn(3,4); labels cycle 1, 2, 0."""
    r = np.random.RandomState(4)
    w0 = (r.randn(4, 3) * 0.5).astype(np.float32)
    b0 = (r.randn(3) * 0.1).astype(np.float32)
    xs = r.randn(8, 4).astype(np.float32)
    labels = [(i + 1) % 3 for i in range(8)]
    ys = np.eye(3, dtype=np.float32)[labels]
    xf = r.randn(3, 4).astype(np.float32)
    return w0, b0, xs, labels, ys, xf


def build_weight_def(w0, b0, optimizer):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    with tf.variable_scope("weight_def"):
        w = tf.get_variable("weights", [4, 3], initializer=tf.constant_initializer(w0))
        b = tf.get_variable("biases", [3], initializer=tf.constant_initializer(b0))
    logits = tf.add(tf.matmul(x, w), b, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits),
                          name="loss")
    train = optimizer.minimize(loss, name="train")
    return x, y, w, b, logits, probs, loss, train


def fx_weight_def_adam():
    m = header("weight_def_adam", DESCRIPTIONS["weight_def_adam"])
    w0, b0, xs, labels, ys, xf = weight_def_data()
    g = tf.Graph()
    with g.as_default():
        x, y, w, b, logits, probs, loss, train = build_weight_def(
            w0, b0, tf.train.AdamOptimizer(0.01, beta1=0.9, beta2=0.999, epsilon=1e-8))
        init = tf.global_variables_initializer()
        saver_full = tf.train.Saver()
        saver_model = tf.train.Saver(var_list=[w, b])
        feed = {x: xs, y: ys}
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            losses = [f32(sess.run([loss, train], feed)[0]) for _ in range(WD_STEPS)]
            final_loss = f32(sess.run(loss, feed))
            f_logits, f_probs = sess.run([logits, probs], {x: xf})
            saver_full.save(sess, "full.ckpt")
            saver_model.save(sess, "model_only.ckpt")
            global_variables = [v.op.name for v in tf.global_variables()]
            sess.run(train, feed)
            w6, b6 = sess.run([w, b])
        obs = collections.OrderedDict()
        with tf.Session(graph=g, config=session_config()) as sess:
            try:
                saver_full.restore(sess, "model_only.ckpt")
                raise AssertionError("restoring all variables from model_only.ckpt did not fail")
            except tf.errors.NotFoundError as e:
                obs["all_vars_from_model_only_error"] = error_json(e)
        with tf.Session(graph=g, config=session_config()) as sess:
            saver_model.restore(sess, "full.ckpt")
            obs["model_vars_from_full_ckpt"] = ("works: a Saver over a subset of the variables "
                                                "restores from a checkpoint that has extra keys")
        with tf.Session(graph=g, config=session_config()) as sess:
            saver_full.restore(sess, "full.ckpt")
            sess.run(train, feed)
            w_r, b_r = sess.run([w, b])
            loss_after = f32(sess.run(loss, feed))
        obs["one_more_step_after_restoring_full"] = collections.OrderedDict([
            ("weight_def/weights", tensor_json(w_r)), ("weight_def/biases", tensor_json(b_r)),
            ("loss_after", loss_after),
            ("matches_uninterrupted_training",
             bool(np.allclose(w_r, w6, rtol=1e-6, atol=1e-7)
                  and np.allclose(b_r, b6, rtol=1e-6, atol=1e-7)))])
        ops = ops_of(g)
    gd_ref = gradient_descent_reference(w0, b0, xs, ys)
    m["optimizer"] = ADAM
    m["initial_values"] = collections.OrderedDict([("weight_def/weights", tensor_json(w0)),
                                                   ("weight_def/biases", tensor_json(b0))])
    m["training_data"] = collections.OrderedDict([
        ("X", tensor_json(xs)), ("Y_one_hot", tensor_json(ys)), ("labels", labels),
        ("feeds", collections.OrderedDict([("x:0", "X"), ("y:0", "Y_one_hot")]))])
    m["training"] = collections.OrderedDict([
        ("steps", WD_STEPS), ("losses_per_step", losses),
        ("losses_note", "value of 'loss' fetched together with the train op in the same "
                        "sess.run (i.e. before that step's update)"),
        ("final_loss", final_loss)])
    m["global_variables"] = global_variables
    m["forecast"] = collections.OrderedDict([
        ("feeds", {"x:0": tensor_json(xf)}),
        ("expected", collections.OrderedDict([("logits:0", tensor_json(f_logits)),
                                              ("probs:0", tensor_json(f_probs))])),
        ("note", "computed with the trained values (= the values in both checkpoints)")])
    m["checkpoints"] = collections.OrderedDict([
        ("full.ckpt", checkpoint_json("full.ckpt")),
        ("model_only.ckpt", checkpoint_json("model_only.ckpt"))])
    m["checkpoint_state_file"] = state_file()
    m["restore_observations"] = obs
    m["gradient_descent_reference"] = gd_ref
    m["graph_ops"] = ops
    m["graph_op_types"] = op_type_counts(ops)
    m["meta_graphs"] = collections.OrderedDict([
        ("full.ckpt.meta", meta_graph_json("full.ckpt.meta", with_graph_ops=False)),
        ("model_only.ckpt.meta", meta_graph_json("model_only.ckpt.meta", with_graph_ops=False)),
        ("note", "graph_ops of both .meta files equal 'graph_ops' above")])
    m["files"] = files_json()
    return m


def gradient_descent_reference(w0, b0, xs, ys):
    """The same model trained with plain gradient descent (values only, nothing saved)."""
    g = tf.Graph()
    with g.as_default():
        x, y, w, b, _, _, loss, train = build_weight_def(
            w0, b0, tf.train.GradientDescentOptimizer(0.1))
        init = tf.global_variables_initializer()
        feed = {x: xs, y: ys}
        with tf.Session(graph=g, config=session_config()) as sess:
            sess.run(init)
            losses = [f32(sess.run([loss, train], feed)[0]) for _ in range(WD_STEPS)]
            wv, bv = sess.run([w, b])
    return collections.OrderedDict([
        ("optimizer", "tf.train.GradientDescentOptimizer(0.1)"), ("steps", WD_STEPS),
        ("losses", losses), ("weight_def/weights", tensor_json(wv)),
        ("weight_def/biases", tensor_json(bv))])


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
    ("dtypes", lambda: fx_dtypes()),
    ("events", lambda: fx_events()),
    ("scopes", lambda: fx_scopes()),
    ("cnn_frozen", lambda: fx_cnn_frozen()),
    ("mlp", lambda: fx_mlp()),
    ("weight_def_adam", lambda: fx_weight_def_adam()),
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
