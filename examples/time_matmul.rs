//! `MatMul` of two float32 [1024, 1024] matrices through `Session::run`, against the peak
//! of the same GEMM kernel (`matrixmultiply::sgemm`, which the `MatMul` kernel calls) on a
//! cache-resident block; used by `scripts/bench_threads.sh` beside TensorFlow
//! (`scripts/bench_models_tf.py matmul`).
//!
//!     cargo run --release --example time_matmul -- THREADS [RUNS]
//!
//! THREADS is `intra_op_parallelism_threads` (0 = one per core). The peak is one core's
//! throughput on a [256, 256] @ [256, 256] product (768 KiB, in the L2 cache) repeated,
//! times the threads used. After two warm-up runs it times RUNS runs (default 10) and
//! prints one JSON line: `{"threads": T, "ms": [...], "median_ms": M, "gflops": G,
//! "kernel_peak_gflops_per_core": P, "fraction_of_peak": G / (P * T)}` (GFLOP/s counts
//! 2 * 1024^3 floating-point operations per product).

use std::time::Instant;
use tensorgraph::{ops, DType, Graph, Session, SessionOptions, Tensor};

const N: usize = 1024;

/// GFLOP/s of one core running `sgemm` on a [b, b] @ [b, b] block held in cache.
fn kernel_peak_gflops(b: usize) -> f64 {
    let x: Vec<f32> = (0..b * b).map(|i| (i % 17) as f32 * 0.01).collect();
    let y = x.clone();
    let mut z = vec![0f32; b * b];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let reps = 50;
        let t = Instant::now();
        for _ in 0..reps {
            // SAFETY: x, y and z each hold b * b elements, row-major with row stride b
            unsafe {
                matrixmultiply::sgemm(
                    b,
                    b,
                    b,
                    1.0,
                    x.as_ptr(),
                    b as isize,
                    1,
                    y.as_ptr(),
                    b as isize,
                    1,
                    0.0,
                    z.as_mut_ptr(),
                    b as isize,
                    1,
                )
            };
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    std::hint::black_box(&z);
    2.0 * (b * b * b) as f64 / best / 1e9
}

fn main() -> tensorgraph::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let threads: usize = args.get(1).and_then(|t| t.parse().ok()).unwrap_or(0);
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(10);
    let g = Graph::new();
    let s = g.scope();
    let a = ops::placeholder(&s, DType::Float, vec![N, N])?;
    let b = ops::placeholder(&s, DType::Float, vec![N, N])?;
    let c = ops::matmul(&s, &a, &b)?;
    let sess = Session::with_options(&g, &SessionOptions::with_threads(threads)?)?;
    let value = |seed: usize| Tensor::new(&[N, N], (0..N * N).map(|i| ((i * seed) % 1000) as f32 / 1000.0).collect());
    let (va, vb) = (value(7919)?, value(104729)?);
    for _ in 0..2 {
        sess.fetch(&[(&a, va.clone()), (&b, vb.clone())], &c)?;
    }
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        sess.fetch(&[(&a, va.clone()), (&b, vb.clone())], &c)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mut sorted = ms.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let gflops = 2.0 * (N * N * N) as f64 / (median / 1e3) / 1e9;
    let peak = kernel_peak_gflops(256);
    let used = sess.intra_op_threads();
    let shown: Vec<String> = ms.iter().map(|t| format!("{t:.2}")).collect();
    println!(
        "{{\"threads\": {used}, \"ms\": [{}], \"median_ms\": {median:.2}, \"gflops\": {gflops:.1}, \"kernel_peak_gflops_per_core\": {peak:.1}, \"fraction_of_peak\": {:.3}}}",
        shown.join(", "),
        gflops / (peak * used as f64)
    );
    Ok(())
}
