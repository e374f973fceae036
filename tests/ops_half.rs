//! float16 and bfloat16 math and nn ops (issue 9, F6), computed in float32 and rounded as
//! TensorFlow's CPU kernels do, against TensorFlow 2.21's results
//! (scripts/gen_ops_half.py writes tests/data/ops_half: the graph, and each fetch's dtype,
//! shape and values).

mod common;
use common::repo_root;
use serde_json::Value;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::{DType, Graph, Session};

/// Ops that sum or average many narrow values: TensorFlow's kernels accumulate some of
/// them in the narrow dtype, here in float32, so the last bits may differ.
const ACCUMULATING: &[&str] = &[
    "l2",
    "mean",
    "sum",
    "cumsum",
    "matmul",
    "bmm",
    "conv",
    "depthwise",
    "softmax",
    "log_softmax",
    "avg_pool",
    "addn",
];

/// The spacing of `dtype`'s values near `x` (float16: 10 fraction bits, bfloat16: 7),
/// at least that of its smallest normal value.
fn ulp(dtype: &str, x: f64) -> f64 {
    let (bits, min_exp) = if dtype == "float16" { (10, -14) } else { (7, -126) };
    let e = if x == 0.0 { min_exp } else { (x.abs().log2().floor() as i32).max(min_exp) };
    2f64.powi(e - bits)
}

#[test]
fn float16_and_bfloat16_ops_give_tensorflows_values() {
    let root = repo_root().join("tests/data/ops_half");
    let gd = graph_def_from_text(&std::fs::read_to_string(root.join("graph.pbtxt")).unwrap()).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let sess = Session::new(&g).unwrap();
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap()).unwrap();
    let cases = expected.as_array().unwrap();
    assert_eq!(cases.len(), 86);
    let mut worst = Vec::new();
    for c in cases {
        let fetch = c["fetch"].as_str().unwrap();
        let dtype = c["dtype"].as_str().unwrap();
        let out = g.tensor_by_name(fetch).unwrap();
        let got = sess.fetch(&[], &out).unwrap_or_else(|e| panic!("{fetch}: {e}"));
        assert_eq!(got.dtype().name(), dtype, "{fetch}");
        let shape: Vec<usize> = c["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(got.shape(), shape.as_slice(), "{fetch}");
        let want = c["values"].as_array().unwrap();
        if dtype == "bool" {
            let got = got.as_slice::<bool>().unwrap();
            let want: Vec<bool> = want.iter().map(|v| v.as_bool().unwrap()).collect();
            assert_eq!(got, want.as_slice(), "{fetch}");
            continue;
        }
        let got = got.convert(DType::Double).unwrap();
        let got = got.as_slice::<f64>().unwrap();
        let want: Vec<f64> =
            want.iter().map(|v| v.as_f64().unwrap_or_else(|| v.as_str().unwrap().parse().unwrap())).collect();
        let name = fetch
            .split('_')
            .take_while(|p| !p.starts_with("float") && !p.starts_with("bfloat"))
            .collect::<Vec<_>>()
            .join("_");
        let narrow = if dtype == "float32" { fetch.rsplit('_').next().unwrap().trim_end_matches(":0") } else { dtype };
        let largest = want.iter().fold(0f64, |m, w| m.max(w.abs()));
        let mut err_ulps = 0f64;
        for (i, (a, w)) in got.iter().zip(&want).enumerate() {
            if w.is_infinite() || w.is_nan() {
                assert!(a == w || (a.is_nan() && w.is_nan()), "{fetch}[{i}]: {a} against TensorFlow's {w}");
                continue;
            }
            // accumulating ops: in units of the spacing at the output's largest value; Elu
            // and Selu: at 1 at least, since TensorFlow computes exp(x) - 1 in the narrow
            // dtype, which cancels for x near 0 (here in float32, more precisely)
            let unit = if ACCUMULATING.contains(&name.as_str()) {
                ulp(narrow, largest)
            } else if name == "elu" || name == "selu" {
                ulp(narrow, w.abs().max(1.0))
            } else {
                ulp(narrow, *w)
            };
            err_ulps = err_ulps.max((a - w).abs() / unit);
        }
        worst.push((fetch.to_string(), err_ulps));
        // composite kernels (softplus, sigmoid, ...) round each step in TensorFlow
        assert!(err_ulps <= 2.0, "{fetch}: {err_ulps} units of the last place from TensorFlow's values");
    }
    // most agree exactly: a float32 computation rounded once
    let exact = worst.iter().filter(|(_, e)| *e == 0.0).count();
    assert!(exact >= 40, "{exact} of {} exact: {worst:?}", worst.len());
}

#[test]
fn gradients_flow_through_float16_ops_as_through_float32_ones() {
    use tensorgraph::{ops, train::gradients, Shape, Tensor};
    let x_values = [-1.5f32, -0.25, 0.5, 2.0, 3.25, -0.75];
    let grad_of = |dtype: DType| -> Vec<f64> {
        let g = Graph::new();
        let s = g.scope();
        let x = ops::placeholder(&s.named("x"), dtype, Shape::known(&[2, 3])).unwrap();
        let w = ops::cast(
            &s,
            &ops::constant(&s, Tensor::new(&[3, 2], vec![0.5f32, -1.0, 0.25, 2.0, -0.5, 1.5]).unwrap()).unwrap(),
            dtype,
        )
        .unwrap();
        let h = ops::sigmoid(&s, &ops::matmul(&s, &x, &w).unwrap()).unwrap();
        let loss = ops::reduce_sum(&s, &ops::mul(&s, &h, &h).unwrap(), None, false).unwrap();
        let dx = gradients(&[loss], std::slice::from_ref(&x), None).unwrap().remove(0).unwrap();
        assert_eq!(dx.dtype(), dtype);
        let feed = Tensor::new(&[2, 3], x_values.to_vec()).unwrap().convert(dtype).unwrap();
        let out = Session::new(&g).unwrap().run(&[(&x, feed)], &[&dx], &[]).unwrap().remove(0);
        out.convert(DType::Double).unwrap().as_slice::<f64>().unwrap().to_vec()
    };
    let want = grad_of(DType::Float);
    for dtype in [DType::Half, DType::BFloat16] {
        let got = grad_of(dtype);
        let bits = if dtype == DType::Half { 10 } else { 7 };
        for (a, w) in got.iter().zip(&want) {
            // a few roundings of the narrow dtype along the chain
            assert!((a - w).abs() <= 8.0 * w.abs().max(0.1) * 2f64.powi(-bits), "{dtype}: {a} against float32's {w}");
        }
    }
}
