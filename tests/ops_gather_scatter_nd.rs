//! GatherNd and ScatterNd: values, static shapes and error messages as TensorFlow 2.21
//! gives them (`scripts/gen_ops_nd.py`), TensorFlow's gradient op types (each op's
//! gradient is the other) and finite-difference gradient checks.

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

fn arange(s: &Scope) -> Output {
    c(s, &[2, 3, 4], (0..24).map(|v| v as f32).collect())
}

fn grad_types(g: &Graph) -> BTreeSet<String> {
    g.operations().iter().filter(|o| o.name().contains("_grad/")).map(|o| o.op_type().to_string()).collect()
}

#[test]
fn gather_nd_values_and_shapes() {
    let g = Graph::new();
    let s = g.scope();
    let p = arange(&s);
    let y = ops::gather_nd(&s, &p, &c(&s, &[2, 3], vec![1i32, 2, 3, 0, 1, 0])).unwrap();
    assert_eq!((y.name(), y.shape()), ("GatherNd:0".to_string(), Shape::known(&[2])));
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), [23.0, 4.0]);
    let y = ops::gather_nd(&s, &p, &c(&s, &[2, 2, 1], vec![1i32, 0, 1, 1])).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 2, 3, 4]));
    let want: Vec<f32> = [12..24, 0..12, 12..24, 12..24].into_iter().flatten().map(|v| v as f32).collect();
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), want);
    let y = ops::gather_nd(&s, &p, &c(&s, &[2, 2], vec![0i32, 2, 1, 0])).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 4]));
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]);
    // an empty last axis picks the whole of params per tuple
    let y = ops::gather_nd(&s, &p, &c(&s, &[2, 0], Vec::<i32>::new())).unwrap();
    assert_eq!(y.shape(), Shape::known(&[2, 2, 3, 4]));
    let t = run(&y).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(t, (0..24).chain(0..24).map(|v| v as f32).collect::<Vec<_>>());
    let y = ops::gather_nd(&s, &c(&s, &[2, 2], vec![1i64, 2, 3, 4]), &c(&s, &[1, 2], vec![1i64, 0])).unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<i64>().unwrap(), [3]);
    let y = ops::gather_nd(&s, &c(&s, &[3], vec![true, false, true]), &c(&s, &[2, 1], vec![1i32, 2])).unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<bool>().unwrap(), [false, true]);
}

#[test]
fn gather_nd_errors_are_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let p = arange(&s);
    let e = run(&ops::gather_nd(&s, &p, &c(&s, &[2, 2], vec![0i32, 1, 1, 3])).unwrap()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    let want = "indices[1] = [1, 3] does not index into param shape [2,3,4], node name: GatherNd";
    assert!(e.message.contains(want), "{}", e.message);
    let e = run(&ops::gather_nd(&s, &p, &c(&s, &[2, 1, 2], vec![0i32, 1, -1, 0])).unwrap()).unwrap_err();
    assert!(e.message.contains("indices[1,0] = [-1, 0] does not index into param shape [2,3,4]"), "{}", e.message);
    let e = ops::gather_nd(&s, &p, &c(&s, &[1, 4], vec![0i32, 1, 2, 3])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    let want = "indices.shape[-1] must be <= params.rank, but saw indices shape: [1,4] and params shape: [2,3,4]";
    assert!(e.message.contains(want), "{}", e.message);
    let e = ops::gather_nd(&s, &p, &c(&s, &[], vec![1i32])).unwrap_err();
    assert!(e.message.contains("Shape must be at least rank 1 but is rank 0"), "{}", e.message);
    let e = ops::gather_nd(&s, &p, &c(&s, &[1], vec![1.0f32])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
}

#[test]
fn scatter_nd_values_and_errors() {
    let g = Graph::new();
    let s = g.scope();
    let sh = |v: Vec<i32>| c(&s, &[v.len()], v);
    let y = ops::scatter_nd(
        &s,
        &c(&s, &[5, 1], vec![4i32, 3, 1, 7, 4]),
        &c(&s, &[5], vec![9f32, 10.0, 11.0, 12.0, 13.0]),
        &sh(vec![8]),
    )
    .unwrap();
    assert_eq!((y.name(), y.shape()), ("ScatterNd:0".to_string(), Shape::known(&[8])));
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), [0.0, 11.0, 0.0, 10.0, 22.0, 0.0, 0.0, 12.0]);
    let y = ops::scatter_nd(
        &s,
        &c(&s, &[2, 1], vec![0i32, 2]),
        &c(&s, &[2, 2], vec![5f64, 5.0, 6.0, 7.0]),
        &sh(vec![4, 2]),
    )
    .unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<f64>().unwrap(), [5.0, 5.0, 0.0, 0.0, 6.0, 7.0, 0.0, 0.0]);
    let y = ops::scatter_nd(
        &s,
        &c(&s, &[3, 2], vec![1i64, 1, 0, 0, 1, 1]),
        &c(&s, &[3], vec![1i32, 2, 3]),
        &c(&s, &[2], vec![2i64, 2]),
    )
    .unwrap();
    assert_eq!(run(&y).unwrap().to_vec::<i32>().unwrap(), [2, 0, 0, 4]);
    // a computed shape: unknown statically, as TensorFlow's
    let fed = ops::placeholder_with_default(&s, &sh(vec![4]), Shape::partial(&[None])).unwrap();
    let y = ops::scatter_nd(&s, &c(&s, &[2, 1], vec![1i32, 2]), &c(&s, &[2], vec![1f32, 2.0]), &fed).unwrap();
    assert_eq!(y.shape(), Shape::unknown());
    assert_eq!(run(&y).unwrap().to_vec::<f32>().unwrap(), [0.0, 1.0, 2.0, 0.0]);
    let oob = ops::scatter_nd(&s, &c(&s, &[2, 1], vec![1i32, 8]), &c(&s, &[2], vec![1f32, 2.0]), &sh(vec![8])).unwrap();
    let e = run(&oob).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("indices[1] = [8] does not index into shape [8]"), "{}", e.message);
    let e = ops::scatter_nd(&s, &c(&s, &[2, 1], vec![1i32, 2]), &c(&s, &[3], vec![1f32, 2.0, 3.0]), &sh(vec![8]))
        .unwrap_err();
    let want =
        "Dimensions [0,1) of indices[shape=[2,1]] = [2] must match dimensions [0,1) of updates[shape=[3]] = [3]: \
                Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3].";
    assert!(e.message.contains(want), "{}", e.message);
}

#[test]
fn gradients_are_each_other_as_in_tensorflow() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, vec![2, 3, 4]).unwrap();
    let y = ops::gather_nd(&s, &x, &c(&s, &[2, 2], vec![0i32, 1, 1, 2])).unwrap();
    gradients(&[y], &[x], None).unwrap();
    assert_eq!(grad_types(&g), ["Const", "ScatterNd"].map(String::from).into_iter().collect());
    let g = Graph::new();
    let s = g.scope();
    let u = ops::placeholder(&s.named("u"), DType::Float, vec![2, 2]).unwrap();
    let y = ops::scatter_nd(&s, &c(&s, &[2, 1], vec![0i32, 2]), &u, &c(&s, &[2], vec![4i32, 2])).unwrap();
    gradients(&[y], &[u], None).unwrap();
    assert_eq!(grad_types(&g), ["GatherNd"].map(String::from).into_iter().collect());

    // finite differences; a repeated index sums both gradients into one slot
    check_gradients(&[one(&[3, 4, 2], 3, -1.0, 1.0)], 1e-6, |s, x| {
        ops::gather_nd(s, &x[0], &c(s, &[3, 2], vec![0i32, 1, 2, 3, 0, 1])).unwrap()
    });
    check_gradients(&[one(&[3, 2], 5, -1.0, 1.0)], 1e-6, |s, x| {
        ops::scatter_nd(s, &c(s, &[3, 1], vec![2i64, 0, 2]), &x[0], &c(s, &[2], vec![4i64, 2])).unwrap()
    });
}
