//! `tf.train.MomentumOptimizer`: slot `<var>/Momentum`, op `ApplyMomentum`
//! (`ResourceApplyMomentum` for resource variables).

use super::optimizer::{apply_with, hyper, zeros_slot, Optimizer};
use crate::error::Result;
use crate::graph::{Operation, Output, Variable};

/// Momentum (`tf.train.MomentumOptimizer(learning_rate, momentum, use_nesterov)`):
/// `accum = momentum * accum + grad; var -= learning_rate * accum`.
#[derive(Debug, Clone)]
pub struct MomentumOptimizer {
    /// The step size.
    pub learning_rate: f64,
    /// The momentum factor.
    pub momentum: f64,
    /// Nesterov momentum.
    pub use_nesterov: bool,
}

impl MomentumOptimizer {
    /// An optimizer with the given learning rate and momentum (not Nesterov).
    pub fn new(learning_rate: f64, momentum: f64) -> Self {
        MomentumOptimizer { learning_rate, momentum, use_nesterov: false }
    }
}

impl Optimizer for MomentumOptimizer {
    fn name(&self) -> &'static str {
        "Momentum"
    }
    fn apply_gradients(
        &self,
        gv: &[(Output, Variable)],
        step: Option<&Variable>,
        name: Option<&str>,
    ) -> Result<Operation> {
        let slots = gv.iter().map(|(_, v)| zeros_slot(v, "Momentum")).collect::<Result<Vec<_>>>()?;
        apply_with(
            self.name(),
            gv,
            step,
            name,
            |s, dt| {
                Ok(vec![hyper(s, "learning_rate", self.learning_rate, dt)?, hyper(s, "momentum", self.momentum, dt)?])
            },
            |s, h, i, grad, var| {
                let op = if var.is_resource() { "ResourceApplyMomentum" } else { "ApplyMomentum" };
                s.op(op, op)
                    .input(&var.reference())
                    .input(&slots[i].reference())
                    .input(&h[0])
                    .input(grad)
                    .input(&h[1])
                    .attr("T", var.dtype())
                    .attr("use_locking", false)
                    .attr("use_nesterov", self.use_nesterov)
                    .build()
            },
            |_, _| Ok(vec![]),
        )
    }
}
