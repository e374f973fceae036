//! One run's mutable state and the three steps of running a ready task, shared by the
//! serial loop and the inter-op scheduler (`session/inter_op.rs`):
//!
//! 1. [`RunState::start`] (with the state held): takes the task's inputs out of its
//!    iteration's slots; a dead task, the control-flow ops (`Switch`, `Merge`, `Enter`,
//!    `Exit`, `NextIteration`) and `Identity`-like ops ([`Kind::Forward`]) compute their
//!    outputs right there, they only move values;
//! 2. [`Work::run`] (without the state: this is where threads overlap): runs the kernel;
//! 3. [`RunState::finish`] (with the state held): records fetched outputs, delivers the
//!    outputs to the consumers ([`Frames::propagate`]) and, when traced, records the node.

use super::frames::{Frames, SpareSlot, Task};
use super::plan::{Fetch, InputMode, Item, Kind, Plan};
use super::step_stats::{buffer_address, distinct_bytes, NodeTimes, Tracer};
use crate::error::{Error, Result};
use crate::ops::control_flow::switch_port;
use crate::ops::{uninitialized, KernelCtx, StepResources, ThreadPool, VarSlot};
use crate::tensor::Tensor;
use std::collections::HashSet;
use std::time::Instant;

/// Frames, fetched values, the tracer and what a dead fetch's message needs: everything
/// a run changes as its tasks finish.
pub(crate) struct RunState<'p, 't> {
    pub frames: Frames<'p>,
    fetched: Vec<Option<Tensor>>,
    /// The first Merges that had no live input, for the message of a dead fetch.
    dead_merges: Vec<&'p str>,
    tracer: Option<&'t mut Tracer>,
    /// Traced runs: the buffers of the plan's `Const` values, which memory statistics
    /// leave out (held by the graph, not the run; otherwise an inter-op schedule that runs
    /// every `Const` first would report the weights as held by the run).
    constants: HashSet<usize>,
}

/// What a started task still has to do outside the state.
pub(crate) enum Work {
    /// Nothing: its outputs (`None`: dead) are known.
    Done(Vec<Option<Tensor>>),
    /// Its kernel, on the values delivered for each input (resolved by [`Work::run`]).
    Kernel(Vec<Option<Tensor>>),
}

/// When a task's kernel ran and on which thread (traced runs only).
pub(crate) struct Timing {
    pub start: Instant,
    pub end: Instant,
    pub thread: u32,
}

impl<'p, 't> RunState<'p, 't> {
    /// The state of a run of `plan` with `feeds` (in plan feed order) delivered, in the
    /// buffers the plan's previous run left in `spare` when they are free.
    pub fn new(
        plan: &'p Plan,
        spare: &'p SpareSlot,
        feeds: Vec<Tensor>,
        tracer: Option<&'t mut Tracer>,
    ) -> RunState<'p, 't> {
        let mut fetched: Vec<Option<Tensor>> = vec![None; plan.fetches.len()];
        for (slot, f) in fetched.iter_mut().zip(&plan.fetches) {
            if let Fetch::Feed(i) = f {
                *slot = Some(feeds[*i].clone());
            }
        }
        let constants = match tracer {
            Some(_) => plan
                .items
                .iter()
                .filter(|it| it.node.op_type == "Const")
                .filter_map(|it| it.node.attr_tensor("value").ok().map(buffer_address))
                .collect(),
            None => HashSet::new(),
        };
        let mut frames = Frames::new(plan, spare);
        frames.start(feeds);
        RunState { frames, fetched, dead_merges: Vec::new(), tracer, constants }
    }

    /// True when the run records step statistics.
    pub fn traced(&self) -> bool {
        self.tracer.is_some()
    }

    /// Takes `task`'s inputs out of its iteration; computes it when it is dead or a
    /// control-flow op. Errors: a `Switch` predicate that is not a bool scalar; an
    /// internal inconsistency.
    pub fn start(&mut self, plan: &'p Plan, task: &Task) -> Result<Work> {
        let item = &plan.items[task.item];
        if task.dead
            && item.kind == Kind::Merge
            && self.dead_merges.len() < 3
            && !self.dead_merges.contains(&&*item.node.name)
        {
            self.dead_merges.push(&item.node.name);
        }
        let start = item.input_start;
        let slots = &mut self.frames.iteration(task.frame, task.iter).inputs[start..start + item.inputs.len()];
        if task.dead {
            slots.iter_mut().for_each(|s| *s = None);
            return Ok(Work::Done(vec![None; item.node.outputs.len()]));
        }
        Ok(Work::Done(match item.kind {
            Kind::Op | Kind::ControlTrigger => return Ok(Work::Kernel(slots.iter_mut().map(Option::take).collect())),
            Kind::Switch => {
                let data = input(plan, item, 0, slots[0].take())?;
                let pred = input(plan, item, 1, slots[1].take())?;
                let port = switch_port(&pred).map_err(|e| e.context(format!("Switch '{}'", item.node.name)))?;
                let mut out = vec![None, None];
                out[port] = Some(data);
                out
            }
            Kind::Merge => {
                let index = slots.iter().position(Option::is_some).ok_or_else(|| {
                    Error::internal(format!("Merge '{}' is live but has no live input", item.node.name))
                })?;
                let value = slots[index].take();
                slots.iter_mut().for_each(|s| *s = None);
                vec![value, Some(Tensor::scalar(index as i32))]
            }
            Kind::Enter { .. } | Kind::Exit | Kind::NextIteration | Kind::Forward => {
                vec![Some(input(plan, item, 0, slots[0].take())?)]
            }
        }))
    }

    /// Records `task`'s fetched outputs, delivers its `outputs` and, when traced, records
    /// the node with `timing`. Errors: `Internal` "Retval[i] has already been set" for a
    /// fetched output inside a loop that is live in a second iteration.
    pub fn finish(
        &mut self,
        plan: &Plan,
        task: &Task,
        outputs: Vec<Option<Tensor>>,
        timing: Option<Timing>,
    ) -> Result<()> {
        let item = &plan.items[task.item];
        // a traced node's outputs as they were computed (propagating moves them on)
        let traced = match (&self.tracer, task.dead) {
            (Some(_), false) => Some(outputs.clone()),
            _ => None,
        };
        for &(port, fi) in &item.fetches {
            if let Some(t) = &outputs[port] {
                if self.fetched[fi].replace(t.clone()).is_some() {
                    return Err(Error::internal(format!(
                        "Retval[{fi}] has already been set. {}:{port} is inside a while loop and live in more than one iteration; fetch the loop's Exit instead",
                        item.node.name
                    )));
                }
            }
        }
        self.frames.propagate(task, outputs);
        if let (Some(tracer), Some(outputs), Some(t)) = (self.tracer.as_deref_mut(), traced, timing) {
            let live = distinct_bytes(self.frames.values().chain(self.fetched.iter().flatten()), &self.constants);
            let times = NodeTimes { op_start: t.start, op_end: t.end, all_end: Instant::now(), thread_id: t.thread };
            tracer.record(&item.node, &times, &outputs, live);
        }
        Ok(())
    }

    /// The fetched values, in fetch order. Errors: `InvalidArgument` "Retval[i] does not
    /// have value" for a fetch that is dead in this run; `FailedPrecondition` for a
    /// fetched variable that is not initialized.
    pub fn into_fetches(self, plan: &Plan) -> Result<Vec<Tensor>> {
        let RunState { frames, fetched, dead_merges, .. } = self;
        drop(frames);
        // collected in place: the returned vector is `fetched`'s buffer
        fetched
            .into_iter()
            .zip(&plan.fetches)
            .enumerate()
            .map(|(i, (value, f))| match (f, value) {
                (Fetch::Var(slot, name), _) | (Fetch::OutputVar(slot, name), Some(_)) => read_var(slot, name),
                (_, Some(t)) => Ok(t),
                (_, None) => Err(not_fetchable(plan, i, &dead_merges)),
            })
            .collect()
    }
}

impl Work {
    /// The task's outputs (`None`: dead): its kernel's when it has one to run.
    /// Errors: the kernel's, prefixed with the op; reading an uninitialized variable.
    pub fn run(self, plan: &Plan, item: &Item, step: &StepResources, pool: &ThreadPool) -> Result<Vec<Option<Tensor>>> {
        match self {
            Work::Done(outputs) => Ok(outputs),
            Work::Kernel(delivered) => {
                // collected in place: the kernel's inputs are `delivered`'s buffer
                let inputs =
                    delivered.into_iter().enumerate().map(|(i, v)| input(plan, item, i, v)).collect::<Result<_>>()?;
                compute(item, inputs, step, pool)
            }
        }
    }
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

/// The value of `item`'s data input `i`, whose delivered value (if any) is `delivered`.
fn input(plan: &Plan, item: &Item, i: usize, delivered: Option<Tensor>) -> Result<Tensor> {
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
        const_inputs: item.const_inputs,
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
