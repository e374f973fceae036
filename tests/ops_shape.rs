//! Shape ops: ConcatV2, Pack/Unpack, Slice, Tile, GatherV2, UnsortedSegmentSum, Prod,
//! FloorMod/FloorDiv, Transpose, Squeeze, Range — values (TensorFlow's documented
//! examples among them), inferred shapes, attrs as TensorFlow writes them, errors, and
//! finite-difference gradient checks.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::graph::AttrValue;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> Tensor {
    let sess = Session::new(out.graph()).unwrap();
    sess.run(&[], &[out], &[]).unwrap().remove(0)
}

fn run_err(out: &Output) -> tensorgraph::Error {
    let sess = Session::new(out.graph()).unwrap();
    sess.run(&[], &[out], &[]).unwrap_err()
}

fn run_feed(out: &Output, feeds: &[(&Output, Tensor)]) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(feeds, &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn i32s(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

#[test]
fn all_ops_registered() {
    for t in [
        "ConcatV2",
        "ConcatOffset",
        "Pack",
        "Unpack",
        "Slice",
        "Tile",
        "GatherV2",
        "UnsortedSegmentSum",
        "Prod",
        "FloorMod",
        "FloorDiv",
        "Transpose",
        "InvertPermutation",
        "Squeeze",
        "Range",
    ] {
        assert_eq!(ops::lookup(t).unwrap().op_type(), t);
    }
}

// ---------------------------------------------------------------- ConcatV2

#[test]
fn concat_tf_doc_example() {
    let g = Graph::new();
    let s = g.scope();
    let t1 = c(&s, &[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let t2 = c(&s, &[2, 3], vec![7i32, 8, 9, 10, 11, 12]);
    let a0 = ops::concat(&s, &[t1.clone(), t2.clone()], 0).unwrap();
    assert_eq!(a0.shape(), Shape::known(&[4, 3]));
    assert_eq!(a0.name(), "concat:0");
    assert!(g.operation_by_name("concat/axis").is_ok());
    let r = run(&a0);
    assert_eq!(r.shape(), &[4, 3]);
    assert_eq!(i32s(&r), (1..=12).collect::<Vec<_>>());
    let a1 = ops::concat(&s, &[t1.clone(), t2.clone()], 1).unwrap();
    assert_eq!(a1.name(), "concat_1:0");
    assert_eq!(a1.shape(), Shape::known(&[2, 6]));
    assert_eq!(i32s(&run(&a1)), vec![1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12]);
    let am1 = ops::concat(&s, &[t1, t2], -1).unwrap();
    assert_eq!(i32s(&run(&am1)), vec![1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12]);
}

#[test]
fn concat_int64_axis_three_values_and_dtypes() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&s, &[2, 1], vec![1.5f64, 2.5]);
    let b = c(&s, &[2, 2], vec![3.0f64, 4.0, 5.0, 6.0]);
    let d = c(&s, &[2, 0], Vec::<f64>::new());
    let ax = ops::constant(&s, Tensor::scalar(1i64)).unwrap();
    let out = ops::concat_dyn(&s, &[a, d, b], &ax).unwrap();
    let node = out.op().node();
    assert_eq!(node.attrs.get("Tidx").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(node.attrs.get("N").unwrap(), &AttrValue::Int(3));
    assert_eq!(out.shape(), Shape::known(&[2, 3]));
    assert_eq!(run(&out).to_vec::<f64>().unwrap(), vec![1.5, 3.0, 4.0, 2.5, 5.0, 6.0]);
    // bool and string
    let b1 = c(&s, &[2], vec![true, false]);
    let b2 = c(&s, &[1], vec![true]);
    assert_eq!(run(&ops::concat(&s, &[b1, b2], 0).unwrap()).to_vec::<bool>().unwrap(), vec![true, false, true]);
    let s1 = ops::constant(&s, Tensor::strings(&[1], vec![b"a".to_vec()]).unwrap()).unwrap();
    let s2 = ops::constant(&s, Tensor::strings(&[2], vec![b"b".to_vec(), b"c".to_vec()]).unwrap()).unwrap();
    let r = run(&ops::concat(&s, &[s1, s2], 0).unwrap());
    assert_eq!(r.dtype(), DType::String);
    assert_eq!(r.shape(), &[3]);
    // int64 values
    let i1 = c(&s, &[1, 2], vec![1i64, 2]);
    let i2 = c(&s, &[1, 2], vec![3i64, 4]);
    assert_eq!(run(&ops::concat(&s, &[i1, i2], 0).unwrap()).to_vec::<i64>().unwrap(), vec![1, 2, 3, 4]);
}

#[test]
fn concat_partial_shapes_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s, DType::Float, [None, Some(3)]).unwrap();
    let q = ops::placeholder(&s, DType::Float, [Some(2), Some(3)]).unwrap();
    let out = ops::concat(&s, &[p.clone(), q.clone()], 0).unwrap();
    assert_eq!(out.shape(), Shape::partial(&[None, Some(3)]));
    let out1 = ops::concat(&s, &[p.clone(), q.clone()], 1).unwrap();
    assert_eq!(out1.shape(), Shape::partial(&[Some(2), Some(6)]));
    // build-time mismatch names both shapes
    let r = ops::placeholder(&s, DType::Float, [Some(2), Some(4)]).unwrap();
    let e = ops::concat(&s, &[q.clone(), r.clone()], 0).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]") && e.message.contains("[2, 4]"), "{e}");
    let e = ops::concat(&s, &[q.clone(), r.clone()], 2).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    let i = ops::placeholder(&s, DType::Int32, [Some(2), Some(3)]).unwrap();
    assert_eq!(ops::concat(&s, &[q.clone(), i], 0).unwrap_err().code, Code::InvalidArgument);
    // run-time mismatch with unknown shapes
    let u = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let v = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let out = ops::concat(&s, &[u.clone(), v.clone()], 0).unwrap();
    assert_eq!(out.shape(), Shape::unknown());
    let e = run_feed(
        &out,
        &[
            (&u, Tensor::new(&[1, 2], vec![1f32, 2.0]).unwrap()),
            (&v, Tensor::new(&[1, 3], vec![1f32, 2.0, 3.0]).unwrap()),
        ],
    )
    .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[1, 2]") && e.message.contains("[1, 3]"), "{e}");
    // scalars cannot be concatenated
    let a = c(&s, &[], vec![1f32]);
    assert_eq!(ops::concat(&s, &[a.clone(), a], 0).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn concat_gradients() {
    let inp = vec![one(&[2, 3], 1, -1.0, 1.0), one(&[2, 2], 2, -1.0, 1.0), one(&[2, 1], 3, -1.0, 1.0)];
    for axis in [1, -1] {
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::concat(s, x, axis).unwrap(), &[2, 6], 4));
    }
    let inp = vec![one(&[1, 2, 2], 5, -1.0, 1.0), one(&[3, 2, 2], 6, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::concat(s, x, 0).unwrap(), &[4, 2, 2], 7));
    // int64 axis
    check_gradients(&inp, TOL, |s, x| {
        let ax = ops::constant(s, Tensor::scalar(0i64)).unwrap();
        weighted(s, &ops::concat_dyn(s, x, &ax).unwrap(), &[4, 2, 2], 8)
    });
}

// ---------------------------------------------------------------- Pack / Unpack

#[test]
fn stack_tf_doc_example() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2], vec![1i32, 4]);
    let y = c(&s, &[2], vec![2i32, 5]);
    let z = c(&s, &[2], vec![3i32, 6]);
    let a = ops::stack(&s, &[x.clone(), y.clone(), z.clone()], 0).unwrap();
    assert_eq!(a.name(), "stack:0");
    assert_eq!(a.shape(), Shape::known(&[3, 2]));
    assert_eq!(i32s(&run(&a)), vec![1, 4, 2, 5, 3, 6]);
    let b = ops::stack(&s, &[x.clone(), y.clone(), z.clone()], 1).unwrap();
    assert_eq!(b.shape(), Shape::known(&[2, 3]));
    assert_eq!(i32s(&run(&b)), vec![1, 2, 3, 4, 5, 6]);
    let b = ops::stack(&s, &[x.clone(), y.clone(), z.clone()], -1).unwrap();
    assert_eq!(i32s(&run(&b)), vec![1, 2, 3, 4, 5, 6]);
    let node = b.op().node();
    assert_eq!(node.attrs.get("N").unwrap(), &AttrValue::Int(3));
    assert_eq!(node.attrs.get("axis").unwrap(), &AttrValue::Int(-1));
    // scalars stack to a vector; bools
    let t = c(&s, &[], vec![true]);
    let f = c(&s, &[], vec![false]);
    let r = run(&ops::stack(&s, &[t, f], 0).unwrap());
    assert_eq!(r.shape(), &[2]);
    assert_eq!(r.to_vec::<bool>().unwrap(), vec![true, false]);
    // errors
    let w = c(&s, &[3], vec![1i32, 2, 3]);
    let e = ops::stack(&s, &[x.clone(), w], 0).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2]") && e.message.contains("[3]"), "{e}");
    assert_eq!(ops::stack(&s, &[x.clone(), y.clone()], 2).unwrap_err().code, Code::InvalidArgument);
    // partial shapes
    let p = ops::placeholder(&s, DType::Float, [None, Some(2)]).unwrap();
    let q = ops::placeholder(&s, DType::Float, [Some(4), None]).unwrap();
    assert_eq!(ops::stack(&s, &[p, q], 1).unwrap().shape(), Shape::partial(&[Some(4), Some(2), Some(2)]));
}

#[test]
fn unstack_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let parts = ops::unstack(&s, &x, 3, 1).unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[1].shape(), Shape::known(&[2]));
    assert_eq!(i32s(&run(&parts[0])), vec![1, 4]);
    assert_eq!(i32s(&run(&parts[2])), vec![3, 6]);
    let rows = ops::unstack(&s, &x, 2, 0).unwrap();
    assert_eq!(i32s(&run(&rows[1])), vec![4, 5, 6]);
    assert_eq!(ops::unstack(&s, &x, 4, 0).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn stack_and_unstack_gradients() {
    let inp = vec![one(&[2, 3], 10, -1.0, 1.0), one(&[2, 3], 11, -1.0, 1.0)];
    for axis in [0, 1, 2, -1] {
        let out_shape: Vec<usize> = match axis {
            0 => vec![2, 2, 3],
            1 => vec![2, 2, 3],
            _ => vec![2, 3, 2],
        };
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::stack(s, x, axis).unwrap(), &out_shape, 12));
    }
    let inp = vec![one(&[3, 2], 13, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let p = ops::unstack(s, &x[0], 2, 1).unwrap();
        // only part 0 used: part 1 gets zeros
        let a = weighted(s, &p[0], &[3], 14);
        let b = ops::mul(s, &p[1], &p[1]).unwrap();
        ops::add(s, &a, &ops::mul(s, &a, &b).unwrap()).unwrap()
    });
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::unstack(s, &x[0], 3, 0).unwrap()[2], &[2], 15));
}

// ---------------------------------------------------------------- Slice

fn tf_doc_t(s: &Scope) -> Output {
    c(s, &[3, 2, 3], vec![1i32, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6])
}

#[test]
fn slice_tf_doc_example() {
    let g = Graph::new();
    let s = g.scope();
    let t = tf_doc_t(&s);
    let a = ops::slice(&s, &t, &[1, 0, 0], &[1, 1, 3]).unwrap();
    assert_eq!(a.name(), "Slice:0");
    assert!(g.operation_by_name("Slice/begin").is_ok() && g.operation_by_name("Slice/size").is_ok());
    assert_eq!(a.shape(), Shape::known(&[1, 1, 3]));
    assert_eq!(i32s(&run(&a)), vec![3, 3, 3]);
    let b = ops::slice(&s, &t, &[1, 0, 0], &[1, 2, 3]).unwrap();
    assert_eq!(i32s(&run(&b)), vec![3, 3, 3, 4, 4, 4]);
    let c2 = ops::slice(&s, &t, &[1, 0, 0], &[2, 1, 3]).unwrap();
    assert_eq!(c2.shape(), Shape::known(&[2, 1, 3]));
    assert_eq!(i32s(&run(&c2)), vec![3, 3, 3, 5, 5, 5]);
    // size -1: to the end
    let d = ops::slice(&s, &t, &[1, 1, 1], &[-1, -1, -1]).unwrap();
    assert_eq!(d.shape(), Shape::known(&[2, 1, 2]));
    assert_eq!(i32s(&run(&d)), vec![4, 4, 6, 6]);
    // int64 begin/size (attr Index)
    let b64 = ops::constant(&s, Tensor::vector(vec![0i64, 1, 0])).unwrap();
    let z64 = ops::constant(&s, Tensor::vector(vec![3i64, 1, -1])).unwrap();
    let e = ops::slice_dyn(&s, &t, &b64, &z64).unwrap();
    assert_eq!(e.op().node().attrs.get("Index").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(i32s(&run(&e)), vec![2, 2, 2, 4, 4, 4, 6, 6, 6]);
    // strings
    let st =
        ops::constant(&s, Tensor::strings(&[3], vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]).unwrap()).unwrap();
    let r = run(&ops::slice(&s, &st, &[1], &[2]).unwrap());
    assert_eq!(r.shape(), &[2]);
}

#[test]
fn slice_errors() {
    let g = Graph::new();
    let s = g.scope();
    let t = tf_doc_t(&s);
    let e = ops::slice(&s, &t, &[4, 0, 0], &[1, 1, 1]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("begin[0]") && e.message.contains('4'), "{e}");
    let e = ops::slice(&s, &t, &[1, 0, 0], &[3, 1, 1]).unwrap_err();
    assert!(e.message.contains("size[0]"), "{e}");
    assert_eq!(ops::slice(&s, &t, &[0, 0], &[1, 1]).unwrap_err().code, Code::InvalidArgument);
    // run time, unknown input shape
    let p = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let out = ops::slice(&s, &p, &[1, 0], &[2, -1]).unwrap();
    assert_eq!(out.shape(), Shape::partial(&[Some(2), None]));
    let e = run_feed(&out, &[(&p, Tensor::new(&[2, 2], vec![1f32, 2.0, 3.0, 4.0]).unwrap())]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("size[0]") && e.message.contains("[2, 2]"), "{e}");
    let ok = run_feed(&out, &[(&p, Tensor::new(&[3, 2], vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap())]).unwrap();
    assert_eq!(f32s(&ok), vec![3.0, 4.0, 5.0, 6.0]);
}

#[test]
fn slice_gradient_pads() {
    // TensorFlow's _SliceGrad: the gradient is Pad-ded back to the input's shape
    // (the gradient subgraph is checked in tests/ops_pad.rs)
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s, DType::Double, [Some(3)]).unwrap();
    let y = ops::slice(&s, &p, &[1], &[1]).unwrap();
    let dx = tensorgraph::train::gradients(&[y], std::slice::from_ref(&p), None).unwrap()[0].clone().unwrap();
    assert_eq!(dx.name(), "gradients/Slice_grad/Pad:0");
    let r = run_feed(&dx, &[(&p, Tensor::new(&[3], vec![1f64, 2.0, 3.0]).unwrap())]).unwrap();
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![0.0, 1.0, 0.0]);
    let inp = vec![one(&[3, 4], 19, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::slice(s, &x[0], &[1, 0], &[-1, 3]).unwrap(), &[2, 3], 18));
}

// ---------------------------------------------------------------- Tile

#[test]
fn tile_tf_doc_example() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&s, &[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let t = ops::tile(&s, &a, &[1, 2]).unwrap();
    assert_eq!(t.name(), "Tile:0");
    assert_eq!(t.shape(), Shape::known(&[2, 6]));
    assert_eq!(i32s(&run(&t)), vec![1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
    let t = ops::tile(&s, &a, &[2, 1]).unwrap();
    assert_eq!(i32s(&run(&t)), vec![1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
    let t = ops::tile(&s, &a, &[2, 2]).unwrap();
    assert_eq!(t.shape(), Shape::known(&[4, 6]));
    assert_eq!(i32s(&run(&t)), vec![1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
    // int64 multiples, zero multiple, bool
    let m = ops::constant(&s, Tensor::vector(vec![0i64, 3])).unwrap();
    let t = ops::tile_dyn(&s, &a, &m).unwrap();
    assert_eq!(t.op().node().attrs.get("Tmultiples").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(t.shape(), Shape::known(&[0, 9]));
    assert_eq!(run(&t).shape(), &[0, 9]);
    let b = c(&s, &[2], vec![true, false]);
    assert_eq!(run(&ops::tile(&s, &b, &[2]).unwrap()).to_vec::<bool>().unwrap(), vec![true, false, true, false]);
    // errors
    let e = ops::tile(&s, &a, &[2]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]"), "{e}");
    assert_eq!(ops::tile(&s, &a, &[1, -1]).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn tile_gradient() {
    let inp = vec![one(&[2, 3], 20, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::tile(s, &x[0], &[2, 3]).unwrap(), &[4, 9], 21));
    let inp = vec![one(&[2, 1, 2], 22, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::tile(s, &x[0], &[1, 3, 2]).unwrap(), &[2, 3, 4], 23));
    check_gradients(&inp, TOL, |s, x| {
        let m = ops::constant(s, Tensor::vector(vec![2i64, 1, 1])).unwrap();
        weighted(s, &ops::tile_dyn(s, &x[0], &m).unwrap(), &[4, 1, 2], 24)
    });
}

// ---------------------------------------------------------------- GatherV2

#[test]
fn gather_tf_doc_examples() {
    let g = Graph::new();
    let s = g.scope();
    let names: Vec<Vec<u8>> = (0..6).map(|i| format!("p{i}").into_bytes()).collect();
    let params = ops::constant(&s, Tensor::strings(&[6], names).unwrap()).unwrap();
    let idx = c(&s, &[4], vec![2i32, 0, 2, 5]);
    let out = ops::gather(&s, &params, &idx, 0).unwrap();
    assert_eq!(out.name(), "GatherV2:0");
    assert!(g.operation_by_name("GatherV2/axis").is_ok());
    let node = out.op().node();
    assert_eq!(node.attrs.get("Tparams").unwrap(), &AttrValue::Type(DType::String));
    assert_eq!(node.attrs.get("Tindices").unwrap(), &AttrValue::Type(DType::Int32));
    assert_eq!(node.attrs.get("Taxis").unwrap(), &AttrValue::Type(DType::Int32));
    assert_eq!(node.attrs.get("batch_dims").unwrap(), &AttrValue::Int(0));
    let r = run(&out);
    assert_eq!(r.shape(), &[4]);
    match r.storage() {
        tensorgraph::tensor::Storage::Str(v) => {
            assert_eq!(v, &vec![b"p2".to_vec(), b"p0".to_vec(), b"p2".to_vec(), b"p5".to_vec()])
        }
        other => panic!("{other:?}"),
    }
    // 2-d params, axis 0 and 1; 2-d indices
    let p = c(&s, &[3, 3], vec![0.0f32, 1.0, 2.0, 10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    let rows = ops::gather(&s, &p, &c(&s, &[2], vec![2i64, 0]), 0).unwrap();
    assert_eq!(rows.shape(), Shape::known(&[2, 3]));
    assert_eq!(f32s(&run(&rows)), vec![20.0, 21.0, 22.0, 0.0, 1.0, 2.0]);
    let cols = ops::gather(&s, &p, &c(&s, &[2, 2], vec![2i32, 0, 1, 1]), 1).unwrap();
    assert_eq!(cols.shape(), Shape::known(&[3, 2, 2]));
    assert_eq!(f32s(&run(&cols)), vec![2.0, 0.0, 1.0, 1.0, 12.0, 10.0, 11.0, 11.0, 22.0, 20.0, 21.0, 21.0]);
    let last = ops::gather(&s, &p, &c(&s, &[], vec![1i32]), -1).unwrap();
    assert_eq!(last.shape(), Shape::known(&[3]));
    assert_eq!(f32s(&run(&last)), vec![1.0, 11.0, 21.0]);
    // int64 axis
    let ax = ops::constant(&s, Tensor::scalar(1i64)).unwrap();
    let out = ops::gather_dyn(&s, &p, &c(&s, &[1], vec![0i32]), &ax).unwrap();
    assert_eq!(out.op().node().attrs.get("Taxis").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(f32s(&run(&out)), vec![0.0, 10.0, 20.0]);
}

#[test]
fn gather_errors() {
    let g = Graph::new();
    let s = g.scope();
    let p = c(&s, &[3, 2], vec![1i32, 2, 3, 4, 5, 6]);
    let out = ops::gather(&s, &p, &c(&s, &[3], vec![0i32, 7, 1]), 0).unwrap();
    let e = run_err(&out);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("indices[1] = 7") && e.message.contains("[0, 3)"), "{e}");
    let out = ops::gather(&s, &p, &c(&s, &[1], vec![-1i64]), 1).unwrap();
    let e = run_err(&out);
    assert!(e.message.contains("indices[0] = -1"), "{e}");
    assert_eq!(ops::gather(&s, &p, &c(&s, &[1], vec![0i32]), 2).unwrap_err().code, Code::InvalidArgument);
    // batch_dims != 0
    let ax = ops::constant(&s, Tensor::scalar(0i32)).unwrap();
    let idx = c(&s, &[3, 1], vec![0i32, 1, 0]);
    let e = s
        .op("GatherV2", "GatherV2")
        .input(&p)
        .input(&idx)
        .input(&ax)
        .attr("Tparams", DType::Int32)
        .attr("Tindices", DType::Int32)
        .attr("Taxis", DType::Int32)
        .attr("batch_dims", 1i64)
        .build()
        .unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("batch_dims"), "{e}");
    // float indices are rejected
    let fi = c(&s, &[1], vec![0f32]);
    assert_eq!(ops::gather(&s, &p, &fi, 0).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn gather_gradients() {
    let inp = vec![one(&[4, 3], 30, -1.0, 1.0)];
    // repeated indices accumulate
    check_gradients(&inp, TOL, |s, x| {
        let idx = ops::constant(s, Tensor::vector(vec![3i32, 0, 3, 1])).unwrap();
        weighted(s, &ops::gather(s, &x[0], &idx, 0).unwrap(), &[4, 3], 31)
    });
    check_gradients(&inp, TOL, |s, x| {
        let idx = ops::constant(s, Tensor::new(&[2, 2], vec![2i64, 2, 0, 1]).unwrap()).unwrap();
        weighted(s, &ops::gather(s, &x[0], &idx, 1).unwrap(), &[4, 2, 2], 32)
    });
    let inp = vec![one(&[2, 3, 4], 33, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let idx = ops::constant(s, Tensor::vector(vec![1i32, 1, 2])).unwrap();
        weighted(s, &ops::gather(s, &x[0], &idx, 1).unwrap(), &[2, 3, 4], 34)
    });
    check_gradients(&inp, TOL, |s, x| {
        let idx = ops::constant(s, Tensor::scalar(3i32)).unwrap();
        weighted(s, &ops::gather(s, &x[0], &idx, -1).unwrap(), &[2, 3], 35)
    });
}

#[test]
fn unsorted_segment_sum_values_and_gradient() {
    let g = Graph::new();
    let s = g.scope();
    // TF doc: c = [[1,2,3,4],[5,6,7,8],[4,3,2,1]], ids [0,1,0], 2 -> [[5,5,5,5],[5,6,7,8]]
    let data = c(&s, &[3, 4], vec![1i32, 2, 3, 4, 5, 6, 7, 8, 4, 3, 2, 1]);
    let ids = c(&s, &[3], vec![0i32, 1, 0]);
    let n = ops::constant(&s, Tensor::scalar(2i32)).unwrap();
    let out = ops::unsorted_segment_sum(&s, &data, &ids, &n).unwrap();
    assert_eq!(out.shape(), Shape::known(&[2, 4]));
    assert_eq!(i32s(&run(&out)), vec![5, 5, 5, 5, 5, 6, 7, 8]);
    let bad = c(&s, &[3], vec![0i32, 2, 0]);
    let e = run_err(&ops::unsorted_segment_sum(&s, &data, &bad, &n).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("segment_ids[1] = 2"), "{e}");
    let inp = vec![one(&[3, 2], 36, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let ids = ops::constant(s, Tensor::vector(vec![1i32, 0, 1])).unwrap();
        let n = ops::constant(s, Tensor::scalar(3i32)).unwrap();
        weighted(s, &ops::unsorted_segment_sum(s, &x[0], &ids, &n).unwrap(), &[3, 2], 37)
    });
}

// ---------------------------------------------------------------- Prod

#[test]
fn prod_values() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]);
    let all = ops::reduce_prod(&s, &x, None, false).unwrap();
    assert_eq!(all.name(), "Prod:0");
    assert_eq!(all.shape(), Shape::scalar());
    assert_eq!(f32s(&run(&all)), vec![24.0]);
    let a0 = ops::reduce_prod(&s, &x, Some(&[0]), false).unwrap();
    assert_eq!(f32s(&run(&a0)), vec![3.0, 8.0]);
    let a1 = ops::reduce_prod(&s, &x, Some(&[-1]), true).unwrap();
    assert_eq!(a1.shape(), Shape::known(&[2, 1]));
    assert_eq!(f32s(&run(&a1)), vec![2.0, 12.0]);
    let xi = c(&s, &[3], vec![2i64, -3, 5]);
    assert_eq!(run(&ops::reduce_prod(&s, &xi, Some(&[0]), false).unwrap()).to_vec::<i64>().unwrap(), vec![-30]);
    // empty reduction gives 1
    let e = c(&s, &[0, 2], Vec::<f64>::new());
    assert_eq!(run(&ops::reduce_prod(&s, &e, Some(&[0]), false).unwrap()).to_vec::<f64>().unwrap(), vec![1.0, 1.0]);
    // int64 reduction_indices (Tidx)
    let ax = ops::constant(&s, Tensor::vector(vec![1i64])).unwrap();
    let p = s
        .op("Prod", "Prod")
        .input(&x)
        .input(&ax)
        .attr("T", DType::Float)
        .attr("Tidx", DType::Int64)
        .attr("keep_dims", false)
        .build_output()
        .unwrap();
    assert_eq!(f32s(&run(&p)), vec![2.0, 12.0]);
    assert_eq!(ops::reduce_prod(&s, &x, Some(&[2]), false).unwrap_err().code, Code::InvalidArgument);
}

// ---------------------------------------------------------------- FloorMod / FloorDiv

#[test]
fn floor_mod_as_python() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[6], vec![7i32, -7, 7, -7, 6, 0]);
    let y = c(&s, &[6], vec![3i32, 3, -3, -3, 3, -5]);
    let m = ops::floor_mod(&s, &x, &y).unwrap();
    assert_eq!(m.name(), "FloorMod:0");
    assert_eq!(i32s(&run(&m)), vec![1, 2, -2, -1, 0, 0]);
    assert_eq!(i32s(&run(&ops::floor_div(&s, &x, &y).unwrap())), vec![2, -3, -3, 2, 2, 0]);
    let x64 = c(&s, &[2], vec![i64::MIN, -5]);
    let y64 = c(&s, &[2], vec![-1i64, 2]);
    assert_eq!(run(&ops::floor_mod(&s, &x64, &y64).unwrap()).to_vec::<i64>().unwrap(), vec![0, 1]);
    let xf = c(&s, &[4], vec![7.5f32, -7.5, 7.5, -7.5]);
    let yf = c(&s, &[4], vec![2.0f32, 2.0, -2.0, -2.0]);
    assert_eq!(f32s(&run(&ops::floor_mod(&s, &xf, &yf).unwrap())), vec![1.5, 0.5, -0.5, -1.5]);
    assert_eq!(f32s(&run(&ops::floor_div(&s, &xf, &yf).unwrap())), vec![3.0, -4.0, -4.0, 3.0]);
    // broadcasting
    let xb = c(&s, &[2, 2], vec![5.0f64, -5.0, 9.0, -1.0]);
    let yb = c(&s, &[2], vec![3.0f64, 4.0]);
    let r = ops::floor_mod(&s, &xb, &yb).unwrap();
    assert_eq!(r.shape(), Shape::known(&[2, 2]));
    assert_eq!(run(&r).to_vec::<f64>().unwrap(), vec![2.0, 3.0, 0.0, 3.0]);
    // float by zero: NaN; int by zero: error
    let z = c(&s, &[], vec![0.0f32]);
    assert!(f32s(&run(&ops::floor_mod(&s, &xf, &z).unwrap())).iter().all(|v| v.is_nan()));
    let zi = c(&s, &[], vec![0i32]);
    let e = run_err(&ops::floor_mod(&s, &x, &zi).unwrap());
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("division by zero"), "{e}");
    // shape mismatch names both shapes
    let y3 = c(&s, &[3], vec![1i32, 2, 3]);
    let e = ops::floor_mod(&s, &x, &y3).unwrap_err();
    assert!(e.message.contains("[6]") && e.message.contains("[3]"), "{e}");
}

#[test]
fn floor_mod_gradient() {
    // keep x / y away from integers (the kinks)
    let x: Vec<f64> = vec![2.3, -4.6, 7.1, -1.2, 5.5, 0.4];
    let y: Vec<f64> = vec![1.5, 2.1, -3.3];
    let inp = vec![(vec![2, 3], x), (vec![3], y)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::floor_mod(s, &x[0], &x[1]).unwrap(), &[2, 3], 40));
}

// ---------------------------------------------------------------- Transpose

#[test]
fn transpose_tf_doc_examples() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 3], vec![1i32, 2, 3, 4, 5, 6]);
    let t = ops::transpose(&s, &x, &[1, 0]).unwrap();
    assert_eq!(t.name(), "transpose:0");
    assert!(g.operation_by_name("transpose/perm").is_ok());
    assert_eq!(t.shape(), Shape::known(&[3, 2]));
    assert_eq!(i32s(&run(&t)), vec![1, 4, 2, 5, 3, 6]);
    let x3 = c(&s, &[2, 2, 3], (1..=12).collect::<Vec<i32>>());
    let t3 = ops::transpose(&s, &x3, &[0, 2, 1]).unwrap();
    assert_eq!(t3.shape(), Shape::known(&[2, 3, 2]));
    assert_eq!(i32s(&run(&t3)), vec![1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12]);
    let t4 = ops::transpose(&s, &x3, &[2, 0, 1]).unwrap();
    assert_eq!(t4.shape(), Shape::known(&[3, 2, 2]));
    assert_eq!(i32s(&run(&t4)), vec![1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12]);
    // int64 perm (Tperm), partial shapes, bool
    let p = ops::placeholder(&s, DType::Bool, [None, Some(3)]).unwrap();
    let perm = ops::constant(&s, Tensor::vector(vec![1i64, 0])).unwrap();
    let tp = ops::transpose_dyn(&s, &p, &perm).unwrap();
    assert_eq!(tp.op().node().attrs.get("Tperm").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(tp.shape(), Shape::partial(&[Some(3), None]));
    let r = run_feed(&tp, &[(&p, Tensor::new(&[1, 3], vec![true, false, true]).unwrap())]).unwrap();
    assert_eq!(r.shape(), &[3, 1]);
    // errors
    let e = ops::transpose(&s, &x, &[0, 0]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("[2, 3]"), "{e}");
    assert_eq!(ops::transpose(&s, &x, &[0, 1, 2]).unwrap_err().code, Code::InvalidArgument);
    assert_eq!(ops::transpose(&s, &x, &[0, 2]).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn transpose_gradients() {
    let inp = vec![one(&[2, 3, 4], 50, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::transpose(s, &x[0], &[2, 0, 1]).unwrap(), &[4, 2, 3], 51));
    check_gradients(&inp, TOL, |s, x| {
        let perm = ops::constant(s, Tensor::vector(vec![1i64, 2, 0])).unwrap();
        weighted(s, &ops::transpose_dyn(s, &x[0], &perm).unwrap(), &[3, 4, 2], 52)
    });
}

// ---------------------------------------------------------------- Squeeze

#[test]
fn squeeze_tf_doc_examples() {
    let g = Graph::new();
    let s = g.scope();
    let t = c(&s, &[1, 2, 1, 3, 1, 1], (0..6).map(|v| v as f32).collect());
    let a = ops::squeeze(&s, &t, &[]).unwrap();
    assert_eq!(a.name(), "Squeeze:0");
    assert_eq!(a.shape(), Shape::known(&[2, 3]));
    assert_eq!(run(&a).shape(), &[2, 3]);
    let b = ops::squeeze(&s, &t, &[2, 4]).unwrap();
    assert_eq!(b.shape(), Shape::known(&[1, 2, 3, 1]));
    assert_eq!(b.op().node().attrs.get("squeeze_dims").unwrap(), &AttrValue::ListInt(vec![2, 4]));
    assert_eq!(run(&b).shape(), &[1, 2, 3, 1]);
    let n = ops::squeeze(&s, &t, &[-1]).unwrap();
    assert_eq!(n.shape(), Shape::known(&[1, 2, 1, 3, 1]));
    let e = ops::squeeze(&s, &t, &[1]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Can not squeeze dim[1]") && e.message.contains("[1, 2, 1, 3, 1, 1]"), "{e}");
    assert_eq!(ops::squeeze(&s, &t, &[6]).unwrap_err().code, Code::InvalidArgument);
    // unknown dim: squeezing it is checked at run time
    let p = ops::placeholder(&s, DType::Float, [None, Some(2)]).unwrap();
    let q = ops::squeeze(&s, &p, &[0]).unwrap();
    assert_eq!(q.shape(), Shape::known(&[2]));
    let e = run_feed(&q, &[(&p, Tensor::new(&[2, 2], vec![0f32; 4]).unwrap())]).unwrap_err();
    assert!(e.message.contains("Can not squeeze dim[0]"), "{e}");
    assert_eq!(ops::squeeze(&s, &p, &[]).unwrap().shape(), Shape::unknown());
}

#[test]
fn squeeze_gradient() {
    let inp = vec![one(&[1, 3, 1, 2], 60, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::squeeze(s, &x[0], &[]).unwrap(), &[3, 2], 61));
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::squeeze(s, &x[0], &[2]).unwrap(), &[1, 3, 2], 62));
}

// ---------------------------------------------------------------- Range

#[test]
fn range_tf_doc_examples() {
    let g = Graph::new();
    let s = g.scope();
    let r = ops::range(&s, 3, 18, 3).unwrap();
    assert_eq!(r.name(), "range:0");
    assert_eq!(r.shape(), Shape::known(&[5]));
    assert_eq!(i32s(&run(&r)), vec![3, 6, 9, 12, 15]);
    assert_eq!(i32s(&run(&ops::range(&s, 0, 5, 1).unwrap())), vec![0, 1, 2, 3, 4]);
    assert_eq!(i32s(&run(&ops::range(&s, 5, 0, -2).unwrap())), vec![5, 3, 1]);
    let f = |v: f32| ops::constant(&s, Tensor::scalar(v)).unwrap();
    let rf = ops::range_dyn(&s, &f(3.0), &f(1.0), &f(-0.5)).unwrap();
    assert_eq!(rf.shape(), Shape::known(&[4]));
    assert_eq!(f32s(&run(&rf)), vec![3.0, 2.5, 2.0, 1.5]);
    let i = |v: i64| ops::constant(&s, Tensor::scalar(v)).unwrap();
    let ri = ops::range_dyn(&s, &i(0), &i(3), &i(1)).unwrap();
    assert_eq!(ri.op().node().attrs.get("Tidx").unwrap(), &AttrValue::Type(DType::Int64));
    assert_eq!(run(&ri).to_vec::<i64>().unwrap(), vec![0, 1, 2]);
    assert_eq!(ops::range(&s, 0, 5, 0).unwrap_err().code, Code::InvalidArgument);
    let e = ops::range(&s, 5, 0, 1).unwrap_err();
    assert!(e.message.contains("start <= limit"), "{e}");
    // dynamic limit: unknown length, checked at run time
    let p = ops::placeholder(&s, DType::Int32, Shape::scalar()).unwrap();
    let rd = ops::range_dyn(
        &s,
        &ops::constant(&s, Tensor::scalar(0i32)).unwrap(),
        &p,
        &ops::constant(&s, Tensor::scalar(1i32)).unwrap(),
    )
    .unwrap();
    assert_eq!(rd.shape(), Shape::partial(&[None]));
    assert_eq!(i32s(&run_feed(&rd, &[(&p, Tensor::scalar(2i32))]).unwrap()), vec![0, 1]);
    assert_eq!(run_feed(&rd, &[(&p, Tensor::scalar(-2i32))]).unwrap_err().code, Code::InvalidArgument);
}

#[test]
fn slice_indices_outside_int32_are_int64_and_a_placeholder_begin_gives_the_rank() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::new(&[3, 4], (0..12).map(|v| v as f32).collect::<Vec<_>>()).unwrap()).unwrap();
    // never wrapped into int32: the begin is out of range, as TensorFlow says
    let e = ops::slice(&s, &x, &[(1i64 << 32) + 2, 0], &[1, 2]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Expected begin[0] in [0, 3], but got 4294967298"), "{e}");
    let ok = ops::slice(&s, &x, &[2, 0], &[1, 2]).unwrap();
    assert_eq!(ok.op().node().attr_type("Index").unwrap(), DType::Int32);
    // a begin fed at run time: the rank comes from its length
    let begin = ops::placeholder(&s.named("begin"), DType::Int32, [Some(2)]).unwrap();
    let size = ops::constant(&s, Tensor::new(&[2], vec![-1i32, 2]).unwrap()).unwrap();
    let y = ops::slice_dyn(&s, &x, &begin, &size).unwrap();
    assert_eq!(y.shape().rank(), Some(2));
    let z =
        ops::slice_dyn(&s, &ops::placeholder(&s, DType::Float, tensorgraph::Shape::unknown()).unwrap(), &begin, &size)
            .unwrap();
    assert_eq!(z.shape(), tensorgraph::Shape::partial(&[None, Some(2)]));
}

/// ZerosLike has a zero for every dtype, strings and bool included (TensorFlow registers
/// its string kernel); OnesLike makes numbers.
#[test]
fn zeros_like_and_ones_like_every_dtype() {
    let g = Graph::new();
    let s = g.scope();
    let strs = ops::constant(&s, Tensor::strings(&[2], vec![b"a".to_vec(), b"bc".to_vec()]).unwrap()).unwrap();
    let z = run(&ops::zeros_like(&s, &strs).unwrap());
    assert_eq!(z, Tensor::strings(&[2], vec![vec![], vec![]]).unwrap());
    let b = c(&s, &[3], vec![true, false, true]);
    assert_eq!(run(&ops::zeros_like(&s, &b).unwrap()).to_vec::<bool>().unwrap(), vec![false; 3]);
    let x = c(&s, &[2, 1], vec![3i64, -4]);
    assert_eq!(run(&ops::zeros_like(&s, &x).unwrap()).to_vec::<i64>().unwrap(), vec![0, 0]);
    assert_eq!(run(&ops::ones_like(&s, &x).unwrap()).to_vec::<i64>().unwrap(), vec![1, 1]);
}

/// `tf.shape_n([zeros([2, 3]), zeros([4]), zeros([])])` as TensorFlow 2.21 gives it:
/// `[2, 3]`, `[4]`, `[]` (int32; int64 with `out_type`), and no gradient op to build.
#[test]
fn shape_n_gives_each_inputs_shape() {
    let g = tensorgraph::Graph::new();
    let s = g.scope();
    let z =
        |d: &[usize]| ops::constant(&s, tensorgraph::Tensor::new(d, vec![0f32; d.iter().product()]).unwrap()).unwrap();
    let xs = [z(&[2, 3]), z(&[4]), z(&[])];
    let outs = ops::shape_n(&s, &xs).unwrap();
    assert_eq!(outs.iter().map(|o| o.name()).collect::<Vec<_>>(), ["ShapeN:0", "ShapeN:1", "ShapeN:2"]);
    let sess = tensorgraph::Session::new(&g).unwrap();
    let got = sess.run(&[], &outs.iter().collect::<Vec<_>>(), &[]).unwrap();
    assert_eq!(got[0].to_vec::<i32>().unwrap(), [2, 3]);
    assert_eq!(got[1].to_vec::<i32>().unwrap(), [4]);
    assert_eq!((got[2].shape(), got[2].num_elements()), (&[0usize][..], 0));
    let wide = s.op("ShapeN", "ShapeN").input(&xs[0]).attr("N", 1i64).attr("T", tensorgraph::DType::Float);
    let w = wide.attr("out_type", tensorgraph::DType::Int64).build_output().unwrap();
    assert_eq!(sess.run(&[], &[&w], &[]).unwrap()[0].to_vec::<i64>().unwrap(), [2, 3]);
}
