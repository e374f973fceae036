//! Keras models saved as TF2 SavedModels by TensorFlow 2.21 (`tests/data/saved_model_keras`,
//! by `scripts/gen_saved_model_keras.py`): Conv2D -> BatchNormalization (set moving
//! statistics) -> ReLU -> Flatten -> Dense, written by tf-keras' `model.save(save_format="tf")`
//! and by Keras 3's `model.export()`. Each loads through `SavedModelBundle` (its variables
//! restored through the SaverDef's restore function over the function library) and runs
//! `serving_default` at batch 1 and 8 to TensorFlow's outputs (relative error 1e-4, argmax
//! identical).

use std::path::{Path, PathBuf};
use tensorgraph::io::saved_model::SavedModelBundle;
use tensorgraph::Tensor;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/saved_model_keras").join(name)
}

fn argmax_rows(v: &[f32], cols: usize) -> Vec<usize> {
    v.chunks(cols).map(|r| (0..cols).max_by(|&a, &b| r[a].total_cmp(&r[b])).unwrap()).collect()
}

/// Runs `serving_default` of model `kind` at batch 1 and 8 and compares with TF's outputs.
fn runs_to_tensorflows_outputs(kind: &str, output_key: &str) {
    let model = SavedModelBundle::load(data(kind), &["serve"]).unwrap();
    assert!(model.left_out().is_empty(), "{:?}", model.left_out());
    let sig = model.signature("serving_default").unwrap();
    assert_eq!(sig.inputs.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["image"]);
    assert_eq!(sig.outputs.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), [output_key]);
    for batch in [1, 8] {
        let x = Tensor::read_npy(data(&format!("x{batch}.npy"))).unwrap();
        let want = Tensor::read_npy(data(&format!("{kind}_y{batch}.npy"))).unwrap();
        let out = model.run_signature("serving_default", &[("image", x)], &[]).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, output_key);
        let got = &out[0].1;
        assert_eq!(got.shape(), [batch, 3]);
        assert_eq!(want.shape(), [batch, 3]);
        let (g, w) = (got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!((a - b).abs() <= 1e-4 * b.abs().max(1e-2), "{kind} batch {batch} [{i}]: got {a}, TensorFlow {b}");
        }
        assert_eq!(argmax_rows(&g, 3), argmax_rows(&w, 3), "{kind} batch {batch}");
    }
}

#[test]
fn tf_keras_saved_model_runs_to_tensorflows_outputs() {
    runs_to_tensorflows_outputs("tf_keras", "logits");
}

#[test]
fn keras3_export_runs_to_tensorflows_outputs() {
    runs_to_tensorflows_outputs("keras3", "output_0");
}

#[test]
fn keras_batch_norm_statistics_come_from_the_checkpoint() {
    // the values gen_saved_model_keras.py set (not TF's initial mean 0 and variance 1)
    let want: [(&str, [f32; 4]); 2] = [
        ("bn/moving_mean", [0.26899707, 0.07313015, -0.078604124, 0.006834013]),
        ("bn/moving_variance", [1.4942645, 0.9129632, 0.7069521, 1.6820594]),
    ];
    // Keras 3's export holds each variable twice; its signatures and its restore function
    // take the handles named `_1` (the others are never restored, in TensorFlow either)
    for (kind, suffix) in [("tf_keras", ""), ("keras3", "_1")] {
        let model = SavedModelBundle::load(data(kind), &["serve"]).unwrap();
        for (name, values) in &want {
            let op = model.graph().operation_by_name(&format!("{name}{suffix}")).unwrap();
            assert_eq!(op.op_type(), "VarHandleOp");
            let v = model.session().variable_value(&op).unwrap().to_vec::<f32>().unwrap();
            assert_eq!(v, values, "{kind} {name}");
        }
    }
}
