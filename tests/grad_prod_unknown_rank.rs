//! `Prod`'s gradient when the input's rank or the reduction axes are known only when the
//! graph runs (TensorFlow's `_ProdGrad` general path: `Rank`, `ListDiff`, `ConcatV2`,
//! `InvertPermutation`), checked by finite differences, zeros in the input included;
//! and `ListDiff` itself.

mod common;
use common::{check_gradients, values};
use tensorgraph::ops;
use tensorgraph::{Graph, Output, Scope, Session, Shape, Tensor};

/// `x` seen through a `PlaceholderWithDefault` of unknown shape (rank unknown).
fn unknown_rank(s: &Scope, x: &Output) -> Output {
    let u = ops::placeholder_with_default(s, x, Shape::unknown()).unwrap();
    assert_eq!(u.shape().rank(), None);
    u
}

/// `Prod(x, axes)` with the axes a computed (non-constant) int32 tensor.
fn prod_dyn(s: &Scope, x: &Output, axes: &[i32], keep: bool) -> Output {
    let a = ops::constant(s, Tensor::new(&[axes.len()], axes.to_vec()).unwrap()).unwrap();
    let a = ops::placeholder_with_default(s, &a, Shape::partial(&[None])).unwrap();
    s.op("Prod", "Prod")
        .input(x)
        .input(&a)
        .attr("T", x.dtype())
        .attr("Tidx", tensorgraph::DType::Int32)
        .attr("keep_dims", keep)
        .build_output()
        .unwrap()
}

#[test]
fn prod_gradient_at_unknown_rank_matches_finite_differences() {
    let mut v = values(24, 31, 0.5, 1.5);
    let x = vec![(vec![2, 3, 4], v.clone())];
    for keep in [false, true] {
        for axes in [vec![1], vec![0, 2], vec![-1], vec![2, 0, 1], vec![]] {
            // constant axes, unknown rank
            check_gradients(&x, 1e-6, |s, x| ops::reduce_prod(s, &unknown_rank(s, &x[0]), Some(&axes), keep).unwrap());
            // computed axes, known and unknown rank
            check_gradients(&x, 1e-6, |s, x| prod_dyn(s, &x[0], &axes, keep));
            check_gradients(&x, 1e-6, |s, x| prod_dyn(s, &unknown_rank(s, &x[0]), &axes, keep));
        }
    }
    // a zero, and two zeros in one reduced group: the exclusive products handle them
    v[5] = 0.0;
    let x = vec![(vec![2, 3, 4], v.clone())];
    check_gradients(&x, 1e-6, |s, x| ops::reduce_prod(s, &unknown_rank(s, &x[0]), Some(&[2]), false).unwrap());
    v[6] = 0.0;
    let x = vec![(vec![2, 3, 4], v)];
    check_gradients(&x, 1e-6, |s, x| ops::reduce_prod(s, &unknown_rank(s, &x[0]), Some(&[2]), false).unwrap());
    // a scalar input: no axes
    let x = vec![(vec![], vec![1.7])];
    check_gradients(&x, 1e-6, |s, x| ops::reduce_prod(s, &unknown_rank(s, &x[0]), Some(&[]), false).unwrap());
}

#[test]
fn prod_gradient_at_unknown_rank_uses_tensorflows_ops() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), tensorgraph::DType::Float, Shape::unknown()).unwrap();
    let y = ops::reduce_prod(&s, &x, Some(&[1]), false).unwrap();
    let before = g.num_ops();
    tensorgraph::train::gradients(&[y], &[x], None).unwrap();
    let made: Vec<String> = g.operations()[before..].iter().map(|o| o.op_type()).collect();
    for op in ["Rank", "ListDiff", "ConcatV2", "InvertPermutation", "Cumprod", "BroadcastTo"] {
        assert!(made.iter().any(|m| m == op), "{op} missing from {made:?}");
    }
}

#[test]
fn list_diff_is_tensorflows_setdiff1d() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::vector(vec![1i32, 2, 3, 4, 3, 6])).unwrap();
    let y = ops::constant(&s, Tensor::vector(vec![1i32, 3, 5])).unwrap();
    let (out, idx) = ops::list_diff(&s, &x, &y, tensorgraph::DType::Int64).unwrap();
    assert_eq!(out.op().name(), "ListDiff");
    let r = Session::new(&g).unwrap().run(&[], &[&out, &idx], &[]).unwrap();
    assert_eq!(r[0].to_vec::<i32>().unwrap(), [2, 4, 6]);
    assert_eq!(r[1].to_vec::<i64>().unwrap(), [1, 3, 5]);
    // NaN is in no y
    let xf = ops::constant(&s, Tensor::vector(vec![f32::NAN, 1.0, 2.0])).unwrap();
    let yf = ops::constant(&s, Tensor::vector(vec![f32::NAN, 2.0])).unwrap();
    let (o, _) = ops::list_diff(&s, &xf, &yf, tensorgraph::DType::Int32).unwrap();
    let r = Session::new(&g).unwrap().run(&[], &[&o], &[]).unwrap();
    let v = r[0].to_vec::<f32>().unwrap();
    assert!(v.len() == 2 && v[0].is_nan() && v[1] == 1.0, "{v:?}");
    // x must be 1-D
    let m = ops::constant(&s, Tensor::new(&[1, 2], vec![1i32, 2]).unwrap()).unwrap();
    let err = ops::list_diff(&s, &m, &y, tensorgraph::DType::Int32).unwrap_err();
    assert!(err.to_string().contains("Shape must be rank 1 but is rank 2 (ListDiff's x)"), "{err}");
}
