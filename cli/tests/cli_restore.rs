//! Restoring in `run` and `freeze`: restore errors advise the command's own flags (not Rust
//! calls), `--trainable-only` restores a checkpoint saved without the optimizer's slots, and
//! `--map CKPT_NAME=GRAPH_NAME` (or `old_scope/=new_scope/`) restores renamed variables.
//! Messages are asserted exactly, values against TensorFlow's.

mod common;
use common::cli::{fails_with, ok, s};
use common::{assert_close, fixtures, flat_f64, manifest};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{write_checkpoint, CheckpointReader};

/// Copies checkpoint `from` to `to` with every name passed through `rename`.
fn renamed_copy(from: &Path, to: &Path, rename: impl Fn(&str) -> String) {
    let r = CheckpointReader::open(from).unwrap();
    let tensors: Vec<(String, tensorgraph::Tensor)> =
        r.list().into_iter().map(|(n, _, _)| (rename(&n), r.read(&n).unwrap())).collect();
    write_checkpoint(to, &tensors).unwrap();
}

/// The values of `run ARGS --json`'s first fetch.
fn values(args: &[String]) -> Vec<f64> {
    let v: Value = serde_json::from_str(&ok(args).stdout).unwrap();
    flat_f64(&v[0]["values"])
}

fn args(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

const SLOTS_MISSING: &str = "6 variable(s) not found in checkpoint: beta1_power, beta2_power, weight_def/biases/Adam, weight_def/biases/Adam_1, weight_def/weights/Adam, weight_def/weights/Adam_1\nAll 6 missing names are optimizer state (slots such as /Adam, /Adam_1, /Momentum, beta1_power, beta2_power): the checkpoint was saved without the optimizer, or the graph adds an optimizer the saved model did not have. Pass --trainable-only to restore only the trainable (model) variables; the optimizer's stay uninitialized, which running or freezing the model's outputs does not need.";

#[test]
fn a_checkpoint_without_slots_restores_with_trainable_only() {
    let dir = fixtures().join("weight_def_adam");
    let meta = s(&dir.join("full.ckpt.meta"));
    let prefix = dir.join("model_only.ckpt");
    let want = format!("NotFound: Restoring from checkpoint {} failed.\n{SLOTS_MISSING}", prefix.display());
    let run = ["run", &meta, "--ckpt", &s(&prefix), "--fetch", "weight_def/weights/read:0", "--json"];
    fails_with(&run, &want);
    let tmp = tempfile::tempdir().unwrap();
    let out = s(&tmp.path().join("frozen.pb"));
    let freeze = ["freeze", "--meta", &meta, "--ckpt", &s(&prefix), "--outputs", "probs", "-o", &out];
    fails_with(&freeze, &want);
    // the advice works: the values are TensorFlow's model_only.ckpt
    let mut trainable = args(&run);
    trainable.push("--trainable-only".into());
    let tensors = &manifest("weight_def_adam")["checkpoints"]["model_only.ckpt"]["tensors"];
    let weights = tensors.as_array().unwrap().iter().find(|t| t["name"] == "weight_def/weights").unwrap();
    assert_close("weights", &values(&trainable), &flat_f64(&weights["values"]));
    let mut freeze = args(&freeze);
    freeze.push("--trainable-only".into());
    ok(&freeze);
    assert!(Path::new(&out).is_file());
}

#[test]
fn renamed_variables_restore_with_map() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = fixtures().join("seed004");
    let meta = s(&seed.join("model.ckpt.meta"));
    let renamed = tmp.path().join("renamed.ckpt");
    renamed_copy(&seed.join("model.ckpt"), &renamed, |n| format!("old/{n}"));
    let run = args(&["run", &meta, "--ckpt", &s(&renamed), "--fetch", "add_1:0", "--json"]);
    fails_with(
        &run,
        &format!(
            "NotFound: Restoring from checkpoint {} failed.\n3 variable(s) not found in checkpoint: v1, v2, v3\nThe checkpoint has 3 name(s) the graph does not: old/v1, old/v2, old/v3\nThe graph's variable names differ from the checkpoint's. Restore a checkpoint of this model, or map the checkpoint's names to the graph's with --map CKPT_NAME=GRAPH_NAME (repeatable; --map old_scope/=new_scope/ maps every variable under a scope). `tensorgraph inspect CKPT` lists the checkpoint's names.",
            renamed.display()
        ),
    );
    let mut mapped = run.clone();
    for v in ["v1", "v2", "v3"] {
        mapped.extend(["--map".to_string(), format!("old/{v}={v}")]);
    }
    assert_eq!(values(&mapped), [6.0]);

    // bad maps are named
    let with = |map: &str| {
        let mut a = run.clone();
        a.extend(["--map".to_string(), map.to_string()]);
        a
    };
    fails_with(&with("v1"), "--map v1: expected CKPT_NAME=GRAPH_NAME (e.g. --map old/weights=new/weights)");
    fails_with(&with("a=nope"), "--map a=nope: the graph has no variable nope to restore; its variables: v1, v2, v3");
    fails_with(&with("v1=v2"), "--map v1=v2: two variables, v1 and v2, would be restored from checkpoint name v1");

    // a whole scope: the mlp fixture's hidden1/ saved as layer1/ (slots included)
    let mlp = fixtures().join("mlp");
    let moved = tmp.path().join("moved.ckpt");
    renamed_copy(&mlp.join("model.ckpt"), &moved, |n| n.replace("hidden1/", "layer1/"));
    let feed = format!("x={}", s(&mlp.join("inputs.npy")));
    let run = args(&[
        "run",
        &s(&mlp.join("model.ckpt.meta")),
        "--ckpt",
        &s(&moved),
        "--feed",
        &feed,
        "--fetch",
        "probs:0",
        "--json",
        "--map",
        "layer1/=hidden1/",
    ]);
    let want = npy_f32(&mlp.join("expected_probs.npy"));
    assert_close("probs", &values(&run), &want);
}

#[test]
fn a_missing_checkpoint_is_explained_for_the_command_line() {
    let meta = s(&fixtures().join("seed004/model.ckpt.meta"));
    let gone = PathBuf::from("/nonexistent/model.ckpt");
    fails_with(
        &["run", &meta, "--ckpt", &s(&gone), "--fetch", "add_1:0"],
        "NotFound: Failed to find any matching files for /nonexistent/model.ckpt: no /nonexistent/model.ckpt.index (give a checkpoint prefix, the path without .index, or the directory holding its `checkpoint` state file)",
    );
}

fn npy_f32(path: &Path) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    npy.into_vec::<f32>().unwrap().into_iter().map(f64::from).collect()
}
