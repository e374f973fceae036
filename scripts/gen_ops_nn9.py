#!/usr/bin/env python3
"""TensorFlow 2.21's graphs and numbers for tests/ops_nn9.rs: the set ops
DenseToDenseSetOperation, DenseToSparseSetOperation and SetSize (tf.sets.*,
tf.compat.v1.metrics.recall_at_k), Sign/Abs/Neg on the small integers and Substr with
broadcast pos/len, CTCBeamSearchDecoder, and the complex-number ops, with the errors their
kernels and shape functions give.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nn9.py

writes, per group, tests/data/ops_nn9/<name>.pbtxt (the graph TensorFlow built) and
<name>.json (`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes them,
with its helpers); recall.pbtxt/.json hold a recall_at_k graph with its initializer, update
and value op names and the values TensorFlow's session gave after each update. Built in
graph mode (tf.compat.v1) and run on CPU.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "ops_nn9")


def dyn(v, dtype=None):
    """An unknown-shape view of a constant, so kernels (not shape functions) see the shapes."""
    return tf.placeholder_with_default(tf.constant(v, dtype), None)


def sets(outs, errs):
    """DenseToDenseSetOperation (the four operations, every dtype TensorFlow's CPU kernel
    has, rank 3, empty results), DenseToSparseSetOperation (groups missing from the sparse
    side), SetSize (validate_indices both ways), and the kernels' errors."""
    a = [[[1, 2, 2, 5], [7, 7, 7, 7]], [[3, 1, 4, 1], [0, 9, 8, 6]]]
    b = [[[2, 5, 6], [1, 2, 3]], [[1, 1, 1], [8, 0, 6]]]
    for dt in [tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16]:
        n = dt.name
        for op in ["a-b", "b-a", "intersection", "union"]:
            r = tf.raw_ops.DenseToDenseSetOperation(set1=dyn(a, dt), set2=dyn(b, dt), set_operation=op)
            k = op.replace("-", "")
            outs[f"dd_{k}_{n}_indices"], outs[f"dd_{k}_{n}_values"], outs[f"dd_{k}_{n}_shape"] = r
    sa = [["b", "a", "cc"], ["", "x", "x"]]
    sb = [["a", "z", "b"], ["x", "y", ""]]
    for op in ["a-b", "b-a", "intersection", "union"]:
        k = op.replace("-", "")
        r = tf.raw_ops.DenseToDenseSetOperation(set1=dyn(sa), set2=dyn(sb), set_operation=op)
        outs[f"dd_{k}_string_indices"], outs[f"dd_{k}_string_values"], outs[f"dd_{k}_string_shape"] = r
    # every group empty: shape [.., 0]
    r = tf.sets.intersection(tf.constant([[1, 2], [3, 4]]), tf.constant([[5, 6], [7, 8]]))
    outs["dd_empty_indices"], outs["dd_empty_values"], outs["dd_empty_shape"] = r.indices, r.values, r.dense_shape
    outs["dd_upper"] = tf.raw_ops.DenseToDenseSetOperation(set1=dyn([[1, 2]]), set2=dyn([[2]]),
                                                           set_operation="UNION")[1]
    # dense a, sparse b (rows 0 and 2 of 4 present; the 3-d case with a missing middle group)
    sp = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 2]], tf.constant([3, 9, 4, 4], tf.int64), [4, 3])
    da = tf.constant([[1, 3, 5], [2, 2, 2], [4, 5, 6], [7, 8, 9]], tf.int64)
    for op in ["a-b", "b-a", "intersection", "union"]:
        k = op.replace("-", "")
        r = tf.raw_ops.DenseToSparseSetOperation(set1=da, set2_indices=sp.indices, set2_values=sp.values,
                                                 set2_shape=sp.dense_shape, set_operation=op)
        outs[f"ds_{k}_indices"], outs[f"ds_{k}_values"], outs[f"ds_{k}_shape"] = r
    sps = tf.SparseTensor([[0, 1, 0], [1, 0, 1]], tf.constant(["q", "a"]), [2, 2, 2])
    r = tf.sets.union(tf.constant([[["a", "b"], ["c", "c"]], [["d", "a"], ["e", "f"]]]), sps)
    outs["ds_string_indices"], outs["ds_string_values"], outs["ds_string_shape"] = r.indices, r.values, r.dense_shape
    # SetSize
    st = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 1, 0], [1, 1, 3]], tf.constant([5, 5, 6, 1, 2]),
                         [2, 3, 4])
    outs["size"] = tf.sets.size(st)
    outs["size_str"] = tf.raw_ops.SetSize(set_indices=dyn([[0, 0], [0, 1], [2, 0]], tf.int64),
                                          set_values=dyn(["a", "a", "b"]), set_shape=dyn([3, 2], tf.int64))
    outs["size_unsorted"] = tf.raw_ops.SetSize(set_indices=dyn([[1, 0], [0, 0], [0, 1], [1, 1]], tf.int64),
                                               set_values=dyn([1, 2, 3, 4]), set_shape=dyn([2, 2], tf.int64),
                                               validate_indices=False)
    outs["size_of_dd"] = tf.sets.size(tf.sets.union(dyn(a), dyn(b)))
    # errors
    errs["dd_rank"] = tf.raw_ops.DenseToDenseSetOperation(set1=dyn([1, 2]), set2=dyn([1]), set_operation="union")[0]
    errs["dd_mismatch"] = tf.raw_ops.DenseToDenseSetOperation(set1=dyn([[1, 2]]), set2=dyn([[1], [2]]),
                                                              set_operation="union")[0]
    errs["dd_bad_op"] = tf.raw_ops.DenseToDenseSetOperation(set1=dyn([[1, 2]]), set2=dyn([[1]]),
                                                            set_operation="xor")[0]
    f = lambda i, v, s, **k: tf.raw_ops.SetSize(set_indices=dyn(i, tf.int64), set_values=dyn(v),  # noqa: E731
                                                set_shape=dyn(s, tf.int64), **k)
    errs["size_order"] = f([[1, 0], [0, 0]], [1, 2], [2, 2])
    errs["size_repeat"] = f([[0, 0], [0, 0]], [1, 2], [2, 2])
    errs["size_bounds"] = f([[0, 0], [2, 0]], [1, 2], [2, 2])
    errs["size_rank"] = f([[0], [1]], [1, 2], [2])
    errs["size_nnz"] = f([[0, 0], [1, 0]], [1, 2, 3], [2, 2])
    errs["ds_mismatch"] = tf.raw_ops.DenseToSparseSetOperation(
        set1=dyn([[1, 2]]), set2_indices=dyn([[0, 0]], tf.int64), set2_values=dyn([1]),
        set2_shape=dyn([2, 2], tf.int64), set_operation="union")[0]
    errs["ds_order"] = tf.raw_ops.DenseToSparseSetOperation(
        set1=dyn([[1, 2], [3, 4]]), set2_indices=dyn([[1, 0], [0, 0]], tf.int64), set2_values=dyn([1, 2]),
        set2_shape=dyn([2, 2], tf.int64), set_operation="union")[0]


def sets_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "dd_rank": lambda: tf.raw_ops.DenseToDenseSetOperation(set1=c([1, 2]), set2=c([[1]]), set_operation="union"),
        "dd_rank2": lambda: tf.raw_ops.DenseToDenseSetOperation(set1=c([[1, 2]]), set2=c([[[1]]]),
                                                                set_operation="union"),
        "dd_group": lambda: tf.raw_ops.DenseToDenseSetOperation(set1=c([[1, 2]]), set2=c([[1], [2]]),
                                                                set_operation="union"),
    })


def recall():
    """tf.compat.v1.metrics.recall_at_k (and its _at_top_k and precision twins): the graph,
    the names of its initializer and update/value ops, and the values after each update."""
    g = tf.Graph()
    rng = np.random.RandomState(91)
    batches = [(rng.randint(0, 6, [5, 2]), rng.uniform(-1, 1, [5, 6])) for _ in range(3)]
    with g.as_default():
        labels = tf.placeholder(tf.int64, [None, 2], name="labels")
        preds = tf.placeholder(tf.float32, [None, 6], name="predictions")
        r, r_up = tf.metrics.recall_at_k(labels, preds, 3)
        p, p_up = tf.metrics.precision_at_k(labels, preds, 2)
        init = tf.group(tf.local_variables_initializer(), tf.global_variables_initializer(), name="init")
        gd = g.as_graph_def()
        runs = []
        with tf.Session() as s:
            s.run(init)
            for lab, pr in batches:
                up = s.run([r_up, p_up], {labels: lab, preds: pr})
                val = s.run([r, p])
                runs.append({"labels": lab.reshape(-1).tolist(), "predictions": pr.reshape(-1).tolist(),
                             "updates": [float(x) for x in up], "values": [float(x) for x in val]})
    tf.io.write_graph(gd, nn4.OUT, "recall.pbtxt", as_text=True)
    out = {"init": init.name, "labels": labels.name, "predictions": preds.name, "update": [r_up.name, p_up.name],
           "value": [r.name, p.name], "runs": runs}
    with open(os.path.join(nn4.OUT, "recall.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote recall", len(runs), "runs")


def strings_signs(outs, errs):
    """Sign on every dtype TensorFlow's CPU kernel has but complex (int8 and int16 among
    them, with their extremes), Abs and Neg on int8/int16; Substr with pos/len scalar,
    elementwise and broadcast against the input (rank 1 and 2), in bytes and UTF-8
    characters, negative pos and len; and Substr's errors."""
    for dt in [tf.int8, tf.int16, tf.int32, tf.int64, tf.float16, tf.bfloat16, tf.float32, tf.float64]:
        n = dt.name
        v = [dt.min, -3, -1, 0, 1, 2, dt.max] if dt.is_integer else [-2.5, -0.0, 0.0, 1e-3, 3.0]
        outs[f"sign_{n}"] = tf.math.sign(dyn(v, dt))
        if dt.is_integer:
            outs[f"abs_{n}"] = tf.math.abs(dyn(v, dt))
            outs[f"neg_{n}"] = tf.math.negative(dyn(v, dt))
    m = [["abcd", "efgh", "ij"], ["klmn", "op", "qrstu"]]
    for unit in ["BYTE", "UTF8_CHAR"]:
        u = unit.lower()
        # bytes of a multi-byte character are no UTF-8 text for the json: ASCII in bytes
        words = ["héllo", "wörld!", "ab", ""] if unit == "UTF8_CHAR" else ["hello", "world!", "ab", ""]
        for k, (p, ln) in {"p1": (1, 2), "neg_len": (1, -1), "neg_pos": (-2, 1), "end": (0, 9)}.items():
            outs[f"substr_{u}_{k}"] = tf.strings.substr(dyn(words[:3]), p, ln, unit=unit)
        outs[f"substr_{u}_elem"] = tf.strings.substr(dyn(words), dyn([0, 2, -1, 0]), dyn([3, 9, 1, 1]), unit=unit)
        outs[f"substr_{u}_row"] = tf.strings.substr(dyn(m), dyn([0, 1, 2]), dyn([2, 2, 1]), unit=unit)
        outs[f"substr_{u}_col"] = tf.strings.substr(dyn(m), dyn([[1], [2]]), dyn([[2], [1]]), unit=unit)
        outs[f"substr_{u}_scalar_input"] = tf.strings.substr(dyn(words[0]), dyn([0, 1, 2]), dyn([1, 2, 3]), unit=unit)
        outs[f"substr_{u}_outer"] = tf.strings.substr(dyn(["abc", words[0]]), dyn([[0], [1]]), dyn([[1], [1]]), unit=unit)
        outs[f"substr_{u}_i64"] = tf.strings.substr(dyn(m), dyn([0, 1, 2], tf.int64), dyn([9, 1, -1], tf.int64),
                                                    unit=unit)
        errs[f"substr_{u}_range"] = tf.strings.substr(dyn(words), 4, 1, unit=unit)
        errs[f"substr_{u}_range_neg"] = tf.strings.substr(dyn(words), -3, 5, unit=unit)
        errs[f"substr_{u}_range_2d"] = tf.strings.substr(dyn(m), dyn([0, 3, 2]), dyn([2, 2, 1]), unit=unit)
        errs[f"substr_{u}_range_1d"] = tf.strings.substr(dyn("ab"), dyn([0, 3]), dyn([2, 2]), unit=unit)
    outs["substr_byte_split_len"] = tf.strings.length(tf.strings.substr(dyn(["héllo", "wörld!"]), dyn([1, 2]), dyn([2, 2])))
    errs["substr_utf8_neg_len"] = tf.strings.substr(dyn(["héllo"]), -2, -1, unit="UTF8_CHAR")
    errs["substr_incompatible"] = tf.strings.substr(dyn(m), dyn([0, 1]), dyn([2, 2]))
    errs["substr_rank3"] = tf.strings.substr(dyn([[["a"]]]), dyn([0, 0]), dyn([1, 1]))
    errs["substr_pos_len"] = tf.raw_ops.Substr(input=dyn(m), pos=dyn([0, 1, 2]), len=dyn(1))


def strings_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "substr_pos_len": lambda: tf.raw_ops.Substr(input=c(["a", "b"]), pos=c([0, 1]), len=c([1, 1, 1])),
        "substr_bcast": lambda: tf.raw_ops.Substr(input=c(["a", "b"]), pos=c([0, 1, 1]), len=c([1, 1, 1])),
        "substr_rank": lambda: tf.raw_ops.Substr(input=c(["a", "b"]), pos=c([0, 1]), len=c(1)),
    })


def ctc(outs, errs):
    """CTCBeamSearchDecoder on random logits (float32 and float64; beam widths 1, 3 and 8,
    top_paths 1 to 3, merge_repeated both ways, shorter sequences, few classes) and its
    kernel's errors."""
    rng = np.random.RandomState(93)
    logits = rng.uniform(-2, 2, [7, 3, 5])
    peaked = rng.uniform(-1, 1, [6, 2, 3]) * 3.0
    for dt in [tf.float32, tf.float64]:
        n = dt.name
        for w, top, merge in [(1, 1, True), (3, 1, True), (3, 2, False), (3, 3, True), (8, 3, False), (8, 2, True)]:
            for k, (x, sl) in {"a": (logits, [7, 4, 6]), "b": (peaked, [6, 5])}.items():
                r = tf.raw_ops.CTCBeamSearchDecoder(inputs=dyn(x, dt), sequence_length=dyn(sl, tf.int32),
                                                    beam_width=w, top_paths=top, merge_repeated=merge)
                for p in range(top):
                    outs[f"beam_{k}_w{w}_t{top}_m{merge:d}_{n}_p{p}_indices"] = r.decoded_indices[p]
                    outs[f"beam_{k}_w{w}_t{top}_m{merge:d}_{n}_p{p}_values"] = r.decoded_values[p]
                    outs[f"beam_{k}_w{w}_t{top}_m{merge:d}_{n}_p{p}_shape"] = r.decoded_shape[p]
                outs[f"beam_{k}_w{w}_t{top}_m{merge:d}_{n}_logp"] = r.log_probability
    f = lambda x, sl, **k: tf.raw_ops.CTCBeamSearchDecoder(  # noqa: E731
        inputs=dyn(x, tf.float32), sequence_length=dyn(sl, tf.int32), **k).log_probability
    errs["beam_top_width"] = f(logits, [7, 4, 6], beam_width=2, top_paths=3)
    errs["beam_leaves"] = f(logits, [7, 0, 6], beam_width=3, top_paths=2)
    errs["beam_rank"] = f(logits[0], [7, 4, 6], beam_width=3, top_paths=1)
    errs["beam_long"] = f(logits, [8, 4, 6], beam_width=3, top_paths=1)
    errs["beam_batch"] = f(logits, [7, 4], beam_width=3, top_paths=1)
    errs["beam_time"] = f(np.zeros([0, 3, 5]), [0, 0, 0], beam_width=3, top_paths=1)


def complex_ops(outs, errs):
    """Complex (broadcast), Real, Imag, ComplexAbs, Angle, Conj on complex64 and
    complex128; complex MatMul (transposes, adjoints) and BatchMatMulV2 (adjoints, a
    broadcast batch), read back through Real and Imag (the json holds no complex numbers);
    TensorFlow's gradients of Complex, Real, Imag, Conj and both products."""
    del errs
    rng = np.random.RandomState(94)
    u = lambda shape: rng.uniform(-1, 1, shape)  # noqa: E731
    for dt, ct in [(tf.float32, tf.complex64), (tf.float64, tf.complex128)]:
        n = ct.name
        cz = lambda shape: tf.complex(dyn(u(shape), dt), dyn(u(shape), dt))  # noqa: E731

        def parts(key, z):
            outs[f"{key}_re_{n}"], outs[f"{key}_im_{n}"] = tf.math.real(z), tf.math.imag(z)

        z = tf.complex(dyn(u([2, 3]), dt), dyn(u([3]), dt))
        parts("complex", z)
        outs[f"abs_{n}"] = tf.abs(z)
        outs[f"angle_{n}"] = tf.math.angle(z)
        parts("conj", tf.math.conj(z))
        outs[f"angle_axes_{n}"] = tf.math.angle(tf.complex(tf.constant([0.0, -1.0, 0.0, -0.0, 1.0], dt),
                                                         tf.constant([0.0, 0.0, -1.0, 0.0, 0.0], dt)))
        x2, y2 = cz([3, 4]), cz([4, 2])
        parts("mm", tf.matmul(x2, y2))
        parts("mm_ta", tf.matmul(cz([4, 3]), y2, transpose_a=True))
        parts("mm_tb", tf.matmul(x2, cz([2, 4]), transpose_b=True))
        parts("mm_adj", tf.matmul(cz([4, 3]), cz([2, 4]), adjoint_a=True, adjoint_b=True))
        x3 = cz([2, 3, 4])
        parts("bmm", tf.linalg.matmul(x3, cz([2, 4, 2])))
        parts("bmm_adj", tf.linalg.matmul(cz([2, 4, 3]), cz([2, 2, 4]), adjoint_a=True, adjoint_b=True))
        parts("bmm_bcast", tf.linalg.matmul(x3, cz([1, 4, 2])))
        # gradients (static shapes: TensorFlow's product gradients then need no complex Sum)
        st = lambda shape: tf.placeholder_with_default(tf.constant(u(shape), dt), shape)  # noqa: E731
        a, b = st([2, 3]), st([3])
        zc = tf.complex(a, b)
        loss = tf.reduce_sum(tf.math.real(zc) * u([2, 3])) + tf.reduce_sum(tf.math.imag(tf.math.conj(zc)) * u([2, 3]))
        outs[f"grad_complex_a_{n}"], outs[f"grad_complex_b_{n}"] = tf.gradients(loss, [a, b])
        for k, (sa, sb, kw) in {"mm": ([3, 4], [4, 2], {}), "mm_adj": ([4, 3], [2, 4], dict(adjoint_a=True,
                                                                                              adjoint_b=True)),
                                "mm_ta": ([4, 3], [4, 2], dict(transpose_a=True)),
                                "bmm": ([2, 3, 4], [2, 4, 2], {}),
                                "bmm_adj": ([2, 4, 3], [2, 2, 4], dict(adjoint_a=True, adjoint_b=True))}.items():
            ins = [st(sa), st(sa), st(sb), st(sb)]
            p = tf.linalg.matmul(tf.complex(ins[0], ins[1]), tf.complex(ins[2], ins[3]), **kw)
            shape = p.shape.as_list()
            loss = tf.reduce_sum(tf.math.real(p) * u(shape)) + tf.reduce_sum(tf.math.imag(p) * u(shape))
            for i, gi in enumerate(tf.gradients(loss, ins)):
                outs[f"grad_{k}_{i}_{n}"] = gi


def main():
    nn4.write("sets", sets, sets_build_errors)
    recall()
    nn4.write("strings", strings_signs, strings_build_errors)
    nn4.write("ctc", ctc, dict)
    nn4.write("complex", complex_ops, dict)


if __name__ == "__main__":
    main()
