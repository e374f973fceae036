//! Variable ops: VariableV2, Assign, AssignAdd, AssignSub (reference variables), and the
//! TensorFlow 1.x forms `Variable` (the pre-1.0 reference variable) and
//! `IsVariableInitialized`.

use super::variable_common::AddToVariable;
use super::{FnKernel, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{Node, Operation, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] =
    &[&VariableV2, &Variable, &Assign, &AssignAdd, &AssignSub, &IsVariableInitialized];

/// `VariableV2`: a reference variable (attrs `shape`, `dtype`, `container`, `shared_name`).
/// Its value lives in the session; the executor reads it when a consumer runs.
pub struct VariableV2;
impl RegisteredOp for VariableV2 {
    fn op_type(&self) -> &'static str {
        "VariableV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        Ok(vec![(ctx.node.attr_type("dtype")?, ctx.node.attr_shape("shape")?.clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(super::variable_common::resolved_by_executor)))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `Variable`: the reference variable of TensorFlow before 1.0 (`tf.Variable` emitted it
/// until `VariableV2` replaced it), with `VariableV2`'s attrs (`shape`, `dtype`, `container`,
/// `shared_name`) and kernel: the session holds its value, so graphs written by old
/// TensorFlow versions import, initialize, train and save as if they used `VariableV2`.
pub struct Variable;
impl RegisteredOp for Variable {
    fn op_type(&self) -> &'static str {
        "Variable"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        VariableV2.infer(ctx)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        VariableV2.prepare(node)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `IsVariableInitialized(ref)`: a bool scalar, true once the reference variable at input 0
/// (a `VariableV2` or `Variable` output, attr `dtype`) holds a value
/// (`tf.compat.v1.is_variable_initialized`). Reading an uninitialized variable is its
/// purpose, so it never fails on one.
pub struct IsVariableInitialized;
impl RegisteredOp for IsVariableInitialized {
    fn op_type(&self) -> &'static str {
        "IsVariableInitialized"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("dtype", 0)?;
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
}

/// `tf.compat.v1.is_variable_initialized(variable)`: op `IsVariableInitialized`, default name
/// `IsVariableInitialized`; a bool scalar. `variable` must be a reference variable's output
/// (`v:0` of a `VariableV2` or `Variable`); for a resource variable (its `VarHandleOp`
/// handle) it is `VarIsInitializedOp`, as TensorFlow's `is_variable_initialized` picks.
/// Errors: `InvalidArgument` when run on an input that is not a variable.
pub fn is_variable_initialized(s: &Scope, variable: &Output) -> Result<Output> {
    if variable.dtype() == DType::Resource {
        return super::resource_variable::var_is_initialized_op(s, variable);
    }
    s.op("IsVariableInitialized", "IsVariableInitialized")
        .input(variable)
        .attr("dtype", variable.dtype())
        .build_output()
}

/// `Assign`: stores input 1 into the variable at input 0 and outputs the new value.
pub struct Assign;
impl RegisteredOp for Assign {
    fn op_type(&self) -> &'static str {
        "Assign"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.same_dtypes()?;
        if ctx.node.attr_bool_or("validate_shape", true)? && !ctx.shape(0).compatible(ctx.shape(1)) {
            return Err(Error::invalid_argument(format!(
                "Assign requires shapes of both tensors to match. lhs shape= {} rhs shape= {}",
                ctx.shape(0),
                ctx.shape(1)
            )));
        }
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        // use_locking: the kernel always holds the variable's lock while it writes
        node.attr_bool_or("use_locking", true)?;
        let declared = match node.attr_bool_or("validate_shape", true)? {
            true => Some(node.outputs.first().map(|(_, s)| s.clone()).unwrap_or_else(Shape::unknown)),
            false => None,
        };
        Ok(Box::new(AssignKernel { declared }))
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of `Assign`.
struct AssignKernel {
    /// The variable's declared shape the value must be compatible with (`validate_shape`);
    /// `None`: any shape may be stored.
    declared: Option<Shape>,
}

impl Kernel for AssignKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (slot, name) = ctx.var(0)?;
        let value = ctx.input(1).clone();
        if let Some(declared) = &self.declared {
            if !declared.is_compatible_with(value.shape()) {
                return Err(Error::invalid_argument(format!(
                    "Assign requires shapes of both tensors to match. lhs shape= {declared} rhs shape= {} (variable {name})",
                    fmt_dims(value.shape())
                )));
            }
        }
        *slot.write().unwrap_or_else(|e| e.into_inner()) = Some(value.clone());
        Ok(vec![value])
    }
}

macro_rules! assign_update {
    ($name:ident, $ty:expr, $subtract:expr, $doc:expr) => {
        #[doc = $doc]
        pub struct $name;
        impl RegisteredOp for $name {
            fn op_type(&self) -> &'static str {
                $ty
            }
            fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
                ctx.expect_inputs(2)?;
                ctx.same_dtypes()?;
                Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
            }
            fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
                // use_locking: the kernel always holds the variable's lock while it updates
                node.attr_bool_or("use_locking", false)?;
                Ok(Box::new(AddToVariable { subtract: $subtract, uninit: super::uninitialized, output: true }))
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
assign_update!(
    AssignAdd,
    "AssignAdd",
    false,
    "`AssignAdd`: adds input 1 to the variable at input 0; outputs the new value."
);
assign_update!(
    AssignSub,
    "AssignSub",
    true,
    "`AssignSub`: subtracts input 1 from the variable at input 0; outputs the new value."
);

/// The variable's own output behind `reference`: for the value snapshot a [`Variable`]
/// derefs to (`v/read`, an `Identity` of a `VariableV2`; `v/Read/ReadVariableOp` of a
/// `VarHandleOp`), the variable `v:0` (reference or handle), as `tf.assign(v, ...)` takes
/// the variable itself; any other output unchanged.
///
/// [`Variable`]: crate::Variable
fn variable_of(reference: &Output) -> Output {
    let g = reference.graph().read();
    let var = crate::graph::snapshot_variable(&g.nodes, reference.key());
    drop(g);
    match var {
        Some(v) => Output { graph: reference.graph().clone(), op: v, index: 0 },
        None => reference.clone(),
    }
}

/// The value of resource variable `handle` after `update` (a `ReadVariableOp` in `s`'s name
/// scope that runs after it), what TensorFlow's `assign*` on a resource variable returns.
fn read_after(s: &Scope, handle: &Output, update: &Operation) -> Result<Output> {
    super::resource_variable::read_variable_op(&s.name_scope("").with_control_dependencies(&[update]), handle)
}

/// `tf.assign(ref, value)`: an `Assign` op (default name `Assign`), `use_locking` and
/// `validate_shape` true. `reference` must be a variable's `v:0` output, or the value
/// snapshot a [`crate::Variable`] derefs to (the variable is then assigned). For a resource
/// variable (`reference` is its `VarHandleOp` handle) it is an `AssignVariableOp` (default
/// name `AssignVariableOp`) and the result a `ReadVariableOp` run after it.
pub fn assign(s: &Scope, reference: &Output, value: &Output) -> Result<Output> {
    let reference = &variable_of(reference);
    if reference.dtype() == DType::Resource {
        let op = super::resource_variable::assign_variable_op(s, reference, value)?;
        return read_after(s, reference, &op);
    }
    s.op("Assign", "Assign")
        .input(reference)
        .input(value)
        .attr("T", reference.dtype())
        .attr("use_locking", true)
        .attr("validate_shape", true)
        .build_output()
}

/// `tf.assign_add(ref, delta)` (for a resource handle: `AssignAddVariableOp`, then a read).
pub fn assign_add(s: &Scope, reference: &Output, delta: &Output) -> Result<Output> {
    let reference = &variable_of(reference);
    if reference.dtype() == DType::Resource {
        let op = super::resource_variable::assign_add_variable_op(s, reference, delta)?;
        return read_after(s, reference, &op);
    }
    s.op("AssignAdd", "AssignAdd")
        .input(reference)
        .input(delta)
        .attr("T", reference.dtype())
        .attr("use_locking", false)
        .build_output()
}

/// `tf.assign_sub(ref, delta)` (for a resource handle: `AssignSubVariableOp`, then a read).
pub fn assign_sub(s: &Scope, reference: &Output, delta: &Output) -> Result<Output> {
    let reference = &variable_of(reference);
    if reference.dtype() == DType::Resource {
        let op = super::resource_variable::assign_sub_variable_op(s, reference, delta)?;
        return read_after(s, reference, &op);
    }
    s.op("AssignSub", "AssignSub")
        .input(reference)
        .input(delta)
        .attr("T", reference.dtype())
        .attr("use_locking", false)
        .build_output()
}
