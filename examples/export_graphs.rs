//! Exports a model trained in tensorgraph in every graph format, for real TensorFlow to
//! load back (`interop/check_graphs.py`).
//!
//! ```sh
//! cargo run --release --example export_graphs -- DIR
//! ```
//!
//! The model is the `weight_def` softmax regression: `x` float32 [None,4], `y` float32
//! [None,3] (one-hot), `weight_def/weights` [4,3] and `weight_def/biases` [3], `logits`,
//! `probs` (softmax), `loss` (mean softmax cross-entropy) and Adam (0.05) as `train`. It is
//! trained 5 steps on a fixed batch of 12 rows, then written into `DIR` (created if needed):
//! * `model.ckpt.meta`: the meta graph with TensorFlow's `save/` ops and collections, and
//!   `model.ckpt.index`, `model.ckpt.data-00000-of-00001`, `checkpoint`: every global variable
//!   (model, Adam slots, beta powers), all written by one `Saver::save`;
//! * `frozen.pb` and `frozen.pbtxt`: the graph frozen for `probs` (`freeze`);
//! * `graph.json`: `{"inputs", "labels"` (the batch), `"probs"` (tensorgraph's output on
//!   the inputs), `"frozen_ops"` ([name, op] of frozen.pb), `"output_nodes"`,
//!   `"variables_after_step"` ({name: {"shape", "values"}}: every global variable after one
//!   more `train` step on the batch, taken after the checkpoint was saved)`}`.

use serde_json::{json, Value};
use std::path::PathBuf;
use tensorgraph::io::graph_def::{freeze, write_graph_def, write_graph_def_text};
use tensorgraph::train::{AdamOptimizer, Optimizer, Saver};
use tensorgraph::{init, ops, DType, Graph, Reuse, Session, Tensor};

type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The fixed batch: 12 rows of 4 features, 3 classes (4 rows each).
fn batch() -> Res<(Tensor, Tensor)> {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for i in 0..12usize {
        let class = i % 3;
        for j in 0..4usize {
            let wobble = (((i * 7 + j * 13) % 11) as f32 - 5.0) * 0.1;
            xs.push(if j == class { 1.5 } else { 0.0 } + wobble);
        }
        for k in 0..3 {
            ys.push(if k == class { 1.0f32 } else { 0.0 });
        }
    }
    Ok((Tensor::new(&[12, 4], xs).map_err(err)?, Tensor::new(&[12, 3], ys).map_err(err)?))
}

fn tensor_json(t: &Tensor) -> Res<Value> {
    Ok(json!({ "shape": t.shape(), "values": t.to_f64_vec().map_err(err)? }))
}

fn main() -> Res<()> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: export_graphs DIR")?);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;

    let graph = Graph::new();
    let root = graph.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(4)]).map_err(err)?;
    let y = ops::placeholder(&root.named("y"), DType::Float, [None, Some(3)]).map_err(err)?;
    let logits = root
        .variable_scope("weight_def", Reuse::No, |s| {
            let w = s.get_variable("weights", [4, 3], DType::Float, init::glorot_uniform_seeded(7))?;
            let b = s.get_variable("biases", [3], DType::Float, init::zeros())?;
            let mm = ops::matmul(s, &x, &w)?;
            ops::add(&root.named("logits"), &mm, &b)
        })
        .map_err(err)?;
    let probs = ops::softmax(&root.named("probs"), &logits).map_err(err)?;
    let xent = ops::softmax_cross_entropy_with_logits(&root, &y, &logits).map_err(err)?;
    let loss = ops::reduce_mean(&root.named("loss"), &xent, None, false).map_err(err)?;
    let train = AdamOptimizer::new(0.05).minimize_with(&loss, None, None, Some("train")).map_err(err)?;
    let init_op = root.global_variables_initializer().map_err(err)?;

    let sess = Session::new(&graph).map_err(err)?;
    sess.run_targets(&[&init_op]).map_err(err)?;
    let (xs, ys) = batch()?;
    let feeds = || vec![(&x, xs.clone()), (&y, ys.clone())];
    for _ in 0..5 {
        sess.run(&feeds(), &[], &[&train]).map_err(err)?;
    }

    // the checkpoint and its meta graph (with TensorFlow's save/ subgraph)
    let saver = Saver::new(&graph).map_err(err)?;
    saver.save(&sess, dir.join("model.ckpt")).map_err(err)?;
    let vars: Vec<(String, tensorgraph::Variable)> =
        saver.variables().iter().map(|(k, v)| (k.clone(), v.clone())).collect();

    // frozen graph, binary and text
    let output_nodes = ["probs"];
    let frozen = freeze(&graph, &sess, &output_nodes).map_err(err)?;
    write_graph_def(&frozen, dir.join("frozen.pb")).map_err(err)?;
    write_graph_def_text(&frozen, dir.join("frozen.pbtxt")).map_err(err)?;

    let p = sess.fetch(&[(&x, xs.clone())], &probs).map_err(err)?;

    // one more step, after saving: what TensorFlow must reproduce from the checkpoint
    sess.run(&feeds(), &[], &[&train]).map_err(err)?;
    let mut after = serde_json::Map::new();
    for (name, v) in &vars {
        let value = sess.variable_value(v.op()).ok_or_else(|| format!("{name} is uninitialized"))?;
        after.insert(name.clone(), tensor_json(&value)?);
    }

    let doc = json!({
        "inputs": tensor_json(&xs)?,
        "labels": tensor_json(&ys)?,
        "probs": tensor_json(&p)?,
        "output_nodes": output_nodes,
        "frozen_ops": frozen.node.iter().map(|n| json!([n.name, n.op])).collect::<Vec<_>>(),
        "train_op": train.name(),
        "variables_after_step": after,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(err)?;
    std::fs::write(dir.join("graph.json"), text).map_err(err)?;
    println!("export_graphs: wrote {}", dir.display());
    Ok(())
}
