//! Abs, Sign, Floor, Ceil, Round, Pow, SquaredDifference, DivNoNan, Cumsum, Cumprod,
//! ClipByValue, L2Loss, Min/All/Any over any axes, Prod's gradient and ArgMin: values as
//! TensorFlow 2.21 gives them (`scripts/gen_ops_arrays.py values`), errors, and
//! finite-difference gradient checks.

mod common;
use common::{check_gradients, one, values, weighted};
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

/// Asserts float32 results equal TensorFlow's bit for bit (0.0 and -0.0 told apart).
fn same_f32(got: &Tensor, want: &[f64]) {
    let got = got.to_vec::<f32>().unwrap();
    let want: Vec<f32> = want.iter().map(|&v| v as f32).collect();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want), "{got:?} vs TensorFlow {want:?}");
}

#[test]
fn sign_and_rounding_functions() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[9], vec![-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5, -0.2, 3.7, 0.0]);
    type Unary = fn(&Scope, &Output) -> tensorgraph::Result<Output>;
    let cases: [(&str, Unary, Vec<f64>); 5] = [
        ("Abs", ops::abs, [2.5, 1.5, 0.5, 0.5, 1.5, 2.5, 0.20000000298023224, 3.700000047683716, 0.0].to_vec()),
        ("Sign", ops::sign, [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 0.0].to_vec()),
        ("Floor", ops::floor, [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -1.0, 3.0, 0.0].to_vec()),
        ("Ceil", ops::ceil, [-2.0, -1.0, -0.0, 1.0, 2.0, 3.0, -0.0, 4.0, 0.0].to_vec()),
        ("Round", ops::round, [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, -0.0, 4.0, 0.0].to_vec()),
    ];
    for (name, f, want) in cases {
        let y = f(&s, &x).unwrap();
        assert_eq!(y.op().op_type(), name);
        assert_eq!(y.name(), format!("{name}:0"));
        same_f32(&run(&y).unwrap(), &want);
    }
    let i = c(&s, &[4], vec![-3i32, 0, 4, i32::MIN]);
    assert_eq!(run(&ops::abs(&s, &i).unwrap()).unwrap().to_vec::<i32>().unwrap(), [3, 0, 4, -2147483648]);
    let l = c(&s, &[3], vec![-3i64, 0, 4]);
    assert_eq!(run(&ops::sign(&s, &l).unwrap()).unwrap().to_vec::<i64>().unwrap(), [-1, 0, 1]);
    assert_eq!(run(&ops::round(&s, &l).unwrap()).unwrap().to_vec::<i64>().unwrap(), vec![-3, 0, 4]);
    let nan = run(&ops::sign(&s, &c(&s, &[1], vec![f64::NAN])).unwrap()).unwrap();
    assert!(nan.to_vec::<f64>().unwrap()[0].is_nan());
    let e = ops::floor(&s, &i).unwrap_err();
    assert!(e.message.contains("Value for attr 'T' of int32 is not in the list of allowed values"), "{}", e.message);
}

#[test]
fn pow_squared_difference_div_no_nan() {
    let g = Graph::new();
    let s = g.scope();
    let y = ops::pow(&s, &c(&s, &[2, 1], vec![2f32, 0.5]), &c(&s, &[3], vec![3f32, -1.0, 0.5])).unwrap();
    assert_eq!(y.name(), "Pow:0");
    assert_eq!(y.shape(), Shape::known(&[2, 3]));
    same_f32(&run(&y).unwrap(), &[8.0, 0.5, 1.4142135381698608, 0.125, 2.0, 0.7071067690849304]);
    let y = ops::pow(&s, &c(&s, &[3], vec![2i64, -3, 5]), &c(&s, &[3], vec![10i64, 3, 0])).unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<i64>().unwrap(), [1024, -27, 1]);
    let y = ops::pow(&s, &c(&s, &[2], vec![2i32, 3]), &c(&s, &[2], vec![-1i32, 2])).unwrap();
    let e = run(&y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.ends_with("Integers to negative integer powers are not allowed"), "{}", e.message);
    let d = ops::squared_difference(&s, &c(&s, &[2, 2], vec![1f32, 2.0, 3.0, 4.0]), &c(&s, &[2], vec![0.5f32, -1.0]))
        .unwrap();
    assert_eq!(d.name(), "SquaredDifference:0");
    same_f32(&run(&d).unwrap(), &[0.25, 9.0, 6.25, 25.0]);
    let d = ops::squared_difference(&s, &c(&s, &[2], vec![1i32, 5]), &c(&s, &[2], vec![4i32, -1])).unwrap();
    assert_eq!(run(&d).unwrap().to_vec::<i32>().unwrap(), vec![9, 36]);
    let q = ops::div_no_nan(&s, &c(&s, &[3], vec![1f32, 2.0, -3.0]), &c(&s, &[3], vec![0f32, 4.0, 0.0])).unwrap();
    assert_eq!(q.name(), "div_no_nan:0");
    same_f32(&run(&q).unwrap(), &[0.0, 0.5, 0.0]);
}

#[test]
fn cumulative_sums_and_products() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[2, 3], vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let sums = [
        [1.0, 3.0, 6.0, 4.0, 9.0, 15.0],
        [6.0, 5.0, 3.0, 15.0, 11.0, 6.0],
        [0.0, 1.0, 3.0, 0.0, 4.0, 9.0],
        [5.0, 3.0, 0.0, 11.0, 6.0, 0.0],
    ];
    let prods = [
        [1.0, 2.0, 3.0, 4.0, 10.0, 18.0],
        [4.0, 10.0, 18.0, 4.0, 5.0, 6.0],
        [1.0, 1.0, 1.0, 1.0, 2.0, 3.0],
        [4.0, 5.0, 6.0, 1.0, 1.0, 1.0],
    ];
    for (i, (ex, rev)) in [(false, false), (false, true), (true, false), (true, true)].into_iter().enumerate() {
        let y = ops::cumsum(&s, &x, 1, ex, rev).unwrap();
        assert_eq!(y.op().op_type(), "Cumsum");
        same_f32(&run(&y).unwrap(), &sums[i]);
        same_f32(&run(&ops::cumprod(&s, &x, 0, ex, rev).unwrap()).unwrap(), &prods[i]);
    }
    let y = ops::cumsum(&s, &c(&s, &[2, 2], vec![1i32, 2, 3, 4]), -2, false, false).unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [1, 2, 4, 6]);
    let g2 = Graph::new();
    let s2 = g2.scope();
    let y = ops::cumsum(&s2, &c(&s2, &[3], vec![1f32, 2.0, 3.0]), 0, true, true).unwrap();
    assert_eq!(y.name(), "Cumsum:0");
    assert_eq!(g2.operation_by_name("Cumsum/axis").unwrap().op_type(), "Const");
    let e = ops::cumsum(&s, &c(&s, &[3], vec![1f32, 2.0, 3.0]), 1, false, false).unwrap_err();
    assert!(e.message.contains("ScanOp: Expected scan axis in the range [-1, 1), but got 1"), "{}", e.message);
}

#[test]
fn clip_l2_loss_and_reductions() {
    let g = Graph::new();
    let s = g.scope();
    let t = c(&s, &[2, 2], vec![-2f32, 0.5, 3.0, 1.0]);
    let y = ops::clip_by_value(&s, &t, &c(&s, &[2, 2], vec![0f32, 1.0, 0.0, 0.0]), &c(&s, &[], vec![2f32])).unwrap();
    assert_eq!(y.name(), "clip_by_value:0");
    same_f32(&run(&y).unwrap(), &[0.0, 1.0, 2.0, 1.0]);
    // a minimum above the maximum gives the minimum, as TensorFlow
    let y = ops::clip_by_value(&s, &t, &c(&s, &[], vec![2f32]), &c(&s, &[], vec![1f32])).unwrap();
    same_f32(&run(&y).unwrap(), &[2.0; 4]);
    let y = ops::clip_by_value(&s, &t, &c(&s, &[2], vec![0f32, 1.0]), &c(&s, &[], vec![2f32])).unwrap();
    let e = run(&y).unwrap_err();
    assert!(
        e.message.contains("clip_value_min and clip_value_max must be either of the same shape as input, or a scalar"),
        "{}",
        e.message
    );
    let l = ops::l2_loss(&s, &t).unwrap();
    assert_eq!(l.shape(), Shape::scalar());
    same_f32(&run(&ops::l2_loss(&s, &c(&s, &[2, 2], vec![1f32, -2.0, 0.5, 3.0])).unwrap()).unwrap(), &[7.125]);
    let n: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let m = ops::reduce_min(&s, &c(&s, &[2, 3, 4], n), Some(&[0, 2]), true).unwrap();
    assert_eq!(m.shape(), Shape::known(&[1, 3, 1]));
    same_f32(&run(&m).unwrap(), &[0.0, 4.0, 8.0]);
    let b = c(&s, &[2, 2], vec![true, false, true, true]);
    let a = ops::reduce_all(&s, &b, Some(&[1]), false).unwrap();
    assert_eq!(a.name(), "All:0");
    assert_eq!(run(&a).unwrap().to_vec::<bool>().unwrap(), [false, true]);
    let b = c(&s, &[2, 2], vec![true, false, false, false]);
    let a = ops::reduce_any(&s, &b, None, false).unwrap();
    assert_eq!(a.shape(), Shape::scalar());
    assert_eq!(run(&a).unwrap().to_vec::<bool>().unwrap(), [true]);
    assert!(ops::reduce_all(&s, &t, None, false).is_err(), "All takes bool");
    let p = ops::reduce_prod(&s, &c(&s, &[2, 3], vec![1f32, 2.0, 3.0, 4.0, 0.0, 6.0]), Some(&[1]), false).unwrap();
    same_f32(&run(&p).unwrap(), &[6.0, 0.0]);
    let am = ops::argmin(&s, &c(&s, &[2, 3], vec![3f32, 1.0, 1.0, -1.0, 5.0, -2.0]), 1).unwrap();
    assert_eq!(am.name(), "ArgMin:0");
    assert_eq!(am.dtype(), DType::Int64);
    assert_eq!(run(&am).unwrap().to_vec::<i64>().unwrap(), [1, 2]);
    // Min over nothing: the largest value
    let e = ops::reduce_min(&s, &c(&s, &[0], Vec::<f32>::new()), None, false).unwrap();
    assert_eq!(run(&e).unwrap().to_vec::<f32>().unwrap(), vec![f32::INFINITY]);
}

/// `reduce_sum(x)` / `reduce_all(x)` with no axes of a tensor whose rank is unknown (a
/// placeholder of unknown shape, or a `Reshape` to a computed shape): the axes are
/// `range(0, Rank(x))`, computed when run, with TensorFlow's node names.
#[test]
fn reducing_every_axis_of_an_unknown_rank_computes_the_axes_when_run() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, Shape::unknown()).unwrap();
    let sum = ops::reduce_sum(&s, &x, None, false).unwrap();
    assert_eq!(sum.name(), "Sum:0");
    let names: Vec<String> = g.operations().iter().map(|o| o.name().to_string()).collect();
    assert_eq!(names, ["Placeholder", "Rank", "range/start", "range/delta", "range", "Sum"]);
    let sess = Session::new(&g).unwrap();
    let feed = Tensor::new(&[2, 3], vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!(sess.run(&[(&x, feed.clone())], &[&sum], &[]).unwrap()[0].to_vec::<f32>().unwrap(), [21.0]);
    // its gradient is ones of the fed shape
    let dx = tensorgraph::train::gradients(std::slice::from_ref(&sum), std::slice::from_ref(&x), None).unwrap()[0]
        .clone()
        .unwrap();
    let d = sess.run(&[(&x, feed)], &[&dx], &[]).unwrap().remove(0);
    assert_eq!((d.shape().to_vec(), d.to_vec::<f32>().unwrap()), (vec![2, 3], vec![1f32; 6]));

    // a Reshape to a shape fed when run, and All (which has no T attr)
    let b = ops::placeholder(&s, DType::Bool, Shape::known(&[4])).unwrap();
    let dims = ops::placeholder(&s, DType::Int32, Shape::unknown()).unwrap();
    let r = ops::reshape(&s, &b, &dims).unwrap();
    let all = ops::reduce_all(&s, &r, None, false).unwrap();
    let feeds = |v: Vec<bool>| [(&b, Tensor::new(&[4], v).unwrap()), (&dims, Tensor::vector(vec![2i32, 2]))];
    assert_eq!(sess.run(&feeds(vec![true; 4]), &[&all], &[]).unwrap()[0].to_vec::<bool>().unwrap(), [true]);
    assert_eq!(
        sess.run(&feeds(vec![true, false, true, true]), &[&all], &[]).unwrap()[0].to_vec::<bool>().unwrap(),
        [false]
    );

    // a scalar too: TensorFlow builds the range for rank 0 (`if x_rank:` is false)
    let mean = ops::reduce_mean(&s, &c(&s, &[], vec![2.5f32]), None, false).unwrap();
    assert!(g.operation_by_name("range_2").is_ok() && g.operation_by_name("Rank_2").is_ok());
    assert_eq!(run(&mean).unwrap().to_vec::<f32>().unwrap(), [2.5]);
}

#[test]
fn gradients_match_finite_differences() {
    let away = |n: usize, seed: u64| -> Vec<f64> {
        values(n, seed, 0.2, 1.5).iter().enumerate().map(|(i, &v)| if i % 2 == 0 { v } else { -v }).collect()
    };
    let x = vec![(vec![2, 3], away(6, 1))];
    check_gradients(&x, TOL, |s, x| weighted(s, &ops::abs(s, &x[0]).unwrap(), &[2, 3], 2));
    check_gradients(&x, TOL, |s, x| {
        let y = ops::add(s, &ops::sign(s, &x[0]).unwrap(), &x[0]).unwrap();
        weighted(s, &y, &[2, 3], 2)
    });
    // Pow: both inputs, broadcast, positive and negative bases
    let inp = vec![(vec![2, 3], values(6, 3, 0.5, 2.0)), (vec![3], values(3, 4, -1.5, 2.5))];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::pow(s, &x[0], &x[1]).unwrap(), &[2, 3], 5));
    // negative bases: an integer exponent (the exponent's gradient is 0 there, and x^y
    // is NaN for y off the integers, so finite differences cannot check it)
    let neg = vec![(vec![2, 3], away(6, 3))];
    check_gradients(&neg, TOL, |s, x| {
        let three = ops::constant(s, tensorgraph::Tensor::scalar(3.0f64)).unwrap();
        weighted(s, &ops::pow(s, &x[0], &three).unwrap(), &[2, 3], 5)
    });
    let inp = vec![one(&[2, 3], 5, -1.0, 1.0), one(&[3], 6, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::squared_difference(s, &x[0], &x[1]).unwrap(), &[2, 3], 7));
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::squared_difference(s, &x[1], &x[0]).unwrap(), &[2, 3], 7));
    let inp = vec![one(&[2, 3], 5, -1.0, 1.0), (vec![3], values(3, 8, 0.5, 2.0))];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::div_no_nan(s, &x[0], &x[1]).unwrap(), &[2, 3], 7));
    // Cumsum and Cumprod, every mode
    let x = vec![(vec![2, 4], values(8, 9, 0.5, 1.5))];
    for (ex, rev) in [(false, false), (false, true), (true, false), (true, true)] {
        for axis in [0, 1, -1] {
            check_gradients(&x, TOL, |s, x| weighted(s, &ops::cumsum(s, &x[0], axis, ex, rev).unwrap(), &[2, 4], 3));
            check_gradients(&x, TOL, |s, x| weighted(s, &ops::cumprod(s, &x[0], axis, ex, rev).unwrap(), &[2, 4], 3));
        }
    }
    // ClipByValue: to the input inside the bounds, to the bounds outside
    let inp =
        vec![(vec![2, 3], vec![-2.0, -0.3, 0.1, 0.4, 1.7, 0.9]), (vec![], vec![-0.5]), (vec![2, 3], vec![1.0; 6])];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::clip_by_value(s, &x[0], &x[1], &x[2]).unwrap(), &[2, 3], 2));
    let x = vec![one(&[2, 3], 4, -1.0, 1.0)];
    check_gradients(&x, TOL, |s, x| ops::l2_loss(s, &x[0]).unwrap());
    // Min and Prod over any axes (Prod's gradient holds at a zero too)
    let x = vec![one(&[2, 3, 2], 11, -1.0, 1.0)];
    for axes in [None, Some(vec![0]), Some(vec![1, 2]), Some(vec![-1, 0])] {
        for keep in [false, true] {
            let ax = axes.clone();
            check_gradients(&x, TOL, |s, x| ops::reduce_min(s, &x[0], ax.as_deref(), keep).unwrap());
            let ax = axes.clone();
            check_gradients(&x, TOL, |s, x| ops::reduce_prod(s, &x[0], ax.as_deref(), keep).unwrap());
        }
    }
    let zero = vec![(vec![2, 3], vec![0.5, 0.0, 2.0, -1.5, 3.0, 0.0])];
    check_gradients(&zero, TOL, |s, x| ops::reduce_prod(s, &x[0], Some(&[1]), false).unwrap());
}
