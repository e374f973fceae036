//! `_FusedConv2D`: TensorFlow's Conv2D with its bias or inference batch norm, and its
//! activation, fused in (the op TensorFlow's Grappler remapper makes from `Conv2D` +
//! `BiasAdd` or `FusedBatchNorm*` (+ `Relu`, `Relu6`, `Elu`, `LeakyRelu`)). tensorgraph's
//! graph optimiser makes it when a session plans a run; it is not meant to be built by
//! hand. The bias or normalisation and the activation are applied by the matrix product as
//! it writes each block of the output (`ops::kernels::Epilogue`).

use super::{
    check_fused_inputs, const_filter, conv_forward_with, conv_geom, conv_infer, pick_float, read_attrs, Attrs,
    ConvWeights, Geom, FLOATS,
};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::kernels::{read_fused_ops, Activation, EpilogueArgs, Float, FusedArgs, Gemm};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// `_FusedConv2D(input, filter, args)`: `Conv2D(input, filter)` (NHWC, float32/float64,
/// Conv2D's attrs), then, per `fused_ops`, `["BiasAdd"]` (`num_args` 1: the bias, `[O]`) or
/// `["FusedBatchNorm"]` (`num_args` 4: scale, offset, mean and variance, each `[O]`, and
/// `epsilon`; `FusedBatchNormV3`'s inference values bitwise) or `["BiasAdd",
/// "FusedBatchNorm"]` (`num_args` 5: the bias, then those four; tensorgraph's own, the
/// values of `BiasAdd` then the batch norm bitwise), optionally followed by an
/// activation (`"Relu" | "Relu6" | "Elu" | "LeakyRelu"`, `leakyrelu_alpha` for LeakyRelu).
/// Other `fused_ops` are `Unimplemented` when prepared. No gradient.
pub struct FusedConv2D;

impl RegisteredOp for FusedConv2D {
    fn op_type(&self) -> &'static str {
        "_FusedConv2D"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 2 {
            return Err(Error::invalid_argument(format!("expects at least 2 inputs, got {}", ctx.inputs.len())));
        }
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        let a = read_attrs(ctx.node, false)?;
        Ok(vec![(t, conv_infer(ctx.shape(0), ctx.shape(1), &a)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let (args, act) = read_fused_ops(node, true)?;
        let run = pick_float::<FusedFn>(node, fused::<f32>, fused::<f64>)?;
        let epsilon = node.attr_float_or("epsilon", 1e-4)? as f64;
        Ok(Box::new(FusedConv2DKernel {
            attrs: read_attrs(node, false)?,
            args,
            epsilon,
            act,
            run,
            weights: ConvWeights::default(),
        }))
    }
}

/// A fused convolution for one dtype: (input, filter, what its `fused_ops` name, their
/// arguments, epsilon, geometry, channels, activation, what is kept of the filter when it
/// is a constant).
type FusedFn =
    fn(&Tensor, &Tensor, FusedArgs, &[Tensor], f64, &Geom, usize, Activation, Option<&ConvWeights>) -> Result<Tensor>;

#[allow(clippy::too_many_arguments)]
fn fused<T: Float + Gemm>(
    x: &Tensor,
    f: &Tensor,
    kind: FusedArgs,
    args: &[Tensor],
    epsilon: f64,
    g: &Geom,
    o: usize,
    act: Activation,
    weights: Option<&ConvWeights>,
) -> Result<Tensor> {
    let ep = EpilogueArgs::<T>::new(kind, args, epsilon, Some(o), act)?;
    conv_forward_with(x, f, g, o, ep.epilogue(), weights)
}

/// The prepared `_FusedConv2D` kernel (with what it keeps of a constant filter).
struct FusedConv2DKernel {
    attrs: Attrs,
    args: FusedArgs,
    epsilon: f64,
    act: Activation,
    run: FusedFn,
    weights: ConvWeights,
}

impl Kernel for FusedConv2DKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        check_fused_inputs("_FusedConv2D", &ctx.inputs, self.args)?;
        let (x, f) = (ctx.input(0), ctx.input(1));
        let (g, o) = conv_geom(x.shape(), f.shape(), &self.attrs)?;
        let args = &ctx.inputs[2..];
        let weights = const_filter(ctx, &self.weights);
        Ok(vec![(self.run)(x, f, self.args, args, self.epsilon, &g, o, self.act, weights)?])
    }
}
