//! `tensorgraph run DIR --signature serving_default --input ...` on Keras SavedModels and
//! on tensorflow/rust's `regression_savedmodel`, to TensorFlow 2.21's values. The Keras
//! models (`tests/data/saved_model_keras`, by `scripts/gen_saved_model_keras.py`) are
//! Conv2D -> BatchNormalization -> ReLU -> Flatten -> Dense written by tf-keras'
//! `model.save` and Keras 3's `model.export`, with TensorFlow's outputs at batch 1 and 8.

mod common;
use common::cli::{ok, s};
use std::path::{Path, PathBuf};
use tensorgraph::Tensor;

fn keras(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/saved_model_keras").join(name)
}

fn f32s(path: &Path) -> Vec<f32> {
    Tensor::read_npy(path).unwrap().to_vec::<f32>().unwrap()
}

fn argmax_rows(v: &[f32]) -> Vec<usize> {
    v.chunks(3).map(|r| (0..3).max_by(|&a, &b| r[a].total_cmp(&r[b])).unwrap()).collect()
}

fn runs_to_tensorflows_outputs(kind: &str, key: &str, tensor: &str) {
    let out = tempfile::tempdir().unwrap();
    for batch in [1, 8] {
        let x = keras(&format!("x{batch}.npy"));
        let dir = keras(kind);
        let o = ok(&[
            "run",
            &s(&dir),
            "--signature",
            "serving_default",
            "--input",
            &format!("image={}", s(&x)),
            "--out",
            &s(out.path()),
        ]);
        let file = out.path().join(format!("{key}.npy"));
        let head = format!("{key} ({tensor})  float32  [{batch}, 3]  -> {}\n", s(&file));
        assert!(o.stdout.starts_with(&head), "{}", o.stdout);
        let got = f32s(&file);
        let want = f32s(&keras(&format!("{kind}_y{batch}.npy")));
        assert_eq!(got.len(), want.len());
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-4 * b.abs().max(1e-2), "{kind} batch {batch} [{i}]: got {a}, TensorFlow {b}");
        }
        assert_eq!(argmax_rows(&got), argmax_rows(&want), "{kind} batch {batch}");
    }
}

#[test]
fn tf_keras_saved_model_runs_from_the_command_line() {
    runs_to_tensorflows_outputs("tf_keras", "logits", "StatefulPartitionedCall:0");
}

#[test]
fn keras3_export_runs_from_the_command_line() {
    runs_to_tensorflows_outputs("keras3", "output_0", "StatefulPartitionedCall_1:0");
}

#[test]
fn regression_savedmodel_signatures_run_from_the_command_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/public/tensorflow-rust/examples/regression_savedmodel");
    // TensorFlow 2.21: w = [0.20429754], b = [0.0]; one `train` step on
    // x = linspace(-1, 2, 8), y = 0.1 x + 0.3 has loss 0.07191972
    let o = ok(&["run", &s(&dir), "--signature", "w"]);
    assert_eq!(o.stdout, "output (StatefulPartitionedCall_2:0)  float32  [1]\n  [0.20429754]\n");
    let o = ok(&["run", &s(&dir), "--signature", "b"]);
    assert_eq!(o.stdout, "output (StatefulPartitionedCall:0)  float32  [1]\n  [0.0]\n");
    let t = tempfile::tempdir().unwrap();
    let x: Vec<f32> = (0..8).map(|i| (-1.0 + 3.0 * f64::from(i) / 7.0) as f32).collect();
    let y: Vec<f32> = x.iter().map(|&v| (0.1 * f64::from(v) + 0.3) as f32).collect();
    let (xp, yp) = (t.path().join("x.npy"), t.path().join("y.npy"));
    Tensor::vector(x).write_npy(&xp).unwrap();
    Tensor::vector(y).write_npy(&yp).unwrap();
    let o = ok(&[
        "run",
        &s(&dir),
        "--signature",
        "train",
        "--input",
        &format!("x={}", s(&xp)),
        "--input",
        &format!("y={}", s(&yp)),
        "--out",
        &s(t.path()),
    ]);
    let file = t.path().join("loss.npy");
    let head = format!("loss (StatefulPartitionedCall_1:0)  float32  []  -> {}\n", s(&file));
    assert!(o.stdout.starts_with(&head), "{}", o.stdout);
    let loss = f32s(&file)[0];
    assert!((loss - 0.07191972).abs() <= 1e-4 * 0.07191972, "loss {loss}");
}
