//! The intra-op pools sessions run their kernels' work on (see `ops::thread_pool`).
//!
//! - the default (`intra_op_parallelism_threads` 0, or the number of cores, without
//!   `use_per_session_threads`): one process-wide rayon pool with a thread per core,
//!   made on first use and shared by every such session;
//! - 1 thread: serial, kernels run on the calling thread (no hand-off cost at all);
//! - otherwise a pool of the session's own, dropped with the session.
//!
//! tensorgraph's pools are its own, not rayon's global pool, so an application's own
//! rayon work does not queue behind kernels (and the reverse). Every worker runs with
//! flush-to-zero on, as the executor's thread does during a run.

use super::denormal::FlushDenormals;
use super::options::SessionOptions;
use crate::error::{Error, Result};
use crate::ops::kernels::parallel::mark_worker;
use crate::ops::ThreadPool;
use std::sync::{Arc, OnceLock};

/// The number of cores this process may use (1 when unknown).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn build(threads: usize, name: &'static str) -> Result<Arc<rayon::ThreadPool>> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(|_| {
            mark_worker();
            // flush-to-zero for the worker's whole life: it only runs kernels
            std::mem::forget(FlushDenormals::new());
        })
        .build()
        .map(Arc::new)
        .map_err(|e| {
            Error::new(crate::error::Code::ResourceExhausted, format!("cannot start {threads} intra-op threads: {e}"))
        })
}

/// The process-wide default pool (a thread per core), made on first use.
fn shared() -> Result<ThreadPool> {
    static SHARED: OnceLock<Arc<rayon::ThreadPool>> = OnceLock::new();
    if let Some(p) = SHARED.get() {
        return Ok(ThreadPool::from_rayon(p.clone()));
    }
    let pool = build(cores(), "tensorgraph-intra-op")?;
    Ok(ThreadPool::from_rayon(SHARED.get_or_init(|| pool).clone()))
}

/// The pool for a session made with `options`.
/// Errors: `InvalidArgument` for a negative thread count; `ResourceExhausted` when the
/// threads cannot be started.
pub(crate) fn for_options(options: &SessionOptions) -> Result<ThreadPool> {
    options.check()?;
    let cores = cores();
    let asked = options.config.intra_op_parallelism_threads as usize;
    let threads = if asked == 0 { cores } else { asked };
    if threads == 1 {
        return Ok(ThreadPool::serial());
    }
    if threads == cores && !options.config.use_per_session_threads {
        return shared();
    }
    Ok(ThreadPool::from_rayon(build(threads, "tensorgraph-session")?))
}
