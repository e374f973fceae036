//! TensorList ops and `variant` tensors against TensorFlow 2.21
//! (tests/data/tensor_list, written by scripts/gen_tensor_list.py):
//!
//! - a graph of every TensorList op on fed placeholders runs to TensorFlow's values, and
//!   the `err_*` fetches fail with TensorFlow's messages and codes;
//! - a tf_keras LSTM SavedModel (TensorLists inside a `While`) runs to TensorFlow's
//!   outputs at batch 1 and 3;
//! - a `tf.function` returning a `GradientTape` gradient through a `tf.while_loop` (while_v2
//!   accumulators: `TensorListPushBack` in the forward loop, `TensorListPopBack` in the
//!   backward one) runs to TensorFlow's y and gradients;
//! - the list ops' gradients built here match finite differences;
//! - a list is a value (copy on write) and flows through a TF1 `cond`'s Switch and Merge;
//! - variant values are refused where they would be serialized.

mod common;
#[path = "control_flow_common/mod.rs"]
mod control_flow_common;

use control_flow_common::tensor;
use serde_json::Value;
use std::path::PathBuf;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::io::saved_model::SavedModelBundle;
use tensorgraph::tensor::TensorList;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tensor_list").join(name)
}

fn json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(data(name)).unwrap()).unwrap()
}

fn import(name: &str) -> Graph {
    let text = std::fs::read_to_string(data(name)).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

fn feeds(g: &Graph, e: &Value) -> Vec<(Output, Tensor)> {
    e["feeds"].as_object().unwrap().iter().map(|(k, v)| (g.tensor_by_name(k).unwrap(), tensor(v))).collect()
}

fn run(sess: &Session, fs: &[(Output, Tensor)], fetch: &Output) -> tensorgraph::Result<Tensor> {
    let feeds: Vec<(&Output, Tensor)> = fs.iter().map(|(o, t)| (o, t.clone())).collect();
    Ok(sess.run(&feeds, &[fetch], &[])?.remove(0))
}

#[test]
fn list_ops_run_to_tensorflows_values() {
    let e = json("list_ops.json");
    let g = import("list_ops.pbtxt");
    let sess = Session::new(&g).unwrap();
    let fs = feeds(&g, &e);
    let values = e["values"].as_object().unwrap();
    assert_eq!(values.len(), 24);
    for (name, want) in values {
        let fetch = g.tensor_by_name(want["fetch"].as_str().unwrap()).unwrap();
        let got = run(&sess, &fs, &fetch).unwrap_or_else(|err| panic!("{name}: {err}"));
        let want_t = tensor(want);
        assert_eq!(got.dtype(), want_t.dtype(), "{name}");
        assert_eq!(got.shape(), want_t.shape(), "{name}");
        assert_eq!(got.to_f64_vec().unwrap(), want_t.to_f64_vec().unwrap(), "{name}");
    }
}

#[test]
fn list_op_errors_are_tensorflows() {
    let e = json("list_ops.json");
    let g = import("list_ops.pbtxt");
    let sess = Session::new(&g).unwrap();
    let fs = feeds(&g, &e);
    let errors = e["errors"].as_object().unwrap();
    assert_eq!(errors.len(), 15);
    for (name, want) in errors {
        let fetch = g.tensor_by_name(want["fetch"].as_str().unwrap()).unwrap();
        let err = run(&sess, &fs, &fetch).expect_err(name);
        // TensorFlow's status code numbers
        let code = match err.code {
            Code::InvalidArgument => 3,
            Code::OutOfRange => 11,
            Code::Unimplemented => 12,
            Code::FailedPrecondition => 9,
            _ => -1,
        };
        assert_eq!(code, want["code"].as_i64().unwrap(), "{name}: {err}");
        let msg = want["message"].as_str().unwrap();
        assert!(err.message.contains(msg), "{name}: got {:?}, TensorFlow {msg:?}", err.message);
    }
}

#[test]
fn keras_lstm_saved_model_runs_to_tensorflows_outputs() {
    let model = SavedModelBundle::load(data("lstm"), &["serve"]).unwrap();
    assert!(model.left_out().is_empty(), "{:?}", model.left_out());
    for batch in [1, 3] {
        let x = Tensor::read_npy(data(&format!("lstm_x{batch}.npy"))).unwrap();
        let want = Tensor::read_npy(data(&format!("lstm_y{batch}.npy"))).unwrap();
        let out = model.run_signature("serving_default", &[("seq", x)], &[]).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, "lstm");
        let got = &out[0].1;
        assert_eq!(got.shape(), [batch, 5, 4]);
        assert_eq!(want.shape(), [batch, 5, 4]);
        let (g, w) = (got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1e-1), "batch {batch} [{i}]: got {a}, TensorFlow {b}");
        }
    }
}

#[test]
fn tape_gradient_through_while_v2_runs_to_tensorflows_values() {
    let e = json("while_grad.json");
    let g = import("while_grad.pbtxt");
    let sess = Session::new(&g).unwrap();
    let mut fs = feeds(&g, &e);
    let n = g.tensor_by_name("n:0").unwrap();
    for c in e["cases"].as_array().unwrap() {
        fs.retain(|(o, _)| o.name() != "n:0");
        fs.push((n.clone(), Tensor::scalar(c["n"].as_i64().unwrap() as i32)));
        for out in ["y", "gx", "gw"] {
            let got = run(&sess, &fs, &g.tensor_by_name(&format!("{out}:0")).unwrap()).unwrap();
            let want = tensor(&c[out]);
            assert_eq!(got.shape(), want.shape(), "n = {} {out}", c["n"]);
            common::assert_close(
                &format!("n = {} {out}", c["n"]),
                &got.to_f64_vec().unwrap(),
                &want.to_f64_vec().unwrap(),
            );
        }
    }
}

fn i32c(s: &Scope, v: Vec<i32>) -> Output {
    ops::constant(s, Tensor::vector(v)).unwrap()
}

fn i32s(s: &Scope, v: i32) -> Output {
    ops::constant(s, Tensor::scalar(v)).unwrap()
}

#[test]
fn from_tensor_stack_get_and_set_item_gradients() {
    // y = stack(set_item(from_tensor(x), 1, v * v)) * w + get_item(list, 2) broadcast
    common::check_gradients(&[common::one(&[4, 3], 1, -1.0, 1.0), common::one(&[3], 2, -1.0, 1.0)], 1e-6, |s, x| {
        let l = ops::tensor_list::tensor_list_from_tensor(s, &x[0], &i32c(s, vec![3])).unwrap();
        let item = ops::mul(s, &x[1], &x[1]).unwrap();
        let l2 = ops::tensor_list::tensor_list_set_item(s, &l, &i32s(s, 1), &item).unwrap();
        let st = ops::tensor_list::tensor_list_stack(s, &l2, &i32c(s, vec![3]), DType::Double, 4).unwrap();
        let got =
            ops::tensor_list::tensor_list_get_item(s, &l2, &i32s(s, 2), &i32c(s, vec![3]), DType::Double).unwrap();
        let a = common::weighted(s, &st, &[4, 3], 3);
        let b = common::weighted(s, &got, &[3], 4);
        ops::add(s, &ops::reduce_sum(s, &a, Some(&[0]), false).unwrap(), &b).unwrap()
    });
}

#[test]
fn push_back_pop_back_gradients() {
    common::check_gradients(&[common::one(&[2], 5, -1.0, 1.0), common::one(&[2], 6, -1.0, 1.0)], 1e-6, |s, x| {
        let e = ops::tensor_list::empty_tensor_list(s, &i32c(s, vec![2]), &i32s(s, -1), DType::Double).unwrap();
        let p1 = ops::tensor_list::tensor_list_push_back(s, &e, &x[0]).unwrap();
        let p2 = ops::tensor_list::tensor_list_push_back(s, &p1, &ops::tanh(s, &x[1]).unwrap()).unwrap();
        let (rest, last) = ops::tensor_list::tensor_list_pop_back(s, &p2, &i32c(s, vec![2]), DType::Double).unwrap();
        let st = ops::tensor_list::tensor_list_stack(s, &rest, &i32c(s, vec![2]), DType::Double, -1).unwrap();
        let a = common::weighted(s, &st, &[1, 2], 7);
        let b = common::weighted(s, &last, &[2], 8);
        ops::add(s, &ops::reduce_sum(s, &a, Some(&[0]), false).unwrap(), &b).unwrap()
    });
}

#[test]
fn gather_scatter_and_resize_gradients() {
    common::check_gradients(
        &[common::one(&[3, 2], 9, -1.0, 1.0), common::one(&[2, 2], 10, -1.0, 1.0)],
        1e-6,
        |s, x| {
            let l = ops::tensor_list::tensor_list_from_tensor(s, &x[0], &i32c(s, vec![2])).unwrap();
            let l =
                ops::tensor_list::tensor_list_scatter_into_existing_list(s, &l, &x[1], &i32c(s, vec![2, 0])).unwrap();
            let l = ops::tensor_list::tensor_list_resize(s, &l, &i32s(s, 4)).unwrap();
            let gat =
                ops::tensor_list::tensor_list_gather(s, &l, &i32c(s, vec![2, 1, 3]), &i32c(s, vec![2]), DType::Double)
                    .unwrap();
            let sv = ops::tensor_list::tensor_list_scatter_v2(
                s,
                &ops::tanh(s, &x[1]).unwrap(),
                &i32c(s, vec![1, 0]),
                &i32c(s, vec![2]),
                &i32s(s, -1),
            )
            .unwrap();
            let st = ops::tensor_list::tensor_list_stack(s, &sv, &i32c(s, vec![2]), DType::Double, -1).unwrap();
            let a = common::weighted(s, &gat, &[3, 2], 11);
            let b = common::weighted(s, &st, &[2, 2], 12);
            ops::add(
                s,
                &ops::reduce_sum(s, &a, Some(&[0]), false).unwrap(),
                &ops::reduce_sum(s, &b, Some(&[0]), false).unwrap(),
            )
            .unwrap()
        },
    );
}

#[test]
fn split_and_concat_gradients() {
    common::check_gradients(&[common::one(&[5, 2], 13, -1.0, 1.0)], 1e-6, |s, x| {
        let lengths = ops::constant(s, Tensor::vector(vec![2i64, 3])).unwrap();
        let l = ops::tensor_list::tensor_list_split(s, &x[0], &i32c(s, vec![-1, 2]), &lengths).unwrap();
        let item =
            ops::tensor_list::tensor_list_get_item(s, &l, &i32s(s, 1), &i32c(s, vec![-1, 2]), DType::Double).unwrap();
        let l =
            ops::tensor_list::tensor_list_set_item(s, &l, &i32s(s, 1), &ops::mul(s, &item, &item).unwrap()).unwrap();
        let empty = ops::constant(s, Tensor::vector(Vec::<i64>::new())).unwrap();
        let (c, _) =
            ops::tensor_list::tensor_list_concat_v2(s, &l, &i32c(s, vec![-1, 2]), &empty, DType::Double).unwrap();
        common::weighted(s, &c, &[5, 2], 14)
    });
}

#[test]
fn a_list_is_a_value_copied_on_write() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::new(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap()).unwrap();
    let l = ops::tensor_list::tensor_list_from_tensor(&s, &x, &i32c(&s, vec![2])).unwrap();
    let v = ops::constant(&s, Tensor::vector(vec![9f32, 9.])).unwrap();
    let l2 = ops::tensor_list::tensor_list_set_item(&s, &l, &i32s(&s, 0), &v).unwrap();
    let sess = Session::new(&g).unwrap();
    // the input list, fetched beside the changed one, keeps its elements
    let out = sess.run(&[], &[&l, &l2], &[]).unwrap();
    assert_eq!(out[0].dtype(), DType::Variant);
    let (a, b) = (out[0].tensor_list().unwrap(), out[1].tensor_list().unwrap());
    assert_eq!(a.tensors[0].as_ref().unwrap().to_vec::<f32>().unwrap(), [1., 2.]);
    assert_eq!(b.tensors[0].as_ref().unwrap().to_vec::<f32>().unwrap(), [9., 9.]);
    assert_eq!(b.element_shape, Shape::known(&[2]));
    // ZerosLike of a list zeroes its elements
    let z = ops::zeros_like(&s, &l2).unwrap();
    let z = sess.run(&[], &[&z], &[]).unwrap().remove(0);
    let zl: &TensorList = z.tensor_list().unwrap();
    assert_eq!(zl.tensors[1].as_ref().unwrap().to_vec::<f32>().unwrap(), [0., 0.]);
}

#[test]
fn variant_values_are_never_serialized() {
    let list = Tensor::from_tensor_list(TensorList::new(DType::Float, Shape::unknown()));
    let g = Graph::new();
    let err = ops::constant(&g.scope().named("c"), list.clone()).unwrap_err();
    assert_eq!(err.code, Code::Unimplemented);
    assert!(err.message.contains("Const 'c'") && err.message.contains("variant"), "{}", err.message);
    let err = list.write_npy(std::env::temp_dir().join("tensorgraph_variant.npy")).unwrap_err();
    assert_eq!(err.code, Code::Unimplemented);
    assert_eq!(Tensor::try_zeros(DType::Variant, &[1]).unwrap_err().code, Code::Unimplemented);
    // a TensorList op given a plain tensor: TensorFlow's GetInputList message
    let err = Tensor::scalar(1f32).tensor_list().unwrap_err();
    assert_eq!(err.message, "Input handle is not a list. Saw: 'a float32 tensor'");
}

#[test]
fn a_list_flows_through_tf1_cond() {
    // Switch/Merge (and the branches' Identities) pass a variant tensor on unchanged
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::new(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap()).unwrap();
    let l = ops::tensor_list::tensor_list_from_tensor(&s, &x, &i32c(&s, vec![2])).unwrap();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::scalar()).unwrap();
    let out = ops::cond(
        &s,
        &p,
        |b| {
            let v = ops::constant(b, Tensor::vector(vec![7f32, 8.])).unwrap();
            Ok(vec![ops::tensor_list::tensor_list_set_item(b, &l, &i32s(b, 1), &v)?])
        },
        |b| Ok(vec![ops::identity(b, &l)?]),
    )
    .unwrap();
    let st = ops::tensor_list::tensor_list_stack(&s, &out[0], &i32c(&s, vec![2]), DType::Float, -1).unwrap();
    let sess = Session::new(&g).unwrap();
    for (pv, want) in [(true, [1f32, 2., 7., 8.]), (false, [1., 2., 3., 4.])] {
        let got = sess.run(&[(&p, Tensor::scalar(pv))], &[&st], &[]).unwrap().remove(0);
        assert_eq!(got.to_vec::<f32>().unwrap(), want, "p = {pv}");
    }
}
