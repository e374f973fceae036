//! `tf.cond` as TensorFlow 1 builds it (`cond_v1`, a `CondContext`): a predicate Switch
//! with its pivots, each branch's ops under the cond's name scope, every tensor a branch
//! takes from outside switched on the predicate, and a Merge per output.

use super::control_flow::{merge, ref_switch, switch};
use super::flow_context::{self, FlowContext};
use crate::error::{Error, Result};
use crate::graph::{Operation, Output, Scope};
use crate::tensor::DType;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

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
    let on_true = Branch::new(&cs, &pred_id, &switch_t, 1).build(true_fn)?;
    let on_false = Branch::new(&cs, &pred_id, &switch_f, 0).build(false_fn)?;
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

/// One branch of a cond (TensorFlow's `CondContext`): its scope, the predicate, its
/// pivot, the Switch port it takes, the first op id made in it and its captures.
struct Branch {
    scope: Scope,
    pred_id: Output,
    pivot: Output,
    port: usize,
    start: Cell<usize>,
    outer: Option<Rc<dyn FlowContext>>,
    captured: RefCell<HashMap<(usize, usize), Output>>,
}

impl Branch {
    fn new(scope: &Scope, pred_id: &Output, pivot: &Output, port: usize) -> Rc<Branch> {
        Rc::new(Branch {
            scope: scope.clone(),
            pred_id: pred_id.clone(),
            pivot: pivot.clone(),
            port,
            start: Cell::new(usize::MAX),
            outer: flow_context::enclosing(scope.graph()),
            captured: RefCell::new(HashMap::new()),
        })
    }

    fn inside(&self, id: usize) -> bool {
        id >= self.start.get() || id == self.pivot.op || id == self.pred_id.op
    }

    /// Builds the branch with `f`, then switches what its ops read from outside.
    fn build(self: Rc<Self>, f: impl FnOnce(&Scope) -> Result<Vec<Output>>) -> Result<Vec<Output>> {
        let g = self.scope.graph().clone();
        let start = g.num_ops();
        self.start.set(start);
        let me = self.clone();
        let results = flow_context::within(self.clone(), move || -> Result<Vec<Output>> {
            let results = f(&me.scope)?;
            let end = g.num_ops();
            for id in start..end {
                if flow_context::handled(id) {
                    continue;
                }
                let node = g.node(id);
                let op = Operation { graph: g.clone(), id };
                for (i, &(src, index)) in node.inputs.iter().enumerate() {
                    if me.inside(src) {
                        continue;
                    }
                    let x = Output { graph: g.clone(), op: src, index };
                    let name_scope = g.scope().name_scope(&format!("{}/", node.name));
                    let sw = me.add_value(&name_scope, &x)?;
                    g.update_input(&op, i, &sw)?;
                }
                if node.inputs.is_empty() && !node.control_inputs.iter().any(|&c| me.inside(c)) {
                    g.write().add_control_input(id, me.pivot.op);
                }
            }
            let scope = me.scope.clone();
            results.into_iter().map(|r| if me.inside(r.op) { Ok(r) } else { me.add_value(&scope, &r) }).collect()
        })?;
        flow_context::mark_handled(start..self.scope.graph().num_ops());
        Ok(results)
    }
}

impl FlowContext for Branch {
    fn graph(&self) -> &crate::graph::Graph {
        self.scope.graph()
    }

    /// The branch's Switch of outside tensor `x` (made in scope `s` on first use).
    fn add_value(&self, s: &Scope, x: &Output) -> Result<Output> {
        if self.inside(x.op) {
            return Ok(x.clone());
        }
        if let Some(sw) = self.captured.borrow().get(&x.key()) {
            return Ok(sw.clone());
        }
        let outer = match &self.outer {
            Some(o) => o.add_value(s, x)?,
            None => x.clone(),
        };
        // a capture is made outside any control dependency, as TensorFlow's
        let s = s.graph().scope().name_scope(&format!("{}/", s.prefix()));
        let (f, t) = if outer.op().op_type() == "VariableV2" {
            ref_switch(&s.named("Switch"), &outer, &self.pred_id)?
        } else {
            switch(&s, &outer, &self.pred_id)?
        };
        let sw = if self.port == 1 { t } else { f };
        self.captured.borrow_mut().insert(x.key(), sw.clone());
        Ok(sw)
    }

    fn while_frames(&self) -> Vec<String> {
        self.outer.as_ref().map(|o| o.while_frames()).unwrap_or_default()
    }
}
