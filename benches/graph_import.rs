//! Graph construction speed on a 20,000-node chain: a placeholder `x` (float32 [1]), a
//! constant `Const`, then 19,998 `AddV2` ops `add`, `add_1`, ... each adding `Const` to the
//! previous one.
//!
//! - `graph_20000/import`: `import_graph_def` of that GraphDef (parsed) into a new graph,
//!   names unchanged (TensorFlow: `tf.import_graph_def(gd, name="")`);
//! - `graph_20000/parse_and_import`: the same from the serialized bytes;
//! - `graph_20000/build`: building the chain through the `Scope` API (TensorFlow: Python
//!   `tf.add` in a `tf.Graph`, graph mode);
//! - `graph_20000/to_graph_def`: exporting it (`as_graph_def`).
//!
//! TensorFlow's side: scripts/bench_tf.py (`tf_import_20000_ms`, `tf_build_20000_ms`).

use criterion::{criterion_group, criterion_main, Criterion};
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::{ops, DType, Graph, Tensor};

/// Nodes in the chain graph.
const NODES: usize = 20_000;

fn build_chain() -> Graph {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(1)]).unwrap();
    let c = ops::constant(&s, Tensor::new(&[1], vec![1.0f32]).unwrap()).unwrap();
    let mut prev = x;
    for _ in 0..NODES - 2 {
        prev = ops::add(&s, &prev, &c).unwrap();
    }
    g
}

fn bench(c: &mut Criterion) {
    let built = build_chain();
    assert_eq!(built.num_ops(), NODES);
    let gd = built.to_graph_def();
    let bytes = gd.to_bytes();
    let opts = ImportGraphDefOptions::new().prefix("");

    let mut group = c.benchmark_group("graph_20000");
    group.sample_size(10);
    // the graphs made are dropped outside the timed part (TensorFlow frees its graphs later
    // too, through Python's garbage collector)
    group.bench_function("import", |b| {
        b.iter_with_large_drop(|| {
            let g = Graph::new();
            import_graph_def(&g, &gd, &opts).unwrap();
            g
        })
    });
    group.bench_function("parse_and_import", |b| {
        b.iter_with_large_drop(|| {
            let g = Graph::new();
            let parsed = GraphDef::from_bytes(&bytes).unwrap();
            import_graph_def(&g, &parsed, &opts).unwrap();
            g
        })
    });
    group.bench_function("build", |b| b.iter_with_large_drop(build_chain));
    group.bench_function("to_graph_def", |b| b.iter(|| built.to_graph_def()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
