//! A damaged V1 checkpoint (TensorFlow's single-file tensor-slice format: a byte flipped, the
//! file cut short) is a `DataLoss` error naming the file as a damaged V1 checkpoint and what
//! is wrong, for every reader (`CheckpointReader::open`, `Saver::restore`,
//! `init_from_checkpoint`, `model_file::detect`), not a missing `.index` or an unknown file.
//! The checkpoint damaged is TensorFlow's `tests/data/trainapi/v1/model.ckpt` (408 bytes).

use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::init::Initializer;
use tensorgraph::io::model_file::detect;
use tensorgraph::train::{init_from_checkpoint, Saver};
use tensorgraph::{Code, DType, Graph, Session};

const V1: &str = "V1 checkpoint (the single-file tensor-slice format of tf.compat.v1.train.Saver(write_version=V1))";

fn v1_bytes() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trainapi/v1/model.ckpt")).unwrap()
}

/// `dir/name` holding the V1 checkpoint changed by `damage`.
fn damaged(dir: &Path, name: &str, damage: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = v1_bytes();
    damage(&mut bytes);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Every reader refuses `path` with `DataLoss` and exactly `message`.
fn every_reader_says(path: &Path, message: &str) {
    let e = CheckpointReader::open(path).map(|_| ()).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (Code::DataLoss, message));
    let g = Graph::new();
    g.scope().get_variable("w", [2], DType::Float, Initializer::Zeros).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = Saver::new(&g).unwrap().restore(&sess, path).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (Code::DataLoss, message));
    let e = init_from_checkpoint(&g, path, [("/", "/")]).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (Code::DataLoss, message));
    let e = detect(path).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (Code::DataLoss, message));
}

#[test]
fn a_flipped_byte_in_a_block_is_a_damaged_v1_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    // inside the first tensor's meta (the data block at offset 0)
    let p = damaged(dir.path(), "model.ckpt-1", |b| b[40] ^= 1);
    every_reader_says(&p, &format!("{} is a damaged {V1}: block checksum mismatch at offset 0", p.display()));
    // the first byte: the block no longer starts as a V1 meta, but the table's footer says SSTable
    let p = damaged(dir.path(), "model.ckpt-2", |b| b[0] ^= 1);
    every_reader_says(&p, &format!("{} is a damaged {V1}: block checksum mismatch at offset 0", p.display()));
}

#[test]
fn a_cut_v1_checkpoint_or_a_damaged_footer_is_a_damaged_v1_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let footer = "SSTable footer (48 bytes ending in the table's magic number) is missing or damaged (the file was \
                  cut short?)";
    let p = damaged(dir.path(), "cut", |b| b.truncate(300));
    every_reader_says(&p, &format!("{} is a damaged {V1}: it is 300 bytes and its {footer}", p.display()));
    let p = damaged(dir.path(), "magic", |b| *b.last_mut().unwrap() ^= 1);
    every_reader_says(&p, &format!("{} is a damaged {V1}: it is 408 bytes and its {footer}", p.display()));
}

#[test]
fn an_undamaged_v1_checkpoint_and_other_files_are_not_called_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let p = damaged(dir.path(), "model.ckpt", |_| ());
    assert!(CheckpointReader::open(&p).unwrap().is_v1());
    // bytes that do not start as a V1 checkpoint and have no table footer: not a checkpoint
    let other = dir.path().join("notes.bin");
    std::fs::write(&other, [0u8, 0, 5, 1, 2, 3, 4, 5]).unwrap();
    let e = CheckpointReader::open(&other).map(|_| ()).unwrap_err();
    assert_eq!(e.code, Code::NotFound, "{e}");
    assert!(!e.message.contains("damaged"), "{e}");
}
