//! Runs a [`Plan`]: straight-line execution of its steps in order.

use super::plan::{Plan, Source};
use crate::error::{Error, Result};
use crate::ops::{uninitialized, KernelCtx};
use crate::tensor::Tensor;

fn read(values: &[Option<Tensor>], src: &Source) -> Result<Tensor> {
    match src {
        Source::Slot(i) => values[*i].clone().ok_or_else(|| Error::internal(format!("value slot {i} is empty"))),
        Source::Var(slot, name) => {
            slot.read().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(|| uninitialized(name))
        }
    }
}

/// Runs `plan` with `feeds` (already validated, in plan feed order); returns the fetches.
pub(crate) fn execute(plan: &Plan, feeds: Vec<Tensor>) -> Result<Vec<Tensor>> {
    let _ftz = super::denormal::FlushDenormals::new();
    let mut values: Vec<Option<Tensor>> = vec![None; plan.num_slots];
    for (slot, t) in plan.feed_slots.iter().zip(feeds) {
        values[*slot] = Some(t);
    }
    for step in &plan.steps {
        let mut inputs = Vec::with_capacity(step.inputs.len());
        for (i, src) in step.inputs.iter().enumerate() {
            if step.vars[i].is_some() {
                // a reference input: the kernel works on the buffer itself
                inputs.push(Tensor::zeros(crate::DType::Float, &[0]));
            } else {
                inputs.push(read(&values, src).map_err(|e| e.context(format!("input {i} of '{}'", step.node.name)))?);
            }
        }
        for &slot in &step.release {
            values[slot] = None;
        }
        let mut ctx = KernelCtx {
            node_name: &step.node.name,
            op_type: step.node.op_type,
            inputs,
            vars: &step.vars,
            rng: step.rng.as_deref(),
        };
        let outs = step.kernel.compute(&mut ctx).map_err(|e| {
            if names_op(&e.message, &step.node.name) {
                e
            } else {
                e.context(format!("{} '{}'", step.node.op_type, step.node.name))
            }
        })?;
        if outs.len() != step.node.outputs.len() {
            return Err(Error::internal(format!(
                "kernel of '{}' ({}) returned {} outputs, expected {}",
                step.node.name,
                step.node.op_type,
                outs.len(),
                step.node.outputs.len()
            )));
        }
        for (i, t) in outs.into_iter().enumerate() {
            values[step.out_base + i] = Some(t);
        }
    }
    plan.fetches.iter().map(|f| read(&values, f)).collect()
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
