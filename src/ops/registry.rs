//! The table from TensorFlow op type to its [`RegisteredOp`].

use super::RegisteredOp;
use crate::error::{Error, Result};
use rustc_hash::FxHashMap as HashMap;
use std::sync::LazyLock;

static REGISTRY: LazyLock<HashMap<&'static str, &'static dyn RegisteredOp>> = LazyLock::new(|| {
    let mut m: HashMap<&'static str, &'static dyn RegisteredOp> = HashMap::default();
    for def in super::array::DEFS
        .iter()
        .chain(super::math::defs())
        .chain(super::io_ops::DEFS)
        .chain(super::nn::DEFS)
        .chain(super::nn::activations::DEFS)
        .chain(super::nn::batch_norm::DEFS)
        .chain(super::nn::batch_norm_grad::DEFS)
        .chain(super::random::DEFS)
        .chain(super::random::stateless::DEFS)
        .chain(super::ref_variable::DEFS)
        .chain(super::resource_variable::DEFS)
        .chain(super::training::DEFS)
        .chain(super::conv::DEFS)
        .chain(super::conv::depthwise::DEFS)
        .chain(super::array::pad::DEFS)
        .chain(super::array::gather_nd::DEFS)
        .chain(super::array::space_batch::DEFS)
        .chain(super::array::depth_space::DEFS)
        .chain(super::array::roll::DEFS)
        .chain(super::array::checks::DEFS)
        .chain(super::array::matrix_diag::DEFS)
        .chain(super::nn::in_top_k::DEFS)
        .chain(super::nn::lrn::DEFS)
        .chain(super::image::DEFS)
        .chain(super::image::nms::DEFS)
        .chain(super::control_flow::DEFS)
        .chain(super::logging::DEFS)
        .chain(super::io_ops_v1::DEFS)
        .chain(super::parsing::DEFS)
        .chain(super::tensor_array::DEFS)
        .chain(super::stack::DEFS)
        .chain(super::tensor_list::DEFS)
        .chain(super::quantize::DEFS)
        .chain(super::string_ops::DEFS)
        .chain(super::summary::DEFS)
        .chain(super::summary::histogram::DEFS)
        .chain(super::summary::image::DEFS)
    {
        m.insert(def.op_type(), super::half_float::wrap(*def));
    }
    // a second list: one chain of every family overflows the trait solver's recursion limit
    for def in [
        super::image::bicubic::DEFS,
        super::image::crop_and_resize::DEFS,
        super::conv::argmax_pool::DEFS,
        super::conv::dilation::DEFS,
        super::conv::patches::DEFS,
        super::array::sparse_to_dense::DEFS,
        super::array::set_ops::DEFS,
        super::nn::accidental_hits::DEFS,
        super::random::multinomial::DEFS,
        super::random::shuffle::DEFS,
        super::random::candidate_sampler::DEFS,
        super::nn::ctc::DEFS,
        super::nn::ctc_greedy::DEFS,
        super::nn::ctc_beam::DEFS,
        super::array::bitcast::DEFS,
        super::math::bincount::DEFS,
        super::string_ops::convert::DEFS,
        super::string_ops::substr::DEFS,
    ]
    .into_iter()
    .flatten()
    {
        m.insert(def.op_type(), super::half_float::wrap(*def));
    }
    m
});

/// The definition of op type `op_type`.
/// Errors: `Unimplemented` naming the type when tensorgraph does not know it.
pub fn lookup(op_type: &str) -> Result<&'static dyn RegisteredOp> {
    REGISTRY.get(op_type).copied().ok_or_else(|| {
        Error::unimplemented(format!("Op type not registered '{op_type}': tensorgraph has no kernel for it"))
    })
}

/// Every registered op type, sorted.
pub fn registered_op_types() -> Vec<&'static str> {
    let mut v: Vec<_> = REGISTRY.keys().copied().collect();
    v.sort_unstable();
    v
}
