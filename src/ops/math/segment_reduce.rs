//! The sorted segment reductions `SegmentSum`, `SegmentMean`, `SegmentMax`, `SegmentMin`
//! and `SegmentProd` (`tf.math.segment_*`): `out[j, ...]` reduces the rows `data[i, ...]`
//! with `segment_ids[i] == j`, the ids sorted; `out` has `segment_ids[-1] + 1` rows, a
//! segment without rows holding 0 (1 for `SegmentProd`). With TensorFlow's gradients
//! (`math_grad.py`).

use super::arithmetic::{div, mul};
use super::compare::{equal, greater};
use super::select::where_v2;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{cast, gather, int_values, ones_like, reshape_to, zeros_like};
use crate::ops::kernels::{Num, NUMBERS_AND_SMALL_INTS};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{try_filled, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &SegmentReduction(Kind::Sum),
    &SegmentReduction(Kind::Mean),
    &SegmentReduction(Kind::Max),
    &SegmentReduction(Kind::Min),
    &SegmentReduction(Kind::Prod),
];

/// Which reduction a segment op computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `SegmentSum` (integers wrap).
    Sum,
    /// `SegmentMean` (integer means truncate).
    Mean,
    /// `SegmentMax`.
    Max,
    /// `SegmentMin`.
    Min,
    /// `SegmentProd` (integers wrap).
    Prod,
}

impl Kind {
    /// TensorFlow's op type.
    pub fn op_type(self) -> &'static str {
        match self {
            Kind::Sum => "SegmentSum",
            Kind::Mean => "SegmentMean",
            Kind::Max => "SegmentMax",
            Kind::Min => "SegmentMin",
            Kind::Prod => "SegmentProd",
        }
    }
}

/// A sorted segment reduction `(data, segment_ids)`: `data` float32, float64, int32, int64,
/// int8, int16, uint8, uint16 (float16/bfloat16 through `ops::half_float`), at least rank
/// 1; `segment_ids` a 1-d int32/int64 vector as long as `data`'s first dimension; output
/// `[segment_ids[-1] + 1] + data.shape[1:]`.
///
/// Errors (`InvalidArgument`, TensorFlow's texts): at build time for `segment_ids` not of
/// rank 1 (`Shape must be rank 1 but is rank 2`) or a scalar `data`; when run, `segment_ids should be
/// a vector.`, `segment_ids should be the same size as dimension 0 of input.`, `segment ids
/// must be >= 0`, `segment ids are not increasing`, `Segment id -1 out of range [0, 2),
/// possibly because 'segment_ids' input is not sorted.`
pub struct SegmentReduction(pub Kind);

impl RegisteredOp for SegmentReduction {
    fn op_type(&self) -> &'static str {
        self.0.op_type()
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        // TensorFlow's shape function checks the ranks only; the kernel, the lengths
        if let Some(r) = ctx.shape(1).rank().filter(|&r| r != 1) {
            return Err(Error::invalid_argument(format!("Shape must be rank 1 but is rank {r}")));
        }
        let Some(d) = ctx.shape(0).dims() else { return Ok(vec![(t, Shape::unknown())]) };
        if d.is_empty() {
            return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0"));
        }
        let mut out = vec![None];
        out.extend_from_slice(&d[1..]);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SegmentKernel(self.0)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let g = match self.0 {
            Kind::Sum => gather(ctx.scope, &ctx.grad(0)?, &ctx.inputs[1], 0)?,
            Kind::Mean => mean_grad(ctx)?,
            Kind::Max | Kind::Min => min_or_max_grad(ctx)?,
            Kind::Prod => prod_grad(ctx)?,
        };
        Ok(vec![Some(g), None])
    }
}

struct SegmentKernel(Kind);

impl Kernel for SegmentKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (data, ids) = (ctx.input(0), ctx.input(1));
        if ids.rank() != 1 {
            return Err(Error::invalid_argument("segment_ids should be a vector."));
        }
        if data.rank() == 0 || data.shape()[0] != ids.shape()[0] {
            return Err(Error::invalid_argument("segment_ids should be the same size as dimension 0 of input."));
        }
        let idv = int_values(ids)?;
        let rows = check_sorted(&idv)?;
        let inner: usize = data.shape()[1..].iter().product();
        let mut shape = vec![rows];
        shape.extend_from_slice(&data.shape()[1..]);
        let kind = self.0;
        let out = crate::dispatch_numeric!(data.dtype(), kind.op_type(), small_ints, T => {
            Tensor::new(&shape, reduce::<T>(kind, data.as_slice::<T>()?, &idv, rows, inner, data.dtype())?)?
        });
        Ok(vec![out])
    }
}

/// The number of output rows, `ids[-1] + 1`, after TensorFlow's checks of sorted ids.
fn check_sorted(ids: &[i64]) -> Result<usize> {
    let rows = ids.last().map_or(0, |&v| v + 1);
    if rows < 0 {
        return Err(Error::invalid_argument("segment ids must be >= 0"));
    }
    let mut start = 0;
    while start < ids.len() {
        let id = ids[start];
        let mut end = start + 1;
        while end < ids.len() && ids[end] == id {
            end += 1;
        }
        if end < ids.len() && id > ids[end] {
            return Err(Error::invalid_argument("segment ids are not increasing"));
        }
        if id < 0 || id >= rows {
            return Err(Error::invalid_argument(format!(
                "Segment id {id} out of range [0, {rows}), possibly because 'segment_ids' input is not sorted."
            )));
        }
        start = end;
    }
    Ok(rows as usize)
}

/// The reduction of the rows of `x` (each `inner` long) by sorted `ids` into `rows` rows.
fn reduce<T: Num>(kind: Kind, x: &[T], ids: &[i64], rows: usize, inner: usize, dtype: DType) -> Result<Vec<T>> {
    let n = rows.checked_mul(inner).ok_or_else(|| {
        Error::invalid_argument(format!("{} output of {rows} rows of {inner} has too many elements", kind.op_type()))
    })?;
    let init = if kind == Kind::Prod { T::ONE } else { T::ZERO };
    let mut out = try_filled(init, n, dtype)?;
    let mut count = vec![0usize; rows];
    for (i, &j) in ids.iter().enumerate() {
        let j = j as usize;
        let first = count[j] == 0;
        count[j] += 1;
        let (o, r) = (&mut out[j * inner..(j + 1) * inner], &x[i * inner..(i + 1) * inner]);
        for (o, &v) in o.iter_mut().zip(r) {
            *o = match kind {
                _ if first && kind != Kind::Prod => v,
                Kind::Sum | Kind::Mean => o.add_wrapping(v),
                Kind::Prod => o.mul_wrapping(v),
                // NaN propagates, as TensorFlow's reducers
                Kind::Max if v > *o || v.partial_cmp(&v).is_none() => v,
                Kind::Min if v < *o || v.partial_cmp(&v).is_none() => v,
                Kind::Max | Kind::Min => *o,
            };
        }
    }
    if kind == Kind::Mean {
        for (j, &c) in count.iter().enumerate() {
            if c > 1 {
                let c = T::from_f64(c as f64);
                out[j * inner..(j + 1) * inner].iter_mut().for_each(|o| *o = *o / c);
            }
        }
    }
    Ok(out)
}

/// `[n]` counts reshaped to `[n, 1, ...]` against `data` (its rank known).
fn per_row(s: &Scope, v: &Output, data: &Output) -> Result<Output> {
    let r = data.shape().rank().ok_or_else(|| {
        Error::unimplemented(format!("the gradient of a segment reduction of {} needs its rank", data.name()))
    })?;
    let mut dims = vec![1i64; r];
    dims[0] = -1;
    reshape_to(s, v, &dims)
}

/// TensorFlow's `_SegmentMeanGrad`: `Gather(g / SegmentSum(ones, ids), ids)`.
fn mean_grad(c: &GradCtx) -> Result<Output> {
    let s = c.scope;
    let (data, ids) = (&c.inputs[0], &c.inputs[1]);
    let g = c.grad(0)?;
    let ones = cast(s, &ones_like(s, ids)?, g.dtype())?;
    let counts = per_row(s, &segment_reduce(s, Kind::Sum, &ones, ids)?, data)?;
    gather(s, &div(s, &g, &counts)?, ids, 0)
}

/// TensorFlow's `_SegmentMinOrMaxGrad`: the gradient shared among the rows equal to their
/// segment's result, `where(x == Gather(y, ids), Gather(g / SegmentSum(selected), ids), 0)`.
fn min_or_max_grad(c: &GradCtx) -> Result<Output> {
    let s = c.scope;
    let (x, ids, y) = (&c.inputs[0], &c.inputs[1], &c.outputs[0]);
    let g = c.grad(0)?;
    let selected = equal(s, x, &gather(s, y, ids, 0)?)?;
    let num = segment_reduce(s, Kind::Sum, &cast(s, &selected, g.dtype())?, ids)?;
    let shared = gather(s, &div(s, &g, &num)?, ids, 0)?;
    where_v2(s, &selected, &shared, &zeros_like(s, x)?)
}

/// TensorFlow's `_SegmentProdGrad`: the product of the other rows of the segment (0 when
/// the segment has two zeros), from the product without zeros where `x` is 0.
fn prod_grad(c: &GradCtx) -> Result<Output> {
    let s = c.scope;
    let (x, ids, y) = (&c.inputs[0], &c.inputs[1], &c.outputs[0]);
    let g = c.grad(0)?;
    let zero = zeros_like(s, x)?;
    let is_zero = equal(s, x, &zero)?;
    let num_zeros = segment_reduce(s, Kind::Sum, &cast(s, &is_zero, DType::Int32)?, ids)?;
    let one_i = crate::ops::array::scalar_like(s, 1.0, DType::Int32)?;
    let g = where_v2(s, &greater(s, &num_zeros, &one_i)?, &zeros_like(s, &g)?, &g)?;
    let non_zero_x = where_v2(s, &is_zero, &ones_like(s, x)?, x)?;
    let non_zero_prod = segment_reduce(s, Kind::Prod, &non_zero_x, ids)?;
    let gathered_prod = gather(s, y, ids, 0)?;
    let gathered_non_zero_prod = gather(s, &non_zero_prod, ids, 0)?;
    let partial = where_v2(s, &is_zero, &gathered_non_zero_prod, &div(s, &gathered_prod, &non_zero_x)?)?;
    mul(s, &gather(s, &g, ids, 0)?, &partial)
}

/// `tf.math.segment_sum/mean/max/min/prod(data, segment_ids)`: op `kind.op_type()`, default
/// name the op type, with attrs `T` and `Tindices`. Shapes, dtypes and errors as
/// [`SegmentReduction`].
pub fn segment_reduce(s: &Scope, kind: Kind, data: &Output, segment_ids: &Output) -> Result<Output> {
    s.op(kind.op_type(), kind.op_type())
        .input(data)
        .input(segment_ids)
        .attr("T", data.dtype())
        .attr("Tindices", segment_ids.dtype())
        .build_output()
}
