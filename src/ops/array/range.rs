//! `Range` (`tf.range`).

use super::{const_under, plain, NUMBERS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, try_collect, DType, Shape, Tensor};

/// `Range(start, limit, delta)`: `[start, start + delta, ...)` up to `limit` (exclusive),
/// 0-d inputs of attr `Tidx` (float32, float64, int32, int64).
pub struct Range;
impl Range {
    fn count(start: f64, limit: f64, delta: f64) -> Result<usize> {
        if delta == 0.0 {
            return Err(Error::invalid_argument(format!("Requires delta != 0: {delta}")));
        }
        if delta > 0.0 && start > limit {
            return Err(Error::invalid_argument(format!("Requires start <= limit when delta > 0: {start}/{limit}")));
        }
        if delta < 0.0 && start < limit {
            return Err(Error::invalid_argument(format!("Requires start >= limit when delta < 0: {start}/{limit}")));
        }
        let n = ((limit - start) / delta).ceil();
        if !n.is_finite() || n > 1e12 {
            return Err(Error::invalid_argument(format!("Range of {start}..{limit} by {delta} is too large")));
        }
        Ok(n as usize)
    }
    fn scalar_f64(t: &Tensor, what: &str) -> Result<f64> {
        match t.to_f64_vec()?[..] {
            [x] if t.rank() == 0 || t.rank() == 1 => Ok(x),
            _ => Err(Error::invalid_argument(format!("{what} must be a scalar, not shape {}", fmt_dims(t.shape())))),
        }
    }
}
impl RegisteredOp for Range {
    fn op_type(&self) -> &'static str {
        "Range"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.same_dtypes_as("Tidx")?;
        ctx.check_dtype(0, NUMBERS)?;
        let vals: Option<Vec<f64>> =
            (0..3).map(|i| ctx.const_input(i).and_then(|v| Self::scalar_f64(&v, "range argument").ok())).collect();
        let n = match vals {
            Some(v) => Some(Self::count(v[0], v[1], v[2])?),
            None => None,
        };
        Ok(vec![(t, Shape::partial(&[n]))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(range_kernel)
    }
}

/// The `Range` kernel, of the dtype of its inputs.
fn range_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let t = ctx.input(0).dtype();
    let start = Range::scalar_f64(ctx.input(0), "start")?;
    let limit = Range::scalar_f64(ctx.input(1), "limit")?;
    let delta = Range::scalar_f64(ctx.input(2), "delta")?;
    let n = Range::count(start, limit, delta)?;
    // n comes from the inputs: the output is allocated fallibly (ResourceExhausted)
    let out = match t {
        DType::Int32 => {
            Tensor::vector(try_collect((0..n).map(|i| (start as i64 + i as i64 * delta as i64) as i32), t)?)
        }
        DType::Int64 => Tensor::vector(try_collect((0..n).map(|i| start as i64 + i as i64 * delta as i64), t)?),
        DType::Float => {
            let (a, d) = (start as f32, delta as f32);
            Tensor::vector(try_collect((0..n).map(|i| a + i as f32 * d), t)?)
        }
        DType::Double => Tensor::vector(try_collect((0..n).map(|i| start + i as f64 * delta), t)?),
        other => return Err(Error::invalid_argument(format!("Range has no kernel for dtype {other}"))),
    };
    Ok(vec![out])
}

/// `tf.range(start, limit, delta)` with int32 constants `range/start`, `range/limit`,
/// `range/delta`: op `Range` (attr `Tidx = int32`), default name `range`. Errors:
/// `InvalidArgument` for `delta = 0` or a `start`/`limit` order against `delta`'s sign.
pub fn range(s: &Scope, start: i32, limit: i32, delta: i32) -> Result<Output> {
    let base = s.unique_op_name("range");
    let a = const_under(s, &base, "start", Tensor::scalar(start))?;
    let b = const_under(s, &base, "limit", Tensor::scalar(limit))?;
    let c = const_under(s, &base, "delta", Tensor::scalar(delta))?;
    range_dyn(&s.named(&format!("{base}/")), &a, &b, &c)
}

/// `tf.range(0, limit)` for a 0-d int32 tensor `limit`: constants `range/start` (0) and
/// `range/delta` (1) and op `Range` named `range`, the nodes TensorFlow's Python builds for
/// the axes of a reduction over every dimension of a tensor whose rank is unknown.
pub(crate) fn range_from_zero(s: &Scope, limit: &Output) -> Result<Output> {
    let base = s.unique_op_name("range");
    let start = const_under(s, &base, "start", Tensor::scalar(0i32))?;
    let delta = const_under(s, &base, "delta", Tensor::scalar(1i32))?;
    range_dyn(&s.named(&format!("{base}/")), &start, limit, &delta)
}

/// `Range` with 0-d tensor arguments of one dtype (float32, float64, int32, int64). As [`range`].
pub fn range_dyn(s: &Scope, start: &Output, limit: &Output, delta: &Output) -> Result<Output> {
    s.op("Range", "range").input(start).input(limit).input(delta).attr("Tidx", start.dtype()).build_output()
}
