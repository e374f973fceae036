//! One Adam training step (`sess.run(train, feed)`) of a 784-256-256-10 relu MLP with
//! softmax cross-entropy on a float32 batch of 64, with 1 and 2 intra-op threads.
//! TensorFlow's side: scripts/bench_tf.py.

use criterion::{criterion_group, criterion_main, Criterion};
use tensorgraph::models::{Mlp, MlpConfig};
use tensorgraph::{Graph, Session, SessionOptions, Tensor};

fn bench(c: &mut Criterion) {
    for threads in [1, 2] {
        bench_threads(c, threads);
    }
}

fn bench_threads(c: &mut Criterion, threads: usize) {
    let g = Graph::new();
    let cfg =
        MlpConfig { features: 784, hidden: vec![256, 256], classes: 10, learning_rate: Some(0.001), seed: Some(1) };
    let m = Mlp::build(&g, &cfg).unwrap();
    let sess = Session::with_options(&g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
    sess.run_targets(&[&m.init]).unwrap();
    let batch = 64;
    let xs =
        Tensor::new(&[batch, 784], (0..batch * 784).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect()).unwrap();
    let mut ys = vec![0f32; batch * 10];
    for i in 0..batch {
        ys[i * 10 + i % 10] = 1.0;
    }
    let ys = Tensor::new(&[batch, 10], ys).unwrap();
    let (x, y, train) = (&m.x, m.y.as_ref().unwrap(), m.train.as_ref().unwrap());
    let name = if threads == 1 {
        "mlp_784_256_256_10_adam_step_batch64".to_string()
    } else {
        format!("mlp_784_256_256_10_adam_step_batch64_{threads}_threads")
    };
    c.bench_function(&name, |b| b.iter(|| sess.run(&[(x, xs.clone()), (y, ys.clone())], &[], &[train]).unwrap()));
}

criterion_group!(benches, bench);
criterion_main!(benches);
