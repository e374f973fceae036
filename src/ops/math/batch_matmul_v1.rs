//! `BatchMatMul`: TensorFlow 1.x's batched matrix product (`tf.matmul` of rank > 2 inputs
//! before `BatchMatMulV2` added broadcasting): the batch dimensions of both operands must be
//! equal.

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::batch_matmul as batched_product;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&BatchMatMul];

/// The `adj_x`, `adj_y` attrs of a `BatchMatMul` node.
fn adjoints(node: &Node) -> Result<(bool, bool)> {
    Ok((node.attr_bool_or("adj_x", false)?, node.attr_bool_or("adj_y", false)?))
}

/// A concrete shape as TensorFlow's `TensorShape::DebugString` writes it: `[2,3]`.
fn tf_dims(d: &[usize]) -> String {
    fmt_dims(d).replace(", ", ",")
}

/// `BatchMatMul(x, y)`: `x @ y` over the last two dimensions, for each index of the leading
/// (batch) dimensions, which must be equal in `x` and `y` (no broadcasting). `x`: `[..., r,
/// c]`, `y`: `[..., r', c']`; `adj_x` / `adj_y` (default false) transpose an operand's
/// matrices first (real dtypes: the adjoint is the transpose); the output is `[..., m, n]`.
/// float32, float64, int32, int64 (other dtypes TensorFlow allows import and are refused when
/// the session prepares the node). Errors: `InvalidArgument` in TensorFlow's words for a
/// rank below 2, different ranks or batch dimensions, or inner dimensions that differ (at
/// build time when known). Gradient (TensorFlow's `_BatchMatMul`): products of the output
/// gradient with the other operand, adjoints chosen per `adj_x`/`adj_y`; tensorgraph builds
/// them as `BatchMatMul` (TensorFlow 2.21's `tf.matmul` writes `BatchMatMulV2`, which is not
/// registered here; for equal batch dimensions the two agree), named `MatMul`, `MatMul_1`.
pub struct BatchMatMul;
impl RegisteredOp for BatchMatMul {
    fn op_type(&self) -> &'static str {
        "BatchMatMul"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        let (adj_x, adj_y) = adjoints(ctx.node)?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        let (Some(da), Some(db)) = (a.dims(), b.dims()) else { return Ok(vec![(t, Shape::unknown())]) };
        for d in [da, db] {
            if d.len() < 2 {
                return Err(Error::invalid_argument(format!(
                    "Shape must be at least rank 2 but is rank {} (BatchMatMul of shapes {a} and {b})",
                    d.len()
                )));
            }
        }
        if da.len() != db.len() {
            return Err(Error::invalid_argument(format!(
                "Shapes must be equal rank, but are {} and {} (BatchMatMul of shapes {a} and {b})",
                da.len(),
                db.len()
            )));
        }
        let nb = da.len() - 2;
        let mut out: Vec<Option<usize>> = Vec::with_capacity(da.len());
        for i in 0..nb {
            out.push(match (da[i], db[i]) {
                (Some(x), Some(y)) if x != y => {
                    return Err(Error::invalid_argument(format!(
                        "Dimension {i} in both shapes must be equal, but are {x} and {y} (batch dimensions of BatchMatMul inputs {a} and {b})"
                    )))
                }
                (x, y) => x.or(y),
            });
        }
        let (m, k) = if adj_x { (da[nb + 1], da[nb]) } else { (da[nb], da[nb + 1]) };
        let (k2, n) = if adj_y { (db[nb + 1], db[nb]) } else { (db[nb], db[nb + 1]) };
        if let (Some(k), Some(k2)) = (k, k2) {
            if k != k2 {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {k} and {k2} for BatchMatMul with input shapes {a}, {b} (adj_x={adj_x}, adj_y={adj_y})"
                )));
            }
        }
        out.push(m);
        out.push(n);
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (adj_x, adj_y) = adjoints(node)?;
        let t = node.attr_type("T")?;
        if !matches!(t, DType::Float | DType::Double | DType::Int32 | DType::Int64) {
            return Err(Error::invalid_argument(format!("BatchMatMul has no kernel for dtype {t}")));
        }
        Ok(Box::new(BatchMatMulKernel { adj_x, adj_y }))
    }
    /// TensorFlow's `_BatchMatMul`: `tf.matmul` of the output gradient with the other
    /// operand, which TensorFlow 2.21 writes as `BatchMatMulV2` nodes `MatMul`, `MatMul_1`.
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        use super::batch_matmul::batch_matmul;
        let s = ctx.scope;
        let (adj_x, adj_y) = adjoints(ctx.node)?;
        let (x, y) = (&ctx.inputs[0], &ctx.inputs[1]);
        let g = ctx.grad(0)?;
        let s1 = s.named("MatMul_1");
        let s0 = s.named("MatMul");
        let (gx, gy) = match (adj_x, adj_y) {
            (false, false) => (batch_matmul(&s0, &g, y, false, true)?, batch_matmul(&s1, x, &g, true, false)?),
            (false, true) => (batch_matmul(&s0, &g, y, false, false)?, batch_matmul(&s1, &g, x, true, false)?),
            (true, false) => (batch_matmul(&s0, y, &g, false, true)?, batch_matmul(&s1, x, &g, false, false)?),
            (true, true) => (batch_matmul(&s0, y, &g, true, true)?, batch_matmul(&s1, &g, x, true, true)?),
        };
        Ok(vec![Some(gx), Some(gy)])
    }
}

/// A prepared `BatchMatMul`: its adjoints and the matrix product for its dtype.
struct BatchMatMulKernel {
    adj_x: bool,
    adj_y: bool,
}

impl Kernel for BatchMatMulKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, y) = (ctx.input(0), ctx.input(1));
        let (sx, sy) = (x.shape(), y.shape());
        if sx.len() != sy.len() {
            return Err(Error::invalid_argument(format!(
                "In[0] and In[1] has different ndims: {} vs. {}",
                tf_dims(sx),
                tf_dims(sy)
            )));
        }
        let nd = sx.len();
        if nd < 2 {
            return Err(Error::invalid_argument(format!("In[0] and In[1] ndims must be >= 2: {nd}")));
        }
        if let Some(i) = (0..nd - 2).find(|&i| sx[i] != sy[i]) {
            return Err(Error::invalid_argument(format!(
                "In[0].dim({i}) and In[1].dim({i}) must be the same: {} vs {}",
                tf_dims(sx),
                tf_dims(sy)
            )));
        }
        let k1 = if self.adj_x { sx[nd - 2] } else { sx[nd - 1] };
        let k2 = if self.adj_y { sy[nd - 1] } else { sy[nd - 2] };
        if k1 != k2 {
            return Err(Error::invalid_argument(format!(
                "In[0] mismatch In[1] shape: {k1} vs. {k2}: {} {} {} {}",
                tf_dims(sx),
                tf_dims(sy),
                self.adj_x,
                self.adj_y
            )));
        }
        Ok(vec![batched_product(x, y, self.adj_x, self.adj_y)?])
    }
}

/// `tf.raw_ops.BatchMatMul(x, y, adj_x, adj_y)` (TensorFlow 1.x's `tf.matmul` of batches):
/// op `BatchMatMul`, default name `BatchMatMul`. Shapes, dtypes and errors as
/// [`BatchMatMul`]'s.
pub fn batch_matmul_v1(s: &Scope, x: &Output, y: &Output, adj_x: bool, adj_y: bool) -> Result<Output> {
    s.op("BatchMatMul", "BatchMatMul")
        .input(x)
        .input(y)
        .attr("T", x.dtype())
        .attr("adj_x", adj_x)
        .attr("adj_y", adj_y)
        .build_output()
}
