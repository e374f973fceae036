//! The last ops and dtypes a new-user pass found refused, against TensorFlow 2.21 (graphs
//! and values by `scripts/gen_ops_nn9.py` under `tests/data/ops_nn9/`): the set ops
//! DenseToDenseSetOperation, DenseToSparseSetOperation and SetSize (`tf.sets`,
//! `tf.compat.v1.metrics.recall_at_k`), Sign/Abs/Neg on int8 and int16, and Substr with
//! pos/len broadcast against its input. Every output equals TensorFlow's (exact integers
//! and strings, rel 1e-5 for floats), the nodes TensorFlow's kernels refuse fail here with
//! its code and message, and the shape functions refuse the same static cases.

mod common;
use tensorgraph::ops;
use tensorgraph::{Code, Graph, Output, Scope, Session, Tensor};

const DIR: &str = "ops_nn9";

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

/// The part of a TensorFlow shape-function error before ` for '{{node ...`.
fn build_error(name: &str, key: &str) -> String {
    let exp = common::tf_json(DIR, name);
    let m = exp["build_errors"][key].as_str().unwrap_or_else(|| panic!("{key}: no TensorFlow error"));
    m.split(" for '{{node").next().unwrap().to_string()
}

fn assert_build_error<T: std::fmt::Debug>(name: &str, key: &str, r: tensorgraph::Result<T>) {
    let e = r.err().unwrap_or_else(|| panic!("{key}: built"));
    assert_eq!(e.code, Code::InvalidArgument, "{key}: {e}");
    let want = build_error(name, key);
    assert!(e.message.contains(&want), "{key}: got {:?}, TensorFlow {want:?}", e.message);
}

/// DenseToDenseSetOperation ("a-b", "b-a", "intersection", "union", any case) on int8,
/// int16, int32, int64, uint8, uint16 and string sets of rank 3 and 2 (all-empty results
/// shaped `[.., 0]`), DenseToSparseSetOperation with groups missing from the sparse side,
/// SetSize (sorted, unsorted without validate_indices, of a set op's result): TensorFlow's
/// indices, values and shapes.
#[test]
fn set_ops_run_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "sets", 100);
}

/// Rank below 2, mismatched group dims, an unknown set_operation, unsorted, repeated and
/// out-of-bounds sparse indices, sparse rank below 2, indices and values of different
/// lengths: TensorFlow's code and first message line.
#[test]
fn set_kernels_refuse_what_tensorflows_refuse() {
    common::refuses_as_tensorflow(DIR, "sets", 10, |_, m| m.to_string());
}

#[test]
fn set_shape_functions_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&s, &[2], vec![1, 2]);
    let m = c(&s, &[1, 2], vec![1, 2]);
    assert_build_error("sets", "dd_rank", ops::dense_to_dense_set_operation(&s, &a, &m, "union"));
    let r3 = c(&s, &[1, 1, 1], vec![1]);
    assert_build_error("sets", "dd_rank2", ops::dense_to_dense_set_operation(&s, &m, &r3, "union"));
    let col = c(&s, &[2, 1], vec![1, 2]);
    assert_build_error("sets", "dd_group", ops::dense_to_dense_set_operation(&s, &m, &col, "union"));
    // static shapes: [?, rank] indices, [?] values, [rank] shape
    let x = c(&s, &[2, 3, 4], vec![1i64; 24]);
    let op = ops::dense_to_dense_set_operation(&s, &x, &x, "a-b").unwrap();
    let shapes: Vec<_> = (0..3).map(|i| op.output(i).unwrap().shape()).collect();
    assert_eq!(shapes[0].dims().unwrap(), &[None, Some(3)]);
    assert_eq!(shapes[1].dims().unwrap(), &[None]);
    assert_eq!(shapes[2].to_vec(), Some(vec![3]));
}

/// Built here rather than imported: `tf.sets.union` of two int32 batches and `tf.sets.size`
/// of the result.
#[test]
fn built_set_ops_run() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&s, &[2, 3], vec![3, 1, 3, 5, 5, 5]);
    let b = c(&s, &[2, 2], vec![2, 1, 6, 4]);
    let u = ops::dense_to_dense_set_operation(&s, &a, &b, "union").unwrap();
    let (i, v, sh) = (u.output(0).unwrap(), u.output(1).unwrap(), u.output(2).unwrap());
    let n = ops::set_size(&s, &i, &v, &sh).unwrap();
    let inter = ops::dense_to_sparse_set_operation(&s, &a, (&i, &v, &sh), "intersection").unwrap();
    let sess = Session::new(&g).unwrap();
    let r = sess.run(&[], &[&v, &sh, &n, &inter.output(1).unwrap()], &[]).unwrap();
    assert_eq!(r[0].to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(r[1].to_vec::<i64>().unwrap(), vec![2, 3]);
    assert_eq!(r[2].to_vec::<i32>().unwrap(), vec![3, 3]);
    assert_eq!(r[3].to_vec::<i32>().unwrap(), vec![1, 3, 5]);
}

/// A `tf.compat.v1.metrics.recall_at_k` and `precision_at_k` graph TensorFlow wrote (its
/// TopKV2, DenseToDenseSetOperation, SetSize and resource-variable counters) runs here:
/// after the initializer, each batch's update ops and then the value ops give TensorFlow's
/// numbers.
#[test]
fn recall_at_k_graph_runs_to_tensorflows_values() {
    let exp = common::tf_json(DIR, "recall");
    let g = common::tf_imported(DIR, "recall");
    let t = |n: &serde_json::Value| g.tensor_by_name(&format!("import/{}", n.as_str().unwrap())).unwrap();
    let init =
        g.operation_by_name(&format!("import/{}", exp["init"].as_str().unwrap().trim_end_matches(":0"))).unwrap();
    let (labels, preds) = (t(&exp["labels"]), t(&exp["predictions"]));
    let updates: Vec<Output> = exp["update"].as_array().unwrap().iter().map(t).collect();
    let values: Vec<Output> = exp["value"].as_array().unwrap().iter().map(t).collect();
    let sess = Session::new(&g).unwrap();
    sess.run(&[], &[], &[&init]).unwrap();
    let close = |got: &[Tensor], want: &serde_json::Value, what: &str| {
        for (k, (g, w)) in got.iter().zip(want.as_array().unwrap()).enumerate() {
            let (g, w) = (g.to_f64_vec().unwrap()[0], w.as_f64().unwrap());
            assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{what} {k}: got {g}, TensorFlow {w}");
        }
    };
    let runs = exp["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for run in runs {
        let l: Vec<i64> = run["labels"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
        let p: Vec<f32> = run["predictions"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        let n = l.len() / 2;
        let feeds = [(&labels, Tensor::new(&[n, 2], l).unwrap()), (&preds, Tensor::new(&[n, 6], p).unwrap())];
        let up = sess.run(&feeds, &updates.iter().collect::<Vec<_>>(), &[]).unwrap();
        close(&up, &run["updates"], "update");
        let val = sess.run(&[], &values.iter().collect::<Vec<_>>(), &[]).unwrap();
        close(&val, &run["values"], "value");
    }
}

/// Sign on int8, int16, int32, int64, float16, bfloat16, float32, float64 (extremes, ±0),
/// Abs and Neg on int8/int16 (the most negative value wraps as in TensorFlow), Substr with
/// pos/len scalar, elementwise and broadcast (rank 1 and 2, a scalar input), in bytes and
/// UTF-8 characters, int32 and int64, negative pos and len: TensorFlow's values.
#[test]
fn signs_and_substr_run_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "strings", 35);
}

/// Substr's out-of-range pos (flat, rank-1 and rank-2 broadcast, negative, in bytes and
/// characters), incompatible broadcast, rank 3 broadcast (`Unimplemented`), pos and len of
/// different shapes: TensorFlow's code and first message line.
#[test]
fn substr_refuses_what_tensorflow_refuses() {
    common::refuses_as_tensorflow(DIR, "strings", 12, |_, m| m.to_string());
}

#[test]
fn substr_shape_function_matches_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let strs = ops::constant(&s, Tensor::strings(&[2], vec![b"a".to_vec(), b"b".to_vec()]).unwrap()).unwrap();
    let sub = |p: &Output, l: &Output| {
        s.op("Substr", "Substr").input(&strs).input(p).input(l).attr("T", p.dtype()).build_output()
    };
    let (p2, p3, l1) = (c(&s, &[2], vec![0, 1]), c(&s, &[3], vec![0, 1, 1]), c(&s, &[], vec![1]));
    assert_build_error("strings", "substr_pos_len", sub(&p2, &p3));
    assert_build_error("strings", "substr_bcast", sub(&p3, &p3));
    assert_build_error("strings", "substr_rank", sub(&p2, &l1));
    let col = c(&s, &[3, 1], vec![0, 1, 1]);
    assert_eq!(sub(&col, &col).unwrap().shape().to_vec(), Some(vec![3, 2]));
}

/// CTCBeamSearchDecoder on random logits, float32 and float64, beam widths 1, 3 and 8,
/// top_paths 1 to 3, merge_repeated both ways, sequences shorter than max_time and a
/// three-class case: TensorFlow's decoded indices, values and shapes per path, exactly,
/// and its log probabilities.
#[test]
fn ctc_beam_search_runs_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "ctc", 160);
}

/// top_paths above beam_width, fewer leaves than top_paths (an empty sequence), inputs of
/// rank 2 and empty, a sequence longer than max_time, sequence_length of the wrong size:
/// TensorFlow's code and message.
#[test]
fn ctc_beam_search_refuses_what_tensorflow_refuses() {
    common::refuses_as_tensorflow(DIR, "ctc", 6, |_, m| m.to_string());
}

#[test]
fn ctc_beam_search_outputs_per_path() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[4, 2, 3], (0..24).map(|i| ((i * 7) % 5) as f32 * 0.3).collect());
    let sl = c(&s, &[2], vec![4, 3]);
    let op = ops::ctc_beam_search_decoder(&s, &x, &sl, 4, 2, true).unwrap();
    assert_eq!(op.num_outputs(), 7);
    assert_eq!(op.output(6).unwrap().shape().to_vec(), Some(vec![2, 2]));
    assert_eq!(op.output(4).unwrap().shape().to_vec(), Some(vec![2]));
    let r = Session::new(&g).unwrap().run(&[], &[&op.output(6).unwrap()], &[]).unwrap();
    let lp = r[0].to_vec::<f32>().unwrap();
    assert!(lp[0] >= lp[1] && lp[2] >= lp[3], "paths most probable first: {lp:?}");
}

/// Complex (broadcast), Real, Imag, ComplexAbs, Angle (on the axes too), Conj on complex64
/// and complex128; complex MatMul (transposes, adjoints through Conj) and BatchMatMulV2
/// (adjoints, a broadcast batch); TensorFlow's gradients of Complex, Real, Imag, Conj and
/// both products (its Conj, AddN and adjoint products of complex values): TensorFlow's
/// values, read through Real and Imag.
#[test]
fn complex_ops_run_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "complex", 80);
}

/// `Σ w·Re(z) + Σ v·Im(z)` of a complex value `z`, for gradient checks on real inputs.
fn real_loss(s: &Scope, z: &Output, shape: &[usize], seed: u64) -> Output {
    let re = common::weighted(s, &ops::real(s, z).unwrap(), shape, seed);
    let im = common::weighted(s, &ops::imag(s, z).unwrap(), shape, seed + 1);
    ops::add(s, &re, &im).unwrap()
}

/// The gradients of Complex (broadcast), Real, Imag and Conj against finite differences.
#[test]
fn complex_part_gradients_match_finite_differences() {
    use common::one;
    common::check_gradients(&[one(&[2, 3], 1, -1.0, 1.0), one(&[3], 2, -1.0, 1.0)], 1e-6, |s, x| {
        let z = ops::complex(s, &x[0], &x[1]).unwrap();
        let c = ops::conj(s, &z).unwrap();
        let y = real_loss(s, &z, &[2, 3], 3);
        ops::add(s, &y, &real_loss(s, &c, &[2, 3], 5)).unwrap()
    });
}

/// The gradients of complex MatMul (plain, transposed) and BatchMatMulV2 (plain, adjoint)
/// against finite differences on the real and imaginary parts.
#[test]
fn complex_product_gradients_match_finite_differences() {
    use common::one;
    type Mm = fn(&Scope, &Output, &Output) -> Output;
    // shapes of a, b and the product, and the product
    type Case = (&'static [usize], &'static [usize], &'static [usize], Mm);
    let cases: [Case; 4] = [
        (&[3, 4], &[4, 2], &[3, 2], |s, a, b| ops::matmul(s, a, b).unwrap()),
        (&[4, 3], &[2, 4], &[3, 2], |s, a, b| ops::matmul_t(s, a, b, true, true).unwrap()),
        (&[2, 3, 4], &[2, 4, 2], &[2, 3, 2], |s, a, b| ops::batch_matmul(s, a, b, false, false).unwrap()),
        (&[2, 4, 3], &[2, 2, 4], &[2, 3, 2], |s, a, b| ops::batch_matmul(s, a, b, true, true).unwrap()),
    ];
    for (k, (sa, sb, so, mm)) in cases.into_iter().enumerate() {
        let k = k as u64 * 10;
        let ins = [
            one(sa, k + 1, -1.0, 1.0),
            one(sa, k + 2, -1.0, 1.0),
            one(sb, k + 3, -1.0, 1.0),
            one(sb, k + 4, -1.0, 1.0),
        ];
        common::check_gradients(&ins, 1e-6, |s, x| {
            let a = ops::complex(s, &x[0], &x[1]).unwrap();
            let b = ops::complex(s, &x[2], &x[3]).unwrap();
            real_loss(s, &mm(s, &a, &b), so, k + 5)
        });
    }
}
