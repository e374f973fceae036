//! `CumulativeLogsumexp` (`tf.math.cumulative_logsumexp`): running `log(sum(exp(x)))`
//! along one axis, `exclusive` and `reverse` as `Cumsum`, with TensorFlow's gradient.

use super::arithmetic::{add, neg, sub};
use super::compare::{greater, less};
use super::cumulative::scan_axis;
use super::functions::{exp, log};
use super::select::where_v2;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{constant, int_values, scalar_like};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&CumulativeLogsumexp];

/// `CumulativeLogsumexp(x, axis)` (attrs `exclusive`, `reverse`, `T` float32, float64,
/// float16 or bfloat16, each step rounded to it as TensorFlow's kernel; `Tidx`): along `axis` (a 0-d int32/int64,
/// negative from the end), element `i` is `log(sum(exp(x[0..=i])))` (`0..i` when
/// `exclusive`, the first then `-inf`; counted from the end when `reverse`), accumulated
/// as TensorFlow's `LogSumExpReducer` (`max + log1p(exp(min - max))`, `-inf` kept). Same
/// shape. Errors: `InvalidArgument` with TensorFlow's `ScanOp: Expected scan axis in the
/// range [-1, 1), but got 1` when run (TensorFlow's shape function does not check it).
/// Gradient (TensorFlow's `_CumulativeLogsumexpGrad`): the incoming gradient split into
/// its positive and negative parts, each `exp(cumulative_logsumexp(log(part) - output,
/// reverse = not reverse) + x)`, their difference.
pub struct CumulativeLogsumexp;

impl RegisteredOp for CumulativeLogsumexp {
    fn op_type(&self) -> &'static str {
        "CumulativeLogsumexp"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, &[DType::Float, DType::Double, DType::Half, DType::BFloat16])?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        if let Some(r) = ctx.shape(1).rank().filter(|&r| r != 0) {
            return Err(Error::invalid_argument(format!("Shape must be rank 0 but is rank {r} (the scan axis)")));
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double | DType::Half | DType::BFloat16) {
            return Err(Error::invalid_argument(format!(
                "CumulativeLogsumexp {} supports float16, bfloat16, float32 and float64, not {t}",
                node.name
            )));
        }
        Ok(Box::new(LseKernel {
            exclusive: node.attr_bool_or("exclusive", false)?,
            reverse: node.attr_bool_or("reverse", false)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, axis, out) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.outputs[0]);
        let exclusive = ctx.node.attr_bool_or("exclusive", false)?;
        let reverse = ctx.node.attr_bool_or("reverse", false)?;
        let g = ctx.grad(0)?;
        let dt = g.dtype();
        let lowest = scalar_like(s, if dt == DType::Double { f64::MIN } else { f64::from(f32::MIN) }, dt)?;
        let zero = scalar_like(s, 0.0, dt)?;
        let pos = where_v2(s, &greater(s, &g, &zero)?, &log(s, &g)?, &lowest)?;
        let negs = where_v2(s, &less(s, &g, &zero)?, &log(s, &neg(s, &g)?)?, &lowest)?;
        let part = |p: &Output| -> Result<Output> {
            let c = cumulative_logsumexp_dyn(s, &sub(s, p, out)?, axis, exclusive, !reverse)?;
            exp(s, &add(s, &c, x)?)
        };
        Ok(vec![Some(sub(s, &part(&pos)?, &part(&negs)?)?), None])
    }
}

struct LseKernel {
    exclusive: bool,
    reverse: bool,
}

macro_rules! lse_scan {
    ($name:ident, $t:ty) => {
        fn $name(v: &[$t], sh: &[usize], axis: usize, exclusive: bool, reverse: bool) -> Vec<$t> {
            let (outer, n, inner) = (sh[..axis].iter().product::<usize>(), sh[axis], sh[axis + 1..].iter().product());
            let mut out = vec![0.0; v.len()];
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = <$t>::NEG_INFINITY;
                    for step in 0..n {
                        let j = if reverse { n - 1 - step } else { step };
                        let k = (o * n + j) * inner + i;
                        if exclusive {
                            out[k] = acc;
                        }
                        let (mi, ma) = if acc < v[k] { (acc, v[k]) } else { (v[k], acc) };
                        acc = if ma < <$t>::MIN { ma } else { (mi - ma).exp().ln_1p() + ma };
                        if !exclusive {
                            out[k] = acc;
                        }
                    }
                }
            }
            out
        }
    };
}
lse_scan!(lse_f32, f32);
lse_scan!(lse_f64, f64);

/// The narrow float scans: every operation rounded to the narrow type (its functions
/// computed in float32), as Eigen's `half`/`bfloat16` arithmetic computes
/// TensorFlow's reducer.
macro_rules! lse_narrow {
    ($name:ident, $t:ty) => {
        fn $name(v: &[$t], sh: &[usize], axis: usize, exclusive: bool, reverse: bool) -> Vec<$t> {
            let (outer, n, inner) = (sh[..axis].iter().product::<usize>(), sh[axis], sh[axis + 1..].iter().product());
            let r = <$t>::from_f32;
            let mut out = vec![<$t>::ZERO; v.len()];
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = <$t>::NEG_INFINITY;
                    for step in 0..n {
                        let j = if reverse { n - 1 - step } else { step };
                        let k = (o * n + j) * inner + i;
                        if exclusive {
                            out[k] = acc;
                        }
                        let (mi, ma) = if acc < v[k] { (acc, v[k]) } else { (v[k], acc) };
                        acc = if ma < <$t>::MIN {
                            ma
                        } else {
                            let d = r(mi.to_f32() - ma.to_f32());
                            let l = r(r(d.to_f32().exp()).to_f32().ln_1p());
                            r(l.to_f32() + ma.to_f32())
                        };
                        if !exclusive {
                            out[k] = acc;
                        }
                    }
                }
            }
            out
        }
    };
}
lse_narrow!(lse_f16, half::f16);
lse_narrow!(lse_bf16, half::bf16);

impl Kernel for LseKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, a) = (ctx.input(0), ctx.input(1));
        if a.rank() != 0 {
            return Err(Error::invalid_argument(format!("ScanOp: axis must be a scalar, not {}", fmt_dims(a.shape()))));
        }
        let axis = scan_axis(int_values(a)?[0], x.rank())?;
        let sh = x.shape();
        Ok(vec![match x.dtype() {
            DType::Float => Tensor::new(sh, lse_f32(x.as_slice::<f32>()?, sh, axis, self.exclusive, self.reverse))?,
            DType::Double => Tensor::new(sh, lse_f64(x.as_slice::<f64>()?, sh, axis, self.exclusive, self.reverse))?,
            DType::Half => Tensor::new(sh, lse_f16(x.as_slice()?, sh, axis, self.exclusive, self.reverse))?,
            DType::BFloat16 => Tensor::new(sh, lse_bf16(x.as_slice()?, sh, axis, self.exclusive, self.reverse))?,
            other => return Err(Error::internal(format!("CumulativeLogsumexp kernel run on {other}"))),
        }])
    }
}

/// `CumulativeLogsumexp` with the axis a 0-d int32/int64 tensor (see
/// [`CumulativeLogsumexp`]).
pub fn cumulative_logsumexp_dyn(
    s: &Scope,
    x: &Output,
    axis: &Output,
    exclusive: bool,
    reverse: bool,
) -> Result<Output> {
    s.op("CumulativeLogsumexp", "CumulativeLogsumexp")
        .input(x)
        .input(axis)
        .attr("exclusive", exclusive)
        .attr("reverse", reverse)
        .attr("T", x.dtype())
        .attr("Tidx", axis.dtype())
        .build_output()
}

/// `tf.math.cumulative_logsumexp(x, axis, exclusive, reverse)`: op `CumulativeLogsumexp`,
/// its axis a constant `CumulativeLogsumexp/axis`. float32, float64 (float16, bfloat16).
/// Errors: `InvalidArgument` for another dtype.
pub fn cumulative_logsumexp(s: &Scope, x: &Output, axis: i32, exclusive: bool, reverse: bool) -> Result<Output> {
    let (op, inner) = s.op_scope("CumulativeLogsumexp");
    let a = constant(&inner.named("axis"), Tensor::scalar(axis))?;
    cumulative_logsumexp_dyn(&op, x, &a, exclusive, reverse)
}
