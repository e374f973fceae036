//! The sampling, CTC and small math ops real TensorFlow models use, against TensorFlow
//! 2.21: graphs TensorFlow built (`tests/data/ops_nn7/*.pbtxt`, by
//! `scripts/gen_ops_nn7.py`) import and run to TensorFlow's values, the nodes TensorFlow's
//! kernels refuse fail here with its code and message, the shape functions refuse the
//! same static cases, and every gradient added matches finite differences.
//!
//! Sampling (`sampling.pbtxt`): Multinomial, RandomShuffle, UniformCandidateSampler and
//! LogUniformCandidateSampler with fixed seeds give TensorFlow's exact ids and orders (the
//! same Philox stream), and the expected counts TensorFlow computes;
//! `losses.pbtxt` is `tf.nn.sampled_softmax_loss` and `tf.nn.nce_loss` with
//! `remove_accidental_hits` and TensorFlow's gradients of them.

mod common;
use tensorgraph::ops;
use tensorgraph::{Code, DType, Graph, Output, Session, Tensor};

const DIR: &str = "ops_nn7";

/// Imports `<name>.pbtxt` and fetches every output `<name>.json` lists in one run (a
/// stateful random op runs once per run, as in TensorFlow's `session.run(outs)`), then
/// compares each with TensorFlow's: shape, dtype, values (exact for integers and bools,
/// rel 1e-5 for floats, 1e-3 for half).
fn runs_together_to_tensorflows_values(name: &str, at_least: usize) {
    let exp = common::tf_json(DIR, name);
    let outs = exp["outputs"].as_object().unwrap();
    assert!(outs.len() >= at_least, "the json lists every output");
    let g = common::tf_imported(DIR, name);
    let sess = Session::new(&g).unwrap();
    let keys: Vec<&String> = outs.keys().collect();
    let ts: Vec<Output> = keys
        .iter()
        .map(|k| g.tensor_by_name(&format!("import/{}", outs[*k]["tensor"].as_str().unwrap())).unwrap())
        .collect();
    let fetches: Vec<&Output> = ts.iter().collect();
    let rs = sess.run(&[], &fetches, &[]).unwrap();
    for (key, r) in keys.iter().zip(rs) {
        let want = &outs[*key];
        let shape: Vec<usize> =
            want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(r.shape(), shape.as_slice(), "{key}: shape");
        assert_eq!(r.dtype().name(), want["dtype"].as_str().unwrap(), "{key}: dtype");
        let exact = !matches!(r.dtype(), DType::Float | DType::Double | DType::Half);
        for (i, (g, w)) in r.to_f64_vec().unwrap().iter().zip(want["values"].as_array().unwrap()).enumerate() {
            let w = w.as_f64().unwrap();
            if exact {
                assert_eq!(*g, w, "{key}[{i}]");
            } else {
                let tol = if r.dtype() == DType::Half { 1e-3 } else { 1e-5 };
                assert!((g - w).abs() <= tol * w.abs().max(1.0), "{key}[{i}]: got {g}, TensorFlow {w}");
            }
        }
    }
}

#[test]
fn sampling_graph_runs_to_tensorflows_ids_and_counts() {
    runs_together_to_tensorflows_values("sampling", 47);
}

/// Multinomial of a vector, a negative count, no classes; a candidate sampler asked for
/// more distinct ids than its range, a true class out of range, the wrong column count.
#[test]
fn sampling_kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    common::refuses_as_tensorflow(DIR, "sampling", 7, |_, m| m.to_string());
}

#[test]
fn sampled_softmax_and_nce_losses_and_gradients_are_tensorflows() {
    runs_together_to_tensorflows_values("losses", 8);
}

fn build_error(name: &str, key: &str) -> String {
    let exp = common::tf_json(DIR, name);
    let m = exp["build_errors"][key].as_str().unwrap_or_else(|| panic!("{key}: no TensorFlow error"));
    m.split(" for '{{node").next().unwrap().to_string()
}

#[test]
fn sampling_shape_functions_refuse_what_tensorflows_refuse() {
    let g = Graph::new();
    let s = g.scope();
    let v = ops::constant(&s, Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap()).unwrap();
    let e = ops::multinomial(&s, &v, 3, DType::Int64, Some(1)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    let want = build_error("sampling", "multinomial_rank");
    assert!(e.message.contains(&want), "got {:?}, TensorFlow {want:?}", e.message);
    let c = ops::constant(&s, Tensor::new(&[2], vec![1i64, 2]).unwrap()).unwrap();
    let e = ops::uniform_candidate_sampler(&s, &c, 1, 3, true, 5, None).unwrap_err();
    let want = build_error("sampling", "sampler_rank");
    assert!(e.message.contains(&want), "got {:?}, TensorFlow {want:?}", e.message);
}

/// The builders make what TensorFlow's functions make: `tf.random.categorical(logits, 7,
/// seed=11)` (op seed under the default graph seed) draws TensorFlow's ids; a second run
/// draws new ones and a new session repeats the first; a shuffle is a permutation,
/// the same for the same seed.
#[test]
fn builders_draw_tensorflows_stream() {
    let exp = common::tf_json(DIR, "sampling");
    let want = |k: &str| common::flat_f64(&exp["outputs"][k]["values"]);
    let logits = tensorgraph::Graph::new();
    let s = logits.scope();
    // the logits TensorFlow's generator used: np.random.RandomState(21).uniform(-2, 2, [3, 5])
    let g = common::tf_imported(DIR, "sampling");
    let l = g.tensor_by_name("import/Const:0").unwrap();
    let lv = Session::new(&g).unwrap().run(&[], &[&l], &[]).unwrap().remove(0);
    assert_eq!(lv.shape(), &[3, 5]);
    let x = ops::constant(&s, lv).unwrap();
    let m = ops::multinomial(&s, &x, 7, DType::Int64, Some(11)).unwrap();
    let v: Vec<f64> = (0..10).map(|i| i as f64).collect();
    let vt = ops::constant(&s, Tensor::new(&[10], v.clone()).unwrap()).unwrap();
    let sh = ops::random_shuffle(&s, &vt, Some(5)).unwrap();
    let sh2 = ops::random_shuffle(&s, &vt, Some(5)).unwrap();
    let sess = Session::new(&logits).unwrap();
    let r = sess.run(&[], &[&m, &sh, &sh2], &[]).unwrap();
    assert_eq!(r[0].to_f64_vec().unwrap(), want("multinomial_float32"));
    let mut p = r[1].to_f64_vec().unwrap();
    assert_eq!(p, r[2].to_f64_vec().unwrap(), "one seed, one order");
    assert_ne!(p, v, "shuffled");
    p.sort_by(f64::total_cmp);
    assert_eq!(p, v, "a permutation");
    let again = sess.run(&[], &[&m], &[]).unwrap();
    assert_ne!(again[0].to_f64_vec().unwrap(), want("multinomial_float32"), "a second run draws anew");
    let fresh = Session::new(&logits).unwrap().run(&[], &[&m], &[]).unwrap();
    assert_eq!(fresh[0].to_f64_vec().unwrap(), want("multinomial_float32"), "a new session repeats");
    let c = ops::constant(&s, Tensor::new(&[3, 2], vec![0i64, 3, 7, 1, 2, 2]).unwrap()).unwrap();
    let op = ops::log_uniform_candidate_sampler(&s, &c, 2, 8, true, 20, Some(50)).unwrap();
    let outs: Vec<Output> = (0..3).map(|i| op.output(i).unwrap()).collect();
    let r = Session::new(&logits).unwrap().run(&[], &[&outs[0], &outs[1], &outs[2]], &[]).unwrap();
    assert_eq!(r[0].to_f64_vec().unwrap(), want("log_u20_8_sampled"));
    common::assert_close("true count", &r[1].to_f64_vec().unwrap(), &want("log_u20_8_true_count"));
    common::assert_close("sampled count", &r[2].to_f64_vec().unwrap(), &want("log_u20_8_sampled_count"));
}

#[test]
fn ctc_graph_runs_to_tensorflows_losses_gradients_and_decodings() {
    common::runs_to_tensorflows_values(DIR, "ctc", 69);
}

/// CTCLoss with a label sequence longer than its input, a sequence longer than
/// `max_time`, a batch element without labels, inputs not of rank 3, batch sizes that
/// differ; CTCGreedyDecoder with a blank index out of range and a sequence too long
/// (`FailedPrecondition`, as TensorFlow).
#[test]
fn ctc_kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    common::refuses_as_tensorflow(DIR, "ctc", 7, |_, m| m.to_string());
}

fn c<T: tensorgraph::tensor::Element>(s: &tensorgraph::Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

#[test]
fn ctc_shape_functions_refuse_what_tensorflows_refuse() {
    let g = Graph::new();
    let s = g.scope();
    let (li, lv) = (c(&s, &[1, 2], vec![0i64, 0]), c(&s, &[1], vec![1i32]));
    let x2 = c(&s, &[2, 3], vec![1.0f32; 6]);
    let x3 = c(&s, &[2, 3, 4], vec![1.0f32; 24]);
    let cases = [
        ("ctc_rank", ops::ctc_loss(&s, &x2, &li, &lv, &c(&s, &[1], vec![1i32]), Default::default()).map(|_| ())),
        ("ctc_batch", ops::ctc_loss(&s, &x3, &li, &lv, &c(&s, &[2], vec![1i32, 1]), Default::default()).map(|_| ())),
        ("greedy_rank", ops::ctc_greedy_decoder(&s, &x2, &c(&s, &[1], vec![1i32]), false, -1).map(|_| ())),
    ];
    for (key, r) in cases {
        let e = r.err().unwrap_or_else(|| panic!("{key}: built"));
        assert_eq!(e.code, Code::InvalidArgument, "{key}: {e}");
        let want = build_error("ctc", key);
        assert!(e.message.contains(&want), "{key}: got {:?}, TensorFlow {want:?}", e.message);
    }
}

/// The loss's gradient (the op's second output, through `_CTCLossGrad`'s
/// `PreventGradient`) against finite differences of the loss, for each flag combination
/// and with a sequence shorter than `max_time`.
#[test]
fn ctc_loss_gradient_matches_finite_differences() {
    for (i, (pre, merge)) in [(false, true), (false, false), (true, true), (true, false)].into_iter().enumerate() {
        common::check_gradients(&[common::one(&[5, 2, 4], 70 + i as u64, -2.0, 2.0)], 1e-5, |s, x| {
            let li = c(s, &[5, 2], vec![0i64, 0, 0, 1, 0, 2, 1, 0, 1, 1]);
            let lv = c(s, &[5], vec![1i32, 1, 2, 0, 2]);
            let sl = c(s, &[2], vec![5i32, 3]);
            let opts = ops::CtcLossOptions {
                preprocess_collapse_repeated: pre,
                ctc_merge_repeated: merge,
                ..Default::default()
            };
            let op = ops::ctc_loss(s, &x[0], &li, &lv, &sl, opts).unwrap();
            common::weighted(s, &op.output(0).unwrap(), &[2], 90 + i as u64)
        });
    }
}

/// A second derivative through CTCLoss fails, as TensorFlow's `PreventGradient` makes it.
#[test]
fn ctc_loss_second_derivative_is_refused() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Double, vec![3, 1, 3]).unwrap();
    let op = ops::ctc_loss(
        &s,
        &x,
        &c(&s, &[1, 2], vec![0i64, 0]),
        &c(&s, &[1], vec![1i32]),
        &c(&s, &[1], vec![3i32]),
        Default::default(),
    )
    .unwrap();
    let dx = tensorgraph::train::gradients(&[op.output(0).unwrap()], std::slice::from_ref(&x), None)
        .unwrap()
        .remove(0)
        .unwrap();
    let e = tensorgraph::train::gradients(&[dx], &[x], None).unwrap_err();
    assert!(e.message.contains("second"), "{e}");
}

#[test]
fn math_graph_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "math", 97);
}

/// CumulativeLogsumexp's axis out of range, TensorScatterMax's index out of range,
/// Cross of two shapes and of 4-vectors (`FailedPrecondition`), Bitcast to a wider type
/// with the wrong last dimension and of a scalar.
#[test]
fn math_kernels_refuse_what_tensorflows_refuse_with_its_messages() {
    common::refuses_as_tensorflow(DIR, "math", 6, |_, m| m.to_string());
}

#[test]
fn math_shape_functions_refuse_what_tensorflows_refuse() {
    let g = Graph::new();
    let s = g.scope();
    let u8s = c(&s, &[2, 3], vec![1u8; 6]);
    let cases = [
        ("cross_dim", ops::cross(&s, &c(&s, &[2, 4], vec![1.0f32; 8]), &c(&s, &[2, 4], vec![1.0f32; 8]))),
        ("cross_shape", ops::cross(&s, &c(&s, &[2, 3], vec![1.0f32; 6]), &c(&s, &[1, 3], vec![1.0f32; 3]))),
        ("bitcast_last_dim", ops::bitcast(&s, &u8s, DType::Float)),
        ("bitcast_scalar_wide", ops::bitcast(&s, &c(&s, &[], vec![3u8]), DType::Int16)),
    ];
    for (key, r) in cases {
        let e = r.err().unwrap_or_else(|| panic!("{key}: built"));
        assert_eq!(e.code, Code::InvalidArgument, "{key}: {e}");
        let want = build_error("math", key);
        assert!(e.message.contains(&want), "{key}: got {:?}, TensorFlow {want:?}", e.message);
    }
    assert!(build_error("math", "bitcast_bool").contains("not in list of allowed values"));
    assert!(ops::bitcast(&s, &c(&s, &[1], vec![true]), DType::UInt8).is_err(), "Bitcast takes no bool");
    assert!(build_error("math", "cumlse_int").contains("not in list of allowed values"));
    assert!(ops::cumulative_logsumexp(&s, &c(&s, &[2], vec![1i32, 2]), 0, false, false).is_err());
    // TensorFlow's shape function leaves the axis to the kernel
    assert!(common::tf_json(DIR, "math")["build_errors"]["cumlse_axis"].is_null());
    ops::cumulative_logsumexp(&s, &c(&s, &[2], vec![1.0f32, 2.0]), 1, false, false).unwrap();
}

#[test]
fn cumulative_logsumexp_gradient_matches_finite_differences() {
    for (i, (axis, ex, rev)) in
        [(1, false, false), (1, true, false), (0, false, true), (-1, true, true)].into_iter().enumerate()
    {
        common::check_gradients(&[common::one(&[3, 4], 100 + i as u64, -2.0, 2.0)], 1e-6, |s, x| {
            // exp: an exclusive scan starts at -inf, which a weighted sum cannot hold
            let y = ops::exp(s, &ops::cumulative_logsumexp(s, &x[0], axis, ex, rev).unwrap()).unwrap();
            common::weighted(s, &y, &[3, 4], 110 + i as u64)
        });
    }
}

#[test]
fn cross_gradient_matches_finite_differences() {
    common::check_gradients(
        &[common::one(&[2, 2, 3], 120, -2.0, 2.0), common::one(&[2, 2, 3], 121, -2.0, 2.0)],
        1e-6,
        |s, x| {
            let y = ops::cross(s, &x[0], &x[1]).unwrap();
            common::weighted(s, &y, &[2, 2, 3], 122)
        },
    );
}

/// TensorScatterMax/Min's gradient (no ties among the values checked: the finite
/// differences of a max are one-sided at a tie).
#[test]
fn tensor_scatter_max_min_gradients_match_finite_differences() {
    use tensorgraph::ops::array::tensor_scatter::Kind;
    for (i, kind) in [Kind::Max, Kind::Min].into_iter().enumerate() {
        common::check_gradients(
            &[common::one(&[4, 3], 130 + i as u64, -2.0, 2.0), common::one(&[2, 3], 140 + i as u64, -2.0, 2.0)],
            1e-6,
            |s, x| {
                let idx = c(s, &[2, 1], vec![2i32, 0]);
                let y = ops::tensor_scatter(s, kind, &x[0], &idx, &x[1]).unwrap();
                common::weighted(s, &y, &[4, 3], 150 + i as u64)
            },
        );
    }
}
