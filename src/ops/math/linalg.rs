//! `MatrixInverse`, `MatrixDeterminant` and `LogMatrixDeterminant` (`tf.linalg.inv`,
//! `tf.linalg.det`, `tf.linalg.slogdet`): batched square matrices through an LU
//! decomposition with partial pivoting, as TensorFlow's Eigen kernels.

use super::arithmetic::{mul, neg};
use super::batch_matmul::batch_matmul;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::expand_dims;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&MatrixInverse, &MatrixDeterminant, &LogMatrixDeterminant];

/// The dtypes with kernels here (TensorFlow's also take half and complex).
pub(super) const FLOATS: &[DType] = &[DType::Float, DType::Double];

/// Shape checks shared by both ops: rank ≥ 2, square (`cols_first`: the message names the
/// columns first, as `MatrixDeterminant`'s shape function). Returns the shape.
pub(super) fn infer_square(ctx: &InferCtx, cols_first: bool) -> Result<Option<Vec<Option<usize>>>> {
    ctx.expect_inputs(1)?;
    ctx.check_type_attr("T", 0)?;
    ctx.check_dtype(0, FLOATS)?;
    let Some(d) = ctx.shape(0).dims() else { return Ok(None) };
    if d.len() < 2 {
        return Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {}", d.len())));
    }
    let n = d.len();
    if let (Some(a), Some(b)) = (d[n - 2], d[n - 1]) {
        if a != b {
            let (a, b) = if cols_first { (b, a) } else { (a, b) };
            return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {a} and {b}")));
        }
    }
    let mut out = d.to_vec();
    let m = out[n - 2].or(out[n - 1]);
    out[n - 2] = m;
    out[n - 1] = m;
    Ok(Some(out))
}

/// The batched matrices of `x` as (batch count, side), after TensorFlow's checks.
pub(super) fn square(x: &Tensor) -> Result<(usize, usize)> {
    let d = x.shape();
    if d.len() < 2 {
        return Err(Error::invalid_argument(format!("Input tensor 0 must have rank >= 2, got {}", d.len())));
    }
    let n = d.len();
    if d[n - 1] != d[n - 2] {
        return Err(Error::invalid_argument("Input matrix must be square."));
    }
    Ok((d[..n - 2].iter().product(), d[n - 1]))
}

/// LU with partial pivoting of the `n × n` row-major `a`, in place: (row permutation,
/// sign of the permutation).
pub(super) fn lu(a: &mut [f64], n: usize) -> (Vec<usize>, f64) {
    let mut perm: Vec<usize> = (0..n).collect();
    let mut sign = 1.0;
    for k in 0..n {
        let p = (k..n).fold(k, |best, i| if a[i * n + k].abs() > a[best * n + k].abs() { i } else { best });
        if p != k {
            for j in 0..n {
                a.swap(k * n + j, p * n + j);
            }
            perm.swap(k, p);
            sign = -sign;
        }
        let pivot = a[k * n + k];
        if pivot == 0.0 {
            continue;
        }
        for i in k + 1..n {
            let f = a[i * n + k] / pivot;
            a[i * n + k] = f;
            for j in k + 1..n {
                a[i * n + j] -= f * a[k * n + j];
            }
        }
    }
    (perm, sign)
}

/// `MatrixInverse(input)` (attr `adjoint` = false): the inverse (of the adjoint when
/// `adjoint`) of each square matrix of `input` (`[..., M, M]`, float32/float64). Errors
/// (`InvalidArgument`, TensorFlow's texts): `Shape must be at least rank 2`, `Dimensions
/// must be equal` at build time; `Input is not invertible.` for an exactly zero (or NaN)
/// pivot, `Input matrix must be square.`, `Input tensor 0 must have rank >= 2, got 1` when
/// run. Gradient (TensorFlow's): `-ainv^H · grad · ainv^H` (with the adjoints swapped
/// for `adjoint`).
pub struct MatrixInverse;

impl RegisteredOp for MatrixInverse {
    fn op_type(&self) -> &'static str {
        "MatrixInverse"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let s = infer_square(ctx, false)?.map_or_else(Shape::unknown, |d| Shape::partial(&d));
        Ok(vec![(ctx.dtype(0), s)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(InverseKernel(node.attr_bool_or("adjoint", false)?)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let adj = ctx.node.attr_bool_or("adjoint", false)?;
        let ainv = &ctx.outputs[0];
        let inner = batch_matmul(s, &ctx.grad(0)?, ainv, adj, !adj)?;
        Ok(vec![Some(neg(s, &batch_matmul(s, ainv, &inner, !adj, false)?)?)])
    }
}

struct InverseKernel(bool);

impl Kernel for InverseKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (batch, n) = square(x)?;
        let v = x.to_f64_vec()?;
        let mut out = vec![0.0; v.len()];
        for b in 0..batch {
            let mut a: Vec<f64> = v[b * n * n..(b + 1) * n * n].to_vec();
            if self.0 {
                for i in 0..n {
                    for j in i + 1..n {
                        a.swap(i * n + j, j * n + i);
                    }
                }
            }
            let (perm, _) = lu(&mut a, n);
            if (0..n).any(|i| a[i * n + i].is_nan() || a[i * n + i] == 0.0) {
                return Err(Error::invalid_argument("Input is not invertible."));
            }
            // Solve L U X = P I column by column.
            let o = &mut out[b * n * n..(b + 1) * n * n];
            for col in 0..n {
                let mut y: Vec<f64> = (0..n).map(|i| if perm[i] == col { 1.0 } else { 0.0 }).collect();
                for i in 0..n {
                    for k in 0..i {
                        y[i] -= a[i * n + k] * y[k];
                    }
                }
                for i in (0..n).rev() {
                    for k in i + 1..n {
                        y[i] -= a[i * n + k] * y[k];
                    }
                    y[i] /= a[i * n + i];
                }
                for i in 0..n {
                    o[i * n + col] = y[i];
                }
            }
        }
        Ok(vec![Tensor::from_f64(x.dtype(), x.shape(), &out)?])
    }
}

/// `MatrixDeterminant(input)`: the determinant of each square matrix of `input`
/// (`[..., M, M]`, float32/float64), shaped `[...]` (1 for an empty matrix; a singular
/// matrix gives ±0). Errors as [`MatrixInverse`] less the invertibility. Gradient
/// (TensorFlow's): `grad · det · inverse(input)^H`.
pub struct MatrixDeterminant;

impl RegisteredOp for MatrixDeterminant {
    fn op_type(&self) -> &'static str {
        "MatrixDeterminant"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let s = infer_square(ctx, true)?.map_or_else(Shape::unknown, |d| Shape::partial(&d[..d.len() - 2]));
        Ok(vec![(ctx.dtype(0), s)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(DeterminantKernel))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let a_adj_inv = matrix_inverse(s, &ctx.inputs[0], true)?;
        let gc = mul(s, &ctx.grad(0)?, &ctx.outputs[0])?;
        let multipliers = expand_dims(s, &expand_dims(s, &gc, -1)?, -1)?;
        Ok(vec![Some(mul(s, &multipliers, &a_adj_inv)?)])
    }
}

struct DeterminantKernel;

impl Kernel for DeterminantKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (batch, n) = square(x)?;
        let v = x.to_f64_vec()?;
        let dets: Vec<f64> = (0..batch)
            .map(|b| {
                let mut a: Vec<f64> = v[b * n * n..(b + 1) * n * n].to_vec();
                let (_, sign) = lu(&mut a, n);
                (0..n).fold(sign, |d, i| d * a[i * n + i])
            })
            .collect();
        Ok(vec![Tensor::from_f64(x.dtype(), &x.shape()[..x.rank() - 2], &dets)?])
    }
}

/// `LogMatrixDeterminant(input)` (`tf.linalg.slogdet`): for each square matrix of `input`
/// (`[..., M, M]`, float32/float64) the sign of its determinant and the log of its absolute
/// value, both shaped `[...]` (1 and 0 for an empty matrix). As TensorFlow's kernel, a
/// determinant whose log is not finite (a singular matrix, an overflow, a NaN) gives sign 0
/// and log `-inf` (`+inf` for an overflow). Errors as [`MatrixDeterminant`]. Gradient
/// (TensorFlow's, of the log only): `grad · inverse(input)^H`.
pub struct LogMatrixDeterminant;

impl RegisteredOp for LogMatrixDeterminant {
    fn op_type(&self) -> &'static str {
        "LogMatrixDeterminant"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let s = infer_square(ctx, true)?.map_or_else(Shape::unknown, |d| Shape::partial(&d[..d.len() - 2]));
        Ok(vec![(ctx.dtype(0), s.clone()), (ctx.dtype(0), s)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(LogDeterminantKernel))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let a_adj_inv = matrix_inverse(s, &ctx.inputs[0], true)?;
        let multipliers = expand_dims(s, &expand_dims(s, &ctx.grad(1)?, -1)?, -1)?;
        Ok(vec![Some(mul(s, &multipliers, &a_adj_inv)?)])
    }
}

struct LogDeterminantKernel;

impl Kernel for LogDeterminantKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (batch, n) = square(x)?;
        let v = x.to_f64_vec()?;
        let (mut signs, mut logs) = (Vec::with_capacity(batch), Vec::with_capacity(batch));
        for b in 0..batch {
            let mut a: Vec<f64> = v[b * n * n..(b + 1) * n * n].to_vec();
            let (_, mut sign) = lu(&mut a, n);
            let mut log = 0.0;
            for i in 0..n {
                let d = a[i * n + i];
                log += d.abs().ln();
                sign *= d / d.abs();
            }
            if !log.is_finite() {
                sign = 0.0;
                log = if log > 0.0 { f64::INFINITY } else { f64::NEG_INFINITY };
            }
            signs.push(sign);
            logs.push(log);
        }
        let shape = &x.shape()[..x.rank() - 2];
        Ok(vec![Tensor::from_f64(x.dtype(), shape, &signs)?, Tensor::from_f64(x.dtype(), shape, &logs)?])
    }
}

/// `tf.linalg.slogdet(input)`: op `LogMatrixDeterminant`, default name
/// `LogMatrixDeterminant`; returns (sign, log_abs_determinant). See [`LogMatrixDeterminant`].
pub fn log_matrix_determinant(s: &Scope, input: &Output) -> Result<(Output, Output)> {
    let op = s.op("LogMatrixDeterminant", "LogMatrixDeterminant").input(input).attr("T", input.dtype()).build()?;
    Ok((op.output(0)?, op.output(1)?))
}

/// `tf.linalg.inv(input, adjoint)`: op `MatrixInverse`, default name `MatrixInverse`. See
/// [`MatrixInverse`].
pub fn matrix_inverse(s: &Scope, input: &Output, adjoint: bool) -> Result<Output> {
    s.op("MatrixInverse", "MatrixInverse").input(input).attr("T", input.dtype()).attr("adjoint", adjoint).build_output()
}

/// `tf.linalg.det(input)`: op `MatrixDeterminant`, default name `MatrixDeterminant`. See
/// [`MatrixDeterminant`].
pub fn matrix_determinant(s: &Scope, input: &Output) -> Result<Output> {
    s.op("MatrixDeterminant", "MatrixDeterminant").input(input).attr("T", input.dtype()).build_output()
}
