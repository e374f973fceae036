//! Latency of `Session::run` fetching `add_1:0` in the seed004 graph (three float32 [1]
//! variables, `add = v1 + v2`, `add_1 = add + v3`), with the default options and with one
//! inter-op thread (the executor's serial loop). TensorFlow's side: scripts/bench_tf.py.

use criterion::{criterion_group, criterion_main, Criterion};
use tensorgraph::format::proto::ConfigProto;
use tensorgraph::{ops, Graph, Session, SessionOptions, Tensor};

fn bench(c: &mut Criterion) {
    let g = Graph::new();
    let s = g.scope();
    let mut vars = Vec::new();
    for (name, v) in [("v1", 1.0f32), ("v2", 2.0), ("v3", 3.0)] {
        let k = ops::constant(&s, Tensor::new(&[1], vec![v]).unwrap()).unwrap();
        vars.push(s.variable(name, &k).unwrap());
    }
    let add = ops::add(&s, &vars[0], &vars[1]).unwrap();
    let add_1 = ops::add(&s, &add, &vars[2]).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    c.bench_function("session_run_add_1", |b| b.iter(|| sess.run(&[], &[&add_1], &[]).unwrap()));
    let config = ConfigProto { inter_op_parallelism_threads: 1, ..Default::default() };
    let serial = Session::with_options(&g, &SessionOptions { config }).unwrap();
    serial.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    c.bench_function("session_run_add_1_inter_op_1", |b| b.iter(|| serial.run(&[], &[&add_1], &[]).unwrap()));
}

criterion_group!(benches, bench);
criterion_main!(benches);
