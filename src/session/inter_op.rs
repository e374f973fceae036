//! Inter-op parallelism (TensorFlow's executor scheduling ready nodes on its inter-op
//! pool): independent ready tasks of one run execute on several threads at once.
//!
//! The thread calling `run` is the first worker. A worker takes the first ready task (in
//! the queue's order: dead tasks and `Switch`es, then the lowest-numbered) out of the
//! run's state (one lock), runs its kernel without the lock, then takes the lock again to
//! deliver the outputs, and goes on with the next ready task: an
//! inexpensive op made ready is run inline by the thread that made it ready. When a worker
//! takes an expensive task ([`super::cost`]) and other tasks are ready, it asks for
//! another worker: it wakes the calling thread if that one is idle, or spawns a helper job
//! on the pool (up to `inter_op_parallelism_threads` workers in all). Helpers never wait:
//! one that finds nothing ready ends, so pool threads are never blocked by the scheduler.
//!
//! Nested parallelism: helpers run on the session's intra-op pool (or, when kernels are
//! serial, on an inter-op pool of its own), so a kernel that splits its work queues the
//! pieces on the same workers, which work-steal; while a worker waits for its pieces rayon
//! may hand it another job, and a helper job started on a thread that is inside a kernel
//! ends at once (it could otherwise wait on a lock the kernel below it holds).
//!
//! Errors: the first error (a kernel's, or a fetch set twice) is kept, no task starts after
//! it, and `run` returns it once every helper has ended (the pool's scope waits for them),
//! so no thread of the run is still working when `Session::run` returns.

use super::frames::Task;
use super::plan::Plan;
use super::run_state::{RunState, Timing, Work};
use super::step_stats::thread_id;
use crate::error::{Error, Result};
use crate::ops::kernels::parallel::PoolScope;
use crate::ops::{StepResources, ThreadPool};
use std::cell::Cell;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

thread_local! {
    /// True while this thread runs a kernel of an inter-op run.
    static IN_KERNEL: Cell<bool> = const { Cell::new(false) };
}

/// What the workers of one run share.
struct Shared<'p, 't, 'r> {
    plan: &'p Plan,
    step: &'r StepResources,
    /// The intra-op pool kernels split their work over.
    pool: &'r ThreadPool,
    /// The most workers (the calling thread included) at once.
    workers: usize,
    sched: Mutex<Sched<'p, 't>>,
    /// Wakes the calling thread when work is ready or a helper ended.
    wake: Condvar,
}

/// The run's state and the scheduler's counts, behind [`Shared::sched`].
struct Sched<'p, 't> {
    run: RunState<'p, 't>,
    /// Helper jobs spawned and not ended.
    helpers: usize,
    /// The first error.
    error: Option<Error>,
    /// True while the calling thread waits for work.
    caller_waiting: bool,
}

/// Runs `run` to the end with up to `workers` threads at once, helpers spawned on
/// `inter`; kernels split their work over `pool`. Returns the finished state, or the first
/// error once every helper has ended.
pub(crate) fn run_parallel<'p, 't>(
    plan: &'p Plan,
    run: RunState<'p, 't>,
    step: &StepResources,
    pool: &ThreadPool,
    inter: &rayon::ThreadPool,
    workers: usize,
) -> Result<RunState<'p, 't>> {
    let shared = Shared {
        plan,
        step,
        pool,
        workers,
        sched: Mutex::new(Sched { run, helpers: 0, error: None, caller_waiting: false }),
        wake: Condvar::new(),
    };
    inter.in_place_scope(|s| work(&shared, s, true));
    let sched = shared.sched.into_inner().unwrap_or_else(|e| e.into_inner());
    match sched.error {
        Some(e) => Err(e),
        None => Ok(sched.run),
    }
}

fn lock<'a, 'p, 't>(sh: &'a Shared<'p, 't, '_>) -> MutexGuard<'a, Sched<'p, 't>> {
    sh.sched.lock().unwrap_or_else(|e| e.into_inner())
}

/// A worker's loop: run ready tasks until there are none (a helper then ends; the caller
/// waits for more, or for the helpers to end when the run is over or failed).
fn work<'s>(sh: &'s Shared<'_, '_, '_>, s: &rayon::Scope<'s>, caller: bool) {
    // a helper's end is counted however it ends (a panicking kernel included), so the
    // caller never waits for a helper that is gone
    let _end = (!caller).then(|| HelperEnd(sh));
    if !caller && IN_KERNEL.with(Cell::get) {
        // started by rayon on a thread waiting inside a kernel: leave the work to others
        return;
    }
    let _pool = (!caller).then(|| PoolScope::new(sh.pool));
    let mut g = lock(sh);
    loop {
        let task = if g.error.is_none() { g.run.frames.pop() } else { None };
        if let Some(task) = task {
            // another worker for what else is ready while this one runs an expensive
            // kernel; after an inexpensive one this worker is soon back for the rest
            if g.run.frames.ready_len() > 0 && sh.plan.items[task.item].expensive {
                if g.caller_waiting {
                    sh.wake.notify_one();
                } else if g.helpers + 1 < sh.workers {
                    g.helpers += 1;
                    s.spawn(move |s| work(sh, s, false));
                }
            }
            let traced = g.run.traced();
            let started = g.run.start(sh.plan, &task);
            drop(g);
            let (outputs, timing) = run_task(sh, &task, started, traced);
            g = lock(sh);
            if let Err(e) = outputs.and_then(|o| g.run.finish(sh.plan, &task, o, timing)) {
                g.error.get_or_insert(e);
            }
            continue;
        }
        if !caller || g.helpers == 0 {
            // a helper with nothing to do ends; the caller ends when nothing is ready or
            // running: the run is over (or failed)
            return;
        }
        g.caller_waiting = true;
        g = sh.wake.wait(g).unwrap_or_else(|e| e.into_inner());
        g.caller_waiting = false;
    }
}

/// Counts a helper's end and wakes the caller if it waits.
struct HelperEnd<'a, 'p, 't, 'r>(&'a Shared<'p, 't, 'r>);

impl Drop for HelperEnd<'_, '_, '_, '_> {
    fn drop(&mut self) {
        let mut g = lock(self.0);
        g.helpers -= 1;
        if g.caller_waiting {
            self.0.wake.notify_one();
        }
    }
}

/// Runs a started task outside the lock; with `traced`, when it ran and on which thread.
fn run_task(
    sh: &Shared,
    task: &Task,
    started: Result<Work>,
    traced: bool,
) -> (Result<Vec<Option<crate::tensor::Tensor>>>, Option<Timing>) {
    let item = &sh.plan.items[task.item];
    let start = traced.then(Instant::now);
    IN_KERNEL.with(|k| k.set(true));
    let outputs = started.and_then(|w| w.run(sh.plan, item, sh.step, sh.pool));
    IN_KERNEL.with(|k| k.set(false));
    let timing = start.map(|start| Timing { start, end: Instant::now(), thread: thread_id() });
    (outputs, timing)
}
