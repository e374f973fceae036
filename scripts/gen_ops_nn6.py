#!/usr/bin/env python3
"""TensorFlow 2.21's graphs and numbers for tests/ops_nn6.rs: the image ops CropAndResize
(with CropAndResizeGradImage and CropAndResizeGradBoxes), ResizeBicubic (with
ResizeBicubicGrad), MaxPoolWithArgmax (with MaxPoolGradWithArgmax), Dilation2D (with
Dilation2DBackpropInput/Filter) and ExtractImagePatches, with TensorFlow's own gradient
subgraphs of them and the errors their kernels and shape functions give.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nn6.py

writes tests/data/ops_nn6/image.pbtxt (the graph TensorFlow built) and image.json in the
format of scripts/gen_ops_nn4.py, whose helpers (`write`, `run_build_errors`) it reuses:
`outputs` (tensor name, dtype, shape, flat values), `errors` (tensor name, error class, first
line of TensorFlow's message) and `build_errors` (the shape functions' ValueErrors).
Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402

tf = nn4.tf
nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "ops_nn6")


def image(outs, errs):
    """CropAndResize, ResizeBicubic, MaxPoolWithArgmax, Dilation2D, ExtractImagePatches."""
    rng = np.random.RandomState(17)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    w = lambda shape, dt=tf.float32: tf.constant(rng.uniform(-1, 1, shape), dt)  # noqa: E731
    img_v = rng.uniform(-2, 2, [2, 5, 6, 3]).astype(np.float32)
    img = tf.placeholder_with_default(tf.constant(img_v), [2, 5, 6, 3], name="img")

    # ---- CropAndResize
    boxes = tf.constant([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.3, 1.3, 0.7], [0.9, 0.8, 0.1, 0.2], [0.5, 0.5, 0.5, 0.5],
                         [0.0, 0.0, 1.0, 1.0]], name="boxes")
    box_ind = tf.constant([0, 1, 1, 0, 1], name="box_ind")
    for method in ["bilinear", "nearest"]:
        for ext in [0.0, -1.5]:
            for size in [(4, 3), (1, 5), (1, 1)]:
                k = f"crop_{method}_{ext}_{size[0]}x{size[1]}".replace("-", "m").replace(".", "_")
                outs[k] = tf.image.crop_and_resize(img, boxes, box_ind, size, method=method, extrapolation_value=ext)
        y = tf.image.crop_and_resize(img, boxes, box_ind, [4, 3], method=method, extrapolation_value=0.5)
        gi, gb = tf.gradients(tf.reduce_sum(y * w([5, 4, 3, 3])), [img, boxes])
        outs[f"crop_grad_image_{method}"], outs[f"crop_grad_boxes_{method}"] = gi, gb
        outs[f"crop_grad_image_raw_{method}"] = tf.raw_ops.CropAndResizeGradImage(
            grads=w([5, 2, 3, 3]), boxes=boxes, box_ind=box_ind, image_size=[2, 4, 5, 3],
            T=tf.float64, method=method)
    for dt in [tf.uint8, tf.int32, tf.float64, tf.int16]:
        iv = tf.constant(rng.randint(0, 120, [2, 5, 6, 3]), dt)
        outs[f"crop_{dt.name}"] = tf.image.crop_and_resize(iv, boxes, box_ind, [3, 4])
        outs[f"crop_boxes_grad_{dt.name}"] = tf.raw_ops.CropAndResizeGradBoxes(
            grads=w([5, 3, 4, 3]), image=iv, boxes=boxes, box_ind=box_ind)
    outs["crop_empty"] = tf.image.crop_and_resize(img, tf.zeros([0, 4]), tf.zeros([0], tf.int32), [2, 2])
    errs["crop_boxes_cols"] = tf.image.crop_and_resize(img, dyn([[0, 0, 1.0]]), dyn([0], tf.int32), [2, 2])
    errs["crop_boxes_rank"] = tf.image.crop_and_resize(img, dyn([0, 0, 1, 1.0]), dyn([0], tf.int32), [2, 2])
    errs["crop_box_ind_len"] = tf.image.crop_and_resize(img, dyn([[0, 0, 1, 1.0]]), dyn([0, 1], tf.int32), [2, 2])
    errs["crop_box_ind_range"] = tf.image.crop_and_resize(img, dyn([[0, 0, 1, 1.0]]), dyn([2], tf.int32), [2, 2])
    errs["crop_box_ind_negative"] = tf.image.crop_and_resize(img, dyn([[0, 0, 1, 1.0]]), dyn([-1], tf.int32),
                                                             [2, 2])
    errs["crop_size_zero"] = tf.image.crop_and_resize(img, dyn([[0, 0, 1, 1.0]]), dyn([0], tf.int32),
                                                      dyn([0, 2], tf.int32))
    errs["crop_image_rank"] = tf.image.crop_and_resize(dyn(np.ones([5, 6, 3], np.float32)), dyn([[0, 0, 1, 1.0]]),
                                                       dyn([0], tf.int32), [2, 2])
    errs["crop_grad_image_range"] = tf.raw_ops.CropAndResizeGradImage(
        grads=dyn(np.ones([1, 2, 2, 3], np.float32)), boxes=dyn([[0, 0, 1, 1.0]]), box_ind=dyn([3], tf.int32),
        image_size=[2, 4, 5, 3], T=tf.float32)
    errs["crop_grad_boxes_range"] = tf.raw_ops.CropAndResizeGradBoxes(
        grads=dyn(np.ones([1, 2, 2, 3], np.float32)), image=img, boxes=dyn([[0, 0, 1, 1.0]]),
        box_ind=dyn([5], tf.int32))

    # ---- ResizeBicubic
    for name, kw in {"default": {}, "ac": dict(align_corners=True), "hp": dict(half_pixel_centers=True)}.items():
        for size in [(7, 9), (3, 4), (1, 1)]:
            outs[f"bicubic_{name}_{size[0]}x{size[1]}"] = tf.compat.v1.image.resize_bicubic(img, size, **kw)
        for dt in [tf.float32, tf.float64]:
            x = tf.cast(img, dt) if dt != tf.float32 else img
            y = tf.compat.v1.image.resize_bicubic(x, [7, 4], **kw)
            outs[f"bicubic_grad_{name}_{dt.name}"] = tf.gradients(tf.reduce_sum(y * w([2, 7, 4, 3])), x)[0]
    outs["bicubic_u8"] = tf.compat.v1.image.resize_bicubic(tf.constant(rng.randint(0, 256, [1, 3, 4, 2]), tf.uint8),
                                                          [5, 7], half_pixel_centers=True)
    outs["bicubic_i64"] = tf.compat.v1.image.resize_bicubic(tf.constant(rng.randint(-9, 9, [1, 3, 4, 2]), tf.int64),
                                                           [5, 2])

    # ---- MaxPoolWithArgmax
    ties = tf.constant(np.array([1, 3, 3, 2, 0, 3, 1, 1, 5, 5, 2, 5, 4, 4, 4, 4], np.float32).reshape(1, 4, 4, 1))
    for pad in ["SAME", "VALID"]:
        for bi in [False, True]:
            for targ in [tf.int64, tf.int32]:
                k = f"argmax_{pad}_{int(bi)}_{targ.name}"
                outs[k], outs[k + "_idx"] = tf.nn.max_pool_with_argmax(img, [1, 3, 2, 1], [1, 2, 2, 1], pad,
                                                                        output_dtype=targ, include_batch_in_index=bi)
        outs[f"argmax_ties_{pad}"], outs[f"argmax_ties_{pad}_idx"] = tf.nn.max_pool_with_argmax(ties, [1, 2, 2, 1], [1, 1, 1, 1], pad)
        y, _ = tf.nn.max_pool_with_argmax(img, [1, 2, 3, 1], [1, 1, 2, 1], pad, include_batch_in_index=(pad == "SAME"))
        outs[f"argmax_grad_{pad}"] = tf.gradients(tf.reduce_sum(y * w(y.shape.as_list())), img)[0]
    outs["argmax_i32"], outs["argmax_i32_idx"] = tf.nn.max_pool_with_argmax(
        tf.constant(rng.randint(-50, 50, [2, 4, 5, 2]), tf.int32), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    outs["argmax_grad_raw"] = tf.raw_ops.MaxPoolGradWithArgmax(
        input=tf.zeros([2, 2, 2, 1]), grad=tf.constant([[[[1.0]]], [[[2.0]]]]),
        argmax=tf.constant([[[[3]]], [[[1]]]], tf.int64), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    outs["argmax_grad_raw_batch"] = tf.raw_ops.MaxPoolGradWithArgmax(
        input=tf.zeros([2, 2, 2, 1]), grad=tf.constant([[[[1.0]]], [[[2.0]]]]),
        argmax=tf.constant([[[[3]]], [[[5]]]], tf.int64), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID",
        include_batch_in_index=True)

    # ---- Dilation2D
    filt_v = rng.uniform(-1, 1, [2, 3, 3]).astype(np.float32)
    filt = tf.placeholder_with_default(tf.constant(filt_v), [2, 3, 3], name="filt")
    for pad in ["SAME", "VALID"]:
        for strides, rates in [([1, 1, 1, 1], [1, 1, 1, 1]), ([1, 2, 1, 1], [1, 1, 2, 1]), ([1, 2, 3, 1], [1, 2, 1, 1])]:
            k = f"dil_{pad}_{strides[1]}{strides[2]}_{rates[1]}{rates[2]}"
            y = tf.compat.v1.nn.dilation2d(img, filt, strides, rates, pad)
            outs[k] = y
            outs[k + "_gi"], outs[k + "_gf"] = tf.gradients(tf.reduce_sum(y * w(y.shape.as_list())), [img, filt])
    outs["dil_i32"] = tf.compat.v1.nn.dilation2d(tf.constant(rng.randint(-9, 9, [1, 4, 4, 2]), tf.int32),
                                                 tf.constant(rng.randint(-3, 3, [2, 2, 2]), tf.int32),
                                                 [1, 1, 1, 1], [1, 1, 1, 1], "SAME")

    # ---- ExtractImagePatches
    for pad in ["SAME", "VALID"]:
        for ks, st, rt in [([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 2, 1]),
                           ([1, 1, 1, 1], [1, 2, 2, 1], [1, 1, 1, 1])]:
            k = f"patches_{pad}_{ks[1]}{ks[2]}_{st[1]}{st[2]}_{rt[1]}{rt[2]}"
            outs[k] = tf.image.extract_patches(img, ks, st, rt, pad)
    outs["patches_u8"] = tf.image.extract_patches(tf.constant(rng.randint(0, 256, [1, 4, 4, 2]), tf.uint8),
                                                  [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")


def image_build_errors():
    c = tf.constant
    img = lambda: tf.zeros([2, 5, 6, 3])  # noqa: E731
    return nn4.run_build_errors({
        "crop_boxes_cols": lambda: tf.image.crop_and_resize(img(), c([[0, 0, 1.0]]), c([0]), [2, 2]),
        "crop_box_ind_len": lambda: tf.image.crop_and_resize(img(), c([[0, 0, 1, 1.0]]), c([0, 1]), [2, 2]),
        "crop_image_rank": lambda: tf.image.crop_and_resize(tf.zeros([5, 6, 3]), c([[0, 0, 1, 1.0]]), c([0]),
                                                            [2, 2]),
        "dil_filter_depth": lambda: tf.compat.v1.nn.dilation2d(img(), tf.zeros([2, 2, 2]), [1, 1, 1, 1],
                                                               [1, 1, 1, 1], "SAME"),
        "dil_valid_large": lambda: tf.compat.v1.nn.dilation2d(img(), tf.zeros([4, 2, 3]), [1, 1, 1, 1],
                                                              [1, 2, 1, 1], "VALID"),
        "patches_rank": lambda: tf.image.extract_patches(tf.zeros([5, 6, 3]), [1, 2, 2, 1], [1, 1, 1, 1],
                                                         [1, 1, 1, 1], "VALID"),
        "argmax_rank": lambda: tf.nn.max_pool_with_argmax(tf.zeros([5, 6, 3]), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    })




def counts(outs, errs):
    """SparseToDense (what tf.nn.sampled_softmax_loss's labels emit), ComputeAccidentalHits,
    HistogramFixedWidth, DenseBincount, and the string ops AsString, StringToNumber,
    StringLength, Substr."""
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    # ---- SparseToDense
    outs["std_2d"] = tf.sparse_to_dense(tf.constant([[0, 1], [1, 0], [2, 3]]), [3, 4], [1.5, -2.0, 3.0], -1.0)
    outs["std_1d_i64"] = tf.sparse_to_dense(tf.constant([0, 3, 4], tf.int64), tf.constant([6], tf.int64),
                                            tf.constant(7, tf.int32), 0)
    outs["std_scalar"] = tf.sparse_to_dense(tf.constant(2), [4], tf.constant(True), False)
    outs["std_unsorted"] = tf.sparse_to_dense(tf.constant([[1], [0]]), [2], [1.0, 2.0], validate_indices=False)
    outs["std_double"] = tf.sparse_to_dense(tf.constant([[0, 0, 1]]), [1, 2, 2], tf.constant([4.0], tf.float64))
    errs["std_oob"] = tf.sparse_to_dense(dyn([[0], [5]], tf.int32), [4], [1.0, 2.0])
    errs["std_order"] = tf.sparse_to_dense(dyn([[2], [1]], tf.int32), [4], [1.0, 2.0])
    errs["std_repeat"] = tf.sparse_to_dense(dyn([[1], [1]], tf.int32), [4], [1.0, 2.0])
    errs["std_values_len"] = tf.sparse_to_dense(dyn([[1], [2]], tf.int32), [4], dyn([1.0, 2.0, 3.0]))
    errs["std_default"] = tf.sparse_to_dense(dyn([[1], [2]], tf.int32), [4], dyn([1.0, 2.0]), dyn([0.0]))
    errs["std_rank"] = tf.sparse_to_dense(dyn([[1], [2]], tf.int32), dyn([[4]], tf.int32), dyn([1.0, 2.0]))
    # ---- ComputeAccidentalHits
    true = tf.constant([[1, 5], [3, 9], [7, 7]], tf.int64)
    sampled = tf.constant([9, 1, 2, 7, 1], tf.int64)
    outs["hits_idx"], outs["hits_ids"], outs["hits_w"] = tf.nn.compute_accidental_hits(true, sampled, 2)
    # ---- HistogramFixedWidth, DenseBincount
    vals = [-1.0, 0.0, 1.5, 2.0, 5.0, 12.0, 4.99, 3.3]
    outs["hist"] = tf.histogram_fixed_width(vals, [0.0, 5.0], nbins=5)
    outs["hist_i64"] = tf.histogram_fixed_width(tf.constant([1, 2, 3, 9, -4], tf.int32), [0, 8], nbins=3,
                                                dtype=tf.int64)
    outs["hist_double"] = tf.histogram_fixed_width(tf.constant(vals, tf.float64), [-1.0, 3.0], nbins=7)
    errs["hist_range"] = tf.histogram_fixed_width(vals, dyn([1.0, 0.0]), nbins=3)
    errs["hist_nbins"] = tf.histogram_fixed_width(vals, [0.0, 5.0], nbins=dyn(0, tf.int32))
    arr = tf.constant([[1, 2, 2, 5], [0, 0, 3, 1]])
    outs["bincount_2d"] = tf.raw_ops.DenseBincount(input=arr, size=6, weights=tf.constant([], tf.float32))
    outs["bincount_w"] = tf.raw_ops.DenseBincount(input=arr, size=4, weights=tf.constant(
        [[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 9.0, 1.0]]))
    outs["bincount_bin"] = tf.raw_ops.DenseBincount(input=tf.constant([1, 1, 3], tf.int64), size=tf.constant(5, tf.int64),
                                                    weights=tf.constant([], tf.int32), binary_output=True)
    errs["bincount_neg"] = tf.raw_ops.DenseBincount(input=dyn([1, -1], tf.int32), size=4,
                                                    weights=tf.constant([], tf.float32))
    # ---- strings
    outs["as_string_i"] = tf.strings.as_string(tf.constant([-3, 0, 42]))
    outs["as_string_f"] = tf.strings.as_string(tf.constant([1.5, -0.25, 1e10, 3.14159265]))
    outs["as_string_prec"] = tf.strings.as_string(tf.constant([1.5, -0.25, 1e10, 3.14159265], tf.float64),
                                                  precision=2)
    outs["as_string_sci"] = tf.strings.as_string(tf.constant([1.5, -0.25, 1e10, 0.000123]), scientific=True,
                                                 precision=3)
    outs["as_string_short"] = tf.strings.as_string(tf.constant([1.5, -0.25, 1e10, 0.000123, 100000.0, 1e-5]),
                                                   shortest=True)
    outs["as_string_width"] = tf.strings.as_string(tf.constant([7, -12], tf.int64), width=5, fill="0")
    outs["as_string_wspace"] = tf.strings.as_string(tf.constant([7, -12], tf.int32), width=4)
    outs["as_string_bool"] = tf.strings.as_string(tf.constant([True, False]))
    outs["as_string_u8"] = tf.strings.as_string(tf.constant([255, 0], tf.uint8))
    strs = tf.constant(["12", " -7 ", "3.25", "1e3", "-1E-2", "-0.5", "0x10"])
    outs["to_number_f"] = tf.strings.to_number(strs[:6])
    outs["to_number_d"] = tf.strings.to_number(strs[:6], tf.float64)
    outs["to_number_i"] = tf.strings.to_number(strs[:2], tf.int32)
    outs["to_number_i64"] = tf.strings.to_number(tf.constant(["-9000000000", "+5"]), tf.int64)
    errs["to_number_bad"] = tf.strings.to_number(tf.placeholder_with_default(tf.constant(["1", "abc"]), None))
    errs["to_number_int_frac"] = tf.strings.to_number(tf.placeholder_with_default(tf.constant(["2.5"]), None),
                                                      tf.int32)
    errs["to_number_empty"] = tf.strings.to_number(tf.placeholder_with_default(tf.constant([""]), None), tf.int64)
    errs["to_number_overflow"] = tf.strings.to_number(
        tf.placeholder_with_default(tf.constant(["3000000000"]), None), tf.int32)
    words = tf.constant([["hello", "", "héllo"], ["a", "tensor", "ok"]])
    outs["length"] = tf.strings.length(words)
    outs["length_utf8"] = tf.strings.length(words, unit="UTF8_CHAR")
    outs["substr"] = tf.strings.substr(tf.constant([["hello", "ab", "héllo"], ["a", "tensor", "ok"]]), 1, 3)
    outs["substr_neg"] = tf.strings.substr(tf.constant(["hello", "tensor"]), -3, 2)
    outs["substr_vec"] = tf.strings.substr(tf.constant(["hello", "tensor"]), tf.constant([0, 2]), tf.constant([2, 10]))
    errs["substr_pos"] = tf.strings.substr(tf.placeholder_with_default(tf.constant(["abc"]), None), 4, 1)


def main():
    nn4.write("image", image, image_build_errors)
    nn4.write("counts", counts, dict)


if __name__ == "__main__":
    main()
