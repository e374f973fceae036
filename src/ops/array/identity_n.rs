//! `IdentityN` (`tf.identity_n`): its inputs unchanged, one output per input. A function
//! call tensorgraph inlines on import becomes one, named as the call, forwarding the
//! function's returned tensors (see `io::graph_def`'s function instantiation).

use super::plain;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// `IdentityN(input: T)` (attr `T`, a list of dtypes, one per input): each input
/// unchanged, any dtypes and shapes. The gradient of each input is its output's.
pub struct IdentityN;
impl RegisteredOp for IdentityN {
    fn op_type(&self) -> &'static str {
        "IdentityN"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if let Some(AttrValue::ListType(types)) = ctx.node.attrs.get("T") {
            if types.len() != ctx.inputs.len() || types.iter().zip(ctx.inputs).any(|(t, (d, _))| t != d) {
                let got: Vec<String> = ctx.inputs.iter().map(|(d, _)| d.to_string()).collect();
                let want: Vec<String> = types.iter().map(|d| d.to_string()).collect();
                return Err(Error::invalid_argument(format!(
                    "IdentityN '{}': attr T is [{}] but the inputs are [{}]",
                    ctx.node.name,
                    want.join(", "),
                    got.join(", ")
                )));
            }
        }
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument(format!(
                "IdentityN '{}' needs at least one input (attr T has minimum length 1)",
                ctx.node.name
            )));
        }
        Ok(ctx.inputs.to_vec())
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(identity_n_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(ctx.grads.clone())
    }
}

fn identity_n_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    Ok(std::mem::take(&mut ctx.inputs))
}

/// `tf.identity_n(xs)`: op `IdentityN`, default name `IdentityN`; one output per input,
/// each unchanged. Errors: `InvalidArgument` for an empty `xs`.
pub fn identity_n(s: &Scope, xs: &[&Output]) -> Result<Vec<Output>> {
    let types: Vec<DType> = xs.iter().map(|x| x.dtype()).collect();
    let mut b = s.op("IdentityN", "IdentityN").attr("T", AttrValue::ListType(types));
    for x in xs {
        b = b.input(x);
    }
    let op = b.build()?;
    (0..xs.len()).map(|i| op.output(i)).collect()
}
