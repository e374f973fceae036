//! TensorFlow's `control_flow_state.GradLoopState` for one forward while loop: the
//! forward iteration counter (`gradients/f_count`), the gradient while loop and its
//! counter (`gradients/b_count`), the forward values the gradient reads (pushed on stacks
//! in the forward loop, popped in the gradient loop), and the sums of loop invariants'
//! gradients. For a loop nested in another loop on the gradient's path, the state has the
//! enclosing loop's state as its parent: the inner forward counter starts after the outer
//! counter's `Add`, the inner trip count of every outer iteration is pushed in the outer
//! loop and popped in the outer gradient loop, the inner gradient loop runs inside the
//! outer one, and what the inner gradient reads from the outer loop comes through the
//! outer state.
//!
//! Ordering (so any schedule of parallel iterations gives the same stacks): a push of
//! forward iteration i runs after the forward counter's `Add` of iteration i and before
//! its `NextIteration` (TensorFlow's `forward_index`); a pop of gradient iteration i runs
//! after the gradient counter's `Sub` of iteration i (the gradient loop's body pivot) and
//! before a `ControlTrigger` `b_sync` that the gradient counter's `NextIteration` waits for
//! (TensorFlow's `grad_sync`); an inner gradient loop's final count (`b_count` Exit) is
//! also an input of the outer `b_sync`.

use super::cond_contexts::{Branch, CondContexts};
use super::while_loops::Loop;
use crate::error::Result;
use crate::graph::{Graph, Node, Operation, Output, Scope};
use crate::ops;
use crate::tensor::{DType, Tensor};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

/// What a loop's gradient needs from the `gradients` call.
pub(crate) struct GradCall<'a> {
    pub root: &'a Scope,
    pub nodes: &'a [Arc<Node>],
    /// `from_x[id]`: op `id` is reached from the xs.
    pub from_x: &'a [bool],
    /// Every loop of the graph, outer loops first.
    pub loops: &'a [Loop],
}

pub(crate) fn out(g: &Graph, op: usize, index: usize) -> Output {
    Output { graph: g.clone(), op, index }
}

pub(crate) fn named_merge(s: &Scope, inputs: &[Output], name: &str) -> Result<Output> {
    s.op("Merge", name).inputs(inputs).attr("T", inputs[0].dtype()).attr("N", inputs.len() as i64).build_output()
}

/// TensorFlow's `GradLoopState` for forward loop `l`.
pub(crate) struct GradState<'a> {
    call: &'a GradCall<'a>,
    pub l: &'a Loop,
    /// The state of the loop `l` is nested in (on the gradient's path).
    parent: Option<&'a GradState<'a>>,
    graph: Graph,
    /// The gradient loop's frame name.
    pub frame: String,
    /// The gradient loop's LoopCond.
    pub pivot: Output,
    /// The gradient loop's body pivot (the counter's `Sub`).
    body_pivot: usize,
    /// The forward counter's NextIteration (stack pushes come before it).
    forward_index: usize,
    /// The forward counter's `Add` (stack pushes come after it): with `forward_index`
    /// it orders the pushes of iteration i before those of iteration i + 1 however the
    /// iterations overlap (TensorFlow's `forward_index.op.inputs[0].op`).
    forward_add: usize,
    /// The gradient counter's NextIteration (`b_sync` comes before it).
    grad_index: usize,
    /// Ops made from here on are inside the gradient loop, unless marked outside.
    start: usize,
    outside: RefCell<Vec<bool>>,
    captured: RefCell<HashMap<(usize, usize), Output>>,
    history: RefCell<HashMap<(usize, usize), Output>>,
    /// The cond predicates' values of each iteration, popped in the gradient loop (dead
    /// when the predicate's own branch did not run): the guards of the pops in branches.
    preds: RefCell<HashMap<(usize, usize), Output>>,
    sync: Cell<Option<usize>>,
    /// The conds inside the forward loop's body.
    conds: CondContexts,
    /// The `ControlTrigger` `f_sync` the forward counter's NextIteration waits for (the
    /// pushes inside a cond's branch come before it), made on first use.
    forward_sync: Cell<Option<usize>>,
}

impl<'a> GradState<'a> {
    /// The forward counter and the gradient loop with its counter (TensorFlow's
    /// `AddForwardLoopCounter` and `AddBackpropLoopCounter`), inside `parent`'s loops
    /// when `l` is nested.
    pub fn new(call: &'a GradCall<'a>, l: &'a Loop, parent: Option<&'a GradState<'a>>) -> Result<GradState<'a>> {
        let root = call.root;
        let g = root.graph().clone();
        let pi = l.parallel_iterations;
        let fwd_pivot = out(&g, l.pivot, 0);
        let body_pivot_fwd = l.vars.first().and_then(|v| v.identity).unwrap_or(l.vars[0].switch);
        // forward counter (for a nested loop: started in the outer loop's iteration, after
        // its counter's Add, so the inner pushes of outer iteration i come first)
        let n = ops::constant(&root.named("f_count"), Tensor::scalar(0i32))?;
        if let Some(p) = parent {
            g.write().add_control_input(n.op, p.forward_add);
        }
        let enter_n = ops::enter(&root.named("f_count"), &n, &l.frame, false, pi)?;
        let merge_n = ops::merge(root, &[enter_n.clone(), enter_n])?.0;
        let (sw_f, sw_t) = ops::switch(root, &merge_n, &fwd_pivot)?;
        let (add_s, add_inner) = root.op_scope("Add");
        let one = ops::constant(&add_inner.named("y"), Tensor::scalar(1i32))?;
        g.write().add_control_input(one.op, body_pivot_fwd);
        let f_add = add_s.op("AddV2", "Add").input(&sw_t).input(&one).attr("T", DType::Int32).build_output()?;
        let next_n = ops::next_iteration(root, &f_add)?;
        g.update_input(&merge_n.op(), 1, &next_n)?;
        let total = ops::exit(&root.named("f_count"), &sw_f)?;
        // a nested loop's trip count of each outer iteration, through the outer stacks
        let count = match parent {
            None => total,
            Some(p) => p.accumulate_forward(&g.scope().name_scope(&format!("{}/", total.op().name())), &total)?,
        };
        // the gradient loop and its counter
        let frame = root.unique_op_name(&l.frame);
        let start = g.num_ops();
        let one = ops::constant(&root.named("b_count"), Tensor::scalar(1i32))?;
        if let Some(p) = parent {
            g.write().add_control_input(one.op, p.body_pivot);
        }
        let enter_c = ops::enter(&root.named("b_count"), &count, &frame, false, pi)?;
        let merge_c = ops::merge(root, &[enter_c.clone(), enter_c])?.0;
        let (ge_s, ge_inner) = root.op_scope("GreaterEqual");
        let one_in = ops::enter(&ge_inner, &one, &frame, true, pi)?;
        let pred = ops::greater_equal(&ge_s, &merge_c, &one_in)?;
        let pivot = ops::loop_cond(&root.named("b_count"), &pred)?;
        let (c_f, c_t) = ops::switch(root, &merge_c, &pivot)?;
        let index = ops::sub(&root.named("Sub"), &c_t, &one_in)?;
        let next_c = ops::next_iteration(root, &index)?;
        g.update_input(&merge_c.op(), 1, &next_c)?;
        let final_zero = ops::exit(&root.named("b_count"), &c_f)?;
        if let Some(p) = parent {
            // the outer gradient iteration ends after this inner gradient loop
            let sync = p.grad_sync(root)?;
            g.write().add_control_input(sync, final_zero.op);
        }
        let mut outside = vec![false; g.num_ops()];
        outside[one.op] = true;
        outside[final_zero.op] = true;
        Ok(GradState {
            call,
            l,
            parent,
            graph: g,
            frame,
            pivot,
            body_pivot: index.op,
            forward_index: next_n.op,
            forward_add: f_add.op,
            grad_index: next_c.op,
            start,
            outside: RefCell::new(outside),
            captured: Default::default(),
            history: Default::default(),
            preds: Default::default(),
            sync: Default::default(),
            conds: CondContexts::new(call.nodes, l, call.loops)?,
            forward_sync: Default::default(),
        })
    }

    fn mark_outside(&self, ids: impl IntoIterator<Item = usize>) {
        let mut f = self.outside.borrow_mut();
        for id in ids {
            if f.len() <= id {
                f.resize(id + 1, false);
            }
            f[id] = true;
        }
    }

    /// Whether op `id` runs in this gradient loop's frame.
    pub fn inside(&self, id: usize) -> bool {
        id >= self.start && !self.outside.borrow().get(id).copied().unwrap_or(false)
    }

    /// Whether op `id` is a value of the forward loop (its Exits excepted).
    fn forward_member(&self, id: usize) -> bool {
        self.l.member.get(id).copied().unwrap_or(false) && !self.l.is_exit(id)
    }

    /// The `ControlTrigger` the gradient counter's NextIteration waits for (TensorFlow's
    /// `grad_sync`), made on first use in name scope `s`.
    fn grad_sync(&self, s: &Scope) -> Result<usize> {
        if let Some(t) = self.sync.get() {
            return Ok(t);
        }
        let mut s = s.clone();
        s.control_deps.clear();
        let t = ops::control_trigger(&s.named("b_sync"))?;
        self.graph.write().add_control_input(self.grad_index, t.id());
        self.sync.set(Some(t.id()));
        Ok(t.id())
    }

    /// A gradient made in the gradient loop, or from outside it, usable inside.
    pub fn bring_in(&self, x: &Output) -> Result<Output> {
        if self.inside(x.op) {
            return Ok(x.clone());
        }
        let s = self.graph.scope().name_scope(&format!("{}/", x.op().name()));
        self.add_value(&s, x)
    }

    /// What the gradient loop's `_AddOpInternal` does for the ops a gradient function
    /// made (`ids`): inputs from outside are brought in, and an op without inputs, or
    /// reading only loop invariants, waits for the body pivot.
    pub fn rewire(&self, ids: std::ops::Range<usize>) -> Result<()> {
        let g = &self.graph;
        for id in ids {
            if !self.inside(id) {
                continue;
            }
            let node = g.node(id);
            let op = Operation { graph: g.clone(), id };
            for (i, &(src, index)) in node.inputs.iter().enumerate() {
                if self.inside(src) {
                    continue;
                }
                let x = out(g, src, index);
                let ns = g.scope().name_scope(&format!("{}/", node.name));
                let v = self.add_value(&ns, &x)?;
                g.update_input(&op, i, &v)?;
            }
            let node = g.node(id);
            let free = if node.inputs.is_empty() {
                !node.control_inputs.iter().any(|&c| self.inside(c))
            } else {
                node.control_inputs.is_empty() && node.inputs.iter().all(|&(src, _)| is_constant_enter(g, src))
            };
            if free {
                g.write().add_control_input(id, self.body_pivot);
            }
        }
        Ok(())
    }

    /// `x` (from outside the gradient loop) inside it: a forward loop value through a
    /// stack (TensorFlow's `GetRealValue`), anything else through a constant Enter (of
    /// the value the enclosing gradient loop has for it, when nested).
    pub fn add_value(&self, s: &Scope, x: &Output) -> Result<Output> {
        if let Some(v) = self.captured.borrow().get(&x.key()) {
            return Ok(v.clone());
        }
        let v = if self.forward_member(x.op) {
            self.real_value(s, x)?
        } else {
            let outer = match self.parent {
                Some(p) if !p.inside(x.op) => {
                    let before = self.graph.num_ops();
                    let v = p.add_value(s, x)?;
                    self.mark_outside(before..self.graph.num_ops());
                    v
                }
                _ => x.clone(),
            };
            let mut s = s.clone();
            s.control_deps.clear();
            ops::enter(&s, &outer, &self.frame, true, self.l.parallel_iterations)?
        };
        self.captured.borrow_mut().insert(x.key(), v.clone());
        Ok(v)
    }

    /// TensorFlow's `GetRealValue` for forward value `x`.
    fn real_value(&self, s: &Scope, x: &Output) -> Result<Output> {
        if let Some(v) = self.history.borrow().get(&x.key()) {
            return Ok(v.clone());
        }
        let g = &self.graph;
        let nodes = self.call.nodes;
        // a loop invariant (through Identities and Switches): its outside value
        let mut id = x.op;
        while matches!(nodes[id].op_type, "Identity" | "RefIdentity" | "Switch" | "RefSwitch") {
            id = nodes[id].inputs[0].0;
        }
        let v = if self.l.invariants.contains(&id) {
            let (src, idx) = nodes[id].inputs[0];
            self.add_value(s, &out(g, src, idx))?
        } else if nodes[x.op].op_type == "Const" {
            let c = ops::constant(s, nodes[x.op].attr_tensor("value")?.clone())?;
            g.write().add_control_input(c.op, self.body_pivot);
            c
        } else {
            self.accumulate_forward(s, x)?
        };
        self.history.borrow_mut().insert(x.key(), v.clone());
        Ok(v)
    }

    /// `x` (made outside every loop) in the forward loop's frame: constant Enters through
    /// the enclosing forward loops first (TensorFlow's `forward_context.AddValue`).
    fn forward_enter(&self, s: &Scope, x: &Output) -> Result<Output> {
        let x = match self.parent {
            Some(p) => p.forward_enter(s, x)?,
            None => x.clone(),
        };
        let e = ops::enter(s, &x, &self.l.frame, true, self.l.parallel_iterations)?;
        self.mark_outside([e.op]);
        Ok(e)
    }

    /// `x` (made outside every loop) in the gradient loop's frame, through the enclosing
    /// gradient loops first.
    fn grad_enter(&self, s: &Scope, x: &Output) -> Result<Output> {
        let x = match self.parent {
            Some(p) => {
                let before = self.graph.num_ops();
                let v = p.grad_enter(s, x)?;
                self.mark_outside(before..self.graph.num_ops());
                v
            }
            None => x.clone(),
        };
        ops::enter(s, &x, &self.frame, true, self.l.parallel_iterations)
    }

    /// TensorFlow's `forward_sync`: the `ControlTrigger` `f_sync` of the forward loop that
    /// its counter's NextIteration waits for, made on first use in name scope `s`.
    fn forward_sync(&self, s: &Scope) -> Result<usize> {
        if let Some(t) = self.forward_sync.get() {
            return Ok(t);
        }
        let mut s = s.clone();
        s.control_deps.clear();
        let t = ops::control_trigger(&s.named("f_sync"))?;
        self.graph.write().add_control_input(self.forward_index, t.id());
        self.mark_outside([t.id()]);
        self.forward_sync.set(Some(t.id()));
        Ok(t.id())
    }

    /// TensorFlow's `AddForwardAccumulator` and `AddBackpropAccumulatedValue`: `x` (a
    /// value of the forward loop's frame) pushed on a stack each forward iteration,
    /// popped each gradient iteration; the stack is made outside every loop. A value
    /// inside a cond's branch is pushed only when the branch runs (the push reads it;
    /// it comes before `f_sync`), and popped only when the branch ran: the pop reads the
    /// stack through a `Switch` on the predicate's value of that iteration (itself popped).
    pub fn accumulate_forward(&self, s: &Scope, x: &Output) -> Result<Output> {
        self.accumulate_forward_in(s, x, self.conds.innermost(x.op, x.index))
    }

    /// [`Self::accumulate_forward`] for `x` in cond branch `branch` (innermost) of the
    /// forward loop, or in none.
    fn accumulate_forward_in(&self, s: &Scope, x: &Output, branch: Option<Branch>) -> Result<Output> {
        let g = &self.graph;
        let pi = self.l.parallel_iterations;
        let root = g.scope().name_scope(&format!("{}/", s.prefix()));
        let before = g.num_ops();
        let max_size = ops::constant(&root, Tensor::scalar(-1i32))?;
        let acc = ops::stack_v2(&root.named("f_acc"), &max_size, x.dtype(), "")?;
        let enter_acc = self.forward_enter(&root, &acc)?;
        let push = ops::stack_push_v2(&root, &enter_acc, x)?;
        // iteration i's push runs after its counter's Add and before its NextIteration
        // (through f_sync for a push in a branch, which may not run), so the pushes of
        // parallel iterations reach the stack in iteration order
        let order_before = match branch {
            None => self.forward_index,
            Some(_) => self.forward_sync(&root)?,
        };
        {
            let mut w = g.write();
            w.add_control_input(order_before, push.op);
            w.add_control_input(push.op, self.forward_add);
        }
        self.mark_outside(before..g.num_ops());
        // the pop's name first, then its Enter under it (TensorFlow makes the pop first)
        let pop_name = root.unique_op_name("StackPopV2");
        let ps = g.scope().name_scope(&format!("{pop_name}/"));
        let mut acc_in = self.grad_enter(&ps, &acc)?;
        if let Some(b) = branch {
            let pred = self.branch_pred(&root, b.pred)?;
            let mut ss = root.clone();
            ss.control_deps.clear();
            let (f, t) = ops::switch(&ss, &acc_in, &pred)?;
            acc_in = if b.side == 1 { t } else { f };
        }
        let pop = ops::stack_pop_v2(&root.named(&format!("{pop_name}/")), &acc_in, x.dtype())?;
        let shape = x.shape();
        {
            let mut w = g.write();
            Arc::make_mut(&mut w.nodes[pop.op]).outputs[0].1 = shape;
            w.add_control_input(pop.op, self.body_pivot);
        }
        if pi > 1 {
            let sync = self.grad_sync(&root)?;
            g.write().add_control_input(sync, pop.op);
        }
        Ok(pop)
    }

    /// The value of cond predicate `pred` (a forward loop value, as `Branch::pred`) in
    /// the gradient loop's iteration: always pushed and popped, never a loop invariant's
    /// or a constant's copy as [`Self::add_value`] gives, so that it is dead when the
    /// predicate's own branch did not run in that iteration (TensorFlow's `_MergeGrad`
    /// accumulates a cond's `pred` the same way). A pop guarded by it then runs exactly
    /// when its push did, however deep the conds nest.
    fn branch_pred(&self, s: &Scope, pred: (usize, usize)) -> Result<Output> {
        if let Some(v) = self.preds.borrow().get(&pred) {
            return Ok(v.clone());
        }
        let x = out(&self.graph, pred.0, pred.1);
        let v = if self.forward_member(pred.0) { self.accumulate_forward(s, &x)? } else { self.add_value(s, &x)? };
        self.preds.borrow_mut().insert(pred, v.clone());
        Ok(v)
    }

    /// The predicate of cond `Switch` `id` of the forward loop (none for other ops).
    pub fn cond_switch_pred(&self, id: usize) -> Option<(usize, usize)> {
        self.conds.switch_pred(id)
    }

    /// The zero gradient of output `index` of cond `Switch` `id` (one no gradient reached)
    /// in the gradient loop, live exactly in the iterations where that output was
    /// (TensorFlow's `_ControlFlowState.ZerosLike` for a switch): zeros of the output's
    /// static shape through a `Switch` on the popped predicate, or, with the shape
    /// unknown, zeros of its shape pushed in that branch. Made in name scope `s`.
    pub fn switch_zeros(&self, s: &Scope, id: usize, index: usize) -> Result<Output> {
        let g = &self.graph;
        let (dtype, shape) = self.call.nodes[id].outputs[index].clone();
        let Some(pred) = self.conds.switch_pred(id) else {
            return Err(crate::error::Error::internal(format!(
                "gradients: '{}' is no cond Switch of while loop '{}'",
                self.call.nodes[id].name, self.l.frame
            )));
        };
        let mut s = s.clone();
        s.control_deps.clear();
        match shape.to_vec() {
            Some(d) => {
                let zero = ops::constant(&s, Tensor::zeros(dtype, &d))?;
                g.write().add_control_input(zero.op, self.body_pivot);
                let pred = self.branch_pred(&s, pred)?;
                let (f, t) = ops::switch(&s, &zero, &pred)?;
                Ok(if index == 1 { t } else { f })
            }
            None => {
                let before = g.num_ops();
                let dims = ops::shape(&s, &out(g, id, index))?;
                self.mark_outside(before..g.num_ops());
                let dims = self.accumulate_forward_in(&s, &dims, Some(Branch { pred, side: index }))?;
                let zero = ops::constant(&s, Tensor::from_f64(dtype, &[], &[0.0])?)?;
                g.write().add_control_input(zero.op, self.body_pivot);
                ops::fill(&s, &dims, &zero)
            }
        }
    }

    /// TensorFlow's `AddBackpropAccumulator`: the sum over the iterations of loop
    /// invariant `enter`'s gradient `grad`, as a loop variable of the gradient loop
    /// (its zero made in the enclosing gradient loop when nested).
    pub fn accumulate(&self, enter: &Node, grad: &Output) -> Result<Output> {
        let g = &self.graph;
        let pi = self.l.parallel_iterations;
        let s = self.call.root.name_scope(&format!("{}_grad", enter.name));
        let shape = grad.shape();
        let before = g.num_ops();
        let acc = match shape.to_vec() {
            Some(d) => {
                let acc = ops::constant(&s.named("b_acc"), Tensor::zeros(grad.dtype(), &d))?;
                if let Some(p) = self.parent {
                    g.write().add_control_input(acc.op, p.body_pivot);
                }
                acc
            }
            None => {
                let (src, idx) = enter.inputs[0];
                let value = out(g, src, idx);
                let dims =
                    if value.dtype() == DType::Resource { ops::shape(&s, grad)? } else { ops::shape(&s, &value)? };
                let zero = ops::constant(&s, Tensor::from_f64(grad.dtype(), &[], &[0.0])?)?;
                let dims = match self.parent {
                    None => dims,
                    Some(p) => {
                        g.write().add_control_input(zero.op, p.body_pivot);
                        if p.forward_member(src) {
                            p.accumulate_forward(&s, &dims)?
                        } else {
                            p.add_value(&s, &dims)?
                        }
                    }
                };
                ops::fill(&s, &dims, &zero)?
            }
        };
        self.mark_outside(before..g.num_ops());
        let enter_acc = ops::enter(&s.named("b_acc"), &acc, &self.frame, false, pi)?;
        let merge_acc = named_merge(&s, &[enter_acc.clone(), enter_acc], "b_acc")?;
        let (f, t) = ops::switch(&s, &merge_acc, &self.pivot)?;
        let add = s.op("AddV2", "Add").input(&t).input(grad).attr("T", grad.dtype()).build_output()?;
        let next = ops::next_iteration(&s, &add)?;
        g.update_input(&merge_acc.op(), 1, &next)?;
        let e = ops::exit(&s.named("b_acc"), &f)?;
        self.mark_outside([e.op]);
        Ok(e)
    }
}

fn is_constant_enter(g: &Graph, id: usize) -> bool {
    let n = g.node(id);
    matches!(n.op_type, "Enter" | "RefEnter") && n.attr_bool_or("is_constant", false).unwrap_or(false)
}
