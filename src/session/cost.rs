//! Which ops are worth another thread (TensorFlow's `OpKernel::IsExpensive`): the inter-op
//! scheduler hands a ready op to another thread only when it is expensive, and runs the
//! inexpensive ones inline on the thread that made them ready, since a hand-off costs
//! more than they do.

use crate::graph::Node;
use crate::tensor::Shape;
use std::sync::Arc;

/// Elements up to which a tensor is small: an op whose inputs and outputs are all known to
/// be this small (loop counters, shapes, scalars) is inexpensive whatever its type.
const SMALL: usize = 64;

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
/// forwards or describes values ([`CHEAP`]) and not one whose inputs and outputs are all
/// known to be small. `nodes` are the graph's nodes by id (for the inputs' shapes).
pub(crate) fn is_expensive(node: &Node, nodes: &[Arc<Node>]) -> bool {
    if CHEAP.contains(&node.op_type) {
        return false;
    }
    let small = |s: &Shape| s.to_vec().is_some_and(|d| d.iter().product::<usize>() <= SMALL);
    let inputs_small = node.inputs.iter().all(|&(src, port)| nodes[src].outputs.get(port).is_some_and(|o| small(&o.1)));
    !(inputs_small && node.outputs.iter().all(|o| small(&o.1)))
}
