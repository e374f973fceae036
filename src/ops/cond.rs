//! `tf.cond` as TensorFlow 1 builds it (`cond_v1`, a `CondContext`): a predicate Switch
//! with its pivots, each branch's ops under the cond's name scope, every tensor a branch
//! takes from outside switched on the predicate, and a Merge per output.

use super::control_flow::{merge, ref_switch, switch};
use crate::error::{Error, Result};
use crate::graph::{Operation, Output, Scope};
use crate::tensor::DType;
use std::collections::HashMap;

/// `tf.compat.v1.cond(pred, true_fn, false_fn)` in graph mode: runs only the branch `pred`
/// (a bool scalar) selects and returns its outputs. Names as TensorFlow's: under name scope
/// `cond` (`cond_1`, ...), `cond/Switch` (pred on itself), the pivots `cond/switch_t` and
/// `cond/switch_f`, `cond/pred_id`; `true_fn` then `false_fn` build their ops with the
/// given scope (`cond/mul`, ...); a tensor from outside that a branch op reads is replaced by
/// a Switch on `cond/pred_id` named after its first reader (`cond/mul/Switch`), once per
/// branch (a `RefSwitch` for a reference variable); ops without inputs wait for the branch's
/// pivot (control input `^cond/switch_t`); an output taken from outside is switched too
/// (`cond/Switch_1`); outputs are `cond/Merge`, `cond/Merge_1`, ... (false input first).
///
/// Errors: `InvalidArgument` when `pred` is not a bool scalar, or the branches return
/// different numbers or dtypes of tensors (naming both); a branch's own errors.
pub fn cond(
    s: &Scope,
    pred: &Output,
    true_fn: impl FnOnce(&Scope) -> Result<Vec<Output>>,
    false_fn: impl FnOnce(&Scope) -> Result<Vec<Output>>,
) -> Result<Vec<Output>> {
    if pred.dtype() != DType::Bool || pred.shape().rank().is_some_and(|r| r != 0) {
        return Err(Error::invalid_argument(format!(
            "cond: pred must be a bool scalar, but {} is {} {}",
            pred.name(),
            pred.dtype(),
            pred.shape()
        )));
    }
    let cs = s.name_scope("cond");
    let (f, t) = switch(&cs, pred, pred)?;
    let switch_t = super::identity(&cs.named("switch_t"), &t)?;
    let switch_f = super::identity(&cs.named("switch_f"), &f)?;
    let pred_id = super::identity(&cs.named("pred_id"), pred)?;
    let on_true = Branch { scope: &cs, pred_id: &pred_id, pivot: &switch_t, port: 1 }.build(true_fn)?;
    let on_false = Branch { scope: &cs, pred_id: &pred_id, pivot: &switch_f, port: 0 }.build(false_fn)?;
    if on_true.len() != on_false.len() {
        return Err(Error::invalid_argument(format!(
            "cond: true_fn and false_fn must return the same number of tensors, but true_fn returned {} and false_fn {}",
            on_true.len(),
            on_false.len()
        )));
    }
    let mut outputs = Vec::with_capacity(on_true.len());
    for (i, (t, f)) in on_true.iter().zip(&on_false).enumerate() {
        if t.dtype() != f.dtype() {
            return Err(Error::invalid_argument(format!(
                "cond: Outputs of true_fn and false_fn must have the same type(s): output {i} is {} ({}) in true_fn and {} ({}) in false_fn",
                t.dtype(),
                t.name(),
                f.dtype(),
                f.name()
            )));
        }
        outputs.push(merge(&cs, &[f.clone(), t.clone()])?.0);
    }
    Ok(outputs)
}

/// One branch of a cond: its scope, the predicate, its pivot and the Switch port it takes.
struct Branch<'a> {
    scope: &'a Scope,
    pred_id: &'a Output,
    pivot: &'a Output,
    port: usize,
}

impl Branch<'_> {
    /// Builds the branch with `f`, then switches what its ops read from outside.
    fn build(&self, f: impl FnOnce(&Scope) -> Result<Vec<Output>>) -> Result<Vec<Output>> {
        let g = self.scope.graph().clone();
        let start = g.num_ops();
        let results = f(self.scope)?;
        let end = g.num_ops();
        let inside = |id: usize| id >= start || id == self.pivot.op || id == self.pred_id.op;
        let mut captured: HashMap<(usize, usize), Output> = HashMap::new();
        for id in start..end {
            let node = g.node(id);
            let op = Operation { graph: g.clone(), id };
            for (i, &(src, index)) in node.inputs.iter().enumerate() {
                if inside(src) {
                    continue;
                }
                let x = Output { graph: g.clone(), op: src, index };
                let name_scope = g.scope().name_scope(&format!("{}/", node.name));
                let sw = self.capture(&name_scope, &x, &mut captured)?;
                g.update_input(&op, i, &sw)?;
            }
            if node.inputs.is_empty() && !node.control_inputs.iter().any(|&c| inside(c)) {
                g.write().add_control_input(id, self.pivot.op);
            }
        }
        results
            .into_iter()
            .map(|r| if inside(r.op) { Ok(r) } else { self.capture(self.scope, &r, &mut captured) })
            .collect()
    }

    /// The branch's Switch of outside tensor `x` (made in scope `s` on first use).
    fn capture(&self, s: &Scope, x: &Output, captured: &mut HashMap<(usize, usize), Output>) -> Result<Output> {
        if let Some(sw) = captured.get(&x.key()) {
            return Ok(sw.clone());
        }
        // a capture is made outside any control dependency, as TensorFlow's
        let s = s.graph().scope().name_scope(&format!("{}/", s.prefix()));
        let (f, t) = if x.op().op_type() == "VariableV2" {
            ref_switch(&s.named("Switch"), x, self.pred_id)?
        } else {
            switch(&s, x, self.pred_id)?
        };
        let sw = if self.port == 1 { t } else { f };
        captured.insert(x.key(), sw.clone());
        Ok(sw)
    }
}
