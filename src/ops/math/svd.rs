//! `Svd` (`tf.linalg.svd`): batched singular value decompositions by one-sided Jacobi
//! rotations in float64 (TensorFlow's kernel runs Eigen's; the singular values agree to
//! rounding, the singular vectors up to the sign of each column, which no algorithm fixes).

use super::arithmetic::{add, mul, sub};
use super::batch_matmul::batch_matmul;
use super::functions::{reciprocal, square};
use super::linalg::FLOATS;
use super::qr::{adjoint, columns};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{expand_dims, matrix_diag, matrix_set_diag, scalar_like, zeros_like};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Svd];

/// `Svd(input)` (attrs `compute_uv` = true, `full_matrices` = false): `s`, `u`, `v` with
/// `input = u · diag(s) · v^H` for each `[..., M, N]` matrix of `input` (float32/float64),
/// `s` `[..., P]` descending (`P = min(M, N)`), `u` `[..., M, P]` and `v` `[..., N, P]`
/// orthonormal columns (`[..., M, M]` and `[..., N, N]` for `full_matrices`, completed
/// with an orthonormal basis of the rest). The sign of each column pair of `u` and `v` is
/// this kernel's (Jacobi's), not necessarily TensorFlow's (Eigen's): neither is canonical.
/// Without `compute_uv`, `u` and `v` are empty `[0]` (TensorFlow's static shape; its kernel
/// leaves an uninitialized scalar). Errors (`InvalidArgument`, TensorFlow's texts): `Shape
/// must be at least rank 2` at build time, `Input tensor 0 must have rank >= 2, got 1` when
/// run. Gradient (TensorFlow's `_SvdGrad`, real dtypes): `u·diag(grad_s)·v^H` without
/// `compute_uv`; with it, for static inner dimensions, `Unimplemented` (as TensorFlow's
/// `NotImplementedError`) for unknown ones or `full_matrices` with `|M - N| > 1`.
pub struct Svd;

fn attrs(node: &Node) -> Result<(bool, bool)> {
    Ok((node.attr_bool_or("compute_uv", true)?, node.attr_bool_or("full_matrices", false)?))
}

impl RegisteredOp for Svd {
    fn op_type(&self) -> &'static str {
        "Svd"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        let t = ctx.check_dtype(0, FLOATS)?;
        let (uv, full) = attrs(ctx.node)?;
        let empty = Shape::known(&[0]);
        let Some(d) = ctx.shape(0).dims() else {
            let other = if uv { Shape::unknown() } else { empty };
            return Ok(vec![(t, Shape::unknown()), (t, other.clone()), (t, other)]);
        };
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {}", d.len())));
        }
        let (m, n) = (d[d.len() - 2], d[d.len() - 1]);
        let p = m.zip(n).map(|(m, n)| m.min(n));
        let batch = &d[..d.len() - 2];
        let with = |x: &[Option<usize>]| Shape::partial(&[batch, x].concat());
        if !uv {
            return Ok(vec![(t, with(&[p])), (t, empty.clone()), (t, empty)]);
        }
        let (pu, pv) = if full { (m, n) } else { (p, p) };
        Ok(vec![(t, with(&[p])), (t, with(&[m, pu])), (t, with(&[n, pv]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (uv, full) = attrs(node)?;
        Ok(Box::new(SvdKernel { uv, full }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        svd_grad(ctx).map(|g| vec![Some(g)])
    }
}

/// One-sided Jacobi SVD of the `m × n` row-major `a`, `m ≥ n`: (`s` `n` descending, `u`
/// `m × n` row-major, `v` `n × n` row-major); a zero singular value leaves a zero column in
/// `u`.
fn jacobi(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut u = a.to_vec();
    let mut v = vec![0.0; n * n];
    (0..n).for_each(|i| v[i * n + i] = 1.0);
    for _sweep in 0..80 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                for i in 0..m {
                    let (x, y) = (u[i * n + p], u[i * n + q]);
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                if gamma == 0.0 || gamma.abs() <= 1e-15 * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for (w, rows) in [(&mut u, m), (&mut v, n)] {
                    for i in 0..rows {
                        let (x, y) = (w[i * n + p], w[i * n + q]);
                        w[i * n + p] = c * x - s * y;
                        w[i * n + q] = s * x + c * y;
                    }
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let norms: Vec<f64> = (0..n).map(|j| (0..m).map(|i| u[i * n + j] * u[i * n + j]).sum::<f64>().sqrt()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| norms[y].total_cmp(&norms[x]));
    let s: Vec<f64> = order.iter().map(|&j| norms[j]).collect();
    let mut uo = vec![0.0; m * n];
    let mut vo = vec![0.0; n * n];
    for (k, &j) in order.iter().enumerate() {
        for i in 0..m {
            uo[i * n + k] = if norms[j] > 0.0 { u[i * n + j] / norms[j] } else { 0.0 };
        }
        for i in 0..n {
            vo[i * n + k] = v[i * n + j];
        }
    }
    (s, uo, vo)
}

/// The `rows × have` row-major `w`'s orthonormal columns (those of zero singular values,
/// zero, come last), completed to `cols` orthonormal columns by Gram-Schmidt on the unit
/// vectors; `rows × cols` row-major.
fn complete(w: &[f64], rows: usize, have: usize, cols: usize) -> Vec<f64> {
    let mut basis: Vec<Vec<f64>> = (0..have)
        .map(|j| (0..rows).map(|i| w[i * have + j]).collect::<Vec<f64>>())
        .take_while(|c| c.iter().any(|&x| x != 0.0))
        .collect();
    for unit in 0..rows {
        if basis.len() >= cols {
            break;
        }
        let mut c = vec![0.0; rows];
        c[unit] = 1.0;
        for _ in 0..2 {
            for b in &basis {
                let d: f64 = b.iter().zip(&c).map(|(x, y)| x * y).sum();
                c.iter_mut().zip(b).for_each(|(y, x)| *y -= d * x);
            }
        }
        let norm = c.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 1e-6 {
            basis.push(c.iter().map(|x| x / norm).collect());
        }
    }
    let mut out = vec![0.0; rows * cols];
    for (j, b) in basis.iter().enumerate().take(cols) {
        for (i, &x) in b.iter().enumerate() {
            out[i * cols + j] = x;
        }
    }
    out
}

struct SvdKernel {
    uv: bool,
    full: bool,
}

impl Kernel for SvdKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let d = x.shape();
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!("Input tensor 0 must have rank >= 2, got {}", d.len())));
        }
        let (m, n) = (d[d.len() - 2], d[d.len() - 1]);
        let p = m.min(n);
        let (pu, pv) = if self.full { (m, n) } else { (p, p) };
        let batch: usize = d[..d.len() - 2].iter().product();
        let v = x.to_f64_vec()?;
        let (mut ss, mut us, mut vs) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..batch {
            let a = &v[b * m * n..(b + 1) * m * n];
            // A = U S V^T; for m < n through A^T = V S U^T.
            let (s, u, w) = if m >= n {
                jacobi(a, m, n)
            } else {
                let at: Vec<f64> = (0..n * m).map(|k| a[(k % m) * n + k / m]).collect();
                let (s, u, w) = jacobi(&at, n, m);
                (s, w, u)
            };
            ss.extend(s);
            if self.uv {
                us.extend(complete(&u, m, p, pu));
                vs.extend(complete(&w, n, p, pv));
            }
        }
        let with = |x: &[usize]| [&d[..d.len() - 2], x].concat();
        let dt = x.dtype();
        let s = Tensor::from_f64(dt, &with(&[p]), &ss)?;
        if !self.uv {
            return Ok(vec![s, Tensor::zeros(dt, &[0]), Tensor::zeros(dt, &[0])]);
        }
        Ok(vec![s, Tensor::from_f64(dt, &with(&[m, pu]), &us)?, Tensor::from_f64(dt, &with(&[n, pv]), &vs)?])
    }
}

/// TensorFlow's `_SafeReciprocal`: `x / (x² + 1e-20)`.
fn safe_reciprocal(s: &Scope, x: &Output) -> Result<Output> {
    let eps = scalar_like(s, 1e-20, x.dtype())?;
    mul(s, x, &reciprocal(s, &add(s, &mul(s, x, x)?, &eps)?)?)
}

/// TensorFlow's `_SvdGrad` (real dtypes).
fn svd_grad(ctx: &GradCtx) -> Result<Output> {
    let s = ctx.scope;
    let a = &ctx.inputs[0];
    let grad_s_mat = matrix_diag(s, &ctx.grad(0)?)?;
    let (uv, full) = attrs(ctx.node)?;
    if !uv {
        let op = s
            .op("Svd", "Svd")
            .input(a)
            .attr("T", a.dtype())
            .attr("compute_uv", true)
            .attr("full_matrices", false)
            .build()?;
        let (u, v) = (op.output(1)?, op.output(2)?);
        return batch_matmul(s, &u, &batch_matmul(s, &grad_s_mat, &v, false, true)?, false, false);
    }
    let dims = a.shape().dims().map(|d| d.to_vec());
    let Some((m, n, rank)) = dims.as_ref().and_then(|d| Some((d[d.len() - 2]?, d[d.len() - 1]?, d.len()))) else {
        return Err(Error::unimplemented(
            "SVD gradient has not been implemented for input with unknown inner matrix shape.",
        ));
    };
    let (sv, mut u, mut v) = (ctx.outputs[0].clone(), ctx.outputs[1].clone(), ctx.outputs[2].clone());
    let (mut grad_u, mut grad_v) = (ctx.grad(1)?, ctx.grad(2)?);
    let (mut m, mut n) = (m, n);
    let use_adjoint = m > n;
    if use_adjoint {
        std::mem::swap(&mut m, &mut n);
        std::mem::swap(&mut u, &mut v);
        std::mem::swap(&mut grad_u, &mut grad_v);
    }
    if full && n - m > 1 {
        return Err(Error::unimplemented(format!(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. Received: m={m} and n={n}"
        )));
    }
    let s_mat = matrix_diag(s, &sv)?;
    let s2 = square(s, &sv)?;
    let diff = sub(s, &expand_dims(s, &s2, -2)?, &expand_dims(s, &s2, -1)?)?;
    let f = matrix_set_diag(s, &safe_reciprocal(s, &diff)?, &zeros_like(s, &sv)?)?;
    let s_inv_mat = matrix_diag(s, &safe_reciprocal(s, &sv)?)?;
    let mi = m as i64;
    let v1 = columns(s, &v, 0, mi)?;
    let grad_v1 = columns(s, &grad_v, 0, mi)?;
    let u_gu = batch_matmul(s, &u, &grad_u, true, false)?;
    let v_gv = batch_matmul(s, &v1, &grad_v1, true, false)?;
    let f_u = mul(s, &f, &u_gu)?;
    let f_v = mul(s, &f, &v_gv)?;
    let sym = |x: &Output| -> Result<Output> { add(s, x, &adjoint(s, x, rank)?) };
    let term1_nouv = add(
        s,
        &add(s, &grad_s_mat, &batch_matmul(s, &sym(&f_u)?, &s_mat, false, false)?)?,
        &batch_matmul(s, &s_mat, &sym(&f_v)?, false, false)?,
    )?;
    let term1 = batch_matmul(s, &u, &batch_matmul(s, &term1_nouv, &v1, false, true)?, false, false)?;
    let g = if m == n {
        term1
    } else {
        let gv1t = adjoint(s, &grad_v1, rank)?;
        let gv1t_v1 = batch_matmul(s, &gv1t, &v1, false, false)?;
        let mut term2_nous = sub(s, &gv1t, &batch_matmul(s, &gv1t_v1, &v1, false, true)?)?;
        if full {
            let v2 = columns(s, &v, mi, n as i64)?;
            let grad_v2 = columns(s, &grad_v, mi, n as i64)?;
            let v1t_gv2 = batch_matmul(s, &v1, &grad_v2, true, false)?;
            term2_nous = sub(s, &term2_nous, &batch_matmul(s, &v1t_gv2, &v2, false, true)?)?;
        }
        let u_s_inv = batch_matmul(s, &u, &s_inv_mat, false, false)?;
        add(s, &term1, &batch_matmul(s, &u_s_inv, &term2_nous, false, false)?)?
    };
    if use_adjoint {
        adjoint(s, &g, rank)
    } else {
        Ok(g)
    }
}

/// `tf.linalg.svd(input, full_matrices, compute_uv)` as op `Svd`, default name `Svd`;
/// returns (s, u, v). See [`Svd`].
pub fn svd(s: &Scope, input: &Output, compute_uv: bool, full_matrices: bool) -> Result<(Output, Output, Output)> {
    let op = s
        .op("Svd", "Svd")
        .input(input)
        .attr("T", input.dtype())
        .attr("compute_uv", compute_uv)
        .attr("full_matrices", full_matrices)
        .build()?;
    Ok((op.output(0)?, op.output(1)?, op.output(2)?))
}
