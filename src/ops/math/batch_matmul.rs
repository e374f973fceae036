//! `BatchMatMulV2` (`tf.matmul` of rank > 2): matrix products over the last two
//! dimensions with the batch dimensions broadcast, `adj_x`/`adj_y`, and its gradient
//! (TensorFlow's `_BatchMatMulV2`).

use super::binary::{broadcast_partial, sum_over};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{reshape, shape, strided_slice_indexing, SliceMasks};
use crate::ops::kernels::batch_matmul as batch_matmul_kernel;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&BatchMatMulV2];

const DTYPES: &[DType] =
    &[DType::Float, DType::Double, DType::Int32, DType::Int64, DType::Complex64, DType::Complex128];

/// `BatchMatMulV2(x, y)` (attrs `T`, `adj_x`, `adj_y`, `grad_x`, `grad_y`): `x[..., m,
/// k] @ y[..., k, n]` with the leading (batch) dimensions broadcast as NumPy, giving
/// `[batch..., m, n]`; `adj_x`/`adj_y` transpose the matrices first (conjugate transposes
/// of complex ones). float32, float64, int32, int64, complex64, complex128. Errors: `InvalidArgument` for a rank below 2 (`Shape must be at least
/// rank 2 but is rank 1`), inner dimensions that differ or batch dimensions that do not
/// broadcast (`Dimensions must be equal, but are 4 and 5 ...`; when run, `Matrix
/// size-incompatible` and `In[0] and In[1] must have compatible batch dimensions`).
/// Gradient: TensorFlow's, products of the incoming gradient with the other operand,
/// summed over broadcast batch dimensions.
pub struct BatchMatMulV2;
impl RegisteredOp for BatchMatMulV2 {
    fn op_type(&self) -> &'static str {
        "BatchMatMulV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, DTYPES)?;
        let (adj_x, adj_y) = (ctx.node.attr_bool_or("adj_x", false)?, ctx.node.attr_bool_or("adj_y", false)?);
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        for s in [a, b] {
            if let Some(r) = s.rank().filter(|&r| r < 2) {
                return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {r} ({s})")));
            }
        }
        let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        let (ra, rb) = (da.len(), db.len());
        let (m, ka) = if adj_x { (da[ra - 1], da[ra - 2]) } else { (da[ra - 2], da[ra - 1]) };
        let (kb, n) = if adj_y { (db[rb - 1], db[rb - 2]) } else { (db[rb - 2], db[rb - 1]) };
        if let (Some(p), Some(q)) = (ka, kb) {
            if p != q {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {p} and {q} for the inner dimensions of {a} and {b} (adj_x={adj_x}, adj_y={adj_y})"
                )));
            }
        }
        let batch = broadcast_partial(&Shape::partial(&da[..ra - 2]), &Shape::partial(&db[..rb - 2]))?;
        let mut out = batch.dims().unwrap_or(&[]).to_vec();
        out.extend([m, n]);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        if !DTYPES.contains(&t) {
            return Err(super::binary::no_kernel("BatchMatMulV2", t));
        }
        Ok(Box::new(BatchMatMulKernel {
            adj_x: node.attr_bool_or("adj_x", false)?,
            adj_y: node.attr_bool_or("adj_y", false)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, y) = (&ctx.inputs[0], &ctx.inputs[1]);
        let g = ctx.grad(0)?;
        let (adj_x, adj_y) = (ctx.node.attr_bool_or("adj_x", false)?, ctx.node.attr_bool_or("adj_y", false)?);
        let (gx, gy) = match (adj_x, adj_y) {
            (false, false) => (product(s, &g, y, (false, true), 0)?, product(s, x, &g, (true, false), 1)?),
            (false, true) => (product(s, &g, y, (false, false), 0)?, product(s, &g, x, (true, false), 1)?),
            (true, false) => (product(s, y, &g, (false, true), 0)?, product(s, x, &g, (false, false), 1)?),
            (true, true) => (product(s, y, &g, (true, true), 0)?, product(s, &g, x, (true, true), 1)?),
        };
        let (sx, sy) = (x.shape(), y.shape());
        let batched = |s: &Shape| s.rank().is_none_or(|r| r > 2);
        let batch = |s: &Shape| s.dims().map(|d| d[..d.len() - 2].to_vec());
        let same_batch = match (batch(&sx), batch(&sy)) {
            (Some(p), Some(q)) => p.iter().chain(&q).all(|d| d.is_some()) && p == q,
            _ => false,
        };
        if !(batched(&sx) || batched(&sy)) || same_batch {
            return Ok(vec![Some(gx), Some(gy)]);
        }
        let shx = shape(s, x)?;
        let shy = shape(&s.named("Shape_1"), y)?;
        let head = SliceMasks { begin: 1, ..Default::default() };
        let bx = strided_slice_indexing(s, &shx, &[0], &[-2], &[1], head)?;
        let by = strided_slice_indexing(s, &shy, &[0], &[-2], &[1], head)?;
        let args = s
            .op("BroadcastGradientArgs", "BroadcastGradientArgs")
            .input(&bx)
            .input(&by)
            .attr("T", DType::Int32)
            .build()?;
        let gx = reshape(s, &sum_over(s, &gx, &args.output(0)?)?, &shx)?;
        let gy = reshape(&s.named("Reshape_1"), &sum_over(&s.named("Sum_1"), &gy, &args.output(1)?)?, &shy)?;
        Ok(vec![Some(gx), Some(gy)])
    }
}

/// One product of the gradient, as TensorFlow's `math_ops.matmul(..., grad_a/grad_b)`:
/// a `MatMul` (`transpose_a`/`transpose_b`) when both operands are matrices, else a
/// `BatchMatMulV2` named `MatMul` (`adj_x`/`adj_y`); `which` (0 or 1) sets
/// `grad_a`/`grad_x` or `grad_b`/`grad_y`.
fn product(s: &Scope, a: &Output, b: &Output, adj: (bool, bool), which: usize) -> Result<Output> {
    let matrices = a.shape().rank() == Some(2) && b.shape().rank() == Some(2);
    let (op_type, names) = if matrices {
        ("MatMul", ["transpose_a", "transpose_b", "grad_a", "grad_b"])
    } else {
        ("BatchMatMulV2", ["adj_x", "adj_y", "grad_x", "grad_y"])
    };
    s.op(op_type, "MatMul")
        .input(a)
        .input(b)
        .attr("T", a.dtype())
        .attr(names[0], adj.0)
        .attr(names[1], adj.1)
        .attr(names[2], which == 0)
        .attr(names[3], which == 1)
        .build_output()
}

/// A prepared `BatchMatMulV2`: its adjoint attrs.
struct BatchMatMulKernel {
    adj_x: bool,
    adj_y: bool,
}

impl Kernel for BatchMatMulKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, y) = (ctx.input(0), ctx.input(1));
        if matches!(x.dtype(), DType::Complex64 | DType::Complex128) {
            return Ok(vec![super::complex::complex_batch_matmul(x, y, (self.adj_x, self.adj_y), true)?]);
        }
        Ok(vec![batch_matmul_kernel(x, y, self.adj_x, self.adj_y)?])
    }
}

/// `tf.linalg.matmul(x, y, adjoint_a, adjoint_b)` of batched operands: op `BatchMatMulV2`
/// (attrs `T`, `adj_x`, `adj_y`, `grad_x = grad_y = false`), default name `MatMul`.
/// `x` `[..., m, k]`, `y` `[..., k, n]` (after the adjoints) of one dtype (float32,
/// float64, int32, int64) give `[broadcast batch..., m, n]`. Errors: `InvalidArgument` as
/// [`BatchMatMulV2`].
pub fn batch_matmul(s: &Scope, x: &Output, y: &Output, adj_x: bool, adj_y: bool) -> Result<Output> {
    s.op("BatchMatMulV2", "MatMul")
        .input(x)
        .input(y)
        .attr("T", x.dtype())
        .attr("adj_x", adj_x)
        .attr("adj_y", adj_y)
        .build_output()
}
