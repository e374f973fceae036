//! Times `Session::run` of a frozen model with a given number of intra-op threads; used
//! by `scripts/bench_models.sh` beside TensorFlow (`scripts/bench_models_tf.py time`).
//!
//!     cargo run --release --example time_model -- MODEL_DIR BATCH THREADS [RUNS] [noopt]
//!
//! MODEL_DIR holds `frozen.pb`, `manifest.json` (`input`, `output` tensor names) and
//! `input_b{BATCH}.npy`; THREADS is `intra_op_parallelism_threads` (0 = one per core).
//! `noopt` turns the graph optimiser off (`SessionOptions::without_graph_optimization`);
//! `remap` and `noremap` turn its remapping (batch-norm folding, fused convolutions and
//! products) on or off, the other passes running.
//! After two warm-up runs it times RUNS runs (default 10) and prints one JSON line:
//! `{"model": ..., "batch": B, "threads": T, "ms": [...], "median_ms": M}`.
//! With `TG_PROFILE=N` in the environment it then traces N more runs (`FULL_TRACE`) and
//! prints the kernel time per op type and of the slowest nodes, averaged over them (where
//! a second thread helps and where it does not).

use std::collections::HashMap;
use std::time::Instant;
use tensorgraph::format::proto::{GraphOptions, RewriterConfig, RunOptions, Toggle, TraceLevel};
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::{Graph, Session, SessionOptions, Tensor};

#[path = "support/manifest.rs"]
mod manifest;
use manifest::manifest_name;

fn main() -> tensorgraph::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: time_model MODEL_DIR BATCH THREADS [RUNS] [noopt|remap|noremap]");
        std::process::exit(2);
    }
    let dir = std::path::Path::new(&args[1]);
    let (batch, threads): (usize, usize) = (args[2].parse().unwrap_or(1), args[3].parse().unwrap_or(0));
    let runs: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(10);
    let manifest = std::fs::read_to_string(dir.join("manifest.json"))?;
    let (Some(input), Some(output)) = (manifest_name(&manifest, "input"), manifest_name(&manifest, "output")) else {
        eprintln!("manifest.json lacks input or output");
        std::process::exit(2);
    };
    let g = Graph::new();
    g.import_graph_def(&read_graph_def_any(dir.join("frozen.pb"))?, &ImportGraphDefOptions::new().prefix(""))?;
    let mut options = SessionOptions::with_threads(threads)?;
    match args.get(5).map(String::as_str) {
        Some("noopt") => options = options.without_graph_optimization(),
        Some("remap") => {
            let rewrite = RewriterConfig { remapping: Toggle::On as i32, ..Default::default() };
            options.config.graph_options = Some(GraphOptions { rewrite_options: Some(rewrite) });
        }
        Some("noremap") => {
            let rewrite = RewriterConfig { remapping: Toggle::Off as i32, ..Default::default() };
            options.config.graph_options = Some(GraphOptions { rewrite_options: Some(rewrite) });
        }
        _ => {}
    }
    let sess = Session::with_options(&g, &options)?;
    let x = g.tensor_by_name(&input)?;
    let y = g.tensor_by_name(&output)?;
    let value = Tensor::read_npy(dir.join(format!("input_b{batch}.npy")))?;
    for _ in 0..2 {
        sess.fetch(&[(&x, value.clone())], &y)?;
    }
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        sess.fetch(&[(&x, value.clone())], &y)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mut sorted = ms.clone();
    sorted.sort_by(f64::total_cmp);
    let shown: Vec<String> = ms.iter().map(|t| format!("{t:.2}")).collect();
    println!(
        "{{\"model\": \"{}\", \"batch\": {batch}, \"threads\": {}, \"ms\": [{}], \"median_ms\": {:.2}}}",
        dir.display(),
        sess.intra_op_threads(),
        shown.join(", "),
        sorted[sorted.len() / 2]
    );
    let traced: usize = std::env::var("TG_PROFILE").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    if traced > 0 {
        let options = RunOptions { trace_level: TraceLevel::FullTrace as i32, ..Default::default() };
        let mut by_type: HashMap<String, (i64, usize)> = HashMap::new();
        let mut by_node: HashMap<String, i64> = HashMap::new();
        let mut wall = 0.0;
        for _ in 0..traced {
            let t = Instant::now();
            let (_, md) = sess.run_with_options(&options, &[(&x, value.clone())], &[&y], &[])?;
            wall += t.elapsed().as_secs_f64() * 1e3;
            for n in md.node_stats() {
                let op = n.timeline_label.split_once(" = ").and_then(|(_, r)| r.split('(').next()).unwrap_or("?");
                let nanos = n.op_end_rel_nanos - n.op_start_rel_nanos;
                *by_node.entry(format!("{op} {}", n.node_name)).or_default() += nanos;
                let e = by_type.entry(op.to_string()).or_default();
                e.0 += nanos;
                e.1 += 1;
            }
        }
        let mut rows: Vec<_> = by_type.into_iter().collect();
        rows.sort_by_key(|(_, (nanos, _))| std::cmp::Reverse(*nanos));
        println!("traced runs: {traced}, wall {:.2} ms per run", wall / traced as f64);
        for (op, (nanos, count)) in rows {
            println!("{:>10.3} ms  {op} ({})", nanos as f64 / 1e6 / traced as f64, count / traced);
        }
        let mut nodes: Vec<_> = by_node.into_iter().collect();
        nodes.sort_by_key(|(_, nanos)| std::cmp::Reverse(*nanos));
        println!("slowest nodes:");
        for (node, nanos) in nodes.iter().take(12) {
            println!("{:>10.3} ms  {node}", *nanos as f64 / 1e6 / traced as f64);
        }
    }
    Ok(())
}
