//! Runs a [`Plan`]: a dataflow executor (TensorFlow's executor; ops run one at a time on
//! the calling thread, their kernels splitting large work over the session's pool). Ready
//! items wait in a queue (lowest item number first); running one takes its input values
//! out of its iteration's slots (so a buffer is released when its last reader runs),
//! computes its outputs (or, when it is dead, dead outputs without computing), and
//! [`Frames::propagate`] sends them on. Control-flow ops are computed here: `Switch`
//! picks an output, `Merge` forwards its live input, `Enter`/`Exit`/`NextIteration`
//! forward theirs (their frames and iterations are the propagator's part).

use super::frames::{Frames, Task};
use super::plan::{Fetch, InputMode, Item, Kind, Plan};
use super::step_stats::{distinct_bytes, NodeTimes, Tracer};
use crate::error::{Error, Result};
use crate::ops::control_flow::switch_port;
use crate::ops::kernels::parallel::PoolScope;
use crate::ops::{uninitialized, KernelCtx, StepResources, ThreadPool, VarSlot};
use crate::tensor::Tensor;
use std::time::Instant;

/// Runs `plan` with `feeds` (already validated, in plan feed order); returns the fetches.
/// Errors: the first kernel error (prefixed with the op); `InvalidArgument` "Retval[i]
/// does not have value" for a fetched tensor that is dead in this run; `Internal`
/// "Retval[i] has already been set" for one inside a loop that is live in more than one
/// iteration (as TensorFlow). Kernels split their work over `pool`, made current on this
/// thread for the run. With a `tracer`, each node run is recorded in it.
pub(crate) fn execute(
    plan: &Plan,
    feeds: Vec<Tensor>,
    pool: &ThreadPool,
    mut tracer: Option<&mut Tracer>,
) -> Result<Vec<Tensor>> {
    let _ftz = super::denormal::FlushDenormals::new();
    let _pool = PoolScope::new(pool);
    let mut fetched: Vec<Option<Tensor>> = vec![None; plan.fetches.len()];
    for (slot, f) in fetched.iter_mut().zip(&plan.fetches) {
        if let Fetch::Feed(i) = f {
            *slot = Some(feeds[*i].clone());
        }
    }
    let mut frames = Frames::new(plan);
    frames.start(feeds);
    // TensorArrays and stacks made by this run's ops, dropped when it ends
    let step = StepResources::default();
    // the first Merges that had no live input, for the message of a dead fetch
    let mut dead_merges: Vec<&str> = Vec::new();
    while let Some(task) = frames.pop() {
        let item = &plan.items[task.item];
        if task.dead && item.kind == Kind::Merge && dead_merges.len() < 3 && !dead_merges.contains(&&*item.node.name) {
            dead_merges.push(&item.node.name);
        }
        let op_start = tracer.is_some().then(Instant::now);
        let outputs = run(plan, item, &task, &mut frames, &step, pool)?;
        let op_end = tracer.is_some().then(Instant::now);
        // a traced node's outputs as they were computed (propagating moves them on)
        let traced = match (tracer.is_some(), task.dead) {
            (true, false) => Some(outputs.clone()),
            _ => None,
        };
        for &(port, fi) in &item.fetches {
            if let Some(t) = &outputs[port] {
                if fetched[fi].replace(t.clone()).is_some() {
                    return Err(Error::internal(format!(
                        "Retval[{fi}] has already been set. {}:{port} is inside a while loop and live in more than one iteration; fetch the loop's Exit instead",
                        item.node.name
                    )));
                }
            }
        }
        frames.propagate(&task, outputs);
        if let (Some(tracer), Some(outputs), Some(op_start), Some(op_end)) =
            (tracer.as_deref_mut(), traced, op_start, op_end)
        {
            let live = distinct_bytes(frames.values().chain(fetched.iter().flatten()));
            tracer.record(&item.node, &NodeTimes { op_start, op_end, all_end: Instant::now() }, &outputs, live);
        }
    }
    drop(frames);
    plan.fetches
        .iter()
        .zip(fetched)
        .enumerate()
        .map(|(i, (f, value))| match (f, value) {
            (Fetch::Var(slot, name), _) | (Fetch::OutputVar(slot, name), Some(_)) => read_var(slot, name),
            (_, Some(t)) => Ok(t),
            (_, None) => Err(not_fetchable(plan, i, &dead_merges)),
        })
        .collect()
}

/// The error for fetch `i`, which is dead in this run; `dead_merges` are Merges that had
/// no live input in the run.
fn not_fetchable(plan: &Plan, i: usize, dead_merges: &[&str]) -> Error {
    let name = plan
        .items
        .iter()
        .find_map(|it| it.fetches.iter().find(|f| f.1 == i).map(|&(port, _)| format!("{}:{port}", it.node.name)))
        .unwrap_or_default();
    let merges = if dead_merges.is_empty() {
        String::new()
    } else {
        format!(" Merge ops with no live input in this run: '{}'.", dead_merges.join("', '"))
    };
    Error::invalid_argument(format!(
        "Retval[{i}] does not have value: the fetched tensor {name} is dead in this run (it is on a branch a Switch did not take, or after a Merge with no live input).{merges} Fetch a tensor computed on the taken branch, or the Merge of the branches."
    ))
}

fn read_var(slot: &VarSlot, name: &str) -> Result<Tensor> {
    slot.read().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(|| uninitialized(name))
}

/// Computes `task`'s outputs (`None`: dead), taking its inputs out of its iteration.
fn run(
    plan: &Plan,
    item: &Item,
    task: &Task,
    frames: &mut Frames,
    step: &StepResources,
    pool: &ThreadPool,
) -> Result<Vec<Option<Tensor>>> {
    let start = item.input_start;
    let slots = &mut frames.iteration(task.frame, task.iter).inputs[start..start + item.inputs.len()];
    if task.dead {
        slots.iter_mut().for_each(|s| *s = None);
        return Ok(vec![None; item.node.outputs.len()]);
    }
    match item.kind {
        Kind::Op | Kind::ControlTrigger => {
            let mut inputs = Vec::with_capacity(slots.len());
            for (i, slot) in slots.iter_mut().enumerate() {
                inputs.push(input(plan, item, i, slot)?);
            }
            compute(item, inputs, step, pool)
        }
        Kind::Switch => {
            let data = input(plan, item, 0, &mut slots[0])?;
            let pred = input(plan, item, 1, &mut slots[1])?;
            let port = switch_port(&pred).map_err(|e| e.context(format!("Switch '{}'", item.node.name)))?;
            let mut out = vec![None, None];
            out[port] = Some(data);
            Ok(out)
        }
        Kind::Merge => {
            let index = slots
                .iter()
                .position(Option::is_some)
                .ok_or_else(|| Error::internal(format!("Merge '{}' is live but has no live input", item.node.name)))?;
            let value = slots[index].take();
            slots.iter_mut().for_each(|s| *s = None);
            Ok(vec![value, Some(Tensor::scalar(index as i32))])
        }
        Kind::Enter { .. } | Kind::Exit | Kind::NextIteration => Ok(vec![Some(input(plan, item, 0, &mut slots[0])?)]),
    }
}

/// The value of `item`'s data input `i`, whose delivered value (if any) is in `slot`.
fn input(plan: &Plan, item: &Item, i: usize, slot: &mut Option<Tensor>) -> Result<Tensor> {
    let delivered = slot.take();
    match &item.inputs[i] {
        InputMode::Value => delivered
            .ok_or_else(|| Error::internal(format!("input {i} of '{}' is live but has no value", item.node.name))),
        InputMode::ReadVar(var, name) => {
            read_var(var, name).map_err(|e| e.context(format!("input {i} of '{}'", item.node.name)))
        }
        InputMode::Ref => Ok(plan.token.clone()),
        InputMode::Token => Ok(delivered.unwrap_or_else(|| plan.token.clone())),
    }
}

/// Runs `item`'s kernel on `inputs`.
fn compute(item: &Item, inputs: Vec<Tensor>, step: &StepResources, pool: &ThreadPool) -> Result<Vec<Option<Tensor>>> {
    let node = &item.node;
    let mut ctx = KernelCtx {
        node_name: &node.name,
        op_type: node.op_type,
        inputs,
        vars: &item.vars,
        rng: item.rng.as_deref(),
        step,
        pool,
    };
    let outs = item.kernel.compute(&mut ctx).map_err(|e| {
        if names_op(&e.message, &node.name) {
            e
        } else {
            e.context(format!("{} '{}'", node.op_type, node.name))
        }
    })?;
    if outs.len() != node.outputs.len() {
        return Err(Error::internal(format!(
            "kernel of '{}' ({}) returned {} outputs, expected {}",
            node.name,
            node.op_type,
            outs.len(),
            node.outputs.len()
        )));
    }
    Ok(outs.into_iter().map(Some).collect())
}

/// True when `message` already names the op `name` as a whole word (`'v1'`, `value v1.`),
/// not as part of another name or word (`Pad` in `Paddings`, `v1` in `v1/read`).
fn names_op(message: &str, name: &str) -> bool {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    message.match_indices(name).any(|(at, _)| {
        let before = message[..at].chars().next_back();
        let after = message[at + name.len()..].chars().next();
        !before.is_some_and(part_of_name) && !after.is_some_and(|c| part_of_name(c) && c != '.')
    })
}

#[cfg(test)]
mod tests {
    use super::names_op;

    #[test]
    fn an_op_is_named_only_as_a_whole_word() {
        assert!(names_op("Attempting to use uninitialized value v1. Run", "v1"));
        assert!(names_op("placeholder tensor 'x' with dtype float", "x"));
        assert!(!names_op("Paddings must be non-negative", "Pad"));
        assert!(!names_op("uninitialized value v1/read", "v1"));
        assert!(!names_op("from xs:0", "x"));
    }
}
