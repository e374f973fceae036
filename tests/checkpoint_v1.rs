//! V1 checkpoints (TensorFlow's single-file tensor-slice format) read everywhere a checkpoint
//! is read, and the paths a checkpoint may be given by: `model.ckpt.index`, a data file, a
//! directory (through its `checkpoint` state file, falling back to the same name in the
//! directory when the path it names is stale), and the prefixes a save refuses.
//! `tests/data/trainapi/v1/model.ckpt` and the values in `trainapi.json` were written by
//! TensorFlow 2.21 (`scripts/gen_trainapi.py`).

mod common;
use common::{flat_f64, repo_root};
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{
    find_latest_checkpoint, latest_checkpoint, resolve_checkpoint_prefix, write_checkpoint, write_checkpoint_state,
    CheckpointReader, CheckpointState,
};
use tensorgraph::init::Initializer;
use tensorgraph::tensor::Storage;
use tensorgraph::train::{init_from_checkpoint, Saver};
use tensorgraph::{Code, DType, Graph, Session, Tensor};

fn v1_file() -> PathBuf {
    repo_root().join("tests/data/trainapi/v1/model.ckpt")
}

fn facts() -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join("tests/data/trainapi/trainapi.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn floats(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f32>().unwrap().into_iter().map(f64::from).collect()
}

fn string_of(t: &Tensor) -> String {
    match t.storage() {
        Storage::Str(v) => String::from_utf8(v[0].clone()).unwrap(),
        _ => panic!("not a string tensor"),
    }
}

#[test]
fn checkpoint_reader_reads_tensorflows_v1_checkpoint() {
    let facts = facts();
    let r = CheckpointReader::open(v1_file()).unwrap();
    assert!(r.is_v1());
    let listing: Vec<(String, DType, Vec<usize>)> = r.list();
    assert_eq!(
        listing,
        vec![
            ("count".into(), DType::Int64, vec![]),
            ("label".into(), DType::String, vec![]),
            ("part".into(), DType::Float, vec![4, 2]),
            ("w".into(), DType::Float, vec![2, 3]),
        ]
    );
    let v1 = &facts["v1"];
    assert_eq!(floats(&r.read("w").unwrap()), flat_f64(&v1["w"]));
    // `part` was a variable partitioned in two: TensorFlow saved two slices of one tensor
    assert_eq!(floats(&r.read("part").unwrap()), flat_f64(&v1["part"]));
    assert_eq!(r.read("count").unwrap().to_vec::<i64>().unwrap(), [v1["count"].as_i64().unwrap()]);
    assert_eq!(string_of(&r.read("label").unwrap()), v1["label"].as_str().unwrap());
    assert!(r.contains("w") && !r.contains("nope"));
    let e = r.read("nope").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains("Key nope not found in checkpoint"), "{e}");
}

/// The graph of the V1 checkpoint's variables (not initialized).
fn v1_graph() -> (Graph, Vec<tensorgraph::Variable>) {
    let g = Graph::new();
    let s = g.scope();
    let w = s.get_variable("w", &[2usize, 3][..], DType::Float, Initializer::Zeros).unwrap();
    let part = s.get_variable("part", &[4usize, 2][..], DType::Float, Initializer::Zeros).unwrap();
    let count = s.get_variable("count", &[][..], DType::Int64, Initializer::Zeros).unwrap();
    let label = s
        .get_variable(
            "label",
            &[][..],
            DType::String,
            Initializer::Value(Tensor::strings(&[], vec![b"-".to_vec()]).unwrap()),
        )
        .unwrap();
    (g, vec![w, part, count, label])
}

#[test]
fn saver_restores_and_init_from_checkpoint_reads_a_v1_checkpoint() {
    let facts = facts();
    let (g, vars) = v1_graph();
    let sess = Session::new(&g).unwrap();
    Saver::new(&g).unwrap().restore(&sess, v1_file()).unwrap();
    assert_eq!(floats(&sess.variable_value(vars[0].op()).unwrap()), flat_f64(&facts["v1"]["w"]));
    assert_eq!(floats(&sess.variable_value(vars[1].op()).unwrap()), flat_f64(&facts["v1"]["part"]));
    assert_eq!(sess.variable_value(vars[2].op()).unwrap().to_vec::<i64>().unwrap(), [7]);
    assert_eq!(string_of(&sess.variable_value(vars[3].op()).unwrap()), "hello");

    let (g, _) = v1_graph();
    let pairs = init_from_checkpoint(&g, v1_file(), [("w", "w"), ("part", "part")]).unwrap();
    assert_eq!(pairs.len(), 2);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    let w = g.global_variables().into_iter().find(|v| v.op_name() == "w").unwrap();
    assert_eq!(floats(&sess.fetch(&[], w.value()).unwrap()), flat_f64(&facts["v1"]["w"]));
}

/// A V2 checkpoint `dir/model.ckpt-N` holding `v = N`.
fn v2(dir: &Path, n: i32) -> PathBuf {
    let p = dir.join(format!("model.ckpt-{n}"));
    write_checkpoint(&p, &[("v".into(), Tensor::scalar(n as f32))]).unwrap();
    p
}

#[test]
fn a_checkpoint_may_be_given_by_any_of_its_files_or_its_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = v2(d, 3);
    let index = d.join("model.ckpt-3.index");
    let data = d.join("model.ckpt-3.data-00000-of-00001");
    for given in [&p, &index, &data] {
        assert_eq!(resolve_checkpoint_prefix(given).unwrap(), p, "{}", given.display());
        assert_eq!(CheckpointReader::open(given).unwrap().read("v").unwrap(), Tensor::scalar(3f32));
    }
    // a directory without a state file: refused, naming the prefix to use
    let e = CheckpointReader::open(d).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!(
            "Couldn't find 'checkpoint' file or checkpoints in given directory {}: pass a checkpoint prefix such as {} \
             (its checkpoints: {})",
            d.display(),
            p.display(),
            p.display()
        )
    );
    // with a state file: its newest checkpoint, for the reader and for Saver::restore
    write_checkpoint_state(
        d,
        &CheckpointState { model_checkpoint_path: p.to_string_lossy().into(), ..Default::default() },
    )
    .unwrap();
    assert_eq!(CheckpointReader::open(d).unwrap().prefix(), p.as_path());
    let g = Graph::new();
    let v = g.scope().get_variable("v", &[][..], DType::Float, Initializer::Zeros).unwrap();
    let sess = Session::new(&g).unwrap();
    Saver::new(&g).unwrap().restore(&sess, d).unwrap();
    assert_eq!(sess.variable_value(v.op()).unwrap(), Tensor::scalar(3f32));
    let e = CheckpointReader::open("").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
}

#[test]
fn a_stale_absolute_path_in_the_state_file_falls_back_to_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let p = v2(d, 7);
    // the state file of a directory copied from another machine
    std::fs::write(d.join("checkpoint"), "model_checkpoint_path: \"/elsewhere/run1/model.ckpt-7\"\n").unwrap();
    let found = find_latest_checkpoint(d).unwrap().unwrap();
    assert_eq!(found.prefix, p);
    assert_eq!(
        found.note.unwrap(),
        format!(
            "the checkpoint state file {} names /elsewhere/run1/model.ckpt-7, which does not exist; using {} (the same \
             name in the state file's directory: the checkpoints were probably moved or copied from elsewhere)",
            d.join("checkpoint").display(),
            p.display()
        )
    );
    assert_eq!(latest_checkpoint(d).unwrap(), Some(p.clone()));
    assert_eq!(CheckpointReader::open(d).unwrap().read("v").unwrap(), Tensor::scalar(7f32));
    // nothing of that name here either: an error naming the stale path and the directory
    std::fs::write(d.join("checkpoint"), "model_checkpoint_path: \"/elsewhere/run1/model.ckpt-9\"\n").unwrap();
    let e = latest_checkpoint(d).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!(
            "the checkpoint state file {} names /elsewhere/run1/model.ckpt-9, which does not exist \
             (/elsewhere/run1/model.ckpt-9.index is missing), and {} holds no checkpoint \"model.ckpt-9\" either; the \
             checkpoint was moved or deleted: pass its prefix, or correct model_checkpoint_path in the state file",
            d.join("checkpoint").display(),
            d.display()
        )
    );
}

#[test]
fn save_refuses_an_empty_path_a_directory_and_a_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let g = Graph::new();
    g.scope().get_variable("v", &[][..], DType::Float, Initializer::Zeros).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    let saver = Saver::new(&g).unwrap();
    let e = saver.save(&sess, "").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "cannot save a checkpoint to an empty path; pass a prefix such as dir/model.ckpt (the files PREFIX.index and \
         PREFIX.data-00000-of-00001 are written)"
    );
    assert_eq!(saver.save_with_step(&sess, "", 3).unwrap_err().code, Code::InvalidArgument);
    let e = saver.save(&sess, d).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "cannot save a checkpoint to {}: it is a directory; pass a prefix inside it such as {}",
            d.display(),
            d.join("model.ckpt").display()
        )
    );
    let e = saver.save(&sess, d.join("model.ckpt.index")).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "cannot save a checkpoint to {}: that is the name of one of a checkpoint's files; pass its prefix {}",
            d.join("model.ckpt.index").display(),
            d.join("model.ckpt").display()
        )
    );
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing written");
    assert!(g.operation_by_name("save/Const").is_err(), "no save ops added by a refused save");
}

#[test]
fn a_missing_checkpoint_path_is_named_as_given_with_the_checkpoints_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // a V1 checkpoint has no .index: `X.index` names the file to pass, not `X.index.index`
    let v1 = d.join("model.ckpt-1000");
    std::fs::copy(v1_file(), &v1).unwrap();
    let given = d.join("model.ckpt-1000.index");
    let e = CheckpointReader::open(&given).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!(
            "checkpoint {} not found: {} does not exist; {} is a V1 checkpoint (one file, without .index or .data \
             files): pass {}",
            given.display(),
            given.display(),
            v1.display(),
            v1.display()
        )
    );
    // a data file name whose checkpoint does not exist: the prefix it stands for
    let data = d.join("other.ckpt.data-00000-of-00001");
    let e = CheckpointReader::open(&data).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "checkpoint {} not found: {} does not exist (a V2 checkpoint's files are PREFIX.index and PREFIX.data-*; \
             here PREFIX would be {})",
            data.display(),
            data.display(),
            d.join("other.ckpt").display()
        )
    );
    // a prefix without its global step: the checkpoints whose names start with it
    let p = v2(d, 3);
    let e = CheckpointReader::open(d.join("model.ckpt")).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "checkpoint {} not found: {} does not exist (a V2 checkpoint prefix names the files PREFIX.index and \
             PREFIX.data-*); checkpoints beside it: {}, {}",
            d.join("model.ckpt").display(),
            d.join("model.ckpt.index").display(),
            v1.display(),
            p.display()
        )
    );
}
