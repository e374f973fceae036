//! The intra-op thread pool kernels split their work over (TensorFlow's intra-op pool).
//!
//! A [`ThreadPool`] is either serial (one thread: kernels run on the thread that calls
//! `Session::run`, and never hand work to another thread) or a handle to a rayon pool
//! (the process-wide default pool, shared by every session that keeps the default
//! options, or a session's own pool). The session layer makes them
//! (`session/thread_pool.rs`); kernels reach the pool of the run through
//! [`KernelCtx::pool`](crate::ops::KernelCtx) or, inside numeric helpers that take no
//! context, through `ops::kernels::parallel`, which reads the pool the executor installed
//! for the run on its thread.
//!
//! No oversubscription: the executor itself runs on the caller's thread, and a kernel that
//! splits its work hands the pieces to the pool's fixed set of workers (rayon's
//! work-stealing queues), so many sessions and many threads calling `run` at once share
//! those workers instead of each starting threads. A kernel running on a worker that splits
//! its work again (nested parallelism: the inter-op executor runs ops on the same workers)
//! queues the pieces on the same workers; whatever no idle worker steals runs inline on
//! that worker.

use std::sync::Arc;

/// The intra-op pool of a session (see the module documentation). Cheap to clone.
#[derive(Clone, Default)]
pub struct ThreadPool {
    inner: Option<Arc<rayon::ThreadPool>>,
}

impl ThreadPool {
    /// A serial pool: kernels run on the calling thread only.
    pub fn serial() -> ThreadPool {
        ThreadPool { inner: None }
    }

    /// A handle to the rayon pool `pool`, whose workers the session layer set up (flush
    /// to zero, marked as intra-op workers).
    pub(crate) fn from_rayon(pool: Arc<rayon::ThreadPool>) -> ThreadPool {
        ThreadPool { inner: Some(pool) }
    }

    /// The number of threads kernels split work over (1 for a serial pool).
    pub fn threads(&self) -> usize {
        self.inner.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// The rayon pool behind this handle (`None` when serial).
    pub(crate) fn rayon(&self) -> Option<&rayon::ThreadPool> {
        self.inner.as_deref()
    }

    /// A shared handle to the rayon pool behind this handle (`None` when serial).
    pub(crate) fn rayon_arc(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.inner.clone()
    }

    /// True when `self` and `other` are the same pool (both serial, or one rayon pool).
    pub fn same(&self, other: &ThreadPool) -> bool {
        match (&self.inner, &other.inner) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl std::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ThreadPool({} thread(s))", self.threads())
    }
}
