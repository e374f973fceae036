//! `SparseTensorDenseMatMul` (`tf.sparse.sparse_dense_matmul`): a sparse matrix given as
//! COO indices, values and dense shape times a dense matrix, either one adjointed.

use super::arithmetic::mul;
use super::reduce_builders::reduce_sum;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{gather, int_values, strided_slice, transpose, SliceMasks};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&SparseTensorDenseMatMul];

/// TensorFlow's CPU kernels (it has no int64 one; complex is not here).
const DTYPES: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Half, DType::BFloat16];

/// `SparseTensorDenseMatMul(a_indices, a_values, a_shape, b)` (attrs `adjoint_a`,
/// `adjoint_b` = false): `op(A) · op(B)` for the sparse `A` of `a_indices` (`[nnz, 2]`,
/// int32/int64; any order, repeats add up), `a_values` (`[nnz]`) and `a_shape` (`[2]`
/// int64), and the dense matrix `b`; float32, float64, int32 (wrapping), float16 and
/// bfloat16 (accumulated wide, rounded once: TensorFlow's bfloat16 kernel rounds more
/// often, so its last bit can differ). Output `[rows of op(A), columns of op(B)]`.
/// Errors (`InvalidArgument`, TensorFlow's texts): at build time ranks and `Dimensions must
/// be equal` (inner dimensions, when `a_shape` is a constant); when run `Tensor 'b' is not a
/// matrix`, `Tensor 'a_shape' must have 2 elements`, `Number of rows of a_indices does not
/// match number of entries in a_values`, `Cannot multiply A and B because inner dimension
/// does not match: 5 vs. 4. ...`, `k (4) from index[1,1] out of bounds (>=4)`, `m (3) from
/// index[1,0] out of bounds (>=3)`. Gradient (TensorFlow's): to `b`, the product with
/// `grad` with `adjoint_a` flipped (transposed for `adjoint_b`); to `a_values`, the dot
/// products of the gathered rows of `grad` and of `op(B)`; none to the indices and shape.
pub struct SparseTensorDenseMatMul;

fn adjoints(node: &Node) -> Result<(bool, bool)> {
    Ok((node.attr_bool_or("adjoint_a", false)?, node.attr_bool_or("adjoint_b", false)?))
}

impl RegisteredOp for SparseTensorDenseMatMul {
    fn op_type(&self) -> &'static str {
        "SparseTensorDenseMatMul"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_type_attr("T", 1)?;
        ctx.check_type_attr("Tindices", 0)?;
        let t = ctx.check_dtype(1, DTYPES)?;
        ctx.check_dtype(0, &[DType::Int32, DType::Int64])?;
        ctx.check_dtype(2, &[DType::Int64])?;
        if ctx.dtype(3) != t {
            return Err(Error::invalid_argument(format!("b has dtype {}, a_values {t}", ctx.dtype(3))));
        }
        for (i, rank) in [(0, 2), (1, 1), (2, 1), (3, 2)] {
            if let Some(r) = ctx.shape(i).rank().filter(|&r| r != rank) {
                return Err(Error::invalid_argument(format!("Shape must be rank {rank} but is rank {r}")));
            }
        }
        let (adj_a, adj_b) = adjoints(ctx.node)?;
        let a_shape: Option<Vec<Option<usize>>> = match ctx.const_input(2) {
            Some(t) => {
                let v = int_values(&t)?;
                if v.len() != 2 {
                    return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {}", v.len())));
                }
                Some(v.iter().map(|&d| (d >= 0).then_some(d as usize)).collect())
            }
            None => None,
        };
        let b = ctx.shape(3).dims().map(|d| d.to_vec());
        let dim = |d: &Option<Vec<Option<usize>>>, i: usize| d.as_ref().and_then(|d| d[i]);
        let (left, inner_left) =
            if adj_a { (dim(&a_shape, 1), dim(&a_shape, 0)) } else { (dim(&a_shape, 0), dim(&a_shape, 1)) };
        let (inner_right, right) = if adj_b { (dim(&b, 1), dim(&b, 0)) } else { (dim(&b, 0), dim(&b, 1)) };
        if let (Some(x), Some(y)) = (inner_left, inner_right) {
            if x != y {
                return Err(Error::invalid_argument(format!("Dimensions must be equal, but are {x} and {y}")));
            }
        }
        Ok(vec![(t, Shape::partial(&[left, right]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (adj_a, adj_b) = adjoints(node)?;
        Ok(Box::new(SpmmKernel { adj_a, adj_b }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (indices, values, a_shape, b) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2], &ctx.inputs[3]);
        let (adj_a, adj_b) = adjoints(ctx.node)?;
        let grad = ctx.grad(0)?;
        let b_grad = sparse_tensor_dense_mat_mul(s, indices, values, a_shape, &grad, !adj_a, false)?;
        let b_grad = if adj_b { transpose(s, &b_grad, &[1, 0])? } else { b_grad };
        let column = |j: i64| {
            let masks = SliceMasks { begin: 1, end: 1, shrink_axis: 2, ..SliceMasks::default() };
            strided_slice(s, indices, &[0, j], &[0, j + 1], &[1, 1], masks)
        };
        let (rows, cols) = (column(0)?, column(1)?);
        let parts_a = gather(s, &grad, if adj_a { &cols } else { &rows }, 0)?;
        let bt = if adj_b { transpose(s, b, &[1, 0])? } else { b.clone() };
        let parts_b = gather(s, &bt, if adj_a { &rows } else { &cols }, 0)?;
        let values_grad = reduce_sum(s, &mul(s, &parts_a, &parts_b)?, Some(&[-1]), false)?;
        Ok(vec![None, Some(values_grad), None, Some(b_grad)])
    }
}

struct SpmmKernel {
    adj_a: bool,
    adj_b: bool,
}

impl Kernel for SpmmKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (ind, vals, shape, b) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        let err = |m: &str| Err(Error::invalid_argument(m.to_string()));
        if ind.rank() != 2 {
            return err("Tensor 'a_indices' is not a matrix");
        }
        if vals.rank() != 1 {
            return err("Tensor 'a_values' is not a vector");
        }
        if shape.rank() != 1 {
            return err("Tensor 'a_shape' is not a vector");
        }
        if shape.num_elements() != 2 {
            return err("Tensor 'a_shape' must have 2 elements");
        }
        if b.rank() != 2 {
            return err("Tensor 'b' is not a matrix");
        }
        let nnz = ind.shape()[0];
        if nnz != vals.num_elements() {
            return err("Number of rows of a_indices does not match number of entries in a_values");
        }
        if ind.shape()[1] != 2 {
            return err("Number of columns of a_indices does not match number of entries in a_shape");
        }
        let a_shape = int_values(shape)?;
        let (bd0, bd1) = (b.shape()[0], b.shape()[1]);
        let (out_rows, inner_left) = if self.adj_a { (a_shape[1], a_shape[0]) } else { (a_shape[0], a_shape[1]) };
        let (inner_right, out_cols) = if self.adj_b { (bd1, bd0) } else { (bd0, bd1) };
        if inner_left != inner_right as i64 {
            return Err(Error::invalid_argument(format!(
                "Cannot multiply A and B because inner dimension does not match: {inner_left} vs. {inner_right}.  Did you forget a transpose?  Dimensions of A: [{}, {}).  Dimensions of B: [{bd0},{bd1}]",
                a_shape[0], a_shape[1]
            )));
        }
        let out_rows = usize::try_from(out_rows)
            .map_err(|_| Error::invalid_argument(format!("a_shape has a negative dimension: {a_shape:?}")))?;
        let n = out_rows * out_cols;
        let dt = vals.dtype();
        if nnz == 0 || b.num_elements() == 0 {
            return Ok(vec![Tensor::zeros(dt, &[out_rows, out_cols])]);
        }
        let idx = int_values(ind)?;
        let (mi, ki) = if self.adj_a { (1, 0) } else { (0, 1) };
        let mut entries = Vec::with_capacity(nnz);
        for e in 0..nnz {
            let (m, k) = (idx[e * 2 + mi], idx[e * 2 + ki]);
            if k < 0 || k >= inner_right as i64 {
                return Err(Error::invalid_argument(format!(
                    "k ({k}) from index[{e},{ki}] out of bounds (>={inner_right})"
                )));
            }
            if m < 0 || m >= out_rows as i64 {
                return Err(Error::invalid_argument(format!(
                    "m ({m}) from index[{e},{mi}] out of bounds (>={out_rows})"
                )));
            }
            entries.push((m as usize, k as usize));
        }
        let b_at = |k: usize, j: usize| if self.adj_b { j * bd1 + k } else { k * bd1 + j };
        if dt == DType::Int32 {
            let (av, bv) = (int_values(vals)?, int_values(b)?);
            let mut out = vec![0i32; n];
            for (e, &(m, k)) in entries.iter().enumerate() {
                for j in 0..out_cols {
                    let p = (av[e] as i32).wrapping_mul(bv[b_at(k, j)] as i32);
                    out[m * out_cols + j] = out[m * out_cols + j].wrapping_add(p);
                }
            }
            return Ok(vec![Tensor::new(&[out_rows, out_cols], out)?]);
        }
        let (av, bv) = (vals.to_f64_vec()?, b.to_f64_vec()?);
        let mut out = vec![0.0; n];
        for (e, &(m, k)) in entries.iter().enumerate() {
            for j in 0..out_cols {
                out[m * out_cols + j] += av[e] * bv[b_at(k, j)];
            }
        }
        Ok(vec![Tensor::from_f64(dt, &[out_rows, out_cols], &out)?])
    }
}

/// `tf.raw_ops.SparseTensorDenseMatMul(a_indices, a_values, a_shape, b, adjoint_a,
/// adjoint_b)`: op `SparseTensorDenseMatMul`, default name `SparseTensorDenseMatMul`. See
/// [`SparseTensorDenseMatMul`].
pub fn sparse_tensor_dense_mat_mul(
    s: &Scope,
    a_indices: &Output,
    a_values: &Output,
    a_shape: &Output,
    b: &Output,
    adjoint_a: bool,
    adjoint_b: bool,
) -> Result<Output> {
    s.op("SparseTensorDenseMatMul", "SparseTensorDenseMatMul")
        .input(a_indices)
        .input(a_values)
        .input(a_shape)
        .input(b)
        .attr("T", a_values.dtype())
        .attr("Tindices", a_indices.dtype())
        .attr("adjoint_a", adjoint_a)
        .attr("adjoint_b", adjoint_b)
        .build_output()
}
