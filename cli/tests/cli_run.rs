//! `tensorgraph run`, `freeze` and `inspect MODEL` end to end on TensorFlow 2.21's frozen
//! graphs and meta graphs; bad input exits 1 with a message on stderr and never panics.

mod common;
use common::cli::{fails, freeze_args, ok, s, tg};
use common::{assert_close, fixtures};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;

fn npy_f32(path: &Path) -> (Vec<u64>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    (shape, npy.into_vec::<f32>().unwrap())
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

#[test]
fn run_seed004_frozen() {
    let pb = fixtures().join("seed004/frozen.pb");
    let o = ok(&[OsStr::new("run"), pb.as_os_str(), OsStr::new("--fetch"), OsStr::new("add_1:0")]);
    assert!(o.stdout.starts_with("add_1:0  float32  [1]\n"), "{}", o.stdout);
    assert!(o.stdout.contains("[6.0]"), "{}", o.stdout);
    // --json, two fetches, a bare op name
    let o = ok(&["run", &s(&pb), "--fetch", "add_1:0", "--fetch", "add", "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v[0]["name"], "add_1:0");
    assert_eq!(v[0]["dtype"], "float32");
    assert_eq!(v[0]["shape"], serde_json::json!([1]));
    assert_eq!(v[0]["values"], serde_json::json!([6.0]));
    assert_eq!(v[1]["name"], "add:0");
    assert_eq!(v[1]["values"], serde_json::json!([3.0]));
}

#[test]
fn run_mlp_frozen_with_npy_feed_and_out() {
    let dir = fixtures().join("mlp");
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let feed = format!("x={}", s(&dir.join("inputs.npy")));
    let o = ok(&[
        "run",
        &s(&dir.join("frozen.pb")),
        "--feed",
        &feed,
        "--fetch",
        "probs:0",
        "--fetch",
        "output/logits:0",
        "--out",
        &s(&out_dir),
    ]);
    assert!(o.stdout.contains("probs:0  float32  [10, 3]"), "{}", o.stdout);
    let (want_shape, want) = npy_f32(&dir.join("expected_probs.npy"));
    let (shape, got) = npy_f32(&out_dir.join("probs_0.npy"));
    assert_eq!(shape, want_shape);
    assert_close("probs", &f64s(&got), &f64s(&want));
    let (shape, _) = npy_f32(&out_dir.join("output_logits_0.npy"));
    assert_eq!(shape, [10, 3]);
    // --json carries the same values
    let o = ok(&["run", &s(&dir.join("frozen.pb")), "--feed", &feed, "--fetch", "probs:0", "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_close("probs (json)", &common::flat_f64(&v[0]["values"]), &f64s(&want));
}

#[test]
fn run_meta_with_checkpoint() {
    let dir = fixtures().join("seed004");
    let o = ok(&[
        "run",
        &s(&dir.join("model.ckpt.meta")),
        "--ckpt",
        &s(&dir.join("model.ckpt")),
        "--fetch",
        "add_1:0",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v[0]["values"], serde_json::json!([6.0]));
    // the directory works as --ckpt too (its `checkpoint` state file)
    let o = ok(&["run", &s(&dir.join("model.ckpt.meta")), "--ckpt", &s(&dir), "--fetch", "add:0"]);
    assert!(o.stdout.contains("[3.0]"), "{}", o.stdout);
    // without --ckpt the variables are uninitialized: the error says what to do
    fails(&["run", &s(&dir.join("model.ckpt.meta")), "--fetch", "add_1:0"], "--ckpt");
}

#[test]
fn freeze_then_run() {
    let dir = fixtures().join("seed004");
    let tmp = tempfile::tempdir().unwrap();
    for name in ["frozen.pb", "frozen.pbtxt"] {
        let out = tmp.path().join(name);
        ok(&freeze_args(&dir, "add_1", &out));
        if name.ends_with(".pbtxt") {
            let text = std::fs::read_to_string(&out).unwrap();
            assert!(text.starts_with("node {\n  name: \"v1\"\n  op: \"Const\""), "{text}");
        }
        let o = ok(&["run", &s(&out), "--fetch", "add_1:0", "--json"]);
        let v: Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(v[0]["values"], serde_json::json!([6.0]), "{name}");
        let o = ok(&["inspect", &s(&out)]);
        assert!(o.stdout.contains("Const"), "{}", o.stdout);
        assert!(!o.stdout.contains("VariableV2"), "{}", o.stdout);
    }
    // mlp: frozen here, then run to TensorFlow's probabilities
    let mlp = fixtures().join("mlp");
    let out = tmp.path().join("mlp.pb");
    ok(&freeze_args(&mlp, "probs", &out));
    let feed = format!("x={}", s(&mlp.join("inputs.npy")));
    let o = ok(&["run", &s(&out), "--feed", &feed, "--fetch", "probs:0", "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let (_, want) = npy_f32(&mlp.join("expected_probs.npy"));
    assert_close("probs", &common::flat_f64(&v[0]["values"]), &f64s(&want));
    // freeze errors: a missing output node
    let e = fails(&freeze_args(&mlp, "probz", &tmp.path().join("x.pb")), "probz");
    assert!(e.contains("not in the graph"), "{e}");
}

#[test]
fn inspect_models() {
    let mlp = fixtures().join("mlp");
    let o = ok(&["inspect", &s(&mlp.join("frozen.pb"))]);
    assert!(o.stdout.contains("23 nodes"), "{}", o.stdout);
    for line in ["MatMul       3", "Const        6", "Identity     7", "Softmax      1"] {
        assert!(o.stdout.contains(line), "want {line:?} in {}", o.stdout);
    }
    assert!(o.stdout.contains("  x  float32  [?,4]"), "{}", o.stdout);
    assert!(o.stdout.contains("outputs (nodes nothing consumes) (1):\n  probs  Softmax"), "{}", o.stdout);
    let o = ok(&["inspect", &s(&mlp.join("frozen.pb")), "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["op_types"]["BiasAdd"], 3);
    assert_eq!(
        v["placeholders"][0],
        serde_json::json!({"name": "x", "op": "Placeholder", "dtype": "float32", "shape": [null, 4]})
    );
    assert_eq!(v["outputs"], serde_json::json!([{"name": "probs", "op": "Softmax"}]));
    // a meta graph
    let o = ok(&["inspect", &s(&mlp.join("model.ckpt.meta")), "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["format"], "MetaGraphDef");
    assert_eq!(v["op_types"]["VariableV2"], 20);
    assert_eq!(v["placeholders"][1]["name"], "y");
    assert_eq!(v["placeholders"][1]["dtype"], "int64");
    // checkpoints are still listed as before
    let o = ok(&["inspect", &s(&mlp.join("model.ckpt"))]);
    assert!(o.stdout.contains("hidden1/weights"), "{}", o.stdout);
}

#[test]
fn errors_exit_1_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let pb = s(&fixtures().join("mlp/frozen.pb"));
    // missing model
    fails(&["run", "/nonexistent/model.pb", "--fetch", "a:0"], "/nonexistent/model.pb");
    fails(&["inspect", &s(&tmp.path().join("missing.pb"))], "missing.pb");
    // bad feed file: missing, and not a .npy
    fails(&["run", &pb, "--feed", "x=/nonexistent/in.npy", "--fetch", "probs:0"], "/nonexistent/in.npy");
    let junk = tmp.path().join("junk.npy");
    std::fs::write(&junk, b"not an npy file").unwrap();
    fails(&["run", &pb, "--feed", &format!("x={}", s(&junk)), "--fetch", "probs:0"], "junk.npy");
    fails(&["run", &pb, "--feed", "x", "--fetch", "probs:0"], "NAME=FILE.npy");
    // issue 12's example: a header length of 4 GiB is an error, not an aborted allocation
    let huge = tmp.path().join("huge_header.npy");
    std::fs::write(&huge, [&b"\x93NUMPY\x02\x00"[..], &u32::MAX.to_le_bytes(), b"{'descr':"].concat()).unwrap();
    fails(
        &["run", &pb, "--feed", &format!("x={}", s(&huge)), "--fetch", "probs:0"],
        "the .npy header claims 4294967295 bytes but only 9 follow",
    );
    // a feed of the wrong shape names the tensor
    let inputs = s(&fixtures().join("mlp/expected_probs.npy"));
    fails(&["run", &pb, "--feed", &format!("x={inputs}"), "--fetch", "probs:0"], "x:0");
    // one tensor fed twice (as `x` and `x:0`)
    let x = s(&fixtures().join("mlp/inputs.npy"));
    fails(
        &["run", &pb, "--feed", &format!("x={x}"), "--feed", &format!("x:0={x}"), "--fetch", "probs:0"],
        "Tensor x:0 is fed more than once",
    );
    // unknown tensor names, with TensorFlow's status code first
    fails(&["run", &pb, "--fetch", "nope:0"], "error: NotFound: --fetch nope:0: The name 'nope:0' refers to a Tensor");
    fails(&["run", &pb, "--feed", &format!("nope={inputs}"), "--fetch", "probs:0"], "error: NotFound: --feed nope:");
    fails(
        &["run", &pb, "--feed", "x", "--fetch", "probs:0"],
        "error: InvalidArgument: --feed x: expected NAME=FILE.npy",
    );
    fails(&["run", &pb, "--fetch", "probs:7"], "probs");
    // an unfed placeholder
    fails(&["run", &pb, "--fetch", "probs:0"], "x");
    // --ckpt with a GraphDef
    fails(&["run", &pb, "--ckpt", "/tmp/x", "--fetch", "probs:0"], ".meta");
    // a damaged model
    let bad = tmp.path().join("bad.pb");
    std::fs::write(&bad, [0xffu8, 0xff, 0xff, 0x01]).unwrap();
    fails(&["run", &s(&bad), "--fetch", "a:0"], "bad.pb");
    fails(&["inspect", &s(&bad)], "bad.pb");
    // freeze with a missing checkpoint
    let meta = s(&fixtures().join("seed004/model.ckpt.meta"));
    fails(
        &["freeze", "--meta", &meta, "--ckpt", "/nonexistent/model.ckpt", "--outputs", "add_1", "-o", "/tmp/never.pb"],
        "/nonexistent/model.ckpt",
    );
}

/// A `.meta` run without `--ckpt` says where the variables come from on the command line
/// (`--ckpt`, or the checkpoint prefix as MODEL), not the library's "run the initializer"
/// advice, which a command-line user cannot follow.
#[test]
fn a_meta_without_ckpt_says_pass_ckpt() {
    let meta = fixtures().join("mlp/model.ckpt.meta");
    let x = format!("x={}", s(&fixtures().join("mlp/inputs.npy")));
    common::cli::fails_with(
        &["run", &s(&meta), "--feed", &x, "--fetch", "probs:0"],
        &format!(
            "running {}: FailedPrecondition: input 0 of 'hidden1/weights/read': Attempting to use uninitialized value hidden1/weights. Pass --ckpt PREFIX to restore the variables from a checkpoint (or give the checkpoint prefix as MODEL: its .meta beside it is used)",
            s(&meta)
        ),
    );
}

/// A truncated `.meta` or `.pb` is called damaged, without the library's advice on which
/// Rust call reads the kind (a command-line user calls none); nothing is written.
#[test]
fn damaged_models_are_named_without_library_calls() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, src, kind, detail) in [
        (
            "trunc.meta",
            "mlp/model.ckpt.meta",
            "a MetaGraphDef",
            "cannot parse a MetaGraphDef: failed to decode Protobuf message: buffer underflow",
        ),
        (
            "trunc.pb",
            "mlp/frozen.pb",
            "a binary GraphDef",
            "cannot parse a GraphDef: failed to decode Protobuf message: GraphDef.node: buffer underflow",
        ),
    ] {
        let bytes = std::fs::read(fixtures().join(src)).unwrap();
        let path = tmp.path().join(name);
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let want = format!(
            "DataLoss: MODEL {} is damaged (truncated?) or not a model file: its fields are laid out as {kind}'s, but it does not decode as one ({detail})",
            s(&path)
        );
        common::cli::fails_with(&["run", &s(&path), "--fetch", "probs:0"], &want);
        common::cli::fails_with(&["inspect", &s(&path)], &want);
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 2);
}

/// `--threads N` sets the session's intra-op threads: the same values on 1 and 2 threads
/// as with the default, TensorFlow's numbers.
#[test]
fn threads_flag_runs_with_that_many_threads() {
    let dir = fixtures().join("mlp");
    let pb = s(&dir.join("frozen.pb"));
    let feed = format!("x={}", s(&dir.join("inputs.npy")));
    let args = ["run", &pb, "--feed", &feed, "--fetch", "probs:0", "--json"];
    let default = ok(&args).stdout;
    let (_, want) = npy_f32(&dir.join("expected_probs.npy"));
    for n in ["1", "2"] {
        let o = ok(&[&args[..], &["--threads", n]].concat());
        assert_eq!(o.stdout, default, "--threads {n}");
        let v: Value = serde_json::from_str(&o.stdout).unwrap();
        let rows = v[0]["values"].as_array().unwrap();
        let got: Vec<f64> =
            rows.iter().flat_map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap())).collect();
        assert_close("probs:0", &got, &f64s(&want));
    }
    for bad in ["many", "-1", "+2", "2.5", "99999999999999999999"] {
        let o = tg(&[&args[..], &["--threads", bad]].concat());
        assert_eq!(o.code, Some(2), "{}", o.stderr);
        let want = format!(
            "invalid value '{bad}' for '--threads <N>': expected a thread count: 0 (one per core) or 1 to 1024"
        );
        assert!(o.stderr.contains(&want), "{}", o.stderr);
    }
}
