#!/usr/bin/env python3
"""TensorFlow 2.21's graph and numbers for tests/ops_nn4.rs: InTopK/InTopKV2, the
MatrixDiag/MatrixDiagPart/MatrixSetDiag family (V1, V2, V3), CheckNumerics(V2), EnsureShape,
LRN/LRNGrad, with TensorFlow's own gradient subgraphs of them, and the errors their kernels
and shape functions give.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nn4.py

writes tests/data/ops_nn4/graph.pbtxt (the graph TensorFlow built) and
tests/data/ops_nn4/graph.json: `outputs` (tensor name, dtype, shape, flat values) of the
nodes that run, `errors` (tensor name, error class, first line of TensorFlow's message) of
the nodes whose kernels fail, and `build_errors` (the first line of the ValueError TensorFlow's
shape functions raise, for cases tests/ops_nn4.rs builds itself); and the same pair
small_ints.pbtxt/.json for the int8/int16/uint8/uint16 kernels of the resizes, comparisons,
Maximum/Minimum, reductions, Cumsum/Cumprod and TopKV2 (uint8 image preprocessing), and
nms.pbtxt/.json for NonMaxSuppressionV3/V4/V5, linalg.pbtxt/.json for MatrixInverse and
MatrixDeterminant, sparse_segment.pbtxt/.json for SparseSegmentSum/Mean/SqrtN.
Built in graph mode (tf.compat.v1) and run on CPU.
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "ops_nn4")


def first_line(msg):
    return [m for m in msg.splitlines() if m.strip() and not m[0].isspace() and "Graph execution" not in m
            and "Detected at node" not in m and not m.startswith("Node:")][0]


def build(outs, errs):
    """Adds the cases: `outs[key]` tensors that run, `errs[key]` tensors whose kernels fail."""
    rng = np.random.RandomState(7)
    # An unknown-shape view of a constant, so kernels (not shape functions) see bad shapes.
    dyn = lambda v, dtype=None, name=None: tf.placeholder_with_default(  # noqa: E731
        tf.constant(v, dtype), None, name=name)

    # ---- InTopK, InTopKV2
    preds = np.array([[0.1, 0.5, 0.5, 0.2, 0.0], [1.0, -1.0, 3.0, 2.0, 0.5],
                      [0.3, np.nan, 0.1, 0.2, 0.0], [4.0, 4.0, 4.0, 4.0, 4.0]], np.float32)
    p = dyn(preds, name="preds")
    for k in [1, 2, 3]:
        outs[f"intopk_v2_k{k}"] = tf.math.in_top_k(p, tf.constant([2, 3, 0, 4]), k)
    outs["intopk_v2_i64"] = tf.math.in_top_k(p, tf.constant([1, 0, 7, -1], tf.int64), tf.constant(2, tf.int64))
    outs["intopk_v1"] = tf.raw_ops.InTopK(predictions=p, targets=tf.constant([2, 4, 2, 0]), k=2)
    outs["intopk_k0"] = tf.math.in_top_k(p, tf.constant([2, 3, 0, 4]), 0)
    errs["intopk_targets_rank"] = tf.raw_ops.InTopKV2(predictions=p, targets=dyn([[1]]), k=1)
    errs["intopk_batch"] = tf.raw_ops.InTopKV2(predictions=p, targets=dyn([1, 0]), k=1)
    errs["intopk_k_shape"] = tf.raw_ops.InTopKV2(predictions=p, targets=dyn([1, 0, 0, 0]), k=dyn([1, 1]))
    errs["intopk_pred_rank"] = tf.raw_ops.InTopKV2(predictions=dyn([1.0, 2.0]), targets=dyn([1]), k=1)

    # ---- MatrixDiag family
    d3 = dyn(np.arange(1, 13, dtype=np.float32).reshape(2, 2, 3), name="d3")  # [batch 2, 2 diags, len 3]
    d1 = dyn(np.arange(1, 7, dtype=np.float32).reshape(2, 3), name="d1")
    outs["diag_main"] = tf.linalg.diag(d1)
    outs["diag_k1"] = tf.linalg.diag(d1, k=1)
    outs["diag_kneg"] = tf.linalg.diag(d1, k=-2, num_cols=4, padding_value=9.0)
    for align in ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]:
        outs[f"diag_band_{align}"] = tf.linalg.diag(d3, k=(-1, 0), num_rows=3, num_cols=4, align=align)
        outs[f"diag_band2_{align}"] = tf.linalg.diag(d3, k=(0, 1), padding_value=-1.0, align=align)
        m = dyn(np.arange(30, dtype=np.float32).reshape(2, 3, 5), name=f"m_{align}")
        outs[f"part_band_{align}"] = tf.linalg.diag_part(m, k=(-1, 2), padding_value=7.0, align=align)
        outs[f"set_band_{align}"] = tf.linalg.set_diag(
            m, tf.constant(-np.arange(1, 25, dtype=np.float32).reshape(2, 4, 3)), k=(-2, 1), align=align)
    outs["eye"] = tf.eye(2, 3)
    outs["eye_batch"] = tf.eye(3, batch_shape=[2])
    outs["diag_u8"] = tf.linalg.diag(tf.constant([1, 2, 250], tf.uint8))
    outs["diag_bool"] = tf.cast(tf.linalg.diag(tf.constant([True, False, True])), tf.int32)
    outs["diag_i64"] = tf.linalg.diag(tf.constant([[1, 2], [3, 4]], tf.int64), k=(-1, 0), num_rows=3, num_cols=2)
    outs["part_main"] = tf.linalg.diag_part(dyn(np.arange(12, dtype=np.float32).reshape(3, 4)))
    outs["part_single_k"] = tf.linalg.diag_part(dyn(np.arange(12, dtype=np.float32).reshape(3, 4)), k=-1)
    outs["set_main"] = tf.linalg.set_diag(dyn(np.zeros([2, 3], np.int32)), tf.constant([5, 6]))
    outs["v1_diag"] = tf.raw_ops.MatrixDiag(diagonal=d1)
    outs["v1_part"] = tf.raw_ops.MatrixDiagPart(input=dyn(np.arange(12, dtype=np.float32).reshape(4, 3)))
    outs["v1_set"] = tf.raw_ops.MatrixSetDiag(input=dyn(np.ones([3, 2], np.float32)), diagonal=tf.constant([7.0, 8.0]))
    outs["v2_diag"] = tf.raw_ops.MatrixDiagV2(diagonal=d3, k=[0, 1], num_rows=-1, num_cols=-1, padding_value=0.5)
    outs["v2_part"] = tf.raw_ops.MatrixDiagPartV2(input=dyn(np.arange(12, dtype=np.float32).reshape(3, 4)), k=[-2, 0],
                                                  padding_value=-3.0)
    outs["v2_set"] = tf.raw_ops.MatrixSetDiagV2(input=dyn(np.zeros([3, 3], np.float32)),
                                                diagonal=tf.constant([[1.0, 2.0, 0.0], [3.0, 4.0, 5.0]]), k=[0, 1])
    errs["diag_rows_small"] = tf.linalg.diag(d1, num_rows=dyn(1))
    errs["diag_cols_small"] = tf.linalg.diag(d1, num_cols=dyn(1), num_rows=dyn(3))
    errs["diag_k_order"] = tf.linalg.diag(d3, k=dyn([1, 0]))
    errs["diag_k_three"] = tf.linalg.diag(d3, k=dyn([1, 0, 2]))
    errs["diag_k_count"] = tf.linalg.diag(d3, k=dyn([0, 2]))
    errs["diag_inconsistent"] = tf.linalg.diag(d1, num_rows=dyn(5), num_cols=dyn(5))
    errs["diag_scalar"] = tf.raw_ops.MatrixDiag(diagonal=dyn(1.0))
    errs["part_oob"] = tf.linalg.diag_part(dyn([[1.0, 2.0], [3.0, 4.0]]), k=dyn(3))
    errs["part_oob_upper"] = tf.linalg.diag_part(dyn([[1.0, 2.0], [3.0, 4.0]]), k=dyn([0, -2]))
    errs["part_rank"] = tf.linalg.diag_part(dyn([1.0, 2.0]))
    errs["set_shape"] = tf.linalg.set_diag(dyn([[1.0, 2.0], [3.0, 4.0]]), dyn([1.0, 2.0, 3.0]))
    errs["set_k_count"] = tf.linalg.set_diag(dyn([[1.0, 2.0], [3.0, 4.0]]), dyn([[1.0, 2.0]]), k=dyn([0, 1]))
    errs["set_rank"] = tf.linalg.set_diag(dyn([1.0, 2.0]), dyn([1.0]))

    # gradients of the family, as TensorFlow writes them
    x = dyn(rng.uniform(-1, 1, [2, 3, 4]).astype(np.float32), name="gx")
    dg = dyn(rng.uniform(-1, 1, [2, 2, 3]).astype(np.float32), name="gd")
    w = lambda shape: tf.constant(rng.uniform(-1, 1, shape).astype(np.float32))  # noqa: E731
    y1 = tf.linalg.diag(dg, k=(-1, 0), num_rows=3, num_cols=4)
    y2 = tf.linalg.diag_part(x, k=(-1, 1), padding_value=2.0, align="LEFT_RIGHT")
    y3 = tf.linalg.set_diag(x, dg, k=(0, 1))
    loss = (tf.reduce_sum(y1 * w([2, 3, 4])) + tf.reduce_sum(y2 * w([2, 3, 3])) + tf.reduce_sum(y3 * w([2, 3, 4])))
    outs["grad_diag_x"], outs["grad_diag_d"] = tf.gradients(loss, [x, dg])
    sq = dyn(rng.uniform(-1, 1, [3, 3]).astype(np.float32), name="sq")
    v1 = tf.raw_ops.MatrixDiagPart(input=sq)
    loss1 = tf.reduce_sum(tf.raw_ops.MatrixDiag(diagonal=v1 * v1) * w([3, 3]))
    loss1 += tf.reduce_sum(tf.raw_ops.MatrixSetDiag(input=sq, diagonal=v1 * 2.0) * w([3, 3]))
    outs["grad_v1"] = tf.gradients(loss1, sq)[0]

    # ---- CheckNumerics, EnsureShape
    c = dyn([1.0, -2.0, 3.5])
    outs["check_ok"] = tf.debugging.check_numerics(c, "fine")
    outs["check_v2_ok"] = tf.raw_ops.CheckNumericsV2(tensor=tf.constant([[1.0, 2.0]], tf.float64), message="fine")
    outs["check_grad"] = tf.gradients(tf.reduce_sum(tf.debugging.check_numerics(c * c, "sq")), c)[0]
    for name, v in [("nan", [1.0, np.nan]), ("inf", [np.inf, 1.0]), ("ninf", [-np.inf, 0.0]),
                    ("both", [np.nan, -np.inf, 2.0])]:
        errs[f"check_{name}"] = tf.debugging.check_numerics(dyn(np.array(v, np.float32)), f"checking {name}")
    for name, v in [("nan", [1.0, np.nan]), ("pos", [np.inf, 1.0]), ("neg", [-np.inf, 0.0]),
                    ("posneg", [np.inf, -np.inf]), ("all", [np.nan, -np.inf, np.inf])]:
        errs[f"check_v2_{name}"] = tf.raw_ops.CheckNumericsV2(tensor=dyn(np.array(v, np.float32)), message=f"v2 {name}")
    errs["check_half"] = tf.debugging.check_numerics(dyn(np.array([np.nan], np.float16)), "half")
    e = dyn(np.arange(6, dtype=np.float32).reshape(2, 3), name="e_in")
    outs["ensure_ok"] = tf.ensure_shape(e, [None, 3])
    outs["ensure_grad"] = tf.gradients(tf.reduce_sum(tf.ensure_shape(e, [2, 3]) * w([2, 3])), e)[0]
    errs["ensure_dim"] = tf.ensure_shape(e, [None, 2])
    errs["ensure_rank"] = tf.ensure_shape(e, [6])

    # ---- LRN, LRNGrad
    img = dyn(rng.uniform(-2, 2, [2, 2, 3, 7]).astype(np.float32), name="img")
    lrn_cases = {"default": {}, "r2": dict(depth_radius=2, bias=1.5, alpha=0.3, beta=0.75),
                 "beta1": dict(depth_radius=1, bias=2.0, alpha=0.5, beta=1.0), "r0": dict(depth_radius=0, alpha=2.0)}
    for name, kw in lrn_cases.items():
        y = tf.nn.local_response_normalization(img, **kw)
        outs[f"lrn_{name}"] = y
        outs[f"lrn_grad_{name}"] = tf.gradients(tf.reduce_sum(y * w([2, 2, 3, 7])), img)[0]
    outs["lrn_half"] = tf.nn.lrn(tf.constant(rng.uniform(-2, 2, [1, 1, 2, 4]).astype(np.float16)), 1, 1.0, 0.5, 0.5)
    outs["lrngrad_raw"] = tf.raw_ops.LRNGrad(input_grads=w([2, 2, 3, 7]), input_image=img,
                                             output_image=w([2, 2, 3, 7]), depth_radius=3, bias=0.5, alpha=0.2,
                                             beta=0.6)
    errs["lrn_rank"] = tf.nn.lrn(dyn([[1.0, 2.0, 3.0]]))
    errs["lrngrad_shapes"] = tf.raw_ops.LRNGrad(input_grads=dyn(np.ones([1, 1, 1, 3], np.float32)),
                                                input_image=dyn(np.ones([1, 1, 1, 2], np.float32)),
                                                output_image=dyn(np.ones([1, 1, 1, 2], np.float32)))
    errs["lrngrad_rank"] = tf.raw_ops.LRNGrad(input_grads=dyn(np.ones([1, 3], np.float32)),
                                              input_image=dyn(np.ones([1, 3], np.float32)),
                                              output_image=dyn(np.ones([1, 3], np.float32)))


def small_ints(outs, errs):
    """The small-integer dtypes (int8, int16, uint8, uint16) of resizes, comparisons,
    Maximum/Minimum, reductions, Cumsum/Cumprod and TopKV2, values chosen to wrap."""
    del errs
    vals = {tf.uint8: [0, 255, 10, 20, 200, 7, 128, 3], tf.int8: [-128, 127, -5, 20, 100, 7, -100, 3],
            tf.int16: [-32768, 32767, -5, 20, 30000, 7, -100, 3], tf.uint16: [0, 65535, 10, 20, 60000, 7, 128, 3]}
    for d, v in vals.items():
        n = d.name
        x = tf.placeholder_with_default(tf.constant(np.array(v).reshape(2, 4), d), [None, 4], name=f"x_{n}")
        y = tf.constant(np.array(v[::-1]).reshape(2, 4), d)
        img = tf.reshape(x, [1, 2, 4, 1])
        outs[f"{n}_bilinear"] = tf.image.resize_bilinear(img, [3, 5])
        outs[f"{n}_bilinear_hp"] = tf.image.resize_bilinear(img, [3, 6], half_pixel_centers=True)
        outs[f"{n}_nearest"] = tf.image.resize_nearest_neighbor(img, [3, 7])
        outs[f"{n}_nearest_ac"] = tf.image.resize_nearest_neighbor(img, [3, 7], align_corners=True)
        for op in ["greater", "less", "greater_equal", "less_equal", "equal", "not_equal"]:
            outs[f"{n}_{op}"] = getattr(tf.math, op)(x, y[:1])
        outs[f"{n}_maximum"] = tf.maximum(x, y)
        outs[f"{n}_minimum"] = tf.minimum(x, y[1])
        for r in ["sum", "prod", "mean", "max", "min"]:
            outs[f"{n}_{r}_0"] = getattr(tf, f"reduce_{r}")(x, 0)
            outs[f"{n}_{r}_1"] = getattr(tf, f"reduce_{r}")(x, 1, keepdims=True)
            outs[f"{n}_{r}_all"] = getattr(tf, f"reduce_{r}")(x)
        outs[f"{n}_cumsum"] = tf.cumsum(x, axis=1)
        outs[f"{n}_cumsum_rev_ex"] = tf.cumsum(x, axis=0, reverse=True, exclusive=True)
        outs[f"{n}_cumprod"] = tf.math.cumprod(x, axis=1)
        top = tf.nn.top_k(x, 3)
        outs[f"{n}_topk"], outs[f"{n}_topk_idx"] = top.values, top.indices


def nms(outs, errs):
    """NonMaxSuppressionV3/V4/V5: hard and soft suppression, thresholds, padding, ties, an
    IoU exactly at the threshold (kept: TensorFlow suppresses only above it)."""
    rng = np.random.RandomState(11)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101],
             [1, 1, 0, 0], [0, 0, 1, 2], [5, 5, 5, 6]]
    scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.8, 0.99]
    b, sc = dyn(boxes), dyn(scores)
    for k, (m, iou, st) in {"a": (3, 0.5, 0.0), "b": (9, 0.5, -1.0), "c": (9, 0.0, 0.0), "d": (9, 1.0, 0.55),
                            "e": (2, 0.3, 0.0), "f": (0, 0.5, 0.0)}.items():
        outs[f"v3_{k}"] = tf.raw_ops.NonMaxSuppressionV3(boxes=b, scores=sc, max_output_size=m, iou_threshold=iou,
                                                         score_threshold=st)
    v4 = tf.raw_ops.NonMaxSuppressionV4(boxes=b, scores=sc, max_output_size=7, iou_threshold=0.5,
                                        score_threshold=0.4, pad_to_max_output_size=True)
    outs["v4_pad"], outs["v4_pad_valid"] = v4
    v4 = tf.raw_ops.NonMaxSuppressionV4(boxes=b, scores=sc, max_output_size=7, iou_threshold=0.5,
                                        score_threshold=0.4)
    outs["v4"], outs["v4_valid"] = v4
    for k, (sigma, st, pad) in {"soft": (0.5, 0.1, False), "soft_pad": (0.3, 0.2, True),
                                "hard": (0.0, 0.0, True)}.items():
        v5 = tf.raw_ops.NonMaxSuppressionV5(boxes=b, scores=sc, max_output_size=8, iou_threshold=0.5,
                                            score_threshold=st, soft_nms_sigma=sigma, pad_to_max_output_size=pad)
        outs[f"v5_{k}"], outs[f"v5_{k}_scores"], outs[f"v5_{k}_valid"] = v5
    rb = rng.uniform(0, 1, [40, 2]).astype(np.float32)
    rboxes = np.concatenate([rb, rb + rng.uniform(0.05, 0.4, [40, 2]).astype(np.float32)], 1)
    rscores = rng.uniform(0, 1, [40]).astype(np.float32)
    outs["random_v3"] = tf.image.non_max_suppression(dyn(rboxes), dyn(rscores), 20, 0.4, 0.1)
    rs = tf.image.non_max_suppression_with_scores(dyn(rboxes), dyn(rscores), 20, 0.4, 0.1, soft_nms_sigma=0.25)
    outs["random_v5"], outs["random_v5_scores"] = rs
    one = dyn([[0, 0, 1, 1.0]])
    args = dict(boxes=one, scores=dyn([0.9]), max_output_size=3, iou_threshold=0.5, score_threshold=0.0)
    errs["nms_boxes_cols"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "boxes": dyn([[0, 0, 1.0]])})
    errs["nms_boxes_rank"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "boxes": dyn([0, 0, 1, 1.0])})
    errs["nms_scores_len"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "scores": dyn([0.9, 0.3])})
    errs["nms_scores_rank"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "scores": dyn([[0.9]])})
    errs["nms_iou_range"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "iou_threshold": dyn(1.5)})
    errs["nms_iou_shape"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "iou_threshold": dyn([0.5])})
    errs["nms_max_shape"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "max_output_size": dyn([3], tf.int32)})
    errs["nms_max_negative"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "max_output_size": dyn(-1, tf.int32)})
    errs["nms_score_shape"] = tf.raw_ops.NonMaxSuppressionV3(**{**args, "score_threshold": dyn([0.0])})
    errs["nms_sigma_negative"] = tf.raw_ops.NonMaxSuppressionV5(**args, soft_nms_sigma=dyn(-0.5),
                                                                pad_to_max_output_size=False)[0]
    errs["nms_sigma_shape"] = tf.raw_ops.NonMaxSuppressionV5(**args, soft_nms_sigma=dyn([0.5]),
                                                             pad_to_max_output_size=False)[0]


def linalg(outs, errs):
    """MatrixInverse (adjoint too) and MatrixDeterminant, batched, float32 and float64, with
    TensorFlow's gradient subgraphs of both."""
    rng = np.random.RandomState(5)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    a = rng.uniform(-1, 1, [2, 3, 4, 4]) + 2.0 * np.eye(4)
    for dt in [tf.float32, tf.float64]:
        x = dyn(a, dt)
        outs[f"inv_{dt.name}"] = tf.linalg.inv(x)
        outs[f"inv_adj_{dt.name}"] = tf.linalg.inv(x, adjoint=True)
        outs[f"det_{dt.name}"] = tf.linalg.det(x)
        w = tf.constant(rng.uniform(-1, 1, [2, 3, 4, 4]), dt)
        loss = tf.reduce_sum(tf.linalg.inv(x) * w) + tf.reduce_sum(tf.linalg.inv(x, adjoint=True) * w * w)
        loss += tf.reduce_sum(tf.linalg.det(x) * tf.constant(rng.uniform(-1, 1, [2, 3]), dt))
        outs[f"grad_{dt.name}"] = tf.gradients(loss, x)[0]
    outs["det_singular"] = tf.linalg.det(dyn([[1.0, 2.0], [2.0, 4.0]]))
    outs["det_empty"] = tf.linalg.det(dyn(np.zeros([2, 0, 0], np.float32)))
    outs["inv_empty"] = tf.linalg.inv(dyn(np.zeros([2, 0, 0], np.float32)))
    outs["det_pivot"] = tf.linalg.det(dyn([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0], [1.0, 1.0, 0.0]]))
    errs["inv_singular"] = tf.linalg.inv(dyn([[1.0, 2.0], [2.0, 4.0]]))
    errs["inv_nan"] = tf.linalg.inv(dyn([[np.nan, 2.0], [3.0, 4.0]]))
    errs["inv_rank"] = tf.linalg.inv(dyn([1.0, 2.0]))
    errs["inv_square"] = tf.linalg.inv(dyn([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0]]))
    errs["det_rank"] = tf.linalg.det(dyn([1.0, 2.0]))
    errs["det_square"] = tf.linalg.det(dyn([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0]]))


def sparse_segment(outs, errs):
    """SparseSegmentSum/Mean/SqrtN (int32 and int64 indices and ids, gaps, repeats), their
    gradient ops as TensorFlow's gradient subgraph writes them, and the kernels' errors."""
    rng = np.random.RandomState(3)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    x = dyn(rng.uniform(-1, 1, [5, 2, 3]).astype(np.float32))
    idx, seg = [0, 2, 1, 3, 3, 4], [0, 0, 2, 2, 2, 5]
    w = tf.constant(rng.uniform(-1, 1, [6, 2, 3]).astype(np.float32))
    loss = 0.0
    for name in ["sum", "mean", "sqrt_n"]:
        f = getattr(tf.sparse, f"segment_{name}")
        y = f(x, idx, seg)
        outs[f"ss_{name}"] = y
        outs[f"ss_{name}_i64"] = f(x, tf.constant(idx, tf.int64), tf.constant(seg, tf.int64))
        loss += tf.reduce_sum(y * w)
        errs[f"ss_{name}_unsorted"] = f(x, [0, 2, 1, 2], dyn([0, 2, 1, 2], tf.int32))
    outs["ss_grad"] = tf.gradients(loss, x)[0]
    outs["ss_int"] = tf.sparse.segment_sum(dyn([[1, 2], [3, 4]], tf.int32), [0, 1, 1], [0, 0, 1])
    outs["ss_double"] = tf.sparse.segment_mean(dyn([[1.0, 2.0], [3.0, 4.0]], tf.float64), [1, 0], [1, 1])
    outs["ss_empty"] = tf.sparse.segment_sum(x, dyn(np.zeros([0], np.int32), tf.int32),
                                             dyn(np.zeros([0], np.int32), tf.int32))
    errs["ss_oob"] = tf.sparse.segment_sum(x, dyn([0, 7], tf.int32), [0, 0])
    errs["ss_negative_index"] = tf.sparse.segment_sum(x, dyn([0, -1], tf.int32), [0, 0])
    errs["ss_size"] = tf.sparse.segment_sum(x, dyn([0, 1, 2], tf.int32), dyn([0, 0], tf.int32))
    errs["ss_indices_rank"] = tf.sparse.segment_sum(x, dyn([[0, 1]], tf.int32), dyn([0, 0], tf.int32))
    errs["ss_ids_rank"] = tf.sparse.segment_sum(x, dyn([0, 1], tf.int32), dyn([[0, 0]], tf.int32))
    errs["ss_negative_id"] = tf.sparse.segment_sum(x, dyn([0, 1], tf.int32), dyn([-1, 0], tf.int32))


def sparse_segment_build_errors():
    c = tf.constant
    return run_build_errors({
        "ss_size": lambda: tf.sparse.segment_sum(c([[1.0, 2.0], [3.0, 4.0]]), [0, 1, 1], [0, 0]),
    })


def linalg_build_errors():
    """MatrixInverse's and MatrixDeterminant's shape-function errors."""
    return run_build_errors({
        "inv_rank": lambda: tf.linalg.inv(tf.constant([1.0, 2.0])),
        "inv_square": lambda: tf.linalg.inv(tf.constant([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0]])),
        "det_square": lambda: tf.linalg.det(tf.constant([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0]])),
    })


def nms_build_errors():
    """The NonMaxSuppression shape function's errors for static shapes."""
    c = tf.constant
    return run_build_errors({
        "nms_boxes_cols": lambda: tf.raw_ops.NonMaxSuppressionV3(boxes=c([[0, 0, 1.0]]), scores=c([0.9]),
                                                                  max_output_size=3, iou_threshold=0.5,
                                                                  score_threshold=0.0),
        "nms_scores_len": lambda: tf.raw_ops.NonMaxSuppressionV3(boxes=c([[0, 0, 1, 1.0]]), scores=c([0.9, 0.1]),
                                                                  max_output_size=3, iou_threshold=0.5,
                                                                  score_threshold=0.0),
    })


def run_build_errors(cases):
    out = {}
    for k, f in cases.items():
        with tf.Graph().as_default():
            try:
                f()
                out[k] = None
            except (ValueError, TypeError) as e:
                out[k] = str(e).splitlines()[0]
    return out


def build_errors():
    """The shape functions' errors for the cases tests/ops_nn4.rs builds with static shapes."""
    return run_build_errors({
        "intopk_batch": lambda: tf.math.in_top_k(tf.constant([[1.0, 2.0]]), tf.constant([1, 0]), 1),
        "intopk_pred_rank": lambda: tf.math.in_top_k(tf.constant([1.0, 2.0]), tf.constant([1]), 1),
        "diag_rows_small": lambda: tf.linalg.diag([1.0, 2.0], num_rows=1),
        "part_rank": lambda: tf.linalg.diag_part(tf.constant([1.0, 2.0])),
        "ensure_dim": lambda: tf.ensure_shape(tf.constant([[1.0, 2.0, 3.0]]), [None, 2]),
        "ensure_rank": lambda: tf.ensure_shape(tf.constant([[1.0, 2.0, 3.0]]), [3]),
        "lrn_rank": lambda: tf.nn.lrn(tf.constant([[1.0, 2.0, 3.0]])),
        "check_int": lambda: tf.debugging.check_numerics(tf.constant([1]), "m"),
    })


def write(name, add_cases, build_errors_of):
    g = tf.Graph()
    outs, errs = {}, {}
    with g.as_default():
        add_cases(outs, errs)
        gd = g.as_graph_def()
        with tf.Session() as s:
            vals = s.run(outs)
            err_vals = {}
            for k, t in errs.items():
                try:
                    s.run(t)
                    raise SystemExit(f"{k}: expected an error")
                except tf.errors.OpError as ex:
                    err_vals[k] = {"tensor": t.name, "error": type(ex).__name__, "message": first_line(ex.message)}
    os.makedirs(OUT, exist_ok=True)
    tf.io.write_graph(gd, OUT, f"{name}.pbtxt", as_text=True)
    expected = {"outputs": {}, "errors": err_vals, "build_errors": build_errors_of()}
    for k, v in vals.items():
        v = np.asarray(v)
        if v.dtype == object:  # strings: their text (gen_ops_nn6.py)
            values, dtype = [t.decode("utf-8") for t in v.reshape(-1)], "string"
        else:
            values, dtype = [None if np.isnan(float(t)) else float(t) for t in v.reshape(-1)], str(v.dtype)
        expected["outputs"][k] = {"tensor": outs[k].name, "dtype": dtype, "shape": list(v.shape), "values": values}
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", os.path.join(OUT, name), len(vals), "outputs,", len(err_vals), "errors")


def main():
    write("graph", build, build_errors)
    write("small_ints", small_ints, dict)
    write("nms", nms, nms_build_errors)
    write("linalg", linalg, linalg_build_errors)
    write("sparse_segment", sparse_segment, sparse_segment_build_errors)


if __name__ == "__main__":
    main()
