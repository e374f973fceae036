//! `_FusedMatMul`: TensorFlow's MatMul with its bias and activation fused in (the op
//! TensorFlow's Grappler remapper makes from `MatMul` + `BiasAdd` (+ `Relu`, `Relu6`,
//! `Elu`, `LeakyRelu`)). tensorgraph's graph optimiser makes it when a session plans a run;
//! it is not meant to be built by hand. The bias and activation are applied by the matrix
//! product as it writes each block of the output (`ops::kernels::Epilogue`).

use super::binary::no_kernel;
use super::matmul::const_rhs;
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::kernels::{matmul_fused, read_fused_ops, Activation, Epilogue, PackedWeights};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&FusedMatMul];

/// `_FusedMatMul(a, b, args)`: `MatMul(a, b)` (float32/float64, attrs `transpose_a`,
/// `transpose_b`) plus `args[0]` (the bias, one value per output column) and the
/// activation named by `fused_ops` (`["BiasAdd"]` or `["BiasAdd", "Relu" | "Relu6" | "Elu"
/// | "LeakyRelu"]`, `leakyrelu_alpha` for LeakyRelu); `num_args` 1. Other `fused_ops` are
/// `Unimplemented` when prepared. No gradient.
pub struct FusedMatMul;

impl RegisteredOp for FusedMatMul {
    fn op_type(&self) -> &'static str {
        "_FusedMatMul"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 2 {
            return Err(Error::invalid_argument(format!("expects at least 2 inputs, got {}", ctx.inputs.len())));
        }
        let t = ctx.same_dtypes()?;
        let ta = ctx.node.attr_bool_or("transpose_a", false)?;
        let tb = ctx.node.attr_bool_or("transpose_b", false)?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        if a.rank().is_some_and(|r| r != 2) || b.rank().is_some_and(|r| r != 2) {
            return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {a} and {b}")));
        }
        let m = if ta { a.dim(1) } else { a.dim(0) };
        let n = if tb { b.dim(0) } else { b.dim(1) };
        Ok(vec![(t, Shape::partial(&[m, n]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (_, act) = read_fused_ops(node, false)?;
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        if !matches!(t, DType::Float | DType::Double) {
            return Err(no_kernel("_FusedMatMul", t));
        }
        Ok(Box::new(FusedMatMulKernel {
            transpose_a: node.attr_bool_or("transpose_a", false)?,
            transpose_b: node.attr_bool_or("transpose_b", false)?,
            act,
            weights: PackedWeights::default(),
        }))
    }
}

/// A prepared `_FusedMatMul`: its transposes and activation.
struct FusedMatMulKernel {
    transpose_a: bool,
    transpose_b: bool,
    act: Activation,
    /// A constant float32 `b`'s packed form.
    weights: PackedWeights,
}

impl Kernel for FusedMatMulKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        if ctx.inputs.len() != 3 {
            return Err(Error::invalid_argument(format!("expects 3 inputs, got {}", ctx.inputs.len())));
        }
        let (a, b, bias) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if bias.rank() != 1 {
            return Err(Error::invalid_argument(format!("bias must be 1-D, got shape {:?}", bias.shape())));
        }
        let (ta, tb) = (self.transpose_a, self.transpose_b);
        let out = match a.dtype() {
            DType::Float => {
                let packed = const_rhs(ctx, &self.weights, ta, tb);
                let ep = Epilogue::bias(bias.as_slice()?, self.act);
                matmul_fused::<f32>(a, b, ta, tb, ep, packed.as_deref())?
            }
            DType::Double => matmul_fused::<f64>(a, b, ta, tb, Epilogue::bias(bias.as_slice()?, self.act), None)?,
            t => return Err(no_kernel("_FusedMatMul", t)),
        };
        Ok(vec![out])
    }
}
