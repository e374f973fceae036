//! Times one training step (`sess.run(loss, train_op)` with a fed batch) of a TF-written
//! training graph, with a given number of intra-op threads; used by
//! `scripts/bench_threads.sh` beside TensorFlow (`scripts/bench_models_tf.py train`).
//!
//!     cargo run --release --example time_train -- MODEL_DIR THREADS [RUNS]
//!
//! MODEL_DIR is a training model of `scripts/gen_models.py` (`cnn_bn`, `lstm_classifier`):
//! `model.ckpt.meta` and `model.ckpt`, `manifest.json` (`x`, `y`, `loss`, `train_op`) and
//! `batch_x_0.npy` / `batch_y_0.npy`. THREADS is `intra_op_parallelism_threads` (0 = one per
//! core). After restoring the checkpoint and two warm-up steps it times RUNS steps (default
//! 10) on the same batch and prints one JSON line:
//! `{"model": ..., "threads": T, "ms": [...], "median_ms": M}`.

use std::time::Instant;
use tensorgraph::{Graph, Session, SessionOptions, Tensor};

#[path = "support/manifest.rs"]
mod manifest;
use manifest::manifest_name;

fn main() -> tensorgraph::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: time_train MODEL_DIR THREADS [RUNS]");
        std::process::exit(2);
    }
    let dir = std::path::Path::new(&args[1]);
    let threads: usize = args[2].parse().unwrap_or(0);
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(10);
    let manifest = std::fs::read_to_string(dir.join("manifest.json"))?;
    let name = |key: &str| {
        manifest_name(&manifest, key).ok_or_else(|| tensorgraph::Error::not_found(format!("manifest.json lacks {key}")))
    };
    let g = Graph::new();
    let saver = g
        .import_meta_graph(dir.join("model.ckpt.meta"), &Default::default())?
        .ok_or_else(|| tensorgraph::Error::not_found("the meta graph has no saver"))?;
    let sess = Session::with_options(&g, &SessionOptions::with_threads(threads)?)?;
    saver.restore(&sess, dir.join("model.ckpt"))?;
    let (x, y, loss) =
        (g.tensor_by_name(&name("x")?)?, g.tensor_by_name(&name("y")?)?, g.tensor_by_name(&name("loss")?)?);
    let train = g.operation_by_name(&name("train_op")?)?;
    let bx = Tensor::read_npy(dir.join("batch_x_0.npy"))?;
    let by = Tensor::read_npy(dir.join("batch_y_0.npy"))?;
    let step = || sess.run(&[(&x, bx.clone()), (&y, by.clone())], &[&loss], &[&train]);
    for _ in 0..2 {
        step()?;
    }
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        step()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mut sorted = ms.clone();
    sorted.sort_by(f64::total_cmp);
    let shown: Vec<String> = ms.iter().map(|t| format!("{t:.3}")).collect();
    println!(
        "{{\"model\": \"{}\", \"threads\": {}, \"ms\": [{}], \"median_ms\": {:.3}}}",
        dir.display(),
        sess.intra_op_threads(),
        shown.join(", "),
        sorted[sorted.len() / 2]
    );
    Ok(())
}
