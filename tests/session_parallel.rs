//! Inter-op parallelism (`inter_op_parallelism_threads`): independent ops of one run
//! execute at once. Results with 1 and N inter-op threads are bitwise equal (each op
//! computes the same thing whichever thread runs it); 16 threads calling `run` on one
//! session agree with serial runs and update a counter exactly once per call; a failing
//! op in one branch stops the run with its error while another branch is busy, and
//! nothing of the run keeps going after `run` returns; the traced intervals of parallel
//! branches overlap; loops, conds and TensorArrays agree with one thread.
//!
//! The real models (`scripts/gen_models.py`'s set) need `TENSORGRAPH_MODELS` (see
//! `cli/tests/real_models.rs`): `cargo test --release --test session_parallel -- --ignored`.

use std::path::PathBuf;
use tensorgraph::format::proto::{ConfigProto, RunOptions, TraceLevel};
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::models::layers::BatchNormalization;
use tensorgraph::models::{Cnn, CnnConfig, Mlp, MlpConfig};
use tensorgraph::ops::{self, WhileOptions};
use tensorgraph::{Code, DType, Graph, Operation, Output, Session, SessionOptions, Shape, Tensor};

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104_729) % 2003) as f32 / 1001.5 - 1.0).collect()
}

/// A session with `intra` intra-op and `inter` inter-op threads.
fn session(g: &Graph, intra: i32, inter: i32) -> Session {
    let config =
        ConfigProto { intra_op_parallelism_threads: intra, inter_op_parallelism_threads: inter, ..Default::default() };
    // the graph optimiser off: it would fold the constant chains into constants
    let s = Session::with_options(g, &SessionOptions { config }.without_graph_optimization()).unwrap();
    if inter != 0 {
        assert_eq!(s.inter_op_threads(), inter.max(1) as usize);
    }
    s
}

/// `n` chains of `len` [dim, dim] matmuls from one constant, each ending in a sum; their
/// ends.
fn chains(g: &Graph, n: usize, len: usize, dim: usize) -> Vec<Output> {
    let r = g.scope();
    let x = ops::constant(&r.named("x"), Tensor::new(&[dim, dim], values(dim * dim, 1)).unwrap()).unwrap();
    (0..n)
        .map(|c| {
            let s = r.sub(&format!("chain{c}"));
            let w = ops::constant(&s.named("w"), Tensor::new(&[dim, dim], values(dim * dim, c + 2)).unwrap()).unwrap();
            let scale = ops::constant(&s.named("scale"), Tensor::scalar(1.0 / dim as f32)).unwrap();
            let mut h = x.clone();
            for _ in 0..len {
                h = ops::mul(&s, &ops::matmul(&s, &h, &w).unwrap(), &scale).unwrap();
            }
            ops::reduce_sum(&s, &h, None, false).unwrap()
        })
        .collect()
}

/// Three Adam steps of a conv net with batch norm, then its probabilities and a kernel.
fn cnn_run(intra: i32, inter: i32) -> Vec<Tensor> {
    let g = Graph::new();
    let cfg = CnnConfig {
        input: [12, 12, 3],
        filters: vec![8, 16],
        classes: 10,
        learning_rate: Some(0.01),
        batch_norm: BatchNormalization { momentum: 0.9, epsilon: 0.001 },
        seed: Some(3),
    };
    let m = Cnn::build(&g, &cfg).unwrap();
    let sess = session(&g, intra, inter);
    sess.run_targets(&[&m.init]).unwrap();
    let n = 16;
    let x = Tensor::new(&[n, 12, 12, 3], values(n * 12 * 12 * 3, 1)).unwrap();
    let y =
        Tensor::new(&[n, 10], (0..n * 10).map(|i| if i % 10 == (i / 10) % 10 { 1.0 } else { 0.0 }).collect()).unwrap();
    let feeds = [(&m.x, x.clone()), (m.y.as_ref().unwrap(), y), (&m.training, Tensor::scalar(true))];
    for _ in 0..3 {
        sess.run(&feeds, &[], &[m.train.as_ref().unwrap()]).unwrap();
    }
    let kernel = g.operation_by_name("conv1/kernel").unwrap();
    vec![sess.fetch(&[(&m.x, x)], &m.probs).unwrap(), sess.variable_value(&kernel).unwrap()]
}

/// Three Adam steps of the benchmark's 784-256-256-10 MLP on a batch of 64, then its
/// logits and first weights.
fn mlp_run(intra: i32, inter: i32) -> Vec<Tensor> {
    let g = Graph::new();
    let cfg =
        MlpConfig { features: 784, hidden: vec![256, 256], classes: 10, learning_rate: Some(0.001), seed: Some(1) };
    let m = Mlp::build(&g, &cfg).unwrap();
    let sess = session(&g, intra, inter);
    sess.run_targets(&[&m.init]).unwrap();
    let x = Tensor::new(&[64, 784], values(64 * 784, 2)).unwrap();
    let y =
        Tensor::new(&[64, 10], (0..640).map(|i| if i % 10 == (i / 10) % 10 { 1.0 } else { 0.0 }).collect()).unwrap();
    for _ in 0..3 {
        sess.run(&[(&m.x, x.clone()), (m.y.as_ref().unwrap(), y.clone())], &[], &[m.train.as_ref().unwrap()]).unwrap();
    }
    let weights = g.operation_by_name("layer1/weights").unwrap();
    vec![sess.fetch(&[(&m.x, x)], &m.logits).unwrap(), sess.variable_value(&weights).unwrap()]
}

#[test]
fn the_mlp_adam_step_and_a_conv_net_are_bitwise_equal_on_1_and_4_inter_op_threads() {
    for run in [mlp_run as fn(i32, i32) -> Vec<Tensor>, cnn_run] {
        let want = run(1, 1);
        for (intra, inter) in [(1, 4), (2, 4), (2, 0)] {
            assert_eq!(run(intra, inter), want, "{intra} intra-op, {inter} inter-op threads");
        }
    }
}

/// `$TENSORGRAPH_MODELS`, the generated real-model set.
fn models() -> PathBuf {
    PathBuf::from(
        std::env::var_os("TENSORGRAPH_MODELS")
            .expect("set TENSORGRAPH_MODELS to a folder written by scripts/gen_models.py (interop/run.sh does)"),
    )
}

/// The string value of `"key": "value"` in a manifest's JSON.
fn manifest_name(json: &str, key: &str) -> String {
    let at = json.find(&format!("\"{key}\"")).unwrap() + key.len() + 2;
    let rest = &json[at..];
    let start = rest.find('"').unwrap() + 1;
    rest[start..start + rest[start..].find('"').unwrap()].to_string()
}

#[test]
#[ignore = "needs the generated model set: TENSORGRAPH_MODELS (interop/run.sh)"]
fn real_models_are_bitwise_equal_on_1_and_4_inter_op_threads() {
    for name in ["mobilenet_v2", "resnet50", "lstm_lm", "cnn_cond", "transformer"] {
        let dir = models().join(name);
        let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
        let g = Graph::new();
        g.import_graph_def(
            &read_graph_def_any(dir.join("frozen.pb")).unwrap(),
            &ImportGraphDefOptions::new().prefix(""),
        )
        .unwrap();
        let x = g.tensor_by_name(&manifest_name(&manifest, "input")).unwrap();
        let y = g.tensor_by_name(&manifest_name(&manifest, "output")).unwrap();
        let input = Tensor::read_npy(dir.join("input_b8.npy")).unwrap();
        let want = session(&g, 2, 1).fetch(&[(&x, input.clone())], &y).unwrap();
        for (intra, inter) in [(1, 4), (2, 4)] {
            let got = session(&g, intra, inter).fetch(&[(&x, input.clone())], &y).unwrap();
            assert_eq!(got, want, "{name}: {intra} intra-op, {inter} inter-op threads");
        }
    }
}

#[test]
fn sixteen_threads_calling_run_on_one_session_agree_with_serial_runs_and_count_once_per_call() {
    let g = Graph::new();
    let ends = chains(&g, 4, 3, 64);
    let r = g.scope();
    let counter = r.variable_from_value("counter", Tensor::scalar(0i64)).unwrap();
    let one = ops::constant(&r.named("one"), Tensor::scalar(1i64)).unwrap();
    let count = counter.assign_add(&r.named("count"), &one).unwrap();
    let init = g.operation_by_name("counter/Assign").unwrap();
    let fetches: Vec<&Output> = ends.iter().collect();
    let want = session(&g, 1, 1).run(&[], &fetches, &[]).unwrap();
    let sess = session(&g, 2, 4);
    sess.run_targets(&[&init]).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..16 {
            let (sess, fetches, want, count) = (&sess, &fetches, &want, &count);
            scope.spawn(move || {
                for _ in 0..5 {
                    // the chains and the counter's update in one run
                    let got = sess.run(&[], fetches, &[&count.op()]).unwrap();
                    assert_eq!(&got, want);
                }
            });
        }
    });
    assert_eq!(sess.variable_value(counter.op()).unwrap(), Tensor::scalar(80i64));
}

#[test]
fn a_failing_branch_stops_the_run_with_its_error_while_another_branch_is_busy() {
    let g = Graph::new();
    let r = g.scope();
    // a long chain of products, then a counter's update
    let slow = chains(&g, 1, 400, 128).remove(0);
    let counter = r.variable_from_value("counter", Tensor::scalar(0f32)).unwrap();
    // the chain's sum underflows to 0: add 1 so that a completed update shows
    let one = ops::constant(&r.named("one"), Tensor::scalar(1f32)).unwrap();
    let update = counter.assign_add(&r.named("count"), &ops::add(&r, &slow, &one).unwrap()).unwrap();
    let init = g.operation_by_name("counter/Assign").unwrap();
    // a short branch: one product, then an Assert that fails on it
    let p = ops::placeholder(&r.named("p"), DType::Float, [128, 128]).unwrap();
    let q = ops::matmul(&r.named("q"), &p, &p).unwrap();
    let total = ops::reduce_sum(&r.named("total"), &q, None, false).unwrap();
    let limit = ops::constant(&r.named("limit"), Tensor::scalar(-1f32)).unwrap();
    let ok = ops::less(&r.named("ok"), &total, &limit).unwrap();
    let check = ops::assert_op(&r.named("check"), &ok, std::slice::from_ref(&total), 3).unwrap();
    let sess = session(&g, 1, 2);
    sess.run_targets(&[&init]).unwrap();
    let feed = Tensor::new(&[128, 128], vec![1f32; 128 * 128]).unwrap();
    let targets: [&Operation; 2] = [&update.op(), &check];
    let e = sess.run(&[(&p, feed.clone())], &[], &targets).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.to_string().contains("assertion failed") || e.to_string().contains("check"), "{e}");
    // the chain was stopped: its update never ran, and nothing runs on after `run` returned
    let after = sess.variable_value(counter.op()).unwrap();
    assert_eq!(after, Tensor::scalar(0f32));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(sess.variable_value(counter.op()).unwrap(), after);
    // the same session runs on: the chain alone completes once
    sess.run(&[], &[], &[&update.op()]).unwrap();
    assert_ne!(sess.variable_value(counter.op()).unwrap(), Tensor::scalar(0f32));
}

/// (node name, start ns, end ns, thread id) of each node of a traced run of `fetches`.
fn traced(sess: &Session, fetches: &[&Output]) -> Vec<(String, i64, i64, u32)> {
    let options = RunOptions { trace_level: TraceLevel::FullTrace as i32, timeout_in_ms: 0 };
    let (_, md) = sess.run_with_options(&options, &[], fetches, &[]).unwrap();
    let dev = &md.step_stats.unwrap().dev_stats[0];
    dev.node_stats
        .iter()
        .map(|n| (n.node_name.clone(), n.all_start_nanos, n.all_start_nanos + n.op_end_rel_nanos, n.thread_id))
        .collect()
}

/// True when a MatMul of one chain ran while a MatMul of another chain was running.
fn chains_overlap(nodes: &[(String, i64, i64, u32)]) -> bool {
    let mm: Vec<_> = nodes.iter().filter(|n| n.0.contains("MatMul")).collect();
    let chain = |name: &str| name.split('/').next().unwrap().to_string();
    mm.iter().any(|a| mm.iter().any(|b| chain(&a.0) != chain(&b.0) && a.1 < b.2 && b.1 < a.2))
}

#[test]
fn the_branches_of_a_wide_graph_overlap_and_every_node_is_traced() {
    let g = Graph::new();
    let ends = chains(&g, 4, 6, 192);
    let fetches: Vec<&Output> = ends.iter().collect();
    let serial = traced(&session(&g, 1, 1), &fetches);
    // at least the constant x, and per chain w, scale, 6 MatMul, 6 Mul and the Sum
    let nodes_run = serial.len();
    assert!(nodes_run > 4 * 15, "{serial:?}");
    assert!(!chains_overlap(&serial), "one inter-op thread runs one op at a time");
    assert_eq!(serial.iter().map(|n| n.3).collect::<std::collections::HashSet<_>>().len(), 1);
    let sess = session(&g, 1, 4);
    // the scheduler cannot make another thread run when the machine gives it no core, so
    // the overlap is asked of any of 10 runs, every node being traced once in each
    let runs: Vec<_> = (0..10).map(|_| traced(&sess, &fetches)).collect();
    for parallel in &runs {
        assert_eq!(parallel.len(), nodes_run);
        let mut names: Vec<&str> = parallel.iter().map(|n| n.0.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), nodes_run, "each node recorded once");
    }
    assert!(runs.iter().any(|p| chains_overlap(p)), "no two chains overlapped in 10 runs: {:?}", runs[0]);
    let threads =
        |p: &Vec<(String, i64, i64, u32)>| p.iter().map(|n| n.3).collect::<std::collections::HashSet<_>>().len();
    assert!(runs.iter().any(|p| threads(p) > 1));
    // and the values are the serial ones
    assert_eq!(sess.run(&[], &fetches, &[]).unwrap(), session(&g, 1, 1).run(&[], &fetches, &[]).unwrap());
}

#[test]
fn a_loop_with_a_tensor_array_and_a_cond_agrees_with_one_inter_op_thread() {
    let g = Graph::new();
    let r = g.scope();
    let x0 = ops::constant(&r.named("x0"), Tensor::new(&[64, 64], values(64 * 64, 3)).unwrap()).unwrap();
    let w = ops::constant(&r.named("w"), Tensor::new(&[64, 64], values(64 * 64, 4)).unwrap()).unwrap();
    let i0 = ops::constant(&r.named("i0"), Tensor::scalar(0i32)).unwrap();
    let n = ops::constant(&r.named("n"), Tensor::scalar(12i32)).unwrap();
    let size = ops::constant(&r.named("size"), Tensor::scalar(12i32)).unwrap();
    let (ta, flow) = ops::tensor_array_v3(&r.named("ta"), &size, DType::Float, &Default::default()).unwrap();
    let out = ops::while_loop(
        &r,
        |s, v| ops::less(s, &v[0], &n),
        |s, v| {
            let h = ops::tanh(s, &ops::matmul(s, &v[1], &w)?)?;
            let side = ops::sigmoid(s, &ops::matmul(s, &v[1], &h)?)?;
            let sum = ops::reduce_sum(s, &side, None, false)?;
            let zero = ops::constant(&s.named("zero"), Tensor::scalar(0f32))?;
            let big = ops::greater(s, &sum, &zero)?;
            let picked =
                ops::cond(s, &big, |s| Ok(vec![ops::add(s, &h, &side)?]), |s| Ok(vec![ops::sub(s, &h, &side)?]))?
                    .remove(0);
            let flow = ops::tensor_array_write_v3(s, &ta, &v[0], &ops::reduce_sum(s, &picked, None, false)?, &v[2])?;
            let one = ops::constant(&s.named("one"), Tensor::scalar(1i32))?;
            Ok(vec![ops::add(s, &v[0], &one)?, picked, flow])
        },
        &[i0, x0, flow],
        &WhileOptions::default(),
    )
    .unwrap();
    let indices =
        ops::constant(&r.named("indices"), Tensor::new(&[12], (0..12).collect::<Vec<i32>>()).unwrap()).unwrap();
    let all = ops::tensor_array_gather_v3(&r, &ta, &indices, &out[2], DType::Float, &Shape::scalar()).unwrap();
    let fetches = [&out[1], &all];
    let want = session(&g, 1, 1).run(&[], &fetches, &[]).unwrap();
    assert_eq!(want[1].shape(), &[12]);
    for (intra, inter) in [(1, 4), (2, 4)] {
        let sess = session(&g, intra, inter);
        for _ in 0..5 {
            assert_eq!(sess.run(&[], &fetches, &[]).unwrap(), want, "{intra} intra-op, {inter} inter-op threads");
        }
    }
}

/// Three gradient-descent steps of an RNN (`h = tanh(x_t Wx + h Wh)` over 6 steps read from
/// a TensorArray, a while loop) on a session with `inter` inter-op threads, run `repeats`
/// times from the initial values: each repeat's loss and weights, and the threads that ran
/// the traced nodes. The loop's gradient pops the stacks its forward loop pushed.
fn rnn_training(inter: i32, repeats: usize) -> (Vec<Vec<Tensor>>, std::collections::BTreeSet<u32>) {
    use tensorgraph::train::{GradientDescentOptimizer, Optimizer};
    let g = Graph::new();
    let r = g.scope();
    let (steps, batch, features, hidden) = (6usize, 8usize, 12usize, 16usize);
    let xs = Tensor::new(&[steps, batch, features], values(steps * batch * features, 5)).unwrap();
    let xs = ops::constant(&r.named("xs"), xs).unwrap();
    let wx = r.variable_from_value("wx", Tensor::new(&[features, hidden], values(features * hidden, 6)).unwrap());
    let wh = r.variable_from_value("wh", Tensor::new(&[hidden, hidden], values(hidden * hidden, 7)).unwrap());
    let (wx, wh) = (wx.unwrap(), wh.unwrap());
    let size = ops::constant(&r.named("size"), Tensor::scalar(steps as i32)).unwrap();
    let idx = ops::constant(&r.named("idx"), Tensor::new(&[steps], (0..steps as i32).collect::<Vec<_>>()).unwrap());
    let o = Default::default();
    let (xin, flow) = ops::tensor_array_v3(&r.named("xin"), &size, DType::Float, &o).unwrap();
    let flow = ops::tensor_array_scatter_v3(&r, &xin, &idx.unwrap(), &xs, &flow).unwrap();
    let i0 = ops::constant(&r.named("i0"), Tensor::scalar(0i32)).unwrap();
    let h0 = ops::constant(&r.named("h0"), Tensor::zeros(DType::Float, &[batch, hidden])).unwrap();
    let (wxr, whr) = (wx.value().clone(), wh.value().clone());
    let out = ops::while_loop(
        &r,
        |s, v| ops::less(s, &v[0], &size),
        |s, v| {
            let x = ops::tensor_array_read_v3(s, &xin, &v[0], &flow, DType::Float)?;
            let x = ops::reshape(s, &x, &ops::constant(s, Tensor::vector(vec![batch as i32, features as i32]))?)?;
            let h = ops::tanh(s, &ops::add(s, &ops::matmul(s, &x, &wxr)?, &ops::matmul(s, &v[1], &whr)?)?)?;
            let one = ops::constant(s, Tensor::scalar(1i32))?;
            Ok(vec![ops::add(s, &v[0], &one)?, h])
        },
        &[i0, h0],
        &WhileOptions::default(),
    )
    .unwrap();
    let loss = ops::reduce_sum(&r, &ops::mul(&r, &out[1], &out[1]).unwrap(), None, false).unwrap();
    let train = GradientDescentOptimizer::new(0.01).minimize(&loss).unwrap();
    let init = r.global_variables_initializer().unwrap();
    let sess = session(&g, 1, inter);
    let options = RunOptions { trace_level: TraceLevel::FullTrace as i32, timeout_in_ms: 0 };
    let mut threads = std::collections::BTreeSet::new();
    let mut results = Vec::new();
    for _ in 0..repeats {
        sess.run_targets(&[&init]).unwrap();
        for _ in 0..3 {
            let (_, meta) = sess.run_with_options(&options, &[], &[], &[&train]).unwrap();
            for dev in &meta.step_stats.unwrap_or_default().dev_stats {
                threads.extend(dev.node_stats.iter().map(|n| n.thread_id));
            }
        }
        let mut got = sess.run(&[], &[&loss], &[]).unwrap();
        got.push(sess.variable_value(wx.op()).unwrap());
        got.push(sess.variable_value(wh.op()).unwrap());
        results.push(got);
    }
    (results, threads)
}

#[test]
fn an_rnn_training_step_through_a_loop_gradient_is_bitwise_equal_on_1_and_4_inter_op_threads() {
    // the gradient loop pops in the order the forward loop pushed, whatever the schedule:
    // the stacks are ordered by control edges, so the plan is not kept serial
    let (serial, one) = rnn_training(1, 1);
    assert_eq!(one.len(), 1, "one inter-op thread ran on {one:?}");
    assert!(serial[0][0].as_slice::<f32>().unwrap()[0] > 0.0);
    let (parallel, threads) = rnn_training(4, 20);
    for (i, got) in parallel.iter().enumerate() {
        assert_eq!(got, &serial[0], "repeat {i} on 4 inter-op threads");
    }
    assert!(threads.len() > 1, "the loop gradient's plan ran on one thread only: {threads:?}");
}
