//! `tensorgraph run DIR --signature KEY` on TensorFlow Serving's TF1 SavedModels in
//! `tests/data/public/serving` (source and licence in its README.md), to TensorFlow 2.21's
//! values (`scripts/gen_public_models.py`; the counter's from `tf.compat.v1.saved_model.load`
//! in a fresh session per run, as each `run` is). tensorflow/rust's `examples/addition/model.pb`
//! runs with `--feed`.

mod common;
use common::cli::{fails_with, ok, s};
use std::path::{Path, PathBuf};
use tensorgraph::Tensor;

fn serving(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/public/serving").join(name).join("00000123")
}

/// A serialized `tf.train.Example` with one float feature `key` holding `v`.
fn example(key: &str, v: f32) -> Vec<u8> {
    let mut float_list = vec![0x0a, 4];
    float_list.extend_from_slice(&v.to_le_bytes()); // FloatList.value, packed
    let mut feature = vec![0x12, float_list.len() as u8]; // Feature.float_list
    feature.extend(float_list);
    let mut entry = vec![0x0a, key.len() as u8]; // map entry: key
    entry.extend_from_slice(key.as_bytes());
    entry.extend([0x12, feature.len() as u8]); // map entry: value
    entry.extend(feature);
    let mut features = vec![0x0a, entry.len() as u8]; // Features.feature
    features.extend(entry);
    let mut ex = vec![0x0a, features.len() as u8]; // Example.features
    ex.extend(features);
    ex
}

#[test]
fn half_plus_two_and_three_run_from_the_command_line() {
    let t = tempfile::tempdir().unwrap();
    let x = t.path().join("x.npy");
    Tensor::new(&[3, 1], vec![1f32, 2.0, 5.0]).unwrap().write_npy(&x).unwrap();
    let input = format!("x={}", s(&x));
    let o = ok(&[
        "run",
        &s(&serving("saved_model_half_plus_two_cpu")),
        "--signature",
        "serving_default",
        "--input",
        &input,
    ]);
    assert_eq!(o.stdout, "y (y:0)  float32  [3, 1]\n  [[2.5], [3.0], [4.5]]\n");
    let o =
        ok(&["run", &s(&serving("saved_model_half_plus_three")), "--signature", "serving_default", "--input", &input]);
    assert_eq!(o.stdout, "y (y:0)  float32  [3, 1]\n  [[3.5], [4.0], [5.5]]\n");
}

#[test]
fn a_saved_model_run_with_no_flags_names_the_input_its_default_signature_needs() {
    // no --fetch is needed for a SavedModel: `run DIR` runs serving_default, whose input is x
    let dir = serving("saved_model_half_plus_two_cpu");
    let with_key = ["run", &s(&dir), "--signature", "serving_default"];
    let o = common::cli::tg(&with_key);
    let want = o.stderr.strip_prefix("error: ").unwrap().trim_end().to_string();
    assert!(want.contains("'x'"), "{want}");
    fails_with(&["run", &s(&dir)], &want);
}

#[test]
fn tf_example_signatures_run_from_a_string_npy() {
    // regress_x_to_y2 parses serialized tf.Example protos (ParseExample): y2 = 0.5 x + 3
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("examples.npy");
    let examples = [1f32, 2.0, 5.0].iter().map(|&v| example("x", v)).collect();
    Tensor::strings(&[3], examples).unwrap().write_npy(&path).unwrap();
    let o = ok(&[
        "run",
        &s(&serving("saved_model_half_plus_two_cpu")),
        "--signature",
        "regress_x_to_y2",
        "--input",
        &format!("inputs={}", s(&path)),
    ]);
    assert_eq!(o.stdout, "outputs (y2:0)  float32  [3, 1]\n  [[3.5], [4.0], [5.5]]\n");
}

#[test]
fn counter_signatures_run_from_the_command_line() {
    let dir = serving("saved_model_counter");
    // TensorFlow 2.21 in a fresh session: get_counter 0.0 (the checkpoint's), incr_counter_by(2.5) 2.5
    let o = ok(&["run", &s(&dir), "--signature", "get_counter"]);
    assert_eq!(o.stdout, "output (counter:0)  float32  []\n  0.0\n");
    let t = tempfile::tempdir().unwrap();
    let delta = t.path().join("delta.npy");
    Tensor::scalar(2.5f32).write_npy(&delta).unwrap();
    let o = ok(&["run", &s(&dir), "--signature", "incr_counter_by", "--input", &format!("delta={}", s(&delta))]);
    assert_eq!(o.stdout, "output (incr_counter_by_op/AssignAdd:0)  float32  []\n  2.5\n");
}

#[test]
fn tensorflow_rust_addition_runs_from_the_command_line() {
    // tensorflow/rust's examples/addition/model.pb: z = x + y of int32 scalars (TF 2.21: 2 + 3 = 5)
    let pb =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/public/tensorflow-rust/examples/addition/model.pb");
    let t = tempfile::tempdir().unwrap();
    let (x, y) = (t.path().join("x.npy"), t.path().join("y.npy"));
    Tensor::scalar(2i32).write_npy(&x).unwrap();
    Tensor::scalar(3i32).write_npy(&y).unwrap();
    let o =
        ok(&["run", &s(&pb), "--feed", &format!("x={}", s(&x)), "--feed", &format!("y={}", s(&y)), "--fetch", "z:0"]);
    assert_eq!(o.stdout, "z:0  int32  []\n  5\n");
}
