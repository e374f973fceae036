//! One Adam training step (`sess.run(train, feed)`) of a 784-256-256-10 relu MLP with
//! softmax cross-entropy on a float32 batch of 64. TensorFlow's side: scripts/bench_tf.py.

use criterion::{criterion_group, criterion_main, Criterion};
use tensorgraph::models::{Mlp, MlpConfig};
use tensorgraph::{Graph, Session, Tensor};

fn bench(c: &mut Criterion) {
    let g = Graph::new();
    let cfg =
        MlpConfig { features: 784, hidden: vec![256, 256], classes: 10, learning_rate: Some(0.001), seed: Some(1) };
    let m = Mlp::build(&g, &cfg).unwrap();
    let sess = Session::new(&g).unwrap();
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
    c.bench_function("mlp_784_256_256_10_adam_step_batch64", |b| {
        b.iter(|| sess.run(&[(x, xs.clone()), (y, ys.clone())], &[], &[train]).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
