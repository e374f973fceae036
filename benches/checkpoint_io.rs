//! Checkpoint I/O through `Saver`: save and restore of 256 MiB of float32 in 16 variables of
//! 16 MiB each (throughput), and opening + listing a checkpoint with 1000 entries. The
//! checkpoints go to a temporary directory on the same disk as `$TMPDIR`. TensorFlow's side
//! (`tf.compat.v1.train.Saver`, 1 thread): scripts/bench_tf.py (`tf_save_256mib_s`,
//! `tf_restore_256mib_s`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tensorgraph::format::checkpoint::{write_checkpoint, CheckpointReader};
use tensorgraph::train::Saver;
use tensorgraph::{ops, DType, Graph, Session, Tensor};

const VARS: usize = 16;
const ELEMS: usize = 4 << 20; // 16 MiB of float32 per variable

fn big_model() -> (Graph, Session) {
    let g = Graph::new();
    let root = g.scope();
    for i in 0..VARS {
        let init = ops::placeholder(&root.named(&format!("init{i:02}")), DType::Float, [Some(ELEMS)]).unwrap();
        root.variable(&format!("v{i:02}"), &init).unwrap();
    }
    // Values are set directly (as a restore would); the placeholders only give the shapes.
    let sess = Session::new(&g).unwrap();
    for (i, v) in g.global_variables().iter().enumerate() {
        let vals: Vec<f32> = (0..ELEMS).map(|j| (i * ELEMS + j) as f32 * 1e-3).collect();
        sess.set_variable_value(v.op(), Tensor::new(&[ELEMS], vals).unwrap()).unwrap();
    }
    (g, sess)
}

fn bench(c: &mut Criterion) {
    let (g, sess) = big_model();
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path().join("model.ckpt");
    let bytes = (VARS * ELEMS * 4) as u64;

    let mut group = c.benchmark_group("checkpoint_256mib");
    group.sample_size(10).throughput(Throughput::Bytes(bytes));
    let saver = Saver::new(&g).unwrap().max_to_keep(1).write_meta_graph(false);
    group.bench_function("save", |b| b.iter(|| saver.save(&sess, &prefix).unwrap()));
    let nosync = Saver::new(&g).unwrap().max_to_keep(1).sync(false).write_meta_graph(false);
    group.bench_function("save_nosync", |b| b.iter(|| nosync.save(&sess, &prefix).unwrap()));
    let sharded = Saver::new(&g).unwrap().max_to_keep(1).num_shards(2).sync(false).write_meta_graph(false);
    let sharded_prefix = tmp.path().join("sharded.ckpt");
    group.bench_function("save_nosync_2_shards", |b| b.iter(|| sharded.save(&sess, &sharded_prefix).unwrap()));
    saver.save(&sess, &prefix).unwrap();
    let target = Session::new(&g).unwrap();
    group.bench_function("restore", |b| b.iter(|| saver.restore(&target, &prefix).unwrap()));
    group.finish();
    saver.restore(&target, &prefix).unwrap();
    let v3 = g.global_variables()[3].op().clone();
    assert!(target.variable_value(&v3) == sess.variable_value(&v3), "restored values differ");

    // 1000 small entries: open the index and list it (tf.train.list_variables).
    let many: Vec<(String, Tensor)> = (0..1000)
        .map(|i| (format!("layer{:03}/weights", i), Tensor::new(&[4, 3], vec![i as f32; 12]).unwrap()))
        .collect();
    let list_prefix = tmp.path().join("many.ckpt");
    write_checkpoint(&list_prefix, &many).unwrap();
    let mut group = c.benchmark_group("checkpoint_1000_entries");
    group.sample_size(50);
    group.bench_function("open_and_list", |b| {
        b.iter(|| {
            let r = CheckpointReader::open(&list_prefix).unwrap();
            assert_eq!(r.list().len(), 1000);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
