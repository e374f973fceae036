//! `LogicalAnd` (bool, broadcasting): what TensorFlow's `while_loop(maximum_iterations=)`
//! combines its iteration-count test and the loop's condition with. No gradient.

use super::binary::broadcast_partial;
use crate::error::Result;
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::broadcast_binary;
use crate::ops::{FnKernel, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&LogicalAnd];

/// `LogicalAnd(x, y)`: bool `x && y` with broadcasting (no type attr).
/// Errors: `InvalidArgument` for non-bool inputs and shapes that do not broadcast.
pub struct LogicalAnd;
impl RegisteredOp for LogicalAnd {
    fn op_type(&self) -> &'static str {
        "LogicalAnd"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::Bool])?;
        ctx.check_dtype(1, &[DType::Bool])?;
        Ok(vec![(DType::Bool, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(and_kernel)))
    }
}

fn and_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    Ok(vec![broadcast_binary::<bool, bool>(ctx.input(0), ctx.input(1), |x, y| x && y)?])
}

/// `tf.logical_and(x, y)`: op `LogicalAnd`, default name `LogicalAnd`. Errors: as [`LogicalAnd`].
pub fn logical_and(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("LogicalAnd", "LogicalAnd").input(x).input(y).build_output()
}
