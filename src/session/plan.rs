//! Run plans: the graph pruned to what a (feeds, fetches, targets) signature needs, each
//! op ("item") with its prepared kernel, the loop frame it runs in, where its inputs come
//! from (a value delivered by an edge, or a variable's buffer) and where its outputs go.
//! Built once per signature and cached by the session; run by the executor.
//!
//! Pruning walks back from the fetches and targets through data and control inputs, not
//! through fed tensors, loops' back edges (`NextIteration` → `Merge`) included. Items are
//! numbered in a depth-first post-order that leaves back edges out (inputs first, as
//! TensorFlow's graph without its loops' back edges is acyclic); the executor runs ready
//! items lowest number first (after dead tasks and `Switch`es, which allocate nothing), so a
//! graph without control flow runs in that order.

use super::control_flow_info::{assign_frames, StaticFrame};
use super::cost::is_expensive;
use super::optimize::{optimize, Passes};
use super::ref_alias::{is_ref_variable_op, ref_aliases};
use super::session_state::SessionState;
use crate::error::{Error, Result};
use crate::graph::{traversal, Graph, Node};
use crate::ops::control_flow::{control_flow, enter_attrs, ControlFlow};
use crate::ops::{self, Kernel, VarSlot};
use crate::tensor::{DType, Shape, Tensor};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// What an item does beyond running its kernel (the executor's part of control flow).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An ordinary op: its kernel runs when it is live.
    Op,
    /// `Switch`/`RefSwitch`: data to output 1 (pred true) or 0 (false), the other dead.
    Switch,
    /// `Merge`/`RefMerge`: forwards its one live input.
    Merge,
    /// `Enter`/`RefEnter`: its output is in frame `child` (every iteration when `constant`).
    Enter { child: usize, constant: bool },
    /// `Exit`/`RefExit`: its output is in the parent frame.
    Exit,
    /// `NextIteration`/`RefNextIteration`: its output is in the next iteration.
    NextIteration,
    /// `ControlTrigger`: runs, live, even when its inputs are dead.
    ControlTrigger,
    /// An op whose kernel returns input 0 unchanged (`Identity`, `StopGradient`, ...:
    /// [`Kernel::forwards_input`](crate::ops::Kernel::forwards_input)): the executor
    /// forwards the value without calling the kernel.
    Forward,
}

/// How an item gets one data input's value.
pub(crate) enum InputMode {
    /// The value an edge delivered.
    Value,
    /// The variable's current value, read when the item runs (any delivered value only
    /// says that the input is live).
    ReadVar(Arc<VarSlot>, String),
    /// A reference or resource input: the kernel works on the variable's buffer
    /// ([`Item::vars`]); the value is a placeholder.
    Ref,
    /// A control-flow op forwarding a variable: the placeholder value, or the one delivered.
    Token,
}

/// One output edge: output `port` of an item goes to input slot `slot` of item `dst` (in
/// the per-iteration input array of `dst`'s frame).
pub(crate) struct Edge {
    pub port: usize,
    pub dst: usize,
    pub slot: usize,
    /// The last edge reading this output: the value is moved, not cloned.
    pub last: bool,
}

/// One op of a plan.
pub(crate) struct Item {
    pub node: Arc<Node>,
    pub kernel: Box<dyn Kernel>,
    pub kind: Kind,
    /// Its index among its frame's items (its pending count).
    pub local: usize,
    /// Its first input slot in its frame's per-iteration input array.
    pub input_start: usize,
    /// How each data input is read.
    pub inputs: Vec<InputMode>,
    /// Variable buffers behind reference inputs (for the kernel).
    pub vars: Vec<Option<(Arc<VarSlot>, String)>>,
    pub rng: Option<Arc<Mutex<crate::ops::random::RandomState>>>,
    /// Data edges to consumers, in consumer order.
    pub edges: Vec<Edge>,
    /// Items with a control input on this one.
    pub controls: Vec<usize>,
    /// (output, fetch index) of its fetched outputs.
    pub fetches: Vec<(usize, usize)>,
    /// True when its kernel is worth running on another thread (`session/cost.rs`).
    pub expensive: bool,
    /// Bit `i` set when data input `i` is a `Const` node's output that is not fed
    /// (`KernelCtx::const_inputs`).
    pub const_inputs: u64,
}

/// An item's pending inputs in one iteration: inputs not yet arrived (for a Merge: bit 0
/// set until a live data input arrives, plus 2 per control input) and inputs arrived dead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Count {
    pub pending: u32,
    pub dead: u32,
}

/// A static frame and the layout of its per-iteration state.
pub(crate) struct FrameLayout {
    pub frame: StaticFrame,
    /// Each item's count at the start of an iteration, by local index.
    pub initial: Vec<Count>,
    /// Input slots of one iteration.
    pub num_inputs: usize,
}

/// Where a fetched value comes from.
pub(crate) enum Fetch {
    /// Feed `i`, returned as fed.
    Feed(usize),
    /// A variable's value after the run.
    Var(Arc<VarSlot>, String),
    /// An item's output (recorded by the item, see [`Item::fetches`]).
    Output,
    /// An item's output that carries a variable: the variable's value after the run, when
    /// the output was live.
    OutputVar(Arc<VarSlot>, String),
}

/// A compiled signature.
pub(crate) struct Plan {
    pub items: Vec<Item>,
    pub frames: Vec<FrameLayout>,
    /// Items with nothing to wait for: they start the run (in the root frame).
    pub roots: Vec<usize>,
    /// For each feed (in signature order), the edges its value goes to (root frame).
    pub feed_edges: Vec<Vec<Edge>>,
    /// (expected dtype, shape, tensor name) for each feed, for validation.
    pub feed_checks: Vec<(DType, Shape, String)>,
    pub fetches: Vec<Fetch>,
    /// The placeholder value of reference inputs and variable-carrying edges.
    pub token: Tensor,
    /// True when the plan runs on one thread whatever the session's inter-op threads: no
    /// item is expensive (nothing would run on another thread), or it pushes to or pops
    /// from a stack that no control edge orders (see `stacks_ordered`; a while loop's
    /// gradient has TensorFlow's forward/gradient sync edges and runs in parallel).
    pub serial: bool,
    /// True when some item is expensive ([`super::cost`]): a serial run of the plan is
    /// worth one hand-off to a one-thread worker whose kernels may use `rten-gemm`
    /// (`session/executor.rs`).
    pub expensive: bool,
    /// Node names by node id in the graph the plan runs (the optimiser's copy: folded
    /// constants and fused nodes included), for step statistics' timeline labels.
    pub names: Arc<Vec<String>>,
}

/// True when the graph's edges order every stack access of the plan, so that any schedule
/// pushes and pops in one order: each `StackPushV2` and `StackPopV2` has a control input or
/// is one (a while loop gradient's pushes wait for the forward counter and hold back the
/// next iteration; its pops wait for the gradient counter and hold back `b_sync`, as
/// TensorFlow's `forward_index` and `grad_sync` edges). A plan with a stack access that no
/// control edge touches (a hand-built stack) runs serially, in the plan's order.
fn stacks_ordered(ops: &[Arc<Node>], item_of: &[usize]) -> bool {
    let controlling: HashSet<usize> = ops.iter().flat_map(|n| n.control_inputs.iter().copied()).collect();
    item_of.iter().enumerate().filter(|&(_, &it)| it != usize::MAX).all(|(id, &it)| {
        let n = &ops[it];
        !matches!(n.op_type, "StackPushV2" | "StackPopV2") || !n.control_inputs.is_empty() || controlling.contains(&id)
    })
}

/// True for the ops whose value is a session-held variable buffer rather than a computed
/// output: `VariableV2` and TensorFlow 1.x's `Variable` (reference variables) and
/// `VarHandleOp` (resource variables).
pub(crate) fn is_variable_op(op_type: &str) -> bool {
    matches!(op_type, "VariableV2" | "Variable" | "VarHandleOp")
}

/// Signature of a run: fed tensors, fetched tensors, target ops.
pub(crate) type PlanKey = (Vec<(usize, usize)>, Vec<(usize, usize)>, Vec<usize>);

/// True for an `Identity` of a resource handle (TensorFlow's gradient of a resource read in
/// a `tf.cond` branch makes one): it forwards the variable, as the control-flow ops do.
fn is_handle_identity(n: &Node) -> bool {
    n.op_type == "Identity" && n.outputs.first().is_some_and(|o| o.0 == DType::Resource)
}

/// True when data edge `src` → `dst` is a while loop's back edge (`NextIteration` → `Merge`).
fn is_back_edge(nodes: &[Arc<Node>], src: usize, dst: usize) -> bool {
    control_flow(nodes[src].op_type) == Some(ControlFlow::NextIteration)
        && control_flow(nodes[dst].op_type) == Some(ControlFlow::Merge)
}

impl Plan {
    /// The plan of `key` for `graph`, on the copy of its nodes that the graph optimiser
    /// rewrites with `passes` (`session/optimize`; the graph itself is unchanged).
    pub(crate) fn build(graph: &Graph, state: &SessionState, key: &PlanKey, passes: Passes) -> Result<Plan> {
        let (feeds, fetches, targets) = key;
        let g = graph.read();
        let optimized;
        let nodes = if passes.any() {
            optimized = optimize(g.nodes.clone(), feeds.iter().copied().collect(), fetches, targets, passes);
            &optimized
        } else {
            &g.nodes
        };
        let mut fed: HashMap<(usize, usize), usize> = HashMap::default();
        for (i, &(op, idx)) in feeds.iter().enumerate() {
            if fed.insert((op, idx), i).is_some() {
                return Err(Error::invalid_argument(format!(
                    "Tensor {}:{idx} is fed more than once; give each fed tensor one value",
                    nodes[op].name
                )));
            }
        }

        let roots: Vec<usize> =
            fetches.iter().filter(|f| !fed.contains_key(f)).map(|&(op, _)| op).chain(targets.iter().copied()).collect();
        let order = needed_in_order(nodes, &fed, &roots)?;
        let mut item_of = vec![usize::MAX; nodes.len()];
        let mut ops: Vec<Arc<Node>> = Vec::with_capacity(order.len());
        for id in order {
            if !is_variable_op(nodes[id].op_type) {
                item_of[id] = ops.len();
                ops.push(nodes[id].clone());
            }
        }
        // nodes of op types tensorgraph does not register: an error naming them all when
        // they all run, else (a Switch may leave them dead) a kernel failing when one runs live
        let unknown: Vec<(String, &str)> = ops
            .iter()
            .filter(|n| !ops::unknown::is_registered(n.op_type))
            .map(|n| (n.name.clone(), n.op_type))
            .collect();
        if !unknown.is_empty() && !ops.iter().any(|n| control_flow(n.op_type) == Some(ControlFlow::Switch)) {
            // a function call import could not instantiate: its own error, with the node
            let mut uninstantiable = g.functions.uninstantiable.values();
            if let Some((name, e)) = uninstantiable.find(|(name, _)| unknown.iter().any(|(n, _)| n == name)) {
                return Err(Error::new(
                    e.code,
                    format!("the run needs node '{name}', a function call kept uninstantiated on import: {}; feed or fetch around it", e.message),
                ));
            }
            return Err(ops::unknown::unknown_ops_error(&unknown));
        }
        let src_item = |src: &(usize, usize)| -> Option<usize> {
            (!fed.contains_key(src) && item_of[src.0] != usize::MAX).then_some(item_of[src.0])
        };

        // frames
        let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
        let mut item_roots = Vec::new();
        for (it, n) in ops.iter().enumerate() {
            let mut has_input = false;
            for src in &n.inputs {
                if let Some(s) = src_item(src) {
                    consumers[s].push(it);
                    has_input = true;
                }
            }
            for &c in &n.control_inputs {
                if item_of[c] != usize::MAX {
                    consumers[item_of[c]].push(it);
                    has_input = true;
                }
            }
            if !has_input {
                item_roots.push(it);
            }
        }
        let mut feed_consumers: Vec<(String, Vec<usize>)> =
            feeds.iter().map(|&(op, idx)| (format!("{}:{idx}", nodes[op].name), Vec::new())).collect();
        for (it, n) in ops.iter().enumerate() {
            for src in &n.inputs {
                if let Some(&fi) = fed.get(src) {
                    feed_consumers[fi].1.push(it);
                }
            }
        }
        let cf = assign_frames(&ops, &consumers, &item_roots, &feed_consumers)?;

        // the variable each variable-carrying output forwards (control-flow ops pass it on)
        let src_kind = |src: &(usize, usize)| -> Src {
            if fed.contains_key(src) {
                Src::Fed
            } else if is_variable_op(nodes[src.0].op_type) {
                Src::Var(src.0)
            } else {
                Src::Item(item_of[src.0])
            }
        };
        let carried = carried_variables(&ops, &src_kind);
        let var_of = |src: &(usize, usize)| src_kind(src).var(&carried, src.1);
        let aliases = ref_aliases(
            &ops,
            &|src| match src_kind(src) {
                Src::Var(v) if is_ref_variable_op(nodes[v].op_type) => Some(v),
                _ => None,
            },
            &|src| match src_kind(src) {
                Src::Item(j) => Some(j),
                _ => None,
            },
        );

        // frame layouts: each item's pending count and input slots
        let mut frames: Vec<FrameLayout> =
            cf.frames.into_iter().map(|frame| FrameLayout { frame, initial: Vec::new(), num_inputs: 0 }).collect();
        let mut items: Vec<Item> = Vec::with_capacity(ops.len());
        let mut plan_roots = Vec::new();
        for (it, node) in ops.iter().enumerate() {
            let frame = cf.frame_of[it];
            let def = ops::lookup(node.op_type).ok();
            let cf_kind = control_flow(node.op_type);
            let kind = match cf_kind {
                None => Kind::Op,
                Some(ControlFlow::Switch) => Kind::Switch,
                Some(ControlFlow::Merge) => Kind::Merge,
                Some(ControlFlow::Enter) => {
                    let child = cf.enter_child[it].ok_or_else(|| Error::internal("Enter without a frame"))?;
                    Kind::Enter { child, constant: enter_attrs(node)?.1 }
                }
                Some(ControlFlow::Exit) => Kind::Exit,
                Some(ControlFlow::NextIteration) => Kind::NextIteration,
                Some(ControlFlow::ControlTrigger) => Kind::ControlTrigger,
            };
            let refs = def.map_or(&[][..], |d| d.ref_inputs());
            let mut inputs = Vec::with_capacity(node.inputs.len());
            let mut vars = Vec::with_capacity(node.inputs.len());
            let mut dynamic = 0u32;
            for (i, src) in node.inputs.iter().enumerate() {
                let is_dynamic = fed.contains_key(src) || src_item(src).is_some();
                dynamic += u32::from(is_dynamic);
                let var = var_of(src);
                let forwards = match kind {
                    Kind::Switch => i == 0,
                    Kind::Merge | Kind::Enter { .. } | Kind::Exit | Kind::NextIteration => true,
                    _ => is_handle_identity(node),
                };
                let (mode, v) = match var {
                    Some(var) => {
                        let slot = (state.var_slot(var, &nodes[var]), nodes[var].name.clone());
                        if forwards {
                            (InputMode::Token, None)
                        } else if refs.contains(&i) {
                            (InputMode::Ref, Some(slot))
                        } else if nodes[var].op_type == "VarHandleOp" {
                            return Err(resource_handle_as_value(
                                &format!("input {i} of '{}' ({})", node.name, node.op_type),
                                &nodes[var].name,
                            ));
                        } else {
                            (InputMode::ReadVar(slot.0, slot.1), None)
                        }
                    }
                    None if refs.contains(&i) => {
                        return Err(Error::invalid_argument(format!(
                            "input {i} of '{}' ({}) must be a variable (a VariableV2 or VarHandleOp output), but '{}' is a {}",
                            node.name, node.op_type, nodes[src.0].name, nodes[src.0].op_type
                        )));
                    }
                    None => match src_item(src).and_then(|j| aliases.get(&(j, src.1))) {
                        // a consumer of `v/read` ordered by control inputs: the value of
                        // `v` when this item runs
                        Some(&var) if !forwards && !node.control_inputs.is_empty() => {
                            (InputMode::ReadVar(state.var_slot(var, &nodes[var]), nodes[var].name.clone()), None)
                        }
                        _ => (InputMode::Value, None),
                    },
                };
                if kind == Kind::Merge && !is_dynamic {
                    return Err(Error::unimplemented(format!(
                        "input {i} of {} '{}' is the variable '{}' itself: a Merge of variables is not supported; merge their values (read them first)",
                        node.op_type, node.name, nodes[src.0].name
                    )));
                }
                inputs.push(mode);
                vars.push(v);
            }
            let controls = node.control_inputs.iter().filter(|&&c| item_of[c] != usize::MAX).count() as u32;
            let pending = if kind == Kind::Merge { 1 + 2 * controls } else { dynamic + controls };
            let layout = &mut frames[frame];
            let local = layout.initial.len();
            layout.initial.push(Count { pending, dead: 0 });
            let input_start = layout.num_inputs;
            layout.num_inputs += node.inputs.len();
            if pending == 0 {
                plan_roots.push(it);
            }
            let rng = def.is_some_and(|d| d.is_stateful()).then(|| state.rng_for(node)).flatten();
            let kernel = match def {
                Some(def) => def.prepare(node).map_err(|e| e.context(format!("{} '{}'", node.op_type, node.name)))?,
                None => Box::new(ops::unknown::UnknownKernel::new(&node.name, node.op_type, &unknown)),
            };
            let kind = if kind == Kind::Op && kernel.forwards_input() { Kind::Forward } else { kind };
            items.push(Item {
                node: node.clone(),
                kernel,
                kind,
                local,
                input_start,
                inputs,
                vars,
                rng,
                edges: Vec::new(),
                controls: Vec::new(),
                fetches: Vec::new(),
                expensive: kind == Kind::Op && is_expensive(node, nodes),
                const_inputs: node.inputs.iter().enumerate().take(64).fold(0u64, |bits, (i, src)| {
                    let constant = nodes[src.0].op_type == "Const" && !fed.contains_key(src);
                    bits | (u64::from(constant) << i)
                }),
            });
        }

        // edges, in consumer order
        let mut feed_edges: Vec<Vec<Edge>> = (0..feeds.len()).map(|_| Vec::new()).collect();
        for dst in 0..items.len() {
            let node = items[dst].node.clone();
            for (i, src) in node.inputs.iter().enumerate() {
                let edge = Edge { port: src.1, dst, slot: items[dst].input_start + i, last: false };
                if let Some(&fi) = fed.get(src) {
                    feed_edges[fi].push(Edge { port: 0, ..edge });
                } else if let Some(s) = src_item(src) {
                    items[s].edges.push(edge);
                }
            }
            for &c in &node.control_inputs {
                if item_of[c] != usize::MAX {
                    items[item_of[c]].controls.push(dst);
                }
            }
        }
        for edges in items.iter_mut().map(|it| &mut it.edges).chain(feed_edges.iter_mut()) {
            mark_last(edges);
        }

        let mut plan_fetches = Vec::with_capacity(fetches.len());
        for (fi, &(op, idx)) in fetches.iter().enumerate() {
            if let Some(&i) = fed.get(&(op, idx)) {
                plan_fetches.push(Fetch::Feed(i));
                continue;
            }
            let n = &nodes[op];
            if is_variable_op(n.op_type) {
                if n.op_type == "VarHandleOp" {
                    return Err(resource_handle_as_value("a fetch", &n.name));
                }
                plan_fetches.push(Fetch::Var(state.var_slot(op, n), n.name.clone()));
                continue;
            }
            let it = item_of[op];
            items[it].fetches.push((idx, fi));
            plan_fetches.push(match carried.get(&(it, idx)) {
                Some(&var) if nodes[var].op_type == "VarHandleOp" => {
                    return Err(resource_handle_as_value("a fetch", &nodes[var].name))
                }
                Some(&var) => Fetch::OutputVar(state.var_slot(var, &nodes[var]), nodes[var].name.clone()),
                None => Fetch::Output,
            });
        }
        let mut feed_checks = Vec::with_capacity(feeds.len());
        for f in feeds {
            let n = &nodes[f.0];
            let (dt, sh) = n.outputs[f.1].clone();
            feed_checks.push((dt, sh, format!("{}:{}", n.name, f.1)));
        }
        let expensive = items.iter().any(|it| it.expensive);
        Ok(Plan {
            frames,
            roots: plan_roots,
            feed_edges,
            feed_checks,
            fetches: plan_fetches,
            token: Tensor::zeros(DType::Float, &[0]),
            serial: !expensive || !stacks_ordered(&ops, &item_of),
            expensive,
            items,
            names: Arc::new(nodes.iter().map(|n| n.name.clone()).collect()),
        })
    }
}

/// The needed ops (what `roots` reach through data inputs that are not fed and control
/// inputs, loops' back edges included), in a depth-first post-order from `roots` that
/// leaves the back edges out: fetched values first (as early as their inputs allow), loop
/// bodies after (walked from their NextIterations).
/// Errors: `InvalidArgument` for a cycle that no back edge closes.
fn needed_in_order(nodes: &[Arc<Node>], fed: &HashMap<(usize, usize), usize>, roots: &[usize]) -> Result<Vec<usize>> {
    let needed = traversal::reachable(nodes.len(), roots.iter().copied(), |id, next| {
        let n = &nodes[id];
        next.extend(n.inputs.iter().filter(|src| !fed.contains_key(src)).map(|&(src, _)| src));
        next.extend_from_slice(&n.control_inputs);
        Ok(())
    })?;
    let loop_tails =
        (0..nodes.len()).filter(|&i| needed[i] && control_flow(nodes[i].op_type) == Some(ControlFlow::NextIteration));
    traversal::post_order(
        nodes.len(),
        roots.iter().copied().chain(loop_tails),
        |id, next| {
            let n = &nodes[id];
            next.extend(
                n.inputs
                    .iter()
                    .filter(|src| !fed.contains_key(src) && !is_back_edge(nodes, src.0, id))
                    .map(|&(src, _)| src),
            );
            next.extend_from_slice(&n.control_inputs);
        },
        |id| Error::invalid_argument(format!("the graph has a cycle through op '{}'", nodes[id].name)),
    )
}

/// What a data input of a plan's op reads.
#[derive(Clone, Copy)]
enum Src {
    /// A fed tensor.
    Fed,
    /// A variable op's output (node id).
    Var(usize),
    /// An item's output.
    Item(usize),
}

impl Src {
    /// The variable behind output `port` of this source, given the variables `carried`
    /// by items' outputs.
    fn var(self, carried: &HashMap<(usize, usize), usize>, port: usize) -> Option<usize> {
        match self {
            Src::Fed => None,
            Src::Var(v) => Some(v),
            Src::Item(it) => carried.get(&(it, port)).copied(),
        }
    }
}

/// The variable (node id) each variable-carrying (item, output) forwards: Switch, Enter,
/// Exit, NextIteration and an Identity of a handle pass on their data input's, a Merge
/// any of its inputs' (repeated until nothing changes, for loops' back edges).
fn carried_variables(ops: &[Arc<Node>], src: &impl Fn(&(usize, usize)) -> Src) -> HashMap<(usize, usize), usize> {
    let mut carried: HashMap<(usize, usize), usize> = HashMap::new();
    loop {
        let mut changed = false;
        for (it, n) in ops.iter().enumerate() {
            let (inputs, ports): (&[(usize, usize)], &[usize]) = match control_flow(n.op_type) {
                Some(ControlFlow::Switch) => (&n.inputs[..1], &[0, 1]),
                Some(ControlFlow::Enter | ControlFlow::Exit | ControlFlow::NextIteration) => (&n.inputs[..1], &[0]),
                Some(ControlFlow::Merge) => (&n.inputs[..], &[0]),
                _ if is_handle_identity(n) => (&n.inputs[..1], &[0]),
                _ => continue,
            };
            if let Some(v) = inputs.iter().find_map(|i| src(i).var(&carried, i.1)) {
                for &p in ports {
                    changed |= carried.insert((it, p), v).is_none();
                }
            }
        }
        if !changed {
            return carried;
        }
    }
}

/// Marks the last edge of each output port in `edges`.
fn mark_last(edges: &mut [Edge]) {
    let mut seen: Vec<usize> = Vec::new();
    for e in edges.iter_mut().rev() {
        if !seen.contains(&e.port) {
            seen.push(e.port);
            e.last = true;
        }
    }
}

/// The error for using resource handle `var` (a `VarHandleOp` output) as a tensor value.
fn resource_handle_as_value(what: &str, var: &str) -> Error {
    Error::unimplemented(format!(
        "{what} is the resource handle {var}:0: tensorgraph keeps resource handles inside the session and passes them only to resource-variable ops (ReadVariableOp, AssignVariableOp, ResourceApply*, ...); read the value with a ReadVariableOp (the variable's {var}/Read/ReadVariableOp:0)"
    ))
}
