//! `_FusedDepthwiseConv2dNative`: TensorFlow's DepthwiseConv2dNative with its bias and
//! activation fused in (the op TensorFlow's Grappler remapper makes from
//! `DepthwiseConv2dNative` + `BiasAdd` (+ `Relu`, `Relu6`, ...) on CPU). tensorgraph's graph
//! optimiser makes it when a session plans a run, typically after folding a batch norm into
//! the depthwise filter; it is not meant to be built by hand. The bias and activation are
//! applied to each output pixel right after its channels are summed.

use super::depthwise::forward_shape;
use super::depthwise_kernels::{forward_with, read_attrs, Attrs};
use super::pick_float;
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::kernels::{read_fused_ops, Activation, Epilogue, Float};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// `_FusedDepthwiseConv2dNative(input, filter, args)`: `DepthwiseConv2dNative(input,
/// filter)` (float32/float64, its attrs: `strides`, `padding`, `explicit_paddings`,
/// `data_format`, `dilations`), plus `args[0]` (the bias, `[C*M]`) and the activation named
/// by `fused_ops` (`["BiasAdd"]` or `["BiasAdd", "Relu" | "Relu6" | "Elu" | "LeakyRelu"]`);
/// `num_args` 1. Other `fused_ops` are `Unimplemented` when prepared. No gradient.
pub struct FusedDepthwiseConv2dNative;

impl RegisteredOp for FusedDepthwiseConv2dNative {
    fn op_type(&self) -> &'static str {
        "_FusedDepthwiseConv2dNative"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 2 {
            return Err(Error::invalid_argument(format!("expects at least 2 inputs, got {}", ctx.inputs.len())));
        }
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        let a = read_attrs(ctx.node)?;
        Ok(vec![(t, forward_shape(ctx.shape(0), ctx.shape(1), &a)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let act = read_fused_ops(node)?;
        let run = pick_float::<FusedFn>(node, fused::<f32>, fused::<f64>)?;
        Ok(Box::new(FusedDwKernel { attrs: read_attrs(node)?, act, run }))
    }
}

/// A fused depthwise convolution for one dtype: (input, filter, bias, attrs, activation).
type FusedFn = fn(&Tensor, &Tensor, &Tensor, &Attrs, Activation) -> Result<Tensor>;

fn fused<T: Float>(x: &Tensor, f: &Tensor, bias: &Tensor, a: &Attrs, act: Activation) -> Result<Tensor> {
    if bias.rank() != 1 {
        return Err(Error::invalid_argument(format!("bias must be 1-D, got shape {:?}", bias.shape())));
    }
    forward_with(x, f, a, Epilogue { bias: Some(bias.as_slice::<T>()?), act })
}

/// The prepared `_FusedDepthwiseConv2dNative` kernel.
struct FusedDwKernel {
    attrs: Attrs,
    act: Activation,
    run: FusedFn,
}

impl Kernel for FusedDwKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        if ctx.inputs.len() != 3 {
            return Err(Error::invalid_argument(format!("expects 3 inputs, got {}", ctx.inputs.len())));
        }
        let (x, f, b) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if x.dtype() != f.dtype() || x.dtype() != b.dtype() {
            return Err(Error::invalid_argument(format!(
                "_FusedDepthwiseConv2dNative input is {}, filter {}, bias {}",
                x.dtype(),
                f.dtype(),
                b.dtype()
            )));
        }
        Ok(vec![(self.run)(x, f, b, &self.attrs, self.act)?])
    }
}
