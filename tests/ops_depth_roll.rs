//! SpaceToDepth, DepthToSpace and Roll: values and errors as TensorFlow 2.21 gives them
//! (`scripts/gen_ops_nd.py depth_roll`), TensorFlow's gradient op types and
//! finite-difference gradient checks.

mod common;
use common::{check_gradients, one};
use std::collections::BTreeSet;
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

fn grad_types(g: &Graph) -> BTreeSet<String> {
    g.operations().iter().filter(|o| o.name().contains("_grad/")).map(|o| o.op_type().to_string()).collect()
}

#[test]
fn space_to_depth_and_back() {
    let g = Graph::new();
    let s = g.scope();
    let x = c(&s, &[1, 4, 2, 4], (0..32).map(|v| v as f32).collect());
    let y = ops::space_to_depth(&s, &x, 2).unwrap();
    assert_eq!((y.name(), y.shape()), ("SpaceToDepth:0".to_string(), Shape::known(&[1, 2, 1, 16])));
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), (0..32).map(|v| v as f32).collect::<Vec<_>>());
    let y = ops::depth_to_space(&s, &x, 2).unwrap();
    assert_eq!((y.name(), y.shape()), ("DepthToSpace:0".to_string(), Shape::known(&[1, 8, 4, 1])));
    #[rustfmt::skip]
    let want = [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15, 16, 17, 20, 21, 18, 19, 22, 23, 24, 25, 28, 29, 26, 27, 30, 31];
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), want.map(|v| v as f32));
    // the round trip is the identity
    let back = ops::space_to_depth(&s, &y, 2).unwrap();
    assert_eq!(run(&back).unwrap().to_vec::<f32>().unwrap(), (0..32).map(|v| v as f32).collect::<Vec<_>>());
    let e = ops::space_to_depth(&s, &c(&s, &[1, 3, 2, 1], vec![0f32; 6]), 2).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Dimension size must be evenly divisible by 2 but is 3"), "{}", e.message);
    let e = ops::depth_to_space(&s, &c(&s, &[1, 2, 2, 6], vec![0f32; 24]), 2).unwrap_err();
    assert!(e.message.contains("Dimension size must be evenly divisible by 4 but is 6"), "{}", e.message);
    let e = ops::depth_to_space(&s, &x, 1).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
}

#[test]
fn roll_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let r = c(&s, &[3, 4], (0..12).collect::<Vec<i64>>());
    let iv = |s: &Scope, v: Vec<i32>| if v.len() == 1 { c(s, &[], v) } else { c(s, &[v.len()], v) };
    let cases: [(Vec<i32>, Vec<i32>, [i64; 12]); 3] = [
        (vec![1], vec![0], [8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7]),
        (vec![-1, 5], vec![1, 0], [5, 6, 7, 4, 9, 10, 11, 8, 1, 2, 3, 0]),
        (vec![1, 2], vec![-1, 1], [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8]),
    ];
    for (sh, ax, want) in cases {
        let y = ops::roll(&s, &r, &iv(&s, sh), &iv(&s, ax)).unwrap();
        assert_eq!(y.shape(), Shape::known(&[3, 4]));
        assert_eq!(run(&y).unwrap().to_vec::<i64>().unwrap(), want);
    }
    let fed = ops::placeholder_with_default(&s, &c(&s, &[], vec![2i32]), Shape::known(&[])).unwrap();
    let e = run(&ops::roll(&s, &r, &c(&s, &[], vec![1i32]), &fed).unwrap()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("axis 2 is out of range"), "{}", e.message);
    let e = ops::roll(&s, &r, &c(&s, &[2], vec![1i32, 2]), &c(&s, &[1], vec![0i32])).unwrap_err();
    let want = "Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2] and [1].";
    assert!(e.message.contains(want), "{}", e.message);
}

#[test]
fn gradients_as_tensorflows() {
    let types: [(&str, &[&str]); 3] =
        [("SpaceToDepth", &["DepthToSpace"]), ("DepthToSpace", &["SpaceToDepth"]), ("Roll", &["Neg", "Roll"])];
    for (op, want) in types {
        let g = Graph::new();
        let s = g.scope();
        let p = ops::placeholder(&s.named("p"), DType::Float, vec![1, 4, 2, 4]).unwrap();
        let y = match op {
            "SpaceToDepth" => ops::space_to_depth(&s, &p, 2),
            "DepthToSpace" => ops::depth_to_space(&s, &p, 2),
            _ => ops::roll(&s, &p, &c(&s, &[2], vec![1i32, -2]), &c(&s, &[2], vec![1i32, 2])),
        };
        gradients(&[y.unwrap()], &[p], None).unwrap();
        assert_eq!(grad_types(&g), want.iter().map(|t| t.to_string()).collect(), "{op}");
    }
    // weighted sums, so that a wrong permutation shows
    let w = |s: &Scope, y: Output, n: usize| {
        let wv = c(
            s,
            &y.shape().dims().unwrap().iter().map(|d| d.unwrap()).collect::<Vec<_>>(),
            (0..n).map(|i| i as f64 * 0.1 - 1.0).collect::<Vec<_>>(),
        );
        ops::mul(s, &y, &wv).unwrap()
    };
    check_gradients(&[one(&[1, 4, 2, 4], 3, -1.0, 1.0)], 1e-6, |s, x| {
        w(s, ops::space_to_depth(s, &x[0], 2).unwrap(), 32)
    });
    check_gradients(&[one(&[1, 4, 2, 4], 4, -1.0, 1.0)], 1e-6, |s, x| {
        w(s, ops::depth_to_space(s, &x[0], 2).unwrap(), 32)
    });
    check_gradients(&[one(&[3, 4], 5, -1.0, 1.0)], 1e-6, |s, x| {
        w(s, ops::roll(s, &x[0], &c(s, &[2], vec![1i64, -3]), &c(s, &[2], vec![0i64, 1])).unwrap(), 12)
    });
}
