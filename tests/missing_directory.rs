//! Every writer (they all go through `format::atomic_file`) names a missing output
//! directory, or a file standing where a directory should be, instead of failing to create
//! a temporary file; the `Saver` keeps TensorFlow's own message.

mod common;
use common::seed004_graph;
use tensorgraph::format::checkpoint::{write_checkpoint, write_checkpoint_state, CheckpointState};
use tensorgraph::io::graph_def::{write_graph_def, write_graph_def_text};
use tensorgraph::io::meta_graph::{export_meta_graph, write_meta_graph};
use tensorgraph::train::Saver;
use tensorgraph::{Code, Session, Tensor};

#[test]
fn writers_name_the_missing_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (g, _, _, _) = seed004_graph();
    let gd = g.to_graph_def();
    let missing = tmp.path().join("no/such");
    let file = tmp.path().join("a_file");
    std::fs::write(&file, "x").unwrap();
    let t = [("t".to_string(), Tensor::scalar(1f32))];
    let meta = export_meta_graph(&g, None).unwrap();
    let state = CheckpointState { model_checkpoint_path: "m".into(), ..Default::default() };
    for (dir, code, why) in [
        (missing.clone(), Code::NotFound, format!("the directory {} does not exist", missing.display())),
        (file.join("sub"), Code::InvalidArgument, format!("{} is not a directory", file.display())),
    ] {
        let want = |target: &str| format!("{code}: cannot write {}: {why}", dir.join(target).display());
        assert_eq!(write_graph_def(&gd, dir.join("f.pb")).unwrap_err().to_string(), want("f.pb"));
        assert_eq!(write_graph_def_text(&gd, dir.join("f.pbtxt")).unwrap_err().to_string(), want("f.pbtxt"));
        assert_eq!(write_meta_graph(&meta, dir.join("m.meta")).unwrap_err().to_string(), want("m.meta"));
        assert_eq!(write_checkpoint_state(&dir, &state).unwrap_err().to_string(), want("checkpoint"));
    }
    // the saver says it as TensorFlow's Saver.save does
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    let e = Saver::new(&g).unwrap().save(&sess, missing.join("model.ckpt")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("NotFound: Parent directory of {} doesn't exist, can't save.", missing.join("model.ckpt").display())
    );
    // the bundle writer creates its directory, as TensorFlow's does, unless a file is in the way
    let e = write_checkpoint(file.join("sub/c"), &t).unwrap_err();
    assert!(
        e.message.starts_with(&format!("cannot create checkpoint directory {}", file.join("sub").display())),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    write_checkpoint(missing.join("c"), &t).unwrap();
    assert!(missing.join("c.index").is_file());
}

/// A directory where a file is expected (`np.load("dir")`, `np.save` over a directory) is
/// `FailedPrecondition` (TensorFlow's code for `EISDIR`) saying so, not the bare
/// `Unknown: ... Is a directory (os error 21)`; the directory is left as it was.
#[test]
fn a_directory_where_a_file_is_expected_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x.npy");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("keep"), "k").unwrap();
    let d = dir.display();
    assert_eq!(
        Tensor::read_npy(&dir).unwrap_err().to_string(),
        format!("FailedPrecondition: cannot read {d}: {d} is a directory; give the path of a file")
    );
    let e = Tensor::scalar(1f32).write_npy(&dir).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("FailedPrecondition: cannot rename into place {d}: {d} is a directory; give the path of a file")
    );
    assert_eq!(std::fs::read_to_string(dir.join("keep")).unwrap(), "k");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1, "no temporary file is left behind");
}
