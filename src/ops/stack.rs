//! Stack ops (TensorFlow's `StackV2`, `StackPushV2`, `StackPopV2`, `StackCloseV2`): a
//! last-in first-out list of tensors that lives for one run. TensorFlow's gradients of
//! while loops use them: the forward loop pushes each iteration's values, the gradient
//! loop pops them in reverse order. A `StackV2` creates the stack in the run's
//! [`crate::ops::StepResources`] and outputs its handle (dtype `resource`; at run time
//! the string vector `["_stacks", name]`). Not differentiable.

use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::ops::step_resources::{handle_tensor, parse_handle, StepResource};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&StackV2, &StackPushV2, &StackPopV2, &StackCloseV2];

/// The container of stacks' handles.
const STACKS: &str = "_stacks";

/// One stack: its name (in messages), element dtype, bound (negative: none), elements.
struct Stack {
    name: String,
    dtype: DType,
    max_size: i64,
    closed: bool,
    elems: Vec<Tensor>,
}

impl Stack {
    fn check_open(&self) -> Result<()> {
        if self.closed {
            return Err(Error::invalid_argument(format!("Stack[{}] has already been closed.", self.name)));
        }
        Ok(())
    }
}

/// The stack behind handle input 0. Errors: `InvalidArgument` for a malformed handle,
/// `NotFound` when no stack of that name was created in this run.
fn lookup(ctx: &KernelCtx) -> Result<StepResource<Stack>> {
    let (container, name) = parse_handle(ctx.input(0), "Stack")?;
    ctx.step.get::<Stack>(&container, &name)?.ok_or_else(|| {
        Error::not_found(format!(
            "Resource {container}/{name} does not exist: stack {name} was not created in this run (its StackV2 op runs in the same Session::run as the ops using its handle)"
        ))
    })
}

fn lock(s: &StepResource<Stack>) -> std::sync::MutexGuard<'_, Stack> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// Errors unless input 0 is a handle.
fn check_handle(ctx: &InferCtx) -> Result<()> {
    match ctx.dtype(0) {
        DType::Resource | DType::String => Ok(()),
        d => Err(Error::invalid_argument(format!("input 0 (handle) must be a resource, got {d}"))),
    }
}

/// `StackV2(max_size)` (attrs `elem_type`, `stack_name`): a new empty stack holding at
/// most `max_size` (int32 scalar; negative: unbounded) tensors of `elem_type`; outputs its
/// handle. Its name in messages is `stack_name` (or the op's name) + `_N`.
pub struct StackV2;
impl RegisteredOp for StackV2 {
    fn op_type(&self) -> &'static str {
        "StackV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::Int32])?;
        Ok(vec![(DType::Resource, Shape::known(&[2]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let name = match node.attrs.get("stack_name") {
            Some(crate::graph::AttrValue::String(s)) if !s.is_empty() => String::from_utf8_lossy(s).into_owned(),
            _ => node.name.clone(),
        };
        Ok(Box::new(StackKernel { name, dtype: node.attr_type("elem_type")? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct StackKernel {
    name: String,
    dtype: DType,
}

impl Kernel for StackKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let max = ctx.input(0);
        if max.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "max_size must be a scalar, but had shape: {}",
                Shape::known(max.shape())
            )));
        }
        let max_size = max.to_f64_vec()?[0] as i64;
        let name = format!("{}_{}", self.name, ctx.step.next_id());
        let stack = Stack { name: name.clone(), dtype: self.dtype, max_size, closed: false, elems: Vec::new() };
        ctx.step.create(STACKS, &name, stack)?;
        Ok(vec![handle_tensor(STACKS, &name)])
    }
}

/// `StackPushV2(handle, elem)` (attrs `T`, `swap_memory`, which is ignored: everything is
/// in host memory): pushes `elem`, outputs it. Errors: `InvalidArgument` for a closed
/// stack, a full one (`max_size`), an element of another dtype.
pub struct StackPushV2;
impl RegisteredOp for StackPushV2 {
    fn op_type(&self) -> &'static str {
        "StackPushV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_handle(ctx)?;
        ctx.check_type_attr("T", 1)?;
        Ok(vec![ctx.inputs[1].clone()])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(push_kernel)))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

fn push_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let stack = lookup(ctx)?;
    let mut s = lock(&stack);
    s.check_open()?;
    let elem = ctx.input(1).clone();
    if elem.dtype() != s.dtype {
        return Err(Error::invalid_argument(format!(
            "Stack[{}]: cannot push a {} tensor onto a stack of {}",
            s.name,
            elem.dtype(),
            s.dtype
        )));
    }
    if s.max_size >= 0 && s.elems.len() as i64 >= s.max_size {
        return Err(Error::invalid_argument(format!("Stack[{}] overflowed its max_size ({})", s.name, s.max_size)));
    }
    s.elems.push(elem.clone());
    Ok(vec![elem])
}

/// `StackPopV2(handle)` (attr `elem_type`): the most recently pushed tensor, removed.
/// Errors: `InvalidArgument` "Stack\[NAME\] is empty." and for a closed stack or another dtype.
pub struct StackPopV2;
impl RegisteredOp for StackPopV2 {
    fn op_type(&self) -> &'static str {
        "StackPopV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        check_handle(ctx)?;
        Ok(vec![(ctx.node.attr_type("elem_type")?, Shape::unknown())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(PopKernel { dtype: node.attr_type("elem_type")? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

struct PopKernel {
    dtype: DType,
}

impl Kernel for PopKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let stack = lookup(ctx)?;
        let mut s = lock(&stack);
        s.check_open()?;
        if s.dtype != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Stack[{}] holds {} tensors, but the op pops {}",
                s.name, s.dtype, self.dtype
            )));
        }
        let name = s.name.clone();
        s.elems.pop().map(|t| vec![t]).ok_or_else(|| Error::invalid_argument(format!("Stack[{name}] is empty.")))
    }
}

/// `StackCloseV2(handle)`: frees the elements; later pushes and pops are errors.
pub struct StackCloseV2;
impl RegisteredOp for StackCloseV2 {
    fn op_type(&self) -> &'static str {
        "StackCloseV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        check_handle(ctx)?;
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(crate::ops::FnKernel(|ctx| {
            let stack = lookup(ctx)?;
            let mut s = lock(&stack);
            s.elems.clear();
            s.closed = true;
            Ok(vec![])
        })))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `StackV2(max_size)`: a new stack of `elem_type` tensors (`max_size` int32 scalar,
/// negative: unbounded) named `stack_name` in messages; returns its handle.
pub fn stack_v2(s: &Scope, max_size: &Output, elem_type: DType, stack_name: &str) -> Result<Output> {
    s.op("StackV2", "StackV2")
        .input(max_size)
        .attr("elem_type", elem_type)
        .attr("stack_name", stack_name)
        .build_output()
}

/// `StackPushV2(handle, elem)`: pushes `elem`; returns it.
pub fn stack_push_v2(s: &Scope, handle: &Output, elem: &Output) -> Result<Output> {
    s.op("StackPushV2", "StackPushV2").input(handle).input(elem).attr("T", elem.dtype()).build_output()
}

/// `StackPopV2(handle)`: the last pushed tensor (of `elem_type`), removed from the stack.
pub fn stack_pop_v2(s: &Scope, handle: &Output, elem_type: DType) -> Result<Output> {
    s.op("StackPopV2", "StackPopV2").input(handle).attr("elem_type", elem_type).build_output()
}

/// `StackCloseV2(handle)`: closes the stack.
pub fn stack_close_v2(s: &Scope, handle: &Output) -> Result<Operation> {
    s.op("StackCloseV2", "StackCloseV2").input(handle).build()
}
