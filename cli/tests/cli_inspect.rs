//! `tensorgraph inspect` and `tensorgraph diff` end to end: TensorFlow-written fixtures (by
//! directory, prefix and file name; text, --json, --values), a TF2 object-based checkpoint,
//! diffs, and error cases (missing, corrupted, truncated files) that must exit non-zero with
//! a message on stderr and never panic.

mod common;
use common::fixtures;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use tensorgraph::format::checkpoint::write_checkpoint;
use tensorgraph::Tensor;

fn tf2_fixture() -> PathBuf {
    common::repo_root().join("tests/data/tf2_object_ckpt")
}

struct Out {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn tg(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_tensorgraph")).args(args).output().unwrap();
    Out {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs a command that must succeed; returns its stdout.
fn ok(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Out {
    let o = tg(args);
    assert!(o.ok, "exit {:?}\nstdout: {}\nstderr: {}", o.code, o.stdout, o.stderr);
    o
}

/// Runs a command that must fail cleanly (exit 1, `error: ...` on stderr, no panic).
fn fails(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let o = tg(args);
    assert_eq!(o.code, Some(1), "want exit 1\nstdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stderr.starts_with("error: "), "stderr: {}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "stderr: {}", o.stderr);
    assert!(o.stdout.is_empty(), "stdout on error: {}", o.stdout);
    o.stderr
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Copies checkpoint `prefix` (index and data) to `dir/name`.
fn copy_ckpt(prefix: &Path, dir: &Path, name: &str) -> PathBuf {
    for suffix in [".index", ".data-00000-of-00001"] {
        let mut from = prefix.as_os_str().to_os_string();
        from.push(suffix);
        std::fs::copy(&from, dir.join(format!("{name}{suffix}"))).unwrap();
    }
    dir.join(name)
}

const SEED004_LISTING: &str = "v1  float32    [1]\nv2  float32    [1]\nv3  float32    [1]\n";

#[test]
fn inspect_seed004_by_directory_prefix_and_index_file() {
    let dir = fixtures().join("seed004");
    let by_dir = ok(&[&"inspect", &dir]);
    assert_eq!(by_dir.stdout, SEED004_LISTING);
    assert!(by_dir.stderr.contains("checkpoint: ") && by_dir.stderr.contains("model.ckpt"), "{}", by_dir.stderr);
    let by_prefix = ok(&[&"inspect", &dir.join("model.ckpt")]);
    assert_eq!(by_prefix.stdout, SEED004_LISTING);
    assert_eq!(by_prefix.stderr, "");
    assert_eq!(ok(&[&"inspect", &dir.join("model.ckpt.index")]).stdout, SEED004_LISTING);
    assert_eq!(ok(&[&"inspect", &dir.join("model.ckpt.data-00000-of-00001")]).stdout, SEED004_LISTING);
}

#[test]
fn inspect_values_and_json() {
    let dir = fixtures().join("seed004");
    let text = ok(&[&"inspect", &dir, &"--values"]).stdout;
    assert_eq!(text, "v1  float32    [1]\n    [1.0]\nv2  float32    [1]\n    [2.0]\nv3  float32    [1]\n    [3.0]\n");

    let listed = json(&ok(&[&"inspect", &dir, &"--json"]).stdout);
    assert_eq!(
        listed,
        serde_json::json!([
            {"name": "v1", "dtype": "float32", "shape": [1]},
            {"name": "v2", "dtype": "float32", "shape": [1]},
            {"name": "v3", "dtype": "float32", "shape": [1]},
        ])
    );
    let with_values = json(&ok(&[&"inspect", &dir.join("model.ckpt"), &"--json", &"--values"]).stdout);
    let vals: Vec<&Value> = with_values.as_array().unwrap().iter().map(|e| &e["values"]).collect();
    assert_eq!(vals, [&serde_json::json!([1.0]), &serde_json::json!([2.0]), &serde_json::json!([3.0])]);

    // a larger checkpoint: names sorted, large tensors abbreviated with stats, JSON complete
    let mlp = fixtures().join("mlp");
    let text = ok(&[&"inspect", &mlp, &"--values"]).stdout;
    let names: Vec<&str> =
        text.lines().filter(|l| !l.starts_with(' ')).map(|l| l.split_whitespace().next().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(text.contains("(64 values)  min="), "{text}");
    assert!(text.contains(" mean="), "{text}");
    let full = json(&ok(&[&"inspect", &mlp, &"--json", &"--values"]).stdout);
    let w = full.as_array().unwrap().iter().find(|e| e["name"] == "hidden1/weights").unwrap();
    assert_eq!(w["shape"], serde_json::json!([4, 16]));
    assert_eq!(w["values"].as_array().unwrap().len(), 4);
    assert_eq!(w["values"][0].as_array().unwrap().len(), 16);
}

#[test]
fn inspect_every_dtype_fixture() {
    let dir = fixtures().join("dtypes");
    let text = ok(&[&"inspect", &dir, &"--values"]).stdout;
    for want in ["v_bfloat16   bfloat16", "v_complex64  complex64", "[(1.0+2.0j), (-3.5-0.5j)", "[true, false, true]"] {
        assert!(text.contains(want), "{want:?} missing in\n{text}");
    }
    let listed = json(&ok(&[&"inspect", &dir, &"--json", &"--values"]).stdout);
    let get = |n: &str| listed.as_array().unwrap().iter().find(|e| e["name"] == n).unwrap().clone();
    assert_eq!(get("scalar")["values"], serde_json::json!(42.5));
    assert_eq!(get("empty")["values"], serde_json::json!([]));
    assert_eq!(get("v_int64")["values"], serde_json::json!([i64::MIN, i64::MAX, 42]));
    assert_eq!(get("v_string")["values"][1], serde_json::json!(""));
    assert_eq!(get("v_string")["values"][4], serde_json::json!({"hex": "00ff0162696e"}));
}

#[test]
fn inspect_tf2_object_based_checkpoint() {
    let dir = tf2_fixture();
    let text = ok(&[&"inspect", &dir]).stdout;
    let names: Vec<&str> = text.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(
        names,
        [
            "_CHECKPOINTABLE_OBJECT_GRAPH",
            "model/layer/bias/.ATTRIBUTES/VARIABLE_VALUE",
            "model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE",
            "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
            "step/.ATTRIBUTES/VARIABLE_VALUE",
        ]
    );
    let listed = json(&ok(&[&"inspect", &dir.join("ckpt-1"), &"--json", &"--values"]).stdout);
    let get = |n: &str| listed.as_array().unwrap().iter().find(|e| e["name"] == n).unwrap().clone();
    let kernel = get("model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE");
    assert_eq!(kernel["dtype"], "float32");
    assert_eq!(kernel["shape"], serde_json::json!([2, 3]));
    assert_eq!(kernel["values"], serde_json::json!([[1.5, -2.0, 0.25], [3.0, -0.5, 0.001f32 as f64]]));
    assert_eq!(get("step/.ATTRIBUTES/VARIABLE_VALUE")["values"], serde_json::json!(7));
    assert_eq!(get("save_counter/.ATTRIBUTES/VARIABLE_VALUE")["values"], serde_json::json!(1));
    let graph = get("_CHECKPOINTABLE_OBJECT_GRAPH");
    assert_eq!((graph["dtype"].as_str(), graph["shape"].as_array().map(Vec::len)), (Some("string"), Some(0)));
    // the serialized object graph names the objects and their checkpoint keys
    let g = graph["values"].to_string();
    assert!(g.contains("model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE"), "{g}");
}

#[test]
fn diff_full_vs_model_only() {
    let dir = fixtures().join("weight_def_adam");
    let (full, model) = (dir.join("full.ckpt"), dir.join("model_only.ckpt"));
    let d = json(&ok(&[&"diff", &full, &model, &"--json"]).stdout);
    let names = |k: &str| -> Vec<String> {
        d[k].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(
        names("only_in_a"),
        [
            "beta1_power",
            "beta2_power",
            "weight_def/biases/Adam",
            "weight_def/biases/Adam_1",
            "weight_def/weights/Adam",
            "weight_def/weights/Adam_1"
        ]
    );
    assert!(names("only_in_b").is_empty());
    assert!(names("mismatched").is_empty());
    assert_eq!(names("common"), ["weight_def/biases", "weight_def/weights"]);
    for c in d["common"].as_array().unwrap() {
        assert_eq!(c["max_abs_diff"], serde_json::json!(0.0), "{c}");
        assert_eq!(c["equal"], true);
    }
    assert_eq!(d["identical"], false);

    let text = ok(&[&"diff", &full, &model]).stdout;
    assert!(text.contains("only in A (6):"), "{text}");
    assert!(text.contains("only in B (0)\n"), "{text}");
    assert!(text.contains("weight_def/weights  float32    [4, 3]  max abs diff 0\n"), "{text}");
    assert!(text
        .ends_with("summary: 6 only in A, 0 only in B, 0 dtype/shape difference(s), 0 of 2 common tensor(s) differ\n"));

    // swapped: the optimizer entries are only in B; a directory resolves through its state file
    let d = json(&ok(&[&"diff", &dir, &full, &"--json"]).stdout);
    assert_eq!(d["only_in_b"].as_array().unwrap().len(), 6);
    assert!(d["a"].as_str().unwrap().ends_with("model_only.ckpt"));
    // a checkpoint against itself
    let d = json(&ok(&[&"diff", &full, &full, &"--json"]).stdout);
    assert_eq!(d["identical"], true);
    assert!(ok(&[&"diff", &full, &full]).stdout.ends_with("; identical\n"));
}

#[test]
fn diff_reports_value_dtype_and_shape_differences() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.ckpt"), tmp.path().join("b.ckpt"));
    let s = |v: &[&str]| Tensor::strings(&[v.len()], v.iter().map(|x| x.as_bytes().to_vec()).collect()).unwrap();
    write_checkpoint(
        &a,
        &[
            ("x".into(), Tensor::new(&[3], vec![1f32, 2.0, f32::NAN]).unwrap()),
            ("n".into(), Tensor::new(&[2], vec![i64::MIN, 5]).unwrap()),
            ("s".into(), s(&["a", "b"])),
            ("same".into(), s(&["q"])),
            ("shape".into(), Tensor::zeros(tensorgraph::DType::Float, &[2, 3])),
            ("dtype".into(), Tensor::zeros(tensorgraph::DType::Float, &[2])),
            ("only_a".into(), Tensor::scalar(1i32)),
        ],
    )
    .unwrap();
    write_checkpoint(
        &b,
        &[
            ("x".into(), Tensor::new(&[3], vec![1f32, 2.5, f32::NAN]).unwrap()),
            ("n".into(), Tensor::new(&[2], vec![i64::MAX, 5]).unwrap()),
            ("s".into(), s(&["a", "c"])),
            ("same".into(), s(&["q"])),
            ("shape".into(), Tensor::zeros(tensorgraph::DType::Float, &[3, 2])),
            ("dtype".into(), Tensor::zeros(tensorgraph::DType::Double, &[2])),
            ("only_b".into(), Tensor::scalar(1i32)),
        ],
    )
    .unwrap();
    let o = ok(&[&"diff", &a, &b, &"--json"]);
    let d = json(&o.stdout);
    let common = |n: &str| d["common"].as_array().unwrap().iter().find(|e| e["name"] == n).unwrap().clone();
    assert_eq!(common("x")["max_abs_diff"], serde_json::json!(0.5));
    assert_eq!(common("x")["num_different"], 1);
    assert_eq!(common("n")["max_abs_diff"], serde_json::json!(u64::MAX as f64));
    assert_eq!((common("s")["equal"].clone(), common("s")["max_abs_diff"].clone()), (false.into(), Value::Null));
    assert_eq!(common("same")["equal"], true);
    let mism: Vec<&str> = d["mismatched"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(mism, ["dtype", "shape"]);
    assert_eq!(d["mismatched"][0]["b"]["dtype"], "float64");
    assert_eq!(d["only_in_a"][0]["name"], "only_a");
    assert_eq!(d["only_in_b"][0]["name"], "only_b");
    assert_eq!(d["identical"], false);

    let text = ok(&[&"diff", &a, &b]).stdout;
    assert!(text.contains("dtype: A float32 [2], B float64 [2]"), "{text}");
    assert!(text.contains("shape: A float32 [2, 3], B float32 [3, 2]"), "{text}");
    assert!(text.contains("max abs diff 0.5 (1 of 3 elements differ)"), "{text}");
    assert!(text.contains("not equal (1 of 2 elements differ)"), "{text}");
    assert!(text.contains("3 of 4 common tensor(s) differ"), "{text}");
}

#[test]
fn errors_exit_nonzero_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no/such.ckpt");
    assert!(fails(&[&"inspect", &missing]).contains("does not exist"));
    assert!(fails(&[&"diff", &missing, &fixtures().join("seed004")]).starts_with("error: A: "));
    assert!(fails(&[&"diff", &fixtures().join("seed004"), &missing]).starts_with("error: B: "));

    // a directory without a state file names the checkpoints it holds
    let seed = fixtures().join("seed004/model.ckpt");
    let good = copy_ckpt(&seed, tmp.path(), "good.ckpt");
    // (the library's resolution, shared with CheckpointReader and Saver::restore)
    let err = fails(&[&"inspect", &tmp.path()]);
    let d = tmp.path().display();
    assert_eq!(
        err,
        format!(
            "error: NotFound: Couldn't find 'checkpoint' file or checkpoints in given directory {d}: pass a \
             checkpoint prefix such as {d}/good.ckpt (its checkpoints: {d}/good.ckpt)\n"
        )
    );
    // a state file naming a checkpoint that is gone
    std::fs::write(tmp.path().join("checkpoint"), "model_checkpoint_path: \"gone.ckpt\"\n").unwrap();
    assert!(fails(&[&"inspect", &tmp.path()]).contains("gone.ckpt"));
    // an unparsable state file
    std::fs::write(tmp.path().join("checkpoint"), "bogus {{{\n").unwrap();
    fails(&[&"inspect", &tmp.path()]);

    // corrupted index: listing fails with DataLoss
    let bad_index = copy_ckpt(&seed, tmp.path(), "bad_index.ckpt");
    let idx = tmp.path().join("bad_index.ckpt.index");
    let mut bytes = std::fs::read(&idx).unwrap();
    for b in bytes.iter_mut().skip(10).take(20) {
        *b ^= 0x5a;
    }
    std::fs::write(&idx, &bytes).unwrap();
    let err = fails(&[&"inspect", &bad_index]);
    assert!(err.contains("DataLoss"), "{err}");
    fails(&[&"diff", &bad_index, &good]);
    // truncated index
    std::fs::write(&idx, &bytes[..bytes.len() / 2]).unwrap();
    fails(&[&"inspect", &bad_index, &"--json"]);
    // empty index
    std::fs::write(&idx, b"").unwrap();
    fails(&[&"inspect", &bad_index]);

    // corrupted data: listing works (index only), reading values fails on the checksum
    let bad_data = copy_ckpt(&seed, tmp.path(), "bad_data.ckpt");
    let data = tmp.path().join("bad_data.ckpt.data-00000-of-00001");
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&data, &bytes).unwrap();
    assert_eq!(ok(&[&"inspect", &bad_data]).stdout, SEED004_LISTING);
    let err = fails(&[&"inspect", &bad_data, &"--values"]);
    assert!(err.contains("Checksum does not match"), "{err}");
    fails(&[&"inspect", &bad_data, &"--values", &"--json"]);
    assert!(fails(&[&"diff", &good, &bad_data]).contains("Checksum"));
    // truncated data
    std::fs::write(&data, &bytes[..2]).unwrap();
    assert!(fails(&[&"inspect", &bad_data, &"--values"]).contains("truncated"));
    // missing data file
    std::fs::remove_file(&data).unwrap();
    fails(&[&"inspect", &bad_data, &"--values"]);
    fails(&[&"diff", &bad_data, &good]);

    // usage errors are clap's (exit 2), not panics
    let o = tg(&[&"inspect"]);
    assert_eq!(o.code, Some(2));
    assert!(!o.stderr.contains("panicked"));
}

#[test]
fn help_documents_the_exit_status() {
    let o = ok(&[&"diff", &"--help"]);
    assert!(o.stdout.contains("Exit status: 0 whether or not the checkpoints differ"), "{}", o.stdout);
    let o = ok(&[&"inspect", &"--help"]);
    assert!(o.stdout.contains("--values") && o.stdout.contains("--json"), "{}", o.stdout);
}

#[test]
fn diff_of_a_model_file_says_diff_takes_checkpoints() {
    let pb = fixtures().join("seed004/frozen.pb");
    let dir = fixtures().join("seed004");
    let err = fails(&[&"diff", &pb, &dir]);
    assert!(err.contains("is a model file; diff compares checkpoints"), "{err}");
}

#[path = "../../tests/common/damaged.rs"]
mod damaged;

#[test]
fn entries_that_cannot_be_decoded_are_shown_and_fail_inspect_and_diff() {
    // issue 12's example: seed004 with v2's dtype set to 999 (block checksums recomputed)
    let dir = tempfile::tempdir().unwrap();
    let bad = damaged::edit_entry(dir.path(), "model.ckpt", "v2", |e| e.dtype = 999);
    let problem = "DataType 999 is not a TensorFlow dtype";

    let o = tg(&[&"inspect", &bad]);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, format!("v1  float32    [1]\nv3  float32    [1]\nv2  cannot be decoded: {problem}\n"));
    assert_eq!(o.stderr, format!("error: 1 entry of checkpoint {} cannot be decoded: v2 ({problem})\n", bad.display()));

    let o = tg(&[&"inspect", &"--json", &bad]);
    assert_eq!(o.code, Some(1));
    let listed = json(&o.stdout);
    assert_eq!(listed.as_array().unwrap().len(), 3);
    assert_eq!(listed[2], serde_json::json!({"name": "v2", "problem": problem}));

    // diff against the original: v2 is undecodable in A, never "only in B"
    let seed = damaged::seed004();
    let o = tg(&[&"diff", &bad, &seed]);
    assert_eq!(o.code, Some(1), "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains(&format!("cannot be decoded in A (1):\n  v2: {problem}\nonly in A (0)\nonly in B (0)\n")),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("0 only in B"), "{}", o.stdout);
    assert_eq!(
        o.stderr,
        format!("error: A: 1 entry of checkpoint {} cannot be decoded: v2 ({problem})\n", bad.display())
    );
    let o = tg(&[&"diff", &"--json", &seed, &bad]);
    assert_eq!(o.code, Some(1));
    let d = json(&o.stdout);
    assert_eq!(d["undecodable_in_b"], serde_json::json!([{"name": "v2", "problem": problem}]));
    assert_eq!(d["only_in_a"], serde_json::json!([]));
    assert_eq!(d["identical"], false);

    // a key that is not UTF-8 is shown escaped, not lossily
    let renamed = damaged::rename_key(dir.path(), "renamed", "v2", b"v\xff2");
    let o = tg(&[&"inspect", &renamed]);
    assert_eq!(o.code, Some(1));
    assert!(
        o.stdout.ends_with("v\\xff2  cannot be decoded: the key is not UTF-8, so no name can read it\n"),
        "{}",
        o.stdout
    );
}
