//! StridedSlice with all five masks and its gradient StridedSliceGrad: values, static
//! shapes and errors as TensorFlow 2.21 gives them (the numbers come from
//! `scripts/gen_ops_arrays.py values`, cases `ss_*`), the gradient subgraph's layout, and
//! finite-difference gradient checks.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::ops::SliceMasks;
use tensorgraph::tensor::Storage;
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

/// `arange(n)` as float32 of `shape`.
fn arange(s: &Scope, shape: &[usize]) -> Output {
    let n: usize = shape.iter().product();
    ops::constant(s, Tensor::new(shape, (0..n).map(|v| v as f32).collect()).unwrap()).unwrap()
}

/// Asserts `t` has TensorFlow's shape and values.
fn check(t: &Tensor, shape: &[usize], want: &[f64]) {
    assert_eq!(t.shape(), shape);
    assert_eq!(t.to_f64_vec().unwrap(), want);
}

fn masks(begin: i64, end: i64, ellipsis: i64, new_axis: i64, shrink_axis: i64) -> SliceMasks {
    SliceMasks { begin, end, ellipsis, new_axis, shrink_axis }
}

const NONE: SliceMasks = SliceMasks { begin: 0, end: 0, ellipsis: 0, new_axis: 0, shrink_axis: 0 };

#[test]
fn slices_with_every_mask_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let x = arange(&s, &[2, 3, 4]);
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&[i64], &[i64], &[i64], SliceMasks, &[usize], Vec<f64>)> = vec![
        // x[1:, ::-1, 1:3]
        (
            &[1, 0, 1],
            &[0, 0, 3],
            &[1, -1, 1],
            masks(2, 3, 0, 0, 0),
            &[1, 3, 2],
            [21.0, 22.0, 17.0, 18.0, 13.0, 14.0].to_vec(),
        ),
        // x[..., 2]
        (&[0, 2], &[0, 3], &[1, 1], masks(0, 0, 1, 0, 2), &[2, 3], [2.0, 6.0, 10.0, 14.0, 18.0, 22.0].to_vec()),
        // x[:, tf.newaxis, -1, ::2]
        (
            &[0, 0, -1, 0],
            &[0, 0, 0, 0],
            &[1, 1, 1, 2],
            masks(9, 9, 0, 2, 4),
            &[2, 1, 2],
            [8.0, 10.0, 20.0, 22.0].to_vec(),
        ),
        // x[-1:-3:-1]
        (
            &[-1],
            &[-3],
            &[-1],
            NONE,
            &[2, 3, 4],
            [
                12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0,
                6.0, 7.0, 8.0, 9.0, 10.0, 11.0,
            ]
            .to_vec(),
        ),
        // x[-10:10, 1:100:2]: bounds clamp
        (&[-10, 1], &[10, 100], &[1, 2], NONE, &[2, 1, 4], [4.0, 5.0, 6.0, 7.0, 16.0, 17.0, 18.0, 19.0].to_vec()),
        // x[5:10]: empty
        (&[5], &[10], &[1], NONE, &[0, 3, 4], vec![]),
        // x[1, ..., 3]
        (&[1, 0, 3], &[2, 0, 4], &[1, 1, 1], masks(0, 0, 2, 0, 5), &[3], [15.0, 19.0, 23.0].to_vec()),
    ];
    for (i, (b, e, st, m, shape, want)) in cases.into_iter().enumerate() {
        let y = ops::strided_slice(&s, &x, b, e, st, m).unwrap();
        assert_eq!(y.shape(), Shape::known(shape), "case {i}: static shape");
        check(&run(&y).unwrap(), shape, &want);
    }
    // int32, x[8:0:-3] of arange(10)
    let v = ops::constant(&s, Tensor::vector((0..10).collect::<Vec<i32>>())).unwrap();
    let y = ops::strided_slice(&s, &v, &[8], &[0], &[-3], masks(0, 1, 0, 0, 0)).unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [8, 5, 2]);
}

#[test]
fn strings_and_bools_slice() {
    let g = Graph::new();
    let s = g.scope();
    let words: Vec<Vec<u8>> = ["a", "b", "c", "d", "e", "f"].iter().map(|w| w.as_bytes().to_vec()).collect();
    let x = ops::constant(&s, Tensor::strings(&[2, 3], words).unwrap()).unwrap();
    let y = ops::strided_slice(&s, &x, &[0, 0], &[0, 0], &[-1, 2], masks(3, 3, 0, 0, 0)).unwrap();
    let r = run(&y).unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    let want: Vec<Vec<u8>> = ["d", "f", "a", "c"].iter().map(|w| w.as_bytes().to_vec()).collect();
    assert_eq!(r.storage(), &Storage::Str(want));
    let b = ops::constant(&s, Tensor::vector(vec![true, false, false])).unwrap();
    let y = ops::strided_slice(&s, &b, &[1], &[0], &[1], masks(0, 0, 0, 0, 1)).unwrap();
    assert_eq!(y.shape(), Shape::scalar());
    assert_eq!(run(&y).unwrap().to_vec::<bool>().unwrap(), vec![false]);
}

#[test]
fn static_shapes_of_partial_inputs_are_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, [None, Some(3), None]).unwrap();
    let shape =
        |b: &[i64], e: &[i64], st: &[i64], m: SliceMasks| ops::strided_slice(&s, &x, b, e, st, m).unwrap().shape();
    // TensorFlow: (None, 2, None), (3, None), (None, 3, None), (None, 1, 3, None)
    assert_eq!(shape(&[0, 1], &[0, 3], &[1, 1], masks(1, 1, 0, 0, 0)), Shape::partial(&[None, Some(2), None]));
    assert_eq!(shape(&[1], &[2], &[1], masks(0, 0, 0, 0, 1)), Shape::partial(&[Some(3), None]));
    assert_eq!(shape(&[0, 0], &[0, 2], &[1, 1], masks(0, 0, 1, 0, 0)), Shape::partial(&[None, Some(3), None]));
    assert_eq!(
        shape(&[0, 0, 0], &[0, 0, 0], &[1, 1, -1], masks(7, 7, 0, 2, 0)),
        Shape::partial(&[None, Some(1), Some(3), None])
    );
    // a begin only known when run: masked dimensions keep their size ((None, None, 4))
    let x = arange(&s, &[2, 3, 4]);
    let b = ops::placeholder_with_default(&s, &ops::constant(&s, Tensor::vector(vec![0i32, 1])).unwrap(), [2]).unwrap();
    let e = ops::constant(&s, Tensor::vector(vec![0i32, 3])).unwrap();
    let st = ops::constant(&s, Tensor::vector(vec![1i32, 1])).unwrap();
    let y = ops::strided_slice_dyn(&s, &x, &b, &e, &st, masks(0, 1, 0, 0, 0)).unwrap();
    assert_eq!(y.shape(), Shape::partial(&[None, None, Some(4)]));
    check(
        &run(&y).unwrap(),
        &[2, 2, 4],
        &[4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0],
    );
    // strides unknown: unknown shape, as TensorFlow
    let st = ops::placeholder(&s, DType::Int32, [2]).unwrap();
    assert_eq!(ops::strided_slice_dyn(&s, &x, &b, &e, &st, NONE).unwrap().shape(), Shape::unknown());
}

#[test]
fn names_and_attrs_are_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [4, 5, 6]).unwrap();
    let y = ops::strided_slice(&s, &x, &[1, 0], &[3, 4], &[1, 2], NONE).unwrap();
    assert_eq!(y.name(), "StridedSlice:0");
    let n = y.op().node();
    let inputs: Vec<String> = n.inputs.iter().map(|&(i, _)| g.operations()[i].name()).collect();
    assert_eq!(inputs, ["x", "StridedSlice/begin", "StridedSlice/end", "StridedSlice/strides"]);
    assert_eq!(n.attr_type("Index").unwrap(), DType::Int32);
    for a in ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"] {
        assert_eq!(n.attr_int_or(a, -1).unwrap(), 0, "{a}");
    }
    // Python's x[1:3, ..., ::-1]
    let z = ops::strided_slice_indexing(&s, &x, &[1, 0, 0], &[3, 0, 0], &[1, 1, -1], masks(4, 4, 2, 0, 0)).unwrap();
    assert_eq!(z.name(), "strided_slice:0");
    let inputs: Vec<String> = z.op().node().inputs.iter().map(|&(i, _)| g.operations()[i].name()).collect();
    assert_eq!(inputs, ["x", "strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2"]);
    assert_eq!(z.shape(), Shape::known(&[2, 5, 6]));
    assert_eq!(z.op().node().attr_int_or("ellipsis_mask", 0).unwrap(), 2);
}

fn build_err(b: &[i64], e: &[i64], st: &[i64], m: SliceMasks) -> tensorgraph::Error {
    let g = Graph::new();
    let s = g.scope();
    let x = arange(&s, &[4, 5]);
    ops::strided_slice(&s, &x, b, e, st, m).unwrap_err()
}

fn run_err(b: &[i64], e: &[i64], st: &[i64], m: SliceMasks) -> tensorgraph::Error {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder_with_default(&s, &arange(&s, &[4, 5]), Shape::unknown()).unwrap();
    let y = ops::strided_slice(&s, &x, b, e, st, m).unwrap();
    run(&y).unwrap_err()
}

#[test]
fn errors_carry_tensorflows_messages() {
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&[i64], &[i64], &[i64], SliceMasks, &str)> = vec![
        (&[7], &[8], &[1], masks(0, 0, 0, 0, 1), "slice index 7 of dimension 0 out of bounds."),
        (&[0], &[0], &[0], masks(1, 1, 0, 0, 0), "strides[0] must be non-zero"),
        (&[0, 0], &[1, 1], &[1, 1], masks(0, 0, 3, 0, 0), "Multiple ellipses in slice spec not allowed"),
        (
            &[1, 2, 3],
            &[2, 3, 4],
            &[1, 1, 1],
            masks(0, 0, 0, 0, 7),
            "Index out of range using input dim 2; input has only 2 dims",
        ),
        (&[1], &[2], &[-1], masks(0, 0, 0, 0, 1), "only stride 1 allowed on non-range indexing."),
    ];
    for (b, e, st, m, msg) in cases {
        for err in [build_err(b, e, st, m), run_err(b, e, st, m)] {
            assert_eq!(err.code, Code::InvalidArgument);
            assert!(err.message.contains(msg), "{msg}: {}", err.message);
        }
    }
    // begin, end and strides of different lengths
    let e = build_err(&[0, 0], &[1], &[1, 1], NONE);
    assert!(e.message.contains("Dimension 0 in both shapes must be equal, but are 2 and 1"), "{}", e.message);
    let g = Graph::new();
    let s = g.scope();
    let x = arange(&s, &[4, 5]);
    let v = |v: Vec<i32>| {
        ops::placeholder_with_default(&s, &ops::constant(&s, Tensor::vector(v)).unwrap(), Shape::unknown()).unwrap()
    };
    let y = ops::strided_slice_dyn(&s, &x, &v(vec![0, 0]), &v(vec![1]), &v(vec![1, 1]), NONE).unwrap();
    let e = run(&y).unwrap_err();
    assert!(
        e.message.contains(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], and [2] instead."
        ),
        "{}",
        e.message
    );
}

#[test]
fn strided_slice_grad_op_matches_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let v = |v: Vec<i32>| ops::constant(&s, Tensor::vector(v)).unwrap();
    let dy = arange(&s, &[1, 3, 2]);
    let y = ops::strided_slice_grad(
        &s,
        &v(vec![2, 3, 4]),
        &v(vec![1, 0, 1]),
        &v(vec![0, 0, 3]),
        &v(vec![1, -1, 1]),
        &dy,
        masks(2, 3, 0, 0, 0),
    )
    .unwrap();
    assert_eq!(y.name(), "StridedSliceGrad:0");
    assert_eq!(y.shape(), Shape::known(&[2, 3, 4]));
    check(
        &run(&y).unwrap(),
        &[2, 3, 4],
        &[
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 2.0, 3.0, 0.0, 0.0,
            0.0, 1.0, 0.0,
        ],
    );
    let dy = ops::constant(&s, Tensor::vector(vec![5f32, 6.0])).unwrap();
    let y =
        ops::strided_slice_grad(&s, &v(vec![3, 2]), &v(vec![-1]), &v(vec![0]), &v(vec![1]), &dy, masks(0, 0, 0, 0, 1))
            .unwrap();
    check(&run(&y).unwrap(), &[3, 2], &[0.0, 0.0, 0.0, 0.0, 5.0, 6.0]);
    // dy of the wrong shape
    let bad = arange(&s, &[3, 5]);
    let y = ops::strided_slice_grad(&s, &v(vec![4, 5]), &v(vec![1]), &v(vec![3]), &v(vec![1]), &bad, NONE).unwrap();
    let e = run(&y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("shape of dy was [3, 5] instead of [2, 5]"), "{}", e.message);
}

#[test]
fn gradients_match_finite_differences() {
    let x = vec![one(&[3, 4, 5], 1, -1.0, 1.0)];
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&[i64], &[i64], &[i64], SliceMasks)> = vec![
        (&[1, 0, 1], &[0, 0, 4], &[1, -1, 2], masks(2, 3, 0, 0, 0)),
        (&[0, 2], &[0, 3], &[1, 1], masks(0, 0, 1, 0, 2)),
        (&[0, 0, -1, 0], &[0, 0, 0, 0], &[1, 1, 1, 3], masks(9, 9, 0, 2, 4)),
        (&[-1], &[-4], &[-2], NONE),
        (&[0, 1, 0], &[3, 3, 5], &[2, 1, 1], NONE),
    ];
    for (b, e, st, m) in cases {
        check_gradients(&x, TOL, |s, x| {
            let y = ops::strided_slice(s, &x[0], b, e, st, m).unwrap();
            let shape = y.shape().to_vec().unwrap();
            weighted(s, &y, &shape, 7)
        });
    }
    // through StridedSliceGrad: its gradient slices the incoming one
    let dy = vec![one(&[2, 2], 2, -1.0, 1.0)];
    check_gradients(&dy, TOL, |s, x| {
        let v = |v: Vec<i32>| ops::constant(s, Tensor::vector(v)).unwrap();
        let y =
            ops::strided_slice_grad(s, &v(vec![4, 3]), &v(vec![0, 2]), &v(vec![4, -4]), &v(vec![2, -2]), &x[0], NONE)
                .unwrap();
        weighted(s, &y, &[4, 3], 3)
    });
}

#[test]
fn gradient_subgraph_is_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [4, 5, 6]).unwrap();
    let y = ops::strided_slice_indexing(&s, &x, &[1, 0], &[3, 0], &[1, -1], masks(2, 2, 0, 0, 0)).unwrap();
    let gx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    assert_eq!(gx.name(), "gradients/strided_slice_grad/StridedSliceGrad:0");
    let n = gx.op().node();
    let inputs: Vec<String> = n.inputs.iter().map(|&(i, _)| g.operations()[i].name()).collect();
    assert_eq!(
        inputs,
        [
            "gradients/strided_slice_grad/StridedSliceGrad/shape",
            "gradients/strided_slice_grad/StridedSliceGrad/begin",
            "gradients/strided_slice_grad/StridedSliceGrad/end",
            "gradients/strided_slice_grad/StridedSliceGrad/strides",
            "gradients/Fill",
        ]
    );
    assert_eq!(g.operation_by_name("gradients/strided_slice_grad/Shape").unwrap().op_type(), "Const");
    assert_eq!(n.attr_int_or("begin_mask", 0).unwrap(), 2);
    assert_eq!(gx.shape(), Shape::known(&[4, 5, 6]));
    // an input of unknown shape: its Shape op feeds StridedSliceGrad
    let x = ops::placeholder(&s.named("u"), DType::Float, [None, Some(5)]).unwrap();
    let y = ops::strided_slice(&s, &x, &[1], &[3], &[1], NONE).unwrap();
    let gx = gradients(&[y], &[x], None).unwrap()[0].clone().unwrap();
    let (src, _) = gx.op().node().inputs[0];
    assert_eq!(g.operations()[src].op_type(), "Shape");
    assert_eq!(gx.shape(), Shape::partial(&[None, None]));
}
