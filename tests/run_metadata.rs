//! `Session::run_with_options` with `RunOptions.trace_level` (TensorFlow's
//! `sess.run(..., options=RunOptions(trace_level=FULL_TRACE), run_metadata=md)`): one
//! `NodeExecStats` per node run, with TF's device name, timeline labels, output
//! descriptions and memory; `RunMetadata` encodes to TensorFlow's bytes.

use prost::Message;
use tensorgraph::format::proto::{
    AllocationDescription, AllocatorMemoryUsed, DeviceStepStats, NodeExecStats, NodeOutput, RunMetadata, RunOptions,
    StepStats, TensorDescription, TensorShapeProto, TraceLevel,
};
use tensorgraph::{ops, DType, Graph, Output, Session, Tensor};

fn full_trace() -> RunOptions {
    RunOptions { trace_level: TraceLevel::FullTrace as i32, timeout_in_ms: 0 }
}

/// relu(x @ w) with x a [2, 3] placeholder and w a [3, 4] constant.
fn mlp() -> (Graph, Output, Output) {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2, 3]).unwrap();
    let w =
        ops::constant(&s.named("w"), Tensor::new(&[3, 4], (0..12).map(|i| i as f32 - 5.0).collect()).unwrap()).unwrap();
    let y = ops::relu(&s, &ops::matmul(&s, &x, &w).unwrap()).unwrap();
    (g, x, y)
}

#[test]
fn a_traced_run_records_each_node_with_its_outputs_and_memory() {
    let (g, x, y) = mlp();
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::new(&[2, 3], vec![1f32, 2., 3., -1., 0., 1.]).unwrap();
    let (values, md) = sess.run_with_options(&full_trace(), &[(&x, xv.clone())], &[&y], &[]).unwrap();
    // the same values as an untraced run
    assert_eq!(
        values[0].as_slice::<f32>().unwrap(),
        sess.run(&[(&x, xv)], &[&y], &[]).unwrap()[0].as_slice::<f32>().unwrap()
    );
    let stats = md.step_stats.as_ref().unwrap();
    assert_eq!(stats.dev_stats.len(), 1);
    assert_eq!(stats.dev_stats[0].device, "/job:localhost/replica:0/task:0/device:CPU:0");
    let nodes: Vec<&NodeExecStats> = md.node_stats().collect();
    assert_eq!(nodes.iter().map(|n| n.node_name.as_str()).collect::<Vec<_>>(), ["w", "MatMul", "Relu"]);
    let matmul = nodes[1];
    assert_eq!(matmul.timeline_label, "MatMul = MatMul(x, w)");
    assert_eq!(matmul.output.len(), 1);
    let desc = matmul.output[0].tensor_description.as_ref().unwrap();
    assert_eq!((desc.dtype, desc.shape.clone().unwrap()), (1, TensorShapeProto::from_dims(&[2, 4])));
    assert_eq!(matmul.output_bytes(), 32);
    assert!(matmul.op_end_rel_micros >= 0 && matmul.all_end_rel_nanos >= matmul.op_end_rel_nanos);
    assert!(nodes.windows(2).all(|w| w[0].all_start_nanos <= w[1].all_start_nanos));
    // bytes held: after w, the fed x (24) waits for MatMul (w's 48 bytes are the graph's
    // constant, not counted); after MatMul its output (32) waits for Relu; after Relu its
    // output (32) is held as the fetch
    fn mem(n: &NodeExecStats) -> (&str, i64, i64, i64) {
        let m = &n.memory[0];
        (m.allocator_name.as_str(), m.total_bytes, m.live_bytes, m.peak_bytes)
    }
    assert_eq!(mem(nodes[0]), ("cpu", 48, 24, 24));
    assert_eq!(mem(nodes[1]), ("cpu", 32, 32, 32));
    assert_eq!(mem(nodes[2]), ("cpu", 32, 32, 32));
    assert_eq!(md.peak_bytes(), 32);
}

#[test]
fn a_trace_level_above_full_trace_traces_as_in_tensorflow() {
    let (g, x, y) = mlp();
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::new(&[2, 3], vec![1f32, 2., 3., -1., 0., 1.]).unwrap();
    let options = RunOptions { trace_level: 99, timeout_in_ms: 0 };
    let (_, md) = sess.run_with_options(&options, &[(&x, xv.clone())], &[&y], &[]).unwrap();
    assert_eq!(md.node_stats().count(), 3);
    let options = RunOptions { trace_level: -1, timeout_in_ms: 0 };
    let (_, md) = sess.run_with_options(&options, &[(&x, xv)], &[&y], &[]).unwrap();
    assert_eq!(md.node_stats().count(), 0);
}

#[test]
fn an_untraced_run_has_empty_metadata() {
    let (g, x, y) = mlp();
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::zeros(DType::Float, &[2, 3]);
    let (_, md) = sess.run_with_options(&RunOptions::default(), &[(&x, xv)], &[&y], &[]).unwrap();
    assert_eq!(md, RunMetadata::default());
    assert_eq!(md.peak_bytes(), 0);
}

#[test]
fn run_metadata_encodes_to_tensorflows_bytes() {
    // config_pb2.RunMetadata with the same fields, SerializeToString(deterministic=True)
    // in TensorFlow 2.21 (see scripts/run_metadata_bytes.py)
    let want = "0aa1010a9e010a2c2f6a6f623a6c6f63616c686f73742f7265706c6963613a302f7461736b3a302f6465766963653a4350553a30126e0a064d61744d756c108080f9c0c1c48203200c280d320b0a036370751020184820203a191a170801120812020802120208042209082010201a0363707542154d61744d756c203d204d61744d756c28782c207729488080f9c0c1c48203688080a8b1e39fe7cb1778b9608001c865";
    let node = NodeExecStats {
        node_name: "MatMul".into(),
        all_start_micros: 1_700_000_000_000_000,
        op_end_rel_micros: 12,
        all_end_rel_micros: 13,
        memory: vec![AllocatorMemoryUsed {
            allocator_name: "cpu".into(),
            total_bytes: 32,
            peak_bytes: 72,
            live_bytes: 32,
        }],
        output: vec![NodeOutput {
            slot: 0,
            tensor_description: Some(TensorDescription {
                dtype: 1,
                shape: Some(TensorShapeProto::from_dims(&[2, 4])),
                allocation_description: Some(AllocationDescription {
                    requested_bytes: 32,
                    allocated_bytes: 32,
                    allocator_name: "cpu".into(),
                }),
            }),
        }],
        timeline_label: "MatMul = MatMul(x, w)".into(),
        scheduled_micros: 1_700_000_000_000_000,
        all_start_nanos: 1_700_000_000_000_000_000,
        op_end_rel_nanos: 12345,
        all_end_rel_nanos: 13000,
        ..Default::default()
    };
    let md = RunMetadata {
        step_stats: Some(StepStats {
            dev_stats: vec![DeviceStepStats {
                device: "/job:localhost/replica:0/task:0/device:CPU:0".into(),
                node_stats: vec![node],
            }],
        }),
    };
    let hex: String = md.encode_to_vec().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, want);
    assert_eq!(RunMetadata::decode(&*md.encode_to_vec()).unwrap(), md);
    assert_eq!(full_trace().encode_to_vec(), [0x08, 0x03]);
}

#[test]
fn timeline_labels_name_the_constants_and_fused_ops_the_optimiser_made() {
    use tensorgraph::format::proto::{ConfigProto, GraphOptions, RewriterConfig, Toggle};
    use tensorgraph::ops::FusedBatchNormOptions;
    use tensorgraph::SessionOptions;
    // conv -> inference batch norm -> relu: folded into `conv_bn_weights` and
    // `conv_bn_offset`, then fused into one `_FusedConv2D` named as the relu
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [1, 4, 4, 2]).unwrap();
    let k = |name: &str, shape: &[usize], v: f32| {
        let n = shape.iter().product();
        ops::constant(&s.named(name), Tensor::new(shape, vec![v; n]).unwrap()).unwrap()
    };
    let conv = ops::conv2d(&s.named("conv"), &x, &k("f", &[3, 3, 2, 3], 0.5), &[1, 1, 1, 1], "SAME").unwrap();
    let (scale, offset, mean, var) =
        (k("scale", &[3], 2.0), k("offset", &[3], 0.1), k("mean", &[3], 0.3), k("var", &[3], 4.0));
    let opts = FusedBatchNormOptions { is_training: false, ..Default::default() };
    let bn = ops::fused_batch_norm(&s.named("bn"), &conv, &scale, &offset, Some(&mean), Some(&var), &opts).unwrap();
    let y = ops::relu(&s.named("relu"), &bn.output(0).unwrap()).unwrap();
    let rewrite = RewriterConfig { remapping: Toggle::On as i32, ..Default::default() };
    let config =
        ConfigProto { graph_options: Some(GraphOptions { rewrite_options: Some(rewrite) }), ..Default::default() };
    let sess = Session::with_options(&g, &SessionOptions { config }).unwrap();
    let xv = Tensor::new(&[1, 4, 4, 2], vec![1f32; 32]).unwrap();
    let (_, md) = sess.run_with_options(&full_trace(), &[(&x, xv)], &[&y], &[]).unwrap();
    let labels: Vec<&str> = md.node_stats().map(|n| n.timeline_label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "conv_bn_weights = Const()",
            "conv_bn_offset = Const()",
            "relu = _FusedConv2D(x, conv_bn_weights, conv_bn_offset)"
        ]
    );
}

#[test]
fn the_peak_leaves_out_constants_so_it_does_not_depend_on_the_thread_count() {
    use tensorgraph::SessionOptions;
    // four products of the fed x [64, 64] with constant weights, summed: whatever order
    // the products run in, the run holds x and the finished products (16 KiB each), at
    // most x and three products or the four products: 64 KiB. An inter-op schedule runs
    // every Const first; their 64 KiB of weights belong to the graph and are not counted
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [64, 64]).unwrap();
    let products: Vec<Output> = (0..4)
        .map(|i| {
            let w = Tensor::new(&[64, 64], (0..4096).map(|j| ((i * 4096 + j) % 7) as f32 - 3.0).collect()).unwrap();
            let w = ops::constant(&s.named(&format!("w{i}")), w).unwrap();
            ops::matmul(&s, &x, &w).unwrap()
        })
        .collect();
    let y = ops::add_n(&s, &products).unwrap();
    let xv = Tensor::new(&[64, 64], (0..4096).map(|j| (j % 5) as f32).collect()).unwrap();
    for threads in [1, 2, 4] {
        let sess = Session::with_options(&g, &SessionOptions::with_threads(threads).unwrap()).unwrap();
        let (_, md) = sess.run_with_options(&full_trace(), &[(&x, xv.clone())], &[&y], &[]).unwrap();
        assert_eq!(md.peak_bytes(), 4 * 64 * 64 * 4, "{threads} threads");
    }
}

#[test]
fn a_conds_switches_run_before_its_branch_so_the_branch_can_write_in_place() {
    // h = x @ w (16 KiB) read by both branches of a tf.cond, each through a Switch of its
    // own; the false branch (pred fed false) is relu(h). Both Switches run first (the one
    // for the true branch drops h), so relu holds h alone and writes over it: the run never
    // holds more than h. Run in the plan's order, the false branch's Switch and relu
    // came before the true branch's Switch, which still held h: twice h.
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [64, 64]).unwrap();
    let pred = ops::placeholder(&s.named("pred"), DType::Bool, [0usize; 0]).unwrap();
    let w = Tensor::new(&[64, 64], (0..4096).map(|j| (j % 7) as f32 - 3.0).collect()).unwrap();
    let h = ops::matmul(&s, &x, &ops::constant(&s.named("w"), w).unwrap()).unwrap();
    let out = ops::cond(&s, &pred, |s| Ok(vec![ops::tanh(s, &h)?]), |s| Ok(vec![ops::relu(s, &h)?])).unwrap();
    let xv = Tensor::new(&[64, 64], (0..4096).map(|j| (j % 5) as f32 - 2.0).collect()).unwrap();
    let sess = Session::new(&g).unwrap();
    let feeds = [(&x, xv), (&pred, Tensor::scalar(false))];
    let (values, md) = sess.run_with_options(&full_trace(), &feeds, &[&out[0]], &[]).unwrap();
    // h, and the fed pred's one byte (the Switches hold it until the last one has run)
    assert_eq!(md.peak_bytes(), 64 * 64 * 4 + 1);
    let relu = sess.run(&feeds, &[&ops::relu(&s, &h).unwrap()], &[]).unwrap();
    assert_eq!(values[0], relu[0]);
}
