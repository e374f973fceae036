//! `tf.train.GradientDescentOptimizer`: `var -= learning_rate * grad` with `ApplyGradientDescent`
//! (`ResourceApplyGradientDescent` for resource variables).

use super::optimizer::{apply_with, hyper, Optimizer};
use crate::error::Result;
use crate::graph::{Operation, Output, Variable};

/// Plain gradient descent (`tf.train.GradientDescentOptimizer(learning_rate)`).
#[derive(Debug, Clone)]
pub struct GradientDescentOptimizer {
    /// The step size.
    pub learning_rate: f64,
}

impl GradientDescentOptimizer {
    /// An optimizer with the given learning rate.
    pub fn new(learning_rate: f64) -> Self {
        GradientDescentOptimizer { learning_rate }
    }
}

impl Optimizer for GradientDescentOptimizer {
    fn name(&self) -> &'static str {
        "GradientDescent"
    }
    fn apply_gradients(
        &self,
        gv: &[(Output, Variable)],
        step: Option<&Variable>,
        name: Option<&str>,
    ) -> Result<Operation> {
        apply_with(
            self.name(),
            gv,
            step,
            name,
            |s, dt| Ok(vec![hyper(s, "learning_rate", self.learning_rate, dt)?]),
            |s, h, _, grad, var| {
                let op = if var.is_resource() { "ResourceApplyGradientDescent" } else { "ApplyGradientDescent" };
                s.op(op, op)
                    .input(&var.reference())
                    .input(&h[0])
                    .input(grad)
                    .attr("T", var.dtype())
                    .attr("use_locking", false)
                    .build()
            },
            |_, _| Ok(vec![]),
        )
    }
}
