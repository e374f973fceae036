//! Pad and PadV2 (TensorFlow's `tf.pad`, CONSTANT mode) and the gradients of Pad and
//! Slice: kernel values for several dtypes, inferred shapes, attrs and node names as
//! TensorFlow writes them, errors, finite-difference gradient checks and the layout of
//! the gradient subgraphs (TensorFlow's `_PadGrad` and `_SliceGrad`).

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::graph::AttrValue;
use tensorgraph::tensor::Storage;
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> Tensor {
    let sess = Session::new(out.graph()).unwrap();
    sess.run(&[], &[out], &[]).unwrap().remove(0)
}

fn run_feed(out: &Output, feeds: &[(&Output, Tensor)]) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(feeds, &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

/// The name of the op feeding input `i` of `o`'s op.
fn input_name(o: &Output, i: usize) -> String {
    let (src, _) = o.op().node().inputs[i];
    o.graph().operations()[src].name()
}

fn attr(o: &Output, name: &str) -> AttrValue {
    o.op().node().attrs.get(name).unwrap_or_else(|| panic!("no attr {name}")).clone()
}

#[test]
fn ops_registered() {
    for t in ["Pad", "PadV2"] {
        assert_eq!(ops::lookup(t).unwrap().op_type(), t);
    }
}

// ---------------------------------------------------------------- kernels

#[test]
fn pad_float32_values_attrs_and_names() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 3], vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let y = ops::pad(&s, &x, &[[1, 0], [0, 2]]).unwrap();
    assert_eq!(y.name(), "Pad:0");
    assert_eq!(y.op().op_type(), "Pad");
    assert_eq!(input_name(&y, 1), "Pad/paddings");
    let p = g.operation_by_name("Pad/paddings").unwrap().node();
    assert_eq!(p.attr_tensor("value").unwrap(), &Tensor::new(&[2, 2], vec![1i32, 0, 0, 2]).unwrap());
    assert_eq!(attr(&y, "T"), AttrValue::Type(DType::Float));
    assert_eq!(attr(&y, "Tpaddings"), AttrValue::Type(DType::Int32));
    assert_eq!(y.dtype(), DType::Float);
    assert_eq!(y.shape(), Shape::known(&[3, 5]));
    let r = run(&y);
    assert_eq!(r.shape(), &[3, 5]);
    #[rustfmt::skip]
    let want = vec![
        0f32, 0.0, 0.0, 0.0, 0.0,
        1.0, 2.0, 3.0, 0.0, 0.0,
        4.0, 5.0, 6.0, 0.0, 0.0,
    ];
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
    // a second op gets Pad_1 and Pad_1/paddings
    let y2 = ops::pad(&s, &x, &[[0, 0], [0, 0]]).unwrap();
    assert_eq!(y2.name(), "Pad_1:0");
    assert_eq!(input_name(&y2, 1), "Pad_1/paddings");
    assert_eq!(run(&y2), run(&x));
}

#[test]
fn pad_int32_tf_doc_example() {
    // tf.pad docs: t = [[1, 2, 3], [4, 5, 6]], paddings = [[1, 1], [2, 2]]
    let g = Graph::new();
    let s = g.scope();
    let t = c(&s, &[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let y = ops::pad(&s, &t, &[[1, 1], [2, 2]]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[4, 7]));
    assert_eq!(attr(&y, "T"), AttrValue::Type(DType::Int32));
    let r = run(&y);
    assert_eq!(r.shape(), &[4, 7]);
    #[rustfmt::skip]
    let want = vec![
        0i32, 0, 0, 0, 0, 0, 0,
        0, 0, 1, 2, 3, 0, 0,
        0, 0, 4, 5, 6, 0, 0,
        0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(r.to_vec::<i32>().unwrap(), want);
}

#[test]
fn pad_rank3_float64() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[1, 2, 1], vec![7f64, 8.0]);
    let r = run(&ops::pad(&s, &x, &[[0, 1], [1, 0], [1, 1]]).unwrap());
    assert_eq!(r.shape(), &[2, 3, 3]);
    #[rustfmt::skip]
    let want = vec![
        0f64, 0.0, 0.0,   0.0, 7.0, 0.0,   0.0, 8.0, 0.0,
        0.0, 0.0, 0.0,    0.0, 0.0, 0.0,   0.0, 0.0, 0.0,
    ];
    assert_eq!(r.to_vec::<f64>().unwrap(), want);
}

#[test]
fn pad_bool_and_string() {
    let g = Graph::new();
    let s = g.scope();
    let b = c(&s, &[2], vec![true, true]);
    let r = run(&ops::pad(&s, &b, &[[1, 2]]).unwrap());
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![false, true, true, false, false]);
    let st = ops::constant(&s, Tensor::strings(&[1, 2], vec![b"a".to_vec(), b"bc".to_vec()]).unwrap()).unwrap();
    let y = ops::pad(&s, &st, &[[1, 0], [0, 1]]).unwrap();
    assert_eq!(attr(&y, "T"), AttrValue::Type(DType::String));
    let r = run(&y);
    assert_eq!(r.shape(), &[2, 3]);
    let want: Vec<Vec<u8>> = vec![vec![], vec![], vec![], b"a".to_vec(), b"bc".to_vec(), vec![]];
    assert_eq!(r.storage(), &Storage::Str(want));
}

#[test]
fn pad_empty_and_scalar() {
    let g = Graph::new();
    let s = g.scope();
    // a size-0 dimension: the output is all padding
    let x = ops::constant(&s, Tensor::new(&[0, 2], Vec::<f32>::new()).unwrap()).unwrap();
    let y = ops::pad(&s, &x, &[[1, 1], [0, 1]]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 3]));
    let r = run(&y);
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0; 6]);
    // padding nothing onto a size-0 dimension stays empty
    let r = run(&ops::pad(&s, &x, &[[0, 0], [3, 0]]).unwrap());
    assert_eq!(r.shape(), &[0, 5]);
    assert_eq!(r.num_elements(), 0);
    // a rank-0 input takes a [0, 2] paddings matrix and is returned unchanged
    let sc = ops::constant(&s, Tensor::scalar(3.5f32)).unwrap();
    let y = ops::pad(&s, &sc, &[]).unwrap();
    assert_eq!(y.shape(), Shape::scalar());
    let r = run(&y);
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![3.5]);
}

#[test]
fn pad_v2_fill_value() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 2], vec![1f32, 2.0, 3.0, 4.0]);
    let cv = ops::constant(&s, Tensor::scalar(9.5f32)).unwrap();
    let y = ops::pad_v2(&s, &x, &[[0, 1], [1, 0]], &cv).unwrap();
    assert_eq!(y.name(), "PadV2:0");
    assert_eq!(y.op().op_type(), "PadV2");
    assert_eq!(input_name(&y, 1), "PadV2/paddings");
    assert_eq!(input_name(&y, 2), "Const_1");
    assert_eq!(attr(&y, "T"), AttrValue::Type(DType::Float));
    assert_eq!(attr(&y, "Tpaddings"), AttrValue::Type(DType::Int32));
    assert_eq!(y.shape(), Shape::known(&[3, 3]));
    let r = run(&y);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![9.5, 1.0, 2.0, 9.5, 3.0, 4.0, 9.5, 9.5, 9.5]);
    // strings and bools
    let st = ops::constant(&s, Tensor::strings(&[1], vec![b"x".to_vec()]).unwrap()).unwrap();
    let fill = ops::constant(&s, Tensor::strings(&[], vec![b"-".to_vec()]).unwrap()).unwrap();
    let r = run(&ops::pad_v2(&s, &st, &[[2, 1]], &fill).unwrap());
    assert_eq!(r.storage(), &Storage::Str(vec![b"-".to_vec(), b"-".to_vec(), b"x".to_vec(), b"-".to_vec()]));
    let b = c(&s, &[1], vec![false]);
    let t = ops::constant(&s, Tensor::scalar(true)).unwrap();
    assert_eq!(run(&ops::pad_v2(&s, &b, &[[1, 1]], &t).unwrap()).to_vec::<bool>().unwrap(), vec![true, false, true]);
}

#[test]
fn int64_paddings() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[3], vec![1i64, 2, 3]);
    let p = c(&s, &[1, 2], vec![2i64, 1]);
    let y = ops::pad_dyn(&s, &x, &p).unwrap();
    assert_eq!(attr(&y, "Tpaddings"), AttrValue::Type(DType::Int64));
    assert_eq!(attr(&y, "T"), AttrValue::Type(DType::Int64));
    assert_eq!(y.shape(), Shape::known(&[6]));
    assert_eq!(run(&y).to_vec::<i64>().unwrap(), vec![0, 0, 1, 2, 3, 0]);
    let cv = ops::constant(&s, Tensor::scalar(-1i64)).unwrap();
    let y = ops::pad_v2_dyn(&s, &x, &p, &cv).unwrap();
    assert_eq!(attr(&y, "Tpaddings"), AttrValue::Type(DType::Int64));
    assert_eq!(run(&y).to_vec::<i64>().unwrap(), vec![-1, -1, 1, 2, 3, -1]);
}

// ---------------------------------------------------------------- shape inference

#[test]
fn shape_inference() {
    let g = Graph::new();
    let s = g.scope();
    // unknown batch dimension: only it stays unknown
    let x = ops::placeholder(&s, DType::Float, [None, Some(3)]).unwrap();
    let y = ops::pad(&s, &x, &[[1, 1], [2, 0]]).unwrap();
    assert_eq!(y.shape(), Shape::partial(&[None, Some(5)]));
    let r = run_feed(&y, &[(&x, Tensor::new(&[1, 3], vec![1f32, 2.0, 3.0]).unwrap())]).unwrap();
    assert_eq!(r.shape(), &[3, 5]);
    assert_eq!(r.to_vec::<f32>().unwrap()[5..10].to_vec(), vec![0.0, 0.0, 1.0, 2.0, 3.0]);
    // input rank unknown: the rank comes from the constant paddings
    let u = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let y = ops::pad(&s, &u, &[[1, 1], [0, 0], [0, 2]]).unwrap();
    assert_eq!(y.shape(), Shape::partial(&[None, None, None]));
    // paddings unknown at build time: the input's rank, no dimensions
    let pp = ops::placeholder(&s, DType::Int32, [Some(2), Some(2)]).unwrap();
    let y = ops::pad_dyn(&s, &x, &pp).unwrap();
    assert_eq!(y.shape(), Shape::partial(&[None, None]));
    let feed_p = Tensor::new(&[2, 2], vec![0i32, 1, 1, 0]).unwrap();
    let feed_x = Tensor::new(&[1, 3], vec![1f32, 2.0, 3.0]).unwrap();
    let r = run_feed(&y, &[(&x, feed_x), (&pp, feed_p)]).unwrap();
    assert_eq!(r.shape(), &[2, 4]);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]);
    // paddings of unknown rows, input of unknown rank: nothing known
    let pq = ops::placeholder(&s, DType::Int32, [None, Some(2)]).unwrap();
    assert_eq!(ops::pad_dyn(&s, &u, &pq).unwrap().shape(), Shape::unknown());
    // ... but the rows of paddings give the rank
    assert_eq!(ops::pad_dyn(&s, &u, &pp).unwrap().shape(), Shape::partial(&[None, None]));
    let cv = ops::constant(&s, Tensor::scalar(1f32)).unwrap();
    assert_eq!(ops::pad_v2(&s, &x, &[[0, 0], [1, 1]], &cv).unwrap().shape(), Shape::partial(&[None, Some(5)]));
}

// ---------------------------------------------------------------- errors

#[test]
fn build_time_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 3], vec![0f32; 6]);
    let e = ops::pad(&s, &x, &[[-1, 0], [0, 0]]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "op 'Pad' (Pad): Paddings must be non-negative: -1 0 (input shape [2, 3], paddings [[-1, 0], [0, 0]])"
    );
    let e = ops::pad(&s, &x, &[[0, 0], [0, -2]]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("op 'Pad_1' (Pad): Paddings must be non-negative: 0 -2 "), "{e}");
    // one row per input dimension
    let e = ops::pad(&s, &x, &[[0, 0], [1, 1], [0, 0]]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with(
            "op 'Pad_2' (Pad): The first dimension of paddings must be the rank of inputs[3, 2], [2, 3] ("
        ),
        "{e}"
    );
    assert!(e.message.contains("Pad_2"), "{e}");
    // paddings must be a [rank, 2] matrix
    let p = c(&s, &[2, 3], vec![0i32; 6]);
    let e = ops::pad_dyn(&s, &x, &p).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message
            .ends_with("paddings must be a matrix with 2 columns: [2, 3] (input shape [2, 3], paddings shape [2, 3])"),
        "{e}"
    );
    assert!(e.message.contains("input shape [2, 3]"), "{e}");
    let p = c(&s, &[4], vec![0i32; 4]);
    let e = ops::pad_dyn(&s, &x, &p).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.ends_with("paddings must be a matrix with 2 columns: [4] (input shape [2, 3], paddings shape [4])"),
        "{e}"
    );
    // float paddings
    let p = c(&s, &[2, 2], vec![0f32; 4]);
    assert_eq!(ops::pad_dyn(&s, &x, &p).unwrap_err().code, Code::InvalidArgument);
    // constant_values of another dtype
    let cv = ops::constant(&s, Tensor::scalar(1i32)).unwrap();
    let e = ops::pad_v2(&s, &x, &[[0, 0], [0, 0]], &cv).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "op 'PadV2' (PadV2): Input 'constant_values' of 'PadV2' Op has type int32 that does not match type float32 of argument 'input'."
    );
    // values outside int32 make int64 paddings (as Python TensorFlow's constants); running
    // it asks for more memory than there is
    let big = ops::pad(&s, &x, &[[0, 1 << 40], [0, 0]]).unwrap();
    assert_eq!(big.op().node().attr_type("Tpaddings").unwrap(), DType::Int64);
    let e = Session::new(&g).unwrap().fetch(&[], &big).unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
}

#[test]
fn run_time_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let p = ops::placeholder(&s, DType::Int32, Shape::unknown()).unwrap();
    // (not named Pad: the session prefixes a kernel error with the op's type and name
    // unless the message holds the name, and "Paddings" holds "Pad")
    let y = ops::pad_dyn(&s.named("padded"), &x, &p).unwrap();
    assert_eq!(y.shape(), Shape::unknown());
    let xv = Tensor::new(&[2, 3], vec![0f32; 6]).unwrap();
    let err = |pv: Tensor| run_feed(&y, &[(&x, xv.clone()), (&p, pv)]).unwrap_err();
    let e = err(Tensor::new(&[2, 2], vec![0i32, 0, 3, -1]).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "Pad 'padded': Paddings must be non-negative: 3 -1 (input shape [2, 3], paddings [[0, 0], [3, -1]])"
    );
    let e = err(Tensor::new(&[3, 2], vec![0i32; 6]).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, "Pad 'padded': The first dimension of paddings must be the rank of inputs[3, 2], [2, 3]");
    let e = err(Tensor::new(&[2, 1], vec![0i32; 2]).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, "Pad 'padded': paddings must be a matrix with 2 columns: [2, 1]");
    let e = err(Tensor::new(&[4], vec![0i32; 4]).unwrap());
    assert_eq!(e.message, "Pad 'padded': paddings must be a matrix with 2 columns: [4]");
    // inputs of rank above 8: Unimplemented, as TensorFlow's kernel
    let x9 = Tensor::new(&[1; 9], vec![0f32]).unwrap();
    let e = run_feed(&y, &[(&x, x9), (&p, Tensor::new(&[9, 2], vec![0i32; 18]).unwrap())]).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert_eq!(e.message, "Pad 'padded': inputs rank not in [0,8]: 9");
    // PadV2: constant_values must be a scalar
    let cv = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let y2 = ops::pad_v2(&s, &x, &[[1, 1]], &cv).unwrap();
    let e = run_feed(
        &y2,
        &[(&x, Tensor::new(&[1], vec![1f32]).unwrap()), (&cv, Tensor::new(&[2], vec![0f32, 1.0]).unwrap())],
    )
    .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, "PadV2 'PadV2': constant_values must be a scalar. Found: [2]");
}

// ---------------------------------------------------------------- gradients

#[test]
fn pad_gradient() {
    let inp = vec![one(&[2, 3], 30, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::pad(s, &x[0], &[[1, 2], [0, 1]]).unwrap(), &[5, 4], 31));
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::pad(s, &x[0], &[[0, 0], [0, 0]]).unwrap(), &[2, 3], 32));
    let inp = vec![one(&[2, 1, 3], 33, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        weighted(s, &ops::pad(s, &x[0], &[[1, 0], [2, 1], [0, 3]]).unwrap(), &[3, 4, 6], 34)
    });
    // int64 paddings, and PadV2 (no gradient for constant_values)
    check_gradients(&inp, TOL, |s, x| {
        let p = c(s, &[3, 2], vec![0i64, 1, 1, 1, 2, 0]);
        weighted(s, &ops::pad_dyn(s, &x[0], &p).unwrap(), &[3, 3, 5], 35)
    });
    check_gradients(&inp, TOL, |s, x| {
        let cv = ops::constant(s, Tensor::scalar(2.5f64)).unwrap();
        weighted(s, &ops::pad_v2(s, &x[0], &[[1, 1], [0, 0], [1, 0]], &cv).unwrap(), &[4, 1, 4], 36)
    });
}

#[test]
fn slice_gradient() {
    let inp = vec![one(&[4, 5], 40, -1.0, 1.0)];
    for (begin, size, out) in [
        ([1i64, 2], [2i64, 3], [2usize, 3]),
        ([0, 0], [4, 5], [4, 5]),
        ([3, 0], [1, -1], [1, 5]),
        ([1, 4], [-1, -1], [3, 1]),
        ([2, 1], [0, 2], [0, 2]),
    ] {
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::slice(s, &x[0], &begin, &size).unwrap(), &out, 41));
    }
    let inp = vec![one(&[2, 3, 4], 42, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        weighted(s, &ops::slice(s, &x[0], &[1, 0, 1], &[1, -1, 2]).unwrap(), &[1, 3, 2], 43)
    });
    // int64 begin/size: the paddings are int64
    check_gradients(&inp, TOL, |s, x| {
        let b = c(s, &[3], vec![0i64, 1, 0]);
        let z = c(s, &[3], vec![2i64, 2, -1]);
        weighted(s, &ops::slice_dyn(s, &x[0], &b, &z).unwrap(), &[2, 2, 4], 44)
    });
    // slice of a pad and pad of a slice
    let inp = vec![one(&[3, 3], 45, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let p = ops::pad(s, &x[0], &[[1, 1], [2, 0]]).unwrap();
        let sl = ops::slice(s, &p, &[0, 1], &[4, 3]).unwrap();
        weighted(s, &ops::pad(s, &sl, &[[0, 1], [1, 0]]).unwrap(), &[5, 4], 46)
    });
}

/// The names and op types of the ops under `prefix`, in creation order.
fn ops_under(g: &Graph, prefix: &str) -> Vec<(String, String)> {
    g.operations().iter().filter(|o| o.name().starts_with(prefix)).map(|o| (o.name(), o.op_type())).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|&(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn pad_gradient_graph_as_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(2), Some(3)]).unwrap();
    let y = ops::pad(&s, &x, &[[1, 0], [0, 2]]).unwrap();
    let n_before = g.num_ops();
    let dx = gradients(std::slice::from_ref(&y), std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    for o in &g.operations()[n_before..] {
        let name = o.name();
        assert!(name.starts_with("gradients/"), "{name}");
    }
    assert_eq!(
        ops_under(&g, "gradients/Pad_grad/"),
        pairs(&[
            ("gradients/Pad_grad/Rank", "Const"),
            ("gradients/Pad_grad/stack/1", "Const"),
            ("gradients/Pad_grad/stack", "Pack"),
            ("gradients/Pad_grad/Slice/begin", "Const"),
            ("gradients/Pad_grad/Slice", "Slice"),
            ("gradients/Pad_grad/Reshape/shape", "Const"),
            ("gradients/Pad_grad/Reshape", "Reshape"),
            ("gradients/Pad_grad/Shape", "Const"),
            ("gradients/Pad_grad/Slice_1", "Slice"),
        ])
    );
    assert_eq!(dx.name(), "gradients/Pad_grad/Slice_1:0");
    assert_eq!(input_name(&dx, 0), "gradients/Fill");
    assert_eq!(input_name(&dx, 1), "gradients/Pad_grad/Reshape");
    assert_eq!(input_name(&dx, 2), "gradients/Pad_grad/Shape");
    assert_eq!(attr(&dx, "Index"), AttrValue::Type(DType::Int32));
    let first = g.operation_by_name("gradients/Pad_grad/Slice").unwrap().output(0).unwrap();
    assert_eq!(input_name(&first, 0), "Pad/paddings");
    assert_eq!(input_name(&first, 2), "gradients/Pad_grad/stack");
    assert_eq!(dx.shape(), Shape::partial(&[Some(2), Some(3)]));
    let r = run_feed(&dx, &[(&x, Tensor::new(&[2, 3], vec![0f32; 6]).unwrap())]).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.0; 6]);

    // a partially known input: Shape is an op; int64 paddings give int64 sizes
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Double, [None, Some(2)]).unwrap();
    let p = c(&s.named("p"), &[2, 2], vec![1i64, 0, 0, 1]);
    let y = ops::pad_dyn(&s, &x, &p).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let shape = g.operation_by_name("gradients/Pad_grad/Shape").unwrap();
    assert_eq!(shape.op_type(), "Shape");
    assert_eq!(shape.node().attrs.get("out_type").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(attr(&dx, "Index"), AttrValue::Type(DType::Int64));
    let r = run_feed(&dx, &[(&x, Tensor::new(&[3, 2], vec![0f64; 6]).unwrap())]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![1.0; 6]);
}

#[test]
fn pad_v2_gradient_has_none_for_constant_values() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(2)]).unwrap();
    let cv = ops::placeholder(&s.named("cv"), DType::Float, Shape::scalar()).unwrap();
    let y = ops::pad_v2(&s, &x, &[[1, 1]], &cv).unwrap();
    let gs = gradients(&[y], &[x.clone(), cv.clone()], None).unwrap();
    assert!(gs[1].is_none());
    let dx = gs[0].clone().unwrap();
    assert!(dx.name().starts_with("gradients/PadV2_grad/"), "{}", dx.name());
    let r = run_feed(&dx, &[(&x, Tensor::new(&[2], vec![1f32, 2.0]).unwrap()), (&cv, Tensor::scalar(5f32))]).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
}

#[test]
fn slice_gradient_graph_as_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(3), Some(4)]).unwrap();
    let y = ops::slice(&s, &x, &[1, 1], &[2, -1]).unwrap();
    let n_before = g.num_ops();
    let dx = gradients(std::slice::from_ref(&y), std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    for o in &g.operations()[n_before..] {
        assert!(o.name().starts_with("gradients/"), "{}", o.name());
    }
    assert_eq!(
        ops_under(&g, "gradients/Slice_grad/"),
        pairs(&[
            ("gradients/Slice_grad/Rank", "Const"),
            ("gradients/Slice_grad/Shape", "Const"),
            ("gradients/Slice_grad/stack/1", "Const"),
            ("gradients/Slice_grad/stack", "Pack"),
            ("gradients/Slice_grad/Reshape", "Reshape"),
            ("gradients/Slice_grad/Shape_1", "Const"),
            ("gradients/Slice_grad/sub", "Sub"),
            ("gradients/Slice_grad/sub_1", "Sub"),
            ("gradients/Slice_grad/Reshape_1", "Reshape"),
            ("gradients/Slice_grad/concat/axis", "Const"),
            ("gradients/Slice_grad/concat", "ConcatV2"),
            ("gradients/Slice_grad/Pad", "Pad"),
        ])
    );
    assert_eq!(dx.name(), "gradients/Slice_grad/Pad:0");
    assert_eq!(input_name(&dx, 1), "gradients/Slice_grad/concat");
    assert_eq!(attr(&dx, "Tpaddings"), AttrValue::Type(DType::Int32));
    let before = g.operation_by_name("gradients/Slice_grad/Reshape").unwrap().output(0).unwrap();
    assert_eq!(input_name(&before, 0), "Slice/begin");
    assert_eq!(input_name(&before, 1), "gradients/Slice_grad/stack");
    let sub1 = g.operation_by_name("gradients/Slice_grad/sub_1").unwrap().output(0).unwrap();
    assert_eq!(input_name(&sub1, 0), "gradients/Slice_grad/sub");
    assert_eq!(input_name(&sub1, 1), "Slice/begin");
    let shape = g.operation_by_name("gradients/Slice_grad/Shape").unwrap().node();
    assert_eq!(shape.attr_tensor("value").unwrap(), &Tensor::vector(vec![2i32, 3]));
    let shape1 = g.operation_by_name("gradients/Slice_grad/Shape_1").unwrap().node();
    assert_eq!(shape1.attr_tensor("value").unwrap(), &Tensor::vector(vec![3i32, 4]));
    assert_eq!(dx.shape().rank(), Some(2));
    let r = run_feed(&dx, &[(&x, Tensor::new(&[3, 4], vec![0f32; 12]).unwrap())]).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    #[rustfmt::skip]
    let want = vec![
        0f32, 0.0, 0.0, 0.0,
        0.0, 1.0, 1.0, 1.0,
        0.0, 1.0, 1.0, 1.0,
    ];
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
}

#[test]
fn slice_gradient_with_unknown_shapes() {
    // unknown batch: Shape ops, int64 begin/size give int64 paddings
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(3)]).unwrap();
    let b = c(&s.named("b"), &[2], vec![1i64, 1]);
    let z = c(&s.named("z"), &[2], vec![-1i64, 1]);
    let y = ops::slice_dyn(&s, &x, &b, &z).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    for (name, op_type) in [
        ("gradients/Slice_grad/Rank", "Const"),
        ("gradients/Slice_grad/Shape", "Shape"),
        ("gradients/Slice_grad/Shape_1", "Shape"),
        ("gradients/Slice_grad/Pad", "Pad"),
    ] {
        assert_eq!(g.operation_by_name(name).unwrap().op_type(), op_type, "{name}");
    }
    let sh = g.operation_by_name("gradients/Slice_grad/Shape").unwrap().node();
    assert_eq!(sh.attrs.get("out_type").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(attr(&dx, "Tpaddings"), AttrValue::Type(DType::Int64));
    let r = run_feed(&dx, &[(&x, Tensor::new(&[3, 3], vec![0f32; 9]).unwrap())]).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);

    // unknown rank: no Rank const; the reshape target is the const [-1, 1]
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, Shape::unknown()).unwrap();
    let y = ops::slice(&s, &x, &[0, 1], &[1, 2]).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    assert!(g.operation_by_name("gradients/Slice_grad/Rank").is_err());
    let stack = g.operation_by_name("gradients/Slice_grad/stack").unwrap().node();
    assert_eq!(stack.attr_tensor("value").unwrap(), &Tensor::vector(vec![-1i32, 1]));
    let r = run_feed(&dx, &[(&x, Tensor::new(&[2, 3], vec![0f32; 6]).unwrap())]).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    // and Pad's gradient with an unknown-rank input
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, Shape::unknown()).unwrap();
    let y = ops::pad(&s, &x, &[[1, 0], [0, 1]]).unwrap();
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let r = run_feed(&dx, &[(&x, Tensor::new(&[2, 2], vec![0f32; 4]).unwrap())]).unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.0; 4]);
}

#[test]
fn session_runs_a_pad_and_slice_graph_with_gradients() {
    // y = sum(w * pad(slice(x))): dy/dx is w cut back through the pad and slice
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(2), Some(3)]).unwrap();
    let sl = ops::slice(&s, &x, &[0, 1], &[2, 2]).unwrap();
    let p = ops::pad(&s, &sl, &[[1, 0], [0, 1]]).unwrap();
    assert_eq!(p.shape(), Shape::known(&[3, 3]));
    let w = c(&s, &[3, 3], (1..=9).map(|v| v as f32).collect());
    let y = ops::reduce_sum(&s, &ops::mul(&s, &p, &w).unwrap(), None, false).unwrap();
    let dx = gradients(std::slice::from_ref(&y), std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::new(&[2, 3], vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let out = sess.run(&[(&x, xv)], &[&p, &y, &dx], &[]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![0.0, 0.0, 0.0, 2.0, 3.0, 0.0, 5.0, 6.0, 0.0]);
    // 2*4 + 3*5 + 5*7 + 6*8
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![106.0]);
    assert_eq!(out[2].to_vec::<f32>().unwrap(), vec![0.0, 4.0, 5.0, 0.0, 7.0, 8.0]);
}
