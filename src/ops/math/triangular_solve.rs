//! `MatrixTriangularSolve` (`tf.linalg.triangular_solve`): batched triangular systems
//! `A·X = B` (or `A^H·X = B`), the batch dimensions of `A` and `B` broadcast against each
//! other as TensorFlow 2.21's kernel.

use super::arithmetic::neg;
use super::batch_matmul::batch_matmul;
use super::binary::{broadcast_partial, sum_over};
use super::linalg::FLOATS;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{matrix_band_part, reshape, scalar_like, shape, strided_slice, SliceMasks};
use crate::ops::kernels::broadcast_shape;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&MatrixTriangularSolve];

/// `MatrixTriangularSolve(matrix, rhs)` (attrs `lower` = true, `adjoint` = false): `X` with
/// `matrix · X = rhs` (`matrix^H · X = rhs` for `adjoint`) for `matrix` `[..., M, M]`
/// triangular (only its lower triangle is read when `lower`, else its upper one) and `rhs`
/// `[..., M, K]`, float32/float64, computed in float64; the batch dimensions broadcast, the
/// output is `[broadcast batch..., M, K]`. A zero on the diagonal gives infinities or NaN, as
/// TensorFlow's Eigen solve. Errors (`InvalidArgument`, TensorFlow's texts): `Dimensions
/// must be equal` (batch, square, rows) at build time; `In[0] and In[1] must have compatible
/// batch dimensions: [2,3,3] vs. [3,3,1]`, `In[0] matrices in the last dimensions must be
/// square (4 =/= 3)`, `In[0] mismatch In[1] shape: ...` when run. Gradient (TensorFlow's):
/// `grad_b = triangular_solve(matrix, grad, lower, !adjoint)`, `grad_a = -grad_b·X^H`
/// (`-X·grad_b^H` for `adjoint`) banded to the triangle, each summed over the batch
/// dimensions it was broadcast along.
pub struct MatrixTriangularSolve;

impl RegisteredOp for MatrixTriangularSolve {
    fn op_type(&self) -> &'static str {
        "MatrixTriangularSolve"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        solve_shape(ctx, true).map(|s| vec![(t, s)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(TriangularSolveKernel {
            lower: node.attr_bool_or("lower", true)?,
            adjoint: node.attr_bool_or("adjoint", false)?,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (a, b, c) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.outputs[0]);
        let lower = ctx.node.attr_bool_or("lower", true)?;
        let adjoint = ctx.node.attr_bool_or("adjoint", false)?;
        let grad_b = matrix_triangular_solve(s, a, &ctx.grad(0)?, lower, !adjoint)?;
        let grad_a = neg(
            s,
            &if adjoint {
                batch_matmul(s, c, &grad_b, false, true)?
            } else {
                batch_matmul(s, &grad_b, c, false, true)?
            },
        )?;
        let (all, zero) = (scalar_like(s, -1.0, DType::Int64)?, scalar_like(s, 0.0, DType::Int64)?);
        let grad_a =
            if lower { matrix_band_part(s, &grad_a, &all, &zero)? } else { matrix_band_part(s, &grad_a, &zero, &all)? };
        let (sa, sb) = (a.shape(), b.shape());
        if sa.is_fully_defined() && sb.is_fully_defined() {
            let (da, db) = (sa.to_vec().unwrap_or_default(), sb.to_vec().unwrap_or_default());
            if da[..da.len() - 2] == db[..db.len() - 2] {
                return Ok(vec![Some(grad_a), Some(grad_b)]);
            }
        }
        let (a_shape, b_shape) = (shape(s, a)?, shape(s, b)?);
        let batch =
            |x: &Output| strided_slice(s, x, &[0], &[-2], &[1], SliceMasks { begin: 1, ..SliceMasks::default() });
        let args = s
            .op("BroadcastGradientArgs", "BroadcastGradientArgs")
            .input(&batch(&a_shape)?)
            .input(&batch(&b_shape)?)
            .attr("T", DType::Int32)
            .build()?;
        let grad_a = reshape(s, &sum_over(s, &grad_a, &args.output(0)?)?, &a_shape)?;
        let grad_b = reshape(s, &sum_over(s, &grad_b, &args.output(1)?)?, &b_shape)?;
        Ok(vec![Some(grad_a), Some(grad_b)])
    }
}

/// The output shape of a solve of `matrix` (input 0) against `rhs` (input 1): both rank ≥ 2,
/// `matrix` square, its rows equal to `rhs`'s; the batch dimensions broadcast
/// (`broadcast`) or must be equal (TensorFlow's `Merge`: "Dimension 0 in both shapes must be
/// equal").
pub(super) fn solve_shape(ctx: &InferCtx, broadcast: bool) -> Result<Shape> {
    let (Some(a), Some(b)) = (ctx.shape(0).dims(), ctx.shape(1).dims()) else { return Ok(Shape::unknown()) };
    for d in [a, b] {
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {}", d.len())));
        }
    }
    let (ra, rb) = (a.len(), b.len());
    let (ba, bb) = (&a[..ra - 2], &b[..rb - 2]);
    let batch = if broadcast {
        broadcast_partial(&Shape::partial(ba), &Shape::partial(bb))?
    } else {
        if ba.len() != bb.len() {
            return Err(Error::invalid_argument(format!(
                "Shapes must be equal rank, but are {} and {}",
                ba.len(),
                bb.len()
            )));
        }
        let merged: Vec<Option<usize>> = ba
            .iter()
            .zip(bb)
            .enumerate()
            .map(|(i, (x, y))| match (x, y) {
                (Some(x), Some(y)) if x != y => Err(Error::invalid_argument(format!(
                    "Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are {} and {}.",
                    tf_dims(ba.iter().copied()),
                    tf_dims(bb.iter().copied())
                ))),
                _ => Ok(x.or(*y)),
            })
            .collect::<Result<_>>()?;
        Shape::partial(&merged)
    };
    let eq = |x: Option<usize>, y: Option<usize>| match (x, y) {
        (Some(x), Some(y)) if x != y => {
            Err(Error::invalid_argument(format!("Dimensions must be equal, but are {x} and {y}")))
        }
        _ => Ok(x.or(y)),
    };
    let m = eq(a[ra - 2], a[ra - 1])?;
    eq(m, b[rb - 2])?;
    let mut out = batch.dims().map(|d| d.to_vec());
    if let Some(o) = out.as_mut() {
        o.extend([a[ra - 1].or(m), b[rb - 1]]);
    }
    Ok(out.map_or_else(Shape::unknown, |o| Shape::partial(&o)))
}

/// Dimensions as TensorFlow's messages print them: `[2,3,?]`.
fn tf_dims(d: impl Iterator<Item = Option<usize>>) -> String {
    let parts: Vec<String> = d.map(|x| x.map_or_else(|| "?".to_string(), |v| v.to_string())).collect();
    format!("[{}]", parts.join(","))
}

/// The flat index into a batch shaped `src` of the flat index `i` of the broadcast batch
/// `out` (`src` right-aligned, its dimensions of 1 repeated).
pub(super) fn broadcast_index(mut i: usize, out: &[usize], src: &[usize]) -> usize {
    let (mut idx, mut stride) = (0, 1);
    for (k, &d) in out.iter().enumerate().rev() {
        let (pos, off) = (i % d.max(1), out.len() - 1 - k);
        i /= d.max(1);
        if off < src.len() {
            let sd = src[src.len() - 1 - off];
            if sd != 1 {
                idx += pos * stride;
            }
            stride *= sd;
        }
    }
    idx
}

/// Solves `t · x = b` in place for the `n × n` row-major triangular `t` (read through `at`,
/// lower or upper) and the `n × k` row-major `b`.
pub(super) fn triangular_solve_in_place(
    at: impl Fn(usize, usize) -> f64,
    lower: bool,
    n: usize,
    k: usize,
    b: &mut [f64],
) {
    let rows: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
    for &i in &rows {
        let d = at(i, i);
        let others: Vec<usize> = if lower { (0..i).collect() } else { (i + 1..n).collect() };
        for col in 0..k {
            let s: f64 = others.iter().map(|&j| at(i, j) * b[j * k + col]).sum();
            b[i * k + col] = (b[i * k + col] - s) / d;
        }
    }
}

struct TriangularSolveKernel {
    lower: bool,
    adjoint: bool,
}

impl Kernel for TriangularSolveKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let (da, db) = (a.shape(), b.shape());
        for (i, d) in [da, db].into_iter().enumerate() {
            if d.len() < 2 {
                return Err(Error::invalid_argument(format!("In[{i}] ndims must be >= 2: {}", d.len())));
            }
        }
        let (ra, rb) = (da.len(), db.len());
        let batch = broadcast_shape(&da[..ra - 2], &db[..rb - 2]).map_err(|_| {
            Error::invalid_argument(format!(
                "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
                tf_dims(da.iter().map(|&d| Some(d))),
                tf_dims(db.iter().map(|&d| Some(d)))
            ))
        })?;
        let n = da[ra - 1];
        if da[ra - 2] != n {
            return Err(Error::invalid_argument(format!(
                "In[0] matrices in the last dimensions must be square ({n} =/= {})",
                da[ra - 2]
            )));
        }
        let (m, k) = (db[rb - 2], db[rb - 1]);
        if m != n {
            return Err(Error::invalid_argument(format!(
                "In[0] mismatch In[1] shape: {n} vs. {m}: {} {} {} {}",
                tf_dims(da.iter().map(|&d| Some(d))),
                tf_dims(db.iter().map(|&d| Some(d))),
                self.lower as u8,
                self.adjoint as u8
            )));
        }
        let (av, bv) = (a.to_f64_vec()?, b.to_f64_vec()?);
        let count: usize = batch.iter().product();
        let mut out = Vec::with_capacity(count * n * k);
        for i in 0..count {
            let ia = broadcast_index(i, &batch, &da[..ra - 2]) * n * n;
            let ib = broadcast_index(i, &batch, &db[..rb - 2]) * n * k;
            let mut x = bv[ib..ib + n * k].to_vec();
            let m = &av[ia..ia + n * n];
            if self.adjoint {
                triangular_solve_in_place(|r, c| m[c * n + r], !self.lower, n, k, &mut x);
            } else {
                triangular_solve_in_place(|r, c| m[r * n + c], self.lower, n, k, &mut x);
            }
            out.extend(x);
        }
        let mut shape = batch;
        shape.extend([n, k]);
        Ok(vec![Tensor::from_f64(a.dtype(), &shape, &out)?])
    }
}

/// `tf.linalg.triangular_solve(matrix, rhs, lower, adjoint)`: op `MatrixTriangularSolve`,
/// default name `MatrixTriangularSolve`. See [`MatrixTriangularSolve`].
pub fn matrix_triangular_solve(s: &Scope, matrix: &Output, rhs: &Output, lower: bool, adjoint: bool) -> Result<Output> {
    s.op("MatrixTriangularSolve", "MatrixTriangularSolve")
        .input(matrix)
        .input(rhs)
        .attr("T", matrix.dtype())
        .attr("lower", lower)
        .attr("adjoint", adjoint)
        .build_output()
}
