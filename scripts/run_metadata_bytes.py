#!/usr/bin/env python3
"""Prints the bytes TensorFlow 2.21 serializes for the RunMetadata and RunOptions that
tests/run_metadata.rs encodes (held there as a hex literal).

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/run_metadata_bytes.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from tensorflow.core.protobuf import config_pb2  # noqa: E402

md = config_pb2.RunMetadata()
d = md.step_stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0")
n = d.node_stats.add(
    node_name="MatMul",
    all_start_micros=1700000000000000,
    op_end_rel_micros=12,
    all_end_rel_micros=13,
    timeline_label="MatMul = MatMul(x, w)",
    scheduled_micros=1700000000000000,
    all_start_nanos=1700000000000000000,
    op_end_rel_nanos=12345,
    all_end_rel_nanos=13000,
)
n.memory.add(allocator_name="cpu", total_bytes=32, peak_bytes=72, live_bytes=32)
o = n.output.add(slot=0)
o.tensor_description.dtype = 1
o.tensor_description.shape.dim.add(size=2)
o.tensor_description.shape.dim.add(size=4)
o.tensor_description.allocation_description.requested_bytes = 32
o.tensor_description.allocation_description.allocated_bytes = 32
o.tensor_description.allocation_description.allocator_name = "cpu"
print(md.SerializeToString(deterministic=True).hex())
print(config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE).SerializeToString().hex())
