//! `_FusedDepthwiseConv2dNative`: TensorFlow's DepthwiseConv2dNative with its bias and
//! activation fused in (the op TensorFlow's Grappler remapper makes from
//! `DepthwiseConv2dNative` + `BiasAdd` (+ `Relu`, `Relu6`, ...) on CPU), and here also with
//! an inference batch norm (`fused_ops = ["FusedBatchNorm", ...]`, as `_FusedConv2D`
//! takes it). tensorgraph's graph optimiser makes it when a session plans a run; it is not
//! meant to be built by hand. The bias or normalisation and the activation are applied to
//! each output pixel right after its channels are summed.

use super::depthwise::forward_shape;
use super::depthwise_kernels::{forward_with, read_attrs, Attrs};
use super::{check_fused_inputs, pick_float};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::kernels::{read_fused_ops, Activation, EpilogueArgs, Float, FusedArgs};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// `_FusedDepthwiseConv2dNative(input, filter, args)`: `DepthwiseConv2dNative(input,
/// filter)` (float32/float64, its attrs: `strides`, `padding`, `explicit_paddings`,
/// `data_format`, `dilations`), then, per `fused_ops`, `["BiasAdd"]` (`num_args` 1: the
/// bias, `[C*M]`) or `["FusedBatchNorm"]` (`num_args` 4: scale, offset, mean and variance,
/// each `[C*M]`, and `epsilon`) or `["BiasAdd", "FusedBatchNorm"]` (`num_args` 5: the bias,
/// then those four), optionally followed by an activation (`"Relu" | "Relu6" |
/// "Elu" | "LeakyRelu"`). Other `fused_ops` are `Unimplemented` when prepared. No gradient.
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
        let (args, act) = read_fused_ops(node, true)?;
        let run = pick_float::<FusedFn>(node, fused::<f32>, fused::<f64>)?;
        let epsilon = node.attr_float_or("epsilon", 1e-4)? as f64;
        Ok(Box::new(FusedDwKernel { attrs: read_attrs(node)?, args, epsilon, act, run }))
    }
}

/// A fused depthwise convolution for one dtype: (input, filter, what its `fused_ops` name,
/// their arguments, epsilon, attrs, activation).
type FusedFn = fn(&Tensor, &Tensor, FusedArgs, &[Tensor], f64, &Attrs, Activation) -> Result<Tensor>;

fn fused<T: Float>(
    x: &Tensor,
    f: &Tensor,
    kind: FusedArgs,
    args: &[Tensor],
    epsilon: f64,
    a: &Attrs,
    act: Activation,
) -> Result<Tensor> {
    // as many channels as the first argument has (the kernel checks them against the filter's)
    let ep = EpilogueArgs::<T>::new(kind, args, epsilon, None, act)?;
    forward_with::<T>(x, f, a, ep.epilogue())
}

/// The prepared `_FusedDepthwiseConv2dNative` kernel.
struct FusedDwKernel {
    attrs: Attrs,
    args: FusedArgs,
    epsilon: f64,
    act: Activation,
    run: FusedFn,
}

impl Kernel for FusedDwKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        check_fused_inputs("_FusedDepthwiseConv2dNative", &ctx.inputs, self.args)?;
        let (x, f) = (ctx.input(0), ctx.input(1));
        Ok(vec![(self.run)(x, f, self.args, &ctx.inputs[2..], self.epsilon, &self.attrs, self.act)?])
    }
}
