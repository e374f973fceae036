//! The gradient of a TF1 while loop, as TensorFlow's `control_flow_state.GradLoopState`
//! and `control_flow_grad` build it: a forward iteration counter (`gradients/f_count`),
//! a gradient while loop (frame `gradients/<loop>/while_context`) whose counter
//! (`gradients/b_count`) runs it down, the forward values its gradient ops read pushed on
//! stacks in the forward loop (`.../f_acc`, `StackPushV2`) and popped in the gradient loop
//! (`StackPopV2`), each loop variable's gradient going round the gradient loop
//! (`_grad/b_exit`, `_grad/b_switch`, a `Switch` on the gradient loop's pivot, a
//! `NextIteration` back edge, an `Exit` for the initial value's gradient), and each loop
//! invariant's gradient summed over the iterations (`_grad/b_acc`).

use super::while_loops::Loop;
use crate::error::{Error, Result};
use crate::graph::{traversal, Graph, Node, Operation, Output, Scope};
use crate::ops::{self, GradCtx};
use crate::tensor::{DType, Tensor};
use std::collections::HashMap;
use std::sync::Arc;

/// What [`loop_gradient`] needs from the `gradients` call.
pub(crate) struct GradCall<'a> {
    pub root: &'a Scope,
    pub nodes: &'a [Arc<Node>],
    /// `from_x[id]`: op `id` is reached from the xs.
    pub from_x: &'a [bool],
    /// Every loop of the graph.
    pub loops: &'a [Loop],
}

/// The gradient of loop `l` given its Exits' gradients (`exit_grads[(exit id, 0)]`):
/// the gradient of each input of the loop's Enters, as ((op id, output index), gradient).
/// Errors: `Unimplemented` for a loop nested in the loop on the gradient's path, an op
/// whose gradient fails.
pub(crate) fn loop_gradient(
    call: &GradCall,
    l: &Loop,
    exit_grads: &mut HashMap<(usize, usize), Vec<Output>>,
) -> Result<Vec<((usize, usize), Output)>> {
    let g = call.root.graph().clone();
    let nodes = call.nodes;
    let root = call.root;
    let mut grads: Vec<Option<Output>> = Vec::new();
    for v in &l.vars {
        let gs = v.exit.and_then(|e| exit_grads.remove(&(e, 0)));
        grads.push(match gs {
            None => None,
            Some(gs) => Some(sum(root, gs)?),
        });
    }
    if grads.iter().all(Option::is_none) {
        return Ok(vec![]);
    }
    // unused trainable exits get zeros (TensorFlow's ZerosLikeForExit)
    for (v, gr) in l.vars.iter().zip(grads.iter_mut()) {
        if let (None, Some(e)) = (&gr, v.exit) {
            if nodes[e].outputs[0].0.is_floating() {
                *gr = Some(ops::zeros_like(root, &out(&g, e, 0))?);
            }
        }
    }
    let st = GradState::new(call, l)?;
    // the loop variables' gradients enter the gradient loop
    let mut b_switch = vec![None; l.vars.len()];
    let mut pending: HashMap<(usize, usize), Vec<Output>> = HashMap::new();
    let mut result = Vec::new();
    for (k, v) in l.vars.iter().enumerate() {
        let (Some(gr), Some(exit)) = (&grads[k], v.exit) else { continue };
        let es = root.name_scope(&format!("{}_grad", nodes[exit].name));
        let b_exit = ops::enter(&es.named("b_exit"), gr, &st.frame, false, l.parallel_iterations)?;
        let ss = root.name_scope(&format!("{}_grad", nodes[v.switch].name));
        let m = named_merge(&ss, &[b_exit.clone(), b_exit], "b_switch")?;
        b_switch[k] = Some(m.clone());
        let ms = root.name_scope(&format!("{}_grad", nodes[v.merge].name));
        let (f, t) = ops::switch(&ms, &m, &st.pivot)?;
        let ens = root.name_scope(&format!("{}_grad", nodes[v.enter].name));
        let initial = ops::exit(&ens, &f)?;
        result.push((nodes[v.enter].inputs[0], initial));
        pending.entry(nodes[v.next].inputs[0]).or_default().push(t);
    }
    // the body, backwards from the NextIterations' inputs to the Identities and invariants
    let inner = |id: usize| {
        call.loops
            .iter()
            .any(|o| !std::ptr::eq(o, l) && o.member[id] && o.vars.first().is_some_and(|v| l.member[v.enter]))
    };
    let is_leaf = |id: usize| {
        l.invariants.contains(&id) || l.vars.iter().any(|v| v.identity == Some(id) || v.switch == id || v.merge == id)
    };
    let roots: Vec<usize> = l.vars.iter().map(|v| nodes[v.next].inputs[0].0).filter(|&r| l.member[r]).collect();
    let order = traversal::post_order(
        nodes.len(),
        roots.iter().rev().copied(),
        |id, next| {
            if is_leaf(id) || inner(id) {
                return;
            }
            next.extend(
                nodes[id]
                    .inputs
                    .iter()
                    .rev()
                    .map(|&(s, _)| s)
                    .filter(|&s| l.member[s] && call.from_x[s] && !l.is_exit(s)),
            )
        },
        |id| Error::internal(format!("gradients: a cycle through '{}' inside a while loop body", nodes[id].name)),
    )?;
    for &id in order.iter().rev() {
        let node = nodes[id].clone();
        if l.invariants.contains(&id) {
            if let Some(gs) = pending.remove(&(id, 0)) {
                let gr = sum(root, gs)?;
                let acc = st.accumulate(&node, &gr)?;
                result.push((node.inputs[0], acc));
            }
            continue;
        }
        if let Some(k) = l.vars.iter().position(|v| v.identity == Some(id)) {
            if let (Some(gs), Some(m)) = (pending.remove(&(id, 0)), &b_switch[k]) {
                let gr = sum(root, gs)?;
                let ss = root.name_scope(&format!("{}_grad", nodes[l.vars[k].switch].name));
                let next = ops::next_iteration(&ss, &gr)?;
                g.update_input(&m.op(), 1, &next)?;
            }
            continue;
        }
        if is_leaf(id) {
            continue;
        }
        if inner(id) || matches!(node.op_type, "Enter" | "RefEnter" | "Exit" | "RefExit") {
            return Err(Error::unimplemented(format!(
                "gradients through a while loop nested in while loop '{}' are not implemented: the path passes through {} '{}'",
                l.frame, node.op_type, node.name
            )));
        }
        let n_out = node.outputs.len();
        let mut og = Vec::with_capacity(n_out);
        for i in 0..n_out {
            og.push(match pending.remove(&(id, i)) {
                None => None,
                Some(gs) => Some(sum(root, gs)?),
            });
        }
        if node.inputs.is_empty() || og.iter().all(Option::is_none) {
            continue;
        }
        if !node.outputs.iter().any(|(d, _)| d.is_floating() || *d == DType::Resource) {
            continue;
        }
        let def =
            ops::lookup(node.op_type).map_err(|_| ops::unknown::unknown_op_gradient_error(&node.name, node.op_type))?;
        let scope = root.name_scope(&format!("{}_grad", node.name));
        let op = Operation { graph: g.clone(), id };
        let from = g.num_ops();
        let ctx = GradCtx {
            scope: &scope,
            node: &node,
            inputs: node.inputs.iter().map(|&(s, i)| out(&g, s, i)).collect(),
            outputs: (0..n_out).map(|i| op.output(i)).collect::<Result<_>>()?,
            grads: og,
        };
        let in_grads =
            def.gradient(&ctx).map_err(|e| e.context(format!("gradient of '{}' ({})", node.name, node.op_type)))?;
        st.rewire(from..g.num_ops())?;
        for (&(src, idx), gr) in node.inputs.iter().zip(in_grads) {
            if let Some(gr) = gr {
                if l.member[src] && call.from_x[src] {
                    let gr = st.bring_in(&gr)?;
                    pending.entry((src, idx)).or_default().push(gr);
                }
            }
        }
    }
    Ok(result)
}

fn out(g: &Graph, op: usize, index: usize) -> Output {
    Output { graph: g.clone(), op, index }
}

fn sum(s: &Scope, mut gs: Vec<Output>) -> Result<Output> {
    if gs.len() == 1 {
        return Ok(gs.remove(0));
    }
    ops::add_n(s, &gs)
}

fn named_merge(s: &Scope, inputs: &[Output], name: &str) -> Result<Output> {
    s.op("Merge", name).inputs(inputs).attr("T", inputs[0].dtype()).attr("N", inputs.len() as i64).build_output()
}

/// TensorFlow's `GradLoopState` for one forward loop (not nested in another loop on the
/// gradient's path).
struct GradState<'a> {
    call: &'a GradCall<'a>,
    l: &'a Loop,
    graph: Graph,
    /// The gradient loop's frame name.
    frame: String,
    /// The gradient loop's LoopCond.
    pivot: Output,
    /// The gradient loop's body pivot (the counter's `Sub`).
    body_pivot: usize,
    /// The forward counter's NextIteration (stack pushes come before it).
    forward_index: usize,
    /// The gradient counter's NextIteration (`b_sync` comes before it).
    grad_index: usize,
    /// Ops made from here on are inside the gradient loop, unless made by the forward side.
    start: usize,
    forward_side: std::cell::RefCell<Vec<bool>>,
    captured: std::cell::RefCell<HashMap<(usize, usize), Output>>,
    history: std::cell::RefCell<HashMap<(usize, usize), Output>>,
    sync: std::cell::Cell<Option<usize>>,
}

impl<'a> GradState<'a> {
    /// The forward counter and the gradient loop with its counter (TensorFlow's
    /// `AddForwardLoopCounter` and `AddBackpropLoopCounter`).
    fn new(call: &'a GradCall<'a>, l: &'a Loop) -> Result<GradState<'a>> {
        let root = call.root;
        let g = root.graph().clone();
        let pi = l.parallel_iterations;
        let fwd_pivot = out(&g, l.pivot, 0);
        let body_pivot_fwd = l.vars.first().and_then(|v| v.identity).unwrap_or(l.vars[0].switch);
        // forward counter
        let n = ops::constant(&root.named("f_count"), Tensor::scalar(0i32))?;
        let enter_n = ops::enter(&root.named("f_count"), &n, &l.frame, false, pi)?;
        let merge_n = ops::merge(root, &[enter_n.clone(), enter_n])?.0;
        let (sw_f, sw_t) = ops::switch(root, &merge_n, &fwd_pivot)?;
        let (add_s, add_inner) = root.op_scope("Add");
        let one = ops::constant(&add_inner.named("y"), Tensor::scalar(1i32))?;
        g.write().add_control_input(one.op, body_pivot_fwd);
        let index = add_s.op("AddV2", "Add").input(&sw_t).input(&one).attr("T", DType::Int32).build_output()?;
        let next_n = ops::next_iteration(root, &index)?;
        g.update_input(&merge_n.op(), 1, &next_n)?;
        let total = ops::exit(&root.named("f_count"), &sw_f)?;
        // the gradient loop and its counter
        let frame = root.unique_op_name(&l.frame);
        let start = g.num_ops();
        let one = ops::constant(&root.named("b_count"), Tensor::scalar(1i32))?;
        let enter_c = ops::enter(&root.named("b_count"), &total, &frame, false, pi)?;
        let merge_c = ops::merge(root, &[enter_c.clone(), enter_c])?.0;
        let (ge_s, ge_inner) = root.op_scope("GreaterEqual");
        let one_in = ops::enter(&ge_inner, &one, &frame, true, pi)?;
        let pred = ops::greater_equal(&ge_s, &merge_c, &one_in)?;
        let pivot = ops::loop_cond(&root.named("b_count"), &pred)?;
        let (c_f, c_t) = ops::switch(root, &merge_c, &pivot)?;
        let index = ops::sub(&root.named("Sub"), &c_t, &one_in)?;
        let next_c = ops::next_iteration(root, &index)?;
        g.update_input(&merge_c.op(), 1, &next_c)?;
        ops::exit(&root.named("b_count"), &c_f)?;
        let mut forward_side = vec![false; g.num_ops()];
        forward_side[one.op] = true;
        Ok(GradState {
            call,
            l,
            graph: g,
            frame,
            pivot,
            body_pivot: index.op,
            forward_index: next_n.op,
            grad_index: next_c.op,
            start,
            forward_side: std::cell::RefCell::new(forward_side),
            captured: Default::default(),
            history: Default::default(),
            sync: Default::default(),
        })
    }

    fn mark_forward(&self, id: usize) {
        let mut f = self.forward_side.borrow_mut();
        if f.len() <= id {
            f.resize(id + 1, false);
        }
        f[id] = true;
    }

    fn inside(&self, id: usize) -> bool {
        id >= self.start && !self.forward_side.borrow().get(id).copied().unwrap_or(false)
    }

    /// A gradient made in the gradient loop, or from outside it (a constant zero of an
    /// op without inputs made outside), usable inside.
    fn bring_in(&self, x: &Output) -> Result<Output> {
        if self.inside(x.op) {
            return Ok(x.clone());
        }
        let s = self.graph.scope().name_scope(&format!("{}/", x.op().name()));
        self.add_value(&s, x)
    }

    /// What the gradient loop's `_AddOpInternal` does for the ops a gradient function made.
    fn rewire(&self, ids: std::ops::Range<usize>) -> Result<()> {
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
    /// stack (TensorFlow's `GetRealValue`), anything else through a constant Enter.
    fn add_value(&self, s: &Scope, x: &Output) -> Result<Output> {
        if let Some(v) = self.captured.borrow().get(&x.key()) {
            return Ok(v.clone());
        }
        let v = if self.l.member[x.op] && !self.l.is_exit(x.op) {
            self.real_value(s, x)?
        } else {
            let mut s = s.clone();
            s.control_deps.clear();
            ops::enter(&s, x, &self.frame, true, self.l.parallel_iterations)?
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

    /// TensorFlow's `AddForwardAccumulator` and `AddBackpropAccumulatedValue`: `x` pushed
    /// on a stack each forward iteration, popped each gradient iteration.
    fn accumulate_forward(&self, s: &Scope, x: &Output) -> Result<Output> {
        let g = &self.graph;
        let pi = self.l.parallel_iterations;
        let root = g.scope().name_scope(&format!("{}/", s.prefix()));
        let max_size = ops::constant(&root, Tensor::scalar(-1i32))?;
        let acc = ops::stack_v2(&root.named("f_acc"), &max_size, x.dtype(), "")?;
        let enter_acc = ops::enter(&root, &acc, &self.l.frame, true, pi)?;
        let push = ops::stack_push_v2(&root, &enter_acc, x)?;
        g.write().add_control_input(self.forward_index, push.op);
        for id in [max_size.op, acc.op, enter_acc.op, push.op] {
            self.mark_forward(id);
        }
        // the pop's name first, then its Enter under it (TensorFlow makes the pop first)
        let pop_name = root.unique_op_name("StackPopV2");
        let ps = g.scope().name_scope(&format!("{pop_name}/"));
        let acc_in = ops::enter(&ps, &acc, &self.frame, true, pi)?;
        let pop = ops::stack_pop_v2(&root.named(&format!("{pop_name}/")), &acc_in, x.dtype())?;
        let shape = x.shape();
        {
            let mut w = g.write();
            Arc::make_mut(&mut w.nodes[pop.op]).outputs[0].1 = shape;
            w.add_control_input(pop.op, self.body_pivot);
        }
        if pi > 1 {
            let sync = match self.sync.get() {
                Some(s) => s,
                None => {
                    let t = ops::control_trigger(&root.named("b_sync"))?;
                    g.write().add_control_input(self.grad_index, t.id());
                    self.sync.set(Some(t.id()));
                    t.id()
                }
            };
            g.write().add_control_input(sync, pop.op);
        }
        Ok(pop)
    }

    /// TensorFlow's `AddBackpropAccumulator`: the sum over the iterations of loop
    /// invariant `enter`'s gradient `grad`, as a loop variable of the gradient loop.
    fn accumulate(&self, enter: &Node, grad: &Output) -> Result<Output> {
        let g = &self.graph;
        let pi = self.l.parallel_iterations;
        let s = self.call.root.name_scope(&format!("{}_grad", enter.name));
        let shape = grad.shape();
        let acc = match shape.to_vec() {
            Some(d) => ops::constant(&s.named("b_acc"), Tensor::zeros(grad.dtype(), &d))?,
            None => {
                let (src, idx) = enter.inputs[0];
                let value = out(g, src, idx);
                let dims =
                    if value.dtype() == DType::Resource { ops::shape(&s, grad)? } else { ops::shape(&s, &value)? };
                let zero = ops::constant(&s, Tensor::from_f64(grad.dtype(), &[], &[0.0])?)?;
                ops::fill(&s, &dims, &zero)?
            }
        };
        self.mark_forward(acc.op);
        let enter_acc = ops::enter(&s.named("b_acc"), &acc, &self.frame, false, pi)?;
        let merge_acc = named_merge(&s, &[enter_acc.clone(), enter_acc], "b_acc")?;
        let (f, t) = ops::switch(&s, &merge_acc, &self.pivot)?;
        let add = s.op("AddV2", "Add").input(&t).input(grad).attr("T", grad.dtype()).build_output()?;
        let next = ops::next_iteration(&s, &add)?;
        g.update_input(&merge_acc.op(), 1, &next)?;
        ops::exit(&s.named("b_acc"), &f)
    }
}

fn is_constant_enter(g: &Graph, id: usize) -> bool {
    let n = g.node(id);
    matches!(n.op_type, "Enter" | "RefEnter") && n.attr_bool_or("is_constant", false).unwrap_or(false)
}
