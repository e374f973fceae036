//! The dynamic state of one run (TensorFlow's propagator state): frame instances, their
//! iterations, each item's pending inputs per iteration, and the ready queue.
//!
//! A value is live (`Some`) or dead (`None`). An item is ready in an iteration when all its
//! inputs have arrived, and dead when one of them is dead; a `Merge` is ready when one live
//! data input has arrived (and every control input), or dead and ready when all its data
//! inputs are dead or a dead `Enter` reaches it (a loop in an untaken branch). The run
//! starts in iteration 0 of the root frame. An `Enter` delivers into iteration 0 of the
//! child frame instance of (its frame instance, its iteration, its `frame_name`), created
//! on first use; a constant `Enter`'s value is a loop invariant, delivered to every
//! iteration. A `NextIteration` delivers into the next iteration, starting it (at most
//! `parallel_iterations` in flight; later ones wait); a dead one ends there. An `Exit`
//! delivers into the parent frame; one dead in the frame's last iteration delivers a dead
//! value when the frame finishes. An iteration is done when nothing in it is outstanding
//! (ops or child frames) and the one before it is done; it is then freed, and a frame whose
//! Enters have all delivered and whose iterations are all done is freed too.

use super::plan::{Edge, Kind, Plan};
use crate::tensor::Tensor;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::Mutex;

/// The root frame instance's index.
const ROOT: usize = 0;

/// A ready item: to run in iteration `iter` of frame instance `frame`, dead or live.
pub(crate) struct Task {
    pub item: usize,
    pub frame: usize,
    pub iter: usize,
    pub dead: bool,
    /// Runs before the other ready tasks: it allocates nothing and may release a buffer
    /// (see [`Task::new`]).
    first: bool,
    /// Order of readiness, to break ties between iterations.
    seq: u64,
}

impl Task {
    /// A ready task. A dead one (which only passes deadness on) and a `Switch` (which hands
    /// its input to one output and drops it from the other) allocate nothing and may
    /// release a value, so they run before other ready tasks: after a convolution whose
    /// output feeds the two branches' `Switch`es of a `tf.cond`, both run before the live
    /// branch's batch norm, which then holds the only reference and writes in place.
    fn new(plan: &Plan, item: usize, frame: usize, iter: usize, dead: bool, seq: u64) -> Task {
        let first = dead || plan.items[item].kind == Kind::Switch;
        Task { item, frame, iter, dead, first, seq }
    }
}

impl PartialEq for Task {
    fn eq(&self, other: &Self) -> bool {
        (self.item, self.seq) == (other.item, other.seq)
    }
}
impl Eq for Task {}
impl PartialOrd for Task {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Task {
    /// Tasks that run first ([`Task::new`]), then lower item numbers (the plan's order),
    /// then earlier readiness: reversed for the max-heap.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.first, other.item, other.seq).cmp(&(other.first, self.item, self.seq))
    }
}

/// One iteration of a frame instance.
pub(crate) struct IterState {
    /// Each item's pending inputs, by local index.
    counts: Vec<super::plan::Count>,
    /// Input values that arrived (dead ones and ones not arrived are `None`).
    pub inputs: Vec<Option<Tensor>>,
    /// Ready or running items of this iteration.
    outstanding_ops: usize,
    /// Child frame instances started from this iteration and not done.
    outstanding_frames: usize,
}

/// One instance of a static frame.
struct FrameState {
    /// Its static frame.
    info: usize,
    /// The frame instance and iteration its Enters ran in (`None` for the root).
    parent: Option<(usize, usize)>,
    /// The key it is found by in [`Frames::children`].
    key: (usize, usize, usize),
    /// The number of the oldest iteration not done (`iters[0]`).
    first: usize,
    iters: VecDeque<IterState>,
    /// The newest iteration's number.
    last: usize,
    /// Enters into this instance that have not delivered yet.
    pending_enters: usize,
    /// Exits dead in the newest iteration (delivered dead when the frame finishes).
    dead_exits: Vec<usize>,
    /// Loop invariants: (constant Enter, value), delivered to every new iteration.
    invariants: Vec<(usize, Option<Tensor>)>,
    /// NextIteration values waiting for an iteration to finish (`parallel_iterations`).
    deferred: Vec<(usize, Option<Tensor>)>,
}

/// Frames, iterations and the ready queue of one run of a plan.
pub(crate) struct Frames<'p> {
    plan: &'p Plan,
    frames: Vec<Option<FrameState>>,
    free: Vec<usize>,
    /// Child frame instances by (parent instance, parent iteration, static frame).
    children: HashMap<(usize, usize, usize), usize>,
    ready: BinaryHeap<Task>,
    seq: u64,
    /// Where the buffers go when the run ends, for the plan's next run.
    spare: &'p SpareSlot,
}

/// The buffers a finished run of a plan leaves for its next run (allocating them was most
/// of what a run of a small plan cost): the frame list holding the root frame, whose
/// iteration 0 keeps its pending counts and (emptied) input slots, the free list, the
/// child frame index and the ready queue, all empty.
pub(crate) struct Spare {
    frames: Vec<Option<FrameState>>,
    free: Vec<usize>,
    children: HashMap<(usize, usize, usize), usize>,
    ready: BinaryHeap<Task>,
}

/// A plan's [`Spare`] between runs: a run takes it when it is there and the lock is free
/// (a run of the same plan at the same time allocates its own) and puts it back at its end.
pub(crate) type SpareSlot = Mutex<Option<Spare>>;

impl Spare {
    /// The buffers made ready for a new run of `plan`: the root frame's iteration 0 with
    /// the plan's initial counts (`None` when they are not in the shape a run leaves).
    fn reset(mut self, plan: &Plan) -> Option<Spare> {
        let root = self.frames.first_mut()?.as_mut()?;
        let layout = &plan.frames[0];
        if root.first != 0 || root.iters.len() != 1 {
            return None;
        }
        let st = root.iters.front_mut()?;
        if st.counts.len() != layout.initial.len() || st.inputs.len() != layout.num_inputs {
            return None;
        }
        st.counts.copy_from_slice(&layout.initial);
        st.outstanding_ops = 0;
        st.outstanding_frames = 0;
        root.last = 0;
        root.pending_enters = 0;
        Some(self)
    }
}

impl Drop for Frames<'_> {
    /// Releases the values the run still holds (an error stopped it, or dead values) and
    /// leaves the emptied buffers to the plan's next run.
    fn drop(&mut self) {
        self.frames.truncate(1);
        if let Some(Some(root)) = self.frames.first_mut() {
            root.iters.truncate(1);
            if let Some(st) = root.iters.front_mut() {
                st.inputs.iter_mut().for_each(|v| *v = None);
            }
            root.dead_exits.clear();
            root.invariants.clear();
            root.deferred.clear();
        }
        self.free.clear();
        self.children.clear();
        self.ready.clear();
        if let Ok(mut slot) = self.spare.try_lock() {
            *slot = Some(Spare {
                frames: std::mem::take(&mut self.frames),
                free: std::mem::take(&mut self.free),
                children: std::mem::take(&mut self.children),
                ready: std::mem::take(&mut self.ready),
            });
        }
    }
}

impl IterState {
    fn new(plan: &Plan, info: usize) -> IterState {
        let layout = &plan.frames[info];
        IterState {
            counts: layout.initial.clone(),
            inputs: vec![None; layout.num_inputs],
            outstanding_ops: 0,
            outstanding_frames: 0,
        }
    }
}

impl<'p> Frames<'p> {
    /// The state of a run of `plan` before anything runs: iteration 0 of the root frame,
    /// in the buffers `spare` holds from the previous run when it holds them.
    pub fn new(plan: &'p Plan, spare: &'p SpareSlot) -> Frames<'p> {
        if let Some(s) = spare.try_lock().ok().and_then(|mut s| s.take()).and_then(|s| s.reset(plan)) {
            let Spare { frames, free, children, ready } = s;
            return Frames { plan, frames, free, children, ready, seq: 0, spare };
        }
        let root = FrameState {
            info: 0,
            parent: None,
            key: (usize::MAX, 0, 0),
            first: 0,
            iters: VecDeque::from([IterState::new(plan, 0)]),
            last: 0,
            pending_enters: 0,
            dead_exits: Vec::new(),
            invariants: Vec::new(),
            deferred: Vec::new(),
        };
        Frames {
            plan,
            frames: vec![Some(root)],
            free: Vec::new(),
            children: HashMap::new(),
            ready: BinaryHeap::with_capacity(plan.roots.len().max(16)),
            seq: 0,
            spare,
        }
    }

    /// Delivers the fed values (in plan feed order) and makes the root items ready.
    pub fn start(&mut self, feeds: Vec<Tensor>) {
        for (edges, value) in self.plan.feed_edges.iter().zip(feeds) {
            self.activate(ROOT, 0, edges, &[], &mut [Some(value)], false, false);
        }
        for &item in &self.plan.roots {
            self.push(ROOT, 0, item, false);
        }
    }

    /// Every value the run holds: delivered inputs waiting for their items, loop
    /// invariants and deferred next iterations, in all live frames and iterations.
    pub fn values(&self) -> impl Iterator<Item = &Tensor> {
        self.frames.iter().flatten().flat_map(|f| {
            let inputs = f.iters.iter().flat_map(|it| it.inputs.iter().flatten());
            let held = f.invariants.iter().chain(&f.deferred).filter_map(|(_, v)| v.as_ref());
            inputs.chain(held)
        })
    }

    /// The next ready item: a dead task or a `Switch` first (see [`Task::new`]), then the
    /// lowest item number.
    pub fn pop(&mut self) -> Option<Task> {
        self.ready.pop()
    }

    /// The number of ready tasks.
    pub fn ready_len(&self) -> usize {
        self.ready.len()
    }

    /// Iteration `iter` of frame instance `frame` (which must exist).
    pub fn iteration(&mut self, frame: usize, iter: usize) -> &mut IterState {
        let f = self.frames[frame].as_mut().expect("a ready item's frame exists");
        let first = f.first;
        &mut f.iters[iter - first]
    }

    fn frame(&mut self, frame: usize) -> &mut FrameState {
        self.frames[frame].as_mut().expect("frame instance exists")
    }

    fn push(&mut self, frame: usize, iter: usize, item: usize, dead: bool) {
        self.iteration(frame, iter).outstanding_ops += 1;
        self.seq += 1;
        self.ready.push(Task::new(self.plan, item, frame, iter, dead, self.seq));
    }

    /// Sends `task`'s outputs (dead ones `None`) to its consumers, in the frame and
    /// iteration its kind says, and retires it.
    pub fn propagate(&mut self, task: &Task, mut outputs: Vec<Option<Tensor>>) {
        let plan = self.plan;
        let item = &plan.items[task.item];
        let (edges, controls) = (&item.edges[..], &item.controls[..]);
        match item.kind {
            Kind::Enter { child, constant } => {
                let cf = self.child_frame(task.frame, task.iter, child);
                if constant {
                    self.add_invariant(cf, task.item, outputs.swap_remove(0));
                } else {
                    self.activate(cf, 0, edges, controls, &mut outputs, task.dead, true);
                }
                self.frame(cf).pending_enters -= 1;
                if self.frame(cf).first == 0 && self.iteration(cf, 0).outstanding_ops == 0 {
                    self.settle(cf, 0);
                }
            }
            Kind::Exit => {
                if task.dead {
                    let f = self.frame(task.frame);
                    if task.iter == f.last {
                        f.dead_exits.push(task.item);
                    }
                } else if let Some((pf, pi)) = self.frame(task.frame).parent {
                    self.activate(pf, pi, edges, controls, &mut outputs, false, false);
                }
            }
            Kind::NextIteration => {
                if !task.dead {
                    let parallel = plan.frames[self.frame(task.frame).info].frame.parallel_iterations;
                    let f = self.frame(task.frame);
                    if task.iter < f.last {
                        self.activate(task.frame, task.iter + 1, edges, controls, &mut outputs, false, false);
                    } else if f.iters.len() >= parallel {
                        f.deferred.push((task.item, outputs.swap_remove(0)));
                    } else {
                        self.new_iteration(task.frame);
                        self.activate(task.frame, task.iter + 1, edges, controls, &mut outputs, false, false);
                    }
                }
            }
            _ => self.activate(task.frame, task.iter, edges, controls, &mut outputs, task.dead, false),
        }
        let st = self.iteration(task.frame, task.iter);
        st.outstanding_ops -= 1;
        if st.outstanding_ops == 0 {
            self.settle(task.frame, task.iter);
        }
    }

    /// Delivers `outputs` (dead ones `None`; all dead when `src_dead`) along `edges` and
    /// `controls` into iteration `iter` of frame instance `frame`, making ready the items
    /// whose inputs have all arrived. `src_enter`: the source is an Enter (a dead Enter
    /// makes a Merge dead).
    #[allow(clippy::too_many_arguments)]
    fn activate(
        &mut self,
        frame: usize,
        iter: usize,
        edges: &[Edge],
        controls: &[usize],
        outputs: &mut [Option<Tensor>],
        src_dead: bool,
        src_enter: bool,
    ) {
        let plan = self.plan;
        let items = &plan.items;
        let Frames { frames, ready, seq, .. } = self;
        let f = frames[frame].as_mut().expect("frame instance exists");
        let st = &mut f.iters[iter - f.first];
        let mut make_ready = |st: &mut IterState, item: usize, dead: bool| {
            st.outstanding_ops += 1;
            *seq += 1;
            ready.push(Task::new(plan, item, frame, iter, dead, *seq));
        };
        for e in edges {
            let dst = &items[e.dst];
            let c = &mut st.counts[dst.local];
            let value = if e.last { outputs[e.port].take() } else { outputs[e.port].clone() };
            if dst.kind == Kind::Merge {
                match value {
                    Some(v) if c.pending & 1 == 1 => {
                        st.inputs[e.slot] = Some(v);
                        c.pending -= 1;
                        if c.pending == 0 {
                            make_ready(st, e.dst, false);
                        }
                    }
                    // a Merge that already ran takes no second value
                    Some(_) => {}
                    None => {
                        c.dead += 1;
                        let dead = c.dead as usize == dst.inputs.len() || src_enter;
                        if dead && c.pending == 1 {
                            c.pending = 0;
                            make_ready(st, e.dst, true);
                        }
                    }
                }
            } else if c.pending > 0 {
                match value {
                    Some(v) => st.inputs[e.slot] = Some(v),
                    None => c.dead += 1,
                }
                c.pending -= 1;
                if c.pending == 0 {
                    let dead = c.dead > 0 && dst.kind != Kind::ControlTrigger;
                    make_ready(st, e.dst, dead);
                }
            }
        }
        for &d in controls {
            let dst = &items[d];
            let c = &mut st.counts[dst.local];
            if dst.kind == Kind::Merge {
                if c.pending >= 2 {
                    c.pending -= 2;
                    let dead = c.dead as usize == dst.inputs.len();
                    if c.pending == 0 || (c.pending == 1 && dead) {
                        c.pending = 0;
                        make_ready(st, d, dead);
                    }
                }
            } else if c.pending > 0 {
                c.dead += u32::from(src_dead);
                c.pending -= 1;
                if c.pending == 0 {
                    let dead = c.dead > 0 && dst.kind != Kind::ControlTrigger;
                    make_ready(st, d, dead);
                }
            }
        }
    }

    /// The instance of static frame `info` entered from iteration `iter` of `parent`,
    /// created (with its iteration 0) on first use.
    fn child_frame(&mut self, parent: usize, iter: usize, info: usize) -> usize {
        let key = (parent, iter, info);
        if let Some(&f) = self.children.get(&key) {
            return f;
        }
        let state = FrameState {
            info,
            parent: Some((parent, iter)),
            key,
            first: 0,
            iters: VecDeque::from([IterState::new(self.plan, info)]),
            last: 0,
            pending_enters: self.plan.frames[info].frame.enters,
            dead_exits: Vec::new(),
            invariants: Vec::new(),
            deferred: Vec::new(),
        };
        let f = match self.free.pop() {
            Some(f) => {
                self.frames[f] = Some(state);
                f
            }
            None => {
                self.frames.push(Some(state));
                self.frames.len() - 1
            }
        };
        self.children.insert(key, f);
        self.iteration(parent, iter).outstanding_frames += 1;
        f
    }

    /// Records a constant Enter's value and delivers it to every iteration of `frame`.
    fn add_invariant(&mut self, frame: usize, item: usize, value: Option<Tensor>) {
        let (first, last) = {
            let f = self.frame(frame);
            f.invariants.push((item, value.clone()));
            (f.first, f.last)
        };
        let plan = self.plan;
        let it = &plan.items[item];
        for i in first..=last {
            self.activate(frame, i, &it.edges, &it.controls, &mut [value.clone()], value.is_none(), true);
        }
    }

    /// Starts the next iteration of `frame`: the deferred NextIteration values and the
    /// loop invariants are delivered to it.
    fn new_iteration(&mut self, frame: usize) {
        let plan = self.plan;
        let f = self.frame(frame);
        let st = IterState::new(plan, f.info);
        f.iters.push_back(st);
        f.last += 1;
        f.dead_exits.clear();
        let iter = f.last;
        let deferred = std::mem::take(&mut f.deferred);
        let invariants: Vec<(usize, Option<Tensor>)> = f.invariants.clone();
        for (item, value) in deferred {
            let it = &plan.items[item];
            self.activate(frame, iter, &it.edges, &it.controls, &mut [value], false, false);
        }
        for (item, value) in invariants {
            let it = &plan.items[item];
            let dead = value.is_none();
            self.activate(frame, iter, &it.edges, &it.controls, &mut [value], dead, true);
        }
    }

    /// After iteration `iter` of `frame` ran out of work: frees the iterations that are
    /// done, starting deferred ones, and the frame when it is done, then looks at the
    /// parent's iteration the same way.
    fn settle(&mut self, mut frame: usize, mut iter: usize) {
        while frame != ROOT {
            let mut cur = iter;
            loop {
                let f = self.frame(frame);
                let done = cur == f.first
                    && f.iters.front().is_some_and(|st| st.outstanding_ops == 0 && st.outstanding_frames == 0)
                    && (cur > 0 || f.pending_enters == 0);
                if !done {
                    break;
                }
                f.iters.pop_front();
                f.first += 1;
                cur += 1;
                if !f.deferred.is_empty() {
                    self.new_iteration(frame);
                }
            }
            let f = self.frame(frame);
            if f.pending_enters > 0 || !f.iters.is_empty() {
                return;
            }
            // the frame is done: its dead exits deliver dead values to the parent
            let done = self.frames[frame].take().expect("frame instance exists");
            self.free.push(frame);
            self.children.remove(&done.key);
            let (pf, pi) = done.parent.expect("a child frame has a parent");
            let plan = self.plan;
            for &exit in &done.dead_exits {
                let it = &plan.items[exit];
                let mut dead = vec![None; it.node.outputs.len()];
                self.activate(pf, pi, &it.edges, &it.controls, &mut dead, true, false);
            }
            let st = self.iteration(pf, pi);
            st.outstanding_frames -= 1;
            if st.outstanding_ops > 0 || st.outstanding_frames > 0 {
                return;
            }
            (frame, iter) = (pf, pi);
        }
    }
}
