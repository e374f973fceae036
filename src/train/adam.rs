//! `tf.train.AdamOptimizer`: slots `<var>/Adam` (m) and `<var>/Adam_1` (v), non-slot
//! variables `beta1_power` and `beta2_power`, op `ApplyAdam` (`ResourceApplyAdam` for
//! resource variables, whose slots and non-slot variables are resource variables too).

use super::optimizer::{apply_with, hyper, non_slot_scalar, zeros_slot, Optimizer};
use crate::error::Result;
use crate::graph::{Operation, Output, Variable};
use crate::ops;

/// Adam (`tf.train.AdamOptimizer(learning_rate, beta1, beta2, epsilon)`), TensorFlow's
/// update: `lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)`, `m = beta1 m + (1 - beta1) g`,
/// `v = beta2 v + (1 - beta2) g²`, `var -= lr_t m / (sqrt(v) + epsilon)`.
#[derive(Debug, Clone)]
pub struct AdamOptimizer {
    /// The step size (default 0.001).
    pub learning_rate: f64,
    /// Decay of the first moment (default 0.9).
    pub beta1: f64,
    /// Decay of the second moment (default 0.999).
    pub beta2: f64,
    /// Added to the denominator (default 1e-8).
    pub epsilon: f64,
}

impl Default for AdamOptimizer {
    fn default() -> Self {
        AdamOptimizer { learning_rate: 0.001, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 }
    }
}

impl AdamOptimizer {
    /// Adam with `learning_rate` and TensorFlow's defaults for the rest.
    pub fn new(learning_rate: f64) -> Self {
        AdamOptimizer { learning_rate, ..Default::default() }
    }
}

impl Optimizer for AdamOptimizer {
    fn name(&self) -> &'static str {
        "Adam"
    }
    fn apply_gradients(
        &self,
        gv: &[(Output, Variable)],
        step: Option<&Variable>,
        name: Option<&str>,
    ) -> Result<Operation> {
        let Some((_, first)) = gv.first() else {
            return Err(crate::Error::invalid_argument("apply_gradients got no (gradient, variable) pairs"));
        };
        let dt = first.dtype();
        let beta1_power = non_slot_scalar(first, "beta1_power", self.beta1, dt)?;
        let beta2_power = non_slot_scalar(first, "beta2_power", self.beta2, dt)?;
        let mut slots = Vec::with_capacity(gv.len());
        for (_, v) in gv {
            slots.push((zeros_slot(v, "Adam")?, zeros_slot(v, "Adam_1")?));
        }
        apply_with(
            self.name(),
            gv,
            step,
            name,
            |s, dt| {
                Ok(vec![
                    hyper(s, "learning_rate", self.learning_rate, dt)?,
                    hyper(s, "beta1", self.beta1, dt)?,
                    hyper(s, "beta2", self.beta2, dt)?,
                    hyper(s, "epsilon", self.epsilon, dt)?,
                ])
            },
            |s, h, i, grad, var| {
                let (m, v) = &slots[i];
                let op = if var.is_resource() { "ResourceApplyAdam" } else { "ApplyAdam" };
                s.op(op, op)
                    .input(&var.reference())
                    .input(&m.reference())
                    .input(&v.reference())
                    .input(beta1_power.value())
                    .input(beta2_power.value())
                    .inputs(h)
                    .input(grad)
                    .attr("T", var.dtype())
                    .attr("use_locking", false)
                    .attr("use_nesterov", false)
                    .build()
            },
            |s, _| {
                let h1 = s.graph().tensor_by_name(&format!("{}/beta1:0", s.prefix()))?;
                let h2 = s.graph().tensor_by_name(&format!("{}/beta2:0", s.prefix()))?;
                let m1 = ops::mul(s, beta1_power.value(), &h1)?;
                let a1 = beta1_power.assign_op(s, &m1)?;
                let m2 = ops::mul(s, beta2_power.value(), &h2)?;
                let a2 = beta2_power.assign_op(s, &m2)?;
                Ok(vec![a1, a2])
            },
        )
    }
}
