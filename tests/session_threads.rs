//! Session options (`ConfigProto`'s thread fields) and intra-op parallelism: results with
//! 1, 2 and 4 threads agree, the kernels that split work compute the right values, a
//! serialized `ConfigProto` from TensorFlow parses, and many sessions and threads run at
//! once without deadlock.

use tensorgraph::models::layers::BatchNormalization;
use tensorgraph::models::{Cnn, CnnConfig, Mlp, MlpConfig};
use tensorgraph::ops::{self, DepthwiseConv2dOptions};
use tensorgraph::{Code, DType, Graph, Session, SessionOptions, Tensor};

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104_729) % 2003) as f32 / 1001.5 - 1.0).collect()
}

fn session(g: &Graph, threads: usize) -> Session {
    let s = Session::with_options(g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
    assert_eq!(s.intra_op_threads(), threads);
    s
}

/// Largest |a - b| / max(|b|, 1e-3) over the elements.
fn max_rel(a: &Tensor, b: &Tensor) -> f64 {
    assert_eq!(a.shape(), b.shape());
    let (a, b) = (a.to_f64_vec().unwrap(), b.to_f64_vec().unwrap());
    a.iter().zip(&b).map(|(x, y)| (x - y).abs() / y.abs().max(1e-3)).fold(0.0, f64::max)
}

/// Three Adam steps of a conv net with batch norm (conv, pooling, batch norm, matmul and
/// their gradients, all large enough to be split), then its probabilities and a kernel.
fn cnn_run(threads: usize) -> Vec<Tensor> {
    let g = Graph::new();
    let cfg = CnnConfig {
        input: [16, 16, 3],
        filters: vec![16, 32],
        classes: 10,
        learning_rate: Some(0.01),
        batch_norm: BatchNormalization { momentum: 0.9, epsilon: 0.001 },
        seed: Some(3),
    };
    let m = Cnn::build(&g, &cfg).unwrap();
    let sess = session(&g, threads);
    sess.run_targets(&[&m.init]).unwrap();
    let n = 32;
    let x = Tensor::new(&[n, 16, 16, 3], values(n * 16 * 16 * 3, 1)).unwrap();
    let y =
        Tensor::new(&[n, 10], (0..n * 10).map(|i| if i % 10 == (i / 10) % 10 { 1.0 } else { 0.0 }).collect()).unwrap();
    let feeds = [(&m.x, x.clone()), (m.y.as_ref().unwrap(), y), (&m.training, Tensor::scalar(true))];
    for _ in 0..3 {
        sess.run(&feeds, &[], &[m.train.as_ref().unwrap()]).unwrap();
    }
    let kernel = g.operation_by_name("conv1/kernel").unwrap();
    vec![sess.fetch(&[(&m.x, x)], &m.probs).unwrap(), sess.variable_value(&kernel).unwrap()]
}

/// Three Adam steps of a 512-512-256-10 MLP on a batch of 128, then its logits.
fn mlp_run(threads: usize) -> Vec<Tensor> {
    let g = Graph::new();
    let cfg =
        MlpConfig { features: 512, hidden: vec![512, 256], classes: 10, learning_rate: Some(0.01), seed: Some(5) };
    let m = Mlp::build(&g, &cfg).unwrap();
    let sess = session(&g, threads);
    sess.run_targets(&[&m.init]).unwrap();
    let x = Tensor::new(&[128, 512], values(128 * 512, 2)).unwrap();
    let y =
        Tensor::new(&[128, 10], (0..1280).map(|i| if i % 10 == (i / 10) % 10 { 1.0 } else { 0.0 }).collect()).unwrap();
    for _ in 0..3 {
        sess.run(&[(&m.x, x.clone()), (m.y.as_ref().unwrap(), y.clone())], &[], &[m.train.as_ref().unwrap()]).unwrap();
    }
    vec![sess.fetch(&[(&m.x, x)], &m.logits).unwrap()]
}

#[test]
fn a_conv_net_and_an_mlp_give_the_same_results_on_1_2_and_4_threads() {
    for run in [cnn_run as fn(usize) -> Vec<Tensor>, mlp_run] {
        let want = run(1);
        for threads in [2, 4] {
            for (got, want) in run(threads).iter().zip(&want) {
                let d = max_rel(got, want);
                assert!(d <= 1e-6, "{threads} threads: relative difference {d}");
            }
        }
    }
}

/// A classifier's last layers at batch 1 (a one-row product of 2M multiply-adds, under the
/// split threshold, after a large one): bitwise the same on 1, 2 and 4 threads, fed or with
/// constant (packed) weights.
#[test]
fn batch_one_products_are_bitwise_equal_on_1_2_and_4_threads() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, [1, 2048]).unwrap();
    let big = ops::placeholder(&s, DType::Float, [256, 2048]).unwrap();
    let w = ops::constant(&s, Tensor::new(&[2048, 1000], values(2048 * 1000, 7)).unwrap()).unwrap();
    let fc = ops::matmul(&s, &x, &w).unwrap();
    let wide = ops::matmul(&s, &big, &w).unwrap();
    let feeds = [
        (&x, Tensor::new(&[1, 2048], values(2048, 8)).unwrap()),
        (&big, Tensor::new(&[256, 2048], values(256 * 2048, 9)).unwrap()),
    ];
    let want = session(&g, 1).run(&feeds, &[&fc, &wide], &[]).unwrap();
    for threads in [2, 4] {
        let got = session(&g, threads).run(&feeds, &[&fc, &wide], &[]).unwrap();
        assert_eq!(got, want, "{threads} threads");
    }
}

/// A graph of the kernels that split their work, with inputs large enough to be split.
struct Kernels {
    g: Graph,
    fetches: Vec<tensorgraph::Output>,
    x: Vec<f32>,
    w: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
}

fn kernels_graph() -> Kernels {
    let g = Graph::new();
    let r = g.scope();
    // NHWC [4, 32, 32, 16], depthwise 3x3 filter [3, 3, 16, 1]
    let x = values(4 * 32 * 32 * 16, 3);
    let w = values(3 * 3 * 16, 4);
    let xt = ops::constant(&r.named("x"), Tensor::new(&[4, 32, 32, 16], x.clone()).unwrap()).unwrap();
    let wt = ops::constant(&r.named("w"), Tensor::new(&[3, 3, 16, 1], w.clone()).unwrap()).unwrap();
    let dw = ops::depthwise_conv2d_native(
        &r.named("dw"),
        &xt,
        &wt,
        &DepthwiseConv2dOptions { padding: "SAME".into(), ..Default::default() },
    )
    .unwrap();
    let maxp = ops::max_pool(&r.named("maxp"), &xt, &[1, 3, 3, 1], &[1, 2, 2, 1], "SAME").unwrap();
    let avgp = ops::avg_pool(&r.named("avgp"), &xt, &[1, 3, 3, 1], &[1, 2, 2, 1], "SAME").unwrap();
    let sum_last = ops::reduce_sum(&r.named("sum_last"), &xt, Some(&[3]), false).unwrap();
    let sum_first = ops::reduce_sum(&r.named("sum_first"), &xt, Some(&[0, 1]), false).unwrap();
    let bias = ops::constant(&r.named("bias"), Tensor::new(&[16], values(16, 5)).unwrap()).unwrap();
    let biased = ops::add(&r.named("biased"), &xt, &bias).unwrap();
    let relu = ops::relu(&r.named("relu"), &biased).unwrap();
    // few rows, many columns: the product is split by columns
    let a = values(4 * 1024, 6);
    let b = values(1024 * 2048, 7);
    let at = ops::constant(&r.named("a"), Tensor::new(&[4, 1024], a.clone()).unwrap()).unwrap();
    let bt = ops::constant(&r.named("b"), Tensor::new(&[1024, 2048], b.clone()).unwrap()).unwrap();
    let mm = ops::matmul(&r.named("mm"), &at, &bt).unwrap();
    Kernels { g, fetches: vec![dw, maxp, avgp, sum_last, sum_first, relu, mm], x, w, a, b }
}

#[test]
fn split_kernels_compute_the_values_of_plain_loops() {
    let k = kernels_graph();
    let fetches: Vec<&tensorgraph::Output> = k.fetches.iter().collect();
    let serial = session(&k.g, 1).run(&[], &fetches, &[]).unwrap();
    for threads in [2, 4] {
        let got = session(&k.g, threads).run(&[], &fetches, &[]).unwrap();
        for (i, (g, s)) in got.iter().zip(&serial).enumerate() {
            // the splits keep each element's order of operations: bitwise equal
            assert_eq!(g, s, "fetch {i} with {threads} threads");
        }
    }
    let out: Vec<Vec<f64>> = serial.iter().map(|t| t.to_f64_vec().unwrap()).collect();
    let x = |n: usize, y: usize, xx: usize, c: usize| k.x[((n * 32 + y) * 32 + xx) * 16 + c] as f64;
    // spot checks against plain loops in f64
    for &(n, oy, ox, c) in &[(0, 0, 0, 0), (1, 5, 31, 7), (3, 31, 16, 15), (2, 17, 0, 3)] {
        let mut want = 0.0;
        let mut best = f64::MIN;
        let mut sum = 0.0;
        let mut cnt = 0.0;
        for ky in 0..3 {
            for kx in 0..3 {
                let (iy, ix) = ((oy + ky) as isize - 1, (ox + kx) as isize - 1);
                if (0..32).contains(&iy) && (0..32).contains(&ix) {
                    want += x(n, iy as usize, ix as usize, c) * k.w[(ky * 3 + kx) * 16 + c] as f64;
                }
                // pooling windows: stride 2, SAME padding of 3 over 32 puts 0 before
                let (py, px) = (oy / 2 * 2 + ky, ox / 2 * 2 + kx);
                if py < 32 && px < 32 {
                    best = best.max(x(n, py, px, c));
                    sum += x(n, py, px, c);
                    cnt += 1.0;
                }
            }
        }
        let dw = out[0][((n * 32 + oy) * 32 + ox) * 16 + c];
        assert!((dw - want).abs() < 1e-5, "depthwise at {n},{oy},{ox},{c}: {dw} vs {want}");
        let p = ((n * 16 + oy / 2) * 16 + ox / 2) * 16 + c;
        assert_eq!(out[1][p], best, "max pool at {n},{oy},{ox},{c}");
        assert!((out[2][p] - sum / cnt).abs() < 1e-6, "avg pool at {n},{oy},{ox},{c}: {} vs {}", out[2][p], sum / cnt);
    }
    for &(n, y, xx) in &[(0, 0, 0), (3, 31, 31), (2, 10, 20)] {
        let want: f64 = (0..16).map(|c| x(n, y, xx, c)).sum();
        assert!((out[3][(n * 32 + y) * 32 + xx] - want).abs() < 1e-5);
    }
    for &(xx, c) in &[(0, 0), (31, 15), (7, 9)] {
        let want: f64 = (0..4).flat_map(|n| (0..32).map(move |y| (n, y))).map(|(n, y)| x(n, y, xx, c)).sum();
        assert!((out[4][xx * 16 + c] - want).abs() < 1e-4, "{} vs {want}", out[4][xx * 16 + c]);
    }
    let bias = values(16, 5);
    for i in [0, 17, 65535, 4 * 32 * 32 * 16 - 1] {
        let want = (k.x[i] + bias[i % 16]).max(0.0) as f64;
        assert_eq!(out[5][i], want, "relu(x + bias) at {i}");
    }
    for &(i, j) in &[(0, 0), (3, 2047), (1, 1000), (2, 15), (2, 16)] {
        let want: f64 = (0..1024).map(|l| k.a[i * 1024 + l] as f64 * k.b[l * 2048 + j] as f64).sum();
        let got = out[6][i * 2048 + j];
        assert!((got - want).abs() < 1e-3, "matmul at {i},{j}: {got} vs {want}");
    }
}

#[test]
fn a_serialized_config_proto_from_tensorflow_parses() {
    // ConfigProto(intra_op_parallelism_threads=3, inter_op_parallelism_threads=2,
    // use_per_session_threads=True, allow_soft_placement=True, log_device_placement=True,
    // gpu_options.allow_growth=True, device_count={'CPU': 1}).SerializeToString(),
    // TensorFlow 2.21: the fields tensorgraph does not keep are skipped
    let hex = "0a070a0343505510011003280232022001380140014801";
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    let o = SessionOptions::from_config_bytes(&bytes).unwrap();
    assert_eq!(o.config.intra_op_parallelism_threads, 3);
    assert_eq!(o.config.inter_op_parallelism_threads, 2);
    assert!(o.config.use_per_session_threads);
    let g = Graph::new();
    let sess = Session::with_options(&g, &o).unwrap();
    assert_eq!(sess.intra_op_threads(), 3);
    assert_eq!(sess.options(), &o);
    // the default: one thread per core
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(Session::new(&g).unwrap().intra_op_threads(), cores);
    assert_eq!(SessionOptions::from_config_bytes(&[]).unwrap(), SessionOptions::default());
    // field 2 = -1
    let e = SessionOptions::from_config_bytes(&[0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.to_string().contains("intra_op_parallelism_threads is -1"), "{e}");
    // a truncated message
    let e = SessionOptions::from_config_bytes(&[0x10]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.to_string().contains("cannot parse the bytes as a ConfigProto"), "{e}");
}

#[test]
fn many_threads_and_sessions_run_at_once() {
    let k = kernels_graph();
    let fetches: Vec<&tensorgraph::Output> = k.fetches.iter().collect();
    let want = session(&k.g, 1).run(&[], &fetches, &[]).unwrap();
    // a counter variable: every call adds 1 exactly once
    let r = k.g.scope();
    let counter = r.variable_from_value("counter", Tensor::scalar(0i64)).unwrap();
    let one = ops::constant(&r.named("one"), Tensor::scalar(1i64)).unwrap();
    let add = counter.assign_add(&r.named("count"), &one).unwrap();
    let init = k.g.operation_by_name("counter/Assign").unwrap();
    // two default sessions (the shared pool), one with its own 2 threads, one serial
    let sessions: Vec<Session> = [0usize, 0, 2, 1]
        .iter()
        .map(|&t| Session::with_options(&k.g, &SessionOptions::with_threads(t).unwrap()).unwrap())
        .collect();
    for s in &sessions {
        s.run_targets(&[&init]).unwrap();
    }
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (sessions, fetches, want, add) = (&sessions, &fetches, &want, &add);
            scope.spawn(move || {
                let s = &sessions[t % sessions.len()];
                for _ in 0..5 {
                    let got = s.run(&[], fetches, &[]).unwrap();
                    assert_eq!(&got, want);
                    s.run(&[], &[], &[&add.op()]).unwrap();
                }
            });
        }
    });
    for s in &sessions {
        // 8 threads over 4 sessions: 2 threads per session, 5 calls each
        assert_eq!(s.variable_value(counter.op()).unwrap(), Tensor::scalar(10i64));
    }
}

#[test]
fn thread_counts_beyond_the_limit_are_refused() {
    let e = SessionOptions::with_threads(100_000).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("100000 threads is more than 1024; use 0 (one thread per core: "), "{e}");
    assert!(SessionOptions::with_threads(tensorgraph::MAX_THREADS).is_ok());
    let mut options = SessionOptions::new();
    options.config.inter_op_parallelism_threads = 5000;
    let e = Session::with_options(&Graph::new(), &options).err().expect("refused");
    assert!(e.message.starts_with("ConfigProto.inter_op_parallelism_threads is 5000; use 0"), "{e}");
    options.config.inter_op_parallelism_threads = 0;
    options.config.intra_op_parallelism_threads = -2;
    let e = Session::with_options(&Graph::new(), &options).err().expect("refused");
    assert!(e.message.starts_with("ConfigProto.intra_op_parallelism_threads is -2; use 0"), "{e}");
}
