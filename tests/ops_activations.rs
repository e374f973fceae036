//! Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign, Erf and swish, and their gradient ops:
//! TensorFlow 2.21's values (the consts below are printed by
//! `scripts/nnops_reference.py activations`), dtypes and errors, finite-difference
//! gradient checks, and the gradient graphs TensorFlow builds.

// TensorFlow's values include ln 2 and the like, printed as computed
#![allow(clippy::approx_constant)]

mod common;
use common::{assert_close, check_gradients, one, values, weighted};
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

const TOL: f64 = 1e-6;

fn run(out: &Output) -> Tensor {
    Session::new(out.graph()).unwrap().run(&[], &[out], &[]).unwrap().remove(0)
}

fn c32(s: &Scope, v: &[f32]) -> Output {
    ops::constant(s, Tensor::new(&[v.len()], v.to_vec()).unwrap()).unwrap()
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

/// Runs `op_type(inputs)` (attr `T` from input 0, plus `attrs`) and compares to TensorFlow.
fn check_op(op_type: &str, inputs: &[&[f32]], attrs: &[(&str, f32)], want: &[f32]) {
    let g = Graph::new();
    let s = g.scope();
    let mut b = s.op(op_type, op_type).attr("T", DType::Float);
    for v in inputs {
        b = b.input(&c32(&s, v));
    }
    for &(name, v) in attrs {
        b = b.attr(name, v);
    }
    let y = b.build_output().unwrap();
    assert_eq!(y.shape(), Shape::known(&[want.len()]));
    assert_close(op_type, &run(&y).to_f64_vec().unwrap(), &f64s(want));
}

#[test]
fn activations_match_tensorflow_float32() {
    let g = Graph::new();
    let s = g.scope();
    let x = c32(&s, X);
    type Builder = fn(&Scope, &Output) -> tensorgraph::Result<Output>;
    let cases: [(&str, Builder, &[f32]); 8] = [
        ("Relu6", ops::relu6, RELU6),
        ("Elu", ops::elu, ELU),
        ("Selu", ops::selu, SELU),
        ("Softplus", ops::softplus, SOFTPLUS),
        ("Softsign", ops::softsign, SOFTSIGN),
        ("Erf", ops::erf, ERF),
        ("Erfc", ops::erfc, ERFC),
        ("swish", ops::swish, SWISH),
    ];
    for (name, f, want) in cases {
        let y = f(&s, &x).unwrap();
        assert_eq!((y.dtype(), y.shape()), (DType::Float, Shape::known(&[16])), "{name}");
        assert_close(name, &run(&y).to_f64_vec().unwrap(), &f64s(want));
    }
    assert_eq!(ops::relu6(&s, &x).unwrap().name(), "Relu6_1:0");
    let l = ops::leaky_relu(&s, &x, 0.2).unwrap();
    assert_eq!(l.name(), "LeakyRelu:0");
    assert_close("LeakyRelu", &run(&l).to_f64_vec().unwrap(), &f64s(LEAKY_DEFAULT));
    // alpha > 1 is a select, not a max
    check_op("LeakyRelu", &[X], &[("alpha", 1.5)], LEAKY_1_5);
    // the OpDef's default alpha (0.2) when the attr is not set
    check_op("LeakyRelu", &[X], &[], LEAKY_DEFAULT);
    // relu6 keeps NaN
    let n = ops::relu6(&s, &c32(&s, &[f32::NAN, -1.0, 7.0])).unwrap();
    let v = run(&n).to_vec::<f32>().unwrap();
    assert!(v[0].is_nan() && v[1..] == [0.0, 6.0], "{v:?}");
}

#[test]
fn float64_kernels_match_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let x: Vec<f64> = X.iter().map(|&v| v as f64 * 2.5).collect();
    let c = |v: Vec<f64>| ops::constant(&s, Tensor::new(&[16], v).unwrap()).unwrap();
    let close = |what: &str, got: &Output, want: &[f64]| {
        for (i, (a, b)) in run(got).to_vec::<f64>().unwrap().iter().zip(want).enumerate() {
            assert!((a - b).abs() <= 1e-14 + 1e-12 * b.abs(), "{what}[{i}]: {a} vs TF {b}");
        }
    };
    close("Softplus", &ops::softplus(&s, &c(x.clone())).unwrap(), SOFTPLUS_F64);
    close("Elu", &ops::elu(&s, &c(x.clone())).unwrap(), ELU_F64);
    close("Erf", &ops::erf(&s, &c(x.iter().map(|v| v / 10.0).collect())).unwrap(), ERF_F64);
    close("Erfc", &ops::erfc(&s, &c(x.iter().map(|v| v / 10.0).collect())).unwrap(), ERFC_F64);
}

#[test]
fn gradient_ops_match_tensorflow() {
    check_op("Relu6Grad", &[G, X], &[], RELU6_GRAD);
    check_op("EluGrad", &[G, ELU], &[], ELU_GRAD);
    check_op("SeluGrad", &[G, SELU], &[], SELU_GRAD);
    check_op("LeakyReluGrad", &[G, X], &[], LEAKY_GRAD_DEFAULT);
    check_op("LeakyReluGrad", &[G, X], &[("alpha", 1.5)], LEAKY_GRAD_1_5);
    check_op("SoftplusGrad", &[G, X], &[], SOFTPLUS_GRAD);
    check_op("SoftsignGrad", &[G, X], &[], SOFTSIGN_GRAD);
}

#[test]
fn relu6_and_its_gradient_on_int32() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::vector(vec![-3i32, 0, 3, 6, 9])).unwrap();
    assert_eq!(run(&ops::relu6(&s, &x).unwrap()).to_vec::<i32>().unwrap(), RELU6_I32);
    let gr = ops::constant(&s, Tensor::vector(vec![5i32; 5])).unwrap();
    let d = s.op("Relu6Grad", "Relu6Grad").input(&gr).input(&x).attr("T", DType::Int32).build_output().unwrap();
    assert_eq!(run(&d).to_vec::<i32>().unwrap(), RELU6_GRAD_I32);
}

#[test]
fn dtypes_shapes_and_attrs_are_checked() {
    let g = Graph::new();
    let s = g.scope();
    let xi = ops::constant(&s, Tensor::vector(vec![1i32, 2])).unwrap();
    for e in [ops::elu(&s, &xi), ops::erf(&s, &xi), ops::softplus(&s, &xi), ops::leaky_relu(&s, &xi, 0.2)] {
        let e = e.unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(e.message.contains("int32"), "{e}");
    }
    let a = c32(&s, &[1.0, 2.0]);
    let b = c32(&s, &[1.0, 2.0, 3.0]);
    for op_type in ["Relu6Grad", "EluGrad", "SoftplusGrad", "LeakyReluGrad"] {
        let e = s.op(op_type, op_type).input(&a).input(&b).attr("T", DType::Float).build().unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(e.message.contains("Incompatible shapes: [2] vs. [3]"), "{op_type}: {e}");
    }
    // alpha must be a float
    let e = s.op("LeakyRelu", "LeakyRelu").input(&a).attr("T", DType::Float).attr("alpha", 2i64).build().unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("alpha"), "{e}");
}

/// Values away from the kinks at 0 and 6.
fn away_from_kinks(n: usize, seed: u64) -> Vec<f64> {
    values(n, seed, 0.2, 2.5)
        .into_iter()
        .enumerate()
        .map(|(i, v)| match i % 3 {
            0 => -v,
            1 => v,
            _ => v + 4.0,
        })
        .collect()
}

#[test]
fn gradients_by_finite_differences() {
    let shape = [3, 4];
    let inp = vec![(shape.to_vec(), away_from_kinks(12, 1))];
    type Builder = fn(&Scope, &Output) -> tensorgraph::Result<Output>;
    let builders: [Builder; 9] =
        [ops::relu6, ops::elu, ops::selu, ops::softplus, ops::softsign, ops::erf, ops::erfc, ops::swish, ops::silu];
    for f in builders {
        check_gradients(&inp, TOL, |s, x| weighted(s, &f(s, &x[0]).unwrap(), &shape, 2));
    }
    for alpha in [0.2, 1.5, -0.5] {
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::leaky_relu(s, &x[0], alpha).unwrap(), &shape, 3));
    }
    // large |x|: softplus's thresholds
    let big = vec![(vec![4], vec![-40.0, -30.0, 30.0, 40.0])];
    check_gradients(&big, TOL, |s, x| ops::softplus(s, &x[0]).unwrap());
}

fn op2(s: &Scope, op_type: &str, a: &Output, b: &Output, alpha: Option<f32>) -> Output {
    let mut op = s.op(op_type, op_type).input(a).input(b).attr("T", DType::Double);
    if let Some(al) = alpha {
        op = op.attr("alpha", al);
    }
    op.build_output().unwrap()
}

#[test]
fn gradient_ops_gradients_by_finite_differences() {
    let inp = vec![one(&[2, 3], 4, -1.0, 1.0), (vec![2, 3], away_from_kinks(6, 5))];
    check_gradients(&inp, TOL, |s, x| op2(s, "Relu6Grad", &x[0], &x[1], None));
    check_gradients(&inp, TOL, |s, x| op2(s, "LeakyReluGrad", &x[0], &x[1], Some(0.3)));
    check_gradients(&inp, TOL, |s, x| weighted(s, &op2(s, "SoftplusGrad", &x[0], &x[1], None), &[2, 3], 6));
}

fn ops_under(g: &Graph, prefix: &str) -> Vec<(String, String)> {
    g.operations().iter().filter(|o| o.name().starts_with(prefix)).map(|o| (o.name(), o.op_type())).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|&(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn gradient_graphs_are_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(2), Some(3)]).unwrap();
    let ys = [
        ops::erf(&s, &x).unwrap(),
        ops::relu6(&s, &x).unwrap(),
        ops::softplus(&s, &x).unwrap(),
        ops::leaky_relu(&s, &x, 0.3).unwrap(),
        ops::elu(&s, &x).unwrap(),
        ops::softsign(&s, &x).unwrap(),
    ];
    let dx = gradients(&ys, std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    assert_eq!(
        ops_under(&g, "gradients/Erf_grad/"),
        pairs(&[
            ("gradients/Erf_grad/Const", "Const"),
            ("gradients/Erf_grad/mul", "Mul"),
            ("gradients/Erf_grad/Square", "Square"),
            ("gradients/Erf_grad/Neg", "Neg"),
            ("gradients/Erf_grad/Exp", "Exp"),
            ("gradients/Erf_grad/mul_1", "Mul"),
        ])
    );
    assert_eq!(ops_under(&g, "gradients/Relu6_grad/"), pairs(&[("gradients/Relu6_grad/Relu6Grad", "Relu6Grad")]));
    let r6 = g.operation_by_name("gradients/Relu6_grad/Relu6Grad").unwrap().node();
    assert_eq!(g.operations()[r6.inputs[1].0].name(), "Relu6", "Relu6Grad reads the forward output");
    assert_eq!(
        ops_under(&g, "gradients/Softplus_grad/"),
        pairs(&[("gradients/Softplus_grad/Sigmoid", "Sigmoid"), ("gradients/Softplus_grad/mul", "Mul")])
    );
    let lr = g.operation_by_name("gradients/LeakyRelu_grad/LeakyReluGrad").unwrap().node();
    assert_eq!(lr.attrs.get("alpha"), Some(&tensorgraph::graph::AttrValue::Float(0.3)));
    assert!(g.operation_by_name("gradients/Elu_grad/EluGrad").is_ok());
    assert!(g.operation_by_name("gradients/Softsign_grad/SoftsignGrad").is_ok());
    // values: the sum of the six derivatives at a point
    let xv = [-1.5f32, -0.2, 0.3, 1.0, 5.5, 7.0];
    let sess = Session::new(&g).unwrap();
    let got = sess.fetch(&[(&x, Tensor::new(&[2, 3], xv.to_vec()).unwrap())], &dx).unwrap().to_vec::<f32>().unwrap();
    for (i, &v) in xv.iter().enumerate() {
        let v = v as f64;
        let erf = std::f64::consts::FRAC_2_SQRT_PI * (-v * v).exp();
        let relu6 = if v > 0.0 && v < 6.0 { 1.0 } else { 0.0 };
        let softplus = 1.0 / (1.0 + (-v).exp());
        let leaky = if v > 0.0 { 1.0 } else { 0.3 };
        let elu = if v < 0.0 { v.exp() } else { 1.0 };
        let softsign = 1.0 / (1.0 + v.abs()).powi(2);
        let want = erf + relu6 + softplus + leaky + elu + softsign;
        assert!((got[i] as f64 - want).abs() < 1e-5, "x = {v}: {} vs {want}", got[i]);
    }
    // second order through EluGrad needs Select, which tensorgraph lacks
    let e = gradients(&[ops::elu(&s, &x).unwrap()], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let err = gradients(&[e], std::slice::from_ref(&x), None).unwrap_err();
    assert_eq!(err.code, Code::Unimplemented);
    assert!(err.message.contains("EluGrad") && err.message.contains("Select"), "{err}");
}

// ---- TensorFlow 2.21's values: scripts/nnops_reference.py activations
/// shape [16]
const X: &[f32] = &[-20.0, -15.0, -3.0, -1.0, -0.5, -0.001, 0.0, 0.001, 0.5, 1.0, 3.0, 5.9, 6.0, 6.5, 15.0, 20.0];
/// shape [16]
const G: &[f32] = &[-0.75, 0.0, 0.75, -0.25, 0.5, -0.5, 0.25, -0.75, 0.0, 0.75, -0.25, 0.5, -0.5, 0.25, -0.75, 0.0];
/// shape [16]
const RELU6: &[f32] = &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.5, 1.0, 3.0, 5.9, 6.0, 6.0, 6.0, 6.0];
/// shape [16]
const ELU: &[f32] = &[
    -1.0,
    -0.9999997,
    -0.95021296,
    -0.63212055,
    -0.39346933,
    -0.0009995103,
    0.0,
    0.001,
    0.5,
    1.0,
    3.0,
    5.9,
    6.0,
    6.5,
    15.0,
    20.0,
];
/// shape [16]
const SELU: &[f32] = &[
    -1.7580993,
    -1.7580988,
    -1.6705687,
    -1.1113307,
    -0.69175816,
    -0.0017572384,
    0.0,
    0.001050701,
    0.5253505,
    1.050701,
    3.152103,
    6.1991363,
    6.304206,
    6.8295565,
    15.760515,
    21.01402,
];
/// shape [16]
const LEAKY_DEFAULT: &[f32] =
    &[-4.0, -3.0, -0.6, -0.2, -0.1, -0.00020000001, 0.0, 0.001, 0.5, 1.0, 3.0, 5.9, 6.0, 6.5, 15.0, 20.0];
/// shape [16]
const LEAKY_1_5: &[f32] =
    &[-30.0, -22.5, -4.5, -1.5, -0.75, -0.0015, 0.0, 0.001, 0.5, 1.0, 3.0, 5.9, 6.0, 6.5, 15.0, 20.0];
/// shape [16]
const SOFTPLUS: &[f32] = &[
    2.0611537e-09,
    3.0590232e-07,
    0.048587356,
    0.3132617,
    0.474077,
    0.6926473,
    0.6931472,
    0.6936473,
    0.9740769,
    1.3132616,
    3.048587,
    5.9027357,
    6.0024757,
    6.501502,
    15.0,
    20.0,
];
/// shape [16]
const SOFTSIGN: &[f32] = &[
    -0.95238096,
    -0.9375,
    -0.75,
    -0.5,
    -0.33333334,
    -0.000999001,
    0.0,
    0.000999001,
    0.33333334,
    0.5,
    0.75,
    0.85507244,
    0.85714287,
    0.8666667,
    0.9375,
    0.95238096,
];
/// shape [16]
const ERF: &[f32] = &[
    -1.0,
    -1.0,
    -0.999978,
    -0.84270084,
    -0.5204999,
    -0.0011283788,
    0.0,
    0.0011283788,
    0.5204999,
    0.84270084,
    0.999978,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
];
/// shape [16]
const SWISH: &[f32] = &[
    -4.1223082e-08,
    -4.588533e-06,
    -0.1422776,
    -0.2689414,
    -0.18877034,
    -0.00049975,
    0.0,
    0.00050025,
    0.31122968,
    0.73105854,
    2.8577223,
    5.8838816,
    5.985164,
    6.490242,
    14.999995,
    20.0,
];
/// shape [16]
const SOFTPLUS_F64: &[f64] = &[
    1.9287498479639178e-22,
    5.175555005801869e-17,
    0.0005529314753607964,
    0.07888973429254963,
    0.25192908134537284,
    0.6918979617504443,
    0.6931471805599453,
    0.6943979618691879,
    1.501929081345373,
    2.5788897342925496,
    7.500552931475361,
    14.750000631204763,
    15.000000305902272,
    16.25000008764248,
    37.5,
    50.0,
];
/// shape [16]
const ELU_F64: &[f64] = &[
    -1.0,
    -1.0,
    -0.9994469156298522,
    -0.9179150013761012,
    -0.7134952031398099,
    -0.0024968777209870563,
    0.0,
    0.0025000001187436283,
    1.25,
    2.5,
    7.5,
    14.750000238418579,
    15.0,
    16.25,
    37.5,
    50.0,
];
/// shape [16]
const ERF_F64: &[f64] = &[
    -0.9999999999984626,
    -0.9999998862727435,
    -0.7111556336535152,
    -0.2763263901682369,
    -0.1403162048013338,
    -0.0002820947992956862,
    0.0,
    0.0002820947992956862,
    0.1403162048013338,
    0.2763263901682369,
    0.7111556336535152,
    0.9630182098814566,
    0.9661051464753108,
    0.9784437332399837,
    0.9999998862727434,
    0.9999999999984626,
];
/// shape [16]
const RELU6_GRAD: &[f32] = &[-0.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.75, 0.0, 0.75, -0.25, 0.5, -0.0, 0.0, -0.0, 0.0];
/// shape [16]
const ELU_GRAD: &[f32] = &[
    -0.0,
    0.0,
    0.037340283,
    -0.09196986,
    0.30326533,
    -0.49950024,
    0.25,
    -0.75,
    0.0,
    0.75,
    -0.25,
    0.5,
    -0.5,
    0.25,
    -0.75,
    0.0,
];
/// shape [16]
const SELU_GRAD: &[f32] = &[
    -0.0,
    0.0,
    0.06564796,
    -0.16169214,
    0.5331706,
    -0.878171,
    0.26267526,
    -0.78802574,
    0.0,
    0.78802574,
    -0.26267526,
    0.5253505,
    -0.5253505,
    0.26267526,
    -0.78802574,
    0.0,
];
/// shape [16]
const LEAKY_GRAD_DEFAULT: &[f32] =
    &[-0.15, 0.0, 0.15, -0.05, 0.1, -0.1, 0.05, -0.75, 0.0, 0.75, -0.25, 0.5, -0.5, 0.25, -0.75, 0.0];
/// shape [16]
const LEAKY_GRAD_1_5: &[f32] =
    &[-1.125, 0.0, 1.125, -0.375, 0.75, -0.75, 0.375, -0.75, 0.0, 0.75, -0.25, 0.5, -0.5, 0.25, -0.75, 0.0];
/// shape [16]
const SOFTPLUS_GRAD: &[f32] = &[
    -1.5458652e-09,
    0.0,
    0.035569403,
    -0.06723536,
    0.18877034,
    -0.24987501,
    0.125,
    -0.3751875,
    0.0,
    0.54829395,
    -0.23814353,
    0.49863404,
    -0.4987637,
    0.2496247,
    -0.74999976,
    0.0,
];
/// shape [16]
const SOFTSIGN_GRAD: &[f32] = &[
    -0.0017006802,
    0.0,
    0.046875,
    -0.0625,
    0.22222222,
    -0.49900147,
    0.25,
    -0.7485022,
    0.0,
    0.1875,
    -0.015625,
    0.010501996,
    -0.010204081,
    0.0044444446,
    -0.0029296875,
    0.0,
];
/// shape [5]
const RELU6_I32: &[i32] = &[0, 0, 3, 6, 6];
/// shape [5]
const RELU6_GRAD_I32: &[i32] = &[0, 0, 5, 0, 0];
/// tf.math.erfc(X) (scripts/nnops_reference.py activations)
const ERFC: &[f32] = &[
    2.0,
    2.0,
    1.999978,
    1.8427007,
    1.5205,
    1.0011284,
    1.0,
    0.9988716,
    0.47950011,
    0.15729922,
    2.2090497e-05,
    7.190401e-17,
    2.1519737e-17,
    3.8421483e-20,
    0.0,
    0.0,
];
/// tf.math.erfc(X as float64 * 2.5 / 10)
const ERFC_F64: &[f64] = &[
    1.9999999999984626,
    1.9999998862727435,
    1.7111556336535152,
    1.276326390168237,
    1.1403162048013338,
    1.0002820947992956,
    1.0,
    0.9997179052007044,
    0.8596837951986662,
    0.7236736098317631,
    0.2888443663464848,
    0.03698179011854344,
    0.03389485352468927,
    0.02155626676001634,
    1.1372725656979667e-07,
    1.5374597944280347e-12,
];
