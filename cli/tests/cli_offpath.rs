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

#[test]
fn an_empty_placeholder_shape_follows_the_producer() {
    let tmp = tempfile::tempdir().unwrap();
    let a = format!("a={}", npy(tmp.path(), "a.npy", Tensor::vector(vec![1.0f32, 2.0, 3.0])));
    let b = format!("b={}", npy(tmp.path(), "b.npy", Tensor::scalar(2.0f32)));
    // producer 9: TensorFlow 2.21 gives [2, 4, 6]
    let v9 = s(&data("placeholder_v9.pbtxt"));
    let o = ok(&["run", &v9, "--feed", &a, "--feed", &b, "--fetch", "c:0"]);
    assert_eq!(o.stdout, "c:0  float32  [3]\n  [2.0, 4.0, 6.0]\n");
    let o = ok(&["inspect", &v9]);
    assert!(
        o.stdout.contains("  a  float32  <unknown>  (shape {} in a GraphDef of producer 9 <= 21: any shape)\n"),
        "{}",
        o.stdout
    );
    // producer 27: a scalar (TensorFlow: Cannot feed value of shape (3,) for Tensor a:0, which has shape ())
    let v27 = s(&data("placeholder_v27.pbtxt"));
    let o = tg(&["run", &v27, "--feed", &a, "--feed", &b, "--fetch", "c:0"]);
    assert_eq!(o.code, Some(1));
    assert_eq!(
        o.stderr,
        format!("error: running {v27}: InvalidArgument: Cannot feed value of shape [3] for Tensor a:0, which has shape []\n")
    );
    let o = ok(&["inspect", &v27]);
    assert!(o.stdout.contains("  a  float32  []\n"), "{}", o.stdout);
}

const V1: &str = "a V1 checkpoint (the single-file tensor-slice format of tf.compat.v1.train.Saver(write_version=V1))";
use tensorgraph::io::model_file::SAVED_MODEL_HINT;

/// Runs a command that must fail with exactly `error: {want}` (exit 1, nothing on stdout).
fn fails_exactly<S: AsRef<std::ffi::OsStr>>(args: &[S], want: &str) {
    let o = tg(args);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert_eq!(o.stderr, format!("error: {want}\n"));
}

/// `tensorgraph run PREFIX` of a V1 checkpoint (`model.ckpt-1000` with `model.ckpt-1000.meta`
/// beside it, as `Saver(write_version=V1).save` writes) runs its meta graph restored from
/// it, as for a V2 prefix.
#[test]
fn run_takes_a_v1_checkpoint_with_its_meta_graph_beside_it() {
    use tensorgraph::train::Saver;
    use tensorgraph::{ops, DType, Graph, Session};
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("model.ckpt-1000");
    std::fs::copy(repo_root().join("tests/data/legacy/v1_slices.ckpt"), &v1).unwrap();
    // the graph it was saved from: `a` [2, 3] (the file holds [[1, 2, 3], [4, 5, 6]]) and a*2
    let g = Graph::new();
    let root = g.scope();
    let a = root.get_variable("a", [2, 3], DType::Float, tensorgraph::init::zeros()).unwrap();
    ops::mul(&root.named("twice"), &a, &ops::constant(&root, Tensor::scalar(2f32)).unwrap()).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&root.global_variables_initializer().unwrap()]).unwrap();
    let saved = Saver::new(&g).unwrap().save(&sess, tmp.path().join("v2")).unwrap();
    std::fs::rename(tensorgraph::format::checkpoint::meta_graph_path(&saved), tmp.path().join("model.ckpt-1000.meta"))
        .unwrap();
    let o = tg(&["run", &s(&v1), "--fetch", "twice:0"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stdout, "twice:0  float32  [2, 3]\n  [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]\n");
}

#[test]
fn files_that_are_not_models_are_named_for_what_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    // a V1 checkpoint: inspect and diff read it; as the model of run, it is named
    let v1 = s(&repo_root().join("tests/data/legacy/v1_slices.ckpt"));
    let o = tg(&["inspect", &v1]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stdout, "a  float32    [2, 3]\ni  int64      [2]\np  float32    [4, 2]\ns  string     [2]\n");
    fails_exactly(
        &["run", &v1, "--fetch", "a:0"],
        &format!(
            "InvalidArgument: MODEL {v1} is {V1}, and its meta graph {v1}.meta does not exist; give the model's .meta, .pb or .pbtxt file, and the checkpoint to --ckpt"
        ),
    );
    let o = tg(&["diff", &v1, &v1]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.ends_with("0 of 4 common tensor(s) differ; identical\n"), "{}", o.stdout);
    // a damaged one is called a damaged V1 checkpoint by diff too (not "a model file")
    let mut bytes = std::fs::read(&v1).unwrap();
    bytes[40] ^= 1;
    let bad = tmp.path().join("model.ckpt-7");
    std::fs::write(&bad, bytes).unwrap();
    let bad = s(&bad);
    fails_exactly(
        &["diff", &bad, &v1],
        &format!("A: DataLoss: {bad} is a damaged {}: block checksum mismatch at offset 0", &V1["a ".len()..]),
    );
    let meta = s(&common::fixtures().join("seed004/model.ckpt.meta"));
    let o = tg(&["run", &meta, "--ckpt", &v1, "--fetch", "add_1:0"]);
    assert_eq!(o.code, Some(1));
    assert!(o.stderr.contains("variable(s) not found in checkpoint: v1, v2, v3"), "{}", o.stderr);
    // a SavedModel: its directory and its saved_model.pb go to the SavedModel commands
    // (inspect lists its signatures; run wants them by key); that file renamed is named with
    // the hint
    let dir = data("saved_model");
    for path in [dir.join("saved_model.pb"), dir.clone()] {
        let p = s(&path);
        let want = format!("{p} is a SavedModel: give its signature's inputs and outputs by key (--input KEY=FILE.npy, --output KEY) instead of --feed/--fetch, and no --ckpt (its variables/ are restored); tensorgraph inspect {p} lists them");
        fails_exactly(&["run", &p, "--fetch", "y:0"], &want);
        let o = tg(&["inspect", &p]);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert!(
            o.stdout.starts_with(&format!("SavedModel {p}\nMetaGraphDef with tag-set: {{\"serve\"}}\n")),
            "{}",
            o.stdout
        );
    }
    let renamed = tmp.path().join("model.pb");
    std::fs::copy(dir.join("saved_model.pb"), &renamed).unwrap();
    let p = s(&renamed);
    let want = format!("InvalidArgument: MODEL {p} is a SavedModel, not a model file; {SAVED_MODEL_HINT}");
    fails_exactly(&["run", &p, "--fetch", "y:0"], &want);
    fails_exactly(&["inspect", &p], &want);
    // an event file
    let ev = s(&data("events.out.tfevents.offpath"));
    fails_exactly(
        &["run", &ev, "--fetch", "a:0"],
        &format!("InvalidArgument: MODEL {ev} is a TensorBoard event file (tf.summary.FileWriter), not a model; give the model's .meta, .pb or .pbtxt file"),
    );
}

/// Issue 14 item 5 through the commands the test above leaves out: `events`, `freeze`
/// (`--meta` and `--ckpt`) and `diff` given a V1 checkpoint, a SavedModel's `saved_model.pb`
/// under another name and a TensorBoard event file each name it for what it is (before,
/// `events` called the first two damaged event files, `freeze --ckpt` looked for their
/// `.index`, and `diff` called the last two model files).
#[test]
fn every_command_names_v1_checkpoints_saved_models_and_event_files() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = common::fixtures().join("seed004");
    let (meta, ckpt) = (s(&seed.join("model.ckpt.meta")), s(&seed.join("model.ckpt")));
    let out = s(&tmp.path().join("frozen.pb"));
    let freeze_meta =
        |m: &str| ["freeze", "--meta", m, "--ckpt", &ckpt, "--outputs", "add_1", "-o", &out].map(String::from).to_vec();
    // a V1 checkpoint
    let v1 = s(&repo_root().join("tests/data/legacy/v1_slices.ckpt"));
    fails_exactly(
        &["events", &v1],
        &format!(
            "InvalidArgument: {v1} is {V1}, not a TensorBoard event file; `tensorgraph inspect {v1}` lists a checkpoint's tensors"
        ),
    );
    let o = tg(&freeze_meta(&v1));
    assert_eq!(o.code, Some(1));
    assert!(
        o.stderr.starts_with(&format!("error: InvalidArgument: --meta {v1} is {V1}, not a model; ")),
        "{}",
        o.stderr
    );
    // as --ckpt it is read (and lacks the graph's variables)
    let o = tg(&["freeze", "--meta", &meta, "--ckpt", &v1, "--outputs", "add_1", "-o", &out]);
    assert_eq!(o.code, Some(1));
    assert!(o.stderr.contains("3 variable(s) not found in checkpoint: v1, v2, v3"), "{}", o.stderr);
    // a SavedModel's saved_model.pb, renamed
    let sm = tmp.path().join("model.pb");
    std::fs::copy(data("saved_model/saved_model.pb"), &sm).unwrap();
    let sm = s(&sm);
    fails_exactly(
        &["events", &sm],
        &format!("InvalidArgument: {sm} is a SavedModel, not a TensorBoard event file; {SAVED_MODEL_HINT}"),
    );
    fails_exactly(
        &freeze_meta(&sm),
        &format!("InvalidArgument: --meta {sm} is a SavedModel, not a model file; {SAVED_MODEL_HINT}"),
    );
    fails_exactly(
        &["freeze", "--meta", &meta, "--ckpt", &sm, "--outputs", "add_1", "-o", &out],
        &format!("InvalidArgument: {sm} is a SavedModel, not a checkpoint; {SAVED_MODEL_HINT}"),
    );
    fails_exactly(
        &["diff", &sm, &ckpt],
        &format!("A: {sm} is a SavedModel; diff compares checkpoints (give their prefixes or directories). {SAVED_MODEL_HINT}."),
    );
    // an event file
    let ev = s(&data("events.out.tfevents.offpath"));
    let event_file = "a TensorBoard event file (tf.summary.FileWriter)";
    fails_exactly(
        &["inspect", &ev],
        &format!(
            "InvalidArgument: MODEL {ev} is {event_file}, not a model; give the model's .meta, .pb or .pbtxt file"
        ),
    );
    fails_exactly(
        &freeze_meta(&ev),
        &format!(
            "InvalidArgument: --meta {ev} is {event_file}, not a model; give the model's .meta, .pb or .pbtxt file"
        ),
    );
    fails_exactly(
        &["freeze", "--meta", &meta, "--ckpt", &ev, "--outputs", "add_1", "-o", &out],
        &format!("InvalidArgument: {ev} is {event_file}, not a checkpoint; `tensorgraph events {ev}` lists its events"),
    );
    fails_exactly(
        &["diff", &ckpt, &ev],
        &format!("B: {ev} is {event_file}; diff compares checkpoints (give their prefixes or directories). `tensorgraph events {ev}` lists its events."),
    );
    assert!(!tmp.path().join("frozen.pb").exists());
}

/// `tensorgraph freeze` of a producer-26 meta graph and checkpoint that TensorFlow 2.21
/// wrote (`tests/data/offpath/freeze_v26_ckpt`, scripts/gen_freeze_v26_cli.py) keeps
/// `producer: 26` and writes what `convert_variables_to_constants` wrote: the same
/// GraphDef, byte for byte in binary; the frozen graph gives TensorFlow's `out`.
#[test]
fn freeze_of_a_producer_26_meta_graph_keeps_tensorflows_versions() {
    use tensorgraph::format::proto::GraphDef;
    use tensorgraph::io::graph_def::read_graph_def_any;
    let tmp = tempfile::tempdir().unwrap();
    let dir = data("freeze_v26_ckpt");
    let tf: GraphDef = read_graph_def_any(dir.join("frozen.pbtxt")).unwrap();
    assert_eq!(tf.versions.as_ref().map(|v| v.producer), Some(26));
    for name in ["frozen.pbtxt", "frozen.pb"] {
        let out = tmp.path().join(name);
        ok(&common::cli::freeze_args(&dir, "out", &out));
        let ours = read_graph_def_any(&out).unwrap();
        assert_eq!(ours.versions.as_ref().map(|v| v.producer), Some(26), "{name}");
        assert_eq!(ours, tf, "{name}");
        if name.ends_with(".pb") {
            assert_eq!(std::fs::read(&out).unwrap(), tf.to_bytes(), "{name}");
        }
    }
    // TensorFlow: out = [[-2.5]] for x = [[1, 2]] (w = [[1.5], [-2]])
    let x = format!("x={}", npy(tmp.path(), "x.npy", Tensor::new(&[1, 2], vec![1.0f32, 2.0]).unwrap()));
    let o = ok(&["run", &s(&tmp.path().join("frozen.pb")), "--feed", &x, "--fetch", "out:0"]);
    assert_eq!(o.stdout, "out:0  float32  [1, 1]\n  [[-2.5]]\n");
    // the meta graph lists w in no collection (its SaverDef restores it): --trainable-only and
    // --map, which choose among listed variables, say so instead of restoring nothing
    for flag in ["--trainable-only", "--map=w=w"] {
        let mut args = common::cli::freeze_args(&dir, "out", &tmp.path().join("flag.pb"));
        args.extend(
            flag.splitn(2, '=').map(String::from).take(1).chain(flag.split_once('=').map(|(_, v)| v.to_string())),
        );
        let name = flag.split('=').next().unwrap();
        fails_exactly(
            &args,
            &format!("{name}: the meta graph lists its variables in no collection, so they are restored by running its saver's restore op save/restore_all (as TensorFlow's import_meta_graph does), which reads the checkpoint names w; {name} needs the variables listed (tf.compat.v1.global_variables), so restore without it"),
        );
    }
    assert!(!tmp.path().join("flag.pb").exists());
}
