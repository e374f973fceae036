//! A TF2 SavedModel TensorFlow 2.21's `tf.saved_model.save` wrote of a `tf.Module`
//! (`tests/data/saved_model_tf2/module`, by `scripts/gen_saved_model_tf2.py`): resource
//! variables, a `StatefulPartitionedCall` signature over the function library, the object
//! graph's `_traced_restore`. It loads through `SavedModelBundle`, its variables restore,
//! and `serving_default` runs to TensorFlow's values.

use std::path::Path;
use tensorgraph::io::saved_model::SavedModelBundle;
use tensorgraph::Tensor;

#[test]
fn tf2_module_saved_model_runs_to_tensorflows_values() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/saved_model_tf2/module");
    let model = SavedModelBundle::load(&dir, &["serve"]).unwrap();
    assert!(model.left_out().is_empty(), "{:?}", model.left_out());
    let sig = model.signature("serving_default").unwrap();
    assert_eq!(sig.inputs[0].key, "x");
    let x = Tensor::new(&[2, 3], vec![1f32, 2.0, 3.0, -1.0, 0.5, 2.0]).unwrap();
    let out = model.run_signature("serving_default", &[("x", x)], &[]).unwrap();
    assert_eq!(out[0].0, "y");
    assert_eq!(out[0].1.shape(), [2, 2]);
    // TensorFlow 2.21: [0.0, 4.300000190734863, 0.0, 2.799999952316284]
    assert_eq!(out[0].1.to_vec::<f32>().unwrap(), [0.0, 4.3, 0.0, 2.8]);
}
