//! `Qr` (`tf.linalg.qr`): batched QR decompositions by Householder reflections, as
//! Eigen's `HouseholderQR` that TensorFlow's kernel runs (so `R`'s diagonal has Eigen's
//! signs, not all positive).

use super::arithmetic::{add, sub};
use super::batch_matmul::batch_matmul;
use super::linalg::FLOATS;
use super::triangular_solve::matrix_triangular_solve;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{concat, matrix_band_part, scalar_like, strided_slice, transpose, SliceMasks};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Qr];

/// `Qr(input)` (attr `full_matrices` = false): `q`, `r` with `input = q · r` for each
/// `[..., M, N]` matrix of `input` (float32/float64; float16 computed in float32), `q`
/// orthonormal columns `[..., M, P]` and `r` upper triangular `[..., P, N]`, `P = min(M, N)`
/// (`P = M` for `full_matrices`), computed in float64 by Eigen's Householder reflections:
/// `r[k][k] = -sign(x₀)·‖x‖` for each column's `x` (no reflection for a one-element or
/// exactly zero tail, leaving `x₀`). Errors (`InvalidArgument`, TensorFlow's texts): `Shape
/// must be at least rank 2` at build time, `Input tensor 0 must have rank >= 2, got 1` when
/// run. Gradient (TensorFlow's `_QrGrad`, for static inner shapes; `Unimplemented` for
/// `M > N` with `full_matrices`, and for unknown inner dimensions, as TensorFlow's
/// `NotImplementedError`).
pub struct Qr;

fn full(node: &Node) -> Result<bool> {
    node.attr_bool_or("full_matrices", false)
}

impl RegisteredOp for Qr {
    fn op_type(&self) -> &'static str {
        "Qr"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        let t = ctx.check_dtype(0, FLOATS)?;
        let Some(d) = ctx.shape(0).dims() else { return Ok(vec![(t, Shape::unknown()), (t, Shape::unknown())]) };
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {}", d.len())));
        }
        let (m, n) = (d[d.len() - 2], d[d.len() - 1]);
        let p = if full(ctx.node)? { m } else { m.zip(n).map(|(m, n)| m.min(n)) };
        let batch = &d[..d.len() - 2];
        let with = |x: Option<usize>, y: Option<usize>| Shape::partial(&[batch, &[x, y]].concat());
        Ok(vec![(t, with(m, p)), (t, with(p, n))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(QrKernel(full(node)?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        qr_grad(ctx).map(|g| vec![Some(g)])
    }
}

/// Householder QR of the `m × n` row-major `a`: (`q` `m × p`, `r` `p × n`), `p` = `m` when
/// `full`, else `min(m, n)`.
fn householder_qr(a: &mut [f64], m: usize, n: usize, full: bool) -> (Vec<f64>, Vec<f64>) {
    let size = m.min(n);
    let mut reflectors: Vec<(Vec<f64>, f64)> = Vec::with_capacity(size);
    for k in 0..size {
        let c0 = a[k * n + k];
        let tail: f64 = (k + 1..m).map(|i| a[i * n + k] * a[i * n + k]).sum();
        let (mut v, tau, beta) = (vec![1.0; m - k], 0.0, c0);
        let (tau, beta) = if tail <= f64::MIN_POSITIVE {
            (tau, beta)
        } else {
            let beta = if c0 >= 0.0 { -(c0 * c0 + tail).sqrt() } else { (c0 * c0 + tail).sqrt() };
            for i in k + 1..m {
                v[i - k] = a[i * n + k] / (c0 - beta);
            }
            ((beta - c0) / beta, beta)
        };
        a[k * n + k] = beta;
        for i in k + 1..m {
            a[i * n + k] = 0.0;
        }
        for j in k + 1..n {
            let dot: f64 = (k..m).map(|i| v[i - k] * a[i * n + j]).sum();
            for i in k..m {
                a[i * n + j] -= tau * v[i - k] * dot;
            }
        }
        reflectors.push((v, tau));
    }
    let p = if full { m } else { size };
    let mut q = vec![0.0; m * p];
    for i in 0..p.min(m) {
        q[i * p + i] = 1.0;
    }
    for (k, (v, tau)) in reflectors.iter().enumerate().rev() {
        for j in 0..p {
            let dot: f64 = (k..m).map(|i| v[i - k] * q[i * p + j]).sum();
            for i in k..m {
                q[i * p + j] -= tau * v[i - k] * dot;
            }
        }
    }
    let mut r = vec![0.0; p * n];
    for i in 0..p.min(m) {
        for j in i..n {
            r[i * n + j] = a[i * n + j];
        }
    }
    (q, r)
}

struct QrKernel(bool);

impl Kernel for QrKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let d = x.shape();
        if d.len() < 2 {
            return Err(Error::invalid_argument(format!("Input tensor 0 must have rank >= 2, got {}", d.len())));
        }
        let (m, n) = (d[d.len() - 2], d[d.len() - 1]);
        let p = if self.0 { m } else { m.min(n) };
        let batch: usize = d[..d.len() - 2].iter().product();
        let v = x.to_f64_vec()?;
        let (mut qs, mut rs) = (Vec::with_capacity(batch * m * p), Vec::with_capacity(batch * p * n));
        for b in 0..batch {
            let mut a = v[b * m * n..(b + 1) * m * n].to_vec();
            let (q, r) = householder_qr(&mut a, m, n, self.0);
            qs.extend(q);
            rs.extend(r);
        }
        let with = |x: usize, y: usize| [&d[..d.len() - 2], &[x, y]].concat();
        Ok(vec![Tensor::from_f64(x.dtype(), &with(m, p), &qs)?, Tensor::from_f64(x.dtype(), &with(p, n), &rs)?])
    }
}

/// `x^H` for `x` of static rank `rank` (a `Transpose` of the last two dimensions).
pub(super) fn adjoint(s: &Scope, x: &Output, rank: usize) -> Result<Output> {
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    transpose(s, x, &perm)
}

/// `x[..., :, lo:hi]` (`hi` = 0: to the end) for `x` of rank ≥ 2.
pub(super) fn columns(s: &Scope, x: &Output, lo: i64, hi: i64) -> Result<Output> {
    let end_mask = if hi == 0 { 0b110 } else { 0b010 };
    let masks = SliceMasks { ellipsis: 1, begin: 0b010, end: end_mask, ..SliceMasks::default() };
    strided_slice(s, x, &[0, 0, lo], &[0, 0, hi], &[1, 1, 1], masks)
}

/// TensorFlow's `_QrGrad` (real dtypes).
fn qr_grad(ctx: &GradCtx) -> Result<Output> {
    let s = ctx.scope;
    let (q, r) = (&ctx.outputs[0], &ctx.outputs[1]);
    let (qd, rd) = (q.shape().dims().map(|d| d.to_vec()), r.shape().dims().map(|d| d.to_vec()));
    let dims =
        |d: &Option<Vec<Option<usize>>>| d.as_ref().and_then(|d| Some((d[d.len() - 2]?, d[d.len() - 1]?, d.len())));
    let (Some((qm, qp, rank)), Some((rp, rn, _))) = (dims(&qd), dims(&rd)) else {
        return Err(Error::unimplemented(format!(
            "QrGrad not implemented with dynamic shapes. Received r.shape: {}",
            r.shape()
        )));
    };
    if rp > rn && qm == qp {
        return Err(Error::unimplemented(format!(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. Received r.shape={}",
            r.shape()
        )));
    }
    let (dq, dr) = (ctx.grad(0)?, ctx.grad(1)?);
    let (all, zero) = (scalar_like(s, -1.0, DType::Int64)?, scalar_like(s, 0.0, DType::Int64)?);
    // x · r^{-H} for upper-triangular r.
    let tri_solve =
        |x: &Output, r: &Output| adjoint(s, &matrix_triangular_solve(s, r, &adjoint(s, x, rank)?, false, false)?, rank);
    let square_and_deep = |q: &Output, r: &Output, dq: &Output, dr: &Output| -> Result<Output> {
        let qdq = batch_matmul(s, q, dq, true, false)?;
        let qdq_ = sub(s, &qdq, &batch_matmul(s, dq, q, true, false)?)?;
        let rdr = batch_matmul(s, r, dr, false, true)?;
        let rdr_ = sub(s, &rdr, &batch_matmul(s, dr, r, false, true)?)?;
        let tril = matrix_band_part(s, &add(s, &qdq_, &rdr_)?, &all, &zero)?;
        let grad_a = batch_matmul(s, q, &add(s, dr, &tri_solve(&tril, r)?)?, false, false)?;
        let grad_b = tri_solve(&sub(s, dq, &batch_matmul(s, q, &qdq, false, false)?)?, r)?;
        add(s, &grad_a, &grad_b)
    };
    if qm >= rn {
        return square_and_deep(q, r, &dq, &dr);
    }
    let m = qm as i64;
    let y = columns(s, &ctx.inputs[0], m, 0)?;
    let u = columns(s, r, 0, m)?;
    let dv = columns(s, &dr, m, 0)?;
    let du = columns(s, &dr, 0, m)?;
    let dy = batch_matmul(s, q, &dv, false, false)?;
    let dx = square_and_deep(q, &u, &add(s, &dq, &batch_matmul(s, &y, &dv, false, true)?)?, &du)?;
    concat(s, &[dx, dy], -1)
}

/// `tf.linalg.qr(input, full_matrices)`: op `Qr`, default name `Qr`; returns (q, r). See
/// [`Qr`].
pub fn qr(s: &Scope, input: &Output, full_matrices: bool) -> Result<(Output, Output)> {
    let op = s.op("Qr", "Qr").input(input).attr("T", input.dtype()).attr("full_matrices", full_matrices).build()?;
    Ok((op.output(0)?, op.output(1)?))
}
