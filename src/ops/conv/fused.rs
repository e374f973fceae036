//! `_FusedConv2D`: TensorFlow's Conv2D with its bias and activation fused in (the op
//! TensorFlow's Grappler remapper makes from `Conv2D` + `BiasAdd` (+ `Relu`, `Relu6`,
//! `Elu`, `LeakyRelu`)). tensorgraph's graph optimiser makes it when a session plans a run;
//! it is not meant to be built by hand. The bias and activation are applied by the matrix
//! product as it writes each block of the output (`ops::kernels::Epilogue`).

use super::{const_filter, conv_forward_with, conv_geom, conv_infer, pick_float, read_attrs, Attrs, Geom, FLOATS};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::kernels::{read_fused_ops, Activation, Epilogue, Float, Gemm, PackedB, PackedWeights};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

/// `_FusedConv2D(input, filter, args)`: `Conv2D(input, filter)` (NHWC, float32/float64,
/// Conv2D's attrs), plus `args[0]` (the bias, `[O]`) and the activation named by
/// `fused_ops` (`["BiasAdd"]` or `["BiasAdd", "Relu" | "Relu6" | "Elu" | "LeakyRelu"]`,
/// `leakyrelu_alpha` for LeakyRelu); `num_args` 1. Other `fused_ops` (TensorFlow's
/// `FusedBatchNorm` fusion) are `Unimplemented` when prepared. No gradient.
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
        let act = read_fused_ops(node)?;
        let run = pick_float::<FusedFn>(node, fused::<f32>, fused::<f64>)?;
        Ok(Box::new(FusedConv2DKernel { attrs: read_attrs(node, false)?, act, run, weights: PackedWeights::default() }))
    }
}

/// A fused convolution for one dtype: (input, filter, bias, geometry, channels, activation,
/// the float32 filter's packed form when it is a constant).
type FusedFn = fn(&Tensor, &Tensor, &Tensor, &Geom, usize, Activation, Option<&PackedB>) -> Result<Tensor>;

fn fused<T: Float + Gemm>(
    x: &Tensor,
    f: &Tensor,
    bias: &Tensor,
    g: &Geom,
    o: usize,
    act: Activation,
    packed: Option<&PackedB>,
) -> Result<Tensor> {
    let b = bias.as_slice::<T>()?;
    if bias.rank() != 1 || b.len() != o {
        return Err(Error::invalid_argument(format!(
            "bias must be 1-D with the filter's {o} output channels, got shape {:?}",
            bias.shape()
        )));
    }
    conv_forward_with(x, f, g, o, Epilogue { bias: Some(b), act }, packed)
}

/// The prepared `_FusedConv2D` kernel (with a constant float32 filter's packed form).
struct FusedConv2DKernel {
    attrs: Attrs,
    act: Activation,
    run: FusedFn,
    weights: PackedWeights,
}

impl Kernel for FusedConv2DKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        if ctx.inputs.len() != 3 {
            return Err(Error::invalid_argument(format!("expects 3 inputs, got {}", ctx.inputs.len())));
        }
        let (x, f, b) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let (g, o) = conv_geom(x.shape(), f.shape(), &self.attrs)?;
        if x.dtype() != f.dtype() || x.dtype() != b.dtype() {
            return Err(Error::invalid_argument(format!(
                "_FusedConv2D input is {}, filter {}, bias {}",
                x.dtype(),
                f.dtype(),
                b.dtype()
            )));
        }
        let packed = const_filter(ctx, &self.weights, &g, o);
        Ok(vec![(self.run)(x, f, b, &g, o, self.act, packed.as_deref())?])
    }
}
