//! TF1 control flow run here to TensorFlow 2.21's results: graphs written by `tf.cond` and
//! `tf.while_loop` (tests/data/control_flow, scripts/gen_control_flow.py) imported and run
//! with the feeds TensorFlow got, outputs and error messages compared with TensorFlow's.

mod control_flow_common;
use control_flow_common::{check, run};

#[test]
fn cond_takes_the_true_branch() {
    check("cond_p1");
}

#[test]
fn cond_takes_the_false_branch() {
    check("cond_p0");
}

#[test]
fn nested_conds_take_each_combination_of_branches() {
    for name in ["nested_p1_q1", "nested_p1_q0", "nested_p0_q1", "nested_p0_q0"] {
        check(name);
    }
}

#[test]
fn fetching_a_dead_tensor_is_tensorflows_error() {
    check("dead_switch_output");
    check("dead_branch_op");
    let (_, r) = run("dead_switch_output");
    let e = r.unwrap_err();
    assert!(e.message.contains("cond/Switch:0 is dead"), "{e}");
}

#[test]
fn a_dead_target_is_skipped_without_error() {
    check("dead_target");
}

#[test]
fn a_merge_forwards_its_one_live_input_and_its_index() {
    check("merge_live");
}

#[test]
fn a_merge_with_no_live_input_is_dead() {
    check("merge_no_live_input");
    let e = run("merge_no_live_input").1.unwrap_err();
    assert!(e.message.contains("the fetched tensor after_merge:0 is dead"), "{e}");
    assert!(e.message.contains("Merge ops with no live input in this run: 'lonely_merge'."), "{e}");
}

#[test]
fn while_loop_sums_a_thousand_iterations() {
    check("sum");
}

#[test]
fn while_loop_produces_a_sequence() {
    check("sequence");
}

#[test]
fn maximum_iterations_stops_the_loop_as_tensorflow() {
    check("maximum_iterations");
    check("maximum_iterations_fed_3");
    check("maximum_iterations_fed_20");
}

#[test]
fn loop_invariants_reach_every_iteration() {
    check("invariant");
}

#[test]
fn nested_while_loops() {
    check("nested");
}

#[test]
fn a_loop_in_a_cond_runs_when_its_branch_is_taken() {
    check("loop_in_taken_branch");
}

#[test]
fn a_loop_in_the_untaken_branch_is_a_dead_frame() {
    check("loop_in_untaken_branch");
}

#[test]
fn fetching_a_tensor_inside_a_loop_is_tensorflows_error() {
    check("fetch_inside_loop");
}

#[test]
fn a_loop_updates_a_reference_variable() {
    check("ref_variable_loop");
    check("ref_variable_after_loop");
}

#[test]
fn a_cond_updates_a_reference_variable_through_ref_switch() {
    check("ref_cond_true");
    check("ref_cond_false");
}

#[test]
fn a_loop_updates_and_reads_a_resource_variable() {
    check("resource_variable_loop");
    check("resource_variable_after_loop");
}

/// Resident memory of this process in bytes (Linux).
fn rss() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn ten_thousand_iterations_keep_memory_flat() {
    // each iteration fills a 100 KB tensor: 1 GB if iterations were kept
    let before = rss();
    check("big_10000");
    if let (Some(before), Some(after)) = (before, rss()) {
        let grown = after.saturating_sub(before);
        assert!(grown < 200 << 20, "resident memory grew by {} MB over 10,000 iterations", grown >> 20);
    }
}
