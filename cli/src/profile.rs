//! `tensorgraph run --profile`: the step statistics of a traced run (TensorFlow's
//! `RunMetadata`) as a table of the nodes that took longest, the time by op type, and the
//! most memory the run's tensors held between nodes (constants and variables left out).

use std::collections::BTreeMap;
use tensorgraph::format::proto::{NodeExecStats, RunMetadata};

/// How many nodes and op types the profile lists.
pub const TOP: usize = 10;

/// The profile of a traced run: totals, the `top` slowest nodes (kernel time, op type,
/// output bytes) and the time by op type.
pub fn profile_text(md: &RunMetadata, top: usize) -> String {
    let nodes: Vec<&NodeExecStats> = md.node_stats().collect();
    let total: i64 = nodes.iter().map(|n| n.op_end_rel_nanos - n.op_start_rel_nanos).sum();
    let mut t = format!(
        "profile: {} nodes ran, kernel time {}, peak memory {} (tensors the run held between nodes; constants, variables not counted)\n",
        nodes.len(),
        millis(total),
        bytes(md.peak_bytes())
    );
    if nodes.is_empty() {
        return t;
    }
    let mut by_time = nodes.clone();
    by_time.sort_by_key(|n| std::cmp::Reverse(n.op_end_rel_nanos - n.op_start_rel_nanos));
    t.push_str(&format!("top {} nodes by kernel time:\n", top.min(by_time.len())));
    for n in by_time.iter().take(top) {
        let op = op_type(n);
        let share = percent(n.op_end_rel_nanos - n.op_start_rel_nanos, total);
        t.push_str(&format!(
            "  {:>10}  {share:>5}  {:<22} {}  -> {}\n",
            millis(n.op_end_rel_nanos - n.op_start_rel_nanos),
            op,
            n.node_name,
            bytes(n.output_bytes())
        ));
    }
    let mut types: BTreeMap<&str, (i64, usize)> = BTreeMap::new();
    for n in &nodes {
        let e = types.entry(op_type(n)).or_default();
        e.0 += n.op_end_rel_nanos - n.op_start_rel_nanos;
        e.1 += 1;
    }
    let mut types: Vec<(&str, (i64, usize))> = types.into_iter().collect();
    types.sort_by_key(|(name, (nanos, _))| (std::cmp::Reverse(*nanos), *name));
    t.push_str(&format!("top {} op types by kernel time:\n", top.min(types.len())));
    for (name, (nanos, count)) in types.iter().take(top) {
        t.push_str(&format!("  {:>10}  {:>5}  {name} ({count})\n", millis(*nanos), percent(*nanos, total)));
    }
    t.push_str(FIRST_RUN);
    t
}

/// The profile's last line: the command runs the graph once, and a first run also
/// prepares what later runs reuse.
pub const FIRST_RUN: &str = "note: a first run: convolutions and products with constant weights pack (or Winograd-transform) them now, once for the session, and their times here include that\n";

/// The op type in a timeline label `name = OpType(inputs)`.
fn op_type(n: &NodeExecStats) -> &str {
    n.timeline_label.split_once(" = ").and_then(|(_, r)| r.split('(').next()).unwrap_or("?")
}

fn millis(nanos: i64) -> String {
    format!("{:.3} ms", nanos as f64 / 1e6)
}

fn percent(part: i64, total: i64) -> String {
    if total <= 0 {
        return "-".to_string();
    }
    format!("{:.1}%", part as f64 * 100.0 / total as f64)
}

fn bytes(b: i64) -> String {
    match b {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensorgraph::format::proto::{AllocatorMemoryUsed, DeviceStepStats, StepStats};

    fn node(name: &str, op: &str, nanos: i64, peak: i64) -> NodeExecStats {
        NodeExecStats {
            node_name: name.into(),
            op_end_rel_nanos: nanos,
            timeline_label: format!("{name} = {op}(x)"),
            memory: vec![AllocatorMemoryUsed { peak_bytes: peak, ..Default::default() }],
            ..Default::default()
        }
    }

    #[test]
    fn lists_the_slowest_nodes_and_op_types() {
        let md = RunMetadata {
            step_stats: Some(StepStats {
                dev_stats: vec![DeviceStepStats {
                    device: String::new(),
                    node_stats: vec![
                        node("a", "MatMul", 3_000_000, 100),
                        node("b", "Relu", 1_000_000, 4096),
                        node("c", "MatMul", 4_000_000, 50),
                    ],
                }],
            }),
        };
        let t = profile_text(&md, 2);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "profile: 3 nodes ran, kernel time 8.000 ms, peak memory 4.0 KiB (tensors the run held between nodes; constants, variables not counted)"
        );
        assert_eq!(lines[1], "top 2 nodes by kernel time:");
        assert!(lines[2].contains("4.000 ms") && lines[2].contains("50.0%") && lines[2].contains(" c "), "{t}");
        assert!(lines[3].contains("3.000 ms") && lines[3].contains(" a "), "{t}");
        assert_eq!(lines[4], "top 2 op types by kernel time:");
        assert_eq!(lines[5].split_whitespace().collect::<Vec<_>>(), ["7.000", "ms", "87.5%", "MatMul", "(2)"]);
        assert_eq!(lines[6].split_whitespace().collect::<Vec<_>>(), ["1.000", "ms", "12.5%", "Relu", "(1)"]);
        assert_eq!(format!("{}\n", lines[7]), FIRST_RUN);
        assert_eq!(lines.len(), 8);
    }

    #[test]
    fn a_run_of_no_nodes_has_no_tables() {
        let md = RunMetadata { step_stats: Some(StepStats { dev_stats: vec![] }) };
        assert_eq!(
            profile_text(&md, TOP),
            "profile: 0 nodes ran, kernel time 0.000 ms, peak memory 0 B (tensors the run held between nodes; constants, variables not counted)\n"
        );
    }
}
