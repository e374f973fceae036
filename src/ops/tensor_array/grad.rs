//! Gradients of the TensorArray ops, as TensorFlow's `tensor_array_grad.py`: the gradient
//! of a read is a write into the forward array's gradient array (`TensorArrayGradV3`
//! with source `gradients`, the name of the `tf.gradients` call), the gradient of a write
//! a read from it; gather and scatter, concat and split likewise. The gradient array adds
//! up writes to one index, and reading an index no gradient reached gives zeros.

use super::build::{
    tensor_array_concat_v3, tensor_array_gather_v3, tensor_array_grad_v3, tensor_array_read_v3,
    tensor_array_scatter_v3, tensor_array_split_v3, tensor_array_write_v3,
};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::ops::array::identity;
use crate::ops::GradCtx;
use crate::tensor::Shape;

/// The gradient computation `t` belongs to (TensorFlow's `_GetGradSource`): its name up to
/// the last component starting with `gradients` (`gradients`, `outer/gradients_1`).
/// Errors: `InvalidArgument` when no component does.
pub(crate) fn grad_source(t: &Output) -> Result<String> {
    let name = t.op().name();
    let parts: Vec<&str> = name.split('/').collect();
    match parts.iter().rposition(|p| p.starts_with("gradients")) {
        Some(i) => Ok(parts[..=i].join("/")),
        None => Err(Error::invalid_argument(format!(
            "Expected op/tensor name to start with gradients (excluding scope), got: {}. This means that a gradients call with this op in its dependency path has a custom name that does not start with 'gradients'.",
            t.name()
        ))),
    }
}

/// `TensorArray(handle, flow).grad(source, flow)`: the gradient array's handle and the
/// flow to use it with (`TensorArrayGrad/TensorArrayGradV3`, `TensorArrayGrad/gradient_flow`).
fn grad_array(s: &Scope, handle: &Output, flow: &Output, source: &str) -> Result<(Output, Output)> {
    let gs = s.name_scope("TensorArrayGrad");
    let (g_handle, _) = tensor_array_grad_v3(&gs, handle, flow, source)?;
    let flow = identity(&gs.with_control_dependencies(&[&g_handle.op()]).named("gradient_flow"), flow)?;
    Ok((g_handle, flow))
}

/// The flow a write-like op's gradient reads the gradient array with: the incoming flow
/// gradient after the forward op (`flow_out`, `write_barrier`).
fn write_barrier(ctx: &GradCtx, flow: &Output) -> Result<Output> {
    let flow_out = identity(&ctx.scope.named("flow_out"), &ctx.outputs[0])?;
    identity(&ctx.scope.with_control_dependencies(&[&flow_out.op()]).named("write_barrier"), flow)
}

/// The incoming gradient of output `i`, which must be there (the op's value output).
fn incoming(ctx: &GradCtx, i: usize) -> Result<Output> {
    ctx.grads[i].clone().ok_or_else(|| Error::internal(format!("no gradient reaches {}:{i}", ctx.node.name)))
}

/// `TensorArrayReadV3(handle, index, flow)`: writes the gradient at `index` of the
/// gradient array; the flow of that write is the gradient of `flow`.
pub(crate) fn read_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let grad = incoming(ctx, 0)?;
    let (handle, index, flow) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2]);
    let (g, g_flow) = grad_array(ctx.scope, handle, flow, &grad_source(&grad)?)?;
    let w = tensor_array_write_v3(&ctx.scope.name_scope("TensorArrayWrite"), &g, index, &grad, &g_flow)?;
    Ok(vec![None, None, Some(w)])
}

/// `TensorArrayWriteV3(handle, index, value, flow)`: the value's gradient is read from
/// the gradient array at `index`; the incoming flow gradient passes on.
pub(crate) fn write_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let flow = incoming(ctx, 0)?;
    let dtype = ctx.node.attr_type("T")?;
    let source = grad_source(&flow)?;
    let flow = write_barrier(ctx, &flow)?;
    let (g, g_flow) = grad_array(ctx.scope, &ctx.inputs[0], &flow, &source)?;
    let grad = tensor_array_read_v3(ctx.scope, &g, &ctx.inputs[1], &g_flow, dtype)?;
    Ok(vec![None, None, Some(grad), Some(flow)])
}

/// `TensorArrayGatherV3(handle, indices, flow)`: scatters the gradient into the gradient
/// array at `indices`.
pub(crate) fn gather_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let grad = incoming(ctx, 0)?;
    let (handle, indices, flow) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2]);
    let (g, g_flow) = grad_array(ctx.scope, handle, flow, &grad_source(&grad)?)?;
    let u = tensor_array_scatter_v3(&ctx.scope.name_scope("TensorArrayScatter"), &g, indices, &grad, &g_flow)?;
    Ok(vec![None, None, Some(u)])
}

/// `TensorArrayScatterV3(handle, indices, value, flow)`: the value's gradient is gathered
/// from the gradient array at `indices`.
pub(crate) fn scatter_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let flow = incoming(ctx, 0)?;
    let dtype = ctx.node.attr_type("T")?;
    let source = grad_source(&flow)?;
    let flow = write_barrier(ctx, &flow)?;
    let (g, g_flow) = grad_array(ctx.scope, &ctx.inputs[0], &flow, &source)?;
    let grad = tensor_array_gather_v3(ctx.scope, &g, &ctx.inputs[1], &g_flow, dtype, &Shape::unknown())?;
    Ok(vec![None, None, Some(grad), Some(flow)])
}

/// `TensorArrayConcatV3(handle, flow)`: splits the gradient into the gradient array by
/// the forward `lengths`.
pub(crate) fn concat_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let grad = incoming(ctx, 0)?;
    let (handle, flow, lengths) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.outputs[1]);
    let (g, g_flow) = grad_array(ctx.scope, handle, flow, &grad_source(&grad)?)?;
    // the forward lengths are int64 already: TensorFlow's cast to int64 adds no op
    let u = tensor_array_split_v3(&ctx.scope.name_scope("TensorArraySplit"), &g, &grad, lengths, &g_flow)?;
    Ok(vec![None, Some(u)])
}

/// `TensorArraySplitV3(handle, value, lengths, flow)`: the value's gradient is the
/// gradient array concatenated.
pub(crate) fn split_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let flow = incoming(ctx, 0)?;
    let dtype = ctx.node.attr_type("T")?;
    let source = grad_source(&flow)?;
    let flow = write_barrier(ctx, &flow)?;
    let (g, g_flow) = grad_array(ctx.scope, &ctx.inputs[0], &flow, &source)?;
    let (grad, _) = tensor_array_concat_v3(ctx.scope, &g, &g_flow, dtype, &Shape::unknown())?;
    Ok(vec![None, Some(grad), None, Some(flow)])
}
