//! tensorflow/rust's `examples/regression_savedmodel` (`tests/data/public`, source and
//! licence in its README.md): a TF2 SavedModel of a `tf.Module` with signatures `w`, `b`
//! (read a variable) and `train` (one SGD step of a linear regression, returning the loss;
//! Keras' SGD with its `SGD/iter` counter). Its checkpoint restores, and the signatures run
//! to TensorFlow 2.21's values (`tf.compat.v1.saved_model.load` in a graph-mode session;
//! numbers from `scripts/gen_public_models.py`).

use std::path::PathBuf;
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::io::saved_model::{variables_prefix, SavedModelBundle};
use tensorgraph::Tensor;

fn model_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/public/tensorflow-rust/examples/regression_savedmodel")
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

/// x = linspace(-1, 2, 8), y = 0.1 x + 0.3 (as float32, as the generator computes them).
fn data() -> (Tensor, Tensor) {
    let x: Vec<f32> = (0..8).map(|i| (-1.0 + 3.0 * f64::from(i) / 7.0) as f32).collect();
    let y: Vec<f32> = x.iter().map(|&v| (0.1 * f64::from(v) + 0.3) as f32).collect();
    (Tensor::vector(x), Tensor::vector(y))
}

#[test]
fn regression_savedmodel_lists_its_signatures() {
    let model = SavedModelBundle::load(model_dir(), &["serve"]).unwrap();
    assert!(model.left_out().is_empty(), "{:?}", model.left_out());
    let mut keys: Vec<String> = model.signatures().into_iter().map(|s| s.key).collect();
    keys.sort();
    assert_eq!(keys, ["__saved_model_init_op", "b", "train", "w"]);
    let train = model.signature("train").unwrap();
    let mut inputs: Vec<&str> = train.inputs.iter().map(|s| s.key.as_str()).collect();
    inputs.sort();
    assert_eq!(inputs, ["x", "y"]);
    assert_eq!(train.outputs[0].key, "loss");
    assert_eq!(train.input("x").unwrap().name, "train_x:0");
    assert_eq!(train.outputs[0].name, "StatefulPartitionedCall_1:0");
}

#[test]
fn regression_savedmodel_checkpoint_restores() {
    let model = SavedModelBundle::load(model_dir(), &["serve"]).unwrap();
    let reader = CheckpointReader::open(variables_prefix(model_dir())).unwrap();
    // the object-graph keys of the checkpoint and the variables they restore
    for (key, var) in [
        ("w/.ATTRIBUTES/VARIABLE_VALUE", "w"),
        ("b/.ATTRIBUTES/VARIABLE_VALUE", "b"),
        ("optimizer/learning_rate/.ATTRIBUTES/VARIABLE_VALUE", "SGD/learning_rate"),
        ("optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE", "SGD/iter"),
    ] {
        let op = model.graph().operation_by_name(var).unwrap();
        let got = model.session().variable_value(&op).unwrap_or_else(|| panic!("{var} restored"));
        assert_eq!(got, reader.read(key).unwrap(), "{var}");
    }
    // TensorFlow 2.21 reads w = [0.20429754], b = [0.0], learning rate 0.5, iter 0
    let w = model.run_signature("w", &[], &[]).unwrap();
    assert_eq!(w[0].0, "output");
    assert_eq!(f32s(&w[0].1), [0.20429754]);
    assert_eq!(f32s(&model.run_signature("b", &[], &[]).unwrap()[0].1), [0.0]);
}

#[test]
fn regression_savedmodel_trains_to_tensorflows_losses_and_variables() {
    let model = SavedModelBundle::load(model_dir(), &["serve"]).unwrap();
    let (x, y) = data();
    // TensorFlow 2.21, five runs of `train`
    let tf_losses = [0.07191972f32, 0.015849048, 0.004157303, 0.0012789823, 0.00043838812];
    for (step, want) in tf_losses.iter().enumerate() {
        let out = model.run_signature("train", &[("x", x.clone()), ("y", y.clone())], &[]).unwrap();
        assert_eq!(out[0].0, "loss");
        let loss = f32s(&out[0].1)[0];
        assert!((loss - want).abs() <= 1e-4 * want, "step {step}: loss {loss}, TensorFlow {want}");
    }
    let w = f32s(&model.run_signature("w", &[], &[]).unwrap()[0].1)[0];
    let b = f32s(&model.run_signature("b", &[], &[]).unwrap()[0].1)[0];
    // TensorFlow 2.21: w = [0.10959318], b = [0.3036085], SGD/iter = 5
    assert!((w - 0.10959318).abs() <= 1e-6, "w = {w}");
    assert!((b - 0.3036085).abs() <= 1e-6, "b = {b}");
    let iter = model.graph().operation_by_name("SGD/iter").unwrap();
    assert_eq!(model.session().variable_value(&iter).unwrap().to_vec::<i64>().unwrap(), [5]);
}
