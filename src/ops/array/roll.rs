//! `Roll` (`tf.roll`): elements shifted cyclically along axes.

use super::{int_values, plain, INTS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&Roll];

/// `Roll(input, shift, axis)`: `input` (every dtype, rank at least 1) with its elements
/// moved `shift[i]` places along `axis[i]`, wrapping around (negative shifts move back,
/// negative axes count from the end, shifts on a repeated axis add up). `shift` and `axis`
/// are int32/int64 scalars or vectors of one length (attrs `Tshift`, `Taxis`). Errors
/// (`InvalidArgument`, TensorFlow's messages): a scalar input, arguments of other ranks or
/// lengths, an axis out of range. Gradient (`_RollGrad`): `Roll(grad, Neg(shift), axis)`.
pub struct Roll;
impl RegisteredOp for Roll {
    fn op_type(&self) -> &'static str {
        "Roll"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        if ctx.shape(0).rank() == Some(0) {
            return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0"));
        }
        for i in [1, 2] {
            if ctx.shape(i).rank().is_some_and(|r| r > 1) {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at most rank 1 but is rank {}",
                    ctx.shape(i).rank().unwrap_or(0)
                )));
            }
        }
        if let (Some(a), Some(b)) = (ctx.shape(1).dims(), ctx.shape(2).dims()) {
            let (la, lb) = (a.first().copied().unwrap_or(Some(1)), b.first().copied().unwrap_or(Some(1)));
            if let (Some(la), Some(lb)) = (la, lb) {
                if la != lb && a.len() == 1 && b.len() == 1 {
                    return Err(Error::invalid_argument(format!(
                        "Dimension 0 in both shapes must be equal, but are {la} and {lb}. Shapes are [{la}] and [{lb}]."
                    )));
                }
            }
        }
        Ok(vec![(ctx.dtype(0), ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(roll_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let back = s.op("Neg", "Neg").input(&ctx.inputs[1]).attr("T", ctx.inputs[1].dtype()).build_output()?;
        Ok(vec![Some(roll(s, &ctx.grad(0)?, &back, &ctx.inputs[2])?), None, None])
    }
}

fn roll_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (x, sh, ax) = (ctx.input(0), ctx.input(1), ctx.input(2));
    if x.rank() < 1 {
        return Err(Error::invalid_argument("input must be 1-D or higher"));
    }
    if sh.rank() > 1 {
        return Err(Error::invalid_argument(format!(
            "shift must be a scalar or a 1-D vector. Found: {}",
            fmt_dims(sh.shape())
        )));
    }
    if ax.rank() > 1 {
        return Err(Error::invalid_argument(format!(
            "axis must be a scalar or a 1-D vector. Found: {}",
            fmt_dims(ax.shape())
        )));
    }
    let (shifts, axes) = (int_values(sh)?, int_values(ax)?);
    if shifts.len() != axes.len() {
        return Err(Error::invalid_argument("shift and axis must have the same size"));
    }
    let d = x.shape();
    let r = d.len() as i64;
    let mut total = vec![0i64; d.len()];
    for (&s, &a) in shifts.iter().zip(&axes) {
        let a2 = if a < 0 { a + r } else { a };
        if !(0..r).contains(&a2) {
            return Err(Error::invalid_argument(format!("axis {a} is out of range")));
        }
        total[a2 as usize] += s;
    }
    // out[(i + shift) mod n] = in[i]: each output index reads in[(o - shift) mod n]
    let n = x.num_elements();
    let mut flat = Vec::with_capacity(n);
    let mut pos = vec![0usize; d.len()];
    for _ in 0..n {
        let mut src = 0;
        for (k, &dk) in d.iter().enumerate() {
            let dk = dk as i64;
            src = src * dk as usize + (pos[k] as i64 - total[k]).rem_euclid(dk.max(1)) as usize;
        }
        flat.push(src);
        for k in (0..d.len()).rev() {
            pos[k] += 1;
            if pos[k] < d[k] {
                break;
            }
            pos[k] = 0;
        }
    }
    Ok(vec![Tensor::from_storage(d, x.storage().try_gather(&flat)?)?])
}

/// `tf.roll(x, shift, axis)`: op `Roll`, default name `Roll`; same dtype and shape as
/// `x`. See [`Roll`] for the arguments and errors.
pub fn roll(s: &Scope, x: &Output, shift: &Output, axis: &Output) -> Result<Output> {
    s.op("Roll", "Roll")
        .input(x)
        .input(shift)
        .input(axis)
        .attr("T", x.dtype())
        .attr("Tshift", shift.dtype())
        .attr("Taxis", axis.dtype())
        .build_output()
}
