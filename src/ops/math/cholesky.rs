//! `Cholesky` (`tf.linalg.cholesky`) and `CholeskyGrad`: the lower-triangular factor of
//! batched symmetric positive-definite matrices, and the backward pass of it, as
//! TensorFlow's Eigen kernels (`LLT` on the lower triangle; Murray's backward algorithm).

use super::arithmetic::{add, mul};
use super::batch_matmul::batch_matmul;
use super::linalg::{infer_square, square, FLOATS};
use super::triangular_solve::matrix_triangular_solve;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{matrix_band_part, matrix_diag, matrix_diag_part, matrix_set_diag, ones_like, scalar_like};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Cholesky, &CholeskyGrad];

/// `Cholesky(input)`: `L` with `L · L^H = input` for each matrix of `input` (`[..., M, M]`,
/// float32/float64; only its lower triangle is read), lower triangular (zeros above the
/// diagonal), computed in float64. TensorFlow 2.21 no longer refuses a matrix that is not
/// positive definite (a pivot `≤ 0`, as Eigen's `LLT`): it logs "Cholesky decomposition was
/// not successful" and fills the lower triangle with NaN; so does this kernel (its upper
/// triangle stays 0, where TensorFlow's is uninitialized). Errors (`InvalidArgument`,
/// TensorFlow's texts): `Shape must be at least rank 2`, `Dimensions must be equal` at build
/// time; `Input matrix must be square.`, `Input tensor 0 must have rank >= 2, got 1` when
/// run. Gradient (TensorFlow's `_CholeskyGrad`): `Φ = L^H·grad` with its diagonal halved
/// and its strict upper triangle zeroed, `X = L^{-H}·Φ·L^{-1}`, `(X + X^H) / 2`, through
/// `MatrixTriangularSolve` of `L` against the identity.
pub struct Cholesky;

impl RegisteredOp for Cholesky {
    fn op_type(&self) -> &'static str {
        "Cholesky"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let s = infer_square(ctx, false)?.map_or_else(Shape::unknown, |d| Shape::partial(&d));
        Ok(vec![(ctx.dtype(0), s)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(CholeskyKernel))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let l = &ctx.outputs[0];
        let dt = l.dtype();
        let eye = matrix_diag(s, &matrix_diag_part(s, &ones_like(s, l)?)?)?;
        let l_inverse = matrix_triangular_solve(s, l, &eye, true, false)?;
        let middle = batch_matmul(s, l, &ctx.grad(0)?, true, false)?;
        let half = scalar_like(s, 0.5, dt)?;
        let middle = matrix_set_diag(s, &middle, &mul(s, &half, &matrix_diag_part(s, &middle)?)?)?;
        let (all, zero) = (scalar_like(s, -1.0, DType::Int64)?, scalar_like(s, 0.0, DType::Int64)?);
        let middle = matrix_band_part(s, &middle, &all, &zero)?;
        // X = L^{-H} Φ L^{-1} and X^H = L^{-H} Φ^H L^{-1}.
        let grad_a = batch_matmul(s, &batch_matmul(s, &l_inverse, &middle, true, false)?, &l_inverse, false, false)?;
        let grad_a_adj = batch_matmul(s, &batch_matmul(s, &l_inverse, &middle, true, true)?, &l_inverse, false, false)?;
        Ok(vec![Some(mul(s, &add(s, &grad_a, &grad_a_adj)?, &half)?)])
    }
}

/// The Cholesky factor of the `n × n` row-major `a` (its lower triangle), or `None` where a
/// pivot is `≤ 0` (Eigen's test: a NaN pivot passes).
fn llt(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let x = a[j * n + j] - (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum::<f64>();
        if x <= 0.0 {
            return None;
        }
        let d = x.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let dot: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = (a[i * n + j] - dot) / d;
        }
    }
    Some(l)
}

struct CholeskyKernel;

impl Kernel for CholeskyKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (batch, n) = square(x)?;
        let v = x.to_f64_vec()?;
        let mut out = vec![0.0; v.len()];
        for b in 0..batch {
            let o = &mut out[b * n * n..(b + 1) * n * n];
            match llt(&v[b * n * n..(b + 1) * n * n], n) {
                Some(l) => o.copy_from_slice(&l),
                None => (0..n).for_each(|i| o[i * n..=i * n + i].fill(f64::NAN)),
            }
        }
        Ok(vec![Tensor::from_f64(x.dtype(), x.shape(), &out)?])
    }
}

/// `CholeskyGrad(l, grad)`: the gradient of a Cholesky decomposition with respect to its
/// input, from the factor `l` and the gradient `grad` of it (both `[..., M, M]`,
/// float32/float64; only their lower triangles are read), symmetric. TensorFlow's kernel
/// runs Murray's backward algorithm in blocks of 32; this one runs it unblocked, which is
/// the same arithmetic, in float64. Errors (`InvalidArgument`): `Inputs must be a square
/// matrices.` (TensorFlow's text), inputs of different shapes. No gradient (as TensorFlow).
pub struct CholeskyGrad;

impl RegisteredOp for CholeskyGrad {
    fn op_type(&self) -> &'static str {
        "CholeskyGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        let merged = ctx.shape(0).merge(ctx.shape(1)).ok_or_else(|| {
            Error::invalid_argument(format!("Shapes must be equal: {} and {}", ctx.shape(0), ctx.shape(1)))
        })?;
        if let Some(d) = merged.dims() {
            if d.len() < 2 {
                return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {}", d.len())));
            }
            if let (Some(a), Some(b)) = (d[d.len() - 2], d[d.len() - 1]) {
                if a != b {
                    return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {a} and {b}")));
                }
            }
        }
        Ok(vec![(t, merged)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(CholeskyGradKernel))
    }
}

/// Murray's unblocked backward Cholesky ("Differentiation of the Cholesky decomposition",
/// 2016), TensorFlow's `CholeskyGradUnblocked`: `g` holds the lower triangle of the
/// incoming gradient and is overwritten with the lower triangle of the result.
fn llt_backward(l: &[f64], g: &mut [f64], n: usize) {
    for k in (0..n).rev() {
        let d = l[k * n + k];
        let dot: f64 = (k + 1..n).map(|i| l[i * n + k] * g[i * n + k]).sum();
        g[k * n + k] -= dot / d;
        for i in k..n {
            g[i * n + k] /= d;
        }
        for j in 0..k {
            let s: f64 = (k..n).map(|i| g[i * n + k] * l[i * n + j]).sum();
            g[k * n + j] -= s;
        }
        for i in k + 1..n {
            for j in 0..k {
                g[i * n + j] -= g[i * n + k] * l[k * n + j];
            }
        }
        g[k * n + k] /= 2.0;
    }
}

struct CholeskyGradKernel;

impl Kernel for CholeskyGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (l, g) = (ctx.input(0), ctx.input(1));
        let d = l.shape();
        if d.len() < 2 || d[d.len() - 1] != d[d.len() - 2] || g.shape().len() < 2 {
            return Err(Error::invalid_argument("Inputs must be a square matrices."));
        }
        if g.shape() != d {
            return Err(Error::invalid_argument(format!(
                "CholeskyGrad: l {:?} and grad {:?} must have the same shape",
                d,
                g.shape()
            )));
        }
        let n = d[d.len() - 1];
        let batch = if n == 0 { 0 } else { l.num_elements() / (n * n) };
        let (lv, gv) = (l.to_f64_vec()?, g.to_f64_vec()?);
        let mut out = vec![0.0; lv.len()];
        for b in 0..batch {
            let r = b * n * n..(b + 1) * n * n;
            let mut w = vec![0.0; n * n];
            for i in 0..n {
                w[i * n..=i * n + i].copy_from_slice(&gv[r.start + i * n..=r.start + i * n + i]);
            }
            llt_backward(&lv[r.clone()], &mut w, n);
            let o = &mut out[r];
            for i in 0..n {
                for j in 0..n {
                    let (lo, hi) = if j <= i { (i, j) } else { (j, i) };
                    let v = w[lo * n + hi];
                    o[i * n + j] = if i == j { v } else { 0.5 * v };
                }
            }
        }
        Ok(vec![Tensor::from_f64(l.dtype(), d, &out)?])
    }
}

/// `tf.linalg.cholesky(input)`: op `Cholesky`, default name `Cholesky`. See [`Cholesky`].
pub fn cholesky(s: &Scope, input: &Output) -> Result<Output> {
    s.op("Cholesky", "Cholesky").input(input).attr("T", input.dtype()).build_output()
}

/// `tf.raw_ops.CholeskyGrad(l, grad)`: op `CholeskyGrad`, default name `CholeskyGrad`. See
/// [`CholeskyGrad`].
pub fn cholesky_grad(s: &Scope, l: &Output, grad: &Output) -> Result<Output> {
    s.op("CholeskyGrad", "CholeskyGrad").input(l).input(grad).attr("T", l.dtype()).build_output()
}
