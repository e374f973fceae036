//! `tensorgraph inspect DIR` and `tensorgraph run DIR --signature ... --input ...` on the
//! SavedModel TensorFlow 2.21 wrote (`tests/data/saved_model`, `scripts/gen_saved_model.py`).

mod common;
use common::cli::{fails, ok, s};
use serde_json::Value;
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/saved_model")
}

#[test]
fn inspect_lists_tags_and_signatures() {
    let dir = data().join("tf1_dense");
    let o = ok(&["inspect", &s(&dir)]);
    assert_eq!(
        o.stdout,
        format!(
            "SavedModel {}\nMetaGraphDef with tag-set: {{\"serve\"}}\n  signature 'serving_default' (tensorflow/serving/predict)\n    input  x: x:0 DT_FLOAT (-1, 3)\n    output probs: probs:0 DT_FLOAT (-1, 2)\n    output y: y:0 DT_FLOAT (-1, 2)\n  signature 'vocab' (tensorflow/serving/predict)\n    output path: vocab_path/read:0 DT_STRING ()\n",
            dir.display()
        )
    );
    let o = ok(&["inspect", &s(&dir), "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["meta_graphs"][0]["tags"], serde_json::json!(["serve"]));
    let sig = &v["meta_graphs"][0]["signatures"][0];
    assert_eq!(sig["key"], "serving_default");
    assert_eq!(sig["inputs"][0], serde_json::json!({"key": "x", "name": "x:0", "dtype": "DT_FLOAT", "shape": [-1, 3]}));
}

#[test]
fn run_a_signature_by_keys() {
    let dir = data().join("tf1_dense");
    let x = format!("x={}", s(&data().join("x.npy")));
    let o = ok(&["run", &s(&dir), "--signature", "serving_default", "--input", &x]);
    assert_eq!(o.stdout, "probs (probs:0)  float32  [2, 2]\n  [[0.32629287, 0.67370707], [0.45946416, 0.5405358]]\ny (y:0)  float32  [2, 2]\n  [[1.175, 1.9], [0.3, 0.4625]]\n");
    // defaults: tag serve, signature serving_default; --output picks keys; --out writes KEY.npy
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = ok(&["run", &s(&dir), "--input", &x, "--output", "y", "--json", "--out", &s(&out)]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["key"], "y");
    // float32 values as JSON numbers (f64)
    let want = [[1.175f32, 1.9], [0.3, 0.4625]].map(|r| r.map(f64::from));
    assert_eq!(v[0]["values"], serde_json::json!(want));
    let y = tensorgraph::Tensor::read_npy(out.join("y.npy")).unwrap();
    assert_eq!(y, tensorgraph::Tensor::read_npy(data().join("y.npy")).unwrap());
}

#[test]
fn run_errors_name_tags_keys_and_flags() {
    let dir = data().join("tf1_dense");
    let x = format!("x={}", s(&data().join("x.npy")));
    fails(&["run", &s(&dir), "--tag", "train", "--input", &x], "could not be found in SavedModel");
    fails(&["run", &s(&dir), "--tag", "train", "--input", &x], "available tag sets: {\"serve\"}");
    fails(&["run", &s(&dir), "--signature", "predict", "--input", &x], "its signatures: 'serving_default', 'vocab'");
    let z = format!("z={}", s(&data().join("x.npy")));
    fails(&["run", &s(&dir), "--input", &z], "signature 'serving_default' has no input 'z'; its inputs: 'x'");
    fails(&["run", &s(&dir), "--input", &x, "--output", "logits"], "has no output 'logits'");
    fails(&["run", &s(&dir), "--fetch", "y:0"], "is a SavedModel: give its signature's inputs and outputs by key");
    let pb = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tf-2.21/seed004/frozen.pb");
    fails(&["run", &s(&pb), "--signature", "serving_default"], "apply to SavedModel directories");
    let tmp = tempfile::tempdir().unwrap();
    fails(&["run", &s(tmp.path()), "--input", &x], "is not one (it has no saved_model.pb)");
}
