//! InTopK/InTopKV2, the MatrixDiag/MatrixDiagPart/MatrixSetDiag family (V1, V2, V3: what
//! `tf.eye`, `tf.linalg.diag`, `diag_part`, `set_diag` emit), CheckNumerics(V2), EnsureShape
//! and LRN/LRNGrad against TensorFlow 2.21: a graph TensorFlow built with its own gradient
//! subgraphs (`tests/data/ops_nn4/graph.pbtxt`, by `scripts/gen_ops_nn4.py`) imports, every
//! output equals TensorFlow's (`graph.json`: rel 1e-5, exact for integers and bools), the
//! nodes TensorFlow's kernels refuse fail here with TensorFlow's message, the shape functions
//! refuse the same static cases, and every gradient added matches finite differences. The
//! small-integer kernels (int8/int16/uint8/uint16) run `small_ints.pbtxt` the same way, and
//! NonMaxSuppressionV3/V4/V5 `nms.pbtxt`, MatrixInverse/MatrixDeterminant `linalg.pbtxt`,
//! SparseSegmentSum/Mean/SqrtN `sparse_segment.pbtxt`.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::ops::{self, LrnOptions};
use tensorgraph::train::gradients;
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn json(name: &str) -> serde_json::Value {
    common::tf_json("ops_nn4", name)
}

fn expected() -> serde_json::Value {
    json("graph")
}

/// Imports `<name>.pbtxt`, runs every output `<name>.json` lists and compares.
fn runs_to_tensorflows_values(name: &str, at_least: usize) {
    common::runs_to_tensorflows_values("ops_nn4", name, at_least);
}

#[test]
fn tensorflow_graph_runs_to_tensorflows_values() {
    runs_to_tensorflows_values("graph", 50);
}

/// int8/int16/uint8/uint16 through ResizeBilinear (float32 out), ResizeNearestNeighbor,
/// the comparisons, Maximum/Minimum, Sum/Prod (wrapping), Mean (no wrapping), Max/Min,
/// Cumsum/Cumprod and TopKV2, exactly TensorFlow's integers.
#[test]
fn small_integer_kernels_match_tensorflow() {
    runs_to_tensorflows_values("small_ints", 120);
}

/// Runs every node `<name>.json` lists under `errors`: each fails with TensorFlow's message.
fn refuses_as_tensorflow(name: &str, at_least: usize) {
    // EnsureShape: TensorFlow names the input tensor, a prepared kernel names its node.
    common::refuses_as_tensorflow("ops_nn4", name, at_least, |key, msg| {
        if key.starts_with("ensure_") {
            msg[msg.find(" [").unwrap()..].to_string()
        } else {
            msg.to_string()
        }
    });
}

#[test]
fn kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    refuses_as_tensorflow("graph", 30);
}

/// NonMaxSuppressionV3/V4/V5 (hard and soft, padded, thresholds at their limits, an IoU
/// exactly at the threshold, 40 random boxes): TensorFlow's indices, scores and counts; its
/// kernel's and shape function's errors.
#[test]
fn non_max_suppression_matches_tensorflow() {
    runs_to_tensorflows_values("nms", 20);
    refuses_as_tensorflow("nms", 11);
    let exp = json("nms");
    let g = Graph::new();
    let s = g.scope();
    let f = |v: f32| ops::constant(&s, Tensor::scalar(v)).unwrap();
    let m = ops::constant(&s, Tensor::scalar(3i32)).unwrap();
    let r = ops::non_max_suppression_v3(
        &s,
        &c(&s, &[1, 3], vec![0.0f32, 0.0, 1.0]),
        &c(&s, &[1], vec![0.9f32]),
        &m,
        &f(0.5),
        &f(0.0),
    );
    assert_build_error("nms_boxes_cols", r, &build_error(&exp, "nms_boxes_cols"));
    let r = ops::non_max_suppression_v3(
        &s,
        &c(&s, &[1, 4], vec![0.0f32, 0.0, 1.0, 1.0]),
        &c(&s, &[2], vec![0.9f32, 0.1]),
        &m,
        &f(0.5),
        &f(0.0),
    );
    assert_build_error("nms_scores_len", r, &build_error(&exp, "nms_scores_len"));
    // The builder's V5 with padding has a static length.
    let b = c(&s, &[2, 4], vec![0.0f32, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.1]);
    let out = ops::image::nms::non_max_suppression_v5(
        &s,
        &b,
        &c(&s, &[2], vec![0.9f32, 0.8]),
        &m,
        &f(0.5),
        &f(0.0),
        &f(0.0),
        true,
    )
    .unwrap();
    assert_eq!(out[0].shape(), Shape::known(&[3]));
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&[], &[&out[0], &out[1], &out[2]], &[]).unwrap();
    assert_eq!(r[0].to_vec::<i32>().unwrap(), vec![0, 0, 0]);
    assert_eq!(r[1].to_vec::<f32>().unwrap(), vec![0.9, 0.0, 0.0]);
    assert_eq!(r[2].to_vec::<i32>().unwrap(), vec![1]);
}

/// The part of a TensorFlow shape-function error before ` for '{{node ...`.
fn build_error(exp: &serde_json::Value, key: &str) -> String {
    let m = exp["build_errors"][key].as_str().unwrap_or_else(|| panic!("{key}: no TensorFlow error"));
    m.split(" for '{{node").next().unwrap().to_string()
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn assert_build_error(what: &str, r: tensorgraph::Result<Output>, want: &str) {
    let e = r.err().unwrap_or_else(|| panic!("{what}: built"));
    assert_eq!(e.code, Code::InvalidArgument, "{what}: {e}");
    assert!(e.message.contains(want), "{what}: got {:?}, TensorFlow {want:?}", e.message);
}

#[test]
fn shape_functions_refuse_what_tensorflows_refuse() {
    let exp = expected();
    let g = Graph::new();
    let s = g.scope();
    let k1 = c(&s, &[], vec![1i32]);
    let p12 = c(&s, &[1, 2], vec![1.0f32, 2.0]);
    let r = ops::in_top_k_v2(&s, &p12, &c(&s, &[2], vec![1i32, 0]), &k1);
    assert_build_error("intopk_batch", r, &build_error(&exp, "intopk_batch"));
    let r = ops::in_top_k_v2(&s, &c(&s, &[2], vec![1.0f32, 2.0]), &c(&s, &[1], vec![1i32]), &k1);
    assert_build_error("intopk_pred_rank", r, &build_error(&exp, "intopk_pred_rank"));
    let (k0, m1) = (c(&s, &[], vec![0i32]), c(&s, &[], vec![-1i32]));
    let r = ops::matrix_diag_v3(
        &s,
        &c(&s, &[2], vec![1.0f32, 2.0]),
        &k0,
        &k1,
        &m1,
        &c(&s, &[], vec![0.0f32]),
        "RIGHT_LEFT",
    );
    assert_build_error("diag_rows_small", r, &build_error(&exp, "diag_rows_small"));
    let r = ops::matrix_diag_part_v3(&s, &c(&s, &[2], vec![1.0f32, 2.0]), &k0, &c(&s, &[], vec![0.0f32]), "RIGHT_LEFT");
    assert_build_error("part_rank", r, &build_error(&exp, "part_rank"));
    let x13 = c(&s, &[1, 3], vec![1.0f32, 2.0, 3.0]);
    let r = ops::ensure_shape(&s, &x13, Shape::partial(&[None, Some(2)]));
    assert_build_error("ensure_dim", r, &build_error(&exp, "ensure_dim"));
    let r = ops::ensure_shape(&s, &x13, [3]);
    assert_build_error("ensure_rank", r, &build_error(&exp, "ensure_rank"));
    let r = ops::lrn(&s, &x13, LrnOptions::default());
    assert_build_error("lrn_rank", r, &build_error(&exp, "lrn_rank"));
    let r = ops::check_numerics(&s, &c(&s, &[1], vec![1i32]), "m");
    assert!(exp["build_errors"]["check_int"].as_str().unwrap().contains("not in list of allowed values"));
    assert_eq!(r.unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn built_ops_run_to_tensorflows_values() {
    // The builders give the ops the imported graph holds: tf.eye(2, 3) is MatrixDiagV3 of ones.
    let exp = expected();
    let g = Graph::new();
    let s = g.scope();
    let eye = ops::matrix_diag_v3(
        &s,
        &c(&s, &[2], vec![1.0f32, 1.0]),
        &c(&s, &[], vec![0i32]),
        &c(&s, &[], vec![2i32]),
        &c(&s, &[], vec![3i32]),
        &c(&s, &[], vec![0.0f32]),
        "RIGHT_LEFT",
    )
    .unwrap();
    assert_eq!(eye.shape(), Shape::known(&[2, 3]), "static shape");
    let preds = c(&s, &[2, 3], vec![0.1f32, 0.7, 0.2, 0.5, 0.5, 0.0]);
    let v1 = ops::in_top_k(&s, &preds, &c(&s, &[2], vec![2i64, 1]), 1).unwrap();
    let es = ops::ensure_shape(&s, &preds, Shape::partial(&[None, Some(3)])).unwrap();
    assert_eq!(es.shape(), Shape::known(&[2, 3]));
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&[], &[&eye, &v1, &es], &[]).unwrap();
    let want: Vec<f64> =
        exp["outputs"]["eye"]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(r[0].to_f64_vec().unwrap(), want);
    assert_eq!(r[1].to_vec::<bool>().unwrap(), vec![false, true]);
    assert_eq!(r[2].to_f64_vec().unwrap(), preds_values());
}

fn preds_values() -> Vec<f64> {
    [0.1f32, 0.7, 0.2, 0.5, 0.5, 0.0].iter().map(|&v| v as f64).collect()
}

const TOL: f64 = 1e-6;

fn ci(s: &Scope, v: Vec<i32>) -> Output {
    let n = v.len();
    if n == 1 {
        c(s, &[], v)
    } else {
        c(s, &[n], v)
    }
}

#[test]
fn matrix_diag_gradients_match_finite_differences() {
    let zero = |s: &Scope| ops::constant(s, Tensor::scalar(0.0f64)).unwrap();
    for align in ["RIGHT_LEFT", "LEFT_RIGHT"] {
        // MatrixDiagV3: a band (-1, 1) of [2, 3, 3] diagonals into [2, 4, 3] matrices.
        check_gradients(&[one(&[2, 3, 3], 1, -1.0, 1.0)], TOL, |s, x| {
            let y =
                ops::matrix_diag_v3(s, &x[0], &ci(s, vec![-1, 1]), &ci(s, vec![4]), &ci(s, vec![3]), &zero(s), align)
                    .unwrap();
            weighted(s, &y, &[2, 4, 3], 2)
        });
        // MatrixDiagPartV3 with padding.
        check_gradients(&[one(&[2, 3, 5], 3, -1.0, 1.0)], TOL, |s, x| {
            let pad = ops::constant(s, Tensor::scalar(4.0f64)).unwrap();
            let y = ops::matrix_diag_part_v3(s, &x[0], &ci(s, vec![-2, 1]), &pad, align).unwrap();
            weighted(s, &y, &[2, 4, 3], 4)
        });
        // MatrixSetDiagV3: both the matrix and the diagonals.
        check_gradients(&[one(&[3, 4], 5, -1.0, 1.0), one(&[2, 3], 6, -1.0, 1.0)], TOL, |s, x| {
            let y = ops::matrix_set_diag_v3(s, &x[0], &x[1], &ci(s, vec![0, 1]), align).unwrap();
            weighted(s, &y, &[3, 4], 7)
        });
    }
    check_gradients(&[one(&[2, 3], 8, -1.0, 1.0)], TOL, |s, x| {
        weighted(s, &ops::matrix_diag(s, &x[0]).unwrap(), &[2, 3, 3], 9)
    });
    check_gradients(&[one(&[2, 4, 3], 10, -1.0, 1.0)], TOL, |s, x| {
        weighted(s, &ops::matrix_diag_part(s, &x[0]).unwrap(), &[2, 3], 11)
    });
    check_gradients(&[one(&[4, 3], 12, -1.0, 1.0), one(&[3], 13, -1.0, 1.0)], TOL, |s, x| {
        weighted(s, &ops::matrix_set_diag(s, &x[0], &x[1]).unwrap(), &[4, 3], 14)
    });
}

#[test]
fn check_numerics_and_ensure_shape_gradients_match_finite_differences() {
    check_gradients(&[one(&[2, 3], 15, -1.0, 1.0)], TOL, |s, x| {
        let sq = ops::mul(s, &x[0], &x[0]).unwrap();
        weighted(s, &ops::check_numerics(s, &sq, "sq").unwrap(), &[2, 3], 16)
    });
    check_gradients(&[one(&[2, 3], 17, -1.0, 1.0)], TOL, |s, x| {
        let sq = ops::mul(s, &x[0], &x[0]).unwrap();
        weighted(s, &ops::check_numerics_v2(s, &sq, "sq").unwrap(), &[2, 3], 18)
    });
    check_gradients(&[one(&[2, 3], 19, -1.0, 1.0)], TOL, |s, x| {
        let sq = ops::mul(s, &x[0], &x[0]).unwrap();
        weighted(s, &ops::ensure_shape(s, &sq, Shape::partial(&[Some(2), None])).unwrap(), &[2, 3], 20)
    });
    // The gradient is checked too: Sqrt's infinite gradient at 0 fails with TensorFlow's message.
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, [2]).unwrap();
    let y = ops::sqrt(&s, &ops::check_numerics(&s, &x, "root").unwrap()).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap().remove(0).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.run(&[(&x, Tensor::new(&[2], vec![0.0f32, 1.0]).unwrap())], &[&dx], &[]).unwrap_err();
    assert!(
        e.message
            .contains("Not a number (NaN) or infinity (Inf) values detected in gradient. root : Tensor had Inf values"),
        "{e}"
    );
}

/// LRN is float32/half only (its OpDef has no float64), so its gradient is checked in
/// float32 against central differences with a float32-sized step and tolerance.
#[test]
fn lrn_gradient_matches_finite_differences() {
    for o in [
        LrnOptions::default(),
        LrnOptions { depth_radius: 2, bias: 1.5, alpha: 0.3, beta: 0.75 },
        LrnOptions { depth_radius: 1, bias: 2.0, alpha: 0.5, beta: 1.0 },
    ] {
        let shape = [1, 2, 2, 6];
        let n: usize = shape.iter().product();
        let g = Graph::new();
        let s = g.scope();
        let x = ops::placeholder(&s, DType::Float, shape).unwrap();
        let y = ops::lrn(&s, &x, o).unwrap();
        let w = common::values(n, 21, -1.0, 1.0);
        let wc = c(&s, &shape, w.iter().map(|&v| v as f32).collect());
        let loss = ops::reduce_sum(&s, &ops::mul(&s, &y, &wc).unwrap(), None, false).unwrap();
        let dx = gradients(std::slice::from_ref(&loss), std::slice::from_ref(&x), None).unwrap().remove(0).unwrap();
        assert_eq!(dx.op().op_type(), "LRNGrad");
        let sess = Session::new(&g).unwrap();
        let base: Vec<f32> = common::values(n, 22, -2.0, 2.0).iter().map(|&v| v as f32).collect();
        let run = |v: &[f32], t: &Output| {
            sess.run(&[(&x, Tensor::new(&shape, v.to_vec()).unwrap())], &[t], &[]).unwrap()[0].to_f64_vec().unwrap()
        };
        let sym = run(&base, &dx);
        let h = 1e-2f32;
        for i in 0..n {
            let (mut up, mut down) = (base.clone(), base.clone());
            up[i] += h;
            down[i] -= h;
            let num = (run(&up, &loss)[0] - run(&down, &loss)[0]) / (2.0 * h as f64);
            assert!(
                (num - sym[i]).abs() <= 2e-3 * sym[i].abs().max(1.0),
                "{o:?}[{i}]: symbolic {}, numeric {num}",
                sym[i]
            );
        }
    }
}

/// MatrixInverse (and its adjoint) and MatrixDeterminant, float32 and float64, batched, with
/// TensorFlow's gradient subgraphs: TensorFlow's values, errors and shape-function errors.
#[test]
fn matrix_inverse_and_determinant_match_tensorflow() {
    runs_to_tensorflows_values("linalg", 12);
    refuses_as_tensorflow("linalg", 6);
    let exp = json("linalg");
    let g = Graph::new();
    let s = g.scope();
    let r = ops::matrix_inverse(&s, &c(&s, &[2], vec![1.0f32, 2.0]), false);
    assert_build_error("inv_rank", r, &build_error(&exp, "inv_rank"));
    let m23 = c(&s, &[2, 3], vec![1.0f32, 2.0, 3.0, 2.0, 4.0, 5.0]);
    assert_build_error("inv_square", ops::matrix_inverse(&s, &m23, false), &build_error(&exp, "inv_square"));
    assert_build_error("det_square", ops::matrix_determinant(&s, &m23), &build_error(&exp, "det_square"));
}

#[test]
fn matrix_inverse_and_determinant_gradients_match_finite_differences() {
    // Diagonally dominant, so well away from singular.
    let well = |shape: &[usize], seed: u64| {
        let (sh, mut v) = one(shape, seed, -0.5, 0.5);
        let n = shape[shape.len() - 1];
        for (i, x) in v.iter_mut().enumerate() {
            if (i / n) % n == i % n {
                *x += 2.0;
            }
        }
        (sh, v)
    };
    for adjoint in [false, true] {
        check_gradients(&[well(&[2, 3, 3], 31)], 1e-5, |s, x| {
            weighted(s, &ops::matrix_inverse(s, &x[0], adjoint).unwrap(), &[2, 3, 3], 32)
        });
    }
    check_gradients(&[well(&[2, 3, 3], 33)], 1e-5, |s, x| {
        weighted(s, &ops::matrix_determinant(s, &x[0]).unwrap(), &[2], 34)
    });
}

/// SparseSegmentSum/Mean/SqrtN (int32 and int64 ids, empty segments, repeated rows) and the
/// `...Grad` ops of TensorFlow's gradient subgraph: TensorFlow's values and errors.
#[test]
fn sparse_segment_reductions_match_tensorflow() {
    runs_to_tensorflows_values("sparse_segment", 10);
    refuses_as_tensorflow("sparse_segment", 9);
    let exp = json("sparse_segment");
    let g = Graph::new();
    let s = g.scope();
    let data = c(&s, &[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]);
    let r = ops::sparse_segment(
        &s,
        ops::sparse_segment::Kind::Sum,
        &data,
        &c(&s, &[3], vec![0i32, 1, 1]),
        &c(&s, &[2], vec![0i32, 0]),
    );
    assert_build_error("ss_size", r, &build_error(&exp, "ss_size"));
}

#[test]
fn sparse_segment_gradients_match_finite_differences() {
    use ops::sparse_segment::Kind;
    for kind in [Kind::Sum, Kind::Mean, Kind::SqrtN] {
        check_gradients(&[one(&[5, 3], 41, -1.0, 1.0)], TOL, |s, x| {
            let idx = c(s, &[6], vec![0i64, 2, 1, 3, 3, 4]);
            let seg = c(s, &[6], vec![0i32, 0, 2, 2, 2, 5]);
            weighted(s, &ops::sparse_segment(s, kind, &x[0], &idx, &seg).unwrap(), &[6, 3], 42)
        });
    }
}
