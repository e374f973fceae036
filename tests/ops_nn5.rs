//! The element-wise math ops real TensorFlow models use (Asin, Acos, Atan, Atan2, Sinh,
//! Cosh, Asinh, Acosh, Atanh, TruncateDiv, TruncateMod, Xdivy, Xlogy, Xlog1py, Lgamma,
//! Digamma, Polygamma, Zeta, Erfinv, Ndtri, Rint, ApproximateEqual) against TensorFlow 2.21:
//! a graph TensorFlow built with its own gradient subgraphs
//! (`tests/data/ops_nn5/elementwise.pbtxt`, by `scripts/gen_ops_nn5.py`) imports, every
//! output equals TensorFlow's (float32, float64, float16 and the integer dtypes), the nodes
//! TensorFlow's kernels refuse fail here with TensorFlow's code and message, the shape
//! functions refuse the same static cases, and every gradient added matches finite
//! differences.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::ops;
use tensorgraph::train::gradients;
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Tensor};

const DIR: &str = "ops_nn5";

#[test]
fn tensorflow_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "elementwise", 115);
}

/// TruncateDiv/TruncateMod by an integer 0 (TensorFlow's `Internal` "Unexpected error in
/// binary operator"), ApproximateEqual of two shapes.
#[test]
fn kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    common::refuses_as_tensorflow(DIR, "elementwise", 9, |_, m| m.to_string());
}

/// The part of a TensorFlow shape-function error before ` for '{{node ...`.
fn build_error(key: &str) -> String {
    let exp = common::tf_json(DIR, "elementwise");
    let m = exp["build_errors"][key].as_str().unwrap_or_else(|| panic!("{key}: no TensorFlow error"));
    m.split(" for '{{node").next().unwrap().to_string()
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

#[test]
fn shape_functions_refuse_what_tensorflows_refuse() {
    let g = Graph::new();
    let s = g.scope();
    let (a2, a3) = (c(&s, &[2], vec![1.0f32, 2.0]), c(&s, &[3], vec![1.0f32, 2.0, 3.0]));
    for (key, r) in
        [("approx_shape", ops::approximate_equal(&s, &a2, &a3, 1e-5)), ("atan2_shape", ops::atan2(&s, &a2, &a3))]
    {
        let e = r.err().unwrap_or_else(|| panic!("{key}: built"));
        assert_eq!(e.code, Code::InvalidArgument, "{key}: {e}");
        let want = build_error(key);
        assert!(e.message.contains(&want), "{key}: got {:?}, TensorFlow {want:?}", e.message);
    }
    // TensorFlow: "Value passed to parameter 'x' has DataType int32 not in list of allowed values".
    assert!(build_error("asin_int").contains("not in list of allowed values"));
    let e = ops::asin(&s, &c(&s, &[1], vec![1i32])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    let e = ops::truncate_mod(&s, &c(&s, &[1], vec![1u8]), &c(&s, &[1], vec![1u8])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "TruncateMod has no uint8 kernel in TensorFlow: {e}");
}

/// The builders run to the values TensorFlow's functions give (from the same json), and
/// the gradients chain as TensorFlow's: Lgamma's through Digamma, Digamma's through
/// Polygamma.
#[test]
fn built_ops_run_and_gradients_use_tensorflows_ops() {
    let exp = common::tf_json(DIR, "elementwise");
    let want = |k: &str| -> Vec<f64> {
        exp["outputs"][k]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect()
    };
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[7], vec![-2.5f64, -0.5, 0.1, 1.0, 2.0, 3.7, 30.0]);
    let lg = ops::lgamma(&s, &x).unwrap();
    let a = c(&s, &[2, 4], vec![-7i32, 7, -6, 0, 5, -5, 3, 1]);
    let b = c(&s, &[4], vec![2i32, 2, -4, 3]);
    let td = ops::truncate_div(&s, &a, &b).unwrap();
    let tm = ops::truncate_mod(&s, &a, &b).unwrap();
    let r8 = c(&s, &[8], vec![-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -0.4]);
    let ri = ops::rint(&s, &r8).unwrap();
    let dl = gradients(std::slice::from_ref(&lg), std::slice::from_ref(&x), None).unwrap().remove(0).unwrap();
    let dg = ops::digamma(&s, &x).unwrap();
    let dd = gradients(std::slice::from_ref(&dg), std::slice::from_ref(&x), None).unwrap().remove(0).unwrap();
    let types: Vec<String> = g.operations().iter().map(|o| o.op_type().to_string()).collect();
    assert!(types.iter().any(|t| t == "Polygamma"), "{types:?}");
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&[], &[&lg, &td, &tm, &ri, &dl, &dd, &dg], &[]).unwrap();
    common::assert_close("lgamma", &r[0].to_f64_vec().unwrap(), &want("lgamma_float64"));
    assert_eq!(r[1].to_f64_vec().unwrap(), want("truncatediv_int32"));
    assert_eq!(r[2].to_f64_vec().unwrap(), want("truncatemod_int32"));
    assert_eq!(r[3].to_f64_vec().unwrap(), want("rint_float32"));
    // d/dx lgamma = digamma; d/dx digamma = trigamma, pi^2/6 at 1.
    assert_eq!(r[4].to_f64_vec().unwrap(), r[6].to_f64_vec().unwrap());
    assert!((r[5].to_f64_vec().unwrap()[3] - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-12, "trigamma(1)");
}

const TOL: f64 = 1e-6;

#[test]
fn unary_gradients_match_finite_differences() {
    type Op = fn(&Scope, &Output) -> tensorgraph::Result<Output>;
    let cases: [(&str, Op, f64, f64); 12] = [
        ("asin", ops::asin, -0.8, 0.8),
        ("acos", ops::acos, -0.8, 0.8),
        ("atan", ops::atan, -3.0, 3.0),
        ("sinh", ops::sinh, -2.0, 2.0),
        ("cosh", ops::cosh, -2.0, 2.0),
        ("asinh", ops::asinh, -3.0, 3.0),
        ("acosh", ops::acosh, 1.2, 4.0),
        ("atanh", ops::atanh, -0.8, 0.8),
        ("lgamma", ops::lgamma, 0.3, 5.0),
        ("digamma", ops::digamma, 0.3, 5.0),
        ("erfinv", ops::erfinv, -0.8, 0.8),
        ("ndtri", ops::ndtri, 0.1, 0.9),
    ];
    for (i, (name, f, lo, hi)) in cases.into_iter().enumerate() {
        let seed = 10 + 2 * i as u64;
        check_gradients(&[one(&[2, 3], seed, lo, hi)], TOL, |s, x| {
            let y = f(s, &x[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
            weighted(s, &y, &[2, 3], seed + 1)
        });
    }
}

#[test]
fn binary_gradients_match_finite_differences() {
    type Op = fn(&Scope, &Output, &Output) -> tensorgraph::Result<Output>;
    let cases: [(&str, Op); 4] =
        [("atan2", ops::atan2), ("xdivy", ops::xdivy), ("xlogy", ops::xlogy), ("xlog1py", ops::xlog1py)];
    for (i, (name, f)) in cases.into_iter().enumerate() {
        let seed = 40 + 3 * i as u64;
        // broadcasting [2, 3] against [3], and one shape
        check_gradients(&[one(&[2, 3], seed, 0.2, 2.0), one(&[3], seed + 1, 0.2, 2.0)], TOL, |s, x| {
            weighted(s, &f(s, &x[0], &x[1]).unwrap_or_else(|e| panic!("{name}: {e}")), &[2, 3], seed + 2)
        });
        check_gradients(&[one(&[3], seed, -2.0, 2.0), one(&[3], seed + 1, 0.2, 2.0)], TOL, |s, x| {
            weighted(s, &f(s, &x[0], &x[1]).unwrap(), &[3], seed + 2)
        });
    }
}

/// Polygamma and Zeta have gradients to their second input only (TensorFlow's `None` to the
/// first): checked with the first a constant.
#[test]
fn polygamma_and_zeta_gradients_match_finite_differences() {
    for n in [0.0f64, 1.0, 2.0] {
        check_gradients(&[one(&[2, 3], 60, 0.5, 3.0)], TOL, |s, x| {
            let n = c(s, &[3], vec![n, n, n]);
            weighted(s, &ops::polygamma(s, &n, &x[0]).unwrap(), &[2, 3], 61)
        });
    }
    check_gradients(&[one(&[3], 62, 0.5, 3.0)], TOL, |s, x| {
        let xs = c(s, &[2, 1], vec![2.0f64, 3.5]);
        weighted(s, &ops::zeta(s, &xs, &x[0]).unwrap(), &[2, 3], 63)
    });
    // The first input's gradient is None, as TensorFlow's.
    let g = Graph::new();
    let s = g.scope();
    let (a, b) = (ops::placeholder(&s, DType::Double, [2]).unwrap(), ops::placeholder(&s, DType::Double, [2]).unwrap());
    for y in [ops::polygamma(&s, &a, &b).unwrap(), ops::zeta(&s, &a, &b).unwrap()] {
        let gs = gradients(std::slice::from_ref(&y), &[a.clone(), b.clone()], None).unwrap();
        assert!(gs[0].is_none() && gs[1].is_some());
    }
}

/// int8/int16/uint8/uint16 through AddV2 (broadcasting too), Sub, Mul, FloorDiv, FloorMod,
/// Square, Neg and Abs (signed only, as TensorFlow registers them), BiasAdd (NHWC and NCHW)
/// and BiasAddGrad: exactly TensorFlow's wrapped integers, and its `Integer division by
/// zero`; float16 MatrixInverse, LRN and LRNGrad computed in float32 as TensorFlow's.
#[test]
fn small_integer_and_half_kernels_match_tensorflow() {
    common::runs_to_tensorflows_values(DIR, "small_ints", 47);
    common::refuses_as_tensorflow(DIR, "small_ints", 8, |_, m| m.to_string());
}

/// SegmentSum/Mean/Max/Min/Prod (float32, float64, int32 with int32 and int64 ids, int8,
/// uint8; empty segments, NaN, ties) and TensorFlow's gradient subgraphs of them:
/// TensorFlow's values, its kernels' errors (`segment ids are not increasing`, ...) and its
/// shape function's.
#[test]
fn segment_reductions_match_tensorflow() {
    common::runs_to_tensorflows_values(DIR, "segments", 37);
    common::refuses_as_tensorflow(DIR, "segments", 5, |_, m| m.to_string());
    let exp = common::tf_json(DIR, "segments");
    let g = Graph::new();
    let s = g.scope();
    let r = ops::segment_reduce(
        &s,
        ops::segment_reduce::Kind::Sum,
        &c(&s, &[1, 2], vec![1.0f32, 2.0]),
        &c(&s, &[1, 1], vec![0i32]),
    );
    let e = r.expect_err("built");
    let want = exp["build_errors"]["seg_rank"].as_str().unwrap().split(" for '{{node").next().unwrap().to_string();
    assert!(e.message.contains(&want), "got {:?}, TensorFlow {want:?}", e.message);
    // TensorFlow's shape function does not compare the lengths: the kernel refuses them.
    assert!(exp["build_errors"]["seg_size"].is_null());
}

#[test]
fn segment_reduction_gradients_match_finite_differences() {
    use ops::segment_reduce::Kind;
    for (i, kind) in [Kind::Sum, Kind::Mean, Kind::Max, Kind::Min, Kind::Prod].into_iter().enumerate() {
        let seed = 70 + 2 * i as u64;
        let (shape, mut v) = one(&[6, 2], seed, -2.0, 2.0);
        if kind == Kind::Prod {
            v[4] = 0.0; // one zero in a segment: the product of the others flows to it
        }
        check_gradients(&[(shape, v)], TOL, |s, x| {
            let ids = c(s, &[6], vec![0i64, 0, 2, 2, 2, 3]);
            weighted(s, &ops::segment_reduce(s, kind, &x[0], &ids).unwrap(), &[4, 2], seed + 1)
        });
    }
}

/// UnsortedSegmentMax/Min/Prod (negative ids dropped, empty segments at the dtype's lowest
/// or highest value, 2-d ids) and EuclideanNorm (axes, keep_dims, wrapping integers,
/// float16) with TensorFlow's gradient subgraphs: TensorFlow's values and errors.
#[test]
fn unsorted_segment_reductions_and_euclidean_norm_match_tensorflow() {
    common::runs_to_tensorflows_values(DIR, "reductions", 29);
    common::refuses_as_tensorflow(DIR, "reductions", 1, |_, m| m.to_string());
}

#[test]
fn unsorted_segment_and_euclidean_norm_gradients_match_finite_differences() {
    use ops::unsorted_segment::Kind;
    for (i, kind) in [Kind::Max, Kind::Min, Kind::Prod].into_iter().enumerate() {
        let seed = 90 + 2 * i as u64;
        let (shape, mut v) = one(&[6, 2], seed, -2.0, 2.0);
        if kind == Kind::Prod {
            v[3] = 0.0;
        }
        check_gradients(&[(shape, v)], TOL, |s, x| {
            // no empty segment: its lowest-value fill would overflow the differences
            let ids = c(s, &[6], vec![3i32, 0, -1, 3, 1, 2]);
            let n = c(s, &[], vec![4i32]);
            weighted(s, &ops::unsorted_segment_reduce(s, kind, &x[0], &ids, &n).unwrap(), &[4, 2], seed + 1)
        });
    }
    for (axes, keep, out) in
        [(Some(&[0, 2][..]), false, vec![3]), (Some(&[1][..]), true, vec![2, 1, 4]), (None, false, vec![])]
    {
        check_gradients(&[one(&[2, 3, 4], 97, -2.0, 2.0)], TOL, |s, x| {
            weighted(s, &ops::reduce_euclidean_norm(s, &x[0], axes, keep).unwrap(), &out, 98)
        });
    }
}

/// MatrixBandPart (batched, negative bounds, int64 bounds, bool and uint8) and its gradient
/// subgraph: TensorFlow's values and its kernel's errors.
#[test]
fn matrix_band_part_matches_tensorflow() {
    common::runs_to_tensorflows_values(DIR, "linalg", 11);
    common::refuses_as_tensorflow(DIR, "linalg", 4, |_, m| m.to_string());
}

#[test]
fn matrix_band_part_gradient_matches_finite_differences() {
    for (lo, hi) in [(1i64, 0i64), (0, -1), (-1, 2)] {
        check_gradients(&[one(&[2, 3, 4], 99, -1.0, 1.0)], TOL, |s, x| {
            let y = ops::matrix_band_part(s, &x[0], &c(s, &[], vec![lo]), &c(s, &[], vec![hi])).unwrap();
            weighted(s, &y, &[2, 3, 4], 100)
        });
    }
}

/// TensorScatterUpdate/Add/Sub (rows and elements, repeated indices, int64 indices,
/// float16) and TensorFlow's gradient subgraphs: TensorFlow's values and its kernels'
/// errors.
#[test]
fn tensor_scatters_match_tensorflow() {
    common::runs_to_tensorflows_values(DIR, "scatter", 46);
    common::refuses_as_tensorflow(DIR, "scatter", 4, |_, m| m.to_string());
}

#[test]
fn tensor_scatter_gradients_match_finite_differences() {
    use ops::tensor_scatter::Kind;
    for (i, kind) in [Kind::Update, Kind::Add, Kind::Sub].into_iter().enumerate() {
        let seed = 110 + 2 * i as u64;
        check_gradients(&[one(&[4, 3], seed, -1.0, 1.0), one(&[2, 3], seed + 1, -1.0, 1.0)], TOL, |s, x| {
            let idx = c(s, &[2, 1], vec![2i32, 0]);
            weighted(s, &ops::tensor_scatter(s, kind, &x[0], &idx, &x[1]).unwrap(), &[4, 3], seed + 2)
        });
    }
}
