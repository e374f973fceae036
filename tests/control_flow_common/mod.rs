//! Shared by tests/control_flow_*.rs: TensorFlow 2.21's control-flow graphs and results
//! (tests/data/control_flow, written by scripts/gen_control_flow.py).
#![allow(dead_code)]

use serde_json::Value;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::{Code, DType, Error, Graph, Output, Session, Tensor};

/// The directory of the control-flow test data.
pub fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/control_flow")
}

/// expected.json.
pub fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(data_dir().join("expected.json")).unwrap()).unwrap()
}

/// The run named `name` in expected.json.
pub fn case(name: &str) -> Value {
    let all = expected();
    all["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no run {name}"))
        .clone()
}

/// A graph file of tests/data/control_flow, imported with its names unchanged.
pub fn graph(file: &str) -> Graph {
    let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

/// A JSON tensor `{dtype, shape, values}` (as written by the script) as a Tensor.
pub fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    let values = v["values"].as_array().unwrap();
    match v["dtype"].as_str().unwrap() {
        "bool" => Tensor::new(&shape, values.iter().map(|b| b.as_bool().unwrap()).collect()).unwrap(),
        dtype => {
            let dt = match dtype {
                "float32" => DType::Float,
                "float64" => DType::Double,
                "int32" => DType::Int32,
                "int64" => DType::Int64,
                d => panic!("dtype {d}"),
            };
            let f: Vec<f64> = values.iter().map(|x| x.as_f64().unwrap()).collect();
            Tensor::from_f64(dt, &shape, &f).unwrap()
        }
    }
}

/// Runs case `name` (its setup targets first) in a new session on its graph.
pub fn run(name: &str) -> (Value, Result<Vec<Tensor>, Error>) {
    let c = case(name);
    let g = graph(c["graph"].as_str().unwrap());
    let sess = Session::new(&g).unwrap();
    for t in c["setup"].as_array().unwrap() {
        sess.run_targets(&[&g.operation_by_name(t.as_str().unwrap()).unwrap()]).unwrap();
    }
    let feeds: Vec<(Output, Tensor)> =
        c["feeds"].as_object().unwrap().iter().map(|(k, v)| (g.tensor_by_name(k).unwrap(), tensor(v))).collect();
    let feeds: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    let fetches: Vec<Output> =
        c["fetches"].as_array().unwrap().iter().map(|f| g.tensor_by_name(f.as_str().unwrap()).unwrap()).collect();
    let targets: Vec<_> =
        c["targets"].as_array().unwrap().iter().map(|t| g.operation_by_name(t.as_str().unwrap()).unwrap()).collect();
    let result = sess.run(&feeds, &fetches.iter().collect::<Vec<_>>(), &targets.iter().collect::<Vec<_>>());
    (c, result)
}

/// Runs case `name` and checks the outputs against TensorFlow's (dtype, shape, values to
/// float32 tolerance), or the error against TensorFlow's (status code, and the message
/// starting with TensorFlow's).
pub fn check(name: &str) {
    let (c, result) = run(name);
    if let Some(err) = c.get("error") {
        let e = result.expect_err(&format!("{name}: TensorFlow fails ({err}), tensorgraph succeeds"));
        let code = match err["class"].as_str().unwrap() {
            "InvalidArgumentError" => Code::InvalidArgument,
            "InternalError" => Code::Internal,
            other => panic!("error class {other}"),
        };
        assert_eq!(e.code, code, "{name}: {e}");
        let tf = err["message"].as_str().unwrap().trim_start_matches("Graph execution error:\n\n");
        let tf = tf.split("\n\t [[").next().unwrap();
        assert!(e.message.starts_with(tf), "{name}: got {e}, TensorFlow says {tf:?}");
        return;
    }
    let got = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = c["outputs"].as_array().unwrap();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let w = tensor(w);
        assert_eq!(g.dtype(), w.dtype(), "{name}: output {i} dtype");
        assert_eq!(g.shape(), w.shape(), "{name}: output {i} shape");
        let (gv, wv) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
            assert!((a - b).abs() <= 1e-6 + 1e-5 * b.abs(), "{name}: output {i}[{j}]: got {a}, TensorFlow {b}");
        }
    }
}
