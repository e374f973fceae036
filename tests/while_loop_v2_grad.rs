//! Gradients through TF2 functional control flow lowered at import: a GraphDef written by
//! TensorFlow 2.21 with `StatelessWhile`, `StatelessIf` and a `PartitionedCall` of a
//! `tf.function` whose body holds a loop with an `If` inside
//! (tests/data/functions/while_v2_grad.pbtxt, scripts/gen_while_v2_grad.py). Import
//! lowers them into TF1 control flow; `gradients()` builds TensorFlow's gradient loops on
//! the lowered ops. Checked against TensorFlow's own gradients (tf.gradients in TF 2.21)
//! for several trip counts, and against finite differences.

#[path = "control_flow_common/mod.rs"]
mod control_flow_common;
use control_flow_common::tensor;
use serde_json::Value;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::train::gradients;
use tensorgraph::{Graph, Output, Session, Tensor};

fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/functions")
}

fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(data_dir().join("while_v2_grad.json")).unwrap()).unwrap()
}

fn graph() -> Graph {
    let text = std::fs::read_to_string(data_dir().join("while_v2_grad.pbtxt")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

/// The feeds of a case: the file's feeds with the case's `n` and `p`, `over` replacing one.
fn feeds(g: &Graph, e: &Value, c: &Value, over: Option<(&str, &Tensor)>) -> Vec<(Output, Tensor)> {
    let mut fs: Vec<(Output, Tensor)> =
        e["feeds"].as_object().unwrap().iter().map(|(k, v)| (g.tensor_by_name(k).unwrap(), tensor(v))).collect();
    fs.push((g.tensor_by_name("n:0").unwrap(), Tensor::scalar(c["n"].as_i64().unwrap() as i32)));
    for (o, t) in &mut fs {
        if o.name() == "p:0" {
            *t = Tensor::scalar(c["p"].as_bool().unwrap());
        }
        if let Some((name, v)) = over {
            if o.name() == name {
                *t = v.clone();
            }
        }
    }
    fs
}

fn run(g: &Graph, fs: &[(Output, Tensor)], fetches: &[Output]) -> Vec<Tensor> {
    let sess = Session::new(g).unwrap();
    let feeds: Vec<(&Output, Tensor)> = fs.iter().map(|(o, t)| (o, t.clone())).collect();
    sess.run(&feeds, &fetches.iter().collect::<Vec<_>>(), &[]).unwrap()
}

fn close(what: &str, got: &[f64], want: &[f64], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (j, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= atol + rtol * b.abs(), "{what}[{j}]: got {a}, want {b}");
    }
}

/// Every case of the file: y and the gradients built here equal TensorFlow's.
#[test]
fn lowered_while_and_if_gradients_equal_tensorflows() {
    let e = expected();
    let cases: Vec<&Value> = e["cases"].as_array().unwrap().iter().collect();
    // "fn" has a cond inside a loop: its branch's values are pushed inside the branch,
    // ordered through the `ControlTrigger` `f_sync`, and popped through a `Switch` on
    // the popped predicate, as TensorFlow's
    assert!(cases.iter().filter(|c| c["name"] == "fn").count() == 3);
    for c in cases {
        let what = format!("{} (n = {}, p = {})", c["name"], c["n"], c["p"]);
        let g = graph();
        let y = g.tensor_by_name(c["y"].as_str().unwrap()).unwrap();
        let xs: Vec<Output> =
            c["xs"].as_array().unwrap().iter().map(|x| g.tensor_by_name(x.as_str().unwrap()).unwrap()).collect();
        let grads: Vec<Output> = gradients(std::slice::from_ref(&y), &xs, None)
            .unwrap_or_else(|err| panic!("{what}: {err}"))
            .into_iter()
            .map(|d| d.unwrap_or_else(|| panic!("{what}: no gradient")))
            .collect();
        let mut fetches = vec![y];
        fetches.extend(grads);
        let got = run(&g, &feeds(&g, &e, c, None), &fetches);
        close(
            &format!("{what}: y"),
            &got[0].to_f64_vec().unwrap(),
            &tensor(&c["y_value"]).to_f64_vec().unwrap(),
            1e-5,
            1e-5,
        );
        for (i, (t, want)) in got[1..].iter().zip(c["grads"].as_array().unwrap()).enumerate() {
            let want = tensor(want);
            assert_eq!(t.shape(), want.shape(), "{what}: gradient {i} shape");
            close(&format!("{what}: gradient {i}"), &t.to_f64_vec().unwrap(), &want.to_f64_vec().unwrap(), 1e-4, 1e-5);
        }
    }
}

/// The gradients of the lowered loops against central differences of y (float32, so a
/// step of 1e-2 and a tolerance of 2e-2 relative): every element of every x.
#[test]
fn lowered_loop_gradients_match_finite_differences() {
    let e = expected();
    for c in e["cases"].as_array().unwrap().iter().filter(|c| c["n"] == 4 || c["name"] == "halve") {
        let what = format!("{} (n = {})", c["name"], c["n"]);
        let g = graph();
        let y = g.tensor_by_name(c["y"].as_str().unwrap()).unwrap();
        for x_name in c["xs"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()) {
            let x = g.tensor_by_name(x_name).unwrap();
            let d = gradients(std::slice::from_ref(&y), std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
            let base = feeds(&g, &e, c, None);
            let x0 = base.iter().find(|(o, _)| o.name() == x_name).unwrap().1.clone();
            let analytic = run(&g, &base, &[d])[0].to_f64_vec().unwrap();
            let v = x0.to_f64_vec().unwrap();
            let h = 1e-2;
            let mut numeric = Vec::with_capacity(v.len());
            for k in 0..v.len() {
                let at = |delta: f64| {
                    let mut w = v.clone();
                    w[k] += delta;
                    let t = Tensor::from_f64(x0.dtype(), x0.shape(), &w).unwrap();
                    run(&g, &feeds(&g, &e, c, Some((x_name, &t))), std::slice::from_ref(&y))[0].to_f64_vec().unwrap()[0]
                };
                numeric.push((at(h) - at(-h)) / (2.0 * h));
            }
            close(&format!("{what}: d/d{x_name}"), &analytic, &numeric, 2e-2, 2e-3);
        }
    }
}
