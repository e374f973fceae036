#!/usr/bin/env python3
"""TensorFlow 2.21's graphs and numbers for tests/ops_nn7.rs: the sampling ops
(Multinomial, RandomShuffle, LogUniformCandidateSampler, UniformCandidateSampler) with
fixed seeds, the graphs tf.nn.sampled_softmax_loss and tf.nn.nce_loss build from them;
CTCLoss and CTCGreedyDecoder; CumulativeLogsumexp, TensorScatterMax/Min, Cross and
Bitcast; TensorFlow's gradients of them, and the errors their kernels and shape functions
give.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nn7.py

writes tests/data/ops_nn7/<name>.pbtxt (the graph TensorFlow built) and <name>.json
(`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes them). Every
output of one graph is fetched in one run (a stateful random op runs once per run), so
the test fetches them together too. Built in graph mode (tf.compat.v1) and run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "ops_nn7")


def dyn(v, dtype=tf.float32):
    return tf.placeholder_with_default(tf.constant(v, dtype), None)


def sampling(outs, errs):
    """Multinomial (every CPU dtype, int32/int64 outputs, -inf logits), RandomShuffle
    (vectors, matrices, one row, a scalar), the two candidate samplers (unique or not)."""
    rng = np.random.RandomState(21)
    logits = rng.uniform(-2, 2, [3, 5])
    for i, dt in enumerate([tf.float32, tf.float64, tf.float16, tf.bfloat16]):
        outs[f"multinomial_{dt.name}"] = tf.random.categorical(dyn(logits, dt), 7, seed=11 + i)
    outs["multinomial_int32"] = tf.random.categorical(dyn(logits), 9, dtype=tf.int32, seed=5)
    outs["multinomial_neg_inf"] = tf.random.categorical(dyn([[0.0, -np.inf, 1.0, -np.inf], [-np.inf, 2.0, 2.0, 0.0]]),
                                                        6, seed=6)
    outs["multinomial_graph_seed_big"] = tf.raw_ops.Multinomial(logits=dyn(rng.uniform(-1, 1, [2, 40])),
                                                                num_samples=13, seed=-3, seed2=77)
    outs["multinomial_zero_samples"] = tf.random.categorical(dyn(logits), 0, seed=3)
    errs["multinomial_rank"] = tf.raw_ops.Multinomial(logits=dyn([1.0, 2.0]), num_samples=3, seed=1, seed2=1)
    errs["multinomial_negative"] = tf.raw_ops.Multinomial(logits=dyn([[1.0, 2.0]]), num_samples=dyn(-1, tf.int32),
                                                          seed=1, seed2=1)
    errs["multinomial_no_classes"] = tf.raw_ops.Multinomial(logits=dyn(np.zeros([2, 0])), num_samples=2, seed=1,
                                                            seed2=1)
    for i, (name, v, dt) in enumerate([("vec", np.arange(10), tf.int32), ("mat", rng.uniform(-1, 1, [6, 3]), tf.float32),
                                       ("f64_3d", rng.uniform(-1, 1, [5, 2, 2]), tf.float64),
                                       ("long", np.arange(40), tf.int64), ("one_row", [[1.0, 2.0, 3.0]], tf.float32),
                                       ("scalar", 4.0, tf.float32), ("bool", [True, False, False, True, True], tf.bool),
                                       ("uint8", np.arange(7), tf.uint8)]):
        outs[f"shuffle_{name}"] = tf.random.shuffle(dyn(v, dt), seed=31 + i)
    outs["shuffle_strings_len"] = tf.strings.length(tf.random.shuffle(dyn(["a", "bb", "ccc", "dddd"], tf.string),
                                                                      seed=40))
    true_classes = dyn([[0, 3], [7, 1], [2, 2]], tf.int64)
    for i, (unique, rmax, n) in enumerate([(True, 20, 8), (False, 20, 8), (True, 10, 10), (True, 1000, 30),
                                           (False, 3, 12)]):
        tc = true_classes if rmax > 7 else dyn([[0, 1], [2, 1], [2, 2]], tf.int64)
        for kind, f in [("log", tf.random.log_uniform_candidate_sampler),
                        ("uniform", tf.random.uniform_candidate_sampler)]:
            s, t, e = f(tc, 2, n, unique, rmax, seed=50 + i)
            key = f"{kind}_{'u' if unique else 'r'}{rmax}_{n}"
            outs[f"{key}_sampled"], outs[f"{key}_true_count"], outs[f"{key}_sampled_count"] = s, t, e
    errs["sampler_range_small"] = tf.random.uniform_candidate_sampler(true_classes, 2, 21, True, 20, seed=1)[0]
    errs["log_sampler_range_small"] = tf.random.log_uniform_candidate_sampler(true_classes, 2, 21, True, 20, seed=1)[0]
    errs["sampler_true_range"] = tf.random.uniform_candidate_sampler(dyn([[0, 30]], tf.int64), 2, 5, True, 20,
                                                                     seed=1)[0]
    errs["sampler_num_true"] = tf.raw_ops.UniformCandidateSampler(true_classes=dyn([[0, 1, 2]], tf.int64), num_true=2,
                                                                  num_sampled=3, unique=False, range_max=9,
                                                                  seed=1, seed2=2)[0]


def losses(outs, errs):
    """tf.nn.sampled_softmax_loss and tf.nn.nce_loss with remove_accidental_hits and fixed
    seeds (log-uniform sampler), their gradients with respect to weights, biases, inputs."""
    tf.set_random_seed(2024)  # the graph seed: nce_loss takes no op seed
    rng = np.random.RandomState(22)
    num_classes, dim, batch = 12, 4, 5
    w = dyn(rng.uniform(-1, 1, [num_classes, dim]))
    b = dyn(rng.uniform(-0.5, 0.5, [num_classes]))
    x = dyn(rng.uniform(-1, 1, [batch, dim]))
    labels = tf.constant([[1, 2], [0, 3], [5, 5], [11, 2], [7, 0]], tf.int64)
    ssl = tf.nn.sampled_softmax_loss(w, b, labels, x, num_sampled=6, num_classes=num_classes, num_true=2,
                                     remove_accidental_hits=True, seed=7)
    nce = tf.nn.nce_loss(w, b, labels, x, num_sampled=6, num_classes=num_classes, num_true=2,
                         remove_accidental_hits=True)
    outs["sampled_softmax_loss"], outs["nce_loss"] = ssl, nce
    for name, loss in [("ssl", ssl), ("nce", nce)]:
        gw, gb, gx = tf.gradients(tf.reduce_sum(loss), [w, b, x])
        outs[f"{name}_grad_w"] = tf.convert_to_tensor(gw)
        outs[f"{name}_grad_b"] = tf.convert_to_tensor(gb)
        outs[f"{name}_grad_x"] = gx


def ctc(outs, errs):
    """CTCLoss (every flag combination, float32 and float64, a blank label dropped, a
    sequence too short to be ignored) with TensorFlow's gradient of tf.compat.v1.nn.ctc_loss;
    CTCGreedyDecoder (merge_repeated, blank_index, sequence lengths); their errors."""
    rng = np.random.RandomState(23)
    t, b, c = 6, 3, 5
    logits = rng.uniform(-2, 2, [t, b, c])
    labels = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3], [2, 0]],
                             [1, 1, 2, 3, 0, 0, 2, 1], [3, 4])
    seq = [6, 5, 2]
    for dt in [tf.float32, tf.float64]:
        x = dyn(logits, dt)
        for pre in [False, True]:
            for merge in [False, True]:
                key = f"{'pre' if pre else 'nopre'}_{'merge' if merge else 'nomerge'}_{dt.name}"
                loss = tf.nn.ctc_loss(labels, x, seq, preprocess_collapse_repeated=pre, ctc_merge_repeated=merge)
                outs[f"ctc_loss_{key}"] = loss
                w = tf.constant(rng.uniform(0.5, 1.5, [b]), dt)
                outs[f"ctc_grad_{key}"] = tf.gradients(loss * w, x)[0]
    # time-major false, a label of the blank class (num_classes - 1) at the end is dropped
    xb = dyn(np.transpose(logits, [1, 0, 2]))
    blank_end = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], [2, 4, 3, 0, 4], [3, 2])
    outs["ctc_loss_batch_major_blank"] = tf.nn.ctc_loss(blank_end, xb, [4, 6, 3], time_major=False)
    # a label longer than its sequence: ignored (zero loss and gradient) with the flag
    long_labels = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0]], [1, 2, 3, 0, 1], [3, 3])
    x = dyn(logits)
    ign = tf.nn.ctc_loss(long_labels, x, [2, 4, 6], ignore_longer_outputs_than_inputs=True)
    outs["ctc_loss_ignored"] = ign
    outs["ctc_grad_ignored"] = tf.gradients(ign, x)[0]
    errs["ctc_too_long"] = tf.nn.ctc_loss(long_labels, x, [2, 4, 6])
    errs["ctc_seq_len"] = tf.nn.ctc_loss(labels, x, dyn([6, 7, 2], tf.int32))
    errs["ctc_no_label"] = tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [2, 0]], [1, 2], [3, 1]), x, seq)
    errs["ctc_rank"] = tf.raw_ops.CTCLoss(inputs=dyn(np.ones([2, 3])), labels_indices=dyn([[0, 0]], tf.int64),
                                          labels_values=dyn([1], tf.int32), sequence_length=dyn([1], tf.int32))[0]
    errs["ctc_batch"] = tf.raw_ops.CTCLoss(inputs=x, labels_indices=labels.indices, labels_values=tf.cast(labels.values, tf.int32),
                                           sequence_length=dyn([6, 5], tf.int32))[0]
    # greedy decoder
    for dt in [tf.float32, tf.float64]:
        x = dyn(np.round(logits, 1), dt)
        for merge in [False, True]:
            for blank in [-1, 0, 2]:
                key = f"{'merge' if merge else 'nomerge'}_{blank}_{dt.name}".replace("-", "m")
                r = tf.raw_ops.CTCGreedyDecoder(inputs=x, sequence_length=dyn([6, 4, 0], tf.int32),
                                                merge_repeated=merge, blank_index=blank)
                for i, name in enumerate(["indices", "values", "shape", "log_prob"]):
                    outs[f"greedy_{key}_{name}"] = r[i]
    ties = dyn([[[1.0, 1.0, 0.0]], [[0.0, 2.0, 2.0]], [[0.0, 2.0, 2.0]]])
    r = tf.nn.ctc_greedy_decoder(ties, [3])
    outs["greedy_ties_values"], outs["greedy_ties_log_prob"] = r[0][0].values, r[1]
    errs["greedy_blank"] = tf.raw_ops.CTCGreedyDecoder(inputs=x, sequence_length=dyn([6, 4, 0], tf.int32),
                                                       blank_index=5)[1]
    errs["greedy_seq"] = tf.raw_ops.CTCGreedyDecoder(inputs=x, sequence_length=dyn([6, 7, 0], tf.int32))[1]


def ctc_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "ctc_rank": lambda: tf.raw_ops.CTCLoss(inputs=c(np.ones([2, 3], np.float32)), labels_indices=c([[0, 0]], tf.int64),
                                               labels_values=c([1]), sequence_length=c([1])),
        "ctc_batch": lambda: tf.raw_ops.CTCLoss(inputs=c(np.ones([2, 3, 4], np.float32)),
                                                labels_indices=c([[0, 0]], tf.int64), labels_values=c([1]),
                                                sequence_length=c([1, 1])),
        "greedy_rank": lambda: tf.raw_ops.CTCGreedyDecoder(inputs=c(np.ones([2, 3], np.float32)), sequence_length=c([1])),
    })


def math(outs, errs):
    """CumulativeLogsumexp (exclusive, reverse, axes, -inf), TensorScatterMax/Min (every
    dtype tested, repeats, ties), Cross (real dtypes, batches), Bitcast (equal, wider and
    narrower element sizes), TensorFlow's gradients of the first three, and errors."""
    rng = np.random.RandomState(24)
    for dt in [tf.float32, tf.float64, tf.float16]:
        x = dyn(rng.uniform(-3, 3, [2, 3, 4]), dt)
        for axis in [0, 1, -1]:
            for ex in [False, True]:
                for rev in [False, True]:
                    key = f"cumlse_{axis}_{int(ex)}{int(rev)}_{dt.name}".replace("-", "m")
                    # exclusive: the first is -inf, which the json cannot hold; exp of it is 0
                    y = tf.math.cumulative_logsumexp(x, axis, exclusive=ex, reverse=rev)
                    outs[key] = tf.exp(y) if ex else y
    # -inf kept while only -inf is seen (exp: the json has no infinities)
    outs["cumlse_neg_inf_exp"] = tf.exp(tf.math.cumulative_logsumexp(dyn([-np.inf, -np.inf, 1.0, -np.inf, 2.0]), 0))
    outs["cumlse_exclusive_exp"] = tf.exp(tf.math.cumulative_logsumexp(dyn([0.5, -1.0, 2.0]), 0, exclusive=True))
    outs["cumlse_i64_axis"] = tf.math.cumulative_logsumexp(dyn([[1.0, 2.0], [3.0, 4.0]]), tf.constant(1, tf.int64))
    x64 = dyn(rng.uniform(-2, 2, [3, 4]), tf.float64)
    w = tf.constant(rng.uniform(-1, 1, [3, 4]))
    for ex in [False, True]:
        for rev in [False, True]:
            outs[f"cumlse_grad_{int(ex)}{int(rev)}"] = tf.gradients(
                tf.reduce_sum(tf.math.cumulative_logsumexp(x64, 1, exclusive=ex, reverse=rev) * w), x64)[0]
    errs["cumlse_axis"] = tf.math.cumulative_logsumexp(dyn([1.0, 2.0]), dyn(1, tf.int32))
    # TensorScatterMax / Min
    fs = {"max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min}
    for dt in [tf.float32, tf.float64, tf.int32, tf.int64, tf.float16]:
        t = dyn(rng.uniform(-5, 5, [4, 3]) if dt.is_floating else rng.randint(-9, 9, [4, 3]), dt)
        for name, f in fs.items():
            outs[f"s{name}_rows_{dt.name}"] = f(t, [[1], [3]], tf.constant([[9, -9, 0], [8, -7, 6]], dt))
            outs[f"s{name}_repeat_{dt.name}"] = f(t, tf.constant([[1, 2], [1, 2], [0, 0]], tf.int64),
                                                  tf.constant([5, -4, 2], dt))
    xs = dyn(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.5, 0.0, -1.0]]), tf.float64)
    us = dyn(np.array([[3.0, 2.0, 1.0], [4.0, 9.0, -2.0]]), tf.float64)
    ws = tf.constant(rng.uniform(-1, 1, [3, 3]))
    for name, f in fs.items():
        gx, gu = tf.gradients(tf.reduce_sum(f(xs, [[0], [1]], us) * ws), [xs, us])
        outs[f"s{name}_grad_tensor"], outs[f"s{name}_grad_updates"] = gx, gu
        gx, gu = tf.gradients(tf.reduce_sum(f(xs, [[0], [0]], us) * ws), [xs, us])
        outs[f"s{name}_grad_repeat_tensor"], outs[f"s{name}_grad_repeat_updates"] = gx, gu
    errs["smax_range"] = tf.tensor_scatter_nd_max(dyn(np.ones([4, 3])), dyn([[5]], tf.int32), dyn([[1.0, 1, 1]]))
    # Cross
    for dt in [tf.float32, tf.float64, tf.int32, tf.int64, tf.float16, tf.uint8, tf.int8]:
        a = rng.uniform(-3, 3, [2, 2, 3]) if dt.is_floating else rng.randint(0 if dt.is_unsigned else -9, 9, [2, 2, 3])
        b = rng.uniform(-3, 3, [2, 2, 3]) if dt.is_floating else rng.randint(0 if dt.is_unsigned else -9, 9, [2, 2, 3])
        outs[f"cross_{dt.name}"] = tf.linalg.cross(dyn(a, dt), dyn(b, dt))
    ca = dyn(rng.uniform(-2, 2, [4, 3]), tf.float64)
    cb = dyn(rng.uniform(-2, 2, [4, 3]), tf.float64)
    ga, gb = tf.gradients(tf.reduce_sum(tf.linalg.cross(ca, cb) * tf.constant(rng.uniform(-1, 1, [4, 3]))), [ca, cb])
    outs["cross_grad_a"], outs["cross_grad_b"] = ga, gb
    errs["cross_shape"] = tf.linalg.cross(dyn(np.ones([2, 3])), dyn(np.ones([1, 3])))
    errs["cross_dim"] = tf.linalg.cross(dyn(np.ones([2, 4])), dyn(np.ones([2, 4])))
    # Bitcast
    f = dyn(np.array([1.0, -2.5, 3.25e10, 0.0], np.float32))
    outs["bitcast_f32_i32"] = tf.bitcast(f, tf.int32)
    outs["bitcast_f32_u32"] = tf.bitcast(f, tf.uint32)
    outs["bitcast_f32_u8"] = tf.bitcast(f, tf.uint8)
    outs["bitcast_f32_i16"] = tf.bitcast(f, tf.int16)
    outs["bitcast_f32_f16"] = tf.bitcast(f, tf.float16)
    outs["bitcast_f32_bf16_f32"] = tf.bitcast(tf.bitcast(f, tf.bfloat16), tf.float32)
    outs["bitcast_f64_i64"] = tf.bitcast(dyn([1.0, -0.1], tf.float64), tf.int64)
    outs["bitcast_f64_u64"] = tf.bitcast(dyn([1.0, -0.1], tf.float64), tf.uint64)
    outs["bitcast_f64_f32"] = tf.bitcast(dyn([1.0, -0.1], tf.float64), tf.float32)
    outs["bitcast_u8_f32"] = tf.bitcast(dyn(np.arange(8, dtype=np.uint8).reshape(2, 4) * 20, tf.uint8), tf.float32)
    outs["bitcast_i8_i16"] = tf.bitcast(dyn([[1, -1], [127, -128], [0, 5]], tf.int8), tf.int16)
    outs["bitcast_i32_f32"] = tf.bitcast(dyn([1065353216, -1082130432], tf.int32), tf.float32)
    outs["bitcast_u16_i8"] = tf.bitcast(dyn([[1, 65535], [256, 3]], tf.uint16), tf.int8)
    outs["bitcast_i16_f16"] = tf.bitcast(dyn([15360, -16384], tf.int16), tf.float16)
    outs["bitcast_i64_f64_2d"] = tf.bitcast(dyn([[4607182418800017408], [-4611686018427387904]], tf.int64), tf.float64)
    outs["bitcast_u32_u8_3d"] = tf.bitcast(dyn(np.array([[1, 2], [3, 0xFFFFFFFF]], np.uint32), tf.uint32), tf.uint8)
    outs["bitcast_scalar"] = tf.bitcast(dyn(1.5), tf.int32)
    errs["bitcast_last_dim"] = tf.bitcast(dyn(np.ones([2, 3], np.uint8), tf.uint8), tf.float32)
    errs["bitcast_scalar_wide"] = tf.bitcast(dyn(3, tf.uint8), tf.int16)


def math_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "cross_dim": lambda: tf.linalg.cross(c(np.ones([2, 4], np.float32)), c(np.ones([2, 4], np.float32))),
        "cross_shape": lambda: tf.linalg.cross(c(np.ones([2, 3], np.float32)), c(np.ones([1, 3], np.float32))),
        "bitcast_last_dim": lambda: tf.bitcast(c(np.ones([2, 3], np.uint8)), tf.float32),
        "bitcast_scalar_wide": lambda: tf.bitcast(c(3, tf.uint8), tf.int16),
        "cumlse_axis": lambda: tf.math.cumulative_logsumexp(c([1.0, 2.0]), 1),
        "cumlse_int": lambda: tf.math.cumulative_logsumexp(c([1, 2]), 0),
        "bitcast_bool": lambda: tf.bitcast(c([True]), tf.uint8),
    })


def sampling_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "multinomial_rank": lambda: tf.raw_ops.Multinomial(logits=c([1.0, 2.0]), num_samples=3),
        "multinomial_samples_rank": lambda: tf.raw_ops.Multinomial(logits=c([[1.0, 2.0]]), num_samples=[3]),
        "sampler_rank": lambda: tf.random.uniform_candidate_sampler(c([1, 2], tf.int64), 1, 3, True, 5),
    })


def main():
    nn4.write("sampling", sampling, sampling_build_errors)
    nn4.write("losses", losses, dict)
    nn4.write("ctc", ctc, ctc_build_errors)
    nn4.write("math", math, math_build_errors)


if __name__ == "__main__":
    main()
