//! Logging ops (TensorFlow's `logging_ops`): `Assert` (fails the run when its condition is
//! false, quoting its data) and `Print` (passes its input through and writes its data to
//! standard error). Both quote tensors as [`Tensor::summarize_value`] does.

use super::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Operation, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};
use std::sync::atomic::{AtomicI64, Ordering};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Assert, &Print];

/// The `summarize` attr (default 3; negative: every value).
fn summarize(node: &Node) -> Result<i64> {
    node.attr_int_or("summarize", 3)
}

/// The data tensors of a message, each `[values]` (TensorFlow's format).
fn bracketed(data: &[Tensor], summarize: i64, sep: &str) -> String {
    data.iter().map(|t| format!("[{}]", t.summarize_value(summarize))).collect::<Vec<_>>().join(sep)
}

/// `Assert(condition, data...)`: when the bool scalar `condition` is false, the run fails
/// with `InvalidArgument` `assertion failed: [d0] [d1] ...`, each data tensor (list attr
/// `T`, any dtypes) summarized to its first `summarize` (attr, default 3) values as
/// TensorFlow writes them (`[1 2 3...]`). No outputs; a stateful op that graphs run through
/// control dependencies (`tf.debugging.Assert`). Errors: `InvalidArgument` `In[0] should be
/// a scalar: [1]` for a non-scalar condition.
pub struct Assert;
impl RegisteredOp for Assert {
    fn op_type(&self) -> &'static str {
        "Assert"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("Assert needs a condition and at least one data tensor"));
        }
        ctx.check_dtype(0, &[DType::Bool])?;
        Ok(vec![])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(AssertKernel { summarize: summarize(node)? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The prepared `Assert`: how many values of each data tensor to quote.
struct AssertKernel {
    summarize: i64,
}

impl Kernel for AssertKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let cond = ctx.input(0);
        if cond.rank() != 0 {
            return Err(Error::invalid_argument(format!(
                "In[0] should be a scalar: {}",
                fmt_dims(cond.shape()).replace(", ", ",")
            )));
        }
        if cond.as_slice::<bool>()?[0] {
            return Ok(vec![]);
        }
        Err(Error::invalid_argument(format!("assertion failed: {}", bracketed(&ctx.inputs[1..], self.summarize, " "))))
    }
}

/// `Print(input, data...)`: outputs `input` unchanged and writes one line to standard error:
/// the `message` attr followed by each data tensor (list attr `U`) as `[values]`, summarized
/// to `summarize` (attr, default 3) values (`msg: [1 2...][s]`). With `first_n` (attr,
/// default -1: always) of 0 or more it prints only on its first `first_n` runs (counted per
/// prepared node, that is per session run signature). Gradient (TensorFlow's `_PrintGrad`):
/// the incoming gradient to `input`.
pub struct Print;
impl RegisteredOp for Print {
    fn op_type(&self) -> &'static str {
        "Print"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("Print needs an input"));
        }
        ctx.check_type_attr("T", 0)?;
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let message = match node.attrs.get("message") {
            None => Vec::new(),
            Some(AttrValue::String(s)) => s.clone(),
            Some(v) => {
                return Err(Error::invalid_argument(format!(
                    "attr 'message' of op '{}' (Print) should be a string, got {v:?}",
                    node.name
                )))
            }
        };
        Ok(Box::new(PrintKernel {
            message: String::from_utf8_lossy(&message).into_owned(),
            first_n: node.attr_int_or("first_n", -1)?,
            summarize: summarize(node)?,
            printed: AtomicI64::new(0),
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let mut out = vec![ctx.grads[0].clone()];
        out.resize(ctx.inputs.len(), None);
        Ok(out)
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The prepared `Print`: its message, print limit and count.
struct PrintKernel {
    message: String,
    first_n: i64,
    summarize: i64,
    printed: AtomicI64,
}

impl Kernel for PrintKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let print = self.first_n < 0 || self.printed.fetch_add(1, Ordering::SeqCst) < self.first_n;
        if print {
            eprintln!("{}{}", self.message, bracketed(&ctx.inputs[1..], self.summarize, ""));
        }
        Ok(vec![ctx.input(0).clone()])
    }
}

/// `tf.debugging.Assert(condition, data, summarize)`: op `Assert` (attrs `T`, `summarize`),
/// default name `Assert`; run it (as a target or a control dependency) to check `condition`.
/// Errors when run as [`Assert`]'s.
pub fn assert_op(s: &Scope, condition: &Output, data: &[Output], summarize: i64) -> Result<Operation> {
    s.op("Assert", "Assert")
        .input(condition)
        .inputs(data)
        .attr("T", AttrValue::ListType(data.iter().map(|d| d.dtype()).collect()))
        .attr("summarize", summarize)
        .build()
}

/// `tf.compat.v1.Print(input, data, message, first_n, summarize)`: op `Print`, default name
/// `Print`; `input` passed through, `message` and `data` written to standard error when run.
pub fn print_op(
    s: &Scope,
    input: &Output,
    data: &[Output],
    message: &str,
    first_n: i64,
    summarize: i64,
) -> Result<Output> {
    s.op("Print", "Print")
        .input(input)
        .inputs(data)
        .attr("T", input.dtype())
        .attr("U", AttrValue::ListType(data.iter().map(|d| d.dtype()).collect()))
        .attr("message", message)
        .attr("first_n", first_n)
        .attr("summarize", summarize)
        .build_output()
}
