//! `MatMul` of two float32 [1024, 1024] matrices through `Session::run`, against the peak
//! of the same GEMM kernel (`rten-gemm`'s, which the float32 `MatMul` kernel calls) on a
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

/// GFLOP/s of one core running the float32 `MatMul` kernel (`rten-gemm`, on a one-thread
/// rayon pool as a serial run uses it) on a [b, b] @ [b, b] block held in cache.
fn kernel_peak_gflops(b: usize) -> f64 {
    use rten_gemm::{GemmExecutor, GemmInputA, GemmInputB, GemmUninitOptions};
    use rten_tensor::NdTensorView;
    let x: Vec<f32> = (0..b * b).map(|i| (i % 17) as f32 * 0.01).collect();
    let y = x.clone();
    let mut z = vec![std::mem::MaybeUninit::<f32>::uninit(); b * b];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
    let best = pool.install(|| {
        let ex = GemmExecutor::<f32>::default();
        let (xv, yv) = (NdTensorView::from_data([b, b], &x[..]), NdTensorView::from_data([b, b], &y[..]));
        let mut best = f64::MAX;
        for _ in 0..5 {
            let reps = 50;
            let t = Instant::now();
            for _ in 0..reps {
                let (a, c) = (GemmInputA::Unpacked(xv.view()), GemmInputB::Unpacked(yv.view()));
                ex.gemm_uninit(&mut z, a, c, GemmUninitOptions::default()).expect("square operands");
            }
            best = best.min(t.elapsed().as_secs_f64() / reps as f64);
        }
        best
    });
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
