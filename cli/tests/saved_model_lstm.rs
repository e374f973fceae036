//! `tensorgraph run DIR --signature serving_default --input seq=...` on a tf_keras LSTM
//! SavedModel (`tests/data/tensor_list/lstm`, by `scripts/gen_tensor_list.py`), whose
//! `standard_lstm` function keeps its sequence in TensorLists (`variant` tensors) inside a
//! `While`: TensorFlow 2.21's outputs at batch 1 and 3.

mod common;
use common::cli::{ok, s};
use std::path::{Path, PathBuf};
use tensorgraph::Tensor;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/tensor_list").join(name)
}

fn f32s(path: &Path) -> Vec<f32> {
    Tensor::read_npy(path).unwrap().to_vec::<f32>().unwrap()
}

#[test]
fn keras_lstm_saved_model_runs_from_the_command_line() {
    let out = tempfile::tempdir().unwrap();
    for batch in [1, 3] {
        let x = data(&format!("lstm_x{batch}.npy"));
        let o = ok(&[
            "run",
            &s(&data("lstm")),
            "--signature",
            "serving_default",
            "--input",
            &format!("seq={}", s(&x)),
            "--out",
            &s(out.path()),
        ]);
        let file = out.path().join("lstm.npy");
        assert!(o.stdout.starts_with("lstm ("), "{}", o.stdout);
        assert!(o.stdout.contains(&format!("float32  [{batch}, 5, 4]")), "{}", o.stdout);
        let (got, want) = (f32s(&file), f32s(&data(&format!("lstm_y{batch}.npy"))));
        assert_eq!(got.len(), want.len());
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1e-1), "batch {batch} [{i}]: got {a}, TensorFlow {b}");
        }
    }
}
