//! `tensorgraph demo --model cnn`: a CNN with batch normalization under a `training` flag
//! reaches at least 0.97 held-out accuracy on the shipped 8x8 digits, and what it writes
//! (checkpoint with `.meta`, frozen `model.pb`, `inputs.npy`, `forecast.json`) runs through
//! `tensorgraph run` to the forecast the demo made from its restored inference graph.

mod common;
use common::assert_close;
use common::cli::{fails_with, ok, s};
use serde_json::Value;

/// `run MODEL --feed x:0=inputs.npy --fetch probs:0 --json`'s values, flattened.
fn run_probs(model: &std::path::Path, inputs: &std::path::Path) -> Vec<f64> {
    let feed = format!("x:0={}", s(inputs));
    let o = ok(&["run", &s(model), "--feed", &feed, "--fetch", "probs:0", "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    v[0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect()
}

#[test]
fn cnn_demo_trains_to_097_and_its_files_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cnn");
    let o = ok(&["demo", "--model", "cnn", "--out", &s(&out)]);
    assert!(o.stdout.starts_with(
        "data: 1797 handwritten digits of 8x8 pixels, 10 classes; holding out 360 for testing\ntrained 300 steps of 64 images; "
    ), "{}", o.stdout);
    let forecast: Value = serde_json::from_str(&std::fs::read_to_string(out.join("forecast.json")).unwrap()).unwrap();
    let acc = forecast["test_accuracy"].as_f64().unwrap();
    assert!(acc >= 0.97, "held-out accuracy {acc}");
    assert!(o.stdout.contains(&format!("test accuracy: {acc:.3} (")), "{}", o.stdout);
    let want: Vec<f64> = forecast["probabilities"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    assert_eq!(want.len(), 50);
    // the training graph's .meta (batch norm in inference: `training` defaults to false) and
    // the frozen graph give the restored inference graph's forecast
    let inputs = out.join("inputs.npy");
    assert_close("run model.ckpt", &run_probs(&out.join("model.ckpt"), &inputs), &want);
    assert_close("run model.pb", &run_probs(&out.join("model.pb"), &inputs), &want);
    // the checkpoint holds both blocks' batch norm statistics and Adam's slots
    let names: Vec<String> = tensorgraph::format::checkpoint::CheckpointReader::open(out.join("model.ckpt"))
        .unwrap()
        .list()
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    for n in ["bn1/moving_mean", "bn2/moving_variance", "bn1/gamma/Adam_1", "conv2/kernel/Adam", "output/biases"] {
        assert!(names.contains(&n.to_string()), "{n} not in {names:?}");
    }
    assert!(
        !names.iter().any(|n| n.starts_with("bn1/moving_mean/Adam")),
        "moving statistics are not trained: {names:?}"
    );
}

#[test]
fn cnn_demo_refuses_data_and_zero_steps() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("d.csv");
    std::fs::write(&csv, "1,2,a\n3,4,b\n").unwrap();
    let out = s(&dir.path().join("o"));
    fails_with(
        &["demo", "--model", "cnn", "--data", &s(&csv), "--out", &out],
        "--data trains the mlp model; --model cnn trains on the handwritten digits shipped in the binary",
    );
    fails_with(&["demo", "--model", "cnn", "--steps", "0", "--out", &out], "--steps must be at least 1");
}
