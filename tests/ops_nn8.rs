//! The linear algebra and sparse ops TensorFlow models use (Cholesky, CholeskyGrad,
//! MatrixTriangularSolve, MatrixSolve, LogMatrixDeterminant, Qr, Svd,
//! SparseTensorDenseMatMul) against TensorFlow 2.21: a
//! graph TensorFlow built with its own gradient subgraphs (`tests/data/ops_nn8/*.pbtxt`, by
//! `scripts/gen_ops_nn8.py`) imports, every output equals TensorFlow's (float32 and
//! float64), the nodes TensorFlow's kernels refuse fail here with TensorFlow's code and
//! message, the shape functions refuse the same static cases, and every gradient added
//! matches finite differences.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::ops;
use tensorgraph::{Code, Graph, Output, Scope, Tensor};

const DIR: &str = "ops_nn8";

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

/// Cholesky (batched, empty, not positive definite: NaN in the lower triangle as TensorFlow
/// 2.21, a NaN diagonal passing), CholeskyGrad, MatrixTriangularSolve (lower/upper ×
/// adjoint, batch broadcasting both ways), MatrixSolve (adjoint), LogMatrixDeterminant
/// (singular: sign 0 and log -inf; empty), and TensorFlow's gradient subgraphs of each
/// (the triangular solve's summed over a broadcast batch): TensorFlow's values.
#[test]
fn solve_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "solve", 68);
}

/// Non-square, rank-1, mismatched batch and row inputs, a singular MatrixSolve: TensorFlow's
/// code and first message line.
#[test]
fn solve_kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    common::refuses_as_tensorflow(DIR, "solve", 11, |_, m| m.to_string());
}

/// The part of a TensorFlow shape-function error before ` for '{{node ...`.
fn build_error(name: &str, key: &str) -> String {
    let exp = common::tf_json(DIR, name);
    let m = exp["build_errors"][key].as_str().unwrap_or_else(|| panic!("{key}: no TensorFlow error"));
    m.split(" for '{{node").next().unwrap().to_string()
}

fn ones(s: &Scope, shape: &[usize]) -> Output {
    c(s, shape, vec![1.0f64; shape.iter().product()])
}

fn eye(s: &Scope, n: usize) -> Output {
    c(s, &[n, n], (0..n * n).map(|i| if i % (n + 1) == 0 { 1.0f64 } else { 0.0 }).collect())
}

#[test]
fn solve_shape_functions_refuse_what_tensorflows_refuse() {
    let g = Graph::new();
    let s = g.scope();
    let cases: Vec<(&str, tensorgraph::Result<Output>)> = vec![
        ("chol_square", ops::cholesky(&s, &ones(&s, &[3, 4]))),
        ("chol_rank", ops::cholesky(&s, &ones(&s, &[2]))),
        ("solve_rows", ops::matrix_solve(&s, &eye(&s, 3), &ones(&s, &[2, 1]), false)),
        ("solve_batch", ops::matrix_solve(&s, &ones(&s, &[2, 3, 3]), &ones(&s, &[3, 3, 1]), false)),
        ("trsolve_batch", ops::matrix_triangular_solve(&s, &ones(&s, &[2, 3, 3]), &ones(&s, &[3, 3, 1]), true, false)),
        ("trsolve_rows", ops::matrix_triangular_solve(&s, &eye(&s, 3), &ones(&s, &[2, 1]), true, false)),
        ("slogdet_square", ops::log_matrix_determinant(&s, &ones(&s, &[3, 4])).map(|r| r.1)),
    ];
    for (key, r) in cases {
        let e = r.err().unwrap_or_else(|| panic!("{key}: built"));
        assert_eq!(e.code, Code::InvalidArgument, "{key}: {e}");
        let want = build_error("solve", key);
        assert!(e.message.contains(&want), "{key}: got {:?}, TensorFlow {want:?}", e.message);
    }
    // Static shapes: the broadcast batch, the merged dims.
    let t = ops::matrix_triangular_solve(&s, &ones(&s, &[3, 1, 4, 4]), &ones(&s, &[2, 4, 5]), true, false).unwrap();
    assert_eq!(t.shape().to_vec(), Some(vec![3, 2, 4, 5]));
    let (sign, log) = ops::log_matrix_determinant(&s, &ones(&s, &[2, 3, 3])).unwrap();
    assert_eq!((sign.shape().to_vec(), log.shape().to_vec()), (Some(vec![2]), Some(vec![2])));
}

const TOL: f64 = 1e-6;

/// `x·x^T + 3·I`: a symmetric positive-definite function of any `[..., 3, 3]` input.
fn spd(s: &Scope, x: &Output) -> Output {
    ops::add(
        s,
        &ops::batch_matmul(s, x, x, false, true).unwrap(),
        &ops::mul(s, &eye(s, 3), &c(s, &[], vec![3.0f64])).unwrap(),
    )
    .unwrap()
}

#[test]
fn cholesky_gradient_matches_finite_differences() {
    check_gradients(&[one(&[2, 3, 3], 80, -1.0, 1.0)], TOL, |s, x| {
        weighted(s, &ops::cholesky(s, &spd(s, &x[0])).unwrap(), &[2, 3, 3], 81)
    });
}

/// A well-conditioned triangular input: `x` plus 3 on the diagonal.
fn diag_heavy(s: &Scope, x: &Output) -> Output {
    ops::add(s, x, &ops::mul(s, &eye(s, 3), &c(s, &[], vec![3.0f64])).unwrap()).unwrap()
}

#[test]
fn triangular_solve_gradients_match_finite_differences() {
    for (i, (lower, adjoint)) in [(true, false), (true, true), (false, false), (false, true)].into_iter().enumerate() {
        let seed = 90 + 3 * i as u64;
        check_gradients(&[one(&[2, 3, 3], seed, -1.0, 1.0), one(&[2, 3, 2], seed + 1, -1.0, 1.0)], TOL, |s, x| {
            let y = ops::matrix_triangular_solve(s, &diag_heavy(s, &x[0]), &x[1], lower, adjoint).unwrap();
            weighted(s, &y, &[2, 3, 2], seed + 2)
        });
    }
    // broadcast batches: [3, 3] against [2, 3, 2], and [2, 1, 3, 3] against [3, 3, 1]
    check_gradients(&[one(&[3, 3], 100, -1.0, 1.0), one(&[2, 3, 2], 101, -1.0, 1.0)], TOL, |s, x| {
        let y = ops::matrix_triangular_solve(s, &diag_heavy(s, &x[0]), &x[1], true, false).unwrap();
        weighted(s, &y, &[2, 3, 2], 102)
    });
    check_gradients(&[one(&[2, 1, 3, 3], 103, -1.0, 1.0), one(&[3, 3, 1], 104, -1.0, 1.0)], TOL, |s, x| {
        let y = ops::matrix_triangular_solve(s, &diag_heavy(s, &x[0]), &x[1], false, true).unwrap();
        weighted(s, &y, &[2, 3, 3, 1], 105)
    });
}

#[test]
fn matrix_solve_gradients_match_finite_differences() {
    for (i, adjoint) in [false, true].into_iter().enumerate() {
        let seed = 110 + 3 * i as u64;
        check_gradients(&[one(&[2, 3, 3], seed, -1.0, 1.0), one(&[2, 3, 2], seed + 1, -1.0, 1.0)], TOL, |s, x| {
            let y = ops::matrix_solve(s, &diag_heavy(s, &x[0]), &x[1], adjoint).unwrap();
            weighted(s, &y, &[2, 3, 2], seed + 2)
        });
    }
}

#[test]
fn log_matrix_determinant_gradient_matches_finite_differences() {
    check_gradients(&[one(&[2, 3, 3], 120, -1.0, 1.0)], TOL, |s, x| {
        // a negative determinant too: the sign is piecewise constant, the log smooth
        let m = ops::mul(s, &diag_heavy(s, &x[0]), &c(s, &[2, 1, 1], vec![1.0f64, -1.0])).unwrap();
        weighted(s, &ops::log_matrix_determinant(s, &m).unwrap().1, &[2], 121)
    });
}

/// Qr (deep, square and wide, with and without full_matrices; float32, float64, float16;
/// an empty batch) and TensorFlow's gradient subgraphs of it: TensorFlow's values, so
/// Eigen's signs of `R`'s diagonal and `Q`'s columns.
#[test]
fn decomposition_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "decomp", 44);
    common::refuses_as_tensorflow(DIR, "decomp", 1, |_, m| m.to_string());
    let g = Graph::new();
    let s = g.scope();
    let e = ops::qr(&s, &ones(&s, &[2]), false).err().unwrap_or_else(|| panic!("built"));
    assert!(e.message.contains(&build_error("decomp", "qr_rank")), "{e}");
    let (q, r) = ops::qr(&s, &ones(&s, &[2, 5, 3]), true).unwrap();
    assert_eq!((q.shape().to_vec(), r.shape().to_vec()), (Some(vec![2, 5, 5]), Some(vec![2, 5, 3])));
}

#[test]
fn qr_gradients_match_finite_differences() {
    for (i, shape) in [[2, 4, 3], [2, 3, 3], [2, 3, 5]].into_iter().enumerate() {
        let seed = 130 + 4 * i as u64;
        check_gradients(&[one(&shape, seed, -1.0, 1.0)], TOL, |s, x| {
            let (q, r) = ops::qr(s, &x[0], false).unwrap();
            let (qs, rs) = (q.shape().to_vec().unwrap(), r.shape().to_vec().unwrap());
            ops::add(
                s,
                &weighted(s, &q, &qs, seed + 1),
                &ops::reduce_sum(s, &weighted(s, &r, &rs, seed + 2), None, false).unwrap(),
            )
            .unwrap()
        });
    }
    // full_matrices with more rows than columns: TensorFlow's NotImplementedError.
    let g = Graph::new();
    let s = g.scope();
    let x = ones(&s, &[4, 3]);
    let (q, _) = ops::qr(&s, &x, true).unwrap();
    let e = tensorgraph::train::gradients(std::slice::from_ref(&q), std::slice::from_ref(&x), None)
        .err()
        .unwrap_or_else(|| panic!("a gradient"));
    assert_eq!(e.code, Code::Unimplemented, "{e}");
}

/// Svd (deep, square and wide; compute_uv; full_matrices; float32 and float64): TensorFlow's
/// singular values and the sign-free parts of its singular vectors (squares, `U·S·V^H`),
/// and TensorFlow's gradients of sign-free losses. The signs of the columns of U and V are
/// not unique (Eigen's and this kernel's differ): checked here by orthonormality and
/// reconstruction instead.
#[test]
fn svd_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "svd", 66);
    common::refuses_as_tensorflow(DIR, "svd", 1, |_, m| m.to_string());
}

#[test]
fn svd_vectors_are_orthonormal_and_reconstruct_the_input() {
    for (shape, full) in
        [([2, 4, 3], false), ([2, 4, 3], true), ([2, 3, 5], false), ([2, 3, 5], true), ([2, 3, 3], false)]
    {
        let g = Graph::new();
        let s = g.scope();
        let (m, n) = (shape[1], shape[2]);
        let vals = common::values(shape.iter().product(), 7, -1.0, 1.0);
        let x = c(&s, &shape, vals.clone());
        let (sv, u, v) = ops::svd(&s, &x, true, full).unwrap();
        let sess = tensorgraph::Session::new(&g).unwrap();
        let r = sess.run(&[], &[&sv, &u, &v], &[]).unwrap();
        let (sv, u, v) = (r[0].to_f64_vec().unwrap(), r[1].to_f64_vec().unwrap(), r[2].to_f64_vec().unwrap());
        let p = m.min(n);
        let (pu, pv) = if full { (m, n) } else { (p, p) };
        assert_eq!(r[1].shape(), &[2, m, pu]);
        assert_eq!(r[2].shape(), &[2, n, pv]);
        for b in 0..2 {
            let (ub, vb, sb) = (&u[b * m * pu..][..m * pu], &v[b * n * pv..][..n * pv], &sv[b * p..][..p]);
            assert!(sb.windows(2).all(|w| w[0] >= w[1]), "descending: {sb:?}");
            for (w, rows, cols) in [(ub, m, pu), (vb, n, pv)] {
                for i in 0..cols {
                    for j in 0..cols {
                        let d: f64 = (0..rows).map(|k| w[k * cols + i] * w[k * cols + j]).sum();
                        assert!((d - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12, "{shape:?} full={full}: {d}");
                    }
                }
            }
            for i in 0..m {
                for j in 0..n {
                    let y: f64 = (0..p).map(|k| ub[i * pu + k] * sb[k] * vb[j * pv + k]).sum();
                    assert!((y - vals[b * m * n + i * n + j]).abs() < 1e-12, "{shape:?}: reconstruction");
                }
            }
        }
    }
}

#[test]
fn svd_gradients_match_finite_differences() {
    for (i, shape) in [[2, 4, 3], [2, 3, 3], [2, 3, 5]].into_iter().enumerate() {
        let seed = 150 + 5 * i as u64;
        check_gradients(&[one(&shape, seed, -1.0, 1.0)], 1e-5, |s, x| {
            let (sv, u, v) = ops::svd(s, &x[0], true, false).unwrap();
            let shape_of = |t: &Output| t.shape().to_vec().unwrap();
            // sign-free: the columns' signs cancel in their squares
            let sum = |t: &Output, k: u64| {
                let sq = ops::mul(s, t, t).unwrap();
                ops::reduce_sum(s, &weighted(s, &sq, &shape_of(t), seed + k), None, false).unwrap()
            };
            let loss = ops::add(s, &sum(&u, 1), &sum(&v, 2)).unwrap();
            ops::add(s, &weighted(s, &sv, &shape_of(&sv), seed + 3), &loss).unwrap()
        });
        check_gradients(&[one(&shape, seed + 4, -1.0, 1.0)], 1e-5, |s, x| {
            let (sv, _, _) = ops::svd(s, &x[0], false, false).unwrap();
            weighted(s, &sv, &sv.shape().to_vec().unwrap(), seed)
        });
    }
}

/// SparseTensorDenseMatMul (adjoint_a × adjoint_b; int32 and int64 indices, unsorted and
/// repeated; float32, float64, int32, float16) and TensorFlow's gradient subgraph
/// of it: TensorFlow's values; its kernel's errors (inner dimensions, indices out of range,
/// negative, shapes).
#[test]
fn sparse_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "sparse", 36);
    common::refuses_as_tensorflow(DIR, "sparse", 8, |_, m| m.to_string());
}

#[test]
fn sparse_dense_matmul_gradients_match_finite_differences() {
    for (i, (adj_a, adj_b)) in [(false, false), (true, false), (false, true), (true, true)].into_iter().enumerate() {
        let seed = 170 + 3 * i as u64;
        let b_shape = if adj_b { [2, 4] } else { [4, 2] };
        check_gradients(&[one(&[5], seed, -1.0, 1.0), one(&b_shape, seed + 1, -1.0, 1.0)], TOL, |s, x| {
            let idx: Vec<i64> =
                if adj_a { vec![1, 0, 3, 2, 0, 1, 0, 2, 1, 0] } else { vec![0, 1, 2, 3, 1, 0, 2, 0, 0, 1] };
            let shape: Vec<i64> = if adj_a { vec![4, 3] } else { vec![3, 4] };
            let y = ops::sparse_tensor_dense_mat_mul(
                s,
                &c(s, &[5, 2], idx),
                &x[0],
                &c(s, &[2], shape),
                &x[1],
                adj_a,
                adj_b,
            )
            .unwrap();
            weighted(s, &y, &[3, 2], seed + 2)
        });
    }
}

/// TensorFlow's gradient subgraph of ExtractImagePatches (VALID, SAME, strides, rates;
/// float32 and float64; an unknown batch): TensorFlow's values.
#[test]
fn patches_gradient_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "patches", 12);
}

#[test]
fn extract_image_patches_gradient_matches_finite_differences() {
    type Window = ([i64; 4], [i64; 4], [i64; 4], &'static str);
    let cases: [Window; 3] = [
        ([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"),
        ([1, 2, 2, 1], [1, 1, 2, 1], [1, 2, 1, 1], "VALID"),
    ];
    for (i, (k, st, r, pad)) in cases.into_iter().enumerate() {
        let seed = 190 + 2 * i as u64;
        check_gradients(&[one(&[2, 5, 4, 3], seed, -1.0, 1.0)], TOL, |s, x| {
            let y = ops::extract_image_patches(s, &x[0], k, st, r, pad).unwrap();
            let shape = y.shape().to_vec().unwrap();
            weighted(s, &y, &shape, seed + 1)
        });
    }
}
