//! Sharded saves (`Saver(sharded=True)`, several data files and one index) read back by
//! `CheckpointReader` and `Saver::restore`. `interop/check_sharded.py` has TensorFlow read them.

use std::path::Path;
use tensorgraph::format::checkpoint::{
    data_path, index_path, write_checkpoint, write_checkpoint_sharded, CheckpointReader, CheckpointWriter,
};
use tensorgraph::train::Saver;
use tensorgraph::{Code, Graph, Session, Tensor};

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Variables v0..v5 of growing size with distinct values, initialized in a session.
fn model() -> (Graph, Session) {
    let g = Graph::new();
    let root = g.scope();
    for i in 0..6usize {
        let n = 1 + 40 * i;
        let vals: Vec<f32> = (0..n).map(|j| (i * 1000 + j) as f32).collect();
        root.variable_from_value(&format!("v{i}"), Tensor::new(&[n], vals).unwrap()).unwrap();
    }
    root.variable_from_value("count", Tensor::scalar(42i64)).unwrap();
    root.variable_from_value("flag", Tensor::new(&[2], vec![true, false]).unwrap()).unwrap();
    let init = root.global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    (g, sess)
}

#[test]
fn saver_writes_several_data_files_and_one_index() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let saver = Saver::new(&g).unwrap().num_shards(3);
    let prefix = saver.save(&sess, tmp.path().join("model.ckpt")).unwrap();
    assert_eq!(
        files(tmp.path()),
        [
            "checkpoint",
            "model.ckpt.data-00000-of-00003",
            "model.ckpt.data-00001-of-00003",
            "model.ckpt.data-00002-of-00003",
            "model.ckpt.index",
            "model.ckpt.meta"
        ]
    );
    let r = CheckpointReader::open(&prefix).unwrap();
    assert_eq!(r.header().num_shards, 3);
    let mut per_shard = [0i64; 3];
    let mut shards_used = std::collections::BTreeSet::new();
    for (name, _, _) in r.list() {
        let e = r.get_entry(&name).unwrap();
        assert!((0..3).contains(&e.shard_id), "{name}: shard {}", e.shard_id);
        assert_eq!(e.offset, per_shard[e.shard_id as usize], "{name}: tensors are back to back in their shard");
        per_shard[e.shard_id as usize] += e.size;
        shards_used.insert(e.shard_id);
    }
    assert_eq!(shards_used.len(), 3);
    for (k, bytes) in per_shard.iter().enumerate() {
        let len = std::fs::metadata(data_path(&prefix, k, 3)).unwrap().len();
        assert_eq!(len as i64, *bytes, "shard {k} length");
    }
    // Balanced by size: no shard holds more than the largest tensor beyond another.
    let (lo, hi) = (per_shard.iter().min().unwrap(), per_shard.iter().max().unwrap());
    assert!(hi - lo <= 201 * 4, "{per_shard:?}");

    // Every value reads back, and Saver::restore fills a fresh session.
    for v in g.global_variables() {
        assert_eq!(r.read(&v.op_name()).unwrap(), sess.variable_value(v.op()).unwrap(), "{}", v.op_name());
    }
    let fresh = Session::new(&g).unwrap();
    saver.restore(&fresh, &prefix).unwrap();
    for v in g.global_variables() {
        assert_eq!(fresh.variable_value(v.op()), sess.variable_value(v.op()), "{}", v.name());
    }
    // A plain saver restores it too, and the state file names it.
    Saver::new(&g).unwrap().restore(&Session::new(&g).unwrap(), &prefix).unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("checkpoint")).unwrap(),
        "model_checkpoint_path: \"model.ckpt\"\nall_model_checkpoint_paths: \"model.ckpt\"\n"
    );
}

#[test]
fn sharded_on_one_device_is_tensorflows_single_file_layout() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let a = Saver::new(&g).unwrap().sharded(true).save(&sess, tmp.path().join("a")).unwrap();
    let b = Saver::new(&g).unwrap().save(&sess, tmp.path().join("b")).unwrap();
    for p in [&a, &b] {
        assert!(data_path(p, 0, 1).is_file());
    }
    assert_eq!(std::fs::read(index_path(&a)).unwrap(), std::fs::read(index_path(&b)).unwrap());
    assert_eq!(std::fs::read(data_path(&a, 0, 1)).unwrap(), std::fs::read(data_path(&b, 0, 1)).unwrap());
    // sharded(false) undoes num_shards.
    let c = Saver::new(&g).unwrap().num_shards(4).sharded(false).save(&sess, tmp.path().join("c")).unwrap();
    assert_eq!(std::fs::read(index_path(&c)).unwrap(), std::fs::read(index_path(&b)).unwrap());
}

#[test]
fn writer_shards_match_sequential_adds_and_allow_empty_shards() {
    let tensors: Vec<(String, Tensor)> = vec![
        ("big".into(), Tensor::new(&[1000], (0..1000).map(|i| i as f64).collect()).unwrap()),
        ("s".into(), Tensor::strings(&[3], vec![b"x".to_vec(), vec![b'y'; 300], Vec::new()]).unwrap()),
        ("small".into(), Tensor::scalar(3i32)),
        ("empty".into(), Tensor::new(&[0, 4], Vec::<f32>::new()).unwrap()),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let par = tmp.path().join("par");
    write_checkpoint_sharded(&par, &tensors, 6).unwrap();
    let seq = tmp.path().join("seq");
    let mut w = CheckpointWriter::with_num_shards(&seq, 6).unwrap();
    assert_eq!(w.num_shards(), 6);
    for (n, t) in &tensors {
        w.add(n, t).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(std::fs::read(index_path(&par)).unwrap(), std::fs::read(index_path(&seq)).unwrap());
    let r = CheckpointReader::open(&par).unwrap();
    assert_eq!(r.header().num_shards, 6);
    for (n, t) in &tensors {
        assert_eq!(&r.read(n).unwrap(), t, "{n}");
    }
    for k in 0..6 {
        assert!(data_path(&par, k, 6).is_file(), "shard {k} exists, even when empty");
    }
    // One shard: byte-identical to write_checkpoint.
    let one = tmp.path().join("one");
    write_checkpoint_sharded(&one, &tensors, 1).unwrap();
    let plain = tmp.path().join("plain");
    write_checkpoint(&plain, &tensors).unwrap();
    assert_eq!(std::fs::read(index_path(&one)).unwrap(), std::fs::read(index_path(&plain)).unwrap());
    assert_eq!(std::fs::read(data_path(&one, 0, 1)).unwrap(), std::fs::read(data_path(&plain, 0, 1)).unwrap());
}

#[test]
fn writer_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let err = CheckpointWriter::with_num_shards(tmp.path().join("z"), 0).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    let t = Tensor::scalar(1f32);
    let err = write_checkpoint_sharded(tmp.path().join("d"), &[("a".into(), t.clone()), ("a".into(), t.clone())], 2)
        .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(err.message.contains("added twice"), "{err}");
    let mut w = CheckpointWriter::with_num_shards(tmp.path().join("e"), 2).unwrap();
    let err = w.add_to_shard("a", &t, 2).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    w.add_to_shard("a", &t, 1).unwrap();
    w.finish().unwrap();
    let r = CheckpointReader::open(tmp.path().join("e")).unwrap();
    assert_eq!(r.get_entry("a").unwrap().shard_id, 1);
    assert_eq!(r.read("a").unwrap(), t);
    // Failed and dropped writers leave no files behind.
    assert_eq!(files(tmp.path()), ["e.data-00000-of-00002", "e.data-00001-of-00002", "e.index"]);
}

#[test]
fn damaged_shards_are_reported() {
    let (g, sess) = model();
    let tmp = tempfile::tempdir().unwrap();
    let saver = Saver::new(&g).unwrap().num_shards(2);
    let prefix = saver.save(&sess, tmp.path().join("m")).unwrap();
    std::fs::remove_file(data_path(&prefix, 1, 2)).unwrap();
    let err = saver.restore(&Session::new(&g).unwrap(), &prefix).unwrap_err();
    assert_eq!(err.code, Code::NotFound, "{err}");
    assert!(err.message.contains("m.data-00001-of-00002"), "{err}");
    let prefix = saver.save(&sess, tmp.path().join("m")).unwrap();
    let shard0 = data_path(&prefix, 0, 2);
    let mut bytes = std::fs::read(&shard0).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&shard0, bytes).unwrap();
    let err = saver.restore(&Session::new(&g).unwrap(), &prefix).unwrap_err();
    assert_eq!(err.code, Code::DataLoss, "{err}");
    assert!(err.message.contains("Checksum does not match"), "{err}");
}

/// The checkpoint `interop/check_sharded.py` has TensorFlow read: with `TG_SHARDED_OUT=<dir>`
/// set, saves `<dir>/sharded.ckpt` over 3 shards (v0..v5 float32 with `v{i}[j] = 1000 i + j`,
/// `count` int64 42, `flag` bool [true, false]). Without the variable it does nothing.
#[test]
fn write_for_interop() {
    let Some(dir) = std::env::var_os("TG_SHARDED_OUT").map(std::path::PathBuf::from) else { return };
    std::fs::create_dir_all(&dir).unwrap();
    let (g, sess) = model();
    let prefix = Saver::new(&g).unwrap().num_shards(3).save(&sess, dir.join("sharded.ckpt")).unwrap();
    println!("wrote {}", prefix.display());
}
