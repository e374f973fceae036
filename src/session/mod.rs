//! The session layer: [`Session`] runs a graph. It prunes the graph to what each
//! (feeds, fetches, targets) signature needs, orders it, caches that plan, and keeps
//! variable values. [`SessionOptions`] (TensorFlow's `ConfigProto` thread fields) choose
//! the intra-op pool kernels split their work over (`session/thread_pool.rs`).

mod control_flow_info;
mod cost;
mod denormal;
mod executor;
mod frames;
mod growth;
mod inter_op;
mod optimize;
mod options;
mod plan;
mod plan_cache;
mod ref_alias;
mod run_state;
mod session_state;
mod step_stats;
mod thread_pool;

use crate::error::{Error, Result};
use crate::format::proto::{RunMetadata, RunOptions, TraceLevel};
use crate::graph::{Graph, Node, Operation, Output};
use crate::ops::ThreadPool;
use crate::tensor::{fmt_dims, PoolUser, Tensor};
use growth::{with_growth_note, GrowthWatch};
use plan::Plan;
use plan_cache::{CachedPlan, KeyRef, PlanCache};
use session_state::SessionState;
use smallvec::SmallVec;
use std::sync::Arc;

pub use options::{SessionOptions, MAX_THREADS};

/// Runs a graph (`tf.Session`). Variable values live in the session; a graph may have
/// several sessions, each with its own values. `Send + Sync`: many threads may call
/// [`Session::run`] at once; they share the session's intra-op pool (see
/// [`Session::with_options`]).
pub struct Session {
    graph: Graph,
    state: SessionState,
    plans: PlanCache,
    pool: ThreadPool,
    inter: thread_pool::InterOpPool,
    options: SessionOptions,
    passes: optimize::Passes,
    growth: GrowthWatch,
    /// Keeps large freed buffers for reuse while the session lives (`tensor/pool.rs`).
    _buffers: PoolUser,
}

impl Session {
    /// A session on `graph` with TensorFlow's default options (kernels split large work
    /// over one thread per core, in the pool every default session shares).
    /// Errors: `ResourceExhausted` when the shared pool's threads cannot be started.
    pub fn new(graph: &Graph) -> Result<Session> {
        Session::with_options(graph, &SessionOptions::default())
    }

    /// A session on `graph` made with `options` (`tf.compat.v1.Session(config=...)`):
    /// `intra_op_parallelism_threads` is the number of threads one op may split its work
    /// over (0: one per core; 1: every kernel runs on the thread calling `run`);
    /// sessions asking for the default share one process-wide pool, a session asking for
    /// another count or for `use_per_session_threads` gets a pool of its own.
    /// `inter_op_parallelism_threads` is the number of ops one run may execute at once
    /// (0: one per core; 1 or negative: one after the other on the calling thread), on
    /// the intra-op pool's workers (or a pool of the session's own when kernels are
    /// serial); see `ARCHITECTURE.md` ("Inter-op parallelism").
    /// Errors: `InvalidArgument` for a negative intra-op count; `ResourceExhausted` when
    /// the threads cannot be started.
    pub fn with_options(graph: &Graph, options: &SessionOptions) -> Result<Session> {
        let pool = thread_pool::for_options(options)?;
        Ok(Session {
            graph: graph.clone(),
            state: SessionState::default(),
            plans: PlanCache::default(),
            inter: thread_pool::inter_op_for_options(options, &pool)?,
            pool,
            options: options.clone(),
            passes: optimize::Passes::from_config(&options.config),
            growth: GrowthWatch::default(),
            _buffers: PoolUser::new(),
        })
    }

    /// The options this session was made with.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// The number of threads this session's kernels split their work over.
    pub fn intra_op_threads(&self) -> usize {
        self.pool.threads()
    }

    /// The number of ops one run of this session may execute at once.
    pub fn inter_op_threads(&self) -> usize {
        self.inter.threads()
    }

    /// The graph this session runs.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Runs the graph (`sess.run(fetches, feed_dict)`): feeds replace the values of the
    /// given tensors (placeholders or any intermediate), `fetches` are returned in order,
    /// `targets` are run for their effects. Only the ops these need are run.
    ///
    /// A fed value of another dtype than its tensor's is converted as TensorFlow's
    /// `feed_dict` converts it, where that keeps the values ([`Tensor::convert`]): a
    /// float64 array feeds a float32 placeholder, an int64 one an int32 placeholder when
    /// every value fits, integers feed float placeholders. Floats are not fed to integer
    /// tensors (TensorFlow truncates them silently); the error says which cast to make.
    ///
    /// Errors: `InvalidArgument` when a feed has the wrong shape or a dtype it cannot be
    /// converted from (naming the tensor, and the value that does not fit), a tensor is fed
    /// twice, a placeholder is not fed, or a tensor belongs to another graph;
    /// `FailedPrecondition` when an uninitialized variable is read (naming it); any
    /// kernel error, prefixed with the op's name. With TF1 control flow (see
    /// `ARCHITECTURE.md`): `InvalidArgument` `"Retval[i] does not have value"` when fetch `i`
    /// is dead in this run (on a branch not taken), `Internal` `"Retval[i] has already been
    /// set"` when it is inside a loop and live in several iterations, and `InvalidArgument`
    /// for an op reading tensors of two loop frames (TensorFlow's words). When the graph grew
    /// since the previous run, a `FailedPrecondition` error (an uninitialized variable, as
    /// ops built inside a training loop meet) notes by how many ops and suggests
    /// [`Graph::finalize`].
    pub fn run(&self, feeds: &[(&Output, Tensor)], fetches: &[&Output], targets: &[&Operation]) -> Result<Vec<Tensor>> {
        self.run_traced(feeds, fetches, targets, None)
    }

    /// [`Session::run`] with TensorFlow's `RunOptions` (`sess.run(..., options=...,
    /// run_metadata=...)`): with `trace_level` above `NO_TRACE` the returned
    /// `RunMetadata.step_stats` has one `NodeExecStats` per node run, in the order run, on
    /// device `/job:localhost/replica:0/task:0/device:CPU:0`: its start (µs since the Unix
    /// epoch), kernel time (`op_end_rel_micros`, also in nanoseconds), outputs (dtype,
    /// shape, bytes), TensorFlow's timeline label (`name = OpType(inputs)`) and memory
    /// (allocator `cpu`: `total_bytes` of its outputs, `live_bytes` the run held after it,
    /// `peak_bytes` the most held so far; [`RunMetadata::peak_bytes`] is the run's peak).
    /// Bytes count tensors the run holds between nodes (values waiting for consumers,
    /// fetched values), not variables or the graph's constants (so weights never count,
    /// whenever their consumers run). The peak still follows the schedule: independent
    /// nodes run in another order (another inter-op thread count) can hold other values at
    /// once, and an element-wise kernel writes over its input only when nothing else holds
    /// it. A first run's kernel times include packing constant weights (and Winograd
    /// filter transforms), which later runs reuse. With `NO_TRACE` (the default) the metadata
    /// is empty and the run costs what [`Session::run`] costs. `timeout_in_ms` is not enforced.
    ///
    /// Errors: as [`Session::run`].
    pub fn run_with_options(
        &self,
        options: &RunOptions,
        feeds: &[(&Output, Tensor)],
        fetches: &[&Output],
        targets: &[&Operation],
    ) -> Result<(Vec<Tensor>, RunMetadata)> {
        // as TensorFlow: any level above NO_TRACE traces, one this version has no name for too
        if options.trace_level <= TraceLevel::NoTrace as i32 {
            return Ok((self.run(feeds, fetches, targets)?, RunMetadata::default()));
        }
        let mut tracer = step_stats::Tracer::new();
        let values = self.run_traced(feeds, fetches, targets, Some(&mut tracer))?;
        Ok((values, tracer.finish()))
    }

    /// Runs with an optional tracer; an error of a run after the graph grew (an
    /// uninitialized variable: what ops built inside a training loop meet) notes the growth.
    fn run_traced(
        &self,
        feeds: &[(&Output, Tensor)],
        fetches: &[&Output],
        targets: &[&Operation],
        tracer: Option<&mut step_stats::Tracer>,
    ) -> Result<Vec<Tensor>> {
        let grown = self.growth.observe(&self.graph);
        self.run_unnoted(feeds, fetches, targets, tracer).map_err(|e| match grown {
            Some(added) if e.code == crate::error::Code::FailedPrecondition => with_growth_note(e, added),
            _ => e,
        })
    }

    /// [`Session::run`] without the note on a grown graph.
    fn run_unnoted(
        &self,
        feeds: &[(&Output, Tensor)],
        fetches: &[&Output],
        targets: &[&Operation],
        tracer: Option<&mut step_stats::Tracer>,
    ) -> Result<Vec<Tensor>> {
        for (o, _) in feeds {
            self.check_graph(o.graph(), || o.name())?;
        }
        for o in fetches {
            self.check_graph(o.graph(), || o.name())?;
        }
        for t in targets {
            self.check_graph(t.graph(), || t.name())?;
        }
        // the signature on the stack: a cached plan is found without allocating
        let feed_keys: SmallVec<[(usize, usize); 4]> = feeds.iter().map(|(o, _)| o.key()).collect();
        let fetch_keys: SmallVec<[(usize, usize); 4]> = fetches.iter().map(|o| o.key()).collect();
        let target_ids: SmallVec<[usize; 4]> = targets.iter().map(|t| t.id()).collect();
        let cached = self.plan(KeyRef { feeds: &feed_keys, fetches: &fetch_keys, targets: &target_ids })?;
        let plan = &cached.plan;
        let mut values = Vec::with_capacity(feeds.len());
        for ((_, t), (dtype, shape, name)) in feeds.iter().zip(&plan.feed_checks) {
            if !shape.is_compatible_with(t.shape()) {
                return Err(Error::invalid_argument(format!(
                    "Cannot feed value of shape {} for Tensor {name}, which has shape {shape}",
                    fmt_dims(t.shape())
                )));
            }
            let value = t.convert(*dtype).map_err(|e| {
                e.context(format!(
                    "Cannot feed a tensor of dtype {} for Tensor {name}, which has dtype {dtype}",
                    t.dtype()
                ))
            })?;
            values.push(value);
        }
        let mut tracer = tracer;
        if let Some(t) = tracer.as_deref_mut() {
            t.set_names(plan.names.clone());
        }
        executor::execute(plan, &cached.spare, values, &self.pool, &self.inter, tracer)
    }

    /// Runs `targets` only (`sess.run(op)`), e.g. an initializer or a train op.
    pub fn run_targets(&self, targets: &[&Operation]) -> Result<()> {
        self.run(&[], &[], targets).map(|_| ())
    }

    /// Fetches one tensor with feeds.
    pub fn fetch(&self, feeds: &[(&Output, Tensor)], fetch: &Output) -> Result<Tensor> {
        Ok(self.run(feeds, &[fetch], &[])?.remove(0))
    }

    /// Errors: `InvalidArgument` naming the element (`name`, called only then) when `g`
    /// is not this session's graph.
    fn check_graph(&self, g: &Graph, name: impl FnOnce() -> String) -> Result<()> {
        if !g.same(&self.graph) {
            return Err(Error::invalid_argument(format!(
                "{} is not an element of this session's graph; build it in the graph given to Session::new",
                name()
            )));
        }
        Ok(())
    }

    /// The cached plan of signature `key`, built on first use.
    fn plan(&self, key: KeyRef<'_>) -> Result<Arc<CachedPlan>> {
        self.plans.get_or_build(key, |key| Plan::build(&self.graph, &self.state, key, self.passes))
    }

    /// The nodes the plan of a run with these feeds, fetches and targets runs, in plan
    /// order, after the graph optimiser (see [`SessionOptions::without_graph_optimization`]):
    /// folded constants, fused ops (`_FusedConv2D` with its `fused_ops` attr, ...) and the
    /// nodes left as written. The graph itself is unchanged. For tests and debugging (as
    /// TensorFlow's `RunMetadata.partition_graphs`); builds and caches the plan.
    /// Errors: as [`Session::run`] when the plan cannot be built.
    #[doc(hidden)]
    pub fn plan_nodes(&self, feeds: &[&Output], fetches: &[&Output], targets: &[&Operation]) -> Result<Vec<Arc<Node>>> {
        for o in feeds.iter().chain(fetches) {
            self.check_graph(o.graph(), || o.name())?;
        }
        for t in targets {
            self.check_graph(t.graph(), || t.name())?;
        }
        let feeds: Vec<(usize, usize)> = feeds.iter().map(|o| o.key()).collect();
        let fetches: Vec<(usize, usize)> = fetches.iter().map(|o| o.key()).collect();
        let targets: Vec<usize> = targets.iter().map(|t| t.id()).collect();
        let cached = self.plan(KeyRef { feeds: &feeds, fetches: &fetches, targets: &targets })?;
        Ok(cached.plan.items.iter().map(|it| it.node.clone()).collect())
    }

    /// The number of cached run plans (one per distinct feeds/fetches/targets signature).
    pub fn cached_plans(&self) -> usize {
        self.plans.len()
    }

    /// The value of variable op `var` (a `VariableV2` or a resource variable's
    /// `VarHandleOp`) without running anything (`None` when uninitialized).
    pub fn variable_value(&self, var: &Operation) -> Option<Tensor> {
        self.state.var_slot(var.id(), &var.node()).read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Sets the value of variable op `var` (a `VariableV2` or a resource variable's
    /// `VarHandleOp`) directly (used by restore).
    /// Errors: `InvalidArgument` when the dtype or shape differs from the variable's
    /// (a resource variable's are its `VarHandleOp`'s `dtype` and `shape` attrs).
    pub fn set_variable_value(&self, var: &Operation, value: Tensor) -> Result<()> {
        let node = var.node();
        let (dtype, shape) = match node.op_type {
            "VariableV2" | "Variable" => {
                node.outputs.first().cloned().ok_or_else(|| Error::internal("variable without output"))?
            }
            "VarHandleOp" => (node.attr_type("dtype")?, node.attr_shape("shape")?.clone()),
            _ => {
                return Err(Error::invalid_argument(format!(
                "'{}' is a {} op, not a variable (VariableV2 or VarHandleOp); pass the variable's op (Variable::op)",
                node.name, node.op_type
            )))
            }
        };
        if value.dtype() != dtype || !shape.is_compatible_with(value.shape()) {
            return Err(Error::invalid_argument(format!(
                "cannot set variable {} ({dtype} {shape}) to a {} tensor of shape {}",
                node.name,
                value.dtype(),
                fmt_dims(value.shape())
            )));
        }
        *self.state.var_slot(var.id(), &var.node()).write().unwrap_or_else(|e| e.into_inner()) = Some(value);
        Ok(())
    }
}
