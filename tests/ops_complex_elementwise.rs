//! Element-wise ops, reductions and casts on complex64 and complex128 against TensorFlow
//! 2.21 (graphs and values by `scripts/gen_ops_complex.py` under `tests/data/ops_complex/`):
//! Add, AddV2, Sub, Mul, RealDiv, Div, DivNoNan (the "complex sign" `x / |x|`), Neg,
//! Square, Exp, Log, Sqrt, Reciprocal, Sign, Sum, Mean, Prod and Cast, with broadcasting,
//! and TensorFlow's own gradient graphs through them; the gradients built here against
//! finite differences; and a graph whose complex branch no fetch needs importing and
//! running.

mod common;
use common::one;
use tensorgraph::{ops, Code, DType, Output, Scope};

const DIR: &str = "ops_complex";

/// Every op on complex64 and complex128 (results read through Real and Imag), and
/// TensorFlow's gradient graphs of a real loss through each: TensorFlow's values (rel 1e-5).
#[test]
fn complex_elementwise_ops_run_to_tensorflows_values() {
    common::runs_to_tensorflows_values(DIR, "elementwise", 300);
}

/// A complex branch (Mul, Neg, Square, Tanh, Sum) nothing fetched reads does not keep the
/// graph from importing and running; fetching it fails on the one op without a complex
/// kernel here (Tanh), naming it.
#[test]
fn complex_ops_on_an_unused_branch_import_and_run() {
    common::runs_to_tensorflows_values(DIR, "unused_branch", 1);
    let g = common::tf_imported(DIR, "unused_branch");
    let sess = tensorgraph::Session::new(&g).unwrap();
    let branch = g.tensor_by_name("import/complex_branch:0").unwrap();
    assert_eq!(branch.dtype(), DType::Complex64);
    let e = sess.run(&[], &[&branch], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("Tanh has no kernel for dtype complex64"), "{e}");
}

/// `Σ w·Re(z) + Σ v·Im(z)` of a complex value `z` of `shape`, for gradient checks on real inputs.
fn real_loss(s: &Scope, z: &Output, shape: &[usize], seed: u64) -> Output {
    let re = common::weighted(s, &ops::real(s, z).unwrap(), shape, seed);
    let im = common::weighted(s, &ops::imag(s, z).unwrap(), shape, seed + 1);
    ops::add(s, &re, &im).unwrap()
}

type Binary = fn(&Scope, &Output, &Output) -> tensorgraph::Result<Output>;
type Unary = fn(&Scope, &Output) -> tensorgraph::Result<Output>;

/// The gradients of the complex arithmetic (`x` `[2, 3]` with `y` `[3]`, broadcast, and
/// with `y` `[2, 3]`) against finite differences on the real and imaginary parts:
/// TensorFlow's conjugated gradients (`_MulGrad`, `_RealDivGrad`, `_DivGrad`, `_DivNoNanGrad`).
#[test]
fn complex_arithmetic_gradients_match_finite_differences() {
    let ops: [(&str, Binary); 6] = [
        ("add", ops::add),
        ("sub", ops::sub),
        ("mul", ops::mul),
        ("div", ops::div),
        ("div_v1", ops::div_v1),
        ("div_no_nan", ops::div_no_nan),
    ];
    for (k, (name, f)) in ops.into_iter().enumerate() {
        for ys in [&[3usize][..], &[2, 3]] {
            let k = k as u64 * 10;
            let ins = [
                one(&[2, 3], k + 1, -1.0, 1.0),
                one(&[2, 3], k + 2, -1.0, 1.0),
                one(ys, k + 3, 0.5, 1.5),
                one(ys, k + 4, -1.0, 1.0),
            ];
            eprintln!("{name} {ys:?}");
            common::check_gradients(&ins, 1e-6, |s, x| {
                let a = ops::complex(s, &x[0], &x[1]).unwrap();
                let b = ops::complex(s, &x[2], &x[3]).unwrap();
                real_loss(s, &f(s, &a, &b).unwrap(), &[2, 3], k + 5)
            });
        }
    }
}

/// The gradients of Neg, Square, Exp, Log, Sqrt, Reciprocal, Sum, Mean, ComplexAbs, Angle,
/// the complex sign `DivNoNan(x, Cast(|x|))` and Cast complex → float → complex against
/// finite differences.
#[test]
fn complex_function_gradients_match_finite_differences() {
    let fns: [(&str, Unary); 12] = [
        ("neg", ops::neg),
        ("square", ops::square),
        ("exp", ops::exp),
        ("log", ops::log),
        ("sqrt", ops::sqrt),
        ("reciprocal", ops::reciprocal),
        ("sum", |s, z| ops::reduce_sum(s, z, Some(&[0]), true)),
        ("mean", |s, z| ops::reduce_mean(s, z, Some(&[1]), true)),
        ("abs", |s, z| ops::cast(s, &ops::complex_abs(s, z)?, z.dtype())),
        ("angle", |s, z| ops::cast(s, &ops::angle(s, z)?, z.dtype())),
        ("sign", |s, z| ops::div_no_nan(s, z, &ops::cast(s, &ops::complex_abs(s, z)?, z.dtype())?)),
        ("cast", |s, z| ops::cast(s, &ops::cast(s, z, DType::Double)?, z.dtype())),
    ];
    for (k, (name, f)) in fns.into_iter().enumerate() {
        let k = k as u64 * 10;
        let ins = [one(&[2, 3], k + 1, 0.3, 1.0), one(&[2, 3], k + 2, -1.0, 1.0)];
        eprintln!("{name}");
        common::check_gradients(&ins, 1e-6, |s, x| {
            let z = ops::complex(s, &x[0], &x[1]).unwrap();
            let y = f(s, &z).unwrap();
            let shape: Vec<usize> = y.shape().to_vec().unwrap();
            real_loss(s, &y, &shape, k + 5)
        });
    }
}

/// A binary op without a complex kernel here (`Pow`): a Rust builder refuses it when the
/// graph is built, naming the dtypes it takes, while an imported graph holding one on a
/// branch no fetch needs imports and runs, and fetching it names the missing kernel.
#[test]
fn a_binary_op_without_a_complex_kernel_is_refused_when_built_and_imports_when_unused() {
    let g = tensorgraph::Graph::new();
    let s = g.scope();
    let re = ops::constant(&s, tensorgraph::Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap()).unwrap();
    let z = ops::complex(&s, &re, &re).unwrap();
    let e = ops::pow(&s.named("p"), &z, &z).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.contains("op 'p' (Pow)")
            && e.message.contains("input 0 has dtype complex64; this op accepts float32"),
        "{e}"
    );
    // the same node in a GraphDef: a Mul renamed Pow
    let mul = ops::mul(&s.named("q"), &z, &z).unwrap();
    let sum = ops::add(&s.named("sum"), &re, &re).unwrap();
    let mut gd = g.to_graph_def();
    gd.node.iter_mut().find(|n| n.name == mul.op().name()).unwrap().op = "Pow".into();
    let imported = tensorgraph::Graph::new();
    tensorgraph::io::graph_def::import_graph_def(
        &imported,
        &gd,
        &tensorgraph::io::graph_def::ImportGraphDefOptions::new(),
    )
    .unwrap();
    let sess = tensorgraph::Session::new(&imported).unwrap();
    let sum = imported.tensor_by_name(&format!("import/{}", sum.name())).unwrap();
    assert_eq!(sess.run(&[], &[&sum], &[]).unwrap()[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
    let p = imported.tensor_by_name(&format!("import/{}", mul.name())).unwrap();
    let e = sess.run(&[], &[&p], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.contains("Pow has no kernel for dtype complex64"), "{e}");
}
