#!/usr/bin/env python3
"""TensorFlow 2.21's numbers for the array and math ops of tests/ops_strided_slice.rs,
tests/ops_select_logical.rs, tests/ops_math_more.rs, tests/ops_matmul_einsum.rs,
tests/ops_array_more.rs and tests/ops_image.rs (written into those tests as literals),
and the TensorFlow-written graph tests/data/ops_arrays.pbtxt with its outputs
tests/data/ops_arrays.json.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_arrays.py values   # prints the literals
    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_arrays.py graph    # writes tests/data/ops_arrays.*

(the venv is made by interop/setup_venv.sh). Every case is built in graph mode
(tf.compat.v1) as the tests build it, and run on CPU.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")


def run(build):
    """Builds `build()` in a fresh graph; returns (static shape, value) of its output."""
    g = tf.Graph()
    with g.as_default():
        out = build()
        with tf.Session() as s:
            return out.shape, s.run(out)


def show(name, build):
    shape, v = run(build)
    v = np.asarray(v)
    flat = v.reshape(-1).tolist()
    if v.dtype.kind == "f":
        flat = [float(np.float32(x)) if v.dtype == np.float32 else float(x) for x in flat]
    print(f"{name}: static {shape} shape {list(v.shape)} values {flat}")


def arange(shape, dtype=tf.float32):
    return tf.constant(np.arange(np.prod(shape)).reshape(shape), dtype)


def values():
    # ---- StridedSlice (tests/ops_strided_slice.rs), x = arange(24) as [2, 3, 4]
    ss = tf.strided_slice
    x = lambda: arange([2, 3, 4])  # noqa: E731
    show("ss_mixed", lambda: ss(x(), [1, 0, 1], [0, 0, 3], [1, -1, 1], begin_mask=2, end_mask=3))
    show("ss_ellipsis_shrink", lambda: ss(x(), [0, 2], [0, 3], [1, 1], ellipsis_mask=1, shrink_axis_mask=2))
    show("ss_newaxis", lambda: ss(x(), [0, 0, -1, 0], [0, 0, 0, 0], [1, 1, 1, 2], begin_mask=9, end_mask=9,
                                  new_axis_mask=2, shrink_axis_mask=4))
    show("ss_negative", lambda: ss(x(), [-1], [-3], [-1]))
    show("ss_clamped", lambda: ss(x(), [-10, 1], [10, 100], [1, 2]))
    show("ss_empty", lambda: ss(x(), [5], [10], [1]))
    show("ss_step3_rev", lambda: ss(arange([10], tf.int32), [8], [0], [-3], end_mask=1))
    show("ss_ellipsis_mid", lambda: ss(x(), [1, 0, 3], [2, 0, 4], [1, 1, 1], ellipsis_mask=2, shrink_axis_mask=5))
    ph = lambda: tf.placeholder_with_default(x(), [None, 3, None])  # noqa: E731
    for name, args, kw in [
        ("ss_static_a", ([0, 1], [0, 3], [1, 1]), dict(begin_mask=1, end_mask=1)),
        ("ss_static_b", ([1], [2], [1]), dict(shrink_axis_mask=1)),
        ("ss_static_c", ([0, 0], [0, 2], [1, 1]), dict(ellipsis_mask=1, new_axis_mask=0)),
        ("ss_static_d", ([0, 0, 0], [0, 0, 0], [1, 1, -1]), dict(begin_mask=7, end_mask=7, new_axis_mask=2)),
    ]:
        show(name, lambda: ss(ph(), *args, **kw))
    dyn = lambda: tf.placeholder_with_default([0, 1], [2])  # noqa: E731
    show("ss_static_dynbegin", lambda: ss(x(), dyn(), [0, 3], [1, 1], begin_mask=0, end_mask=1))
    show("ssg", lambda: tf.raw_ops.StridedSliceGrad(shape=[2, 3, 4], begin=[1, 0, 1], end=[0, 0, 3],
                                                    strides=[1, -1, 1], dy=arange([1, 3, 2]), begin_mask=2, end_mask=3))
    show("ssg_shrink", lambda: tf.raw_ops.StridedSliceGrad(shape=[3, 2], begin=[-1], end=[0], strides=[1],
                                                           dy=tf.constant([5.0, 6.0]), shrink_axis_mask=1))

    # ---- SelectV2, logical, equality (tests/ops_select_logical.rs)
    show("sel_bcast", lambda: tf.where_v2(tf.constant([[True], [False]]), arange([3]), tf.constant(-1.0)))
    show("sel_str", lambda: tf.where_v2(tf.constant([True, False]), tf.constant(["a", "b"]), tf.constant(["c", "d"])))
    show("ne_float", lambda: tf.not_equal(tf.constant([1.0, np.nan, 0.0]), tf.constant([1.0, np.nan, -0.0])))
    show("eq_float", lambda: tf.equal(tf.constant([1.0, np.nan, 0.0]), tf.constant([1.0, np.nan, -0.0])))
    show("eq_u8", lambda: tf.equal(tf.constant([[1], [200]], tf.uint8), tf.constant([1, 200, 3], tf.uint8)))
    show("eq_half", lambda: tf.equal(tf.constant([1.5, 2.0], tf.float16), tf.constant(1.5, tf.float16)))
    show("land", lambda: tf.logical_and(tf.constant([[True], [False]]), tf.constant([True, False])))
    show("lor", lambda: tf.logical_or(tf.constant([[True], [False]]), tf.constant([True, False])))

    # ---- unary math, Pow, SquaredDifference, DivNoNan, Cumsum, Cumprod, ClipByValue, L2Loss
    v = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.2, 3.7, 0.0]
    for op in ["abs", "sign", "floor", "ceil", "round"]:
        show(f"unary_{op}", lambda: getattr(tf.math, op)(tf.constant(v)))
    show("abs_int", lambda: tf.abs(tf.constant([-3, 0, 4, -2147483648])))
    show("sign_int", lambda: tf.sign(tf.constant([-3, 0, 4], tf.int64)))
    show("pow_f", lambda: tf.pow(tf.constant([[2.0], [0.5]]), tf.constant([3.0, -1.0, 0.5])))
    show("pow_i", lambda: tf.pow(tf.constant([2, -3, 5], tf.int64), tf.constant([10, 3, 0], tf.int64)))
    show("sqdiff", lambda: tf.math.squared_difference(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0.5, -1.0])))
    show("divnonan", lambda: tf.math.divide_no_nan(tf.constant([1.0, 2.0, -3.0]), tf.constant([0.0, 4.0, 0.0])))
    c = lambda: tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # noqa: E731
    for ex in [False, True]:
        for rev in [False, True]:
            show(f"cumsum_{int(ex)}{int(rev)}", lambda: tf.cumsum(c(), axis=1, exclusive=ex, reverse=rev))
            show(f"cumprod_{int(ex)}{int(rev)}", lambda: tf.math.cumprod(c(), axis=0, exclusive=ex, reverse=rev))
    show("cumsum_int_neg", lambda: tf.cumsum(tf.constant([[1, 2], [3, 4]]), axis=-2))
    show("clip", lambda: tf.clip_by_value(tf.constant([[-2.0, 0.5], [3.0, 1.0]]), tf.constant([[0.0, 1.0], [0.0, 0.0]]),
                                          tf.constant(2.0)))
    show("l2loss", lambda: tf.nn.l2_loss(tf.constant([[1.0, -2.0], [0.5, 3.0]])))
    show("min_axes", lambda: tf.reduce_min(arange([2, 3, 4]), [0, 2], keepdims=True))
    show("all_axes", lambda: tf.reduce_all(tf.constant([[True, False], [True, True]]), [1]))
    show("any_axes", lambda: tf.reduce_any(tf.constant([[True, False], [False, False]]), [0, 1]))
    show("prod_axes", lambda: tf.reduce_prod(tf.constant([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]]), [1]))
    show("argmin", lambda: tf.argmin(tf.constant([[3.0, 1.0, 1.0], [-1.0, 5.0, -2.0]]), 1))

    # ---- BatchMatMulV2, Einsum
    a = lambda: arange([2, 1, 2, 3]) / 10.0  # noqa: E731
    b = lambda: arange([3, 3, 2]) / 7.0 - 1.0  # noqa: E731
    show("bmm_bcast", lambda: tf.matmul(a(), b()))
    show("bmm_adj", lambda: tf.matmul(arange([2, 3, 2]), arange([2, 4, 3]), adjoint_a=True, adjoint_b=True))
    show("bmm_int", lambda: tf.matmul(arange([2, 2, 3], tf.int32), arange([3, 2], tf.int32)))
    for eq, sa, sb in [("bij,bjk->bik", [2, 2, 3], [2, 3, 2]), ("bhqd,bhkd->bhqk", [1, 2, 3, 2], [1, 2, 2, 2]),
                       ("bhqk,bhkd->bhqd", [1, 2, 3, 2], [1, 2, 2, 2]), ("ij,jk->ik", [2, 3], [3, 2]),
                       ("bqd,de->bqe", [2, 2, 3], [3, 2]), ("...ij,...jk->...ik", [2, 1, 2, 3], [3, 3, 2]),
                       ("abc,cd->da", [2, 3, 2], [2, 3])]:
        show(f"einsum {eq}", lambda: tf.einsum(eq, arange(sa) / 5.0, arange(sb) / 3.0 - 0.5))
    show("einsum ij->ji", lambda: tf.einsum("ij->ji", arange([2, 3])))
    show("einsum ijk->k", lambda: tf.einsum("ijk->k", arange([2, 3, 2])))

    # ---- ReverseV2, ReverseSequence, OneHot, TopKV2, Unique, Where, BroadcastTo, MirrorPad
    show("rev", lambda: tf.reverse(arange([2, 3, 2], tf.int32), [0, -1]))
    show("revseq", lambda: tf.reverse_sequence(arange([3, 4, 2]), [4, 0, 2], seq_axis=1, batch_axis=0))
    show("revseq_t", lambda: tf.reverse_sequence(arange([3, 2]), [2, 3], seq_axis=0, batch_axis=1))
    show("onehot", lambda: tf.one_hot(tf.constant([[0, 2], [-1, 1]]), 3, on_value=5.0, off_value=-1.0, axis=1))
    show("onehot_last", lambda: tf.one_hot(tf.constant([1, 0, 7], tf.int64), 2))
    tk = lambda: tf.constant([[1.0, 3.0, 3.0, 2.0, 3.0], [5.0, -1.0, 0.0, 7.0, 7.0]])  # noqa: E731
    show("topk_vals", lambda: tf.nn.top_k(tk(), 3).values)
    show("topk_idx", lambda: tf.nn.top_k(tk(), 3).indices)
    show("unique_y", lambda: tf.unique(tf.constant([4, 1, 4, 2, 1, 9]))[0])
    show("unique_idx", lambda: tf.unique(tf.constant([4, 1, 4, 2, 1, 9]), out_idx=tf.int64)[1])
    show("where", lambda: tf.where(tf.constant([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])))
    show("bcast_to", lambda: tf.broadcast_to(tf.constant([[1], [2]]), [3, 2, 2]))
    for mode in ["REFLECT", "SYMMETRIC"]:
        show(f"mirror_{mode}", lambda: tf.pad(arange([2, 3], tf.int32), [[1, 1], [2, 2]], mode=mode))
        show(f"mirrorgrad_{mode}", lambda: tf.raw_ops.MirrorPadGrad(input=arange([4, 7]), paddings=[[1, 1], [2, 2]],
                                                                    mode=mode))

    # ---- image resizing (tests/ops_image.rs), img = arange(18) as [1, 3, 3, 2] / 2
    img = lambda: arange([1, 3, 3, 2]) / 2.0  # noqa: E731
    for ac, hp in [(False, False), (True, False), (False, True)]:
        tag = f"{int(ac)}{int(hp)}"
        show(f"bilinear_{tag}", lambda: tf.image.resize_bilinear(img(), [4, 5], align_corners=ac,
                                                                 half_pixel_centers=hp))
        show(f"nearest_{tag}", lambda: tf.image.resize_nearest_neighbor(img(), [4, 5], align_corners=ac,
                                                                        half_pixel_centers=hp))
        show(f"bilinear_down_{tag}", lambda: tf.image.resize_bilinear(img(), [2, 2], align_corners=ac,
                                                                      half_pixel_centers=hp))
        g = lambda: arange([1, 4, 5, 2]) / 4.0  # noqa: E731
        show(f"bilinear_grad_{tag}", lambda: tf.raw_ops.ResizeBilinearGrad(grads=g(), original_image=img(),
                                                                           align_corners=ac, half_pixel_centers=hp))
        show(f"nearest_grad_{tag}", lambda: tf.raw_ops.ResizeNearestNeighborGrad(grads=g(), size=[3, 3],
                                                                                 align_corners=ac,
                                                                                 half_pixel_centers=hp))


def graph():
    """A graph of the ops, built by TensorFlow with its gradients; its outputs by name."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder_with_default(tf.constant(np.linspace(-1.0, 1.3, 24).reshape(2, 3, 4), tf.float32),
                                        [None, 3, 4], name="x")
        outs = {}
        outs["slice"] = x[1:, ::-1, tf.newaxis, 2]
        outs["slice_dyn"] = tf.strided_slice(x, tf.constant([0, 1]), [2, 3], [1, 1], name="ss_dyn")
        y = tf.einsum("bij,bjk->bik", x, tf.transpose(x, [0, 2, 1]))
        outs["einsum"] = y
        outs["bmm"] = tf.matmul(x, x, adjoint_b=True)
        outs["select"] = tf.where_v2(x > 0.2, x, tf.zeros([4]))
        outs["sqdiff"] = tf.math.squared_difference(x, tf.constant([0.5, -0.5, 0.0, 1.0]))
        outs["reverse"] = tf.reverse(x, [1])
        outs["cumsum"] = tf.cumsum(x, axis=2, exclusive=True)
        outs["bcast"] = tf.broadcast_to(x[:, :1, :], [2, 3, 4])
        outs["mirror"] = tf.pad(x, [[0, 0], [1, 1], [2, 1]], mode="REFLECT")
        outs["l2"] = tf.nn.l2_loss(x)
        outs["abs"] = tf.abs(x)
        outs["stop"] = tf.stop_gradient(x) * 2.0
        img = tf.reshape(x, [2, 3, 4, 1])
        outs["bilinear"] = tf.image.resize_bilinear(img, [5, 6], half_pixel_centers=True)
        outs["nearest"] = tf.image.resize_nearest_neighbor(img, [2, 7], align_corners=True)
        loss = tf.add_n([tf.reduce_sum(v * v) for k, v in sorted(outs.items()) if k != "l2"]) + outs["l2"]
        outs["grad"] = tf.gradients(loss, x)[0]
        outs["pow"] = tf.pow(tf.abs(x) + 0.5, 1.5)
        outs["round"] = tf.round(x * 3.0)
        outs["floor"] = tf.floor(x * 3.0)
        outs["ceil"] = tf.math.ceil(x * 3.0)
        outs["sign"] = tf.sign(x)
        outs["logical"] = tf.cast(tf.logical_or(tf.logical_and(x > 0.0, x < 0.5), tf.logical_not(x > -0.5)), tf.int32)
        outs["ne"] = tf.cast(tf.not_equal(tf.round(x), 0.0), tf.int32)
        outs["clip"] = tf.clip_by_value(x, -0.5, 0.5)
        outs["reduce_min"] = tf.reduce_min(x, [0, 2])
        outs["all"] = tf.cast(tf.reduce_all(x > -2.0, [1]), tf.int32)
        outs["any"] = tf.cast(tf.reduce_any(x > 1.0, [0, 2]), tf.int32)
        outs["argmin"] = tf.argmin(x, 2)
        outs["onehot"] = tf.one_hot(tf.argmax(x, 2), 4)
        outs["topk"] = tf.nn.top_k(x, 2).values
        outs["topk_idx"] = tf.nn.top_k(x, 2).indices
        outs["unique"] = tf.unique(tf.reshape(tf.round(x * 2.0), [-1]))[0]
        outs["where"] = tf.where(x > 0.9)
        outs["revseq"] = tf.reverse_sequence(x, tf.constant([2, 3], tf.int64), seq_axis=1, batch_axis=0)
        outs["cumprod"] = tf.math.cumprod(x, axis=1, reverse=True)
        outs["divnonan"] = tf.math.divide_no_nan(x, tf.round(x))
        names = {k: v.name for k, v in outs.items()}
        gd = g.as_graph_def()
        with tf.Session() as s:
            vals = s.run(outs)
    tf.io.write_graph(gd, DATA, "ops_arrays.pbtxt", as_text=True)
    expected = {}
    for k, v in vals.items():
        v = np.asarray(v)
        expected[k] = {"tensor": names[k], "dtype": str(v.dtype), "shape": list(v.shape),
                       "values": [float(t) for t in v.reshape(-1)]}
    with open(os.path.join(DATA, "ops_arrays.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.join(DATA, "ops_arrays.pbtxt"), "and ops_arrays.json")


if __name__ == "__main__":
    {"values": values, "graph": graph}[sys.argv[1] if len(sys.argv) > 1 else "values"]()
