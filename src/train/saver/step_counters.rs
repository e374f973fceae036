//! The warning a [`Saver`](super::Saver) records when a variable of its graph that looks
//! like a step counter (`global_step`, `step`, `train_step`) is not among the variables it
//! saves (a local variable, or one left out of `var_list`): a resumed run would start that
//! counter again from its initial value.

use crate::graph::{Graph, Variable};
use std::collections::BTreeMap;

/// True when the last component of `name` names a step counter.
fn looks_like_step_counter(name: &str) -> bool {
    let last = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    matches!(last.as_str(), "global_step" | "step" | "steps" | "iteration" | "iterations")
        || last.ends_with("_step")
        || last.ends_with("_steps")
}

/// One warning per variable of `graph` (global, local, or made by `get_variable`) named
/// like a step counter that `saved` does not hold.
pub(super) fn unsaved_step_counters(graph: &Graph, saved: &BTreeMap<String, Variable>) -> Vec<String> {
    let mut all = graph.global_variables();
    for v in graph.variables_in("local_variables") {
        if !all.contains(&v) {
            all.push(v);
        }
    }
    let stored: Vec<_> = graph.read().var_store.values().map(|s| s.record.clone()).collect();
    for r in stored {
        let v = Variable::from_record(graph, &r);
        if !all.contains(&v) {
            all.push(v);
        }
    }
    let local = graph.variables_in("local_variables");
    all.iter()
        .filter(|v| looks_like_step_counter(&v.op_name()) && !saved.values().any(|s| s == *v))
        .map(|v| {
            let what = if local.contains(v) { "a local variable" } else { "not in this saver's variables" };
            format!(
                "variable {} looks like a step counter but is not saved ({what}): a run resumed from the checkpoint \
                 starts it again from its initial value; use train::get_or_create_global_step (a global variable, \
                 saved) or add it to the saver's variables",
                v.op_name()
            )
        })
        .collect()
}
