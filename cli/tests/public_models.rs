//! `tensorgraph run` on public test files from TensorFlow's repositories
//! (`tests/data/public`, see its README.md), to TensorFlow 2.21's values
//! (`scripts/gen_public_models.py`).

mod common;
use common::cli::{ok, s};
use npyz::WriterBuilder;
use std::path::{Path, PathBuf};

fn public(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/public").join(path)
}

/// Writes a .npy file of `shape` and float32 or int32 `values`.
fn npy<T: npyz::Serialize + npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], values: &[T]) {
    let mut out = Vec::new();
    let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(&mut out).begin_nd().unwrap();
    w.extend(values.iter().copied()).unwrap();
    w.finish().unwrap();
    std::fs::write(path, out).unwrap();
}

#[test]
fn multiplication_pb_runs_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    npy(&a, &[3], &[1i32, 2, 3]);
    npy(&b, &[], &[2i32]);
    let pb = public("tensorflow-rust/tensorflow-sys/examples/assets/multiplication.pb");
    let o =
        ok(&["run", &s(&pb), "--feed", &format!("a={}", s(&a)), "--feed", &format!("b={}", s(&b)), "--fetch", "c:0"]);
    assert_eq!(o.stdout, "c:0  float32  [3]\n  [2.0, 4.0, 6.0]\n");
}

#[test]
fn tf2_saved_model_signature_runs_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    npy(&x, &[1], &[3f32]);
    let sm = public("serving/saved_model_half_plus_two_tf2_cpu/00000123");
    let o = ok(&["run", &s(&sm), "--signature", "serving_default", "--input", &format!("x={}", s(&x))]);
    assert_eq!(o.stdout, "y (StatefulPartitionedCall_5:0)  float32  [1]\n  [3.5]\n");
    let o = ok(&["run", &s(&sm), "--signature", "regress_x2_to_y3", "--input", &format!("inputs={}", s(&x))]);
    assert_eq!(o.stdout, "outputs (StatefulPartitionedCall_2:0)  float32  [1]\n  [4.5]\n");
}
