//! `StopGradient` (`tf.stop_gradient`) and `PreventGradient`: their input unchanged when
//! run; for gradients, a wall: none flows through `StopGradient`, and asking for one
//! through `PreventGradient` is an error carrying its `message`.

use super::pass_through;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, RegisteredOp};
use crate::tensor::{DType, Shape};

/// `StopGradient(input)`: `input` unchanged (any dtype); no gradient flows through it
/// (TensorFlow's `NotDifferentiable`).
pub struct StopGradient;
impl RegisteredOp for StopGradient {
    fn op_type(&self) -> &'static str {
        "StopGradient"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        input_unchanged(ctx)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        pass_through()
    }
}

/// `PreventGradient(input)` (attr `message`): `input` unchanged (any dtype); building a
/// gradient through it is `InvalidArgument` with TensorFlow's text `Gradient explicitly
/// disabled. Reason: <message>`.
pub struct PreventGradient;
impl RegisteredOp for PreventGradient {
    fn op_type(&self) -> &'static str {
        "PreventGradient"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        input_unchanged(ctx)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        pass_through()
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let message = match ctx.node.attrs.get("message") {
            Some(AttrValue::String(m)) => String::from_utf8_lossy(m).into_owned(),
            _ => String::new(),
        };
        Err(Error::invalid_argument(format!("Gradient explicitly disabled. Reason: {message}")))
    }
}

/// The shape function of both: one input of dtype `T`, passed through as it is.
fn input_unchanged(ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
    ctx.expect_inputs(1)?;
    ctx.check_type_attr("T", 0)?;
    Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
}

/// `tf.stop_gradient(x)`: op `StopGradient`, default name `StopGradient`; `x` unchanged,
/// a constant for gradients.
pub fn stop_gradient(s: &Scope, x: &Output) -> Result<Output> {
    s.op("StopGradient", "StopGradient").input(x).attr("T", x.dtype()).build_output()
}

/// `PreventGradient(x, message)`: op `PreventGradient`, default name `PreventGradient`;
/// `x` unchanged, and `gradients` through it fail with `message` (see [`PreventGradient`]).
pub fn prevent_gradient(s: &Scope, x: &Output, message: &str) -> Result<Output> {
    s.op("PreventGradient", "PreventGradient").input(x).attr("T", x.dtype()).attr("message", message).build_output()
}
