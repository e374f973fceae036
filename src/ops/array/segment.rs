//! `UnsortedSegmentSum` (`tf.math.unsorted_segment_sum`), the gradient of `GatherV2`.

use super::layout::scalar_int;
use super::{gather, int_values, plain, INTS, NUMBERS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, try_filled, DType, Shape, Tensor};

/// `UnsortedSegmentSum(data, segment_ids, num_segments)`: `out[j, ...]` is the sum of the
/// `data[i..., ...]` with `segment_ids[i...] == j` (negative ids dropped). Numeric dtypes.
pub struct UnsortedSegmentSum;
impl RegisteredOp for UnsortedSegmentSum {
    fn op_type(&self) -> &'static str {
        "UnsortedSegmentSum"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, INTS)?;
        ctx.check_dtype(2, INTS)?;
        let n = ctx.const_input(2).map(|t| scalar_int(&t, "num_segments")).transpose()?.map(|v| v.max(0) as usize);
        let (Some(d), Some(ir)) = (ctx.shape(0).dims(), ctx.shape(1).rank()) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        if ir > d.len() {
            return Err(Error::invalid_argument(format!(
                "segment_ids {} must be a prefix of data's shape {}",
                ctx.shape(1),
                ctx.shape(0)
            )));
        }
        let mut out = vec![n];
        out.extend_from_slice(&d[ir..]);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(segment_sum_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        // TensorFlow's _UnsortedSegmentSumGrad: gather the gradient rows back (ids assumed in range)
        let g = gather(ctx.scope, &ctx.grad(0)?, &ctx.inputs[1], 0)?;
        Ok(vec![Some(g), None, None])
    }
}

/// The `UnsortedSegmentSum` kernel.
fn segment_sum_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (data, ids) = (ctx.input(0), ctx.input(1));
    let n = scalar_int(ctx.input(2), "num_segments")?;
    if n < 0 {
        return Err(Error::invalid_argument(format!("num_segments must be non-negative, got {n}")));
    }
    let n = n as usize;
    let ir = ids.rank();
    if ir > data.rank() || data.shape()[..ir] != *ids.shape() {
        return Err(Error::invalid_argument(format!(
            "segment_ids.shape = {} must be a prefix of data.shape = {}",
            fmt_dims(ids.shape()),
            fmt_dims(data.shape())
        )));
    }
    let inner: usize = data.shape()[ir..].iter().product();
    // num_segments is an input: the output's size is checked and allocated fallibly
    let out_len = n.checked_mul(inner).ok_or_else(|| {
        Error::invalid_argument(format!(
            "UnsortedSegmentSum output of {n} segments of {inner} elements has more elements than fit in memory"
        ))
    })?;
    let idv = int_values(ids)?;
    let mut shape = vec![n];
    shape.extend_from_slice(&data.shape()[ir..]);
    let out = crate::dispatch_numeric!(data.dtype(), "UnsortedSegmentSum", T => {
        let x = data.as_slice::<T>()?;
        let mut acc = try_filled(T::ZERO, out_len, data.dtype())?;
        for (i, &j) in idv.iter().enumerate() {
            if j < 0 {
                continue;
            }
            if j as usize >= n {
                return Err(Error::invalid_argument(format!(
                    "segment_ids[{i}] = {j} is out of range [0, {n})"
                )));
            }
            let j = j as usize;
            for k in 0..inner {
                acc[j * inner + k] += x[i * inner + k];
            }
        }
        Tensor::new(&shape, acc)?
    });
    Ok(vec![out])
}

/// `tf.math.unsorted_segment_sum(data, segment_ids, num_segments)`: op
/// `UnsortedSegmentSum`, default name `UnsortedSegmentSum`. `segment_ids` (int32/int64)
/// has a prefix of `data`'s shape; output `[num_segments] + data.shape[ids.rank:]`.
/// Errors: `InvalidArgument` when run with an id `>= num_segments` (negative ids are dropped).
pub fn unsorted_segment_sum(s: &Scope, data: &Output, segment_ids: &Output, num_segments: &Output) -> Result<Output> {
    s.op("UnsortedSegmentSum", "UnsortedSegmentSum")
        .input(data)
        .input(segment_ids)
        .input(num_segments)
        .attr("T", data.dtype())
        .attr("Tindices", segment_ids.dtype())
        .attr("Tnumsegments", num_segments.dtype())
        .build_output()
}
