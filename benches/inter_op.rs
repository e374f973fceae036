//! Inter-op parallelism on an Inception-style block: four branches over one [8, 28, 28,
//! 64] float32 input (1x1 convolution; 1x1 then 3x3; 1x1 then 5x5; 3x3 max pool then 1x1),
//! each with a relu, concatenated on channels. Kernels on 1 intra-op thread with 1 and 2
//! inter-op threads (the branches on 2 threads), and on 2 intra-op threads with 1 and 2
//! inter-op threads.

use criterion::{criterion_group, criterion_main, Criterion};
use tensorgraph::format::proto::ConfigProto;
use tensorgraph::{ops, Graph, Output, Scope, Session, SessionOptions, Tensor};

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104_729) % 2003) as f32 / 1001.5 - 1.0).collect()
}

/// relu(conv(x, a [k, k, cin, cout] filter of deterministic values)), SAME padding.
fn conv_relu(s: &Scope, x: &Output, k: usize, cin: usize, cout: usize, seed: usize) -> Output {
    let w = ops::constant(&s.named("w"), Tensor::new(&[k, k, cin, cout], values(k * k * cin * cout, seed)).unwrap())
        .unwrap();
    ops::relu(s, &ops::conv2d(s, x, &w, &[1, 1, 1, 1], "SAME").unwrap()).unwrap()
}

fn inception(g: &Graph) -> Output {
    let r = g.scope();
    let x = ops::constant(&r.named("x"), Tensor::new(&[8, 28, 28, 64], values(8 * 28 * 28 * 64, 1)).unwrap()).unwrap();
    let b1 = conv_relu(&r.sub("b1"), &x, 1, 64, 64, 2);
    let b2 = conv_relu(&r.sub("b2b"), &conv_relu(&r.sub("b2a"), &x, 1, 64, 96, 3), 3, 96, 128, 4);
    let b3 = conv_relu(&r.sub("b3b"), &conv_relu(&r.sub("b3a"), &x, 1, 64, 16, 5), 5, 16, 32, 6);
    let pool = ops::max_pool(&r.named("pool"), &x, &[1, 3, 3, 1], &[1, 1, 1, 1], "SAME").unwrap();
    let b4 = conv_relu(&r.sub("b4"), &pool, 1, 64, 32, 7);
    ops::concat(&r.named("concat"), &[b1, b2, b3, b4], 3).unwrap()
}

fn bench(c: &mut Criterion) {
    let g = Graph::new();
    let y = inception(&g);
    for (intra, inter) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
        let config = ConfigProto {
            intra_op_parallelism_threads: intra,
            inter_op_parallelism_threads: inter,
            ..ConfigProto::default()
        };
        // unoptimised: the optimiser would fold the whole constant block into one Const
        let sess = Session::with_options(&g, &SessionOptions { config }.without_graph_optimization()).unwrap();
        let name = format!("inception_block_batch8_intra{intra}_inter{inter}");
        c.bench_function(&name, |b| b.iter(|| sess.run(&[], &[&y], &[]).unwrap()));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
