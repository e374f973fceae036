//! `tensorflow.RunOptions` and `tensorflow.RunMetadata` (config.proto) with the step
//! statistics they carry (step_stats.proto, tensor_description.proto,
//! allocation_description.proto): what `sess.run(..., options=RunOptions(trace_level=
//! FULL_TRACE), run_metadata=md)` fills in, and what TensorBoard shows as a run's compute
//! time and memory. Field numbers are TensorFlow 2.21's; the fields tensorgraph does not
//! fill (cost graph, partition graphs, debug options, ...) are left out and skipped when
//! reading.

use super::types::TensorShapeProto;

/// `RunOptions.TraceLevel`: how much a run records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum TraceLevel {
    /// Records nothing (the default).
    NoTrace = 0,
    /// Per-node step statistics.
    SoftwareTrace = 1,
    /// As `SoftwareTrace` (tensorgraph has no hardware counters).
    HardwareTrace = 2,
    /// As `SoftwareTrace`.
    FullTrace = 3,
}

/// `tensorflow.RunOptions`: options of one `Session::run_with_options` call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RunOptions {
    /// [`TraceLevel`] as its enum value.
    #[prost(enumeration = "TraceLevel", tag = "1")]
    pub trace_level: i32,
    /// Not enforced by tensorgraph (kept for round trips).
    #[prost(int64, tag = "2")]
    pub timeout_in_ms: i64,
}

/// `tensorflow.RunMetadata`: what a traced run reports.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RunMetadata {
    /// Per-node statistics (set when the run was traced).
    #[prost(message, optional, tag = "1")]
    pub step_stats: Option<StepStats>,
}

/// `tensorflow.StepStats`: one entry per device (tensorgraph: the CPU).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StepStats {
    /// The devices' statistics.
    #[prost(message, repeated, tag = "1")]
    pub dev_stats: Vec<DeviceStepStats>,
}

/// `tensorflow.DeviceStepStats`: the nodes one device ran.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeviceStepStats {
    /// `/job:localhost/replica:0/task:0/device:CPU:0`.
    #[prost(string, tag = "1")]
    pub device: String,
    /// One per node run, in the order they ran.
    #[prost(message, repeated, tag = "2")]
    pub node_stats: Vec<NodeExecStats>,
}

/// `tensorflow.NodeExecStats`: one node's execution. Times are microseconds: the start
/// since the Unix epoch, the others relative to it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeExecStats {
    /// The node's name.
    #[prost(string, tag = "1")]
    pub node_name: String,
    /// When the node started, in µs since the Unix epoch.
    #[prost(int64, tag = "2")]
    pub all_start_micros: i64,
    /// When its kernel started, µs after `all_start_micros` (0 here).
    #[prost(int64, tag = "3")]
    pub op_start_rel_micros: i64,
    /// When its kernel ended, µs after `all_start_micros`.
    #[prost(int64, tag = "4")]
    pub op_end_rel_micros: i64,
    /// When its outputs were delivered, µs after `all_start_micros`.
    #[prost(int64, tag = "5")]
    pub all_end_rel_micros: i64,
    /// Memory of the run's allocator after this node (tensorgraph: one entry, `cpu`).
    #[prost(message, repeated, tag = "6")]
    pub memory: Vec<AllocatorMemoryUsed>,
    /// The node's outputs (live ones).
    #[prost(message, repeated, tag = "7")]
    pub output: Vec<NodeOutput>,
    /// `name = OpType(input, ...)`, as TensorFlow's.
    #[prost(string, tag = "8")]
    pub timeline_label: String,
    /// When it was scheduled, in µs since the Unix epoch (its start here).
    #[prost(int64, tag = "9")]
    pub scheduled_micros: i64,
    /// The thread it ran on: a number tensorgraph gives each thread, 1, 2, ... in the
    /// order threads first ran a traced node (the same number for a thread's whole life).
    #[prost(uint32, tag = "10")]
    pub thread_id: u32,
    /// `all_start_micros` in ns.
    #[prost(int64, tag = "13")]
    pub all_start_nanos: i64,
    /// `op_start_rel_micros` in ns.
    #[prost(int64, tag = "14")]
    pub op_start_rel_nanos: i64,
    /// `op_end_rel_micros` in ns.
    #[prost(int64, tag = "15")]
    pub op_end_rel_nanos: i64,
    /// `all_end_rel_micros` in ns.
    #[prost(int64, tag = "16")]
    pub all_end_rel_nanos: i64,
}

/// `tensorflow.AllocatorMemoryUsed`. tensorgraph reports the bytes of the tensors a run
/// holds (values waiting for consumers, fetched values; not variables, which the session
/// holds, nor constants, which the graph holds): `live_bytes` after the node, `peak_bytes`
/// the most held after any node so far in the run, `total_bytes` the node's outputs. The
/// figures are taken between nodes: a running kernel's inputs, output and scratch together
/// may exceed them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AllocatorMemoryUsed {
    /// The allocator (`cpu`).
    #[prost(string, tag = "1")]
    pub allocator_name: String,
    /// Bytes of the node's outputs.
    #[prost(int64, tag = "2")]
    pub total_bytes: i64,
    /// The most bytes the run held after any node so far.
    #[prost(int64, tag = "3")]
    pub peak_bytes: i64,
    /// Bytes the run held after the node.
    #[prost(int64, tag = "4")]
    pub live_bytes: i64,
}

/// `tensorflow.NodeOutput`: output `slot` of a node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeOutput {
    /// The output index.
    #[prost(int32, tag = "1")]
    pub slot: i32,
    /// Its dtype, shape and bytes.
    #[prost(message, optional, tag = "3")]
    pub tensor_description: Option<TensorDescription>,
}

/// `tensorflow.TensorDescription`: dtype, shape and buffer of a tensor.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorDescription {
    /// `DataType` enum value.
    #[prost(int32, tag = "1")]
    pub dtype: i32,
    /// The shape.
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
    /// Its buffer.
    #[prost(message, optional, tag = "4")]
    pub allocation_description: Option<AllocationDescription>,
}

/// `tensorflow.AllocationDescription`: the size of a tensor's buffer in bytes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AllocationDescription {
    /// Bytes of the buffer.
    #[prost(int64, tag = "1")]
    pub requested_bytes: i64,
    /// Bytes allocated (as `requested_bytes`).
    #[prost(int64, tag = "2")]
    pub allocated_bytes: i64,
    /// The allocator (`cpu`).
    #[prost(string, tag = "3")]
    pub allocator_name: String,
}

impl RunMetadata {
    /// The most bytes of tensors the run held at once (the largest `peak_bytes` of its
    /// nodes; 0 when it was not traced).
    pub fn peak_bytes(&self) -> i64 {
        self.node_stats().flat_map(|n| n.memory.iter().map(|m| m.peak_bytes)).max().unwrap_or(0)
    }

    /// Every node's statistics, over all devices.
    pub fn node_stats(&self) -> impl Iterator<Item = &NodeExecStats> {
        self.step_stats.iter().flat_map(|s| s.dev_stats.iter().flat_map(|d| d.node_stats.iter()))
    }
}

impl NodeExecStats {
    /// The kernel's compute time in microseconds (`op_end_rel_micros - op_start_rel_micros`).
    pub fn compute_micros(&self) -> i64 {
        self.op_end_rel_micros - self.op_start_rel_micros
    }

    /// The bytes of the node's outputs.
    pub fn output_bytes(&self) -> i64 {
        self.output
            .iter()
            .filter_map(|o| o.tensor_description.as_ref()?.allocation_description.as_ref())
            .map(|a| a.requested_bytes)
            .sum()
    }
}
