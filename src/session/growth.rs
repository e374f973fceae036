//! Whether the graph grew between two `Session::run` calls: a training loop that builds ops
//! at every step (a new `ops::add`, a new `minimize`) grows the graph without bound, and the
//! error it meets (`FailedPrecondition`: an uninitialized variable made by the new ops) comes
//! with a note saying so and suggesting `Graph::finalize`.

use crate::error::Error;
use crate::graph::Graph;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of ops the graph had at the previous run (0: no run yet).
#[derive(Debug, Default)]
pub(super) struct GrowthWatch {
    ops_at_last_run: AtomicUsize,
}

impl GrowthWatch {
    /// Records the graph's size for this run; returns how many ops were added since the
    /// previous run (`None` for the first run, or when the graph did not grow).
    pub(super) fn observe(&self, graph: &Graph) -> Option<usize> {
        let now = graph.num_ops();
        let before = self.ops_at_last_run.swap(now, Ordering::Relaxed);
        (before != 0 && now > before).then(|| now - before)
    }
}

/// `e` with the note that the graph grew by `added` ops since the previous run.
pub(super) fn with_growth_note(mut e: Error, added: usize) -> Error {
    e.message.push_str(&format!(
        " (note: the graph grew by {added} op(s) since the previous Session::run; if ops are built inside the \
         training loop, build them once before it and call Graph::finalize(), so that adding an op is an error \
         naming it)"
    ));
    e
}
