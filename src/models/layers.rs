//! Layers as `tf.compat.v1.layers` builds them, for the ready-made models: batch
//! normalization with its moving averages under a `training` flag.

use crate::error::{Error, Result};
use crate::graph::collections::UPDATE_OPS;
use crate::graph::{Output, Reuse, Scope, Variable};
use crate::init::Initializer;
use crate::ops::{self, FusedBatchNormOptions, VariableOptions};
use crate::tensor::{DType, Tensor};

/// The settings of [`batch_normalization`], with `tf.compat.v1.layers.batch_normalization`'s
/// defaults (momentum 0.99, epsilon 0.001).
#[derive(Debug, Clone, Copy)]
pub struct BatchNormalization {
    /// Weight of the old value in each moving-average update.
    pub momentum: f32,
    /// Added to the variance before its square root.
    pub epsilon: f32,
}

impl Default for BatchNormalization {
    fn default() -> Self {
        BatchNormalization { momentum: 0.99, epsilon: 0.001 }
    }
}

/// `tf.compat.v1.layers.batch_normalization(x, training=training, name=name)` over the last
/// axis of a 4-d NHWC float32 `x`, fused, as TensorFlow 1.x builds it with a tensor
/// `training` flag (a bool scalar, usually a `placeholder_with_default(false)`):
/// variables `name/gamma` (ones), `name/beta` (zeros) and the non-trainable
/// `name/moving_mean` (zeros), `name/moving_variance` (ones), all `[C]`; a `tf.cond` on
/// `training` choosing `FusedBatchNormV3` with the batch's statistics (training) or the
/// moving ones (inference); and per moving statistic a `tf.cond` whose true branch is the
/// update `v -= (v - batch_stat) * (1 - momentum)` (`AssignSub`), added to the
/// `update_ops` collection ([`UPDATE_OPS`]): a train step runs them alongside the
/// optimizer. Returns `y`, the shape of `x`.
///
/// Errors: `InvalidArgument` when `x` is not 4-d float32 with a known channel count, or
/// `training` is not a bool scalar; `AlreadyExists` when `name`'s variables exist.
pub fn batch_normalization(
    s: &Scope,
    x: &Output,
    training: &Output,
    name: &str,
    settings: BatchNormalization,
) -> Result<Output> {
    let shape = x.shape();
    let channels = match shape.dims() {
        Some([_, _, _, Some(c)]) if x.dtype() == DType::Float => *c,
        _ => {
            return Err(Error::invalid_argument(format!(
            "batch_normalization {name}: input {} must be 4-d float32 NHWC with a known channel count, but is {} {}",
            x.name(),
            x.dtype(),
            x.shape()
        )))
        }
    };
    s.variable_scope(name, Reuse::No, |vs| {
        let stat = VariableOptions { trainable: false, ..VariableOptions::default() };
        let gamma = vs.get_variable("gamma", [channels], DType::Float, Initializer::Ones)?;
        let beta = vs.get_variable("beta", [channels], DType::Float, Initializer::Zeros)?;
        let mean = vs.get_variable_with("moving_mean", [channels], DType::Float, Initializer::Zeros, stat.clone())?;
        let var = vs.get_variable_with("moving_variance", [channels], DType::Float, Initializer::Ones, stat)?;
        let fused = |s: &Scope, is_training: bool| -> Result<Vec<Output>> {
            let opts = FusedBatchNormOptions { epsilon: settings.epsilon, is_training, ..Default::default() };
            let op =
                ops::fused_batch_norm(s, x, gamma.value(), beta.value(), Some(mean.value()), Some(var.value()), &opts)?;
            (0..3).map(|i| op.output(i)).collect()
        };
        let out = ops::cond(vs, training, |s| fused(s, true), |s| fused(s, false))?;
        let decay = ops::constant(&vs.named("decay"), Tensor::scalar(1.0 - settings.momentum))?;
        for (i, (v, batch)) in [(&mean, &out[1]), (&var, &out[2])].into_iter().enumerate() {
            let scope = if i == 0 { "AssignMovingAvg".to_string() } else { format!("AssignMovingAvg_{i}") };
            let update = ops::cond(
                vs,
                training,
                |s| Ok(vec![moving_average_update(&s.name_scope(&scope), v, batch, &decay)?]),
                |s| Ok(vec![ops::identity(s, v.value())?]),
            )?;
            vs.graph().add_to_collection(UPDATE_OPS, update[0].op())?;
        }
        Ok(out[0].clone())
    })
}

/// `v -= (v - value) * decay` (TensorFlow's `_assign_moving_average`), as a float32 tensor
/// (the `Identity` of the `AssignSub`).
fn moving_average_update(s: &Scope, v: &Variable, value: &Output, decay: &Output) -> Result<Output> {
    let delta = ops::mul(s, &ops::sub(s, v.value(), value)?, decay)?;
    ops::identity(s, &v.assign_sub(s, &delta)?)
}
