//! Which ops are worth another thread (TensorFlow's `OpKernel::IsExpensive`): the inter-op
//! scheduler hands a ready op to another thread only when it is expensive, and runs the
//! inexpensive ones inline on the thread that made them ready, since a hand-off costs
//! more than they do.

use crate::graph::Node;
use crate::tensor::Shape;
use std::sync::Arc;

/// Work (elements touched, times [`CONTRACTION`] for products) up to which an op is
/// inexpensive: a few microseconds of one core, about what handing it to another thread
/// costs (TensorFlow's `kOpIsExpensiveThresholdCycles`, 5000 cycles, with its per-element
/// costs).
const CHEAP_WORK: usize = 16 * 1024;

/// The factor of an op that multiplies along an inner dimension (a matrix product, a
/// convolution) over one that touches each element once.
const CONTRACTION: usize = 32;

/// Op types whose work grows with an inner dimension as well as with their outputs.
const CONTRACTIONS: &[&str] = &[
    "MatMul",
    "_FusedMatMul",
    "BatchMatMul",
    "BatchMatMulV2",
    "Einsum",
    "Conv2D",
    "_FusedConv2D",
    "Conv2DBackpropInput",
    "Conv2DBackpropFilter",
    "DepthwiseConv2dNative",
    "_FusedDepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter",
];

/// Op types whose kernels only forward, reshape or describe their inputs, or create
/// per-run resources: inexpensive whatever their shapes.
const CHEAP: &[&str] = &[
    "Const",
    "Identity",
    "IdentityN",
    "NoOp",
    "Snapshot",
    "StopGradient",
    "PreventGradient",
    "Placeholder",
    "PlaceholderWithDefault",
    "Shape",
    "ShapeN",
    "Size",
    "Rank",
    "Reshape",
    "Squeeze",
    "ExpandDims",
    "ReadVariableOp",
    "VarIsInitializedOp",
    "IsVariableInitialized",
    "StackV2",
    "StackCloseV2",
    "TensorArrayV3",
    "TensorArraySizeV3",
    "TensorArrayCloseV3",
    "BroadcastGradientArgs",
];

/// True when `node`'s kernel is worth running on another thread: not an op that only
/// forwards or describes values ([`CHEAP`]), and one whose work (the elements of its
/// largest input or output, times [`CONTRACTION`] for products and convolutions) exceeds
/// [`CHEAP_WORK`] or is unknown (a shape not known before the run). `nodes` are the graph's
/// nodes by id (for the inputs' shapes).
pub(crate) fn is_expensive(node: &Node, nodes: &[Arc<Node>]) -> bool {
    if CHEAP.contains(&node.op_type) {
        return false;
    }
    let elements = |s: &Shape| s.to_vec().map(|d| d.iter().product::<usize>());
    let inputs = node.inputs.iter().map(|&(src, port)| nodes[src].outputs.get(port).and_then(|o| elements(&o.1)));
    let mut largest = 0usize;
    for n in inputs.chain(node.outputs.iter().map(|o| elements(&o.1))) {
        match n {
            Some(n) => largest = largest.max(n),
            None => return true,
        }
    }
    let factor = if CONTRACTIONS.contains(&node.op_type) { CONTRACTION } else { 1 };
    largest.saturating_mul(factor) > CHEAP_WORK
}
