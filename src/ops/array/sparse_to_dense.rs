//! `SparseToDense` (TensorFlow's `tf.sparse_to_dense`, which `tf.nn.sampled_softmax_loss`'s
//! labels and `tf.nn.nce_loss` emit): a dense tensor of `default_value` with the listed
//! indices set, the indices checked sorted, unique and in bounds as TensorFlow's
//! `SparseTensor::ValidateIndices` does.

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{constant, int_values, reshape_to};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&SparseToDense];

/// `[a,b]`, as TensorFlow writes indices and shapes in these messages.
fn joined<T: std::fmt::Display>(v: &[T]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

/// `SparseToDense(sparse_indices, output_shape, sparse_values, default_value)` (attrs
/// `validate_indices` = true, `T`: any dtype with values, `Tindices`: int32 or int64): a tensor
/// of shape `output_shape` filled with the scalar `default_value`, with `sparse_values` (a
/// scalar for all, or one per index) at `sparse_indices` (a scalar, `[N]` or `[N, rank]`).
/// Errors: TensorFlow's messages (`indices[1] = [5] is out of bounds: need 0 <= index < [4]`,
/// `... is out of order`, `... is repeated`, `sparse_values has incorrect shape`,
/// `default_value should be a scalar.`, `output_shape must be rank 1`). Gradient, as
/// TensorFlow's `_SparseToDenseGrad`: `GatherNd(grad, sparse_indices)` for the values, the sum
/// of `grad` less theirs for the default value.
pub struct SparseToDense;

impl RegisteredOp for SparseToDense {
    fn op_type(&self) -> &'static str {
        "SparseToDense"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        ctx.check_dtype(0, &[DType::Int32, DType::Int64])?;
        let t = ctx.dtype(2);
        if ctx.dtype(3) != t {
            return Err(Error::invalid_argument(format!(
                "default_value has dtype {}, sparse_values {t}: they must match",
                ctx.dtype(3)
            )));
        }
        let shape = match ctx.const_input(1) {
            Some(v) => match int_values(&v) {
                Ok(d) if d.iter().all(|&x| x >= 0) && v.shape().len() <= 1 => {
                    Shape::known(&d.iter().map(|&x| x as usize).collect::<Vec<_>>())
                }
                _ => Shape::unknown(),
            },
            None => match ctx.shape(1).dims() {
                Some([Some(n)]) => Shape::partial(&vec![None; *n]),
                _ => Shape::unknown(),
            },
        };
        Ok(vec![(t, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(Kernel_ { validate: node.attr_bool_or("validate_indices", true)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let values = super::gather_nd::gather_nd(s, &g, &ctx.inputs[0])?;
        let total = sum_all(s, &g)?;
        let taken = sum_all(s, &values)?;
        let default = s.op("Sub", "sub").input(&total).input(&taken).attr("T", g.dtype()).build_output()?;
        Ok(vec![None, None, Some(values), Some(default)])
    }
}

/// The sum of every element of `x` (`Sum` of `x` reshaped to `[-1]`; built here, not through
/// math's `reduce_sum`: the array family does not import math).
fn sum_all(s: &Scope, x: &Output) -> Result<Output> {
    let flat = reshape_to(s, x, &[-1])?;
    let (op, inner) = s.op_scope("Sum");
    let axis = constant(&inner.named("reduction_indices"), Tensor::vector(vec![0i32]))?;
    op.op("Sum", "Sum")
        .input(&flat)
        .input(&axis)
        .attr("T", flat.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", false)
        .build_output()
}

/// `tf.sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value,
/// validate_indices)`: op `SparseToDense`, default name `SparseToDense`. See [`SparseToDense`].
pub fn sparse_to_dense(
    s: &Scope,
    sparse_indices: &Output,
    output_shape: &Output,
    sparse_values: &Output,
    default_value: &Output,
    validate_indices: bool,
) -> Result<Output> {
    s.op("SparseToDense", "SparseToDense")
        .input(sparse_indices)
        .input(output_shape)
        .input(sparse_values)
        .input(default_value)
        .attr("T", sparse_values.dtype())
        .attr("Tindices", sparse_indices.dtype())
        .attr("validate_indices", validate_indices)
        .build_output()
}

/// The prepared `SparseToDense`.
struct Kernel_ {
    validate: bool,
}

impl Kernel for Kernel_ {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (ind, shape, vals, def) = (ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3));
        if ind.shape().len() > 2 {
            return Err(Error::invalid_argument(format!(
                "sparse_indices should be a scalar, vector, or matrix, got shape {}",
                joined(ind.shape())
            )));
        }
        if shape.shape().len() > 1 {
            return Err(Error::invalid_argument(format!(
                "output_shape must be rank 1, got shape {}",
                joined(shape.shape())
            )));
        }
        let n = if ind.shape().is_empty() { 1 } else { ind.shape()[0] };
        let rank = if ind.shape().len() > 1 { ind.shape()[1] } else { 1 };
        let dims = int_values(shape)?;
        if dims.len() != rank {
            return Err(Error::invalid_argument(format!(
                "output_shape has incorrect number of elements: {} should be: {rank}",
                dims.len()
            )));
        }
        if !vals.shape().is_empty() && (vals.shape().len() != 1 || vals.num_elements() != n) {
            return Err(Error::invalid_argument(format!(
                "sparse_values has incorrect shape {}, should be [] or [{n}]",
                joined(vals.shape())
            )));
        }
        if !def.shape().is_empty() {
            return Err(Error::invalid_argument("default_value should be a scalar."));
        }
        if dims.iter().any(|&d| d < 0) {
            return Err(Error::invalid_argument(format!("output_shape has a negative size: {}", joined(&dims))));
        }
        let idx = int_values(ind)?;
        let mut flat = Vec::with_capacity(n);
        for i in 0..n {
            let at = &idx[i * rank..(i + 1) * rank];
            if at.iter().zip(&dims).any(|(&x, &d)| x < 0 || x >= d) {
                if !self.validate {
                    return Err(Error::invalid_argument(format!(
                        "Indices are not valid (out of bounds).  Shape: {}",
                        joined(&dims)
                    )));
                }
                return Err(Error::invalid_argument(format!(
                    "indices[{i}] = {} is out of bounds: need 0 <= index < {}",
                    joined(at),
                    joined(&dims)
                )));
            }
            if self.validate && i > 0 {
                let prev = &idx[(i - 1) * rank..i * rank];
                match prev.cmp(at) {
                    std::cmp::Ordering::Greater => {
                        return Err(Error::invalid_argument(format!(
                            "indices[{i}] = {} is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                            joined(at)
                        )))
                    }
                    std::cmp::Ordering::Equal => {
                        return Err(Error::invalid_argument(format!("indices[{i}] = {} is repeated", joined(at))))
                    }
                    std::cmp::Ordering::Less => {}
                }
            }
            flat.push(at.iter().zip(&dims).fold(0usize, |acc, (&x, &d)| acc * d as usize + x as usize));
        }
        let out_dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let total: usize = out_dims.iter().product();
        let scalar = vals.shape().is_empty();
        macro_rules! fill {
            ($v:expr, $d:expr) => {{
                let mut out = vec![$d[0].clone(); total];
                for (i, &f) in flat.iter().enumerate() {
                    out[f] = $v[if scalar { 0 } else { i }].clone();
                }
                out
            }};
        }
        let out = match (vals.storage(), def.storage()) {
            (Storage::Str(v), Storage::Str(d)) => return Tensor::strings(&out_dims, fill!(v, d)).map(|t| vec![t]),
            _ => {
                let v = vals.to_f64_vec()?;
                let d = def.to_f64_vec()?;
                Tensor::from_f64(vals.dtype(), &out_dims, &fill!(v, d))?
            }
        };
        Ok(vec![out])
    }
}
