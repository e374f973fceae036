//! `MatMul`: the product of two matrices, with `transpose_a` / `transpose_b` parsed once
//! when the session prepares the node.

use super::binary::no_kernel;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::{matmul_packed, PackedB, PackedWeights};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};
use std::sync::Arc;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&MatMul];

/// `MatMul(a, b)`: `a @ b` for rank-2 float32/float64/complex64/complex128 tensors of one dtype; attrs
/// `transpose_a`, `transpose_b` (default false) transpose an operand first. Errors:
/// `InvalidArgument` for another rank or mismatched inner dimensions (naming both shapes;
/// at build time when known), a non-bool transpose attr or another dtype (when the session
/// prepares the node). Gradient: TensorFlow's `_MatMulGrad`.
pub struct MatMul;

/// The `transpose_a`, `transpose_b` attrs of a `MatMul` node.
fn transposes(node: &Node) -> Result<(bool, bool)> {
    Ok((node.attr_bool_or("transpose_a", false)?, node.attr_bool_or("transpose_b", false)?))
}

impl RegisteredOp for MatMul {
    fn op_type(&self) -> &'static str {
        "MatMul"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        let (ta, tb) = transposes(ctx.node)?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        if a.rank().is_some_and(|r| r != 2) || b.rank().is_some_and(|r| r != 2) {
            return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {a} and {b}")));
        }
        let (m, k) = if ta { (a.dim(1), a.dim(0)) } else { (a.dim(0), a.dim(1)) };
        let (k2, n) = if tb { (b.dim(1), b.dim(0)) } else { (b.dim(0), b.dim(1)) };
        if let (Some(k), Some(k2)) = (k, k2) {
            if k != k2 {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {k} and {k2} for MatMul with input shapes {a}, {b}"
                )));
            }
        }
        Ok(vec![(t, Shape::partial(&[m, n]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (transpose_a, transpose_b) = transposes(node)?;
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        if matches!(t, DType::Complex64 | DType::Complex128) {
            return Ok(Box::new(ComplexMatMulKernel(transpose_a, transpose_b)));
        }
        if !matches!(t, DType::Float | DType::Double) {
            return Err(no_kernel("MatMul", t));
        }
        Ok(Box::new(MatMulKernel { transpose_a, transpose_b, weights: PackedWeights::default() }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (ta, tb) = transposes(ctx.node)?;
        // TensorFlow's `_MatMulGrad` conjugates complex operands (`math_ops.conj`)
        let complex = matches!(ctx.inputs[0].dtype(), DType::Complex64 | DType::Complex128);
        let (a, b) = if complex {
            (super::complex::conj(s, &ctx.inputs[0])?, super::complex::conj(&s.named("Conj_1"), &ctx.inputs[1])?)
        } else {
            (ctx.inputs[0].clone(), ctx.inputs[1].clone())
        };
        let (a, b) = (&a, &b);
        let g = ctx.grad(0)?;
        let s1 = s.named("MatMul_1");
        let mm_a = |s: &Scope, x: &Output, y: &Output, ta, tb| matmul_op(s, x, y, (ta, tb), (true, false));
        let mm_b = |s: &Scope, x: &Output, y: &Output, ta, tb| matmul_op(s, x, y, (ta, tb), (false, true));
        let (ga, gb) = match (ta, tb) {
            (false, false) => (mm_a(s, &g, b, false, true)?, mm_b(&s1, a, &g, true, false)?),
            (false, true) => (mm_a(s, &g, b, false, false)?, mm_b(&s1, &g, a, true, false)?),
            (true, false) => (mm_a(s, b, &g, false, true)?, mm_b(&s1, a, &g, false, false)?),
            (true, true) => (mm_a(s, b, &g, true, true)?, mm_b(&s1, &g, a, true, true)?),
        };
        Ok(vec![Some(ga), Some(gb)])
    }
}

/// A prepared complex `MatMul`: its transposes (plain, not conjugating).
struct ComplexMatMulKernel(bool, bool);

impl Kernel for ComplexMatMulKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        if a.rank() != 2 || b.rank() != 2 {
            return Err(Error::invalid_argument(format!(
                "In[0] and In[1] are not both matrices: {} and {}",
                Shape::known(a.shape()),
                Shape::known(b.shape())
            )));
        }
        Ok(vec![super::complex::complex_batch_matmul(a, b, (self.0, self.1), false)?])
    }
}

/// A prepared `MatMul`: its transposes, and a constant float32 `b`'s packed form.
struct MatMulKernel {
    transpose_a: bool,
    transpose_b: bool,
    weights: PackedWeights,
}

impl Kernel for MatMulKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let packed = const_rhs(ctx, &self.weights, self.transpose_a, self.transpose_b);
        Ok(vec![matmul_packed(ctx.input(0), ctx.input(1), self.transpose_a, self.transpose_b, packed.as_deref())?])
    }
}

/// The packed form of a product's right operand (input 1) when it is a float32 matrix
/// from a `Const` node, not transposed, and the left operand has more than one row (a
/// single row runs on the matrix-vector path, which reads `b` as it is: packing there
/// would only cost a first run its time); `None` otherwise.
pub(super) fn const_rhs(
    ctx: &KernelCtx,
    weights: &PackedWeights,
    transpose_a: bool,
    transpose_b: bool,
) -> Option<Arc<PackedB>> {
    let (a, b) = (ctx.input(0), ctx.input(1));
    let rows = a.shape().get(usize::from(transpose_a)).copied().unwrap_or(0);
    if transpose_b || b.rank() != 2 || a.rank() != 2 || rows <= 1 {
        return None;
    }
    ctx.packed_const_input(1, weights, b.shape()[0], b.shape()[1])
}

/// `tf.matmul(a, b)`: op `MatMul`, default name `MatMul`; see [`matmul_t`].
pub fn matmul(s: &Scope, a: &Output, b: &Output) -> Result<Output> {
    matmul_t(s, a, b, false, false)
}

/// `tf.matmul(a, b, transpose_a, transpose_b)`: op `MatMul`, default name `MatMul`. `a`
/// and `b` are float32/float64 matrices of one dtype; `[m, k] @ [k, n]` after the
/// transposes gives `[m, n]`. Errors: `InvalidArgument` naming both shapes for another
/// rank or mismatched inner dimensions.
pub fn matmul_t(s: &Scope, a: &Output, b: &Output, transpose_a: bool, transpose_b: bool) -> Result<Output> {
    matmul_op(s, a, b, (transpose_a, transpose_b), (false, false))
}

/// A `MatMul` with its `grad_a`/`grad_b` attrs (TensorFlow 2.21 marks the products its
/// gradient makes: `grad_a` on the one computing d/da, `grad_b` on d/db).
fn matmul_op(s: &Scope, a: &Output, b: &Output, transpose: (bool, bool), grad: (bool, bool)) -> Result<Output> {
    s.op("MatMul", "MatMul")
        .input(a)
        .input(b)
        .attr("T", a.dtype())
        .attr("transpose_a", transpose.0)
        .attr("transpose_b", transpose.1)
        .attr("grad_a", grad.0)
        .attr("grad_b", grad.1)
        .build_output()
}
