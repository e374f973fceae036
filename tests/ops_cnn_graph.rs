//! A GraphDef TensorFlow 2.21 wrote (tests/data/nnops_cnn.pbtxt, from
//! `scripts/nnops_reference.py graph`) using the deployed-CNN ops: DepthwiseConv2dNative,
//! FusedBatchNormV3 in training (NHWC) and inference (NCHW), Relu6, conv2d_transpose,
//! LeakyRelu, Elu, Selu, Softplus, Softsign, Erf, and `tf.gradients` of a loss through
//! all of them (FusedBatchNormGradV3, the depthwise backprop ops, Relu6Grad, EluGrad,
//! SeluGrad, LeakyReluGrad, SoftsignGrad, ...). Imported and run here to TensorFlow's
//! values (the consts below, printed by the same script).

mod common;
use common::{assert_close, repo_root};
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def_text, ImportGraphDefOptions};
use tensorgraph::{Graph, Session, Tensor};

fn pattern(n: usize, mul: usize, modulo: usize, div: f32) -> Vec<f32> {
    (0..n).map(|i| ((i * mul) % modulo) as f32 - (modulo / 2) as f32).map(|v| v / div).collect()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

#[test]
fn tensorflows_cnn_graph_and_its_gradients_run_to_tensorflows_values() {
    let gd = read_graph_def_text(repo_root().join("tests/data/nnops_cnn.pbtxt")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let t = |name: &str| g.tensor_by_name(name).unwrap();
    let (x, out, gi, gf) = (t("input:0"), t("out:0"), t("grad_input:0"), t("grad_filter:0"));
    let op_types: std::collections::BTreeSet<String> = g.operations().iter().map(|o| o.op_type()).collect();
    for op in ["FusedBatchNormGradV3", "DepthwiseConv2dNativeBackpropFilter", "Relu6Grad", "SeluGrad", "Erf"] {
        assert!(op_types.contains(op), "{op} in {op_types:?}");
    }
    let sess = Session::new(&g).unwrap();
    let feed = Tensor::new(&[1, 4, 4, 2], pattern(32, 7, 23, 8.0)).unwrap();
    let got = sess.run(&[(&x, feed)], &[&out, &gi, &gf], &[]).unwrap();
    assert_eq!(got[0].shape(), [1, 21]);
    assert_close("out", &got[0].to_f64_vec().unwrap(), &f64s(OUT));
    assert_close("grad_input", &got[1].to_f64_vec().unwrap(), &f64s(GRAD_INPUT));
    assert_close("grad_filter", &got[2].to_f64_vec().unwrap(), &f64s(GRAD_FILTER));
}

// ---- TensorFlow 2.21's values: scripts/nnops_reference.py graph
/// shape [1, 21]
const OUT: &[f32] = &[
    1.5121138,
    1.4130423,
    0.86778945,
    1.4271638,
    1.2382926,
    0.5633952,
    1.4276005,
    1.1250894,
    0.27693954,
    1.7837734,
    1.7099234,
    1.2247572,
    0.38152778,
    0.18428741,
    -0.1277323,
    0.550569,
    0.2592386,
    -0.17746395,
    1.5288352,
    1.4739859,
    0.9390662,
];
/// shape [1, 4, 4, 2]
const GRAD_INPUT: &[f32] = &[
    -0.075494915,
    0.114525676,
    0.034965113,
    -0.087927684,
    -0.063252255,
    0.039169874,
    -0.039903983,
    0.051707417,
    -0.047492646,
    -0.12361116,
    -0.032293286,
    0.053949885,
    0.023269039,
    0.07816905,
    0.0019749778,
    0.010126235,
    -0.008000257,
    -0.117606364,
    0.0023302063,
    0.019928627,
    0.08724926,
    0.13764322,
    0.0071508437,
    -0.16736065,
    0.034212418,
    -0.010744921,
    -0.042901397,
    -0.084978715,
    0.011065071,
    -0.16344388,
    0.009244006,
    -0.035060685,
];
/// shape [3, 3, 2, 2]
const GRAD_FILTER: &[f32] = &[
    0.0,
    -0.03712418,
    -0.064411685,
    0.011883518,
    0.0,
    -0.01711217,
    0.17854187,
    -0.04273355,
    0.0,
    0.017090986,
    0.06684281,
    -0.042495564,
    0.0,
    -0.0018231268,
    0.07176174,
    0.0275888,
    0.0,
    -0.097036995,
    -0.10350558,
    -0.020175708,
    0.0,
    -0.05636813,
    0.012072789,
    -0.033204086,
    0.0,
    0.010479843,
    -0.038699653,
    0.03603104,
    0.0,
    0.0043657105,
    0.2229126,
    0.016531948,
    0.0,
    -0.044729188,
    -0.10355038,
    -0.01320758,
];
