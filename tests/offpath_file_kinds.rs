//! Files that are not what they seem, named for what they are through every reader: a V1
//! checkpoint (TensorFlow's single-file tensor-slice format, tests/data/legacy/v1_slices.ckpt),
//! a SavedModel's `saved_model.pb` and a TensorBoard event file (tests/data/offpath, written by
//! TensorFlow 2.21 through scripts/gen_offpath.py), whatever their names.

mod common;
use common::repo_root;
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::io::graph_def::{read_graph_def, read_graph_def_any};
use tensorgraph::io::meta_graph::read_meta_graph;
use tensorgraph::io::model_file::{detect, read_model_file, ModelFileKind as K, SAVED_MODEL_HINT};
use tensorgraph::{Code, Error};

const V1: &str = "a V1 checkpoint (the single-file tensor-slice format of tf.compat.v1.train.Saver(write_version=V1))";
const V1_ADVICE: &str = "it holds variable values, not a graph: restore it into the model's graph (Saver::restore, init_from_checkpoint, or --ckpt on the command line) or list it (CheckpointReader, tensorgraph inspect), which read V1 checkpoints as V2 ones";

fn data(rel: &str) -> PathBuf {
    repo_root().join("tests/data").join(rel)
}

fn copy(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(from, &to).unwrap();
    to
}

fn is(e: Error, code: Code, message: &str) {
    assert_eq!((e.code, e.message.as_str()), (code, message));
}

#[test]
fn a_v1_checkpoint_is_called_a_v1_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let v1 = data("legacy/v1_slices.ckpt");
    // by content, whatever its name (a .index name included)
    for path in [v1.clone(), copy(&v1, tmp.path(), "model.pb"), copy(&v1, tmp.path(), "m.ckpt.index")] {
        assert_eq!(detect(&path).unwrap(), K::V1Checkpoint, "{}", path.display());
    }
    assert!(K::V1Checkpoint.is_checkpoint() && !K::V1Checkpoint.is_model());
    assert_eq!(K::V1Checkpoint.describe(), V1);
    let shown = v1.display();
    let not_a_model = format!("{shown} is {V1}, not a model; {V1_ADVICE}");
    is(read_model_file(&v1).unwrap_err(), Code::InvalidArgument, &not_a_model);
    is(read_graph_def_any(&v1).unwrap_err(), Code::InvalidArgument, &not_a_model);
    is(read_meta_graph(&v1).unwrap_err(), Code::InvalidArgument, &not_a_model);
    let e = read_graph_def(&v1).unwrap_err();
    assert!(e.message.contains(&format!(": the file is {V1}, not a model; {V1_ADVICE}: ")), "{e}");
    // the checkpoint reader reads it, as a prefix or named like an index
    let names = |r: CheckpointReader| r.list().into_iter().map(|e| e.0).collect::<Vec<_>>();
    assert_eq!(names(CheckpointReader::open(&v1).unwrap()), ["a", "i", "p", "s"]);
    copy(&v1, tmp.path(), "m.ckpt.index");
    let r = CheckpointReader::open(tmp.path().join("m.ckpt")).unwrap();
    assert!(r.is_v1());
    assert_eq!(names(r), ["a", "i", "p", "s"]);
    // a V2 index is still a checkpoint index
    assert_eq!(
        detect(copy(&common::fixtures().join("seed004/model.ckpt.index"), tmp.path(), "idx")).unwrap(),
        K::CheckpointIndex
    );
}

#[test]
fn a_saved_model_is_called_a_saved_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data("offpath/saved_model");
    let pb = dir.join("saved_model.pb");
    // the directory, the file, and the file renamed (by its content)
    let renamed = copy(&pb, tmp.path(), "model.pb");
    for path in [&dir, &pb, &renamed] {
        assert_eq!(detect(path).unwrap(), K::SavedModel, "{}", path.display());
        is(
            read_model_file(path).unwrap_err(),
            Code::InvalidArgument,
            &format!("{} is a SavedModel, not a model file; {SAVED_MODEL_HINT}", path.display()),
        );
    }
    let e = read_graph_def(&renamed).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert!(e.message.contains(&format!(": the file is a SavedModel, not a GraphDef; {SAVED_MODEL_HINT}: ")), "{e}");
    assert!(!e.message.contains("damaged"), "{e}");
}

#[test]
fn an_event_file_is_called_an_event_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ev = data("offpath/events.out.tfevents.offpath");
    for path in [ev.clone(), copy(&ev, tmp.path(), "graph.pb")] {
        assert_eq!(detect(&path).unwrap(), K::EventFile);
        is(
            read_model_file(&path).unwrap_err(),
            Code::InvalidArgument,
            &format!(
                "{} is a TensorBoard event file (tf.summary.FileWriter), not a model; give the model's .meta, .pb or .pbtxt file",
                path.display()
            ),
        );
    }
}
