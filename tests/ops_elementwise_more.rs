//! Log1p, Expm1, Sin, Cos, Tan, IsFinite, IsNan, IsInf and reductions over a repeated
//! axis: values as TensorFlow 2.21 gives them (`scripts/gen_ops_elementwise.py`), the op
//! types of TensorFlow's gradients, finite-difference gradient checks and errors.

mod common;
use common::{check_gradients, one};
use std::collections::BTreeSet;
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Tensor};

type Unary = fn(&Scope, &Output) -> tensorgraph::Result<Output>;

const X: [f64; 8] = [-2.5, -1.0, -0.3, 0.0, 1e-5, 0.7, 2.0, 3.0];

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

/// Asserts `got` is within `rel` (relative, floor 1e-30) of TensorFlow's `want`, NaN and
/// infinities matching exactly.
fn close(name: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{name}");
    for (g, w) in got.iter().zip(want) {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= rel * w.abs().max(1e-30)
        };
        assert!(ok, "{name}: {got:?} vs TensorFlow {want:?}");
    }
}

#[rustfmt::skip]
fn cases() -> [(&'static str, Unary, [f64; 8], [f64; 8]); 5] {
    [
        ("Log1p", ops::log1p,
         [f64::NAN, f64::NEG_INFINITY, -0.3566749691963196, 0.0, 9.999949725170154e-06, 0.5306282639503479, 1.0986123085021973, 1.3862943649291992],
         [f64::NAN, f64::NEG_INFINITY, -0.3566749439387324, 0.0, 9.99995000033333e-06, 0.5306282510621704, 1.0986122886681096, 1.3862943611198906]),
        ("Expm1", ops::expm1,
         [-0.9179149866104126, -0.6321205496788025, -0.25918176770210266, 0.0, 1.0000049769587349e-05, 1.0137526988983154, 6.389056205749512, 19.08553695678711],
         [-0.9179150013761012, -0.6321205588285577, -0.2591817793182821, 0.0, 1.0000050000166668e-05, 1.0137527074704764, 6.389056098930652, 19.085536923187668]),
        ("Sin", ops::sin,
         [-0.5984721779823303, -0.8414709568023682, -0.29552021622657776, 0.0, 9.999999747378752e-06, 0.6442176699638367, 0.9092974066734314, 0.14112000167369843],
         [-0.5984721441039565, -0.8414709848078965, -0.29552020666133955, 0.0, 9.999999999833334e-06, 0.644217687237691, 0.9092974268256817, 0.1411200080598672]),
        ("Cos", ops::cos,
         [-0.8011435866355896, 0.5403022766113281, 0.9553365111351013, 1.0, 1.0, 0.7648422122001648, -0.41614681482315063, -0.9899924993515015],
         [-0.8011436155469337, 0.5403023058681398, 0.955336489125606, 1.0, 0.99999999995, 0.7648421872844885, -0.4161468365471424, -0.9899924966004454]),
        ("Tan", ops::tan,
         [0.7470223307609558, -1.5574077367782593, -0.30933627486228943, 0.0, 9.999999747378752e-06, 0.8422883749008179, -2.185039758682251, -0.14254654943943024],
         [0.7470222972386603, -1.5574077246549023, -0.30933624960962325, 0.0, 1.0000000000333334e-05, 0.8422883804630794, -2.185039863261519, -0.1425465430742778]),
    ]
}

#[test]
fn log1p_expm1_sin_cos_tan_values() {
    let g = Graph::new();
    let s = g.scope();
    let xf = ops::constant(&s, Tensor::new(&[8], X.iter().map(|&v| v as f32).collect()).unwrap()).unwrap();
    let xd = ops::constant(&s, Tensor::new(&[8], X.to_vec()).unwrap()).unwrap();
    for (name, f, want32, want64) in cases() {
        let y = f(&s, &xf).unwrap();
        assert_eq!(y.op().op_type(), name);
        assert_eq!(y.name(), format!("{name}:0"));
        assert_eq!(y.dtype(), DType::Float);
        close(name, &run(&y).unwrap().to_f64_vec().unwrap(), &want32, 5e-7);
        let y = f(&s, &xd).unwrap();
        assert_eq!(y.dtype(), DType::Double);
        close(name, &run(&y).unwrap().to_f64_vec().unwrap(), &want64, 1e-14);
        let e = f(&s, &ops::constant(&s, Tensor::new(&[1], vec![1i32]).unwrap()).unwrap()).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{name}");
        assert!(
            e.message.contains("Value for attr 'T' of int32 is not in the list of allowed values"),
            "{}",
            e.message
        );
    }
}

#[test]
fn is_finite_is_nan_is_inf() {
    let g = Graph::new();
    let s = g.scope();
    let v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -1.5, 3e38];
    let xf = ops::constant(&s, Tensor::new(&[2, 3], v.iter().map(|&v| v as f32).collect()).unwrap()).unwrap();
    let xd = ops::constant(&s, Tensor::new(&[2, 3], v.to_vec()).unwrap()).unwrap();
    let cases: [(&str, Unary, [bool; 6]); 3] = [
        ("IsFinite", ops::is_finite, [false, false, false, true, true, true]),
        ("IsNan", ops::is_nan, [true, false, false, false, false, false]),
        ("IsInf", ops::is_inf, [false, true, true, false, false, false]),
    ];
    for (name, f, want) in cases {
        for x in [&xf, &xd] {
            let y = f(&s, x).unwrap();
            assert_eq!(y.op().op_type(), name);
            assert_eq!(y.dtype(), DType::Bool);
            let t = run(&y).unwrap();
            assert_eq!(t.shape(), &[2, 3]);
            assert_eq!(t.to_vec::<bool>().unwrap(), want, "{name}");
        }
        let e = f(&s, &ops::constant(&s, Tensor::new(&[1], vec![1i64]).unwrap()).unwrap()).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{name}");
        // no gradient flows through a classification (TensorFlow: NotDifferentiable)
        let p = ops::placeholder(&s.named(&format!("p{name}")), DType::Float, vec![2]).unwrap();
        let y = ops::cast(&s, &f(&s, &p).unwrap(), DType::Float).unwrap();
        let gr = gradients(&[y], std::slice::from_ref(&p), None).unwrap();
        assert!(gr[0].is_none(), "{name}");
    }
}

/// The op types of the gradient graph `gradients/<op>_grad/...` built for `f`, and
/// TensorFlow's (from the script).
#[test]
fn gradients_match_finite_differences_and_tensorflow_op_types() {
    let want: [(&str, &[&str]); 5] = [
        ("Log1p", &["AddV2", "Const", "Mul", "Reciprocal"]),
        ("Expm1", &["Exp", "Mul"]),
        ("Sin", &["Cos", "Mul"]),
        ("Cos", &["Mul", "Neg", "Sin"]),
        ("Tan", &["Cos", "Mul", "Reciprocal", "Square"]),
    ];
    for ((name, f, _, _), (wname, types)) in cases().into_iter().zip(want) {
        assert_eq!(name, wname);
        let g = Graph::new();
        let s = g.scope();
        let x = ops::placeholder(&s.named("x"), DType::Float, vec![3]).unwrap();
        gradients(&[f(&s, &x).unwrap()], &[x], None).unwrap();
        let got: BTreeSet<String> =
            g.operations().iter().filter(|o| o.name().contains("_grad/")).map(|o| o.op_type()).collect();
        let want: BTreeSet<String> = types.iter().map(|t| t.to_string()).collect();
        assert_eq!(got, want, "{name}");
        let lo = if name == "Tan" { -1.2 } else { -0.9 };
        check_gradients(&[one(&[2, 3], 7, lo, 1.2)], 1e-6, |s, x| f(s, &x[0]).unwrap());
    }
}

#[test]
fn repeated_reduction_axis_is_tensorflows_error() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::new(&[2, 3], (0..6).map(|v| v as f32).collect()).unwrap()).unwrap();
    let b = ops::constant(&s, Tensor::new(&[2, 2], vec![true, false, true, true]).unwrap()).unwrap();
    type Reduce = fn(&Scope, &Output, Option<&[i32]>, bool) -> tensorgraph::Result<Output>;
    /// A reduction, its input, its axes, the static output shape, the axis named twice.
    type Case<'a> = (Reduce, &'a Output, &'a [i32], &'a [usize], i32);
    let cases: [Case; 7] = [
        (ops::reduce_sum, &x, &[0, 0], &[3], 0),
        (ops::reduce_mean, &x, &[1, -1], &[2], 1),
        (ops::reduce_max, &x, &[0, -2], &[3], 0),
        (ops::reduce_min, &x, &[0, 1, 0], &[], 0),
        (ops::reduce_prod, &x, &[0, 0], &[3], 0),
        (ops::reduce_all, &b, &[0, 0], &[2], 0),
        (ops::reduce_any, &b, &[1, 1], &[2], 1),
    ];
    for (f, x, axes, shape, dup) in cases {
        let y = f(&s, x, Some(axes), false).unwrap();
        // TensorFlow's shape function counts the axis once (static shape (3,) for [0, 0])
        assert_eq!(y.shape().dims().unwrap(), shape.iter().map(|&d| Some(d)).collect::<Vec<_>>());
        let e = run(&y).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        let msg = format!("Invalid reduction arguments: Axes contains duplicate dimension: {dup}");
        assert!(e.message.contains(&msg), "{}", e.message);
    }
    let ok = ops::reduce_sum(&s, &x, Some(&[1, 0]), false).unwrap();
    assert_eq!(run(&ok).unwrap().to_vec::<f32>().unwrap(), [15.0]);
}
