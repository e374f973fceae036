//! Splitting a kernel's work over the intra-op pool of the current run.
//!
//! The executor makes its session's [`ThreadPool`] current on its thread for the run
//! ([`PoolScope`]); the helpers here read it, so the numeric helpers need no context
//! argument. Work is split only when the pool has more than one thread and the work is
//! large ([`MIN_PARALLEL`] elements, about 32K), so small ops never leave the caller's
//! thread. On an intra-op worker (a kernel already running in the pool) the helpers
//! split over that worker's pool: nested pieces go to rayon's work-stealing queues and
//! run inline when no worker is idle.

use crate::ops::ThreadPool;
use rayon::prelude::*;
use std::cell::{Cell, RefCell};

/// Element counts below this run on one thread.
pub const MIN_PARALLEL: usize = 32 * 1024;

thread_local! {
    /// The pool of the run the executor on this thread is running.
    static CURRENT: RefCell<Option<ThreadPool>> = const { RefCell::new(None) };
    /// True on the workers of tensorgraph's intra-op pools.
    static WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as an intra-op worker (called by the pools' start handler).
pub(crate) fn mark_worker() {
    WORKER.with(|w| w.set(true));
}

/// True on the workers of tensorgraph's intra-op pools (a kernel running there).
pub(crate) fn is_worker() -> bool {
    WORKER.with(Cell::get)
}

/// Makes `pool` the current intra-op pool of this thread until dropped (then the previous
/// one is current again, so nested runs, such as a kernel running a session, are fine).
pub(crate) struct PoolScope {
    prev: Option<ThreadPool>,
}

impl PoolScope {
    /// Makes `pool` current.
    pub(crate) fn new(pool: &ThreadPool) -> PoolScope {
        let prev = CURRENT.with(|c| c.replace(pool.rayon().is_some().then(|| pool.clone())));
        PoolScope { prev }
    }
}

impl Drop for PoolScope {
    fn drop(&mut self) {
        let prev = self.prev.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}

/// The number of threads work may be split over here.
pub fn threads() -> usize {
    if WORKER.with(Cell::get) {
        return rayon::current_num_threads();
    }
    CURRENT.with(|c| c.borrow().as_ref().map_or(1, ThreadPool::threads))
}

/// Runs `f` where rayon's parallel iterators use the current intra-op pool: inline on an
/// intra-op worker or when the run is serial, else on the pool (the caller waits).
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if WORKER.with(Cell::get) {
        return f();
    }
    let pool = CURRENT.with(|c| c.borrow().clone());
    match pool.as_ref().and_then(ThreadPool::rayon) {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// How many pieces to split `work` elements into here: 1 when small or serial.
pub fn pieces(work: usize) -> usize {
    if work < MIN_PARALLEL {
        return 1;
    }
    threads().min(work / (MIN_PARALLEL / 2)).max(1)
}

/// Calls `f(i, chunk)` for the consecutive `chunk`-element pieces of `out` (the last may be
/// shorter), in parallel when `work` (an estimate of the elements touched) is large enough.
/// `chunk` is a row length: pieces are made of whole rows.
pub fn for_rows<T: Send>(out: &mut [T], row: usize, work: usize, f: impl Fn(usize, &mut [T]) + Sync + Send) {
    let row = row.max(1);
    let rows = out.len().div_ceil(row);
    let n = pieces(work).min(rows);
    if n <= 1 {
        for (i, r) in out.chunks_mut(row).enumerate() {
            f(i, r);
        }
        return;
    }
    // a few pieces per thread, for balance
    let per = rows.div_ceil(n * 4).max(1);
    install(|| {
        out.par_chunks_mut(per * row).enumerate().for_each(|(p, block)| {
            for (j, r) in block.chunks_mut(row).enumerate() {
                f(p * per + j, r);
            }
        })
    });
}

/// Fills `out[i] = f(i)`-style: calls `f(start, piece)` on consecutive pieces of `out`,
/// in parallel when `out` is large. For element-wise kernels.
pub fn fill<T: Send>(out: &mut [T], f: impl Fn(usize, &mut [T]) + Sync + Send) {
    let n = pieces(out.len());
    if n <= 1 {
        f(0, out);
        return;
    }
    let per = out.len().div_ceil(n * 2).max(1);
    install(|| out.par_chunks_mut(per).enumerate().for_each(|(p, piece)| f(p * per, piece)));
}
