//! Times reading and importing a GraphDef file into a fresh graph, as
//! `tf.import_graph_def(GraphDef.FromString(bytes), name="")` does; used by
//! `scripts/bench_models.sh` beside TensorFlow.
//!
//!     cargo run --release --example import_model -- MODEL.pb [REPEATS]
//!
//! Prints one JSON line: `{"model": ..., "nodes": N, "read_import_ms": [...], "median_ms": M}`
//! (each repeat reads the file's bytes, parses them and imports them with names unchanged).

use std::time::Instant;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::Graph;

fn main() -> tensorgraph::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: import_model MODEL.pb [REPEATS]");
        std::process::exit(2);
    };
    let repeats: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut times = Vec::new();
    let mut nodes = 0;
    for _ in 0..repeats {
        let t = Instant::now();
        let gd = read_graph_def_any(path)?;
        let g = Graph::new();
        g.import_graph_def(&gd, &ImportGraphDefOptions::new().prefix(""))?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        nodes = g.operations().len();
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let list: Vec<String> = times.iter().map(|t| format!("{t:.2}")).collect();
    println!(
        "{{\"model\": {path:?}, \"nodes\": {nodes}, \"read_import_ms\": [{}], \"median_ms\": {median:.2}}}",
        list.join(", ")
    );
    Ok(())
}
