//! `SparseSegmentSum`, `SparseSegmentMean`, `SparseSegmentSqrtN` (`tf.sparse.segment_sum`,
//! `segment_mean`, `segment_sqrt_n`: rows of `data` picked by `indices`, reduced by sorted
//! `segment_ids`) and their gradient ops `SparseSegmentSumGrad`, `SparseSegmentMeanGrad`,
//! `SparseSegmentSqrtNGrad`, and the `...GradV2` ops TensorFlow builds for a reduction made
//! with `sparse_gradient=True` (`tf.nn.embedding_lookup_sparse`): the gradient's rows for
//! the distinct indices only, with those indices sorted.

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{constant, gather, int_values, shape};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &SparseSegment { kind: Kind::Sum, op: Op::Reduce },
    &SparseSegment { kind: Kind::Mean, op: Op::Reduce },
    &SparseSegment { kind: Kind::SqrtN, op: Op::Reduce },
    &SparseSegment { kind: Kind::Sum, op: Op::Grad },
    &SparseSegment { kind: Kind::Mean, op: Op::Grad },
    &SparseSegment { kind: Kind::SqrtN, op: Op::Grad },
    &SparseSegment { kind: Kind::Sum, op: Op::GradV2 },
    &SparseSegment { kind: Kind::Mean, op: Op::GradV2 },
    &SparseSegment { kind: Kind::SqrtN, op: Op::GradV2 },
];

/// The reduction, its dense gradient, or its gradient over the distinct indices.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Reduce,
    Grad,
    GradV2,
}

/// Which reduction: the sum, the sum over the count, the sum over its square root.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `SparseSegmentSum`.
    Sum,
    /// `SparseSegmentMean`.
    Mean,
    /// `SparseSegmentSqrtN`.
    SqrtN,
}

impl Kind {
    /// The weight of a segment of `count` rows.
    fn weight(self, count: f64) -> f64 {
        match self {
            Kind::Sum => 1.0,
            Kind::Mean => 1.0 / count.max(1.0),
            Kind::SqrtN => 1.0 / count.max(1.0).sqrt(),
        }
    }
}

/// `SparseSegmentSum(data, indices, segment_ids)` (and `Mean`, `SqrtN`; attrs `T`, `Tidx`,
/// `Tsegmentids`, int32/int64 indices and ids): `output[s] = sum of data[indices[i]] for
/// the i with segment_ids[i] == s` (over the count, or its square root), `[last id + 1,
/// data.shape[1:]]`, empty segments zero. float32, float64 (`Sum` also int32, int64).
/// `SparseSegmentSumGrad(grad, indices, segment_ids, output_dim0)` (and `Mean`, `SqrtN`):
/// the gradient with respect to `data`, `[output_dim0, grad.shape[1:]]`.
/// `SparseSegmentSumGradV2(grad, indices, segment_ids, dense_output_dim0)` (and `Mean`,
/// `SqrtN`): the same gradient's rows at the distinct `indices` only, `[u,
/// grad.shape[1:]]`, and those `u` indices sorted (`sorted_unique_indices`). Errors
/// (`InvalidArgument`, TensorFlow's texts): `indices should be a vector.`, `segment_ids
/// should be a vector.`, `segment_ids and indices should have same size.`, `segment ids are
/// not increasing`, `Segment id -1 out of range [0, 1), possibly because 'segment_ids' input
/// is not sorted.`, `Bad: indices[1] == 7 out of range [0, 4)`. Gradient of the reductions:
/// their `...Grad` op (as TensorFlow's); the `...Grad` ops have none.
pub struct SparseSegment {
    kind: Kind,
    op: Op,
}

impl RegisteredOp for SparseSegment {
    fn op_type(&self) -> &'static str {
        match (self.kind, self.op) {
            (Kind::Sum, Op::Reduce) => "SparseSegmentSum",
            (Kind::Mean, Op::Reduce) => "SparseSegmentMean",
            (Kind::SqrtN, Op::Reduce) => "SparseSegmentSqrtN",
            (Kind::Sum, Op::Grad) => "SparseSegmentSumGrad",
            (Kind::Mean, Op::Grad) => "SparseSegmentMeanGrad",
            (Kind::SqrtN, Op::Grad) => "SparseSegmentSqrtNGrad",
            (Kind::Sum, Op::GradV2) => "SparseSegmentSumGradV2",
            (Kind::Mean, Op::GradV2) => "SparseSegmentMeanGradV2",
            (Kind::SqrtN, Op::GradV2) => "SparseSegmentSqrtNGradV2",
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let grad = self.op != Op::Reduce;
        ctx.expect_inputs(if grad { 4 } else { 3 })?;
        ctx.check_type_attr("T", 0)?;
        let floats = [DType::Float, DType::Double];
        let all = [DType::Float, DType::Double, DType::Int32, DType::Int64];
        let t = ctx.check_dtype(0, if self.kind == Kind::Sum && !grad { &all } else { &floats })?;
        let tidx = ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        ctx.check_dtype(2, &[DType::Int32, DType::Int64])?;
        let data = ctx.shape(0);
        if let Some(0) = data.rank() {
            return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0"));
        }
        for i in [1, 2] {
            if let Some(r) = ctx.shape(i).rank().filter(|&r| r != 1) {
                return Err(Error::invalid_argument(format!("Shape must be rank 1 but is rank {r}")));
            }
        }
        if let (Some(a), Some(b)) = (ctx.shape(1).dim(0), ctx.shape(2).dim(0)) {
            if a != b {
                return Err(Error::invalid_argument(format!(
                    "Dimension 0 in both shapes must be equal, but are {a} and {b}. Shapes are [{a}] and [{b}]."
                )));
            }
        }
        if self.op == Op::GradV2 {
            let out = match data.dims() {
                Some(d) => std::iter::once(None).chain(d[1..].iter().copied()).collect(),
                None => Shape::unknown(),
            };
            return Ok(vec![(t, out), (tidx, Shape::partial(&[None]))]);
        }
        let rows = if grad {
            ctx.const_input(3).and_then(|t| int_values(&t).ok()).and_then(|v| v.first().map(|&d| d.max(0) as usize))
        } else {
            None
        };
        let out = match data.dims() {
            Some(d) => std::iter::once(rows).chain(d[1..].iter().copied()).collect(),
            None => Shape::unknown(),
        };
        Ok(vec![(t, out)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SegmentKernel { kind: self.kind, op: self.op }))
    }
    /// The dense `...Grad` op, also for a reduction made with `sparse_gradient=True` (for
    /// which TensorFlow builds the `...GradV2` op and an `IndexedSlices`: the same values
    /// once made dense).
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if self.op != Op::Reduce {
            return Ok(vec![None; 4]);
        }
        let s = ctx.scope;
        let zero = constant(s, Tensor::scalar(0i32))?;
        let dim0 = gather(s, &shape(s, &ctx.inputs[0])?, &zero, 0)?;
        let g = sparse_segment_grad(s, self.kind, &ctx.grad(0)?, &ctx.inputs[1], &ctx.inputs[2], &dim0)?;
        Ok(vec![Some(g), None, None])
    }
}

struct SegmentKernel {
    kind: Kind,
    op: Op,
}

impl Kernel for SegmentKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (data, indices, ids) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if indices.rank() != 1 {
            return Err(Error::invalid_argument("indices should be a vector."));
        }
        if ids.rank() != 1 {
            return Err(Error::invalid_argument("segment_ids should be a vector."));
        }
        let (idx, seg) = (int_values(indices)?, int_values(ids)?);
        if idx.len() != seg.len() {
            return Err(Error::invalid_argument("segment_ids and indices should have same size."));
        }
        if data.rank() < 1 {
            return Err(Error::invalid_argument("Shape must be at least rank 1"));
        }
        let inner: usize = data.shape()[1..].iter().product();
        let v = data.to_f64_vec()?;
        if self.op != Op::Reduce {
            return self.grad_kernel(ctx, &v, &idx, &seg, inner);
        }
        let n = data.shape()[0] as i64;
        let rows = seg.last().map_or(0, |&l| l + 1);
        if rows < 0 {
            return Err(Error::invalid_argument("segment ids must be >= 0"));
        }
        let mut out = vec![0.0; rows as usize * inner];
        // TensorFlow's loop: a segment's extent, then its id's order and range, then its rows.
        let mut start = 0;
        while start < seg.len() {
            let id = seg[start];
            let mut end = start + 1;
            while end < seg.len() && seg[end] == id {
                end += 1;
            }
            if end < seg.len() && id >= seg[end] {
                return Err(Error::invalid_argument("segment ids are not increasing"));
            }
            if !(0..rows).contains(&id) {
                return Err(Error::invalid_argument(format!(
                    "Segment id {id} out of range [0, {rows}), possibly because 'segment_ids' input is not sorted."
                )));
            }
            let o = &mut out[id as usize * inner..(id as usize + 1) * inner];
            for (i, &r) in idx.iter().enumerate().take(end).skip(start) {
                if !(0..n).contains(&r) {
                    return Err(Error::invalid_argument(format!("Bad: indices[{i}] == {r} out of range [0, {n})")));
                }
                for (a, b) in o.iter_mut().zip(&v[r as usize * inner..(r as usize + 1) * inner]) {
                    *a += b;
                }
            }
            let w = self.kind.weight((end - start) as f64);
            o.iter_mut().for_each(|a| *a *= w);
            start = end;
        }
        let mut shape = data.shape().to_vec();
        shape[0] = rows as usize;
        Ok(vec![Tensor::from_f64(data.dtype(), &shape, &out)?])
    }
}

impl SegmentKernel {
    /// The `...Grad` and `...GradV2` ops (TensorFlow's `SparseSegmentGradOpBase` and
    /// `SparseSegmentGradV2OpBase`).
    fn grad_kernel(&self, ctx: &KernelCtx, g: &[f64], idx: &[i64], seg: &[i64], inner: usize) -> Result<Vec<Tensor>> {
        let grad = ctx.input(0);
        let d0 = ctx.input(3);
        if d0.rank() != 0 {
            let name = if self.op == Op::GradV2 { "dense_output_dim0" } else { "output_dim0" };
            return Err(Error::invalid_argument(format!("{name} should be a scalar.")));
        }
        let rows = int_values(d0)?[0];
        let segments = grad.shape()[0] as i64;
        let mut count = vec![0.0; segments as usize];
        for &s in seg {
            if !(0..segments).contains(&s) {
                if self.op == Op::GradV2 {
                    return Err(Error::invalid_argument("Invalid number of segments"));
                }
                return Err(Error::invalid_argument(format!("Segment id {s} out of range [0, {segments}).")));
            }
            count[s as usize] += 1.0;
        }
        if let Some(&r) = idx.iter().find(|r| !(0..rows).contains(*r)) {
            return Err(Error::invalid_argument(format!("Index {r} out of range [0, {rows}).")));
        }
        // the output row of each index: the index itself, or its place among the distinct
        // indices sorted
        let mut unique: Vec<i64> = Vec::new();
        let place = |r: i64, unique: &[i64]| {
            if self.op == Op::GradV2 {
                unique.binary_search(&r).unwrap_or(0)
            } else {
                r as usize
            }
        };
        let out_rows = if self.op == Op::GradV2 {
            unique = idx.to_vec();
            unique.sort_unstable();
            unique.dedup();
            unique.len()
        } else {
            rows.max(0) as usize
        };
        let mut out = vec![0.0; out_rows * inner];
        for (&r, &s) in idx.iter().zip(seg) {
            let w = self.kind.weight(count[s as usize]);
            let src = &g[s as usize * inner..(s as usize + 1) * inner];
            let at = place(r, &unique);
            for (a, b) in out[at * inner..(at + 1) * inner].iter_mut().zip(src) {
                *a += b * w;
            }
        }
        let mut shape = grad.shape().to_vec();
        shape[0] = out_rows;
        let values = Tensor::from_f64(grad.dtype(), &shape, &out)?;
        if self.op == Op::Grad {
            return Ok(vec![values]);
        }
        let sorted = match ctx.input(1).dtype() {
            DType::Int32 => Tensor::new(&[out_rows], unique.iter().map(|&u| u as i32).collect::<Vec<_>>())?,
            _ => Tensor::new(&[out_rows], unique)?,
        };
        Ok(vec![values, sorted])
    }
}

/// `tf.sparse.segment_sum(data, indices, segment_ids)` (`Kind::Sum`; `Mean`:
/// `segment_mean`, `SqrtN`: `segment_sqrt_n`): op `SparseSegmentSum` (`...Mean`,
/// `...SqrtN`), default name the op type. See [`SparseSegment`].
pub fn sparse_segment(s: &Scope, kind: Kind, data: &Output, indices: &Output, segment_ids: &Output) -> Result<Output> {
    let op = SparseSegment { kind, op: Op::Reduce }.op_type();
    s.op(op, op)
        .input(data)
        .input(indices)
        .input(segment_ids)
        .attr("T", data.dtype())
        .attr("Tidx", indices.dtype())
        .attr("Tsegmentids", segment_ids.dtype())
        .build_output()
}

/// Op `SparseSegmentSumGrad(grad, indices, segment_ids, output_dim0)` (`...MeanGrad`,
/// `...SqrtNGrad`), default name the op type: the gradient of [`sparse_segment`].
pub fn sparse_segment_grad(
    s: &Scope,
    kind: Kind,
    grad: &Output,
    indices: &Output,
    segment_ids: &Output,
    output_dim0: &Output,
) -> Result<Output> {
    let op = SparseSegment { kind, op: Op::Grad }.op_type();
    s.op(op, op)
        .input(grad)
        .input(indices)
        .input(segment_ids)
        .input(output_dim0)
        .attr("T", grad.dtype())
        .attr("Tidx", indices.dtype())
        .attr("Tsegmentids", segment_ids.dtype())
        .build_output()
}
