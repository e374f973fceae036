//! What the variable ops share (reference variables in [`super::ref_variable`], resource
//! variables in [`super::resource_variable`], optimizer updates in [`super::training`]):
//! the variable ops' kernel, the uninitialized-resource error, the variable behind a resource handle at inference,
//! and the in-place add/subtract kernel. Each of those modules uses this one, none of
//! them the others' internals.

use super::kernels::broadcast_binary;
use super::{InferCtx, Kernel, KernelCtx};
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// The kernel of the variable ops (`VariableV2`, `VarHandleOp`): the executor resolves
/// their outputs to the session's variable buffers, so running one is a bug (`Internal`).
pub(crate) fn resolved_by_executor(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    Err(Error::internal(format!("{} '{}' is resolved by the executor, not run", ctx.op_type(), ctx.node_name())))
}

/// The `FailedPrecondition` for reading resource variable `name` before it is initialized
/// (TensorFlow's "Error while reading resource variable ..."), with what to do.
pub fn uninitialized_resource(name: &str) -> Error {
    Error::failed_precondition(format!(
        "Read of uninitialized variable {name}: Error while reading resource variable {name} from Container: localhost. This could mean that the variable was uninitialized. Run the initializer first (the op returned by global_variables_initializer, or {name}/Assign), or restore it from a checkpoint."
    ))
}

/// The variable dtype and declared shape behind resource input `i` (the `dtype` and `shape`
/// attrs of the `VarHandleOp` it comes from); `None` when the handle comes from another op.
/// Errors: `InvalidArgument` when input `i` is not a resource handle.
pub(super) fn handle_info(ctx: &InferCtx, i: usize) -> Result<Option<(DType, Shape)>> {
    if ctx.dtype(i) != DType::Resource {
        return Err(Error::invalid_argument(format!(
            "input {i} must be a resource handle (a VarHandleOp output), got a {} tensor",
            ctx.dtype(i)
        )));
    }
    let (src, _) = ctx.node.inputs[i];
    let n = &ctx.nodes[src];
    if n.op_type != "VarHandleOp" {
        return Ok(None);
    }
    Ok(Some((n.attr_type("dtype")?, n.attr_shape("shape")?.clone())))
}

/// The kernel of `AssignAdd`/`AssignSub` (reference variables, output: the new value) and
/// `AssignAddVariableOp`/`AssignSubVariableOp` (resource variables, no output): replaces the
/// variable at input 0 by its sum with (or difference from) input 1, of the same shape.
pub(super) struct AddToVariable {
    /// Subtract input 1 (`AssignSub*`) rather than add it.
    pub subtract: bool,
    /// Makes the error for an uninitialized variable (ref and resource variables word it
    /// differently).
    pub uninit: fn(&str) -> Error,
    /// Output the new value (`AssignAdd`, `AssignSub`).
    pub output: bool,
}

impl Kernel for AddToVariable {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let ty = ctx.op_type();
        let (slot, name) = ctx.var(0)?;
        let mut guard = slot.write().unwrap_or_else(|e| e.into_inner());
        let old = guard.as_ref().ok_or_else(|| (self.uninit)(name))?;
        let delta = ctx.input(1);
        let new = if self.subtract {
            crate::dispatch_numeric!(old.dtype(), ty, T => broadcast_binary::<T, T>(old, delta, |x, y| x - y))
        } else {
            crate::dispatch_numeric!(old.dtype(), ty, T => broadcast_binary::<T, T>(old, delta, |x, y| x + y))
        }?;
        if new.shape() != old.shape() {
            return Err(Error::invalid_argument(format!(
                "update of variable {name} must keep its shape {}, got {}",
                fmt_dims(old.shape()),
                fmt_dims(new.shape())
            )));
        }
        *guard = Some(new.clone());
        Ok(if self.output { vec![new] } else { vec![] })
    }
}
