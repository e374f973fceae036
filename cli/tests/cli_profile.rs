//! `tensorgraph run --profile`: the run is traced (RunOptions FULL_TRACE) and its profile
//! goes to stderr; stdout is what a run without it prints.

mod common;
use common::cli::{ok, s};
use common::fixtures;

#[test]
fn profile_lists_nodes_and_op_types_on_stderr() {
    let dir = fixtures().join("mlp");
    let feed = format!("x={}", s(&dir.join("inputs.npy")));
    let args = ["run", &s(&dir.join("frozen.pb")), "--feed", &feed, "--fetch", "probs:0"];
    let plain = ok(&args);
    let profiled = ok(&[&args[..], &["--profile"]].concat());
    assert_eq!(profiled.stdout, plain.stdout);
    let err = &profiled.stderr;
    let lines: Vec<&str> = err.lines().collect();
    // the frozen MLP's plan runs 15 nodes: 6 Const, 3 MatMul, 3 BiasAdd, 2 Relu, Softmax
    // (the graph optimiser bypassed its 7 Identity nodes)
    assert!(lines[0].starts_with("profile: 15 nodes ran, kernel time "), "{err}");
    assert!(lines[0].contains(" ms, peak memory ") && lines[0].ends_with(" (tensors held by the run)"), "{err}");
    assert_eq!(lines[1], "top 10 nodes by kernel time:");
    assert!(lines[2..12].iter().any(|l| l.contains(" MatMul ") && l.contains("hidden1/MatMul  -> 640 B")), "{err}");
    assert_eq!(lines[12], "top 5 op types by kernel time:");
    let mut types: Vec<String> =
        lines[13..18].iter().map(|l| l.split_whitespace().skip(3).collect::<Vec<_>>().join(" ")).collect();
    types.sort();
    assert_eq!(types, ["BiasAdd (3)", "Const (6)", "MatMul (3)", "Relu (2)", "Softmax (1)"]);
}
