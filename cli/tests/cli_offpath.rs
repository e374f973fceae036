//! The command line on TensorFlow-written files of tests/data/offpath (scripts/gen_offpath.py):
//! a graph with an op type tensorgraph does not implement (`Bucketize`) runs where the run
//! does not need it, with one warning; GraphDef version semantics (a `shape {}` placeholder
//! of producer 9 and 27); files that are not models named for what they are.

mod common;
use common::cli::{ok, s, tg};
use common::repo_root;
use std::path::{Path, PathBuf};
use tensorgraph::Tensor;

fn data(name: &str) -> PathBuf {
    repo_root().join("tests/data/offpath").join(name)
}

fn npy(dir: &Path, name: &str, t: Tensor) -> String {
    let p = dir.join(name);
    t.write_npy(&p).unwrap();
    s(&p)
}

#[test]
fn run_needs_unknown_ops_only_on_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let model = s(&data("unknown_ops.pbtxt"));
    let x = format!("x={}", npy(tmp.path(), "x.npy", Tensor::vector(vec![-1.0f32, 0.5, 3.0])));
    let p0 = format!("p={}", npy(tmp.path(), "p0.npy", Tensor::scalar(false)));
    let p1 = format!("p={}", npy(tmp.path(), "p1.npy", Tensor::scalar(true)));
    let warning = format!(
        "warning: {model}: 2 node(s) have op types tensorgraph does not implement: Bucketize (2); they were kept, and only a run that needs one of them fails\n"
    );
    // the untaken branch holds Bucketize: TensorFlow's values
    let o = ok(&["run", &model, "--feed", &x, "--feed", &p0, "--fetch", "y:0"]);
    assert_eq!(o.stdout, "y:0  float32  [3]\n  [-2.0, 1.0, 6.0]\n");
    assert_eq!(o.stderr, warning);
    // through it: the exact error, after the one warning
    let o = tg(&["run", &model, "--feed", &x, "--fetch", "z:0"]);
    assert_eq!(o.code, Some(1));
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert_eq!(
        o.stderr,
        format!("{warning}error: running {model}: Unimplemented: the run needs 1 node(s) whose op types tensorgraph does not implement: 'direct' (Bucketize); feed or fetch around them\n")
    );
    let o = tg(&["run", &model, "--feed", &x, "--feed", &p1, "--fetch", "y:0"]);
    assert_eq!(o.code, Some(1));
    assert_eq!(
        o.stderr,
        format!("{warning}error: running {model}: Unimplemented: node 'cond/bucketize' (Bucketize) was reached on the run's live path, but tensorgraph does not implement op type Bucketize; the run's plan holds 1 such node(s): 'cond/bucketize' (Bucketize)\n")
    );
    // inspect lists them
    let o = ok(&["inspect", &model]);
    assert!(o.stdout.contains("unsupported op types: Bucketize (2)\n"), "{}", o.stdout);
}
