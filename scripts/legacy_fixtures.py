#!/usr/bin/env python3
"""Writes tests/data/legacy/: GraphDefs and a V1 checkpoint written by TensorFlow 2.21 with
the TF 1.x legacy op types (Add, Div, Inv, InvGrad, Rank, DynamicStitch, Select,
BatchMatMul, Concat, Split, SplitV, Gather, Variable, IsVariableInitialized, Assert, Print,
SaveSlices, ShardedFilespec, ParseExample, ParseExampleV2), and prints the values TensorFlow computes for
them, which tests/ops_legacy*.rs hold as literals.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/legacy_fixtures.py

Deterministic (graph mode, CPU, one thread): rerunning rewrites identical files.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
raw = tf.raw_ops

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "legacy")


def session(g):
    cfg = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    return tf1.Session(graph=g, config=cfg)


def show(name, v):
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            v = [x.decode() if isinstance(x, bytes) else x for x in v.flatten().tolist()]
        else:
            v = {"shape": list(v.shape), "values": v.flatten().tolist()}
    elif isinstance(v, (np.generic,)):
        v = v.item()
    print(json.dumps({name: v}, default=str))


def write_pbtxt(g, name):
    tf1.train.write_graph(g.as_graph_def(), OUT, name, as_text=True)


def math_graph():
    """Forward values of the legacy math and array ops (legacy_ops.pbtxt)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="x")
        y = tf.constant([[-2.0, 0.5]], name="y")
        raw.Add(x=x, y=y, name="add_v1")
        raw.Div(x=x, y=y, name="div_v1")
        ix = tf.constant([-7, 7, -7, 7, -8, 0], name="ix")
        iy = tf.constant([2, -2, -2, 2, 3, 5], name="iy")
        raw.Div(x=ix, y=iy, name="div_int")
        raw.Div(x=tf.constant([-7, 7], tf.int64), y=tf.constant([2, -2], tf.int64), name="div_int64")
        raw.Add(x=tf.constant([["a"], ["b"]]), y=tf.constant(["x", "yz", "w"]), name="add_str")
        inv = raw.Inv(x=x, name="inv")
        raw.InvGrad(y=inv, dy=x, name="inv_grad")
        raw.Rank(input=tf.zeros([2, 3, 4]), name="rank")
        c = tf.constant([True, False], name="cond")
        raw.Select(condition=c, x=x, y=x * 10.0, name="select")
        raw.Select(condition=tf.constant(False), x=x, y=-x, name="select_scalar")
        raw.Select(condition=tf.constant([[True, False], [False, True]]), x=x, y=-x, name="select_same")
        a = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 2, 3), name="a")
        b = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2), name="b")
        raw.BatchMatMul(x=a, y=b, name="bmm")
        raw.BatchMatMul(x=a, y=a, adj_y=True, name="bmm_adj")
        raw.BatchMatMul(x=tf.cast(a, tf.int32), y=tf.cast(b, tf.int32), name="bmm_int")
        raw.Concat(concat_dim=tf.constant(1, name="cdim"), values=[x, y * tf.ones([2, 1])], name="concat_v1")
        v = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 6), name="v")
        raw.Split(axis=tf.constant(1, name="sdim"), value=v, num_split=3, name="split")
        raw.SplitV(value=v, size_splits=tf.constant([1, -1, 2], name="sizes"), axis=tf.constant(-1, name="vdim"), num_split=3, name="splitv")
        raw.DynamicStitch(
            indices=[tf.constant([0, 2]), tf.constant([[1], [5]]), tf.constant([2])],
            data=[tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[[5.0, 6.0]], [[7.0, 8.0]]]), tf.constant([[9.0, 10.0]])],
            name="stitch",
        )
        raw.ExpandDims(input=x, axis=tf.constant([-1], tf.int64), name="expand_vec64")
        raw.Squeeze(input=tf.zeros([1, 2, 1]), axis=[-1], name="squeeze_neg")
        raw.Gather(params=v, indices=tf.constant([[1], [0]], tf.int64), name="gather_v1")
        raw.ShardedFilespec(basename="model.ckpt", num_shards=2, name="filespec")
    write_pbtxt(g, "legacy_ops.pbtxt")
    names = ["add_v1", "div_v1", "div_int", "div_int64", "add_str", "inv", "inv_grad", "rank", "select",
             "select_scalar", "select_same", "bmm", "bmm_adj", "bmm_int", "concat_v1", "split:0", "split:1",
             "split:2", "splitv:0", "splitv:1", "splitv:2", "stitch", "expand_vec64", "squeeze_neg", "gather_v1", "filespec"]
    with session(g) as s:
        for n in names:
            t = n if ":" in n else n + ":0"
            show(t, s.run(t))


def gradient_names():
    """The gradient node names and op types TensorFlow builds for each legacy op."""
    cases = {
        "Select": lambda: raw.Select(condition=tf.constant([True, False]), x=tf1.placeholder(tf.float32, [2, 3]), y=tf1.placeholder(tf.float32, [2, 3])),
        "BatchMatMul": lambda: raw.BatchMatMul(x=tf1.placeholder(tf.float32, [2, 2, 3]), y=tf1.placeholder(tf.float32, [2, 3, 2])),
        "Concat": lambda: raw.Concat(concat_dim=1, values=[tf1.placeholder(tf.float32, [2, 3]), tf1.placeholder(tf.float32, [2, 1])]),
        "Split": lambda: raw.Split(axis=1, value=tf1.placeholder(tf.float32, [2, 6]), num_split=3)[1],
        "SplitV": lambda: raw.SplitV(value=tf1.placeholder(tf.float32, [2, 6]), size_splits=[1, 5], axis=1, num_split=2)[0],
        "DynamicStitch": lambda: raw.DynamicStitch(indices=[tf.constant([0, 2]), tf.constant([1])], data=[tf1.placeholder(tf.float32, [2, 3]), tf1.placeholder(tf.float32, [1, 3])]),
        "Div": lambda: raw.Div(x=tf1.placeholder(tf.float32, [2, 3]), y=tf1.placeholder(tf.float32, [3])),
        "Add": lambda: raw.Add(x=tf1.placeholder(tf.float32, [2, 3]), y=tf1.placeholder(tf.float32, [3])),
        "Inv": lambda: raw.Inv(x=tf1.placeholder(tf.float32, [3])),
        "Gather": lambda: raw.Gather(params=tf1.placeholder(tf.float32, [4, 3]), indices=tf.constant([2, 0, 2])),
    }
    for op, build in cases.items():
        g = tf.Graph()
        with g.as_default():
            y = build()
            xs = [o.outputs[0] for o in g.get_operations() if o.type == "Placeholder"]
            n0 = len(g.get_operations())
            tf1.gradients(y, xs, name="gradients")
            new = [(o.name, o.type) for o in g.get_operations()[n0:] if "_grad/" in o.name]
        print(json.dumps({"grad " + op: new}))


def tf1_mean_grad(x, grad):
    """The gradient of `reduce_mean(x)` over all axes as TensorFlow 1.x's `_MeanGrad` /
    `_SumGrad` built it for an input of unknown rank (`math_ops.reduced_shape`: Rank,
    Range, Size, DynamicStitch; then Reshape, Tile and the division by the element count).
    TensorFlow 2.21's own gradient uses BroadcastTo instead; graphs written by TF 1.x hold
    this form."""
    with tf1.name_scope("gradients/loss_grad"):
        input_shape = tf.shape(x)
        axes = tf.range(0, raw.Rank(input=x))
        input_rank = raw.Size(input=input_shape)
        axes = (axes + input_rank) % input_rank
        kept = raw.DynamicStitch(indices=[tf.range(input_rank), axes],
                                 data=[input_shape, tf.fill(tf.shape(axes), 1)])
        g = tf.reshape(grad, kept)
        g = tf.tile(g, input_shape // kept)
        count = tf.cast(tf.reduce_prod(input_shape) // tf.reduce_prod(tf.maximum(kept, 1)), tf.float32)
        return g / count


def train_graph():
    """A TF1-style training graph: a pre-1.0 `Variable`, IsVariableInitialized, a mean loss
    over an input of unknown rank (Rank in the forward pass, DynamicStitch in TF 1.x's mean
    gradient) and plain gradient descent."""
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, None, name="x")
        y = tf1.placeholder(tf.float32, None, name="y")
        w = raw.Variable(shape=[3], dtype=tf.float32, name="w")
        init = tf1.assign(w, tf.constant([0.5, -1.0, 2.0]), name="init")
        raw.IsVariableInitialized(ref=w, name="is_init")
        sq = tf1.square(x * w - y)
        loss = tf1.reduce_mean(sq, name="loss")
        dsq = tf1_mean_grad(sq, tf.ones([], name="gradients/grad_ys"))
        (gw,) = tf1.gradients(sq, [w], grad_ys=dsq, name="gradients")
        raw.ApplyGradientDescent(var=w, alpha=tf.constant(0.1), delta=gw, name="train")
    write_pbtxt(g, "legacy_train.pbtxt")
    print(json.dumps({"train op types": sorted({o.type for o in g.get_operations()})}))
    xs = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)
    ys = np.array([[1.0, 1.0, 1.0], [0.0, 2.0, -1.0]], np.float32)
    with session(g) as s:
        show("is_init before", s.run("is_init:0"))
        s.run(init)
        show("is_init after", s.run("is_init:0"))
        show("dsq", s.run(dsq, {x: xs, y: ys}))
        for _ in range(5):
            s.run("train", {x: xs, y: ys})
        show("w after 5 steps", s.run("w:0"))
        show("loss after 5 steps", s.run("loss:0", {x: xs, y: ys}))


def logging_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder_with_default(tf.constant([1.0, 2.0, 3.0]), [3], name="x")
        ok = tf.less(tf.reduce_max(-x), 0.0, name="positive")
        raw.Assert(condition=ok, data=[tf.constant("x must be positive:"), x], summarize=2, name="check")
        raw.Print(input=x, data=[x, tf.constant("s")], message="x is ", first_n=-1, summarize=2, name="print")
    write_pbtxt(g, "legacy_logging.pbtxt")
    with session(g) as s:
        try:
            s.run("check", {"x:0": [1.0, -2.0, 3.0]})
        except tf.errors.InvalidArgumentError as e:
            line = [ln for ln in e.message.split("\n") if ln.startswith("assertion failed")][0]
            print(json.dumps({"assert message": line}))


def parse_graph():
    def ex(**kw):
        f = {}
        for k, v in kw.items():
            if isinstance(v[0], float):
                f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
            elif isinstance(v[0], int):
                f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
            else:
                f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString(deterministic=True)

    e1 = ex(age=[25], w=[1.5, 2.5], name=[b"ann"])
    e2 = ex(age=[40], w=[0.5, -1.0])
    print(json.dumps({"examples hex": [e1.hex(), e2.hex()]}))
    g = tf.Graph()
    with g.as_default():
        s = tf1.placeholder(tf.string, [None], name="serialized")
        feats = tf1.io.parse_example(s, {
            "age": tf1.io.FixedLenFeature([1], tf.int64),
            "w": tf1.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
            "name": tf1.io.FixedLenFeature([], tf.string, default_value="?"),
            "tags": tf1.io.VarLenFeature(tf.float32),
        })
        raw.ParseExample(serialized=s, names=[], sparse_keys=[tf.constant("w")], dense_keys=[tf.constant("age"), tf.constant("name")],
                         dense_defaults=[tf.constant([], tf.int64), tf.constant("none")], sparse_types=[tf.float32], dense_shapes=[[1], []],
                         name="parse_v1")
    write_pbtxt(g, "legacy_parse.pbtxt")
    with session(g) as sess:
        out = sess.run({k: v for k, v in feats.items() if k != "tags"}, {s: [e1, e2]})
        for k in sorted(out):
            print(json.dumps({"parse_example " + k + " <- " + feats[k].name: None}))
            show(feats[k].name, out[k])
        for t in ["parse_v1:0", "parse_v1:1", "parse_v1:2", "parse_v1:3", "parse_v1:4"]:
            show(t, sess.run(t, {s: [e1, e2]}))


def v1_checkpoint():
    """A V1 checkpoint written by SaveSlices: whole tensors and a partitioned one."""
    path = os.path.join(OUT, "v1_slices.ckpt")
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        i = tf.constant([7, 8], tf.int64)
        p0 = tf.constant([[1.5, 2.5], [3.5, 4.5]])
        p1 = tf.constant([[5.5, 6.5], [7.5, 8.5]])
        s = tf.constant(["hello", "w\x00rld"])
        raw.SaveSlices(filename=path, tensor_names=["a", "i", "p", "p", "s"],
                       shapes_and_slices=["", "", "4 2 0,2:-", "4 2 2,2:-", ""], data=[a, i, p0, p1, s], name="save")
        with session(g) as sess:
            sess.run("save")
            show("restore p", sess.run(raw.Restore(file_pattern=path, tensor_name="p", dt=tf.float32)))
            show("restore slice p 1,2:1,1", sess.run(raw.RestoreSlice(file_pattern=path, tensor_name="p", shape_and_slice="4 2 1,2:1,1", dt=tf.float32)))
    print(json.dumps({"v1 bytes": os.path.getsize(path)}))


def main():
    os.makedirs(OUT, exist_ok=True)
    math_graph()
    gradient_names()
    train_graph()
    logging_graph()
    parse_graph()
    v1_checkpoint()


if __name__ == "__main__":
    sys.exit(main())
