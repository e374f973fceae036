//! Event writing speed (BENCHMARKS.md, "TensorBoard event files"): 100,000 scalar events
//! through `FileWriter::add_summary` (serialized summaries, as a session run returns them),
//! then `close`; prints the total time and the time each `add_summary` call took the
//! calling thread (median, 99th percentile, max). `scripts/bench_events_tf.py` does the
//! same with TensorFlow's FileWriter.
//!
//!     cargo run --release --example bench_events [-- N]

use prost::Message;
use std::time::Instant;
use tensorgraph::format::proto::{Summary, SummaryKind, SummaryValue};
use tensorgraph::train::summary::FileWriter;

fn main() -> tensorgraph::Result<()> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let dir = std::env::temp_dir().join(format!("tensorgraph-bench-events-{}", std::process::id()));
    let summaries: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let v = SummaryValue {
                tag: "loss".into(),
                value: Some(SummaryKind::SimpleValue(i as f32)),
                ..Default::default()
            };
            Summary { value: vec![v] }.encode_to_vec()
        })
        .collect();
    let mut lat = Vec::with_capacity(n);
    let t0 = Instant::now();
    let w = FileWriter::new(&dir)?;
    for (i, s) in summaries.iter().enumerate() {
        let t = Instant::now();
        w.add_summary(s, i as i64)?;
        lat.push(t.elapsed().as_nanos() as f64 / 1e3);
    }
    let path = w.path().unwrap_or_default();
    w.close()?;
    let total = t0.elapsed().as_secs_f64();
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p) as usize];
    println!(
        "tensorgraph: {n} scalar events in {total:.3} s ({size} bytes); add_summary median {:.2} us, p99 {:.2} us, max {:.1} us",
        pct(0.5),
        pct(0.99),
        lat[lat.len() - 1]
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
