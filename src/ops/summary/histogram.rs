//! `HistogramSummary` and TensorFlow's histogram (`tensorflow/core/lib/histogram`): the
//! default bucket limits (±1e-12 growing by 10% up to 1e20, then ±`f64::MAX`, and 0), the
//! moments, and the proto with runs of empty buckets collapsed, so the same values give
//! the same [`HistogramProto`] as TensorFlow's op.

use super::{collect, scalar_string, summary_scope, summary_tensor, REAL_NUMBER_TYPES};
use crate::error::{Error, Result};
use crate::format::proto::{HistogramProto, Summary, SummaryKind, SummaryValue};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::constant;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use std::sync::LazyLock;

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&HistogramSummary];

/// TensorFlow's default bucket limits, ascending: `-f64::MAX`, the negated positive limits
/// in reverse, `0`, then the positive limits `1e-12 * 1.1^k` (while below `1e20`) and `f64::MAX`.
pub fn default_bucket_limits() -> &'static [f64] {
    static LIMITS: LazyLock<Vec<f64>> = LazyLock::new(|| {
        let mut pos = Vec::new();
        let mut v = 1.0e-12;
        while v < 1.0e20 {
            pos.push(v);
            v *= 1.1;
        }
        pos.push(f64::MAX);
        let mut all: Vec<f64> = pos.iter().rev().map(|x| -x).collect();
        all.push(0.0);
        all.extend_from_slice(&pos);
        all
    });
    &LIMITS
}

/// The histogram of `values` over [`default_bucket_limits`], as TensorFlow's
/// `Histogram::EncodeToProto(proto, false)`: a value counts in the first bucket whose limit
/// is greater than it; min/max/num/sum/sum_squares in f64 (an empty input keeps min
/// `f64::MAX` and max `-f64::MAX`); a run of empty buckets is one entry with the run's last
/// limit. Values must be finite (the op checks).
pub fn histogram_proto(values: &[f64]) -> HistogramProto {
    let limits = default_bucket_limits();
    let mut counts = vec![0.0f64; limits.len()];
    let mut h = HistogramProto { min: f64::MAX, max: -f64::MAX, ..Default::default() };
    for &v in values {
        let b = limits.partition_point(|&l| l <= v).min(limits.len() - 1);
        counts[b] += 1.0;
        h.min = h.min.min(v);
        h.max = h.max.max(v);
        h.num += 1.0;
        h.sum += v;
        h.sum_squares += v * v;
    }
    let mut i = 0;
    while i < counts.len() {
        let (mut end, mut count) = (limits[i], counts[i]);
        i += 1;
        if count <= 0.0 {
            while i < counts.len() && counts[i] <= 0.0 {
                (end, count) = (limits[i], counts[i]);
                i += 1;
            }
        }
        h.bucket_limit.push(end);
        h.bucket.push(count);
    }
    h
}

/// `HistogramSummary(tag, values)` (attr `T`, a real number type, default float32): a
/// `Summary` with one value tagged by the string scalar `tag` holding [`histogram_proto`] of
/// all of `values` (any shape). Errors when run: `InvalidArgument` `Nan in summary histogram
/// for: TAG` and `Infinity in Histogram for: TAG` (TensorFlow's wordings) for the first
/// non-finite value; a non-scalar tag.
pub struct HistogramSummary;
impl RegisteredOp for HistogramSummary {
    fn op_type(&self) -> &'static str {
        "HistogramSummary"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::String])?;
        ctx.check_dtype(1, REAL_NUMBER_TYPES)?;
        ctx.check_type_attr("T", 1)?;
        if let Some(r @ 1..) = ctx.shape(0).rank() {
            return Err(Error::invalid_argument(format!("the tag of HistogramSummary must be a scalar, got rank {r}")));
        }
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(HistogramKernel))
    }
}

/// The prepared `HistogramSummary`.
struct HistogramKernel;
impl Kernel for HistogramKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let tag = String::from_utf8_lossy(scalar_string(ctx, 0, "tag")?).into_owned();
        let values = ctx.input(1).to_f64_vec()?;
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            let what = if bad.is_nan() { "Nan in summary histogram for: " } else { "Infinity in Histogram for: " };
            return Err(Error::invalid_argument(format!("{what}{tag}")));
        }
        let value =
            SummaryValue { tag, value: Some(SummaryKind::Histo(histogram_proto(&values))), ..Default::default() };
        Ok(vec![summary_tensor(&Summary { value: vec![value] })])
    }
}

/// `tf.compat.v1.summary.histogram(name, values)`: op `HistogramSummary` named `name`
/// (cleaned, uniquified) with the constant `name/tag`, tagged with the op's full name, added
/// to the `summaries` collection. `values`: any shape of a real number type.
pub fn histogram(s: &Scope, name: &str, values: &Output) -> Result<Output> {
    let (op, inner, tag) = summary_scope(s, name);
    let tag = constant(&inner.named("tag"), Tensor::strings(&[], vec![tag.into_bytes()])?)?;
    let out = op
        .op("HistogramSummary", "HistogramSummary")
        .input(&tag)
        .input(values)
        .attr("T", values.dtype())
        .build_output()?;
    collect(out)
}
