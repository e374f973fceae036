//! `Graph::finalize` (`tf.Graph.finalize`): a graph that no longer accepts ops, so that a
//! training loop that keeps adding ops (a new `ops::add` or `minimize` at every step) fails
//! naming the op instead of slowing down and growing without bound.

use super::Graph;
use crate::error::{Error, Result};

impl Graph {
    /// Finalizes the graph (`tf.Graph.finalize()`): afterwards adding an op (building one,
    /// importing a GraphDef or meta graph) or adding to a collection is a
    /// `FailedPrecondition` error naming what was added. Running the graph is unaffected.
    /// There is no way back, as in TensorFlow's public API.
    pub fn finalize(&self) {
        self.write().finalized = true;
    }

    /// True after [`Graph::finalize`] (`tf.Graph.finalized`).
    pub fn is_finalized(&self) -> bool {
        self.read().finalized
    }

    /// `FailedPrecondition` naming `what` (`op 'loss_1' (Mul)`) when the graph is finalized.
    pub(crate) fn check_not_finalized(&self, what: impl FnOnce() -> String) -> Result<()> {
        if self.is_finalized() {
            return Err(finalized_error(&what()));
        }
        Ok(())
    }
}

/// The error for adding `what` to a finalized graph (TensorFlow's words, then which
/// addition and what to do).
pub(crate) fn finalized_error(what: &str) -> Error {
    Error::failed_precondition(format!(
        "Graph is finalized and cannot be modified: cannot add {what}. Build every op before Graph::finalize() (an op \
         built inside a training loop is added again at every step)"
    ))
}
