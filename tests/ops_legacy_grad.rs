//! A training graph in which TensorFlow 2.21 itself emits TF 1.x's `Select`
//! (`tf.compat.v1.where`) and `BatchMatMul`, with TensorFlow's own gradient graph of them
//! (`Select`s and `BatchMatMulV2`s under `gradients/`), written by
//! `scripts/gen_legacy_grad.py` (`tests/data/legacy/legacy_grad.pbtxt`, TF's values in
//! `legacy_grad.json`): imported and run here to TensorFlow's forward values and gradients,
//! and tensorgraph's own gradients of the imported loss agree with them.

mod common;
use common::{assert_close, flat_f64, repo_root};
use serde_json::Value;
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::train::gradients;
use tensorgraph::{Graph, Output, Session, Tensor};

fn expected() -> Value {
    let path = repo_root().join("tests/data/legacy/legacy_grad.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn import() -> Graph {
    let g = Graph::new();
    let gd = read_graph_def_any(repo_root().join("tests/data/legacy/legacy_grad.pbtxt")).unwrap();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

fn shape(v: &Value) -> Vec<usize> {
    v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect()
}

/// The JSON's feeds (float32, and the bool condition `c`) as tensors of the graph.
fn feeds(g: &Graph, want: &Value) -> Vec<(Output, Tensor)> {
    let mut out = Vec::new();
    for (name, v) in want["feeds"].as_object().unwrap() {
        let t = match v["values"][0] {
            Value::Bool(_) => {
                Tensor::new(&shape(v), v["values"].as_array().unwrap().iter().map(|b| b.as_bool().unwrap()).collect())
            }
            _ => Tensor::new(&shape(v), flat_f64(&v["values"]).iter().map(|&x| x as f32).collect()),
        };
        out.push((g.tensor_by_name(name).unwrap(), t.unwrap()));
    }
    out
}

fn check(what: &str, got: &Tensor, want: &Value) {
    assert_eq!(got.shape().to_vec(), shape(want), "{what}: shape");
    assert_close(what, &got.to_f64_vec().unwrap(), &flat_f64(&want["values"]));
}

#[test]
fn tensorflows_select_and_batch_matmul_graph_with_its_gradients_runs_to_its_values() {
    let want = expected();
    let g = import();
    // the legacy op types are TensorFlow's own nodes, forward and in its gradient graph
    assert_eq!(g.operation_by_name("select").unwrap().op_type(), "Select");
    assert_eq!(g.operation_by_name("bmm").unwrap().op_type(), "BatchMatMul");
    assert_eq!(g.operation_by_name("bmm_adj").unwrap().op_type(), "BatchMatMul");
    let grad_ops = want["gradient_ops"].as_object().unwrap();
    assert_eq!(grad_ops.values().filter(|t| t.as_str() == Some("Select")).count(), 4);
    for (name, op_type) in grad_ops {
        assert_eq!(g.operation_by_name(name).unwrap().op_type(), op_type.as_str().unwrap(), "{name}");
    }
    let sess = Session::new(&g).unwrap();
    let feeds = feeds(&g, &want);
    let feed_refs: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    let values = want["values"].as_object().unwrap();
    let names: Vec<&String> = values.keys().collect();
    let fetches: Vec<Output> = names.iter().map(|n| g.tensor_by_name(n).unwrap()).collect();
    let got = sess.run(&feed_refs, &fetches.iter().collect::<Vec<_>>(), &[]).unwrap();
    for (name, t) in names.iter().zip(&got) {
        check(name, t, &values[name.as_str()]);
    }
}

#[test]
fn tensorgraphs_gradients_of_the_imported_loss_match_tensorflows() {
    let want = expected();
    let g = import();
    let xs: Vec<Output> = ["x:0", "y:0", "a:0", "b:0"].iter().map(|n| g.tensor_by_name(n).unwrap()).collect();
    let loss = g.tensor_by_name("loss:0").unwrap();
    let grads: Vec<Output> = gradients(&[loss], &xs, None).unwrap().into_iter().map(|d| d.unwrap()).collect();
    let sess = Session::new(&g).unwrap();
    let feeds = feeds(&g, &want);
    let feed_refs: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    let got = sess.run(&feed_refs, &grads.iter().collect::<Vec<_>>(), &[]).unwrap();
    // TensorFlow's gradient tensors for x, y, a, b, in that order
    for (i, name) in want["gradients"].as_array().unwrap().iter().enumerate() {
        let name = name.as_str().unwrap();
        check(&format!("d loss / d {}", xs[i].name()), &got[i], &want["values"][name]);
    }
}
