//! Writes SavedModels with `SavedModelBuilder`, for real TensorFlow to load back
//! (`interop/check_saved_model.py`).
//!
//! ```sh
//! cargo run --release --example write_saved_model -- DIR
//! ```
//!
//! The model: `x` float32 [None,4]; variables `dense/kernel` [4,3] (Glorot, seed 7),
//! `dense/bias` [3] and `scale` (saved as 1.0, set to 0.5 by the main op);
//! `logits = (x @ kernel + bias) * scale`, `probs = softmax(logits)`. Written into `DIR`:
//! * `model/`: `saved_model.pb` with two meta graphs: tags {"serve"} (signature
//!   `serving_default`: input `x`, outputs `logits`, `probs`; the main op) and
//!   {"serve", "debug"} (signature `logits_only`, no main op), plus `variables/`;
//! * `model_text/`: the {"serve"} meta graph again, as `saved_model.pbtxt`;
//! * `x.npy` (5 rows), and `expected.json`: tensorgraph's `logits` and `probs` for them
//!   through the {"serve"} meta graph (scale 0.5) and `logits_debug` through {"serve",
//!   "debug"} (scale 1.0), each as {"shape", "values"}, from loading the SavedModel back here.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use tensorgraph::io::saved_model::{predict_signature_def, SavedModelBuilder, SavedModelBundle};
use tensorgraph::{init, ops, DType, Graph, Reuse, Session, Tensor};

type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn entry(t: &Tensor) -> Res<Value> {
    Ok(json!({ "shape": t.shape(), "values": t.as_slice::<f32>().map_err(err)? }))
}

fn main() -> Res<()> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: write_saved_model DIR")?);
    std::fs::create_dir_all(&dir).map_err(err)?;
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(4)]).map_err(err)?;
    let (kernel, bias) = s
        .variable_scope("dense", Reuse::No, |d| {
            Ok((
                d.get_variable("kernel", [4, 3], DType::Float, init::glorot_uniform_seeded(7))?,
                d.get_variable("bias", [3], DType::Float, init::random_uniform(-0.5, 0.5, Some(3)))?,
            ))
        })
        .map_err(err)?;
    let scale = s.get_variable("scale", [0usize; 0], DType::Float, init::ones()).map_err(err)?;
    let pre = ops::add(&s, &ops::matmul(&s, &x, &kernel).map_err(err)?, &bias).map_err(err)?;
    let logits = ops::mul(&s.named("logits"), &pre, &scale).map_err(err)?;
    let probs = ops::softmax(&s.named("probs"), &logits).map_err(err)?;
    let half = ops::constant(&s, Tensor::scalar(0.5f32)).map_err(err)?;
    let main_op = scale.assign_op(&s.named("main_op"), &half).map_err(err)?;
    let sess = Session::new(&g).map_err(err)?;
    sess.run_targets(&[&s.global_variables_initializer().map_err(err)?]).map_err(err)?;

    let serving = predict_signature_def(&[("x", &x)], &[("logits", &logits), ("probs", &probs)]);
    let debug = predict_signature_def(&[("x", &x)], &[("logits", &logits)]);
    let model = dir.join("model");
    let mut b = SavedModelBuilder::new(&model).map_err(err)?;
    let sigs: BTreeMap<String, _> = [("serving_default".to_string(), serving.clone())].into();
    b.add_meta_graph_and_variables(&sess, &["serve"], sigs.clone(), Some(&main_op)).map_err(err)?;
    b.add_meta_graph(&["serve", "debug"], [("logits_only".to_string(), debug)].into(), None).map_err(err)?;
    b.save().map_err(err)?;
    let mut t = SavedModelBuilder::new(dir.join("model_text")).map_err(err)?;
    t.add_meta_graph_and_variables(&sess, &["serve"], sigs, Some(&main_op)).map_err(err)?;
    t.save_as_text().map_err(err)?;

    let xs: Vec<f32> = (0..20).map(|i| ((i * 37 % 17) as f32 - 8.0) * 0.25).collect();
    let xs = Tensor::new(&[5, 4], xs).map_err(err)?;
    xs.write_npy(dir.join("x.npy")).map_err(err)?;
    let loaded = SavedModelBundle::load(&model, &["serve"]).map_err(err)?;
    let out = loaded.run_signature("serving_default", &[("x", xs.clone())], &["logits", "probs"]).map_err(err)?;
    let dbg = SavedModelBundle::load(&model, &["debug", "serve"]).map_err(err)?;
    let dbg_out = dbg.run_signature("logits_only", &[("x", xs)], &[]).map_err(err)?;
    let expected = json!({
        "logits": entry(&out[0].1)?,
        "probs": entry(&out[1].1)?,
        "logits_debug": entry(&dbg_out[0].1)?,
    });
    std::fs::write(dir.join("expected.json"), serde_json::to_string_pretty(&expected).map_err(err)?).map_err(err)?;
    println!("wrote {}", dir.display());
    Ok(())
}
