//! A graph TensorFlow 2.21 wrote (`tests/data/ops_arrays.pbtxt`, by
//! `scripts/gen_ops_arrays.py graph`) using the array and math ops of issue 9
//! (StridedSlice with masks, Einsum, BatchMatMulV2, SelectV2, resizes, MirrorPad, TopKV2,
//! Unique, ...) and TensorFlow's own gradient subgraph of them (StridedSliceGrad,
//! MirrorPadGrad, ResizeBilinearGrad, ...): it imports, and every output equals
//! TensorFlow's (`tests/data/ops_arrays.json`).

mod common;
use common::repo_root;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::{Graph, Session};

#[test]
fn tensorflow_graph_imports_and_runs_to_tensorflows_values() {
    let dir = repo_root().join("tests/data");
    let gd = read_graph_def_any(dir.join("ops_arrays.pbtxt")).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new()).unwrap();
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ops_arrays.json")).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    assert!(expected.len() >= 30, "the json lists every output");
    let sess = Session::new(&g).unwrap();
    for (key, want) in expected {
        let name = format!("import/{}", want["tensor"].as_str().unwrap());
        let t = g.tensor_by_name(&name).unwrap_or_else(|e| panic!("{key}: {e}"));
        let r = sess.run(&[], &[&t], &[]).unwrap_or_else(|e| panic!("{key} ({name}): {e}")).remove(0);
        let shape: Vec<usize> =
            want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(r.shape(), shape.as_slice(), "{key} ({name}): shape");
        assert_eq!(r.dtype().name(), want["dtype"].as_str().unwrap(), "{key}: dtype");
        let got = r.to_f64_vec().unwrap();
        let want: Vec<f64> = want["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{key} ({name})[{i}]: got {g}, TensorFlow {w}");
        }
    }
}
