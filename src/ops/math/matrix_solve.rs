//! `MatrixSolve` (`tf.linalg.solve`): batched square systems `A·X = B` (or `A^H·X = B`)
//! through an LU decomposition with partial pivoting, as TensorFlow's Eigen kernel.

use super::arithmetic::neg;
use super::batch_matmul::batch_matmul;
use super::linalg::{lu, FLOATS};
use super::triangular_solve::solve_shape;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&MatrixSolve];

/// `MatrixSolve(matrix, rhs)` (attr `adjoint` = false): `X` with `matrix · X = rhs`
/// (`matrix^H · X = rhs` for `adjoint`) for `matrix` `[..., M, M]` and `rhs` `[..., M, K]`
/// with equal batch dimensions, float32/float64, computed in float64; output `[..., M, K]`.
/// Errors (`InvalidArgument`, TensorFlow's texts): `Dimension 0 in both shapes must be
/// equal` (batch), `Dimensions must be equal` (square, rows) at build time; `Input matrix is
/// not invertible.` (an exactly zero pivot), `All input tensors must have the same outer
/// dimensions.`, `First input (lhs) must be a square matrix.`, `Input matrix and rhs are
/// incompatible.`, `Input tensor 1 must have rank >= 2, got 1` when run. Gradient
/// (TensorFlow's): `grad_b = solve(matrix, grad, !adjoint)`, `grad_a = -grad_b·X^H`
/// (`-X·grad_b^H` for `adjoint`).
pub struct MatrixSolve;

impl RegisteredOp for MatrixSolve {
    fn op_type(&self) -> &'static str {
        "MatrixSolve"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        solve_shape(ctx, false).map(|s| vec![(t, s)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SolveKernel(node.attr_bool_or("adjoint", false)?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (a, c) = (&ctx.inputs[0], &ctx.outputs[0]);
        let adjoint = ctx.node.attr_bool_or("adjoint", false)?;
        let grad_b = matrix_solve(s, a, &ctx.grad(0)?, !adjoint)?;
        let grad_a = neg(
            s,
            &if adjoint {
                batch_matmul(s, c, &grad_b, false, true)?
            } else {
                batch_matmul(s, &grad_b, c, false, true)?
            },
        )?;
        Ok(vec![Some(grad_a), Some(grad_b)])
    }
}

struct SolveKernel(bool);

impl Kernel for SolveKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let (da, db) = (a.shape(), b.shape());
        for (i, d) in [da, db].into_iter().enumerate() {
            if d.len() < 2 {
                return Err(Error::invalid_argument(format!("Input tensor {i} must have rank >= 2, got {}", d.len())));
            }
        }
        let (ra, rb) = (da.len(), db.len());
        if da[..ra - 2] != db[..rb - 2] {
            return Err(Error::invalid_argument("All input tensors must have the same outer dimensions."));
        }
        let n = da[ra - 1];
        if da[ra - 2] != n {
            return Err(Error::invalid_argument("First input (lhs) must be a square matrix."));
        }
        if db[rb - 2] != n {
            return Err(Error::invalid_argument("Input matrix and rhs are incompatible."));
        }
        let k = db[rb - 1];
        let (av, bv) = (a.to_f64_vec()?, b.to_f64_vec()?);
        let batch: usize = da[..ra - 2].iter().product();
        let mut out = Vec::with_capacity(batch * n * k);
        for i in 0..batch {
            let mut m = av[i * n * n..(i + 1) * n * n].to_vec();
            if self.0 {
                for r in 0..n {
                    for c in r + 1..n {
                        m.swap(r * n + c, c * n + r);
                    }
                }
            }
            let (perm, _) = lu(&mut m, n);
            if (0..n).any(|j| m[j * n + j].is_nan() || m[j * n + j] == 0.0) {
                return Err(Error::invalid_argument("Input matrix is not invertible."));
            }
            // P·A = L·U: x = U⁻¹·L⁻¹·(P·b).
            let rhs = &bv[i * n * k..(i + 1) * n * k];
            let mut x: Vec<f64> = perm.iter().flat_map(|&p| rhs[p * k..(p + 1) * k].iter().copied()).collect();
            for col in 0..k {
                for r in 0..n {
                    let s: f64 = (0..r).map(|j| m[r * n + j] * x[j * k + col]).sum();
                    x[r * k + col] -= s;
                }
                for r in (0..n).rev() {
                    let s: f64 = (r + 1..n).map(|j| m[r * n + j] * x[j * k + col]).sum();
                    x[r * k + col] = (x[r * k + col] - s) / m[r * n + r];
                }
            }
            out.extend(x);
        }
        Ok(vec![Tensor::from_f64(a.dtype(), db, &out)?])
    }
}

/// `tf.linalg.solve(matrix, rhs, adjoint)`: op `MatrixSolve`, default name `MatrixSolve`.
/// See [`MatrixSolve`].
pub fn matrix_solve(s: &Scope, matrix: &Output, rhs: &Output, adjoint: bool) -> Result<Output> {
    s.op("MatrixSolve", "MatrixSolve")
        .input(matrix)
        .input(rhs)
        .attr("T", matrix.dtype())
        .attr("adjoint", adjoint)
        .build_output()
}
