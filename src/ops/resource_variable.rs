//! Resource-variable ops (TensorFlow's `ResourceVariable`, what TF2 writes by default):
//! `VarHandleOp`, `ReadVariableOp`, `AssignVariableOp`, `AssignAddVariableOp`,
//! `AssignSubVariableOp`, `VarIsInitializedOp`, `VariableShape`, and the optimizer updates
//! `ResourceApplyGradientDescent`, `ResourceApplyMomentum`, `ResourceApplyAdam`.
//!
//! A `VarHandleOp`'s output has dtype [`DType::Resource`], but no handle tensor ever exists
//! at run time: the session keeps one buffer per resource, keyed as TensorFlow's resource
//! manager keys it ([`resource_key`]: container and `shared_name`, so that every handle op
//! naming one resource reaches one buffer), and hands it to the kernels that take the handle
//! (their [`RegisteredOp::ref_inputs`]). The optimizer
//! updates share their shape checks and kernels with the reference forms in
//! [`super::training`].

use super::training::{self, Access};
use super::variable_common::{handle_info, AddToVariable};
use super::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Operation, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

use super::variable_common::uninitialized_resource;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &VarHandleOp,
    &ReadVariableOp,
    &AssignVariableOp,
    &AssignAddVariableOp,
    &AssignSubVariableOp,
    &VarIsInitializedOp,
    &DisableCopyOnRead,
    &VariableShape,
    &ResourceApplyGradientDescent,
    &ResourceApplyMomentum,
    &ResourceApplyAdam,
];

/// Checks a value of `value` (dtype, shape) against the variable behind handle input 0,
/// and against the op's `dtype` attr (TensorFlow's shape function merges the shapes).
fn check_value(ctx: &InferCtx, what: &str, value: usize) -> Result<()> {
    let dtype = ctx.node.attr_type("dtype")?;
    if ctx.dtype(value) != dtype {
        return Err(Error::invalid_argument(format!(
            "{what}: the value has dtype {} but the op's dtype attr is {dtype}",
            ctx.dtype(value)
        )));
    }
    if let Some((var_dtype, shape)) = handle_info(ctx, 0)? {
        if var_dtype != dtype {
            return Err(Error::invalid_argument(format!(
                "{what}: variable has dtype {var_dtype}, the op's dtype attr is {dtype}"
            )));
        }
        if !shape.compatible(ctx.shape(value)) {
            return Err(Error::invalid_argument(format!(
                "{what}: Shapes must be compatible: the variable has shape {shape}, the value {}",
                ctx.shape(value)
            )));
        }
    }
    Ok(())
}

/// TensorFlow's `ResourceHandle::ANONYMOUS_NAME`: a `VarHandleOp` whose `shared_name` is this
/// makes a variable of its own (what eager TF2 code creates), shared with no other op.
pub const ANONYMOUS_NAME: &str = "cd2c89b7-88b7-44c8-ad83-06c2a9158347";

/// The container TensorFlow's resource manager uses when an op's `container` attr is empty.
pub const DEFAULT_CONTAINER: &str = "localhost";

/// Where a `VarHandleOp`'s variable lives in the session, as TensorFlow's resource manager
/// keys it: `(container, shared_name)`, an empty `container` being [`DEFAULT_CONTAINER`]. Every
/// `VarHandleOp` of a session with the same pair names the same variable, whatever its node
/// name: the handles a TF2 SavedModel's restore function and its signatures take, a function
/// body inlined at several call sites, two imports of one graph. An empty `shared_name` is a
/// name like any other (TF shares it too). `None` for an anonymous variable (`shared_name`
/// [`ANONYMOUS_NAME`]): the op's variable is its own.
/// Keys are bytes, as the attrs are. Errors: `InvalidArgument` when `container` or
/// `shared_name` is not a string attr.
pub fn resource_key(node: &Node) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
    let attr = |name: &str| -> Result<Vec<u8>> {
        match node.attrs.get(name) {
            None => Ok(Vec::new()),
            Some(AttrValue::String(s)) => Ok(s.clone()),
            Some(other) => Err(Error::invalid_argument(format!(
                "{} '{}': attr '{name}' must be a string, got {other:?}",
                node.op_type, node.name
            ))),
        }
    };
    let shared_name = attr("shared_name")?;
    if shared_name == ANONYMOUS_NAME.as_bytes() {
        return Ok(None);
    }
    let container = attr("container")?;
    let container = if container.is_empty() { DEFAULT_CONTAINER.as_bytes().to_vec() } else { container };
    Ok(Some((container, shared_name)))
}

/// `VarHandleOp`: a resource variable (attrs `dtype`, `shape`, `container`, `shared_name`,
/// `debug_name`, `allowed_devices`). Its output is the handle (dtype `resource`, shape `[]`);
/// the value lives in the session under [`resource_key`] (`(container, shared_name)`, as in
/// TensorFlow's resource manager), so all handle ops with the same key share one variable.
pub struct VarHandleOp;
impl RegisteredOp for VarHandleOp {
    fn op_type(&self) -> &'static str {
        "VarHandleOp"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let dtype = ctx.node.attr_type("dtype")?;
        dtype.check_storage("the value of a resource variable")?;
        ctx.node.attr_shape("shape")?;
        resource_key(ctx.node)?;
        Ok(vec![(DType::Resource, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(super::variable_common::resolved_by_executor)))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `ReadVariableOp(resource)`: the variable's current value (attr `dtype`); its shape is
/// the `VarHandleOp`'s declared `shape`. Gradient: the incoming gradient, passed to the
/// handle (so `tf.gradients` with respect to a resource variable sums over all its reads).
pub struct ReadVariableOp;
impl RegisteredOp for ReadVariableOp {
    fn op_type(&self) -> &'static str {
        "ReadVariableOp"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let dtype = ctx.node.attr_type("dtype")?;
        match handle_info(ctx, 0)? {
            Some((var_dtype, _)) if var_dtype != dtype => {
                Err(Error::invalid_argument(format!("reading a {var_dtype} variable with dtype attr {dtype}")))
            }
            Some((_, shape)) => Ok(vec![(dtype, shape)]),
            None => Ok(vec![(dtype, Shape::unknown())]),
        }
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ReadKernel { dtype: node.attr_type("dtype")? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![Some(ctx.grad(0)?)])
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of `ReadVariableOp`.
struct ReadKernel {
    /// The dtype the variable must have (attr `dtype`).
    dtype: DType,
}

impl Kernel for ReadKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (slot, name) = ctx.var(0)?;
        let value =
            slot.read().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(|| uninitialized_resource(name))?;
        if value.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Trying to read variable {name} with wrong dtype. Expected {} got {}",
                self.dtype,
                value.dtype()
            )));
        }
        Ok(vec![value])
    }
}

/// `AssignVariableOp(resource, value)`: stores `value` in the variable (attrs `dtype`,
/// `validate_shape`, default false: when true and the variable holds a value, the new value
/// must have its shape). No outputs.
pub struct AssignVariableOp;
impl RegisteredOp for AssignVariableOp {
    fn op_type(&self) -> &'static str {
        "AssignVariableOp"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        check_value(ctx, "AssignVariableOp", 1)?;
        Ok(vec![])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(AssignKernel {
            dtype: node.attr_type("dtype")?,
            validate_shape: node.attr_bool_or("validate_shape", false)?,
        }))
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of `AssignVariableOp`.
struct AssignKernel {
    /// The dtype the value must have (attr `dtype`).
    dtype: DType,
    /// When the variable holds a value, the new one must have its shape (attr `validate_shape`).
    validate_shape: bool,
}

impl Kernel for AssignKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (slot, name) = ctx.var(0)?;
        let value = ctx.input(1).clone();
        if value.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Trying to assign variable {name} with wrong dtype. Expected {} got {}",
                self.dtype,
                value.dtype()
            )));
        }
        let mut guard = slot.write().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = guard.as_ref().filter(|_| self.validate_shape) {
            if old.shape() != value.shape() {
                return Err(Error::invalid_argument(format!(
                    "Trying to assign to variable {name} with tensor with wrong shape. Expected {} got {}",
                    fmt_dims(old.shape()),
                    fmt_dims(value.shape())
                )));
            }
        }
        *guard = Some(value);
        Ok(vec![])
    }
}

macro_rules! assign_update_variable {
    ($name:ident, $ty:expr, $subtract:expr, $doc:expr) => {
        #[doc = $doc]
        pub struct $name;
        impl RegisteredOp for $name {
            fn op_type(&self) -> &'static str {
                $ty
            }
            fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
                ctx.expect_inputs(2)?;
                check_value(ctx, $ty, 1)?;
                Ok(vec![])
            }
            fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
                node.attr_type("dtype")?;
                Ok(Box::new(AddToVariable { subtract: $subtract, uninit: uninitialized_resource, output: false }))
            }
            fn ref_inputs(&self) -> &'static [usize] {
                &[0]
            }
            fn is_stateful(&self) -> bool {
                true
            }
        }
    };
}
assign_update_variable!(
    AssignAddVariableOp,
    "AssignAddVariableOp",
    false,
    "`AssignAddVariableOp(resource, value)`: adds `value` to the variable (attr `dtype`). No outputs."
);
assign_update_variable!(
    AssignSubVariableOp,
    "AssignSubVariableOp",
    true,
    "`AssignSubVariableOp(resource, value)`: subtracts `value` from the variable (attr `dtype`). No outputs."
);

/// `VarIsInitializedOp(resource)`: a bool scalar, true once the variable holds a value.
pub struct VarIsInitializedOp;
impl RegisteredOp for VarIsInitializedOp {
    fn op_type(&self) -> &'static str {
        "VarIsInitializedOp"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        handle_info(ctx, 0)?;
        Ok(vec![(DType::Bool, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|ctx| {
            let (slot, _) = ctx.var(0)?;
            let init = slot.read().unwrap_or_else(|e| e.into_inner()).is_some();
            Ok(vec![Tensor::scalar(init)])
        })))
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `DisableCopyOnRead(resource)`: TensorFlow 2's checkpoint functions (`_traced_save`) call
/// it on each variable before reading it, to switch the variable out of copy-on-read
/// mode. tensorgraph's variables have no such mode (a read shares the buffer and writes
/// copy on write), so the op does nothing; no outputs.
pub struct DisableCopyOnRead;
impl RegisteredOp for DisableCopyOnRead {
    fn op_type(&self) -> &'static str {
        "DisableCopyOnRead"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|_| Ok(vec![]))))
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `VariableShape(resource)`: the variable's shape as a vector of `out_type` (int32, the
/// default, or int64); TensorFlow's gradient of a resource read in a `tf.cond` branch
/// builds its zeros with it. Errors: `FailedPrecondition` when the variable is
/// uninitialized; `InvalidArgument` when a dimension does not fit in int32.
pub struct VariableShape;
impl RegisteredOp for VariableShape {
    fn op_type(&self) -> &'static str {
        "VariableShape"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let rank = handle_info(ctx, 0)?.and_then(|(_, shape)| shape.rank());
        let out = ctx.node.attr_type("out_type").unwrap_or(DType::Int32);
        Ok(vec![(out, Shape::partial(&[rank]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let out = node.attr_type("out_type").unwrap_or(DType::Int32);
        let kernel: fn(&mut KernelCtx) -> Result<Vec<Tensor>> = match out {
            DType::Int64 => |ctx| variable_shape(ctx, DType::Int64),
            _ => |ctx| variable_shape(ctx, DType::Int32),
        };
        Ok(Box::new(FnKernel(kernel)))
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
}

fn variable_shape(ctx: &mut KernelCtx, out: DType) -> Result<Vec<Tensor>> {
    let (slot, name) = ctx.var(0)?;
    let guard = slot.read().unwrap_or_else(|e| e.into_inner());
    let value = guard.as_ref().ok_or_else(|| uninitialized_resource(name))?;
    let dims: Vec<i64> = value.shape().iter().map(|&d| d as i64).collect();
    if out == DType::Int32 && dims.iter().any(|&d| d > i32::MAX as i64) {
        return Err(Error::invalid_argument(format!(
            "the shape {} of variable {name} does not fit in int32; set out_type to int64",
            fmt_dims(value.shape())
        )));
    }
    let f: Vec<f64> = dims.iter().map(|&d| d as f64).collect();
    Ok(vec![Tensor::from_f64(out, &[dims.len()], &f)?])
}

/// `ResourceApplyGradientDescent(var, alpha, delta)`: `var -= alpha * delta` (attrs `T`,
/// `use_locking`). No outputs. Kernel shared with `ApplyGradientDescent`.
pub struct ResourceApplyGradientDescent;
impl RegisteredOp for ResourceApplyGradientDescent {
    fn op_type(&self) -> &'static str {
        "ResourceApplyGradientDescent"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        training::infer_gradient_descent(ctx, Access::Resource)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        training::prepare_gradient_descent(node, Access::Resource)
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `ResourceApplyMomentum(var, accum, lr, grad, momentum)` (attrs `T`, `use_locking`,
/// `use_nesterov`). No outputs. Kernel shared with `ApplyMomentum`.
pub struct ResourceApplyMomentum;
impl RegisteredOp for ResourceApplyMomentum {
    fn op_type(&self) -> &'static str {
        "ResourceApplyMomentum"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        training::infer_momentum(ctx, Access::Resource)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        training::prepare_momentum(node, Access::Resource)
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0, 1]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `ResourceApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)`
/// (attrs `T`, `use_locking`, `use_nesterov`). No outputs. Kernel shared with `ApplyAdam`.
pub struct ResourceApplyAdam;
impl RegisteredOp for ResourceApplyAdam {
    fn op_type(&self) -> &'static str {
        "ResourceApplyAdam"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        training::infer_adam(ctx, Access::Resource)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        training::prepare_adam(node, Access::Resource)
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0, 1, 2]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The variable dtype behind `handle` (its `VarHandleOp`'s `dtype` attr).
/// Errors: `InvalidArgument` when `handle` is not a `VarHandleOp` output.
pub fn handle_dtype(handle: &Output) -> Result<DType> {
    let node = handle.op().node();
    if node.op_type != "VarHandleOp" {
        return Err(Error::invalid_argument(format!(
            "{} is not a resource variable handle (a VarHandleOp output); it comes from a {} op",
            handle.name(),
            node.op_type
        )));
    }
    node.attr_type("dtype")
}

/// `read_variable_op(handle)`: a `ReadVariableOp` (default name `ReadVariableOp`) reading
/// the current value of the variable behind `handle`.
pub fn read_variable_op(s: &Scope, handle: &Output) -> Result<Output> {
    s.op("ReadVariableOp", "ReadVariableOp").input(handle).attr("dtype", handle_dtype(handle)?).build_output()
}

/// `assign_variable_op(handle, value)`: an `AssignVariableOp` (default name
/// `AssignVariableOp`, `validate_shape` false, as TensorFlow builds it).
pub fn assign_variable_op(s: &Scope, handle: &Output, value: &Output) -> Result<Operation> {
    s.op("AssignVariableOp", "AssignVariableOp")
        .input(handle)
        .input(value)
        .attr("_has_manual_control_dependencies", true)
        .attr("dtype", handle_dtype(handle)?)
        .attr("validate_shape", false)
        .build()
}

/// `assign_add_variable_op(handle, delta)`: an `AssignAddVariableOp` (default name `AssignAddVariableOp`).
pub fn assign_add_variable_op(s: &Scope, handle: &Output, delta: &Output) -> Result<Operation> {
    s.op("AssignAddVariableOp", "AssignAddVariableOp")
        .input(handle)
        .input(delta)
        .attr("_has_manual_control_dependencies", true)
        .attr("dtype", handle_dtype(handle)?)
        .build()
}

/// `assign_sub_variable_op(handle, delta)`: an `AssignSubVariableOp` (default name `AssignSubVariableOp`).
pub fn assign_sub_variable_op(s: &Scope, handle: &Output, delta: &Output) -> Result<Operation> {
    s.op("AssignSubVariableOp", "AssignSubVariableOp")
        .input(handle)
        .input(delta)
        .attr("_has_manual_control_dependencies", true)
        .attr("dtype", handle_dtype(handle)?)
        .build()
}

/// `var_is_initialized_op(handle)`: a `VarIsInitializedOp` (default name `VarIsInitializedOp`).
pub fn var_is_initialized_op(s: &Scope, handle: &Output) -> Result<Output> {
    s.op("VarIsInitializedOp", "VarIsInitializedOp").input(handle).build_output()
}
