//! TF1 control flow (TensorFlow's `control_flow_ops`): Switch, RefSwitch, Merge, RefMerge,
//! Enter, RefEnter, Exit, RefExit, NextIteration, RefNextIteration, LoopCond and
//! ControlTrigger, with the gradients of Switch and Merge (TensorFlow's `control_flow_grad`).
//!
//! What these ops mean lives in the session's executor, not in a kernel: a `Switch` sends
//! its data to one output and leaves the other *dead*, a `Merge` forwards the one live
//! input it gets, `Enter`/`Exit` move values into and out of a loop frame and
//! `NextIteration` into the next iteration of it (see [`ControlFlow`]). Their prepared
//! kernels are never called; `LoopCond` (a pass-through marking a loop's predicate) and
//! `ControlTrigger` (a no-op that runs even when its inputs are dead) are ordinary kernels.
//!
//! tensorgraph has no reference dtypes: the `Ref*` variants are the same ops, the variable
//! behind a reference input being found by the session when it plans a run.

use super::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &SwitchOp("Switch"),
    &SwitchOp("RefSwitch"),
    &MergeOp("Merge"),
    &MergeOp("RefMerge"),
    &EnterOp("Enter"),
    &EnterOp("RefEnter"),
    &ForwardOp("Exit"),
    &ForwardOp("RefExit"),
    &ForwardOp("NextIteration"),
    &ForwardOp("RefNextIteration"),
    &LoopCond,
    &ControlTrigger,
];

/// How the session's executor treats a control-flow op type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlFlow {
    /// `Switch`, `RefSwitch`: data to output 1 when `pred` is true, to output 0 when
    /// false; the other output is dead.
    Switch,
    /// `Merge`, `RefMerge`: ready when one live data input has arrived (and every control
    /// input), or when all data inputs are dead; outputs (value, value_index).
    Merge,
    /// `Enter`, `RefEnter`: its output is in iteration 0 of the child frame `frame_name`
    /// (in every iteration when `is_constant`).
    Enter,
    /// `Exit`, `RefExit`: its output is in the parent frame.
    Exit,
    /// `NextIteration`, `RefNextIteration`: its output is in the next iteration.
    NextIteration,
    /// `ControlTrigger`: runs, live, even when its inputs are dead.
    ControlTrigger,
}

/// The control-flow role of `op_type` (`None` for ordinary ops, `LoopCond` included).
pub fn control_flow(op_type: &str) -> Option<ControlFlow> {
    Some(match op_type {
        "Switch" | "RefSwitch" => ControlFlow::Switch,
        "Merge" | "RefMerge" => ControlFlow::Merge,
        "Enter" | "RefEnter" => ControlFlow::Enter,
        "Exit" | "RefExit" => ControlFlow::Exit,
        "NextIteration" | "RefNextIteration" => ControlFlow::NextIteration,
        "ControlTrigger" => ControlFlow::ControlTrigger,
        _ => return None,
    })
}

/// The output port a `Switch` sends its data to for predicate `pred`: 1 when true, 0 when
/// false. Errors: `InvalidArgument` when `pred` is not a bool scalar (TensorFlow's words).
pub fn switch_port(pred: &Tensor) -> Result<usize> {
    if !pred.shape().is_empty() {
        return Err(Error::invalid_argument(format!(
            "The second input must be a scalar, but it has shape {}",
            crate::tensor::fmt_dims(pred.shape())
        )));
    }
    Ok(usize::from(pred.as_slice::<bool>()?[0]))
}

/// The kernel of the ops the executor runs itself (never called).
fn run_by_executor(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    Err(Error::internal(format!(
        "{} '{}' is run by the session's executor (dead tensors, frames), not as a kernel",
        ctx.op_type(),
        ctx.node_name()
    )))
}

fn executor_kernel() -> Result<Box<dyn Kernel>> {
    Ok(Box::new(FnKernel(run_by_executor)))
}

/// Errors unless the known rank of input `i` is 0 (TensorFlow's `WithRank(input, 0)`).
fn check_scalar(ctx: &InferCtx, i: usize) -> Result<()> {
    match ctx.shape(i).rank() {
        Some(r) if r != 0 => {
            let shapes: Vec<String> = ctx.inputs.iter().map(|(_, s)| s.to_string()).collect();
            Err(Error::invalid_argument(format!(
                "Shape must be rank 0 but is rank {r} for '{}' ({}) with input shapes: {}",
                ctx.node.name,
                ctx.node.op_type,
                shapes.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

/// `Switch` and `RefSwitch`: inputs (data: T, pred: bool scalar), outputs (output_false,
/// output_true), both shaped like `data`.
pub struct SwitchOp(&'static str);
impl RegisteredOp for SwitchOp {
    fn op_type(&self) -> &'static str {
        self.0
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_dtype(1, &[DType::Bool])?;
        check_scalar(ctx, 1)?;
        let out = (ctx.dtype(0), ctx.shape(0).clone());
        Ok(vec![out.clone(), out])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        executor_kernel()
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        switch_grad(ctx)
    }
}

/// `Merge` and `RefMerge`: `N` inputs of dtype `T`; outputs (output: T, value_index:
/// int32 scalar). The output shape is TensorFlow's: the inputs' dimensions where they all
/// agree, unknown elsewhere, and unknown rank when the ranks differ or one is unknown (an
/// input not yet connected, a loop's back edge, counts as unknown).
pub struct MergeOp(&'static str);
impl RegisteredOp for MergeOp {
    fn op_type(&self) -> &'static str {
        self.0
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("Merge needs at least one input (attr N >= 1)"));
        }
        let t = ctx.same_dtypes()?;
        Ok(vec![(t, merge_shape(ctx.inputs.iter().map(|(_, s)| s))), (DType::Int32, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        executor_kernel()
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        merge_grad(ctx)
    }
}

/// TensorFlow's `MergeShape`: dimensions where all shapes agree, unknown where they
/// differ; unknown rank when a rank is unknown or the ranks differ.
pub fn merge_shape<'a>(mut shapes: impl Iterator<Item = &'a Shape>) -> Shape {
    let Some(first) = shapes.next() else { return Shape::unknown() };
    let Some(dims) = first.dims() else { return Shape::unknown() };
    let mut out = dims.to_vec();
    for s in shapes {
        match s.dims() {
            Some(d) if d.len() == out.len() => {
                for (o, x) in out.iter_mut().zip(d) {
                    if o != x {
                        *o = None;
                    }
                }
            }
            _ => return Shape::unknown(),
        }
    }
    Shape::partial(&out)
}

/// `Enter` and `RefEnter`: input data: T; attrs `frame_name` (not empty), `is_constant`,
/// `parallel_iterations` (> 0). The output shape is unknown, except for a constant
/// (loop-invariant) Enter, whose output has its input's shape (TensorFlow's shape function).
pub struct EnterOp(&'static str);
impl RegisteredOp for EnterOp {
    fn op_type(&self) -> &'static str {
        self.0
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        let constant = ctx.node.attr_bool_or("is_constant", false)?;
        let shape = if constant { ctx.shape(0).clone() } else { Shape::unknown() };
        Ok(vec![(ctx.dtype(0), shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        enter_attrs(node)?;
        executor_kernel()
    }
}

/// An Enter's (frame_name, is_constant, parallel_iterations), checked: the frame name must
/// not be empty and `parallel_iterations` must be positive.
/// Errors: `InvalidArgument` naming the node.
pub fn enter_attrs(node: &Node) -> Result<(String, bool, usize)> {
    let frame = match node.attr("frame_name")? {
        crate::graph::AttrValue::String(s) => String::from_utf8_lossy(s).into_owned(),
        v => {
            return Err(Error::invalid_argument(format!(
                "attr 'frame_name' of op '{}' ({}) should be a string, got {v:?}",
                node.name, node.op_type
            )))
        }
    };
    if frame.is_empty() {
        return Err(Error::invalid_argument(format!(
            "The Enter '{}' must have a frame name (attr frame_name, the while loop's context name)",
            node.name
        )));
    }
    let constant = node.attr_bool_or("is_constant", false)?;
    let parallel = node.attr_int_or("parallel_iterations", 10)?;
    if parallel <= 0 {
        return Err(Error::invalid_argument(format!(
            "attr parallel_iterations of Enter '{}' must be positive, not {parallel}",
            node.name
        )));
    }
    Ok((frame, constant, parallel as usize))
}

/// `Exit`, `RefExit`, `NextIteration`, `RefNextIteration`: input data: T, output shaped like it.
pub struct ForwardOp(&'static str);
impl RegisteredOp for ForwardOp {
    fn op_type(&self) -> &'static str {
        self.0
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        Ok(vec![ctx.inputs[0].clone()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        executor_kernel()
    }
}

/// `LoopCond`: its bool scalar input, marking it as a while loop's predicate.
pub struct LoopCond;
impl RegisteredOp for LoopCond {
    fn op_type(&self) -> &'static str {
        "LoopCond"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::Bool])?;
        check_scalar(ctx, 0)?;
        Ok(vec![(DType::Bool, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|ctx| Ok(vec![ctx.inputs.swap_remove(0)]))))
    }
}

/// `ControlTrigger`: does nothing, and runs even when its control inputs are dead.
pub struct ControlTrigger;
impl RegisteredOp for ControlTrigger {
    fn op_type(&self) -> &'static str {
        "ControlTrigger"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(0)?;
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|_| Ok(vec![]))))
    }
}

/// TensorFlow's `_SwitchGrad` for a `tf.cond` switch: the gradient of `data` is the Merge
/// (`cond_grad`) of the two outputs' gradients, a missing one replaced by zeros shaped like
/// that output (live exactly when that branch is taken). For a resource handle only the
/// branch reading the variable has a gradient: it is merged with itself
/// (`cond_resource_grad`). `pred` gets none.
fn switch_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let grads = match (&ctx.grads[0], &ctx.grads[1]) {
        (None, None) => return Ok(vec![None, None]),
        (Some(g), None) | (None, Some(g)) if ctx.inputs[0].dtype() == DType::Resource => {
            return Ok(vec![Some(merge_named(ctx.scope, &[g.clone(), g.clone()], "cond_resource_grad")?.0), None])
        }
        _ => [ctx.grad(0)?, ctx.grad(1)?],
    };
    Ok(vec![Some(merge_named(ctx.scope, &grads, "cond_grad")?.0), None])
}

/// TensorFlow's `_MergeGrad`: the output's gradient goes back to the input that was live,
/// through a Switch. A two-input Merge (a `tf.cond`'s) switches on `value_index == 1`, its
/// predicate (`cond_grad`); with other input counts each input `i` gets output 1 of a
/// Switch on `value_index == i`.
fn merge_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let Some(grad) = &ctx.grads[0] else { return Ok(vec![None; ctx.inputs.len()]) };
    let index = &ctx.outputs[1];
    let is = |i: i32| -> Result<Output> {
        let k = super::constant(ctx.scope, Tensor::scalar(i))?;
        super::equal(ctx.scope, index, &k)
    };
    if ctx.inputs.len() == 2 {
        let (f, t) = switch_named(ctx.scope, grad, &is(1)?, "cond_grad")?;
        return Ok(vec![Some(f), Some(t)]);
    }
    (0..ctx.inputs.len()).map(|i| Ok(Some(switch(ctx.scope, grad, &is(i as i32)?)?.1))).collect()
}

fn switch_named(s: &Scope, data: &Output, pred: &Output, name: &str) -> Result<(Output, Output)> {
    let op = s.op("Switch", name).input(data).input(pred).attr("T", data.dtype()).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

fn merge_named(s: &Scope, inputs: &[Output], name: &str) -> Result<(Output, Output)> {
    let Some(first) = inputs.first() else {
        return Err(Error::invalid_argument("merge needs at least one input"));
    };
    let op = s.op("Merge", name).inputs(inputs).attr("T", first.dtype()).attr("N", inputs.len() as i64).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.raw_ops.Switch` (TensorFlow's `control_flow_ops.switch`): op `Switch`, default name
/// `Switch`; returns (output_false, output_true). `pred` must be a bool scalar.
/// Errors: `InvalidArgument` for a `pred` of another dtype or a known rank other than 0.
pub fn switch(s: &Scope, data: &Output, pred: &Output) -> Result<(Output, Output)> {
    switch_named(s, data, pred, "Switch")
}

/// `tf.raw_ops.RefSwitch`: op `RefSwitch`, default name `RefSwitch`, on a reference
/// variable's output; returns (output_false, output_true). Errors: as [`switch`].
pub fn ref_switch(s: &Scope, data: &Output, pred: &Output) -> Result<(Output, Output)> {
    let op = s.op("RefSwitch", "RefSwitch").input(data).input(pred).attr("T", data.dtype()).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.raw_ops.Merge` (TensorFlow's `control_flow_ops.merge`): op `Merge`, default name
/// `Merge`; returns (output, value_index). Errors: `InvalidArgument` for no inputs or
/// inputs of different dtypes.
pub fn merge(s: &Scope, inputs: &[Output]) -> Result<(Output, Output)> {
    merge_named(s, inputs, "Merge")
}

/// `tf.raw_ops.RefMerge`: op `RefMerge`, default name `RefMerge`. Errors: as [`merge`].
pub fn ref_merge(s: &Scope, inputs: &[Output]) -> Result<(Output, Output)> {
    let Some(first) = inputs.first() else {
        return Err(Error::invalid_argument("ref_merge needs at least one input"));
    };
    let op =
        s.op("RefMerge", "RefMerge").inputs(inputs).attr("T", first.dtype()).attr("N", inputs.len() as i64).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

fn enter_op(
    s: &Scope,
    op_type: &str,
    data: &Output,
    frame_name: &str,
    is_constant: bool,
    parallel_iterations: i64,
) -> Result<Output> {
    s.op(op_type, op_type)
        .input(data)
        .attr("T", data.dtype())
        .attr("frame_name", frame_name)
        .attr("is_constant", is_constant)
        .attr("parallel_iterations", parallel_iterations)
        .build_output()
}

/// `tf.raw_ops.Enter` (TensorFlow's `control_flow_ops._Enter`): op `Enter`, default name
/// `Enter`; makes `data` available in the loop frame `frame_name` (iteration 0, or every
/// iteration when `is_constant`), at most `parallel_iterations` iterations running at once.
/// The output's shape is unknown unless `is_constant`. Errors from the session when the
/// frame name is empty or `parallel_iterations` is not positive.
pub fn enter(
    s: &Scope,
    data: &Output,
    frame_name: &str,
    is_constant: bool,
    parallel_iterations: i64,
) -> Result<Output> {
    enter_op(s, "Enter", data, frame_name, is_constant, parallel_iterations)
}

/// `tf.raw_ops.RefEnter`: op `RefEnter`, default name `RefEnter`, for a reference variable.
pub fn ref_enter(
    s: &Scope,
    data: &Output,
    frame_name: &str,
    is_constant: bool,
    parallel_iterations: i64,
) -> Result<Output> {
    enter_op(s, "RefEnter", data, frame_name, is_constant, parallel_iterations)
}

fn forward(s: &Scope, op_type: &str, data: &Output) -> Result<Output> {
    s.op(op_type, op_type).input(data).attr("T", data.dtype()).build_output()
}

/// `tf.raw_ops.Exit` (TensorFlow's `control_flow_ops.exit`): op `Exit`, default name
/// `Exit`; makes `data` available in the parent frame.
pub fn exit(s: &Scope, data: &Output) -> Result<Output> {
    forward(s, "Exit", data)
}

/// `tf.raw_ops.RefExit`: op `RefExit`, default name `RefExit`.
pub fn ref_exit(s: &Scope, data: &Output) -> Result<Output> {
    forward(s, "RefExit", data)
}

/// `tf.raw_ops.NextIteration`: op `NextIteration`, default name `NextIteration`; makes
/// `data` available to the next iteration (connect it to the loop's Merge with
/// [`crate::Graph::update_input`]).
pub fn next_iteration(s: &Scope, data: &Output) -> Result<Output> {
    forward(s, "NextIteration", data)
}

/// `tf.raw_ops.RefNextIteration`: op `RefNextIteration`, default name `RefNextIteration`.
pub fn ref_next_iteration(s: &Scope, data: &Output) -> Result<Output> {
    forward(s, "RefNextIteration", data)
}

/// `tf.raw_ops.LoopCond`: op `LoopCond`, default name `LoopCond`; a while loop's predicate
/// (a bool scalar). Errors: `InvalidArgument` for another dtype or a known rank other than 0.
pub fn loop_cond(s: &Scope, input: &Output) -> Result<Output> {
    s.op("LoopCond", "LoopCond").input(input).build_output()
}

/// `tf.raw_ops.ControlTrigger`: op `ControlTrigger`, default name `ControlTrigger`; a
/// no-op for control edges that runs even when its control inputs are dead.
pub fn control_trigger(s: &Scope) -> Result<Operation> {
    s.op("ControlTrigger", "ControlTrigger").build()
}
