#!/usr/bin/env python3
"""TensorFlow 2.21's graph and numbers for tests/ops_nn8.rs: the linear algebra ops
Cholesky, CholeskyGrad, MatrixTriangularSolve, MatrixSolve, LogMatrixDeterminant, Qr and Svd,
and SparseTensorDenseMatMul, with TensorFlow's own gradient subgraphs of them, and the
errors their kernels and shape functions give.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_ops_nn8.py

writes tests/data/ops_nn8/solve.pbtxt (the graph TensorFlow built) and solve.json
(`outputs`, `errors`, `build_errors`, as scripts/gen_ops_nn4.py writes them, with its
helpers) for the Cholesky and solve ops; the same pair decomp.pbtxt/.json for Qr,
svd.pbtxt/.json for Svd (sign-free outputs only: singular vectors are unique up to sign)
sparse.pbtxt/.json for SparseTensorDenseMatMul and patches.pbtxt/.json for
ExtractImagePatches' gradient. Built in graph mode (tf.compat.v1) and
run on CPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ops_nn4 as nn4  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

nn4.OUT = os.path.join(nn4.HERE, "..", "tests", "data", "ops_nn8")


def spd(rng, shape):
    """Symmetric positive-definite matrices shaped `shape` ([..., n, n])."""
    a = rng.uniform(-1, 1, shape)
    return np.matmul(a, np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def solve(outs, errs):
    """Cholesky, CholeskyGrad, MatrixTriangularSolve (lower/upper, adjoint, batch
    broadcasting), MatrixSolve (adjoint), LogMatrixDeterminant, float32 and float64, with
    TensorFlow's gradients; the kernels' errors."""
    rng = np.random.RandomState(8)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    a = spd(rng, [2, 3, 4, 4])
    tri = rng.uniform(-1, 1, [2, 3, 4, 4]) + 3.0 * np.eye(4)
    gen = rng.uniform(-1, 1, [2, 3, 4, 4]) + 2.0 * np.eye(4)
    rhs = rng.uniform(-1, 1, [2, 3, 4, 2])
    for dt in [tf.float32, tf.float64]:
        n = dt.name
        x = dyn(a, dt)
        outs[f"chol_{n}"] = tf.linalg.cholesky(x)
        outs[f"chol_empty_{n}"] = tf.linalg.cholesky(dyn(np.zeros([2, 0, 0]), dt))
        outs[f"chol_grad_op_{n}"] = tf.raw_ops.CholeskyGrad(l=tf.linalg.cholesky(x),
                                                            grad=dyn(rng.uniform(-1, 1, [2, 3, 4, 4]), dt))
        t, b = dyn(tri, dt), dyn(rhs, dt)
        for lower in [True, False]:
            for adj in [False, True]:
                outs[f"trsolve_{lower:d}{adj:d}_{n}"] = tf.linalg.triangular_solve(t, b, lower=lower, adjoint=adj)
        # batch broadcasting: [3, 1, 4, 4] against [2, 4, 3] and [4, 4] against [2, 3, 4, 1]
        outs[f"trsolve_bcast_{n}"] = tf.raw_ops.MatrixTriangularSolve(matrix=dyn(tri[0][:, None].reshape(3, 1, 4, 4), dt),
                                                                      rhs=dyn(rhs[0, :2, :, :].reshape(2, 4, 2)[:, :, :]
                                                                              [:, :, :], dt)[..., :2])
        outs[f"trsolve_bcast2_{n}"] = tf.raw_ops.MatrixTriangularSolve(matrix=dyn(tri[0, 0], dt),
                                                                       rhs=dyn(rhs[..., :1], dt), adjoint=True)
        g = dyn(gen, dt)
        outs[f"solve_{n}"] = tf.linalg.solve(g, b)
        outs[f"solve_adj_{n}"] = tf.linalg.solve(g, b, adjoint=True)
        sign, logdet = tf.linalg.slogdet(g)
        outs[f"slogdet_sign_{n}"], outs[f"slogdet_log_{n}"] = sign, logdet
        sign0, log0 = tf.linalg.slogdet(dyn(np.zeros([2, 2]), dt))
        outs[f"slogdet_zero_sign_{n}"] = sign0
        outs[f"slogdet_zero_log_{n}"] = tf.exp(log0)  # log |0| = -inf, which JSON cannot hold
        outs[f"slogdet_empty_{n}"] = tf.linalg.slogdet(dyn(np.zeros([3, 0, 0]), dt))[1]
        # gradients
        w = tf.constant(rng.uniform(-1, 1, [2, 3, 4, 4]), dt)
        outs[f"chol_grad_{n}"] = tf.gradients(tf.reduce_sum(tf.linalg.cholesky(x) * w), x)[0]
        w2 = tf.constant(rng.uniform(-1, 1, [2, 3, 4, 2]), dt)
        for lower in [True, False]:
            for adj in [False, True]:
                ga, gb = tf.gradients(tf.reduce_sum(tf.linalg.triangular_solve(t, b, lower=lower, adjoint=adj) * w2),
                                      [t, b])
                outs[f"trsolve_grad_a_{lower:d}{adj:d}_{n}"], outs[f"trsolve_grad_b_{lower:d}{adj:d}_{n}"] = ga, gb
        tb = dyn(tri[0, :1], dt)  # [1, 4, 4] against [2, 3, 4, 2]: summed over the broadcast
        ga, gb = tf.gradients(tf.reduce_sum(tf.linalg.triangular_solve(tb, b) * w2), [tb, b])
        outs[f"trsolve_grad_bcast_a_{n}"], outs[f"trsolve_grad_bcast_b_{n}"] = ga, gb
        for adj in [False, True]:
            ga, gb = tf.gradients(tf.reduce_sum(tf.linalg.solve(g, b, adjoint=adj) * w2), [g, b])
            outs[f"solve_grad_a_{adj:d}_{n}"], outs[f"solve_grad_b_{adj:d}_{n}"] = ga, gb
        outs[f"slogdet_grad_{n}"] = tf.gradients(tf.reduce_sum(logdet * tf.constant(rng.uniform(-1, 1, [2, 3]), dt)),
                                                 g)[0]
    m = dyn(np.ones([3, 4]))
    errs["chol_square"] = tf.raw_ops.Cholesky(input=m)
    # TensorFlow 2.21 no longer refuses a matrix that is not positive definite: it logs a
    # warning and fills the lower triangle with NaN (the strict upper triangle is left
    # uninitialized, hence the band part). A NaN on the diagonal passes Eigen's `x <= 0`.
    for k, v in {"nonpd": [[1.0, 2.0], [2.0, 1.0]], "semidef": [[4.0, 2.0], [2.0, 1.0]],
                 "neg": [[-1.0, 0.0], [0.0, 1.0]], "nan": [[1.0, 0.0], [0.0, np.nan]]}.items():
        outs[f"chol_{k}"] = tf.linalg.band_part(tf.linalg.cholesky(dyn(v)), -1, 0)
    errs["chol_rank"] = tf.raw_ops.Cholesky(input=dyn([1.0, 2.0]))
    errs["solve_singular"] = tf.raw_ops.MatrixSolve(matrix=dyn([[1.0, 2.0], [2.0, 4.0]]), rhs=dyn([[1.0], [1.0]]))
    errs["solve_square"] = tf.raw_ops.MatrixSolve(matrix=m, rhs=dyn(np.ones([3, 1])))
    errs["solve_rows"] = tf.raw_ops.MatrixSolve(matrix=dyn(np.eye(3)), rhs=dyn(np.ones([2, 1])))
    errs["solve_batch"] = tf.raw_ops.MatrixSolve(matrix=dyn(np.ones([2, 3, 3])), rhs=dyn(np.ones([3, 3, 1])))
    errs["trsolve_batch"] = tf.raw_ops.MatrixTriangularSolve(matrix=dyn(np.ones([2, 3, 3])),
                                                             rhs=dyn(np.ones([3, 3, 1])))
    errs["trsolve_square"] = tf.raw_ops.MatrixTriangularSolve(matrix=m, rhs=dyn(np.ones([3, 1])))
    errs["trsolve_rows"] = tf.raw_ops.MatrixTriangularSolve(matrix=dyn(np.eye(3)), rhs=dyn(np.ones([2, 1])))
    errs["slogdet_square"] = tf.raw_ops.LogMatrixDeterminant(input=m)[1]
    errs["cholgrad_square"] = tf.raw_ops.CholeskyGrad(l=m, grad=m)


def decomp(outs, errs):
    """Qr (deep, square and wide; full_matrices; float32, float64, float16) with
    TensorFlow's gradients (deep and square without full_matrices, wide), and its errors."""
    rng = np.random.RandomState(18)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    shapes = {"deep": [2, 4, 3], "square": [4, 4], "wide": [3, 5]}
    vals = {k: rng.uniform(-1, 1, v) for k, v in shapes.items()}
    for dt in [tf.float32, tf.float64, tf.float16]:
        n = dt.name
        for k, v in vals.items():
            for full in [False, True]:
                q, r = tf.linalg.qr(dyn(v, dt), full_matrices=full)
                outs[f"qr_{k}_{full:d}_q_{n}"], outs[f"qr_{k}_{full:d}_r_{n}"] = q, r
        if dt == tf.float16:
            continue
        outs[f"qr_empty_{n}"] = tf.linalg.qr(dyn(np.zeros([2, 0, 3]), dt))[1]
        for k, v in vals.items():
            # the gradient needs static shapes
            x = tf.placeholder_with_default(tf.constant(v, dt), v.shape)
            q, r = tf.linalg.qr(x)
            wq = tf.constant(rng.uniform(-1, 1, q.shape), dt)
            wr = tf.constant(rng.uniform(-1, 1, r.shape), dt)
            outs[f"qr_grad_{k}_{n}"] = tf.gradients(tf.reduce_sum(q * wq) + tf.reduce_sum(r * wr), x)[0]
    errs["qr_rank"] = tf.raw_ops.Qr(input=dyn([1.0, 2.0]))[0]


def svd(outs, errs):
    """Svd (deep, square and wide; compute_uv, full_matrices; float32 and float64): the
    singular values, the sign-free parts of the singular vectors (their squares, and
    U·diag(s)·V^H), TensorFlow's gradients of sign-free losses (compute_uv true and false);
    and its errors. The columns of U and V are unique only up to sign, so tests/ops_nn8.rs
    checks their orthonormality itself."""
    rng = np.random.RandomState(19)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    shapes = {"deep": [2, 4, 3], "square": [3, 3], "wide": [3, 5]}
    vals = {k: rng.uniform(-1, 1, v) for k, v in shapes.items()}
    for dt in [tf.float32, tf.float64]:
        n = dt.name
        for k, v in vals.items():
            x = dyn(v, dt)
            outs[f"svd_{k}_s_only_{n}"] = tf.linalg.svd(x, compute_uv=False)
            for full in [False, True]:
                s, u, w = tf.linalg.svd(x, full_matrices=full)
                outs[f"svd_{k}_{full:d}_s_{n}"] = s
                p = min(v.shape[-2:])
                outs[f"svd_{k}_{full:d}_usv_{n}"] = tf.matmul(u[..., :, :p] * s[..., None, :], w[..., :, :p],
                                                               adjoint_b=True)
                outs[f"svd_{k}_{full:d}_u2_{n}"] = tf.square(u[..., :, :p])
                outs[f"svd_{k}_{full:d}_v2_{n}"] = tf.square(w[..., :, :p])
            xs = tf.placeholder_with_default(tf.constant(v, dt), v.shape)
            s, u, w = tf.linalg.svd(xs)
            loss = (tf.reduce_sum(s * tf.constant(rng.uniform(-1, 1, s.shape), dt)) +
                    tf.reduce_sum(tf.square(u) * tf.constant(rng.uniform(-1, 1, u.shape), dt)) +
                    tf.reduce_sum(tf.square(w) * tf.constant(rng.uniform(-1, 1, w.shape), dt)))
            outs[f"svd_grad_{k}_{n}"] = tf.gradients(loss, xs)[0]
            s0 = tf.linalg.svd(xs, compute_uv=False)
            outs[f"svd_grad_s_only_{k}_{n}"] = tf.gradients(tf.reduce_sum(s0 * tf.constant(rng.uniform(-1, 1, s0.shape),
                                                                                             dt)), xs)[0]
    errs["svd_rank"] = tf.raw_ops.Svd(input=dyn([1.0, 2.0]))[0]


def sparse(outs, errs):
    """SparseTensorDenseMatMul (adjoint_a, adjoint_b; int32 and int64 indices, unsorted and
    repeated indices; float32, float64, int32, float16: TensorFlow has no int64 kernel, and its
    bfloat16 one rounds in steps that this one, accumulating wide, does not) with TensorFlow's gradient,
    and its kernel's errors."""
    rng = np.random.RandomState(20)
    dyn = lambda v, dtype=tf.float32: tf.placeholder_with_default(tf.constant(v, dtype), None)  # noqa: E731
    idx = [[0, 1], [2, 3], [1, 0], [2, 0], [0, 1]]  # unsorted, one repeated
    for dt in [tf.float32, tf.float64, tf.int32, tf.float16]:
        n = dt.name
        vals = rng.uniform(-2, 2, [5]) if dt.is_floating else rng.randint(-5, 5, [5])
        bv = rng.uniform(-2, 2, [4, 2]) if dt.is_floating else rng.randint(-5, 5, [4, 2])
        for adj_a in [False, True]:
            for adj_b in [False, True]:
                a_shape = [4, 3] if adj_a else [3, 4]
                ii = [[c, r] for r, c in idx] if adj_a else idx
                b = bv.T if adj_b else bv
                outs[f"spmm_{adj_a:d}{adj_b:d}_{n}"] = tf.raw_ops.SparseTensorDenseMatMul(
                    a_indices=dyn(ii, tf.int64), a_values=dyn(vals, dt), a_shape=dyn(a_shape, tf.int64),
                    b=dyn(b, dt), adjoint_a=adj_a, adjoint_b=adj_b)
        outs[f"spmm_i32_{n}"] = tf.raw_ops.SparseTensorDenseMatMul(
            a_indices=dyn(idx, tf.int32), a_values=dyn(vals, dt), a_shape=[3, 4], b=dyn(bv, dt))
    for dt in [tf.float32, tf.float64]:
        n = dt.name
        v = dyn(rng.uniform(-2, 2, [5]), dt)
        for adj_a in [False, True]:
            for adj_b in [False, True]:
                a_shape = [4, 3] if adj_a else [3, 4]
                ii = [[c, r] for r, c in idx] if adj_a else idx
                b = dyn(rng.uniform(-2, 2, [2, 4] if adj_b else [4, 2]), dt)
                sp = tf.SparseTensor(tf.constant(ii, tf.int64), v, a_shape)
                y = tf.sparse.sparse_dense_matmul(sp, b, adjoint_a=adj_a, adjoint_b=adj_b)
                gv, gb = tf.gradients(tf.reduce_sum(y * tf.constant(rng.uniform(-1, 1, [3, 2]), dt)), [v, b])
                outs[f"spmm_grad_values_{adj_a:d}{adj_b:d}_{n}"], outs[f"spmm_grad_b_{adj_a:d}{adj_b:d}_{n}"] = gv, gb
    f = lambda i, v, s, b, **k: tf.raw_ops.SparseTensorDenseMatMul(  # noqa: E731
        a_indices=dyn(i, tf.int64), a_values=dyn(v), a_shape=dyn(s, tf.int64), b=dyn(b), **k)
    b = np.ones([4, 2])
    errs["spmm_inner"] = f(idx, np.ones(5), [3, 5], b)
    errs["spmm_row_range"] = f([[0, 1], [3, 0]], np.ones(2), [3, 4], b)
    errs["spmm_col_range"] = f([[0, 1], [1, 4]], np.ones(2), [3, 4], b)
    errs["spmm_negative"] = f([[0, 1], [-1, 0]], np.ones(2), [3, 4], b)
    errs["spmm_nnz"] = f(idx, np.ones(4), [3, 4], b)
    errs["spmm_shape_len"] = f(idx, np.ones(5), [3, 4, 1], b)
    errs["spmm_b_rank"] = f(idx, np.ones(5), [3, 4], np.ones([4]))
    errs["spmm_idx_cols"] = f([[0, 1, 0]], np.ones(1), [3, 4], b)


def patches(outs, errs):
    """TensorFlow's gradient subgraph of ExtractImagePatches (VALID and SAME, strides,
    rates; float32 and float64)."""
    del errs
    rng = np.random.RandomState(21)
    for dt in [tf.float32, tf.float64]:
        n = dt.name
        for k, (ks, st, rt, pad) in {"valid": ([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
                                     "same": ([1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"),
                                     "rates": ([1, 2, 2, 1], [1, 1, 2, 1], [1, 2, 1, 1], "VALID")}.items():
            x = tf.placeholder_with_default(tf.constant(rng.uniform(-1, 1, [2, 5, 4, 3]), dt), [None, 5, 4, 3])
            y = tf.image.extract_patches(x, ks, st, rt, pad)
            w = tf.constant(rng.uniform(-1, 1, y.shape[1:]), dt)
            outs[f"patches_{k}_{n}"] = y
            outs[f"patches_grad_{k}_{n}"] = tf.gradients(tf.reduce_sum(y * w), x)[0]


def decomp_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "qr_rank": lambda: tf.linalg.qr(c([1.0, 2.0])),
    })


def solve_build_errors():
    c = tf.constant
    return nn4.run_build_errors({
        "chol_square": lambda: tf.linalg.cholesky(c(np.ones([3, 4]))),
        "chol_rank": lambda: tf.linalg.cholesky(c([1.0, 2.0])),
        "solve_rows": lambda: tf.linalg.solve(c(np.eye(3)), c(np.ones([2, 1]))),
        "solve_batch": lambda: tf.linalg.solve(c(np.ones([2, 3, 3])), c(np.ones([3, 3, 1]))),
        "trsolve_batch": lambda: tf.raw_ops.MatrixTriangularSolve(matrix=c(np.ones([2, 3, 3])), rhs=c(np.ones([3, 3, 1]))),
        "trsolve_rows": lambda: tf.raw_ops.MatrixTriangularSolve(matrix=c(np.eye(3)), rhs=c(np.ones([2, 1]))),
        "slogdet_square": lambda: tf.linalg.slogdet(c(np.ones([3, 4]))),
    })


def main():
    nn4.write("solve", solve, solve_build_errors)
    nn4.write("decomp", decomp, decomp_build_errors)
    nn4.write("svd", svd, dict)
    nn4.write("sparse", sparse, dict)
    nn4.write("patches", patches, dict)


if __name__ == "__main__":
    main()
