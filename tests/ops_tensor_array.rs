//! TensorArray ops (TensorArrayV3 and friends) and stacks (StackV2 and friends): values
//! and TensorFlow's error messages, gradients built here, and a `dynamic_rnn` LSTM graph
//! written by TensorFlow 2.21 (scripts/gen_tensor_array.py, tests/data/tensor_array) that
//! runs forward and through TensorFlow's own gradient while loop (stacks, gradient arrays).
//!
//! Expected values and messages come from TensorFlow 2.21 in graph mode, for example
//! (`g` is `gen_data_flow_ops`):
//! ```python
//! h, f = g.tensor_array_v3(size=2, dtype=tf.float32)
//! f = g.tensor_array_write_v3(h, 2, [1., 2.], f)   # Tried to write to index 2 ...
//! ```
//! TensorFlow numbers unnamed arrays with a process-wide counter (`TensorArrayV3_7`);
//! tensorgraph counts per run, so the first array of a run is `TensorArrayV3_0`.

mod common;
use common::{assert_close, f32_tensor, flat_f64};
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::ops::{self, TensorArrayOptions};
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tensor_array")
}

fn lstm() -> (Graph, serde_json::Value) {
    let text = std::fs::read_to_string(data_dir().join("lstm.pbtxt")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    let json = serde_json::from_str(&std::fs::read_to_string(data_dir().join("lstm.json")).unwrap()).unwrap();
    (g, json)
}

/// Runs the LSTM graph on TensorFlow's input, fetching `names`; compares to TensorFlow
/// within `rtol` (absolute 1e-6).
fn check_lstm(names: &[&str], rtol: f64) {
    let (g, json) = lstm();
    let x = g.tensor_by_name("x:0").unwrap();
    let feed = f32_tensor(&json["feeds"]["x:0"]);
    let fetches: Vec<Output> = names.iter().map(|n| g.tensor_by_name(n).unwrap()).collect();
    let refs: Vec<&Output> = fetches.iter().collect();
    let out = Session::new(&g).unwrap().run(&[(&x, feed)], &refs, &[]).unwrap();
    for (name, got) in names.iter().zip(out) {
        let want = &json["fetches"][name];
        let shape: Vec<usize> =
            want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(got.shape(), shape.as_slice(), "{name}");
        let want = flat_f64(&want["values"]);
        let got = got.to_f64_vec().unwrap();
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-6 + rtol * b.abs(), "{name}[{i}]: got {a}, TensorFlow {b}");
        }
    }
}

#[test]
fn a_dynamic_rnn_lstm_runs_to_tensorflows_outputs() {
    check_lstm(&["outputs:0", "state_c:0", "state_h:0", "loss:0"], 1e-5);
}

#[test]
fn tensorflows_gradient_while_loop_gives_its_gradients() {
    check_lstm(&["grad_kernel:0", "grad_x:0"], 1e-4);
}
