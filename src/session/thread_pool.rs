//! The intra-op pools sessions run their kernels' work on (see `ops::thread_pool`), and
//! where their independent ops run at once ([`InterOpPool`]).
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

/// A rayon pool of `threads` workers named `name-i`; `intra`: its workers are intra-op
/// workers (kernels split work over their own pool), else kernels on them split work over
/// the run's intra-op pool.
fn build(threads: usize, name: &'static str, intra: bool) -> Result<Arc<rayon::ThreadPool>> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(move |_| {
            if intra {
                mark_worker();
            }
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
    let pool = build(cores(), "tensorgraph-intra-op", true)?;
    Ok(ThreadPool::from_rayon(SHARED.get_or_init(|| pool).clone()))
}

/// A one-thread intra-op pool of the calling thread's own, made on its first call there and
/// ended with that thread: where a serial run with expensive kernels executes, so that its
/// float32 products may use `rten-gemm` (`ops/kernels/gemm_rten.rs`), which splits work over
/// rayon's current pool and so must run on a worker whose pool has one thread. Calling
/// threads each have their own, so concurrent serial runs do not queue behind one another.
/// `None` when the thread cannot be started (the run then stays on the calling thread).
pub(crate) fn serial_worker() -> Option<Arc<rayon::ThreadPool>> {
    thread_local! {
        static SERIAL: std::cell::OnceCell<Option<Arc<rayon::ThreadPool>>> = const { std::cell::OnceCell::new() };
    }
    SERIAL.with(|s| s.get_or_init(|| build(1, "tensorgraph-serial", true).ok()).clone())
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
    Ok(ThreadPool::from_rayon(build(threads, "tensorgraph-session", true)?))
}

/// Where a session runs independent ops at once (TensorFlow's inter-op pool): at most
/// [`InterOpPool::threads`] ops at once, the thread calling `run` one of them, the others
/// on a rayon pool. Made by [`inter_op_for_options`].
pub(crate) struct InterOpPool {
    threads: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl InterOpPool {
    /// The most ops one run executes at once (1: one after the other on the calling thread).
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// The pool helper threads run on (`None` when ops run one at a time).
    pub(crate) fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.pool.as_deref()
    }
}

/// The inter-op pool for a session made with `options` whose intra-op pool is `intra`.
/// `inter_op_parallelism_threads` 0 is one per core (as TensorFlow), negative or 1 runs
/// ops one after the other on the calling thread (TensorFlow's "negative: the caller's
/// thread"). The helpers run on the intra-op pool's workers when kernels have one (no
/// extra threads: an op's kernel and its split pieces share the same workers), else on an
/// inter-op pool of the session's own (`threads - 1` workers, the caller being one).
/// Errors: `ResourceExhausted` when the threads cannot be started.
pub(crate) fn inter_op_for_options(options: &SessionOptions, intra: &ThreadPool) -> Result<InterOpPool> {
    let asked = options.config.inter_op_parallelism_threads;
    let threads = match asked {
        0 => cores(),
        n if n < 0 => 1,
        n => n as usize,
    };
    if threads == 1 {
        return Ok(InterOpPool { threads, pool: None });
    }
    let pool = match intra.rayon_arc() {
        Some(p) => p,
        None => build(threads - 1, "tensorgraph-inter-op", false)?,
    };
    Ok(InterOpPool { threads, pool: Some(pool) })
}
