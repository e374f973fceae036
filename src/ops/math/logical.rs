//! `LogicalAnd`, `LogicalOr` (bool, broadcasting) and `LogicalNot`. None has a gradient.

use super::binary::broadcast_partial;
use crate::error::Result;
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::{broadcast_binary, unary_map};
use crate::ops::{FnKernel, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&LOGICAL_AND, &LOGICAL_OR, &LogicalNot];

/// `LogicalAnd(x, y)`: bool `x && y` with broadcasting.
pub static LOGICAL_AND: LogicalBinary = LogicalBinary { op_type: "LogicalAnd", f: and_kernel };

/// `LogicalOr(x, y)`: bool `x || y` with broadcasting.
pub static LOGICAL_OR: LogicalBinary = LogicalBinary { op_type: "LogicalOr", f: or_kernel };

fn and_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    Ok(vec![broadcast_binary::<bool, bool>(ctx.input(0), ctx.input(1), |x, y| x && y)?])
}

fn or_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    Ok(vec![broadcast_binary::<bool, bool>(ctx.input(0), ctx.input(1), |x, y| x || y)?])
}

/// A bool op of two inputs with NumPy broadcasting (no type attr: TensorFlow's
/// `LogicalAnd` and `LogicalOr`). Errors: `InvalidArgument` for non-bool inputs and shapes
/// that do not broadcast (at build time when known, naming both).
pub struct LogicalBinary {
    op_type: &'static str,
    f: fn(&mut KernelCtx) -> Result<Vec<Tensor>>,
}

impl RegisteredOp for LogicalBinary {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::Bool])?;
        ctx.check_dtype(1, &[DType::Bool])?;
        Ok(vec![(DType::Bool, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(self.f)))
    }
}

/// `LogicalNot(x)`: bool `!x`, same shape. Errors: `InvalidArgument` for a non-bool input.
pub struct LogicalNot;
impl RegisteredOp for LogicalNot {
    fn op_type(&self) -> &'static str {
        "LogicalNot"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::Bool])?;
        Ok(vec![(DType::Bool, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|ctx| Ok(vec![unary_map::<bool, bool>(ctx.input(0), |x| !x)?]))))
    }
}

/// `tf.logical_and(x, y)`: op `LogicalAnd`, default name `LogicalAnd`; bool inputs and
/// output, broadcasting. Errors: `InvalidArgument` for non-bool inputs or shapes that do
/// not broadcast.
pub fn logical_and(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("LogicalAnd", "LogicalAnd").input(x).input(y).build_output()
}

/// `tf.logical_or(x, y)`: op `LogicalOr`, default name `LogicalOr`; as [`logical_and`].
pub fn logical_or(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("LogicalOr", "LogicalOr").input(x).input(y).build_output()
}

/// `tf.logical_not(x)`: op `LogicalNot`, default name `LogicalNot`; bool `!x`.
pub fn logical_not(s: &Scope, x: &Output) -> Result<Output> {
    s.op("LogicalNot", "LogicalNot").input(x).build_output()
}
