//! What the commands write, and where they refuse to: no command writes over one of its
//! inputs or over a file of another kind without `--force` (the files are left byte for
//! byte); `freeze -o` picks binary or text by the name (`.pb`, `.pbtxt`) or `--binary` /
//! `--as-text`; a missing output directory is named; a checkpoint without its `.meta` and
//! files that are not models (JSON, `.npy`, event files) are named for what they are.

mod common;
use common::cli::{fails_with, ok, s, tg};
use common::fixtures;
use std::path::{Path, PathBuf};
use tensorgraph::io::model_file::{detect, ModelFileKind};

/// A copy of the seed004 fixture's checkpoint, meta graph and state file in `dir/cp`.
fn seed004_copy(dir: &Path) -> PathBuf {
    let cp = dir.join("cp");
    std::fs::create_dir(&cp).unwrap();
    for f in ["model.ckpt.index", "model.ckpt.data-00000-of-00001", "model.ckpt.meta", "checkpoint"] {
        std::fs::copy(fixtures().join("seed004").join(f), cp.join(f)).unwrap();
    }
    cp
}

/// `freeze --ckpt CP --outputs add_1 -o OUT [extra...]`.
fn freeze(cp: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> =
        ["freeze", "--ckpt", &s(cp), "--outputs", "add_1", "-o", &s(out)].map(String::from).to_vec();
    a.extend(extra.iter().map(|e| e.to_string()));
    a
}

/// The bytes of every file of `dir`, by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

const FORCE: &str = "Write to another file, or pass --force to replace it";

#[test]
fn freeze_never_writes_over_its_inputs_or_another_kind_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let cp = seed004_copy(tmp.path());
    let before = snapshot(&cp);
    let prefix = s(&cp.join("model.ckpt"));
    let meta = s(&cp.join("model.ckpt.meta"));
    for f in ["model.ckpt.index", "model.ckpt.data-00000-of-00001"] {
        let out = cp.join(f);
        fails_with(
            &freeze(&cp, &out, &[]),
            &format!("InvalidArgument: -o {} is an input of this command (--ckpt {prefix}); writing there would destroy it. {FORCE}", s(&out)),
        );
    }
    fails_with(
        &freeze(&cp, &cp.join("model.ckpt.meta"), &[]),
        &format!("InvalidArgument: -o {meta} is an input of this command (--meta {meta}); writing there would destroy it. {FORCE}"),
    );
    let state = cp.join("checkpoint");
    fails_with(
        &freeze(&cp, &state, &[]),
        &format!("AlreadyExists: -o {} exists and is a checkpoint state file (a `checkpoint` file); this command writes a GraphDef and does not replace a file of another kind. {FORCE}", s(&state)),
    );
    assert_eq!(snapshot(&cp), before, "no file of the checkpoint changed");
    // files of another kind that are not inputs
    let other = tmp.path().join("other.ckpt.index");
    std::fs::copy(cp.join("model.ckpt.index"), &other).unwrap();
    fails_with(
        &freeze(&cp, &other, &[]),
        &format!("AlreadyExists: -o {} exists and is a checkpoint index (a .index file); this command writes a GraphDef and does not replace a file of another kind. {FORCE}", s(&other)),
    );
    let json = tmp.path().join("notes.pb");
    std::fs::write(&json, "{\"a\": 1}").unwrap();
    fails_with(
        &freeze(&cp, &json, &[]),
        &format!("AlreadyExists: -o {} exists and is a JSON file; this command writes a GraphDef and does not replace a file of another kind. {FORCE}", s(&json)),
    );
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "{\"a\": 1}");
    // an existing GraphDef is replaced; --force replaces anything, here the state file
    let out = tmp.path().join("frozen.pb");
    ok(&freeze(&cp, &out, &[]));
    ok(&freeze(&cp, &out, &[]));
    ok(&freeze(&cp, &state, &["--force", "--binary"]));
    assert_eq!(detect(&state).unwrap(), ModelFileKind::CheckpointState, "a file named `checkpoint` is one by name");
    assert_eq!(tensorgraph::io::graph_def::read_graph_def(&state).unwrap().node.len(), 8);
}

#[test]
fn freeze_picks_binary_or_text_by_name_or_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let cp = seed004_copy(tmp.path());
    let json = tmp.path().join("x.json");
    fails_with(
        &freeze(&cp, &json, &[]),
        &format!("InvalidArgument: -o {}: the name does not say binary or text; name it .pb (binary GraphDef) or .pbtxt (text), or pass --binary or --as-text", s(&json)),
    );
    assert!(!json.exists());
    ok(&freeze(&cp, &json, &["--as-text"]));
    assert!(std::fs::read_to_string(&json).unwrap().starts_with("node {\n  name: \"v1\"\n"));
    let bare = tmp.path().join("frozen");
    ok(&freeze(&cp, &bare, &["--binary"]));
    assert_eq!(detect(&bare).unwrap(), ModelFileKind::GraphDef);
    let pbtxt = tmp.path().join("f.pbtxt");
    ok(&freeze(&cp, &pbtxt, &[]));
    assert_eq!(detect(&pbtxt).unwrap(), ModelFileKind::TextGraphDef);
    // --as-text wins over .pb; the two flags exclude each other
    let pb = tmp.path().join("t.pb");
    ok(&freeze(&cp, &pb, &["--as-text"]));
    assert_eq!(detect(&pb).unwrap(), ModelFileKind::TextGraphDef);
    let o = tg(&freeze(&cp, &pb, &["--as-text", "--binary"]));
    assert_eq!(o.code, Some(2));
    assert!(o.stderr.contains("cannot be used with"), "{}", o.stderr);
    // a missing output directory is named
    let nodir = tmp.path().join("nodir");
    fails_with(
        &freeze(&cp, &nodir.join("f.pb"), &[]),
        &format!("NotFound: cannot write {}: the directory {} does not exist", s(&nodir.join("f.pb")), s(&nodir)),
    );
    // without --meta, the checkpoint's .meta must exist
    std::fs::remove_file(cp.join("model.ckpt.meta")).unwrap();
    fails_with(
        &freeze(&cp, &tmp.path().join("g.pb"), &[]),
        &format!(
            "NotFound: no --meta given, and the checkpoint {0} has no meta graph beside it ({0}.meta does not exist); pass --meta with the .meta file it was saved with",
            s(&cp.join("model.ckpt"))
        ),
    );
}

#[test]
fn run_out_never_writes_over_a_feed_or_another_kind_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let mlp = fixtures().join("mlp");
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // the feed file is where --out would write probs:0
    let feed_path = out.join("probs_0.npy");
    std::fs::copy(mlp.join("inputs.npy"), &feed_path).unwrap();
    let feed = format!("x={}", s(&feed_path));
    let run = |extra: &[&str]| {
        let mut a: Vec<String> =
            ["run", &s(&mlp.join("frozen.pb")), "--feed", &feed, "--fetch", "probs:0", "--out", &s(&out)]
                .map(String::from)
                .to_vec();
        a.extend(extra.iter().map(|e| e.to_string()));
        a
    };
    fails_with(
        &run(&[]),
        &format!("InvalidArgument: --out {} is an input of this command (--feed x {}); writing there would destroy it. {FORCE}", s(&feed_path), s(&feed_path)),
    );
    assert_eq!(std::fs::read(&feed_path).unwrap(), std::fs::read(mlp.join("inputs.npy")).unwrap());
    ok(&run(&["--force"]));
    assert_ne!(std::fs::read(&feed_path).unwrap(), std::fs::read(mlp.join("inputs.npy")).unwrap());
    // an output file of another kind; a .npy is replaced
    let elsewhere = tmp.path().join("in.npy");
    std::fs::copy(mlp.join("inputs.npy"), &elsewhere).unwrap();
    let feed = format!("x={}", s(&elsewhere));
    let args = ["run", &s(&mlp.join("frozen.pb")), "--feed", &feed, "--fetch", "probs:0", "--out", &s(&out)];
    ok(&args);
    std::fs::write(&feed_path, "[1]").unwrap();
    fails_with(
        &args,
        &format!("AlreadyExists: --out {} exists and is a JSON file; this command writes a .npy file and does not replace a file of another kind. {FORCE}", s(&feed_path)),
    );
}

/// `run --out` takes a directory: an existing file there is refused before anything runs
/// (it used to fail after the run with `cannot create F: File exists (os error 17)`), and a
/// file whose content tensorgraph does not know is called that, not a damaged GraphDef.
#[test]
fn run_out_is_a_directory_and_unknown_files_are_not_called_damaged_models() {
    let tmp = tempfile::tempdir().unwrap();
    let mlp = fixtures().join("mlp");
    let feed = format!("x={}", s(&mlp.join("inputs.npy")));
    let run = |out: &Path| {
        ["run", &s(&mlp.join("frozen.pb")), "--feed", &feed, "--fetch", "probs:0", "--out", &s(out)]
            .map(String::from)
            .to_vec()
    };
    let file = tmp.path().join("out.npy");
    std::fs::write(&file, "notes").unwrap();
    fails_with(
        &run(&file),
        &format!("InvalidArgument: --out {} is a file; --out takes a directory (created if missing), where each fetch is written as NAME_0.npy", s(&file)),
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "notes");
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("probs_0.npy"), "notes").unwrap();
    fails_with(
        &run(&out),
        &format!("AlreadyExists: --out {} exists and is not a .npy file (its content is of no kind tensorgraph recognises); this command writes a .npy file and does not replace a file of another kind. {FORCE}", s(&out.join("probs_0.npy"))),
    );
    assert_eq!(std::fs::read_to_string(out.join("probs_0.npy")).unwrap(), "notes");
}

#[test]
fn demo_checks_its_output_directory_before_training() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("model.pb"), "{}").unwrap();
    fails_with(
        &["demo", "--out", &s(&out)],
        &format!("AlreadyExists: --out {} exists and is a JSON file; this command writes a GraphDef and does not replace a file of another kind. {FORCE}", s(&out.join("model.pb"))),
    );
    std::fs::remove_file(out.join("model.pb")).unwrap();
    // the CSV it trains on is an input
    let csv = out.join("model.json");
    let mut text = String::from("a,b,label\n");
    for i in 0..20 {
        text.push_str(&format!("{},{},{}\n", i % 2, (i % 3) as f32 * 0.5, i % 2));
    }
    std::fs::write(&csv, &text).unwrap();
    fails_with(
        &["demo", "--out", &s(&out), "--data", &s(&csv)],
        &format!("InvalidArgument: --out {0} is an input of this command (--data {0}); writing there would destroy it. {FORCE}", s(&csv)),
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), text);
    // a second run over its own output replaces it without --force
    ok(&["demo", "--out", &s(&tmp.path().join("d")), "--steps", "5"]);
    ok(&["demo", "--out", &s(&tmp.path().join("d")), "--steps", "5"]);
}

#[test]
fn files_that_are_not_models_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let events = fixtures().join("events/events.out.tfevents.1796006312.vm");
    let json = tmp.path().join("forecast.json");
    std::fs::write(&json, "{\"probabilities\": []}\n").unwrap();
    let npy = fixtures().join("mlp/inputs.npy");
    for (p, what) in [
        (&json, "a JSON file"),
        (&events, "a TensorBoard event file (tf.summary.FileWriter)"),
        (&npy, "a NumPy array file (.npy)"),
    ] {
        let want = format!(
            "InvalidArgument: MODEL {} is {what}, not a model; give the model's .meta, .pb or .pbtxt file",
            s(p)
        );
        fails_with(&["inspect", &s(p)], &want);
        fails_with(&["run", &s(p), "--fetch", "a:0"], &want);
    }
    // a checkpoint given as MODEL without its .meta beside it
    let cp = seed004_copy(tmp.path());
    std::fs::remove_file(cp.join("model.ckpt.meta")).unwrap();
    for (model, what) in [(cp.join("model.ckpt"), "a checkpoint prefix"), (cp.clone(), "a checkpoint directory")] {
        fails_with(
            &["run", &s(&model), "--fetch", "add_1:0"],
            &format!(
                "InvalidArgument: MODEL {} is {what}, and its meta graph {} does not exist; give the model's .meta, .pb or .pbtxt file, and the checkpoint to --ckpt",
                s(&model),
                s(&cp.join("model.ckpt.meta"))
            ),
        );
    }
}
