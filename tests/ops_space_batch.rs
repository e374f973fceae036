//! SpaceToBatchND and BatchToSpaceND: values and errors as TensorFlow 2.21 gives them
//! (`scripts/gen_ops_nd.py space_batch`), each one's gradient being the other (as
//! TensorFlow's), finite-difference gradient checks, and a TensorFlow-written graph of
//! dilated convolutions (`tf.compat.v1.layers.conv2d(dilation_rate=2)`,
//! `tf.nn.atrous_conv2d`) and its gradient (tests/data/dilated_conv.pbtxt, from
//! `scripts/gen_ops_nd.py dilated`) run to TensorFlow's values.

mod common;
use common::{assert_close, check_gradients, one, repo_root};
use std::collections::BTreeSet;
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def_text, ImportGraphDefOptions};
use tensorgraph::train::gradients;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn run(out: &Output) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(out.graph()).unwrap();
    Ok(sess.run(&[], &[out], &[])?.remove(0))
}

fn c<T: tensorgraph::tensor::Element>(s: &Scope, shape: &[usize], v: Vec<T>) -> Output {
    ops::constant(s, Tensor::new(shape, v).unwrap()).unwrap()
}

/// `arange(1, 33)` as [2, 4, 2, 2] float32.
fn x(s: &Scope) -> Output {
    c(s, &[2, 4, 2, 2], (1..33).map(|v| v as f32).collect())
}

fn s2b(s: &Scope, x: &Output, b: Vec<i32>, p: Vec<i32>) -> tensorgraph::Result<Output> {
    let m = b.len();
    ops::space_to_batch_nd(s, x, &c(s, &[m], b), &c(s, &[m, 2], p))
}

fn b2s(s: &Scope, x: &Output, b: Vec<i32>, cr: Vec<i32>) -> tensorgraph::Result<Output> {
    let m = b.len();
    ops::batch_to_space_nd(s, x, &c(s, &[m], b), &c(s, &[m, 2], cr))
}

#[test]
fn space_to_batch_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let y = s2b(&s, &x(&s), vec![2, 2], vec![0, 0, 1, 1]).unwrap();
    assert_eq!((y.name(), y.shape()), ("SpaceToBatchND:0".to_string(), Shape::known(&[8, 2, 2, 2])));
    #[rustfmt::skip]
    let want = [0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 11.0, 12.0, 0.0, 0.0, 19.0, 20.0, 0.0, 0.0, 27.0, 28.0, 1.0, 2.0, 0.0, 0.0, 9.0, 10.0, 0.0, 0.0, 17.0, 18.0, 0.0, 0.0, 25.0, 26.0, 0.0, 0.0, 0.0, 0.0, 7.0, 8.0, 0.0, 0.0, 15.0, 16.0, 0.0, 0.0, 23.0, 24.0, 0.0, 0.0, 31.0, 32.0, 5.0, 6.0, 0.0, 0.0, 13.0, 14.0, 0.0, 0.0, 21.0, 22.0, 0.0, 0.0, 29.0, 30.0, 0.0, 0.0];
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), want);
    let y = ops::space_to_batch_nd(
        &s,
        &c(&s, &[1, 6, 1], (1..7).collect::<Vec<i64>>()),
        &c(&s, &[1], vec![3i64]),
        &c(&s, &[1, 2], vec![2i64, 1]),
    )
    .unwrap();
    assert_eq!(y.shape(), Shape::known(&[3, 3, 1]));
    assert_eq!(run(&y).unwrap().to_vec::<i64>().unwrap(), [0, 2, 5, 0, 3, 6, 1, 4, 0]);
    let e = s2b(&s, &x(&s), vec![3, 1], vec![0; 4]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Dimension size must be evenly divisible by 3 but is 4"), "{}", e.message);
    let e = s2b(&s, &x(&s), vec![2, 1], vec![0, -1, 0, 0]).unwrap_err();
    assert!(e.message.contains("paddings cannot be negative"), "{}", e.message);
    let e = s2b(&s, &x(&s), vec![0, 1], vec![0; 4]).unwrap_err();
    assert!(e.message.contains("block_shape must be positive"), "{}", e.message);
    // computed arguments: the kernel's own checks when run
    let fed = ops::placeholder_with_default(&s, &c(&s, &[2], vec![3i32, 1]), Shape::partial(&[None])).unwrap();
    let y = ops::space_to_batch_nd(&s, &x(&s), &fed, &c(&s, &[2, 2], vec![0i32; 4])).unwrap();
    assert_eq!(y.shape(), Shape::unknown());
    let e = run(&y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("padded_shape[0]=4 is not divisible by block_shape[0]=3"), "{}", e.message);
}

#[test]
fn batch_to_space_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let y = b2s(&s, &x(&s), vec![2, 1], vec![1, 2, 0, 1]).unwrap();
    assert_eq!((y.name(), y.shape()), ("BatchToSpaceND:0".to_string(), Shape::known(&[1, 5, 1, 2])));
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), [17.0, 18.0, 5.0, 6.0, 21.0, 22.0, 9.0, 10.0, 25.0, 26.0]);
    let y = b2s(&s, &c(&s, &[4, 1, 2, 1], (0..8).collect::<Vec<i32>>()), vec![2, 2], vec![0, 0, 0, 1]).unwrap();
    assert_eq!(y.shape(), Shape::known(&[1, 2, 3, 1]));
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [0, 2, 1, 4, 6, 5]);
    let e = b2s(&s, &x(&s), vec![3, 1], vec![0; 4]).unwrap_err();
    assert!(e.message.contains("Dimension size must be evenly divisible by 3 but is 2"), "{}", e.message);
    let e = b2s(&s, &x(&s), vec![1, 1], vec![3, 3, 0, 0]).unwrap_err();
    assert!(e.message.contains("Negative dimension size caused by subtracting 3 from 1"), "{}", e.message);
    let e = b2s(&s, &x(&s), vec![1, 1], vec![0, -1, 0, 0]).unwrap_err();
    assert!(e.message.contains("crops cannot be negative"), "{}", e.message);
    let fed = ops::placeholder_with_default(&s, &c(&s, &[2], vec![3i32, 1]), Shape::partial(&[None])).unwrap();
    let y = ops::batch_to_space_nd(&s, &x(&s), &fed, &c(&s, &[2, 2], vec![0i32; 4])).unwrap();
    let e = run(&y).unwrap_err();
    assert!(
        e.message.contains("Input batch dimension (2) is not divisible by product of block sizes (3)"),
        "{}",
        e.message
    );
}

#[test]
fn gradients_are_each_other_as_in_tensorflow() {
    for s2b_op in [true, false] {
        let g = Graph::new();
        let s = g.scope();
        let p = ops::placeholder(&s.named("p"), DType::Float, vec![2, 4, 2, 2]).unwrap();
        let y =
            if s2b_op { s2b(&s, &p, vec![2, 2], vec![0, 0, 1, 1]) } else { b2s(&s, &p, vec![2, 1], vec![1, 2, 0, 1]) };
        gradients(&[y.unwrap()], &[p], None).unwrap();
        let types: BTreeSet<String> =
            g.operations().iter().filter(|o| o.name().contains("_grad/")).map(|o| o.op_type().to_string()).collect();
        let want = if s2b_op { "BatchToSpaceND" } else { "SpaceToBatchND" };
        assert_eq!(types, [want.to_string()].into_iter().collect());
    }
    check_gradients(&[one(&[2, 3, 2, 2], 11, -1.0, 1.0)], 1e-6, |s, x| {
        s2b(s, &x[0], vec![2, 2], vec![1, 0, 1, 1]).unwrap()
    });
    check_gradients(&[one(&[4, 2, 2, 1], 13, -1.0, 1.0)], 1e-6, |s, x| {
        b2s(s, &x[0], vec![2, 2], vec![1, 0, 0, 1]).unwrap()
    });
}

#[test]
fn tensorflows_dilated_convolutions_run_to_tensorflows_values() {
    let gd = read_graph_def_text(repo_root().join("tests/data/dilated_conv.pbtxt")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    assert!(g.unknown_ops().is_empty(), "every op type of the graph is implemented");
    let op_types: BTreeSet<String> = g.operations().iter().map(|o| o.op_type()).collect();
    for op in ["SpaceToBatchND", "BatchToSpaceND", "Conv2DBackpropInput"] {
        assert!(op_types.contains(op), "{op} in {op_types:?}");
    }
    let t = |name: &str| g.tensor_by_name(name).unwrap();
    let sess = Session::new(&g).unwrap();
    let xv: Vec<f32> = (0..84).map(|i| (i as f32).cos()).collect();
    let got =
        sess.run(&[(&t("x:0"), Tensor::new(&[1, 7, 6, 2], xv).unwrap())], &[&t("out:0"), &t("grad_x:0")], &[]).unwrap();
    assert_close("out", &got[0].to_f64_vec().unwrap(), &[OUT]);
    assert_close("grad_x", &got[1].to_f64_vec().unwrap(), GRAD_X);
}

// ---- TensorFlow 2.21's values: scripts/gen_ops_nd.py dilated
const OUT: f64 = 86.96479797363281;
#[rustfmt::skip]
const GRAD_X: &[f64] = &[
    -6.25974702835083, 7.11616325378418, 10.51681137084961, -9.923853874206543, -9.085230827331543, 8.488691329956055,
    1.8322182893753052, -0.1665533185005188, 0.9122399687767029, -2.1736135482788086, -7.750006198883057, 8.554017066955566,
    -9.082842826843262, 9.332684516906738, 7.1685404777526855, -6.0770440101623535, -5.838898181915283, 4.6156487464904785,
    -3.8295302391052246, 5.212268829345703, 5.552549839019775, -6.645190715789795, -8.2017240524292, 8.239802360534668,
    -13.423209190368652, 12.995227813720703, 5.552143096923828, -3.2040088176727295, -2.842268466949463, 0.7383193969726562,
    -12.542228698730469, 14.173372268676758, 12.608685493469238, -13.400029182434082, -13.544127464294434, 12.74030590057373,
    -11.121376991271973, 9.973235130310059, -2.46610689163208, 4.232365608215332, 3.546874761581421, -5.462038040161133,
    -14.085114479064941, 14.425227165222168, 13.195306777954102, -13.345174789428711, -6.774111270904541, 5.436013221740723,
    -6.29343318939209, 4.691452980041504, -11.255552291870117, 12.855592727661133, 10.104044914245605, -11.459237098693848,
    -16.595661163330078, 15.81684684753418, 11.642875671386719, -10.738182067871094, -1.4441500902175903, -0.5094314813613892,
    -1.3506042957305908, 0.1093481183052063, -8.74573040008545, 9.198683738708496, 8.682732582092285, -9.163179397583008,
    -8.030779838562012, 7.02286434173584, 6.200690269470215, -5.332318305969238, 2.85709547996521, -3.9045324325561523,
    3.6887831687927246, -4.593893051147461, -9.869848251342773, 9.559039115905762, 9.075491905212402, -8.695932388305664,
    -3.0372657775878906, 1.6062183380126953, 1.0397698879241943, 0.13177400827407837, 7.445794105529785, -8.097709655761719,
];
