//! TensorFlow Serving's `saved_model_counter` (`tests/data/public/serving`, source and
//! licence in its README.md): a TF1 SavedModel whose signatures read, increment, add to and
//! reset a reference variable `counter` (outputs are `AssignAdd`/`Assign` ref tensors). Its
//! checkpoint restores and the signatures run in one session to TensorFlow 2.21's values
//! (`scripts/gen_public_models.py`: `tf.compat.v1.saved_model.load`, the same calls in the
//! same order).

use std::path::PathBuf;
use tensorgraph::io::saved_model::SavedModelBundle;
use tensorgraph::Tensor;

fn counter() -> SavedModelBundle {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/public/serving/saved_model_counter/00000123");
    SavedModelBundle::load(dir, &["serve"]).unwrap()
}

fn run(model: &SavedModelBundle, key: &str, inputs: &[(&str, Tensor)]) -> f32 {
    let out = model.run_signature(key, inputs, &[]).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, "output");
    assert_eq!(out[0].1.shape(), [] as [usize; 0], "{key}");
    out[0].1.to_vec::<f32>().unwrap()[0]
}

#[test]
fn counter_signatures_update_the_restored_variable_as_tensorflow() {
    let model = counter();
    let mut keys: Vec<String> = model.signatures().into_iter().map(|s| s.key).collect();
    keys.sort();
    assert_eq!(keys, ["get_counter", "incr_counter", "incr_counter_by", "reset_counter"]);
    // TensorFlow 2.21: get 0.0, incr 1.0, incr_by(2.5) 3.5, get 3.5, reset 0.0, get 0.0
    assert_eq!(run(&model, "get_counter", &[]), 0.0);
    assert_eq!(run(&model, "incr_counter", &[]), 1.0);
    assert_eq!(run(&model, "incr_counter_by", &[("delta", Tensor::scalar(2.5f32))]), 3.5);
    assert_eq!(run(&model, "get_counter", &[]), 3.5);
    assert_eq!(run(&model, "reset_counter", &[]), 0.0);
    assert_eq!(run(&model, "get_counter", &[]), 0.0);
}
