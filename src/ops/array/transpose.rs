//! `Transpose` (`tf.transpose`) and `InvertPermutation`, which its gradient uses.

use super::layout::{int_tensor, product_indices, strides};
use super::{const_under, int_values, plain, INTS};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

/// Checks that `perm` is a permutation of `0..rank`.
fn check_perm(perm: &[i64], rank: usize, input: &str) -> Result<Vec<usize>> {
    if perm.len() != rank {
        return Err(Error::invalid_argument(format!(
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {} (input {input}, perm {perm:?})",
            perm.len()
        )));
    }
    let mut seen = vec![false; rank];
    for &p in perm {
        if p < 0 || p as usize >= rank {
            return Err(Error::invalid_argument(format!(
                "{p} is out of range [0 .. {rank}) in perm {perm:?} (input {input})"
            )));
        }
        if std::mem::replace(&mut seen[p as usize], true) {
            return Err(Error::invalid_argument(format!(
                "{p} appears more than once in perm {perm:?} (input {input})"
            )));
        }
    }
    Ok(perm.iter().map(|&p| p as usize).collect())
}

/// `Transpose(x, perm)`: output dimension `i` is input dimension `perm[i]` (`perm`
/// int32/int64, attr `Tperm`). All dtypes.
pub struct Transpose;
impl RegisteredOp for Transpose {
    fn op_type(&self) -> &'static str {
        "Transpose"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(1, INTS)?;
        let x = ctx.shape(0);
        let perm = ctx.const_input(1).map(|p| int_values(&p)).transpose()?;
        let rank = x.rank().or(perm.as_ref().map(|p| p.len())).or(ctx.shape(1).dim(0));
        let Some(rank) = rank else {
            return Ok(vec![(ctx.dtype(0), Shape::unknown())]);
        };
        let Some(perm) = perm else {
            return Ok(vec![(ctx.dtype(0), Shape::partial(&vec![None; rank]))]);
        };
        let perm = check_perm(&perm, rank, &x.to_string())?;
        let out: Vec<Option<usize>> = perm.iter().map(|&p| x.dims().and_then(|d| d[p])).collect();
        Ok(vec![(ctx.dtype(0), Shape::partial(&out))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(transpose_kernel)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let p = &ctx.inputs[1];
        let inv = s.op("InvertPermutation", "InvertPermutation").input(p).attr("T", p.dtype()).build_output()?;
        Ok(vec![Some(transpose_dyn(s, &ctx.grad(0)?, &inv)?), None])
    }
}

/// The `Transpose` kernel: output dimension `i` gathers input dimension `perm[i]`.
fn transpose_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    let perm = check_perm(&int_values(ctx.input(1))?, x.rank(), &fmt_dims(x.shape()))?;
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(vec![x.clone()]);
    }
    let st = strides(x.shape());
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape()[p]).collect();
    let per_dim: Vec<Vec<usize>> = perm.iter().map(|&p| (0..x.shape()[p]).map(|i| i * st[p]).collect()).collect();
    Ok(vec![Tensor::from_storage(&shape, x.storage().gather(&product_indices(&per_dim)))?])
}

/// `tf.transpose(x, perm)` with a constant `perm` (int32 const `transpose/perm`): op
/// `Transpose` (attrs `T`, `Tperm`), default name `transpose`. Output dimension `i` is
/// `x`'s dimension `perm[i]`; any dtype. Errors: `InvalidArgument` naming the shape and
/// perm when `perm` is not a permutation of `0..rank`. Gradient: the inverse transpose.
pub fn transpose(s: &Scope, x: &Output, perm: &[i64]) -> Result<Output> {
    let base = s.unique_op_name("transpose");
    let p = const_under(s, &base, "perm", Tensor::vector(perm.iter().map(|&v| v as i32).collect::<Vec<_>>()))?;
    transpose_dyn(&s.named(&format!("{base}/")), x, &p)
}

/// `Transpose` with `perm` a 1-d int32/int64 tensor. As [`transpose`].
pub fn transpose_dyn(s: &Scope, x: &Output, perm: &Output) -> Result<Output> {
    s.op("Transpose", "transpose").input(x).input(perm).attr("T", x.dtype()).attr("Tperm", perm.dtype()).build_output()
}

/// `InvertPermutation(x)`: `y[x[i]] = i` for a 1-d int32/int64 permutation.
pub struct InvertPermutation;
impl RegisteredOp for InvertPermutation {
    fn op_type(&self) -> &'static str {
        "InvertPermutation"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, INTS)?;
        if let Some(r) = ctx.shape(0).rank().filter(|&r| r != 1) {
            return Err(Error::invalid_argument(format!("InvertPermutation: x must be 1-D, got rank {r}")));
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        plain(invert_permutation_kernel)
    }
}

/// The `InvertPermutation` kernel.
fn invert_permutation_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    if x.rank() != 1 {
        return Err(Error::invalid_argument(format!("InvertPermutation: x must be 1-D, got {}", fmt_dims(x.shape()))));
    }
    let v = int_values(x)?;
    let p = check_perm(&v, v.len(), &fmt_dims(x.shape()))?;
    let mut inv = vec![0i64; p.len()];
    for (i, &j) in p.iter().enumerate() {
        inv[j] = i as i64;
    }
    Ok(vec![int_tensor(x.dtype(), &inv)?])
}
