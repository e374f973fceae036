//! Step statistics of a traced run (`RunOptions.trace_level` above `NO_TRACE`): for each
//! node the executor ran, when it started, how long its kernel took, its outputs' dtypes,
//! shapes and bytes, and the bytes of tensors the run held after it (values waiting for
//! their consumers and fetched values; variables live in the session and constants in the
//! graph, so neither is counted, whatever order the nodes ran in; which values are held at
//! once still follows the schedule).
//! Collected into TensorFlow's `RunMetadata.step_stats`.

use crate::format::proto::{
    AllocationDescription, AllocatorMemoryUsed, DeviceStepStats, NodeExecStats, NodeOutput, RunMetadata, StepStats,
    TensorDescription, TensorShapeProto,
};
use crate::graph::Node;
use crate::tensor::{Storage, Tensor};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The device name TensorFlow gives the CPU in step statistics.
pub(crate) const CPU_DEVICE: &str = "/job:localhost/replica:0/task:0/device:CPU:0";

/// The allocator named in memory statistics.
const ALLOCATOR: &str = "cpu";

/// Records one run's node statistics.
pub(crate) struct Tracer {
    /// Node names by node id in the graph the plan runs (for timeline labels).
    names: Arc<Vec<String>>,
    start: Instant,
    start_epoch_micros: i64,
    nodes: Vec<NodeExecStats>,
    peak: i64,
}

/// When one node ran: its kernel started at `op_start` and ended at `op_end`; its outputs
/// were delivered by `all_end`; `thread_id` is the thread it ran on ([`thread_id`]).
pub(crate) struct NodeTimes {
    pub op_start: Instant,
    pub op_end: Instant,
    pub all_end: Instant,
    pub thread_id: u32,
}

/// A number for the calling thread, the same for its whole life and distinct from every
/// other thread's (TensorFlow's `NodeExecStats.thread_id`): 1, 2, ... in the order threads
/// first ask.
pub(crate) fn thread_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    thread_local! {
        static ID: u32 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

impl Tracer {
    /// A tracer for a run; its plan's node names are given by [`Tracer::set_names`].
    pub(crate) fn new() -> Tracer {
        let start_epoch_micros = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
        Tracer { names: Arc::default(), start: Instant::now(), start_epoch_micros, nodes: Vec::new(), peak: 0 }
    }

    /// The node names by id of the graph the run's plan runs (the optimiser's copy, where
    /// folded constants and fused nodes have names the user's graph lacks).
    pub(crate) fn set_names(&mut self, names: Arc<Vec<String>>) {
        self.names = names;
    }

    /// Records `node`'s run; `outputs` are its outputs (`None`: dead), `live_bytes` the
    /// bytes of tensors the run held after it.
    pub(crate) fn record(&mut self, node: &Node, times: &NodeTimes, outputs: &[Option<Tensor>], live_bytes: i64) {
        self.peak = self.peak.max(live_bytes);
        let nanos = |a: Instant, b: Instant| b.saturating_duration_since(a).as_nanos() as i64;
        let start_nanos = nanos(self.start, times.op_start);
        let (op_end, all_end) = (nanos(times.op_start, times.op_end), nanos(times.op_start, times.all_end));
        let output: Vec<NodeOutput> = outputs
            .iter()
            .enumerate()
            .filter_map(|(slot, t)| Some((slot, t.as_ref()?)))
            .map(|(slot, t)| NodeOutput { slot: slot as i32, tensor_description: Some(describe(t)) })
            .collect();
        let total_bytes = outputs.iter().flatten().map(tensor_bytes).sum();
        let start_micros = self.start_epoch_micros + start_nanos / 1000;
        self.nodes.push(NodeExecStats {
            node_name: node.name.clone(),
            all_start_micros: start_micros,
            op_start_rel_micros: 0,
            op_end_rel_micros: op_end / 1000,
            all_end_rel_micros: all_end / 1000,
            memory: vec![AllocatorMemoryUsed {
                allocator_name: ALLOCATOR.to_string(),
                total_bytes,
                peak_bytes: self.peak,
                live_bytes,
            }],
            output,
            timeline_label: self.timeline_label(node),
            scheduled_micros: start_micros,
            thread_id: times.thread_id,
            all_start_nanos: self.start_epoch_micros * 1000 + start_nanos,
            op_start_rel_nanos: 0,
            op_end_rel_nanos: op_end,
            all_end_rel_nanos: all_end,
        });
    }

    /// `name = OpType(input, ..., ^control)`, TensorFlow's timeline label.
    fn timeline_label(&self, node: &Node) -> String {
        let name = |id: usize| self.names.get(id).map_or("?", String::as_str);
        let data = node.inputs.iter().map(|&(id, port)| match port {
            0 => name(id).to_string(),
            _ => format!("{}:{port}", name(id)),
        });
        let control = node.control_inputs.iter().map(|&id| format!("^{}", name(id)));
        format!("{} = {}({})", node.name, node.op_type, data.chain(control).collect::<Vec<_>>().join(", "))
    }

    /// The run's `RunMetadata`.
    pub(crate) fn finish(self) -> RunMetadata {
        RunMetadata {
            step_stats: Some(StepStats {
                dev_stats: vec![DeviceStepStats { device: CPU_DEVICE.to_string(), node_stats: self.nodes }],
            }),
        }
    }
}

/// A tensor's dtype, shape and bytes.
fn describe(t: &Tensor) -> TensorDescription {
    let bytes = tensor_bytes(t);
    TensorDescription {
        dtype: t.dtype().as_enum(),
        shape: Some(TensorShapeProto::from_dims(t.shape())),
        allocation_description: Some(AllocationDescription {
            requested_bytes: bytes,
            allocated_bytes: bytes,
            allocator_name: ALLOCATOR.to_string(),
        }),
    }
}

/// The bytes of a tensor's buffer (strings: the bytes of their contents).
pub(crate) fn tensor_bytes(t: &Tensor) -> i64 {
    match t.storage() {
        Storage::Str(v) => v.iter().map(|s| s.len() as i64).sum(),
        _ => t.dtype().size().map_or(0, |s| (s * t.num_elements()) as i64),
    }
}

/// The address of a tensor's buffer: equal for tensors that share one.
pub(crate) fn buffer_address(t: &Tensor) -> usize {
    t.storage() as *const Storage as usize
}

/// The bytes of the distinct buffers among `tensors` (a buffer shared by several values
/// counts once), leaving out the buffers whose address is in `persistent` (the graph's
/// constants: their values are the `Const` nodes' own, allocated with the graph, not by
/// the run).
pub(crate) fn distinct_bytes<'a>(tensors: impl Iterator<Item = &'a Tensor>, persistent: &HashSet<usize>) -> i64 {
    let mut seen: HashSet<usize> = HashSet::new();
    tensors
        .filter(|t| {
            let a = buffer_address(t);
            !persistent.contains(&a) && seen.insert(a)
        })
        .map(tensor_bytes)
        .sum()
}
