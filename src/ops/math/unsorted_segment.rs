//! `UnsortedSegmentMax`, `UnsortedSegmentMin` and `UnsortedSegmentProd`
//! (`tf.math.unsorted_segment_*`): as `UnsortedSegmentSum`, `out[j, ...]` reduces the
//! `data[i..., ...]` with `segment_ids[i...] == j` in any order (negative ids dropped), a
//! segment without rows holding the dtype's lowest value (Max), its highest (Min) or 1
//! (Prod). With TensorFlow's gradients (`math_grad.py`).

use super::arithmetic::{div, maximum, mul};
use super::compare::{equal, greater, greater_equal};
use super::logical::logical_and;
use super::select::where_v2;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{cast, gather, int_values, ones_like, reshape_to, scalar_like, zeros_like, UnsortedSegmentSum};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, try_filled, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] =
    &[&UnsortedSegment(Kind::Max), &UnsortedSegment(Kind::Min), &UnsortedSegment(Kind::Prod)];

/// Which reduction an unsorted segment op computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `UnsortedSegmentMax`.
    Max,
    /// `UnsortedSegmentMin`.
    Min,
    /// `UnsortedSegmentProd` (integers wrap).
    Prod,
}

impl Kind {
    /// TensorFlow's op type.
    pub fn op_type(self) -> &'static str {
        match self {
            Kind::Max => "UnsortedSegmentMax",
            Kind::Min => "UnsortedSegmentMin",
            Kind::Prod => "UnsortedSegmentProd",
        }
    }
}

/// An unsorted segment reduction `(data, segment_ids, num_segments)`: `data` float32,
/// float64, int32, int64 (float16/bfloat16 through `ops::half_float`); `segment_ids` (int32/int64) with a prefix of `data`'s shape; output
/// `[num_segments] + data.shape[ids.rank:]`. Shape function and errors as
/// `UnsortedSegmentSum`'s (`segment_ids[1] = 5 is out of range [0, 3)` when run).
pub struct UnsortedSegment(pub Kind);

impl RegisteredOp for UnsortedSegment {
    fn op_type(&self) -> &'static str {
        self.0.op_type()
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        UnsortedSegmentSum.infer(ctx)
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(UnsortedKernel(self.0)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let g = match self.0 {
            Kind::Max | Kind::Min => min_or_max_grad(ctx)?,
            Kind::Prod => prod_grad(ctx)?,
        };
        Ok(vec![Some(g), None, None])
    }
}

struct UnsortedKernel(Kind);

impl Kernel for UnsortedKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (data, ids) = (ctx.input(0), ctx.input(1));
        let n = int_values(ctx.input(2))?;
        let n = match n.as_slice() {
            [n] if *n >= 0 => *n as usize,
            [n] => return Err(Error::invalid_argument(format!("num_segments must be non-negative, got {n}"))),
            _ => return Err(Error::invalid_argument("num_segments should be a scalar")),
        };
        let ir = ids.rank();
        if ir > data.rank() || data.shape()[..ir] != *ids.shape() {
            return Err(Error::invalid_argument(format!(
                "segment_ids.shape = {} must be a prefix of data.shape = {}",
                fmt_dims(ids.shape()),
                fmt_dims(data.shape())
            )));
        }
        let inner: usize = data.shape()[ir..].iter().product();
        let idv = int_values(ids)?;
        let mut shape = vec![n];
        shape.extend_from_slice(&data.shape()[ir..]);
        let kind = self.0;
        let out = crate::dispatch_numeric!(data.dtype(), kind.op_type(), small_ints, T => {
            Tensor::new(&shape, reduce::<T>(kind, data.as_slice::<T>()?, &idv, n, inner, data.dtype())?)?
        });
        Ok(vec![out])
    }
}

/// The dtype's lowest finite value (TensorFlow's `numeric_limits<T>::lowest()`).
fn lowest<T: Num>() -> T {
    match T::DTYPE {
        DType::Float => T::from_f64(f32::MIN as f64),
        DType::Double => T::from_f64(f64::MIN),
        _ => T::MIN,
    }
}

/// The dtype's highest finite value.
fn highest<T: Num>() -> T {
    match T::DTYPE {
        DType::Float => T::from_f64(f32::MAX as f64),
        DType::Double => T::from_f64(f64::MAX),
        _ => T::MAX,
    }
}

fn reduce<T: Num>(kind: Kind, x: &[T], ids: &[i64], n: usize, inner: usize, dtype: DType) -> Result<Vec<T>> {
    let len = n.checked_mul(inner).ok_or_else(|| {
        Error::invalid_argument(format!("{} output of {n} segments of {inner} has too many elements", kind.op_type()))
    })?;
    let init = match kind {
        Kind::Max => lowest::<T>(),
        Kind::Min => highest::<T>(),
        Kind::Prod => T::ONE,
    };
    let mut out = try_filled(init, len, dtype)?;
    for (i, &j) in ids.iter().enumerate() {
        if j < 0 {
            continue;
        }
        if j as usize >= n {
            return Err(Error::invalid_argument(format!("segment_ids[{i}] = {j} is out of range [0, {n})")));
        }
        let j = j as usize;
        for (o, &v) in out[j * inner..(j + 1) * inner].iter_mut().zip(&x[i * inner..(i + 1) * inner]) {
            *o = match kind {
                Kind::Max if v > *o => v,
                Kind::Min if v < *o => v,
                Kind::Prod => o.mul_wrapping(v),
                _ => *o,
            };
        }
    }
    Ok(out)
}

/// TensorFlow's `_GatherDropNegatives`: `params` gathered at `Maximum(ids, 0)`, zero where
/// the id is negative (the mask `GreaterEqual(ids, 0)` reshaped to broadcast over the
/// gathered rows). Returns the gathered values, the clipped ids and the mask.
fn gather_drop_negatives(
    s: &Scope,
    params: &Output,
    ids: &Output,
    clipped_and_mask: Option<(&Output, &Output)>,
) -> Result<(Output, Output, Output)> {
    let (clipped, is_positive) = match clipped_and_mask {
        Some((c, m)) => (c.clone(), m.clone()),
        None => {
            let clipped = maximum(s, ids, &zeros_like(s, ids)?)?;
            let is_positive = greater_equal(s, ids, &scalar_like(s, 0.0, ids.dtype())?)?;
            let (Some(ri), Some(rp)) = (ids.shape().rank(), params.shape().rank()) else {
                return Err(Error::unimplemented(format!(
                    "the gradient of an unsorted segment reduction by {} needs the ranks of its ids and data",
                    ids.name()
                )));
            };
            let mut dims: Vec<i64> = match ids.shape().dims() {
                Some(d) => d.iter().map(|v| v.map_or(-1, |v| v as i64)).collect(),
                None => vec![],
            };
            // the mask broadcast over the gathered rows: ids' shape, then a 1 per row dimension
            if ri != dims.len() || dims.iter().filter(|&&d| d < 0).count() > 1 {
                return Err(Error::unimplemented(format!(
                    "the gradient of an unsorted segment reduction by {} needs its ids' shape",
                    ids.name()
                )));
            }
            dims.extend(std::iter::repeat_n(1, rp.saturating_sub(1)));
            (clipped, reshape_to(s, &is_positive, &dims)?)
        }
    };
    let gathered = gather(s, params, &clipped, 0)?;
    let out = where_v2(s, &is_positive, &gathered, &zeros_like(s, &gathered)?)?;
    Ok((out, clipped, is_positive))
}

/// TensorFlow's `_UnsortedSegmentMinOrMaxGrad`: the gradient shared among the rows equal
/// to their segment's result.
fn min_or_max_grad(c: &GradCtx) -> Result<Output> {
    let s = c.scope;
    let (x, ids, n, y) = (&c.inputs[0], &c.inputs[1], &c.inputs[2], &c.outputs[0]);
    let g = c.grad(0)?;
    let (gathered_y, clipped, is_positive) = gather_drop_negatives(s, y, ids, None)?;
    let selected = logical_and(s, &equal(s, x, &gathered_y)?, &is_positive)?;
    let num = crate::ops::array::unsorted_segment_sum(s, &cast(s, &selected, g.dtype())?, ids, n)?;
    let (shared, _, _) = gather_drop_negatives(s, &div(s, &g, &num)?, ids, Some((&clipped, &is_positive)))?;
    where_v2(s, &selected, &shared, &zeros_like(s, &shared)?)
}

/// TensorFlow's `_UnsortedSegmentProdGrad`: the product of the other rows of the segment
/// (0 when the segment has two zeros).
fn prod_grad(c: &GradCtx) -> Result<Output> {
    let s = c.scope;
    let (x, ids, n, y) = (&c.inputs[0], &c.inputs[1], &c.inputs[2], &c.outputs[0]);
    let g = c.grad(0)?;
    let is_zero = equal(s, x, &zeros_like(s, x)?)?;
    let num_zeros = crate::ops::array::unsorted_segment_sum(s, &cast(s, &is_zero, DType::Int32)?, ids, n)?;
    let g = where_v2(s, &greater(s, &num_zeros, &scalar_like(s, 1.0, DType::Int32)?)?, &zeros_like(s, &g)?, &g)?;
    let non_zero_x = where_v2(s, &is_zero, &ones_like(s, x)?, x)?;
    let non_zero_prod = unsorted_segment_reduce(s, Kind::Prod, &non_zero_x, ids, n)?;
    let clipped = maximum(s, ids, &zeros_like(s, ids)?)?;
    let gathered_prod = gather(s, y, &clipped, 0)?;
    let gathered_non_zero_prod = gather(s, &non_zero_prod, &clipped, 0)?;
    let partial = where_v2(s, &is_zero, &gathered_non_zero_prod, &div(s, &gathered_prod, x)?)?;
    let (gathered_g, _, _) = gather_drop_negatives(s, &g, ids, None)?;
    mul(s, &gathered_g, &partial)
}

/// `tf.math.unsorted_segment_max/min/prod(data, segment_ids, num_segments)`: op
/// `kind.op_type()`, default name the op type. Shapes, dtypes and errors as
/// [`UnsortedSegment`].
pub fn unsorted_segment_reduce(
    s: &Scope,
    kind: Kind,
    data: &Output,
    segment_ids: &Output,
    num_segments: &Output,
) -> Result<Output> {
    s.op(kind.op_type(), kind.op_type())
        .input(data)
        .input(segment_ids)
        .input(num_segments)
        .attr("T", data.dtype())
        .attr("Tindices", segment_ids.dtype())
        .attr("Tnumsegments", num_segments.dtype())
        .build_output()
}
