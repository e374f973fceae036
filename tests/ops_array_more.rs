//! ReverseV2, ReverseSequence, OneHot, TopKV2, Unique, Where, BroadcastTo, MirrorPad and
//! MirrorPadGrad: values as TensorFlow 2.21 gives them (`scripts/gen_ops_arrays.py
//! values`), names, errors with TensorFlow's messages, and finite-difference gradient
//! checks.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::tensor::Storage;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn arange_i32(s: &Scope, shape: &[usize]) -> Output {
    let n: usize = shape.iter().product();
    c(s, shape, (0..n as i32).collect())
}

fn arange_f32(s: &Scope, shape: &[usize]) -> Output {
    let n: usize = shape.iter().product();
    c(s, shape, (0..n).map(|v| v as f32).collect())
}

fn unknown(s: &Scope, x: &Output) -> Output {
    ops::placeholder_with_default(s, x, Shape::unknown()).unwrap()
}

fn err_msg(r: tensorgraph::Result<impl std::fmt::Debug>) -> String {
    let e = r.unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{}", e.message);
    e.message
}

#[test]
fn reverse_and_reverse_sequence() {
    let g = Graph::new();
    let s = g.scope();
    let x = arange_i32(&s, &[2, 3, 2]);
    let y = ops::reverse(&s, &x, &[0, -1]).unwrap();
    assert_eq!(y.name(), "ReverseV2:0");
    assert_eq!(g.operation_by_name("ReverseV2/axis").unwrap().op_type(), "Const");
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [7, 6, 9, 8, 11, 10, 1, 0, 3, 2, 5, 4]);
    assert!(err_msg(ops::reverse(&s, &x, &[1, -2])).contains("axis 1 specified more than once."));
    assert!(err_msg(ops::reverse(&s, &x, &[3])).contains("'axis'[0] = 3 is out of valid range [0, 2"));
    assert!(err_msg(run(&ops::reverse(&s, &unknown(&s, &x), &[1, -2]).unwrap()))
        .contains("axis 1 specified more than once."));
    let words: Vec<Vec<u8>> = ["a", "b", "c"].iter().map(|w| w.as_bytes().to_vec()).collect();
    let w = ops::constant(&s, Tensor::strings(&[3], words).unwrap()).unwrap();
    let r = run(&ops::reverse(&s, &w, &[0]).unwrap()).unwrap();
    assert_eq!(r.storage(), &Storage::Str(vec![b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]));

    let x = arange_f32(&s, &[3, 4, 2]);
    let lens = c(&s, &[3], vec![4i64, 0, 2]);
    let y = ops::reverse_sequence(&s, &x, &lens, 1, 0).unwrap();
    assert_eq!(y.name(), "ReverseSequence:0");
    assert_eq!(y.op().node().attr_type("Tlen").unwrap(), DType::Int64);
    assert_eq!(
        run(&y).unwrap().to_f64_vec().unwrap(),
        [
            6.0, 7.0, 4.0, 5.0, 2.0, 3.0, 0.0, 1.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 18.0, 19.0, 16.0,
            17.0, 20.0, 21.0, 22.0, 23.0
        ]
    );
    let y = ops::reverse_sequence(&s, &arange_f32(&s, &[3, 2]), &c(&s, &[2], vec![2i32, 3]), 0, 1).unwrap();
    assert_eq!(run(&y).unwrap().to_f64_vec().unwrap(), [2.0, 5.0, 0.0, 3.0, 4.0, 1.0]);
    let m = arange_i32(&s, &[2, 3]);
    assert!(err_msg(run(&ops::reverse_sequence(&s, &m, &c(&s, &[2], vec![2i32, 4]), 1, 0).unwrap()))
        .contains("seq_lens(1) > input.dims(1)"));
    assert!(err_msg(run(&ops::reverse_sequence(&s, &m, &c(&s, &[2], vec![2i32, -1]), 1, 0).unwrap()))
        .contains("seq_lens(1) < 0"));
    assert!(err_msg(ops::reverse_sequence(&s, &m, &c(&s, &[3], vec![2i32, 2, 2]), 1, 0))
        .contains("Dimensions must be equal, but are 2 and 3"));
    let l3 = c(&s, &[3], vec![2i32, 2, 2]);
    assert!(err_msg(run(&ops::reverse_sequence(&s, &unknown(&s, &m), &l3, 1, 0).unwrap()))
        .contains("Length of seq_lengths != input.dims(0), (3 vs. 2)"));
}

#[test]
fn one_hot_top_k_unique_where() {
    let g = Graph::new();
    let s = g.scope();
    let idx = c(&s, &[2, 2], vec![0i32, 2, -1, 1]);
    let y = ops::one_hot(&s, &idx, 3, &c(&s, &[], vec![5f32]), &c(&s, &[], vec![-1f32]), 1).unwrap();
    assert_eq!(y.name(), "one_hot:0");
    assert_eq!(g.operation_by_name("one_hot/depth").unwrap().op_type(), "Const");
    assert_eq!(y.shape(), Shape::known(&[2, 3, 2]));
    assert_eq!(
        run(&y).unwrap().to_f64_vec().unwrap(),
        [5.0, -1.0, -1.0, -1.0, -1.0, 5.0, -1.0, -1.0, -1.0, 5.0, -1.0, -1.0]
    );
    let y = ops::one_hot(&s, &c(&s, &[3], vec![1i64, 0, 7]), 2, &c(&s, &[], vec![1f32]), &c(&s, &[], vec![0f32]), -1)
        .unwrap();
    assert_eq!(run(&y).unwrap().to_f64_vec().unwrap(), [0.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    let on = c(&s, &[], vec![1f32]);
    let off = c(&s, &[], vec![0f32]);
    assert!(err_msg(ops::one_hot(&s, &idx, 3, &on, &off, -2)).contains("axis must be >= -1"));
    assert!(err_msg(ops::one_hot(&s, &idx, -1, &on, &off, -1)).contains("must be non-negative but is -1"));

    let x = c(&s, &[2, 5], vec![1f32, 3.0, 3.0, 2.0, 3.0, 5.0, -1.0, 0.0, 7.0, 7.0]);
    let (v, i) = ops::top_k(&s, &x, 3, true).unwrap();
    assert_eq!(v.name(), "TopKV2:0");
    assert_eq!(i.name(), "TopKV2:1");
    assert_eq!(i.dtype(), DType::Int32);
    assert_eq!(v.shape(), Shape::known(&[2, 3]));
    assert_eq!(run(&v).unwrap().to_f64_vec().unwrap(), [3.0, 3.0, 3.0, 7.0, 7.0, 5.0]);
    assert_eq!(run(&i).unwrap().to_vec::<i32>().unwrap(), [1, 2, 4, 3, 4, 0]);
    let (_, i) = ops::top_k(&s, &c(&s, &[4], vec![1f32, f32::NAN, 3.0, 2.0]), 3, true).unwrap();
    assert_eq!(run(&i).unwrap().to_vec::<i32>().unwrap(), vec![1, 2, 3], "NaN counts as the largest");
    assert!(err_msg(ops::top_k(&s, &c(&s, &[3], vec![3f32, 2.0, 5.0]), 4, true))
        .contains("input must have last dimension >= k = 4 but is 3"));
    let (v, _) = ops::top_k(&s, &unknown(&s, &c(&s, &[3], vec![3f32, 2.0, 5.0])), 4, true).unwrap();
    assert!(err_msg(run(&v)).contains("input must have at least k columns. Had 3, needed 4"));

    let (y, idx) = ops::unique(&s, &c(&s, &[6], vec![4i32, 1, 4, 2, 1, 9]), DType::Int64).unwrap();
    assert_eq!(y.name(), "Unique:0");
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [4, 1, 2, 9]);
    assert_eq!(run(&idx).unwrap().to_vec::<i64>().unwrap(), [0, 1, 0, 2, 1, 3]);
    // 0.0 and -0.0 are one value; every NaN its own (TensorFlow: idx [0, 1, 2, 3, 3, 0])
    let (y, idx) = ops::unique(&s, &c(&s, &[6], vec![1f32, f32::NAN, f32::NAN, -0.0, 0.0, 1.0]), DType::Int32).unwrap();
    assert_eq!(run(&idx).unwrap().to_vec::<i32>().unwrap(), vec![0, 1, 2, 3, 3, 0]);
    assert_eq!(run(&y).unwrap().num_elements(), 4);
    assert!(err_msg(ops::unique(&s, &c(&s, &[1, 3], vec![3i32, 1, 3]), DType::Int32))
        .contains("Shape must be rank 1 but is rank 2"));

    let w = ops::where_(&s, &c(&s, &[2, 3], vec![0f32, 1.5, 0.0, 2.0, 0.0, -1.0])).unwrap();
    assert_eq!(w.dtype(), DType::Int64);
    assert_eq!(w.shape(), Shape::partial(&[None, Some(2)]));
    let r = run(&w).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_vec::<i64>().unwrap(), [0, 1, 1, 0, 1, 2]);
}

#[test]
fn broadcast_to_and_mirror_pad() {
    let g = Graph::new();
    let s = g.scope();
    let y = ops::broadcast_to_shape(&s, &c(&s, &[2, 1], vec![1i32, 2]), &[3, 2, 2]).unwrap();
    assert_eq!(y.name(), "BroadcastTo:0");
    assert_eq!(g.operation_by_name("BroadcastTo/shape").unwrap().op_type(), "Const");
    assert_eq!(y.shape(), Shape::known(&[3, 2, 2]));
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2]);
    let v = c(&s, &[2], vec![1f32, 2.0]);
    assert!(err_msg(ops::broadcast_to_shape(&s, &v, &[3, 3])).contains("Dimensions must be equal, but are 2 and 3"));
    assert!(err_msg(run(&ops::broadcast_to_shape(&s, &unknown(&s, &v), &[3, 3]).unwrap()))
        .contains("Incompatible shapes: [2] vs. [3, 3]"));
    assert!(err_msg(ops::broadcast_to_shape(&s, &c(&s, &[1, 2], vec![1f32, 2.0]), &[2]))
        .contains("Shape must be at most rank 1 but is rank 2"));

    let x = arange_i32(&s, &[2, 3]);
    let r = ops::mirror_pad(&s, &x, &[[1, 1], [2, 2]], "REFLECT").unwrap();
    assert_eq!(r.name(), "MirrorPad:0");
    assert_eq!(r.shape(), Shape::known(&[4, 7]));
    assert_eq!(
        run(&r).unwrap().to_vec::<i32>().unwrap(),
        [5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0]
    );
    let r = ops::mirror_pad(&s, &x, &[[1, 1], [2, 2]], "SYMMETRIC").unwrap();
    assert_eq!(
        run(&r).unwrap().to_vec::<i32>().unwrap(),
        [1, 0, 0, 1, 2, 2, 1, 1, 0, 0, 1, 2, 2, 1, 4, 3, 3, 4, 5, 5, 4, 4, 3, 3, 4, 5, 5, 4]
    );
    assert!(err_msg(run(&ops::mirror_pad(&s, &x, &[[2, 1], [2, 2]], "REFLECT").unwrap()))
        .contains("paddings must be less than the dimension size: 2, 1 not less than 2"));
    assert!(err_msg(run(&ops::mirror_pad(&s, &x, &[[3, 1], [2, 2]], "SYMMETRIC").unwrap()))
        .contains("paddings must be no greater than the dimension size: 3, 1 greater than 2"));
    assert!(err_msg(ops::mirror_pad(&s, &x, &[[-1, 1], [2, 2]], "SYMMETRIC")).contains("Paddings must be non-negative"));
    assert!(ops::mirror_pad(&s, &x, &[[1, 1], [2, 2]], "CONSTANT").is_err());
    let p = c(&s, &[2, 2], vec![1i32, 1, 2, 2]);
    let gin = arange_f32(&s, &[4, 7]);
    for (mode, want) in
        [("REFLECT", [72.0, 102.0, 64.0, 44.0, 60.0, 36.0]), ("SYMMETRIC", [20.0, 39.0, 32.0, 76.0, 123.0, 88.0])]
    {
        let y = ops::mirror_pad_grad_op(&s, &gin, &p, mode).unwrap();
        assert_eq!(y.shape(), Shape::known(&[2, 3]));
        assert_eq!(run(&y).unwrap().to_f64_vec().unwrap(), want, "{mode}");
    }
}

#[test]
fn gradients_match_finite_differences() {
    let x = vec![one(&[3, 4, 2], 1, -1.0, 1.0)];
    check_gradients(&x, TOL, |s, x| weighted(s, &ops::reverse(s, &x[0], &[0, 2]).unwrap(), &[3, 4, 2], 2));
    check_gradients(&x, TOL, |s, x| {
        let lens = c(s, &[3], vec![4i64, 0, 3]);
        weighted(s, &ops::reverse_sequence(s, &x[0], &lens, 1, 0).unwrap(), &[3, 4, 2], 3)
    });
    let x = vec![one(&[2, 1], 2, -1.0, 1.0)];
    check_gradients(&x, TOL, |s, x| {
        weighted(s, &ops::broadcast_to_shape(s, &x[0], &[3, 2, 4]).unwrap(), &[3, 2, 4], 4)
    });
    let x = vec![one(&[3, 4], 3, -1.0, 1.0)];
    for mode in ["REFLECT", "SYMMETRIC"] {
        check_gradients(&x, TOL, |s, x| {
            weighted(s, &ops::mirror_pad(s, &x[0], &[[2, 1], [1, 3]], mode).unwrap(), &[6, 8], 5)
        });
        let gx = vec![one(&[6, 8], 4, -1.0, 1.0)];
        check_gradients(&gx, TOL, |s, x| {
            let p = c(s, &[2, 2], vec![2i32, 1, 1, 3]);
            weighted(s, &ops::mirror_pad_grad_op(s, &x[0], &p, mode).unwrap(), &[3, 4], 6)
        });
    }
    let x = vec![one(&[2, 3, 5], 5, -1.0, 1.0)];
    check_gradients(&x, TOL, |s, x| weighted(s, &ops::top_k(s, &x[0], 3, true).unwrap().0, &[2, 3, 3], 7));
}
