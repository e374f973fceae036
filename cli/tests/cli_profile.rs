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
    // the frozen MLP's plan runs 10 nodes: 6 Const, 3 _FusedMatMul (MatMul + BiasAdd (+
    // Relu), named as the last op of each), Softmax (the graph optimiser bypassed its 7
    // Identity nodes and fused the rest)
    assert!(lines[0].starts_with("profile: 10 nodes ran, kernel time "), "{err}");
    assert!(
        lines[0].contains(" ms, peak memory ")
            && lines[0].ends_with(" (tensors the run held between nodes; constants, variables not counted)"),
        "{err}"
    );
    assert_eq!(lines[1], "top 10 nodes by kernel time:");
    assert!(lines[2..12].iter().any(|l| l.contains(" _FusedMatMul ") && l.contains("hidden1/Relu  -> 640 B")), "{err}");
    assert_eq!(lines[12], "top 3 op types by kernel time:");
    let mut types: Vec<String> =
        lines[13..16].iter().map(|l| l.split_whitespace().skip(3).collect::<Vec<_>>().join(" ")).collect();
    types.sort();
    assert_eq!(types, ["Const (6)", "Softmax (1)", "_FusedMatMul (3)"], "{err}");
    assert!(lines[16].starts_with("note: a first run: "), "{err}");
    assert_eq!(lines.len(), 17, "{err}");
}

#[test]
fn no_graph_optimization_profiles_the_ops_as_written() {
    let dir = fixtures().join("mlp");
    let feed = format!("x={}", s(&dir.join("inputs.npy")));
    let args = ["run", &s(&dir.join("frozen.pb")), "--feed", &feed, "--fetch", "probs:0"];
    let optimised = ok(&args);
    let plain = ok(&[&args[..], &["--no-graph-optimization", "--profile"]].concat());
    // the fused products compute bitwise what MatMul + BiasAdd + Relu compute
    assert_eq!(plain.stdout, optimised.stdout);
    let err = &plain.stderr;
    let types: Vec<&str> =
        err.lines().skip_while(|l| !l.starts_with("top ") || !l.contains("op types")).skip(1).collect();
    let has = |t: &str| types.iter().any(|l| l.ends_with(t));
    assert!(has("MatMul (3)") && has("BiasAdd (3)") && has("Relu (2)"), "{err}");
    assert!(!err.contains("_Fused"), "{err}");
}
