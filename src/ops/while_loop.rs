//! `tf.while_loop` as TensorFlow 1 builds it (`control_flow_ops.while_loop`, a
//! `WhileContext`): per loop variable an `Enter`, a `Merge` (its back edge from a
//! `NextIteration`), a `Switch` on the `LoopCond`, an `Identity` the body reads and an
//! `Exit`; tensors from outside that the cond or body reads come in through constant
//! `Enter`s made on first use (`WhileContext.AddValue`).

use super::control_flow::{enter, exit, loop_cond, merge, next_iteration, switch};
use super::flow_context::{self, FlowContext};
use crate::error::{Error, Result};
use crate::graph::{Graph, Operation, Output, Scope};
use crate::tensor::{DType, Shape, Tensor};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// The options of [`while_loop`] (TensorFlow's `tf.compat.v1.while_loop` arguments).
#[derive(Clone)]
pub struct WhileOptions {
    /// `parallel_iterations`: how many iterations may run at once (default 10).
    pub parallel_iterations: i64,
    /// `maximum_iterations`: an int32/int64 scalar bounding the number of iterations
    /// (TensorFlow adds an iteration counter as a first loop variable).
    pub maximum_iterations: Option<Output>,
    /// `back_prop`: kept for TensorFlow's signature (gradients are always possible here).
    pub back_prop: bool,
    /// `swap_memory`: ignored (tensorgraph keeps every value in memory).
    pub swap_memory: bool,
    /// `name`: the loop's name scope (default `while`).
    pub name: String,
    /// `shape_invariants`: per loop variable the shape it may take across iterations
    /// (default: the shape it enters the loop with).
    pub shape_invariants: Option<Vec<Shape>>,
}

impl Default for WhileOptions {
    fn default() -> Self {
        WhileOptions {
            parallel_iterations: 10,
            maximum_iterations: None,
            back_prop: true,
            swap_memory: false,
            name: "while".into(),
            shape_invariants: None,
        }
    }
}

/// `tf.compat.v1.while_loop(cond, body, loop_vars)` in graph mode with TF1 control flow:
/// repeats `body` while `cond` (a bool scalar) holds and returns the loop variables'
/// final values. `cond` and `body` get the loop's scope (name scope `while`, `while_1`,
/// ...) and the current values (the `while/Identity` outputs for the body, the
/// `while/Merge` outputs for the cond); `body` returns the next values, one per loop
/// variable with the same dtypes.
///
/// Ops and names are TensorFlow's: `while/Enter`, `while/Merge`, `while/LoopCond`,
/// `while/Switch`, `while/Identity`, `while/NextIteration`, `while/Exit` (`_1`, ... per
/// variable), the frame `while/while_context`; a tensor from outside is read through a
/// constant `Enter` named after its first reader (`while/mul/Enter`), made once; an op
/// without inputs waits for the loop's pivot (`^while/Identity`). With
/// `maximum_iterations` a counter `while/iteration_counter` is a first loop variable,
/// the cond becomes `while/Less` of it `LogicalAnd` the user's and the body starts with
/// `while/add` (counter + 1). A TensorArray goes round a loop as its `flow` (a loop
/// variable) while its handle is read from outside. Loops nest, and a loop may be built
/// inside a [`crate::ops::cond()`] branch (and a cond inside a loop's body).
///
/// Errors: `InvalidArgument` for no loop variables, a `cond` result that is not a bool
/// scalar, a `body` returning a different number of tensors or other dtypes, a loop
/// variable whose shape after one iteration is not within its shape invariant
/// (TensorFlow's message: `Input tensor 'x:0' enters the loop with shape (2, 4), but has
/// shape <unknown> after one iteration. ...`), a shape invariant that does not hold for the
/// initial value, a non-scalar `maximum_iterations`; errors of `cond` and `body`.
pub fn while_loop(
    s: &Scope,
    cond: impl FnOnce(&Scope, &[Output]) -> Result<Output>,
    body: impl FnOnce(&Scope, &[Output]) -> Result<Vec<Output>>,
    loop_vars: &[Output],
    opts: &WhileOptions,
) -> Result<Vec<Output>> {
    if loop_vars.is_empty() {
        return Err(Error::invalid_argument("'loop_vars' must be provided."));
    }
    let g = s.graph().clone();
    for v in loop_vars {
        if !v.graph().same(&g) {
            return Err(Error::invalid_argument(format!(
                "while_loop: loop variable {} is from another graph",
                v.name()
            )));
        }
    }
    if let Some(inv) = &opts.shape_invariants {
        if inv.len() != loop_vars.len() {
            return Err(Error::invalid_argument(format!(
                "while_loop: {} shape invariants for {} loop variables",
                inv.len(),
                loop_vars.len()
            )));
        }
    }
    if opts.parallel_iterations < 1 {
        return Err(Error::invalid_argument("'parallel_iterations' must be a positive integer."));
    }
    let mut ws = s.name_scope(if opts.name.is_empty() { "while" } else { &opts.name });
    ws.control_deps.clear();
    let mut vars = loop_vars.to_vec();
    let mut invariants = opts.shape_invariants.clone();
    if let Some(m) = &opts.maximum_iterations {
        if m.shape().rank().is_some_and(|r| r != 0) {
            return Err(Error::invalid_argument(format!(
                "'maximum_iterations' must be a scalar. Received shape: {}",
                py_shape(&m.shape())
            )));
        }
        if !matches!(m.dtype(), DType::Int32 | DType::Int64) {
            return Err(Error::invalid_argument(format!(
                "maximum_iterations must be int32 or int64, not {} ({})",
                m.dtype(),
                m.name()
            )));
        }
        let zero = Tensor::from_f64(m.dtype(), &[], &[0.0])?;
        vars.insert(0, super::constant(&ws.named("iteration_counter"), zero)?);
        if let Some(inv) = &mut invariants {
            inv.insert(0, Shape::scalar());
        }
    }
    let frame = ws.unique_op_name("while_context");
    let ctx = Rc::new(WhileCtx {
        graph: g.clone(),
        start: g.num_ops(),
        frame,
        parallel_iterations: opts.parallel_iterations,
        outer: flow_context::enclosing(&g),
        pivot: Cell::new(None),
        captured: RefCell::new(HashMap::new()),
    });
    let max = opts.maximum_iterations.clone();
    let c = ctx.clone();
    let exits = flow_context::within(ctx.clone(), move || c.build(&ws, cond, body, &vars, invariants, max))?;
    flow_context::mark_handled(ctx.start..g.num_ops());
    let skip = usize::from(opts.maximum_iterations.is_some());
    Ok(exits.into_iter().skip(skip).collect())
}

/// A while loop being built: TensorFlow's `WhileContext`.
struct WhileCtx {
    graph: Graph,
    /// The first op id of the loop: ops from here on are inside it.
    start: usize,
    frame: String,
    parallel_iterations: i64,
    outer: Option<Rc<dyn FlowContext>>,
    /// The op ops without inputs wait for: the first Merge while the cond is built, the
    /// first Identity while the body is.
    pivot: Cell<Option<usize>>,
    captured: RefCell<HashMap<(usize, usize), Output>>,
}

impl FlowContext for WhileCtx {
    fn graph(&self) -> &Graph {
        &self.graph
    }

    fn add_value(&self, s: &Scope, x: &Output) -> Result<Output> {
        if x.op >= self.start {
            return Ok(x.clone());
        }
        if let Some(e) = self.captured.borrow().get(&x.key()) {
            return Ok(e.clone());
        }
        let outer = match &self.outer {
            Some(o) => o.add_value(s, x)?,
            None => x.clone(),
        };
        let mut s = s.clone();
        s.control_deps.clear();
        let e = enter(&s, &outer, &self.frame, true, self.parallel_iterations)?;
        self.captured.borrow_mut().insert(x.key(), e.clone());
        Ok(e)
    }

    fn while_frames(&self) -> Vec<String> {
        let mut f = vec![self.frame.clone()];
        f.extend(self.outer.as_ref().map(|o| o.while_frames()).unwrap_or_default());
        f
    }
}

impl WhileCtx {
    /// TensorFlow's `_BuildLoop`; returns the Exits.
    fn build(
        &self,
        ws: &Scope,
        cond: impl FnOnce(&Scope, &[Output]) -> Result<Output>,
        body: impl FnOnce(&Scope, &[Output]) -> Result<Vec<Output>>,
        vars: &[Output],
        invariants: Option<Vec<Shape>>,
        max: Option<Output>,
    ) -> Result<Vec<Output>> {
        let g = &self.graph;
        let real: Vec<Output> = match &self.outer {
            Some(o) => vars.iter().map(|v| o.add_value(ws, v)).collect::<Result<_>>()?,
            None => vars.to_vec(),
        };
        let mut enters = Vec::with_capacity(real.len());
        for (i, v) in real.iter().enumerate() {
            let e = enter(ws, v, &self.frame, false, self.parallel_iterations)?;
            let shape = match &invariants {
                None => v.shape(),
                Some(inv) => {
                    if !shape_le(&v.shape(), &inv[i]) {
                        return Err(Error::invalid_argument(format!(
                            "The shape invariant specified for {} is not compatible with the initial shape of the loop variable. It enters the loop with shape {}, but the specified shape invariant is {}.",
                            vars[i].name(),
                            py_shape(&v.shape()),
                            py_shape(&inv[i])
                        )));
                    }
                    inv[i].clone()
                }
            };
            set_shape(g, e.op, shape);
            enters.push(e);
        }
        let merges: Vec<Output> =
            enters.iter().map(|e| Ok(merge(ws, &[e.clone(), e.clone()])?.0)).collect::<Result<_>>()?;
        // the cond
        self.pivot.set(Some(merges[0].op));
        let from = g.num_ops();
        let c = match &max {
            None => cond(ws, &merges)?,
            Some(m) => {
                let less = super::less(ws, &merges[0], m)?;
                let user = cond(ws, &merges[1..])?;
                super::logical_and(ws, &less, &user)?
            }
        };
        self.rewire(from..g.num_ops())?;
        if c.dtype() != DType::Bool || c.shape().rank().is_some_and(|r| r != 0) {
            return Err(Error::invalid_argument(format!(
                "while_loop: cond must return a bool scalar, but {} is {} {}",
                c.name(),
                c.dtype(),
                c.shape()
            )));
        }
        let lc_scope = g.scope().name_scope(&format!("{}/LoopCond/", ws.prefix()));
        let c = self.add_value(&lc_scope, &c)?;
        let pivot = loop_cond(ws, &c)?;
        let switches: Vec<(Output, Output)> = merges.iter().map(|m| switch(ws, m, &pivot)).collect::<Result<_>>()?;
        let ids: Vec<Output> = switches.iter().map(|(_, t)| super::identity(ws, t)).collect::<Result<_>>()?;
        // the body
        self.pivot.set(Some(ids[0].op));
        let from = g.num_ops();
        let results = match &max {
            None => body(ws, &ids)?,
            Some(_) => {
                let (add_s, inner) = ws.op_scope("add");
                let one = super::constant(&inner.named("y"), Tensor::from_f64(ids[0].dtype(), &[], &[1.0])?)?;
                let next = super::add(&add_s, &ids[0], &one)?;
                let mut r = vec![next];
                r.extend(body(ws, &ids[1..])?);
                r
            }
        };
        self.rewire(from..g.num_ops())?;
        if results.len() != merges.len() {
            let skip = usize::from(max.is_some());
            return Err(Error::invalid_argument(format!(
                "Number of inputs and outputs of 'body' must match 'loop_vars'. Got {} for the number of inputs/outputs, and {} for 'loop_vars'.",
                merges.len() - skip,
                results.len() - skip
            )));
        }
        for (i, (m, v)) in merges.iter().zip(&results).enumerate() {
            if v.dtype() != m.dtype() {
                return Err(Error::invalid_argument(format!(
                    "while_loop: body returned {} ({}) for loop variable {i} ({}), which is {}",
                    v.dtype(),
                    v.name(),
                    vars[i].name(),
                    m.dtype()
                )));
            }
            if !shape_le(&v.shape(), &m.shape()) {
                return Err(Error::invalid_argument(format!(
                    "Input tensor '{}' enters the loop with shape {}, but has shape {} after one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.",
                    vars[i].name(),
                    py_shape(&m.shape()),
                    py_shape(&v.shape())
                )));
            }
            let ns = g.scope().name_scope(&format!("{}/NextIteration/", ws.prefix()));
            let v = self.add_value(&ns, v)?;
            let next = next_iteration(ws, &v)?;
            g.update_input(&m.op(), 1, &next)?;
        }
        switches.iter().map(|(f, _)| exit(ws, f)).collect()
    }

    /// What `_AddOpInternal` does for each op made in `ids` (not handled by an inner
    /// context): inputs from outside come through constant Enters, and an op without
    /// inputs, or reading only loop invariants, waits for the pivot.
    fn rewire(&self, ids: std::ops::Range<usize>) -> Result<()> {
        let g = &self.graph;
        let pivot = self.pivot.get().unwrap_or(self.start);
        for id in ids {
            if flow_context::handled(id) {
                continue;
            }
            let node = g.node(id);
            let op = Operation { graph: g.clone(), id };
            for (i, &(src, index)) in node.inputs.iter().enumerate() {
                if src >= self.start {
                    continue;
                }
                let x = Output { graph: g.clone(), op: src, index };
                let ns = g.scope().name_scope(&format!("{}/", node.name));
                let e = self.add_value(&ns, &x)?;
                g.update_input(&op, i, &e)?;
            }
            let node = g.node(id);
            let free = if node.inputs.is_empty() {
                !node.control_inputs.iter().any(|&c| c >= self.start)
            } else {
                node.control_inputs.is_empty() && node.inputs.iter().all(|&(src, _)| is_loop_constant_enter(g, src))
            };
            if free {
                g.write().add_control_input(id, pivot);
            }
        }
        Ok(())
    }
}

/// TensorFlow's `util.IsLoopConstantEnter`.
fn is_loop_constant_enter(g: &Graph, id: usize) -> bool {
    let n = g.node(id);
    matches!(n.op_type, "Enter" | "RefEnter") && n.attr_bool_or("is_constant", false).unwrap_or(false)
}

/// Sets output 0's inferred shape of op `id` (`Tensor.set_shape` on an Enter).
fn set_shape(g: &Graph, id: usize, shape: Shape) {
    let mut w = g.write();
    std::sync::Arc::make_mut(&mut w.nodes[id]).outputs[0].1 = shape;
}

/// TensorFlow's `_ShapeLessThanOrEqual(a, b)`: `a` is at least as specific as `b`.
pub(crate) fn shape_le(a: &Shape, b: &Shape) -> bool {
    let Some(bd) = b.dims() else { return true };
    let Some(ad) = a.dims() else { return false };
    ad.len() == bd.len() && ad.iter().zip(bd).all(|(x, y)| y.is_none() || x == y)
}

/// A shape as Python's `TensorShape` prints it: `(2, 4)`, `(1,)`, `()`, `(None, 3)`,
/// `<unknown>`.
fn py_shape(s: &Shape) -> String {
    let Some(d) = s.dims() else { return "<unknown>".into() };
    let parts: Vec<String> = d.iter().map(|x| x.map_or("None".to_string(), |v| v.to_string())).collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}
