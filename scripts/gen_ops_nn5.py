#!/usr/bin/env python3
"""TensorFlow 2.21's graph and numbers for tests/ops_nn5.rs: the element-wise math ops
Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh, TruncateDiv, TruncateMod, Xdivy,
Xlogy, Xlog1py, Lgamma, Digamma, Polygamma, Zeta, Erfinv, Ndtri, Rint, ApproximateEqual, with
TensorFlow's own gradient subgraphs of them, and the errors their kernels and shape functions
give.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nn5.py

writes tests/data/ops_nn5/elementwise.pbtxt (the graph TensorFlow built) and
elementwise.json (`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes
them, with its helpers); and the same pair small_ints.pbtxt/.json for the int8, int16,
uint8, uint16 kernels of AddV2, Sub, Mul, FloorDiv, FloorMod, Neg, Abs, Square, BiasAdd and
BiasAddGrad (values chosen to wrap), with the float16 kernels of MatrixInverse and
LRN/LRNGrad; segments.pbtxt/.json for SegmentSum/Mean/Max/Min/Prod; reductions.pbtxt/.json
for UnsortedSegmentMax/Min/Prod and EuclideanNorm; linalg.pbtxt/.json for MatrixBandPart;
scatter.pbtxt/.json for TensorScatterUpdate/Add/Sub.
Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "ops_nn5")

UNARY = {
    # op: (function, values in its domain)
    "asin": (tf.math.asin, [-0.9, -0.5, 0.0, 0.3, 0.99]),
    "acos": (tf.math.acos, [-0.9, -0.5, 0.0, 0.3, 0.99]),
    "atan": (tf.math.atan, [-3.0, -0.5, 0.0, 0.3, 10.0]),
    "sinh": (tf.math.sinh, [-3.0, -0.5, 0.0, 0.3, 5.0]),
    "cosh": (tf.math.cosh, [-3.0, -0.5, 0.0, 0.3, 5.0]),
    "asinh": (tf.math.asinh, [-3.0, -0.5, 0.0, 0.3, 50.0]),
    "acosh": (tf.math.acosh, [1.0, 1.5, 2.0, 7.0, 100.0]),
    "atanh": (tf.math.atanh, [-0.9, -0.5, 0.0, 0.3, 0.99]),
    "lgamma": (tf.math.lgamma, [-2.5, -0.5, 0.1, 1.0, 2.0, 3.7, 30.0]),
    "digamma": (tf.math.digamma, [-2.5, -0.3, 0.1, 1.0, 2.0, 3.7, 30.0]),
    "erfinv": (tf.math.erfinv, [-0.999, -0.5, 0.0, 0.3, 0.95]),
    "ndtri": (tf.math.ndtri, [0.001, 0.1, 0.5, 0.7, 0.999]),
    "rint": (tf.math.rint, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -0.4]),
}
# The points where each gradient is checked (away from the domain's ends).
GRAD_AT = {"asin": [-0.5, 0.3], "acos": [-0.5, 0.3], "atanh": [-0.5, 0.3], "acosh": [1.5, 3.0],
           "erfinv": [-0.5, 0.3], "ndtri": [0.2, 0.7], "digamma": [0.7, 3.5], "lgamma": [0.7, 3.5]}


def elementwise(outs, errs):
    rng = np.random.RandomState(9)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    for dt in [tf.float32, tf.float64]:
        n = dt.name
        for name, (f, v) in UNARY.items():
            outs[f"{name}_{n}"] = f(dyn(v, dt))
            if name != "rint":
                x = dyn(GRAD_AT.get(name, [-0.7, 0.4]), dt)
                outs[f"{name}_grad_{n}"] = tf.gradients(f(x) * tf.constant([0.3, -1.1], dt), x)[0]
        a = dyn([[-7.0, 7.0, -6.5, 0.0], [5.5, -5.5, 3.0, 1.0]], dt)
        b = dyn([2.0, 2.0, -4.0, 3.0], dt)
        outs[f"atan2_{n}"] = tf.math.atan2(a, b)
        outs[f"truncatediv_{n}"] = tf.truncatediv(a, b)
        outs[f"truncatemod_{n}"] = tf.truncatemod(a, b)
        xs = dyn([[0.0, 0.0, 2.0, -1.5], [0.0, 3.0, 0.0, 1.0]], dt)  # no x / 0 (an infinity)
        ys = dyn([0.0, 2.0, 0.5, 4.0], dt)
        outs[f"xdivy_{n}"] = tf.math.xdivy(xs, ys)
        outs[f"xlogy_{n}"] = tf.math.xlogy(xs, ys)
        outs[f"xlog1py_{n}"] = tf.math.xlog1py(xs, dyn([-1.0, 2.0, 0.5, 4.0], dt))
        outs[f"xlogy_nan_{n}"] = tf.math.xlogy(dyn([0.0, 0.0, 1.0], dt), dyn([np.nan, -1.0, np.nan], dt))
        outs[f"polygamma_{n}"] = tf.math.polygamma(dyn([[0.0], [1.0], [2.0], [3.0], [1.5]], dt),
                                                   dyn([0.5, 1.0, 2.5, 10.0], dt))
        outs[f"zeta_{n}"] = tf.math.zeta(dyn([[2.0], [3.0], [4.5], [1.5], [0.5]], dt), dyn([0.5, 1.0, 2.5, 10.0], dt))
        outs[f"approx_{n}"] = tf.raw_ops.ApproximateEqual(x=dyn([1.0, 1.0, 2.0, -3.0], dt), y=dyn([1.0, 1.5, 2.05, -3.0], dt),
                                                        tolerance=0.1)
        outs[f"approx_default_{n}"] = tf.raw_ops.ApproximateEqual(x=dyn([1.0, 1.0], dt), y=dyn([1.000001, 1.001], dt))
        # Gradients of the two-input ops, broadcasting [2, 3] against [3].
        gx = dyn(rng.uniform(0.2, 2.0, [2, 3]), dt)
        gy = dyn(rng.uniform(0.2, 2.0, [3]), dt)
        w = tf.constant(rng.uniform(-1, 1, [2, 3]), dt)
        for name, f in [("atan2", tf.math.atan2), ("xdivy", tf.math.xdivy), ("xlogy", tf.math.xlogy),
                        ("xlog1py", tf.math.xlog1py), ("polygamma", lambda a, b: tf.math.polygamma(tf.round(a), b)),
                        ("zeta", lambda a, b: tf.math.zeta(a + 1.0, b))]:
            gs = tf.gradients(tf.reduce_sum(f(gx, gy) * w), [gx, gy])
            for i, g in enumerate(gs):
                if g is not None:
                    outs[f"{name}_grad{i}_{n}"] = g
    # integers: TruncateDiv/TruncateMod truncate toward 0
    for dt in [tf.int32, tf.int64, tf.int8, tf.int16, tf.uint8, tf.uint16]:
        n = dt.name
        if dt.is_unsigned:
            a, b = dyn([[7, 200, 9, 0], [5, 6, 255, 1]], dt), dyn([2, 7, 4, 3], dt)
        else:
            a, b = dyn([[-7, 7, -6, 0], [5, -5, 3, 1]], dt), dyn([2, 2, -4, 3], dt)
        outs[f"truncatediv_{n}"] = tf.truncatediv(a, b)
        if dt in (tf.int32, tf.int64):
            outs[f"truncatemod_{n}"] = tf.truncatemod(a, b)
            errs[f"truncatemod_zero_{n}"] = tf.truncatemod(a, dyn([1, 0, 1, 1], dt))
        errs[f"truncatediv_zero_{n}"] = tf.truncatediv(a, dyn([1, 0, 1, 1], dt))
    # float16, computed in float32 as TensorFlow's CPU kernels compute Eigen::half
    h = dyn([0.25, -0.5, 0.75], tf.float16)
    h2 = dyn([1.5, 2.0, -3.0], tf.float16)
    for name in ["asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "lgamma", "digamma"]:
        outs[f"{name}_float16"] = UNARY[name][0](h)
    outs["acosh_float16"] = tf.math.acosh(h2 * h2)
    for name, f in [("atan2", tf.math.atan2), ("truncatediv", tf.truncatediv), ("xdivy", tf.math.xdivy),
                    ("xlogy", tf.math.xlogy), ("xlog1py", tf.math.xlog1py)]:
        outs[f"{name}_float16"] = f(h2, h * h)
    errs["approx_shape"] = tf.raw_ops.ApproximateEqual(x=dyn([1.0, 2.0]), y=dyn([1.0, 2.0, 3.0]))


def small_ints(outs, errs):
    dyn = lambda v, dtype: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    vals = {tf.uint8: ([0, 255, 10, 20, 200, 7, 128, 3], [1, 3, 250, 7, 100, 2, 129, 5]),
            tf.int8: ([-128, 127, -5, 20, 100, 7, -100, 3], [-1, 3, -7, 6, 100, -2, -128, 5]),
            tf.int16: ([-32768, 32767, -5, 20, 30000, 7, -100, 3], [-1, 3, -7, 6, 30000, -2, -32768, 5]),
            tf.uint16: ([0, 65535, 10, 20, 60000, 7, 128, 3], [1, 3, 65530, 7, 100, 2, 129, 5])}
    for d, (v, w) in vals.items():
        n = d.name
        x = dyn(np.array(v).reshape(2, 4), d)
        y = dyn(np.array(w).reshape(2, 4), d)
        outs[f"{n}_add"] = tf.raw_ops.AddV2(x=x, y=y)
        outs[f"{n}_add_bcast"] = tf.raw_ops.AddV2(x=x, y=y[1])
        outs[f"{n}_sub"] = tf.raw_ops.Sub(x=x, y=y)
        outs[f"{n}_mul"] = tf.raw_ops.Mul(x=x, y=y)
        outs[f"{n}_floordiv"] = tf.raw_ops.FloorDiv(x=x, y=y)
        outs[f"{n}_floormod"] = tf.raw_ops.FloorMod(x=x, y=y)
        outs[f"{n}_square"] = tf.raw_ops.Square(x=x)
        if not d.is_unsigned:
            outs[f"{n}_neg"] = tf.raw_ops.Neg(x=x)
            outs[f"{n}_abs"] = tf.raw_ops.Abs(x=x)
        outs[f"{n}_bias_add"] = tf.nn.bias_add(x, y[0][:4])
        outs[f"{n}_bias_add_nchw"] = tf.raw_ops.BiasAdd(value=tf.reshape(x, [1, 2, 2, 2]), bias=y[1][:2],
                                                         data_format="NCHW")
        outs[f"{n}_bias_add_grad"] = tf.raw_ops.BiasAddGrad(out_backprop=tf.reshape(x, [4, 2]))
        errs[f"{n}_floordiv_zero"] = tf.raw_ops.FloorDiv(x=x, y=dyn(np.array([1, 0, 1, 1]), d))
        errs[f"{n}_floormod_zero"] = tf.raw_ops.FloorMod(x=x, y=dyn(np.array([1, 0, 1, 1]), d))
    # float16: MatrixInverse, LRN and its gradient LRNGrad, computed in float32
    rng = np.random.RandomState(4)
    m = dyn(rng.uniform(-1, 1, [2, 3, 3]) + 2.0 * np.eye(3), tf.float16)
    outs["inv_float16"] = tf.linalg.inv(m)
    img = dyn(rng.uniform(-2, 2, [1, 2, 2, 5]), tf.float16)
    lrn = tf.nn.local_response_normalization(img, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75)
    outs["lrn_float16"] = lrn
    outs["lrn_grad_float16"] = tf.gradients(lrn * tf.constant(rng.uniform(-1, 1, [1, 2, 2, 5]), tf.float16), img)[0]


def segments(outs, errs):
    """The sorted segment reductions, with gaps and repeats, and TensorFlow's gradients."""
    rng = np.random.RandomState(12)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    ids = [0, 0, 2, 2, 2, 3]
    fs = {"sum": tf.math.segment_sum, "mean": tf.math.segment_mean, "max": tf.math.segment_max,
          "min": tf.math.segment_min, "prod": tf.math.segment_prod}
    for dt in [tf.float32, tf.float64, tf.int32, tf.int8, tf.uint8]:
        v = rng.uniform(-3, 3, [6, 2, 2]) if dt.is_floating else rng.randint(0 if dt.is_unsigned else -9, 9, [6, 2, 2])
        x = dyn(v, dt)
        for name, f in fs.items():
            outs[f"{name}_{dt.name}"] = f(x, ids)
            if dt == tf.int32:
                outs[f"{name}_i64_ids"] = f(x, tf.constant(ids, tf.int64))
    x = dyn(np.array([[1.0, 2.0], [np.nan, 0.0], [3.0, 0.0], [3.0, -1.0]]))
    for name in ["max", "min"]:
        outs[f"{name}_nan_ties"] = fs[name](x, [0, 0, 1, 1])
    # gradients: ties (max/min share among equal rows), zeros (prod with one and two zeros)
    xg = dyn(np.array([[1.0, 2.0], [1.0, 0.0], [3.0, 0.0], [-2.0, 0.0], [5.0, 4.0], [0.5, 3.0]]), tf.float64)
    w = tf.constant(rng.uniform(-1, 1, [4, 2]), tf.float64)
    for name, f in fs.items():
        outs[f"{name}_grad"] = tf.gradients(tf.reduce_sum(f(xg, [0, 0, 1, 1, 1, 3]) * w), xg)[0]
    d = dyn(np.ones([4, 2], np.float32))
    errs["seg_not_increasing"] = tf.math.segment_sum(d, dyn([0, 2, 1, 2], tf.int32))
    errs["seg_negative"] = tf.math.segment_max(d, dyn([-1, 0, 0, 1], tf.int32))
    errs["seg_all_negative"] = tf.math.segment_min(d, dyn([-3, -3, -3, -3], tf.int32))
    errs["seg_size"] = tf.math.segment_mean(d, dyn([0, 0, 1], tf.int32))
    errs["seg_vector"] = tf.math.segment_prod(d, dyn([[0, 0, 1, 1]], tf.int32))


def reductions(outs, errs):
    """UnsortedSegmentMax/Min/Prod (negative ids dropped, empty segments) and EuclideanNorm,
    with TensorFlow's gradients."""
    rng = np.random.RandomState(13)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    fs = {"max": tf.math.unsorted_segment_max, "min": tf.math.unsorted_segment_min,
          "prod": tf.math.unsorted_segment_prod}
    ids = [3, 0, -1, 3, 1, 0]
    for dt in [tf.float32, tf.float64, tf.int32, tf.int64]:
        v = rng.uniform(-3, 3, [6, 2]) if dt.is_floating else rng.randint(-9, 9, [6, 2])
        x = dyn(v, dt)
        for name, f in fs.items():
            outs[f"u{name}_{dt.name}"] = f(x, ids, 5)
        outs[f"umax_2d_ids_{dt.name}"] = fs["max"](tf.reshape(x, [3, 2, 2]), [[0, 1], [1, -1], [2, 0]], 3)
    xg = dyn(np.array([[1.0, 2.0], [1.0, 0.0], [3.0, 0.0], [-2.0, 0.0], [5.0, 4.0], [0.5, 3.0]]), tf.float64)
    w = tf.constant(rng.uniform(-1, 1, [4, 2]), tf.float64)
    for name, f in fs.items():
        outs[f"u{name}_grad"] = tf.gradients(tf.reduce_sum(f(xg, tf.constant([0, 0, 2, 2, -1, 0]), 4) * w), xg)[0]
    errs["u_out_of_range"] = tf.math.unsorted_segment_max(dyn(np.ones([4, 2])), dyn([0, 5, 1, 2], tf.int32), 3)
    # EuclideanNorm
    x = dyn(rng.uniform(-2, 2, [2, 3, 4]), tf.float32)
    for name, (axis, keep) in {"all": (None, False), "ax1": (1, False), "ax02": ([0, 2], True),
                               "neg": (-1, False), "empty": ([], False)}.items():
        outs[f"norm_{name}"] = tf.math.reduce_euclidean_norm(x, axis, keepdims=keep)
    outs["norm_int32"] = tf.math.reduce_euclidean_norm(dyn([[3, 4], [5, 13]], tf.int32), 1)
    outs["norm_int8"] = tf.math.reduce_euclidean_norm(dyn([[100, 100], [3, 4]], tf.int8), 1)
    outs["norm_float16"] = tf.math.reduce_euclidean_norm(dyn([[3, 4], [5, 12]], tf.float16), 1)
    x64 = dyn(rng.uniform(-2, 2, [2, 3, 4]), tf.float64)
    outs["norm_grad"] = tf.gradients(tf.reduce_sum(tf.math.reduce_euclidean_norm(x64, [0, 2]) *
                                                   tf.constant([0.5, -1.0, 2.0], tf.float64)), x64)[0]
    outs["norm_grad_keep"] = tf.gradients(tf.reduce_sum(tf.math.reduce_euclidean_norm(x64, 1, keepdims=True) *
                                                        tf.constant(rng.uniform(-1, 1, [2, 1, 4]))), x64)[0]


def linalg(outs, errs):
    """MatrixBandPart (batched, int64 bounds, negative bounds, bool), its gradient, errors."""
    rng = np.random.RandomState(14)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    x = dyn(rng.uniform(-2, 2, [2, 3, 4]))
    for lo, hi in [(0, 0), (1, 0), (0, -1), (-1, 1), (2, 3), (-1, -1), (3, 4)]:
        outs[f"band_{lo}_{hi}".replace("-", "m")] = tf.linalg.band_part(x, lo, hi)
    outs["band_i64"] = tf.linalg.band_part(dyn(np.arange(9).reshape(3, 3), tf.int32), tf.constant(1, tf.int64),
                                           tf.constant(0, tf.int64))
    outs["band_bool"] = tf.cast(tf.linalg.band_part(dyn(np.ones([3, 2], bool), tf.bool), 0, 0), tf.int32)
    outs["band_u8"] = tf.linalg.band_part(dyn(np.arange(1, 7).reshape(2, 3), tf.uint8), 0, 1)
    x64 = dyn(rng.uniform(-2, 2, [2, 3, 3]), tf.float64)
    outs["band_grad"] = tf.gradients(tf.reduce_sum(tf.linalg.band_part(x64, 1, 0) *
                                                   tf.constant(rng.uniform(-1, 1, [2, 3, 3]))), x64)[0]
    m = dyn(np.ones([3, 4], np.float32))
    errs["band_lower"] = tf.raw_ops.MatrixBandPart(input=m, num_lower=dyn(5, tf.int32), num_upper=0)
    errs["band_upper"] = tf.raw_ops.MatrixBandPart(input=m, num_lower=0, num_upper=dyn(7, tf.int32))
    errs["band_scalar"] = tf.raw_ops.MatrixBandPart(input=m, num_lower=dyn([1, 1], tf.int32), num_upper=0)
    errs["band_rank"] = tf.raw_ops.MatrixBandPart(input=dyn([1.0, 2.0]), num_lower=0, num_upper=0)


def scatter(outs, errs):
    """TensorScatterUpdate/Add/Sub (row and element indices, repeats, int64 indices,
    float16), TensorFlow's gradients of them, and the kernels' errors."""
    rng = np.random.RandomState(15)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    fs = {"update": tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add, "sub": tf.tensor_scatter_nd_sub}
    for dt in [tf.float32, tf.float64, tf.int32, tf.int64, tf.float16]:
        t = dyn(rng.uniform(-5, 5, [4, 3]) if dt.is_floating else rng.randint(-9, 9, [4, 3]), dt)
        for name, f in fs.items():
            outs[f"{name}_rows_{dt.name}"] = f(t, [[1], [3]], tf.constant([[9, 9, 9], [8, 7, 6]], dt))
            outs[f"{name}_elems_{dt.name}"] = f(t, tf.constant([[1, 2], [0, 0], [3, 1]], tf.int64),
                                                 tf.constant([5, -4, 2], dt))
            if name != "update":  # repeated indices accumulate (Update's winner is unspecified)
                outs[f"{name}_repeat_{dt.name}"] = f(t, [[1, 2], [1, 2]], tf.constant([10, 5], dt))
    x = dyn(rng.uniform(-1, 1, [4, 3]), tf.float64)
    u = dyn(rng.uniform(-1, 1, [2, 3]), tf.float64)
    w = tf.constant(rng.uniform(-1, 1, [4, 3]), tf.float64)
    for name, f in fs.items():
        gx, gu = tf.gradients(tf.reduce_sum(f(x, [[2], [0]], u) * w), [x, u])
        outs[f"{name}_grad_tensor"], outs[f"{name}_grad_updates"] = gx, gu
    t = dyn(np.ones([4, 3], np.float32))
    errs["scatter_range"] = tf.raw_ops.TensorScatterUpdate(tensor=t, indices=dyn([[5]], tf.int32),
                                                           updates=dyn([[1.0, 1, 1]]))
    errs["scatter_negative"] = tf.raw_ops.TensorScatterAdd(tensor=t, indices=dyn([[-1]], tf.int32),
                                                           updates=dyn([[1.0, 1, 1]]))
    errs["scatter_inner"] = tf.raw_ops.TensorScatterAdd(tensor=t, indices=dyn([[1]], tf.int32), updates=dyn([[1.0, 1]]))
    errs["scatter_deep"] = tf.raw_ops.TensorScatterSub(tensor=t, indices=dyn([[1, 0, 0]], tf.int32), updates=dyn([1.0]))


def segment_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "seg_rank": lambda: tf.math.segment_sum(c([[1.0, 2.0]]), c([[0]])),
        "seg_size": lambda: tf.math.segment_sum(c([[1.0, 2.0], [3.0, 4.0]]), c([0, 0, 1])),
    })


def build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "approx_shape": lambda: tf.raw_ops.ApproximateEqual(x=c([1.0, 2.0]), y=c([1.0, 2.0, 3.0])),
        "atan2_shape": lambda: tf.math.atan2(c([1.0, 2.0]), c([1.0, 2.0, 3.0])),
        "asin_int": lambda: tf.math.asin(c([1])),
    })


def main():
    nn4.write("elementwise", elementwise, build_errors)
    nn4.write("small_ints", small_ints, dict)
    nn4.write("segments", segments, segment_build_errors)
    nn4.write("reductions", reductions, dict)
    nn4.write("linalg", linalg, dict)
    nn4.write("scatter", scatter, dict)


if __name__ == "__main__":
    main()
