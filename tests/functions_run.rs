//! Graphs with function libraries, written by TensorFlow 2.21 (tests/data/functions,
//! scripts/gen_functions.py), imported and run to TensorFlow's values: TF1 `Defun` calls,
//! TF2 `StatefulPartitionedCall`/`PartitionedCall` (nested, reading a resource variable,
//! with a stateful control output), `If`/`StatelessIf` and `While`/`StatelessWhile`.

#[path = "control_flow_common/mod.rs"]
mod control_flow_common;
use control_flow_common::tensor;
use serde_json::Value;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{extract_sub_graph, import_graph_def, ImportGraphDefOptions};
use tensorgraph::train::gradients;
use tensorgraph::{ops, Graph, Output, Session, Tensor};

/// The gradients of `sum(mul)` with respect to `xs`, where `mul:0` is what the graph's
/// `loss` sums (tensorgraph's `Sum` gradient needs constant axes and a known rank, and
/// TensorFlow's `loss` reduces a tensor of unknown rank over `Range(Rank(x))`).
fn grads_of_sum(g: &Graph, xs: &[Output]) -> Vec<Output> {
    let mul = g.tensor_by_name("mul:0").unwrap();
    let ones = ops::ones_like(&g.scope(), &mul).unwrap();
    gradients(&[mul], xs, Some(&[ones])).unwrap().into_iter().map(|d| d.unwrap()).collect()
}

fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/functions")
}

fn case(name: &str) -> Value {
    let all: Value = serde_json::from_str(&std::fs::read_to_string(data_dir().join("expected.json")).unwrap()).unwrap();
    all["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no run {name}"))
        .clone()
}

fn graph_def(file: &str) -> GraphDef {
    graph_def_from_text(&std::fs::read_to_string(data_dir().join(file)).unwrap()).unwrap()
}

/// `file` imported with its names unchanged; with `keep`, only what those nodes need.
fn graph(file: &str, keep: Option<&[&str]>) -> Graph {
    let mut gd = graph_def(file);
    if let Some(keep) = keep {
        gd = extract_sub_graph(&gd, keep).unwrap();
    }
    let g = Graph::new();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap_or_else(|e| panic!("{file}: {e}"));
    g
}

fn names(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

fn feeds_of(g: &Graph, c: &Value) -> Vec<(Output, Tensor)> {
    c["feeds"].as_object().unwrap().iter().map(|(k, v)| (g.tensor_by_name(k).unwrap(), tensor(v))).collect()
}

fn assert_close(name: &str, got: &Tensor, want: &Value) {
    let w = tensor(want);
    assert_eq!(got.dtype(), w.dtype(), "{name}: dtype");
    assert_eq!(got.shape(), w.shape(), "{name}: shape");
    let (gv, wv) = (got.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
    for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
        assert!((a - b).abs() <= 1e-6 + 1e-5 * b.abs(), "{name}[{j}]: got {a}, TensorFlow {b}");
    }
}

/// Runs case `name` in a new session (setup targets first) on `g` and compares the
/// outputs with TensorFlow's.
fn check_on(g: &Graph, name: &str) -> Session {
    let c = case(name);
    let sess = Session::new(g).unwrap();
    for t in names(&c["setup"]) {
        sess.run_targets(&[&g.operation_by_name(&t).unwrap()]).unwrap();
    }
    let feeds = feeds_of(g, &c);
    let feeds: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    let fetches: Vec<Output> = names(&c["fetches"]).iter().map(|f| g.tensor_by_name(f).unwrap()).collect();
    let got = sess.run(&feeds, &fetches.iter().collect::<Vec<_>>(), &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, (t, w)) in got.iter().zip(c["outputs"].as_array().unwrap()).enumerate() {
        assert_close(&format!("{name}: output {i} ({})", fetches[i].name()), t, w);
    }
    sess
}

fn check(name: &str, keep: Option<&[&str]>) {
    let c = case(name);
    check_on(&graph(c["graph"].as_str().unwrap(), keep), name);
}

const DEFUN_FORWARD: &[&str] = &["call", "a", "b", "outer_call", "loss", "sq_f32", "sq_f64"];

#[test]
fn a_defun_call_returns_both_outputs() {
    check("defun_two_outputs", Some(DEFUN_FORWARD));
}

#[test]
fn a_defun_calling_another_defun() {
    check("defun_nested", Some(DEFUN_FORWARD));
}

#[test]
fn a_generic_defun_instantiated_per_dtype() {
    check("defun_generic", Some(DEFUN_FORWARD));
}

#[test]
fn gradients_flow_through_defun_calls() {
    let g = graph("defun.pbtxt", Some(DEFUN_FORWARD));
    let c = case("defun_gradient");
    let (x, y) = (g.tensor_by_name("x:0").unwrap(), g.tensor_by_name("y:0").unwrap());
    let grads = grads_of_sum(&g, &[x, y]);
    let (gx, gy) = (grads[0].clone(), grads[1].clone());
    let sess = Session::new(&g).unwrap();
    let feeds = feeds_of(&g, &c);
    let feeds: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    let got = sess.run(&feeds, &[&gx, &gy], &[]).unwrap();
    let want = c["outputs"].as_array().unwrap();
    assert_close("d loss / d x", &got[0], &want[0]);
    assert_close("d loss / d y", &got[1], &want[1]);
}

#[test]
fn tensorflows_symbolic_gradient_of_a_defun_call() {
    // defun.pbtxt whole: TensorFlow's gradient is a SymbolicGradient of the Defun `Outer`
    check("defun_gradient", None);
}

#[test]
fn nested_stateful_partitioned_calls_read_a_resource_variable() {
    check("tf2_nested_calls_read_a_variable", None);
}

#[test]
fn tensorflows_gradient_functions_run_as_calls() {
    // grad_x and grad_v are TensorFlow's gradient: a call of the library's backward function
    check("tf2_call_gradient", None);
}

#[test]
fn tensorgraph_gradients_flow_through_a_stateful_partitioned_call() {
    let g = graph("tf2_var.pbtxt", None);
    let c = case("tf2_call_gradient");
    let x = g.tensor_by_name("x:0").unwrap();
    let gx = grads_of_sum(&g, &[x]).remove(0);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.operation_by_name("init").unwrap()]).unwrap();
    let feeds = feeds_of(&g, &c);
    let got = sess.run(&[(&feeds[0].0, feeds[0].1.clone())], &[&gx], &[]).unwrap();
    assert_close("d loss / d x", &got[0], &c["outputs"][0]);
}

#[test]
fn a_calls_control_outputs_run_with_it() {
    check("tf2_control_output_runs", None);
    let g = graph("tf2_var.pbtxt", None);
    let sess = check_on(&g, "tf2_control_output_runs");
    let c = case("tf2_control_output_runs");
    let feeds = feeds_of(&g, &c);
    let bumped = g.tensor_by_name("bumped:0").unwrap();
    sess.run(&[(&feeds[0].0, feeds[0].1.clone())], &[&bumped], &[]).unwrap();
    let counter = sess.variable_value(&g.operation_by_name("counter").unwrap()).unwrap();
    assert_close("counter", &counter, &case("tf2_counter_after_two_runs")["value"]);
}

#[test]
fn a_frozen_tf2_function_with_stateless_if() {
    check("tf2_frozen_flag1", None);
    check("tf2_frozen_flag0", None);
}

#[test]
fn if_runs_the_taken_branch() {
    check("if_p1", None);
    check("if_p0", None);
}

#[test]
fn if_runs_only_the_taken_branchs_side_effects() {
    for p in [1, 0] {
        let g = graph("cond_v2.pbtxt", None);
        let sess = check_on(&g, &format!("if_side_p{p}"));
        let taken = sess.variable_value(&g.operation_by_name("taken").unwrap()).unwrap();
        assert_close("taken", &taken, &case(&format!("if_taken_count_p{p}"))["value"]);
    }
}

#[test]
fn gradients_flow_through_if() {
    for p in [1, 0] {
        let c = case(&format!("if_grad_p{p}"));
        let g = graph("cond_v2.pbtxt", None);
        let x = g.tensor_by_name("x:0").unwrap();
        let gx = grads_of_sum(&g, &[x]).remove(0);
        let sess = Session::new(&g).unwrap();
        sess.run_targets(&[&g.operation_by_name("init").unwrap()]).unwrap();
        let feeds = feeds_of(&g, &c);
        let feeds: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
        let got = sess.run(&feeds, &[&gx], &[]).unwrap();
        assert_close(&format!("p={p}: d loss / d x"), &got[0], &c["grad_x"]);
    }
}

#[test]
fn while_loops_with_data_dependent_trip_counts() {
    for n in [0, 1, 5] {
        check(&format!("while_n{n}"), None);
    }
}

#[test]
fn a_function_that_cannot_be_instantiated_fails_only_the_runs_that_call_it() {
    // TF's Defun graph with AffineAndDiff's `Sub` renamed to an op type nobody has: the
    // import keeps the calls of it, and `sq_f32`/`sq_f64` (another function) still run to
    // TensorFlow's values, as in TensorFlow 2.21, which fails only a run that needs the call
    let text = std::fs::read_to_string(data_dir().join("defun.pbtxt")).unwrap();
    let gd = graph_def_from_text(&text.replace(r#"op: "Sub""#, r#"op: "FancySub""#)).unwrap();
    let gd = extract_sub_graph(&gd, DEFUN_FORWARD).unwrap();
    let g = Graph::new();
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let warning = r.warning().unwrap();
    assert!(warning.starts_with("2 function call(s) cannot be instantiated: 'call' (function 'AffineAndDiff' cannot be instantiated: its node 'sub_0' has op type 'FancySub'"), "{warning}");
    assert!(
        warning.contains("'outer_call' (in function 'Outer': function 'AffineAndDiff' cannot be instantiated"),
        "{warning}"
    );
    let sess = check_on(&g, "defun_generic");
    let feeds = feeds_of(&g, &case("defun_generic"));
    let feeds: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    for call in ["call:0", "outer_call:0"] {
        let e = sess.run(&feeds, &[&g.tensor_by_name(call).unwrap()], &[]).unwrap_err();
        assert_eq!(e.code, tensorgraph::Code::Unimplemented, "{e}");
        assert!(
            e.message.contains("its node 'sub_0' has op type 'FancySub', which tensorgraph does not implement"),
            "{e}"
        );
    }
}
