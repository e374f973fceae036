//! The graph optimiser of run plans, in the spirit of TensorFlow's Grappler: when a session
//! builds a plan it rewrites a copy of the graph's nodes (the [`work::Work`] copy: the
//! user's `Graph` and everything exported from it stay as written) for that signature, then
//! the plan is built from the copy. Passes, in TensorFlow's meta-optimiser order, each
//! behind its `RewriterConfig` toggle (`ConfigProto.graph_options.rewrite_options`):
//!
//! 1. [`dependency`] (`dependency_optimization`): `Identity` and `NoOp` removal;
//! 2. [`constant_folding`] (`constant_folding`): ops whose inputs are all constants become
//!    `Const`s (TensorFlow's names), each folded tensor at most 10 MiB;
//! 3. [`cse`] (`common_subgraph_elimination`, and `arithmetic_optimization` whose
//!    `DedupComputations` it is): pure ops with identical inputs and attrs merged;
//! 4. [`batch_norm_folding`] (`remapping`): an inference `FusedBatchNorm*` with constant
//!    statistics folded into the preceding `Conv2D`/`DepthwiseConv2dNative`'s filter and a
//!    `BiasAdd`;
//! 5. [`pad_fusion`] (`remapping`): a zero `Pad` of the height and width read by one
//!    `Conv2D`/`DepthwiseConv2dNative` becomes that convolution's `EXPLICIT` padding;
//! 6. [`remapper`] (`remapping`): `Conv2D`/`DepthwiseConv2dNative`/`MatMul` + `BiasAdd`
//!    and/or an inference batch norm (+ `Relu`, `Relu6`, `Elu`, `LeakyRelu`) fused into
//!    `_FusedConv2D` / `_FusedDepthwiseConv2dNative` / `_FusedMatMul`.
//!
//! Pass 4 is opt-in (`remapping: Toggle::On`), unlike TensorFlow's: folding rounds the
//! folded weights to float32 and moved ResNet50's outputs by up to 9e-5 relative (the
//! issue's bound is 1e-5). Passes 5 and 6 compute what the separate ops compute, bitwise,
//! so they run by default, as the others do (`remapping: Toggle::Off` turns them off).
//!
//! No pass removes or changes the meaning of a fetched or target node, reads around a fed
//! tensor, or touches stateful ops, variables, control flow or control edges it cannot keep
//! ([`work::is_opaque`]). A pass that fails leaves the nodes as they were before it
//! (TensorFlow's optimisers are skipped on error the same way).

mod batch_norm_folding;
mod constant_folding;
mod cse;
mod dependency;
mod pad_fusion;
mod remapper;
mod work;

use crate::format::proto::{ConfigProto, RewriterConfig, Toggle};
use crate::graph::Node;
use std::collections::HashSet;
use std::sync::Arc;
use work::Work;

/// Which passes run, from a session's `ConfigProto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Passes {
    pub dependency: bool,
    pub constant_folding: bool,
    pub cse: bool,
    /// Op fusion (the remapper, exact): on unless `remapping` is `Off`.
    pub fusion: bool,
    /// Batch-norm folding into weights: only with `remapping: On`.
    pub remapping: bool,
}

impl Passes {
    /// The passes `config.graph_options.rewrite_options` leave on (all by default; none
    /// with `disable_meta_optimizer`).
    pub(crate) fn from_config(config: &ConfigProto) -> Passes {
        let default = RewriterConfig::default();
        let r = config.graph_options.as_ref().and_then(|g| g.rewrite_options.as_ref()).unwrap_or(&default);
        let on = |t: i32| Toggle::try_from(t).unwrap_or(Toggle::Default) != Toggle::Off && !r.disable_meta_optimizer;
        Passes {
            dependency: on(r.dependency_optimization),
            constant_folding: on(r.constant_folding),
            cse: on(r.common_subgraph_elimination) && on(r.arithmetic_optimization),
            fusion: on(r.remapping),
            // opt-in: batch-norm folding moves ResNet50's outputs by up to 9e-5 relative
            // (BENCHMARKS.md)
            remapping: Toggle::try_from(r.remapping) == Ok(Toggle::On) && !r.disable_meta_optimizer,
        }
    }

    /// True when some pass runs.
    pub(crate) fn any(&self) -> bool {
        self.dependency || self.constant_folding || self.cse || self.fusion || self.remapping
    }
}

/// The optimised copy of `nodes` (the graph's nodes by id) for a run feeding `fed`,
/// fetching `fetches` and running `targets`: the same ids for the graph's nodes (a
/// rewritten node is replaced at its id), new nodes appended.
pub(crate) fn optimize(
    nodes: Vec<Arc<Node>>,
    fed: HashSet<(usize, usize)>,
    fetches: &[(usize, usize)],
    targets: &[usize],
    passes: Passes,
) -> Vec<Arc<Node>> {
    let mut w = Work::new(nodes, fed, fetches, targets);
    type Pass = fn(&mut Work) -> crate::error::Result<()>;
    let list: [(bool, Pass); 6] = [
        (passes.dependency, dependency::run),
        (passes.constant_folding, constant_folding::run),
        (passes.cse, cse::run),
        (passes.remapping, batch_norm_folding::run),
        (passes.fusion, pad_fusion::run),
        (passes.fusion, remapper::run),
    ];
    for (on, pass) in list {
        if !on {
            continue;
        }
        let before = w.nodes.clone();
        if pass(&mut w).is_err() {
            w.nodes = before;
        }
        w.refresh();
    }
    w.nodes
}
