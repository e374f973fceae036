//! Runs a [`Plan`]: a dataflow executor (TensorFlow's executor). Ready items wait in a
//! queue (dead tasks and `Switch`es first, then lowest item number); running one takes
//! its input values out of its iteration's slots (so a buffer is released when its last
//! reader runs), computes its outputs (or, when it is dead, dead outputs without
//! computing), and [`Frames::propagate`](super::frames::Frames::propagate) sends them on
//! (`session/run_state.rs`). Control-flow ops are computed there: `Switch` picks an
//! output, `Merge` forwards its live input, `Enter`/`Exit`/`NextIteration` forward theirs
//! (their frames and iterations are the propagator's part).
//!
//! With one inter-op thread the tasks run one after the other on the calling thread; with
//! more, independent ready tasks run at once (`session/inter_op.rs`).

use super::frames::SpareSlot;
use super::inter_op::run_parallel;
use super::plan::Plan;
use super::run_state::{RunState, Timing};
use super::step_stats::{thread_id, Tracer};
use super::thread_pool::InterOpPool;
use crate::error::Result;
use crate::ops::kernels::parallel::{is_worker, PoolScope};
use crate::ops::{StepResources, ThreadPool};
use crate::tensor::Tensor;
use std::time::Instant;

/// Runs `plan` with `feeds` (already validated, in plan feed order), in the buffers its
/// previous run left in `spare` when they are free; returns the fetches.
/// Errors: the first kernel error (prefixed with the op); `InvalidArgument` "Retval[i]
/// does not have value" for a fetched tensor that is dead in this run; `Internal`
/// "Retval[i] has already been set" for one inside a loop that is live in more than one
/// iteration (as TensorFlow). Kernels split their work over `pool`, made current on this
/// thread for the run; independent ops run at once on `inter`'s threads (one after the
/// other when it has one thread, when the plan holds stacks no control edge orders, or
/// when the caller is itself an intra-op worker). With a `tracer`, each node run is recorded in it.
pub(crate) fn execute(
    plan: &Plan,
    spare: &SpareSlot,
    feeds: Vec<Tensor>,
    pool: &ThreadPool,
    inter: &InterOpPool,
    tracer: Option<&mut Tracer>,
) -> Result<Vec<Tensor>> {
    let _ftz = super::denormal::FlushDenormals::new();
    let _pool = PoolScope::new(pool);
    // TensorArrays and stacks made by this run's ops, dropped when it ends
    let step = StepResources::default();
    let mut run = RunState::new(plan, spare, feeds, tracer);
    match inter.pool() {
        Some(threads) if !plan.serial && !is_worker() => {
            run = run_parallel(plan, run, &step, pool, threads, inter.threads())?;
        }
        _ => match serial_worker(plan, pool) {
            // one hand-off for the run, so that its matrix products use the faster
            // `rten-gemm` kernels, which only run on a pool's worker (`gemm_rten.rs`)
            Some(worker) => worker.install(|| run_serial(plan, &mut run, &step, pool))?,
            None => run_serial(plan, &mut run, &step, pool)?,
        },
    }
    run.into_fetches(plan)
}

/// The one-thread worker a serial run of `plan` moves to: when kernels are serial
/// (`pool` has no threads), some item is expensive and this thread is not already a
/// worker. `None` otherwise (the run stays on the calling thread: no hand-off for small
/// graphs), or when the worker cannot be started.
fn serial_worker(plan: &Plan, pool: &ThreadPool) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    if !plan.expensive || pool.rayon().is_some() || is_worker() {
        return None;
    }
    super::thread_pool::serial_worker()
}

/// Runs every ready task on this thread, in the ready queue's order ([`Frames::pop`](super::frames::Frames::pop)).
fn run_serial<'p>(plan: &'p Plan, run: &mut RunState<'p, '_>, step: &StepResources, pool: &ThreadPool) -> Result<()> {
    let traced = run.traced();
    while let Some(task) = run.frames.pop() {
        let item = &plan.items[task.item];
        let start = traced.then(Instant::now);
        let outputs = run.start(plan, &task)?.run(plan, item, step, pool)?;
        let timing = start.map(|start| Timing { start, end: Instant::now(), thread: thread_id() });
        run.finish(plan, &task, outputs, timing)?;
    }
    Ok(())
}
