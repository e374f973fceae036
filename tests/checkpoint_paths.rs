//! The paths every checkpoint reader of the library accepts, through the one resolution
//! (`resolve_checkpoint_prefix`, shared with the command line): a prefix, one of its files,
//! its directory, the directory's `checkpoint` state file (its newest checkpoint) and the
//! `.meta` beside it (its checkpoint); and what a path naming none of them is told.

use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{resolve_checkpoint_prefix, CheckpointReader};
use tensorgraph::init::Initializer;
use tensorgraph::train::{init_from_checkpoint, Saver};
use tensorgraph::{Code, DType, Graph, Session};

fn graph() -> Graph {
    let g = Graph::new();
    g.scope().get_variable("w", [2], DType::Float, Initializer::Ones).unwrap();
    g
}

/// `dir/model.ckpt` (with its `.meta` and the `checkpoint` state file) saved from [`graph`].
fn saved(dir: &Path) -> PathBuf {
    let g = graph();
    let init = g.scope().global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    Saver::new(&g).unwrap().save(&sess, dir.join("model.ckpt")).unwrap()
}

/// Every reader takes `path` as the checkpoint `prefix`.
fn every_reader_takes(path: &Path, prefix: &Path) {
    assert_eq!(resolve_checkpoint_prefix(path).unwrap(), prefix);
    assert_eq!(CheckpointReader::open(path).unwrap().prefix(), prefix);
    let g = graph();
    let sess = Session::new(&g).unwrap();
    Saver::new(&g).unwrap().restore(&sess, path).unwrap();
    let w = g.global_variables().remove(0);
    assert_eq!(sess.variable_value(w.op()).unwrap().to_vec::<f32>().unwrap(), [1.0, 1.0]);
    let done = init_from_checkpoint(&g, path, [("w", "w")]).unwrap();
    assert_eq!(done, [("w".to_string(), "w".to_string())]);
}

#[test]
fn the_state_file_and_the_meta_graph_stand_for_their_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = saved(dir.path());
    for path in [
        prefix.clone(),
        dir.path().to_path_buf(),
        dir.path().join("checkpoint"),
        dir.path().join("model.ckpt.meta"),
        dir.path().join("model.ckpt.index"),
        dir.path().join("model.ckpt.data-00000-of-00001"),
    ] {
        every_reader_takes(&path, &prefix);
    }
}

#[test]
fn a_meta_graph_without_its_checkpoint_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    saved(dir.path());
    let alone = tempfile::tempdir().unwrap();
    let meta = alone.path().join("model.ckpt.meta");
    std::fs::copy(dir.path().join("model.ckpt.meta"), &meta).unwrap();
    let stem = alone.path().join("model.ckpt");
    let why = format!(
        "{m} names a meta graph (the model Saver.save writes beside a checkpoint), and there is no checkpoint {s} \
         beside it ({s}.index does not exist)",
        m = meta.display(),
        s = stem.display()
    );
    let e = CheckpointReader::open(&meta).map(|_| ()).unwrap_err();
    assert_eq!(
        (e.code, e.message.clone()),
        (Code::NotFound, format!("checkpoint {} not found: {why}", meta.display()))
    );
    let g = graph();
    let e = Saver::new(&g).unwrap().restore(&Session::new(&g).unwrap(), &meta).unwrap_err();
    assert_eq!(
        (e.code, e.message),
        (
            Code::NotFound,
            format!(
                "Failed to find any matching files for {}: {why} (a checkpoint prefix is the path without .index; \
                 latest_checkpoint(dir) finds the latest checkpoint of a directory)",
                meta.display()
            )
        )
    );
}

#[test]
fn an_index_name_on_a_v1_checkpoint_names_the_file_to_pass_in_restore_too() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = dir.path().join("model.ckpt-1000");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trainapi/v1/model.ckpt"), &v1).unwrap();
    let index = dir.path().join("model.ckpt-1000.index");
    let why = format!(
        "{i} does not exist; {v} is a V1 checkpoint (one file, without .index or .data files): pass {v}",
        i = index.display(),
        v = v1.display()
    );
    let e = CheckpointReader::open(&index).map(|_| ()).unwrap_err();
    assert_eq!(e.message, format!("checkpoint {} not found: {why}", index.display()));
    let g = graph();
    let e = Saver::new(&g).unwrap().restore(&Session::new(&g).unwrap(), &index).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!(
            "Failed to find any matching files for {}: {why} (a checkpoint prefix is the path without .index; \
             latest_checkpoint(dir) finds the latest checkpoint of a directory)",
            index.display()
        )
    );
}
