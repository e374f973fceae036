//! `float16` and `bfloat16` for the math and nn ops, computed in `float32` as TensorFlow's
//! CPU kernels compute them (`Eigen::half` and `Eigen::bfloat16` arithmetic converts each
//! operand to `float`, computes, and rounds the result back).
//!
//! Each op type in [`COMPUTED_IN_FLOAT`] is registered wrapped in [`HalfAsFloat`]: for a
//! node whose type attrs are `half` or `bfloat16`, inference and kernel preparation see the
//! node with those attrs (and the inputs of that dtype) as `float`; the kernel's inputs of
//! the narrow dtype are widened to `float32` (exactly) before the float32 kernel runs, and
//! its outputs typed by those attrs are rounded to the nearest narrow value (ties to even;
//! a value beyond the range becomes an infinity, as in TensorFlow). Nodes of other dtypes
//! go straight to the op's own inference and kernel. Gradients are the op's own: they build
//! ops of the same dtype, which compute the same way.
//!
//! Where TensorFlow accumulates in the narrow dtype (a sum over many half values rounds at
//! each step in some of its kernels), results here, accumulated in `float32`, can differ in
//! the last bits; element-wise ops agree exactly but for the `float32` functions' own
//! last-bit differences.

use super::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::Result;
use crate::graph::{AttrValue, Node, Output};
use crate::tensor::{DType, Shape, Storage, Tensor};
use half::{bf16, f16};

/// The op types whose `float16`/`bfloat16` nodes are computed in `float32`: those whose
/// TensorFlow `OpDef` allows the narrow types and whose kernels here compute in `float32`
/// (stateful ops, random ops, casts and ops that only move values are not among them).
pub(crate) const COMPUTED_IN_FLOAT: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "AddN",
    "AddV2",
    "ArgMax",
    "ArgMin",
    "Asin",
    "Asinh",
    "Atan",
    "Atan2",
    "Atanh",
    "AvgPool",
    "AvgPoolGrad",
    "BatchMatMul",
    "BatchMatMulV2",
    "BiasAdd",
    "BiasAddGrad",
    "Ceil",
    "ClipByValue",
    "Conv2D",
    "Conv2DBackpropFilter",
    "Conv2DBackpropInput",
    "Cos",
    "Cosh",
    "Cumprod",
    "Cumsum",
    "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropFilter",
    "DepthwiseConv2dNativeBackpropInput",
    "Digamma",
    "Div",
    "DivNoNan",
    "Elu",
    "EluGrad",
    "Erf",
    "Erfc",
    "EuclideanNorm",
    "Exp",
    "Expm1",
    "Floor",
    "FloorDiv",
    "FloorMod",
    "FusedBatchNormGradV2",
    "FusedBatchNormGradV3",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
    "Greater",
    "GreaterEqual",
    "Inv",
    "InvGrad",
    "IsFinite",
    "IsInf",
    "IsNan",
    "L2Loss",
    "LRN",
    "LRNGrad",
    "LeakyRelu",
    "LeakyReluGrad",
    "Less",
    "LessEqual",
    "Lgamma",
    "Log",
    "Log1p",
    "LogSoftmax",
    "MatMul",
    "MatrixInverse",
    "Max",
    "MaxPool",
    "MaxPoolGrad",
    "Maximum",
    "Mean",
    "Min",
    "Minimum",
    "Mul",
    "Multinomial",
    "Neg",
    "Pow",
    "Prod",
    "Qr",
    "RealDiv",
    "Reciprocal",
    "ReciprocalGrad",
    "Relu",
    "Relu6",
    "Relu6Grad",
    "ReluGrad",
    "ResizeBilinear",
    "ResizeBilinearGrad",
    "ResizeNearestNeighbor",
    "ResizeNearestNeighborGrad",
    "Round",
    "Rsqrt",
    "RsqrtGrad",
    "SegmentMax",
    "SegmentMean",
    "SegmentMin",
    "SegmentProd",
    "SegmentSum",
    "Selu",
    "SeluGrad",
    "Sigmoid",
    "SigmoidGrad",
    "Sign",
    "Sin",
    "Sinh",
    "Softmax",
    "SoftmaxCrossEntropyWithLogits",
    "Softplus",
    "SoftplusGrad",
    "Softsign",
    "SoftsignGrad",
    "SparseSoftmaxCrossEntropyWithLogits",
    "Sqrt",
    "SqrtGrad",
    "Square",
    "SquaredDifference",
    "Sub",
    "Sum",
    "Tan",
    "Tanh",
    "TanhGrad",
    "TensorScatterAdd",
    "TensorScatterMax",
    "TensorScatterMin",
    "TensorScatterSub",
    "TensorScatterUpdate",
    "TopKV2",
    "TruncateDiv",
    "UnsortedSegmentMax",
    "UnsortedSegmentMin",
    "UnsortedSegmentProd",
    "UnsortedSegmentSum",
    "Xdivy",
    "Xlog1py",
    "Xlogy",
    "_FusedConv2D",
    "_FusedDepthwiseConv2dNative",
    "_FusedMatMul",
];

/// `def`, wrapped in [`HalfAsFloat`] when its op type is in [`COMPUTED_IN_FLOAT`]. The
/// wrapper is made once per op type, when the registry is built, and lives as long as it.
pub(crate) fn wrap(def: &'static dyn RegisteredOp) -> &'static dyn RegisteredOp {
    if COMPUTED_IN_FLOAT.contains(&def.op_type()) {
        Box::leak(Box::new(HalfAsFloat(def)))
    } else {
        def
    }
}

/// An op computed in `float32` for its `float16`/`bfloat16` nodes (see the module doc).
struct HalfAsFloat(&'static dyn RegisteredOp);

/// The narrow float dtype among `node`'s type attrs, if any.
fn narrow_dtype(node: &Node) -> Option<DType> {
    node.attrs.values().find_map(|v| match v {
        AttrValue::Type(d @ (DType::Half | DType::BFloat16)) => Some(*d),
        _ => None,
    })
}

/// `node` with its type attrs of dtype `narrow`, and its outputs of that dtype, as `float`.
fn as_float(node: &Node, narrow: DType) -> Node {
    let mut n = node.clone();
    let narrow_attrs: Vec<String> =
        n.attrs.iter().filter(|(_, v)| **v == AttrValue::Type(narrow)).map(|(k, _)| k.clone()).collect();
    for k in narrow_attrs {
        n.attrs.insert(k, AttrValue::Type(DType::Float));
    }
    for o in &mut n.outputs {
        if o.0 == narrow {
            o.0 = DType::Float;
        }
    }
    n
}

/// For each output of `node`'s op, whether its dtype is one of the type attrs set to
/// `narrow` (TensorFlow's `OpDef` output args, each a single tensor for these ops).
fn narrow_outputs(node: &Node, narrow: DType, count: usize) -> Vec<bool> {
    let def = super::schema::op_def(node.op_type);
    (0..count)
        .map(|i| {
            def.and_then(|d| d.output_arg.get(i))
                .is_some_and(|arg| node.attrs.get(arg.type_attr.as_str()) == Some(&AttrValue::Type(narrow)))
        })
        .collect()
}

impl RegisteredOp for HalfAsFloat {
    fn op_type(&self) -> &'static str {
        self.0.op_type()
    }

    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let Some(narrow) = narrow_dtype(ctx.node) else { return self.0.infer(ctx) };
        let node = as_float(ctx.node, narrow);
        let inputs: Vec<(DType, Shape)> =
            ctx.inputs.iter().map(|(d, s)| (if *d == narrow { DType::Float } else { *d }, s.clone())).collect();
        let mut out = self.0.infer(&InferCtx { nodes: ctx.nodes, node: &node, inputs: &inputs })?;
        let narrowed = narrow_outputs(ctx.node, narrow, out.len());
        for (o, n) in out.iter_mut().zip(narrowed) {
            if n && o.0 == DType::Float {
                o.0 = narrow;
            }
        }
        Ok(out)
    }

    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let Some(narrow) = narrow_dtype(node) else { return self.0.prepare(node) };
        let inner = self.0.prepare(&as_float(node, narrow))?;
        let outputs = narrow_outputs(node, narrow, node.outputs.len());
        Ok(Box::new(InFloat { inner, narrow, outputs }))
    }

    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        self.0.gradient(ctx)
    }

    fn ref_inputs(&self) -> &'static [usize] {
        self.0.ref_inputs()
    }

    fn is_stateful(&self) -> bool {
        self.0.is_stateful()
    }

    fn check_kernel(&self, node: &Node) -> Result<()> {
        match narrow_dtype(node) {
            Some(narrow) => self.0.check_kernel(&as_float(node, narrow)),
            None => self.0.check_kernel(node),
        }
    }
}

/// The kernel of a narrow-dtype node: its `float32` kernel between the widening of the
/// inputs and the rounding of the outputs marked in `outputs`.
struct InFloat {
    inner: Box<dyn Kernel>,
    narrow: DType,
    outputs: Vec<bool>,
}

impl Kernel for InFloat {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        for t in ctx.inputs.iter_mut() {
            if t.dtype() == self.narrow {
                *t = t.convert(DType::Float)?;
            }
        }
        let mut out = self.inner.compute(ctx)?;
        for (t, narrow) in out.iter_mut().zip(&self.outputs) {
            if *narrow && t.dtype() == DType::Float {
                *t = round_to(t, self.narrow)?;
            }
        }
        Ok(out)
    }
}

/// `t` (float32) rounded to `narrow` (`float16` or `bfloat16`): to the nearest value, ties
/// to even, beyond the range to an infinity, NaN kept.
fn round_to(t: &Tensor, narrow: DType) -> Result<Tensor> {
    let v = t.as_slice::<f32>()?;
    let storage = match narrow {
        DType::Half => Storage::F16(v.iter().map(|&x| f16::from_f32(x)).collect()),
        _ => Storage::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect()),
    };
    Tensor::from_storage(t.shape(), storage)
}
