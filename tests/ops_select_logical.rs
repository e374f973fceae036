//! SelectV2, Equal/NotEqual on every dtype, LogicalAnd/Or/Not, StopGradient and
//! PreventGradient: values as TensorFlow 2.21 gives them (`scripts/gen_ops_arrays.py
//! values`, cases `sel_*`, `eq_*`, `ne_*`, `land`, `lor`), errors, and gradients.

mod common;
use common::{check_gradients, one, weighted};
use tensorgraph::graph::AttrValue;
use tensorgraph::tensor::Storage;
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn strings(s: &Scope, v: &[&str]) -> Output {
    let t = Tensor::strings(&[v.len()], v.iter().map(|w| w.as_bytes().to_vec()).collect()).unwrap();
    ops::constant(s, t).unwrap()
}

#[test]
fn select_v2_broadcasts_all_three_inputs() {
    let g = Graph::new();
    let s = g.scope();
    let cond = c(&s, &[2, 1], vec![true, false]);
    let x = c(&s, &[3], vec![0f32, 1.0, 2.0]);
    let y = c(&s, &[], vec![-1f32]);
    let z = ops::where_v2(&s, &cond, &x, &y).unwrap();
    assert_eq!(z.name(), "SelectV2:0");
    assert_eq!(z.shape(), Shape::known(&[2, 3]));
    let r = run(&z).unwrap();
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(r.to_vec::<f32>().unwrap(), [0.0, 1.0, 2.0, -1.0, -1.0, -1.0]);
    // strings
    let z = ops::where_v2(&s, &c(&s, &[2], vec![true, false]), &strings(&s, &["a", "b"]), &strings(&s, &["c", "d"]))
        .unwrap();
    assert_eq!(run(&z).unwrap().storage(), &Storage::Str(vec![b"a".to_vec(), b"d".to_vec()]));
    // errors: a non-bool condition, dtypes that differ, shapes that do not broadcast
    let e = ops::where_v2(&s, &x, &x, &x).unwrap_err();
    assert!(e.message.contains("input 0 has dtype float32; this op accepts bool"), "{}", e.message);
    let e = ops::where_v2(&s, &cond, &x, &c(&s, &[], vec![1i32])).unwrap_err();
    assert!(e.message.contains("must have one dtype"), "{}", e.message);
    let e = ops::where_v2(&s, &c(&s, &[2], vec![true, false]), &x, &y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Dimensions must be equal, but are 2 and 3"), "{}", e.message);
}

#[test]
fn select_v2_gradient_sums_back_to_each_input() {
    let inp = vec![one(&[2, 3], 1, -1.0, 1.0), one(&[3], 2, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        let cond = c(s, &[2, 1], vec![true, false]);
        let y = ops::where_v2(s, &cond, &x[0], &x[1]).unwrap();
        weighted(s, &y, &[2, 3], 3)
    });
    check_gradients(&inp, TOL, |s, x| {
        let cond = c(s, &[3], vec![false, true, true]);
        let y = ops::where_v2(s, &cond, &x[1], &x[0]).unwrap();
        weighted(s, &y, &[2, 3], 4)
    });
    // the layout: SelectV2 of the gradient and a zeros Const, nothing to the condition
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [3]).unwrap();
    let cond = ops::placeholder(&s.named("c"), DType::Bool, [3]).unwrap();
    let z = ops::where_v2(&s, &cond, &x, &x).unwrap();
    let gr = gradients(&[z], &[x, cond], None).unwrap();
    assert!(gr[1].is_none());
    assert_eq!(g.operation_by_name("gradients/SelectV2_grad/zeros").unwrap().op_type(), "Const");
    assert_eq!(g.operation_by_name("gradients/SelectV2_grad/SelectV2_1").unwrap().op_type(), "SelectV2");
    assert_eq!(gr[0].as_ref().unwrap().name(), "gradients/AddN:0");
}

#[test]
fn equal_and_not_equal_on_every_dtype() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&s, &[3], vec![1f32, f32::NAN, 0.0]);
    let b = c(&s, &[3], vec![1f32, f32::NAN, -0.0]);
    let ne = ops::not_equal(&s, &a, &b).unwrap();
    assert_eq!(ne.name(), "NotEqual:0");
    assert_eq!(ne.dtype(), DType::Bool);
    assert_eq!(run(&ne).unwrap().to_vec::<bool>().unwrap(), [false, true, false]);
    assert_eq!(run(&ops::equal(&s, &a, &b).unwrap()).unwrap().to_vec::<bool>().unwrap(), [true, false, true]);
    let u = ops::equal(&s, &c(&s, &[2, 1], vec![1u8, 200]), &c(&s, &[3], vec![1u8, 200, 3])).unwrap();
    assert_eq!(u.shape(), Shape::known(&[2, 3]));
    assert_eq!(run(&u).unwrap().to_vec::<bool>().unwrap(), [true, false, false, false, true, false]);
    let h = |v: &[f32]| v.iter().map(|&x| half::f16::from_f32(x)).collect::<Vec<_>>();
    let hh = ops::equal(&s, &c(&s, &[2], h(&[1.5, 2.0])), &c(&s, &[], h(&[1.5]))).unwrap();
    assert_eq!(run(&hh).unwrap().to_vec::<bool>().unwrap(), [true, false]);
    let st = ops::equal(
        &s,
        &strings(&s, &["a", "b"]),
        &ops::constant(&s, Tensor::strings(&[], vec![b"a".to_vec()]).unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(run(&st).unwrap().to_vec::<bool>().unwrap(), vec![true, false]);
    for (t, x, y, want) in [
        ("int8", c(&s, &[2], vec![-1i8, 2]), c(&s, &[2], vec![-1i8, 3]), vec![false, true]),
        ("int64", c(&s, &[2], vec![7i64, 8]), c(&s, &[2], vec![7i64, 9]), vec![false, true]),
        ("bool", c(&s, &[2], vec![true, false]), c(&s, &[2], vec![true, true]), vec![false, true]),
        ("uint32", c(&s, &[2], vec![4u32, 5]), c(&s, &[2], vec![4u32, 4]), vec![false, true]),
    ] {
        assert_eq!(run(&ops::not_equal(&s, &x, &y).unwrap()).unwrap().to_vec::<bool>().unwrap(), want, "{t}");
    }
    // incompatible shapes: an error, or with incompatible_shape_error = false a scalar
    let x = c(&s, &[3], vec![1i32, 2, 3]);
    let y = c(&s, &[2], vec![1i32, 2]);
    let e = ops::not_equal(&s, &x, &y).unwrap_err();
    assert!(e.message.contains("Dimensions must be equal, but are 3 and 2"), "{}", e.message);
    for (op, want) in [("Equal", false), ("NotEqual", true)] {
        let o = s.op(op, op).input(&x).input(&y).attr("T", DType::Int32).attr("incompatible_shape_error", false);
        let o = o.build_output().unwrap();
        assert_eq!(o.shape(), Shape::unknown());
        let r = run(&o).unwrap();
        assert_eq!(r.shape(), &[] as &[usize]);
        assert_eq!(r.to_vec::<bool>().unwrap(), vec![want], "{op}");
    }
}

#[test]
fn logical_ops() {
    let g = Graph::new();
    let s = g.scope();
    let a = c(&s, &[2, 1], vec![true, false]);
    let b = c(&s, &[2], vec![true, false]);
    let and = ops::logical_and(&s, &a, &b).unwrap();
    assert_eq!(and.name(), "LogicalAnd:0");
    assert_eq!(and.shape(), Shape::known(&[2, 2]));
    assert_eq!(run(&and).unwrap().to_vec::<bool>().unwrap(), [true, false, false, false]);
    assert_eq!(
        run(&ops::logical_or(&s, &a, &b).unwrap()).unwrap().to_vec::<bool>().unwrap(),
        [true, true, true, false]
    );
    let not = ops::logical_not(&s, &b).unwrap();
    assert_eq!(run(&not).unwrap().to_vec::<bool>().unwrap(), vec![false, true]);
    assert!(!and.op().node().attrs.contains_key("T"), "LogicalAnd has no type attr");
    let f = c(&s, &[2], vec![1f32, 0.0]);
    let e = ops::logical_and(&s, &f, &b).unwrap_err();
    assert!(e.message.contains("this op accepts bool"), "{}", e.message);
    assert!(ops::logical_not(&s, &f).is_err());
}

#[test]
fn stop_and_prevent_gradient() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2]).unwrap();
    let stopped = ops::stop_gradient(&s, &x).unwrap();
    assert_eq!(stopped.name(), "StopGradient:0");
    let y = ops::add(&s, &ops::mul(&s, &stopped, &x).unwrap(), &x).unwrap();
    let gx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::vector(vec![3f32, -2.0]);
    // d/dx (stop(x) * x + x) = stop(x) + 1
    let r = sess.run(&[(&x, xv)], &[&gx, &stopped], &[]).unwrap();
    assert_eq!(r[0].to_vec::<f32>().unwrap(), vec![4.0, -1.0]);
    assert_eq!(r[1].to_vec::<f32>().unwrap(), vec![3.0, -2.0]);
    let p = ops::prevent_gradient(&s, &x, "no way").unwrap();
    assert_eq!(p.op().node().attrs.get("message"), Some(&AttrValue::String(b"no way".to_vec())));
    let e = gradients(&[p], &[x], None).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.ends_with("Gradient explicitly disabled. Reason: no way"), "{}", e.message);
    assert!(e.message.contains("PreventGradient"), "{}", e.message);
}
