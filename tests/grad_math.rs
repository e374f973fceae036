//! Finite-difference checks of the gradients of math and array ops.

mod common;
use common::{check_gradients, values};
use tensorgraph::ops;

const TOL: f64 = 1e-6;

fn pair(a: &[usize], b: &[usize]) -> Vec<(Vec<usize>, Vec<f64>)> {
    let na = a.iter().product();
    let nb = b.iter().product();
    vec![(a.to_vec(), values(na, 1, -2.0, 2.0)), (b.to_vec(), values(nb, 2, 0.5, 2.0))]
}

#[test]
fn add_sub_mul_div_with_broadcasting() {
    for (a, b) in [(vec![2, 3], vec![2, 3]), (vec![2, 3], vec![3]), (vec![1, 3], vec![2, 1]), (vec![2, 3], vec![])] {
        let inp = pair(&a, &b);
        check_gradients(&inp, TOL, |s, x| ops::add(s, &x[0], &x[1]).unwrap());
        check_gradients(&inp, TOL, |s, x| ops::sub(s, &x[0], &x[1]).unwrap());
        check_gradients(&inp, TOL, |s, x| ops::mul(s, &x[0], &x[1]).unwrap());
        check_gradients(&inp, TOL, |s, x| ops::div(s, &x[0], &x[1]).unwrap());
    }
}

#[test]
fn matmul_all_transposes() {
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let a = if ta { vec![4, 3] } else { vec![3, 4] };
        let b = if tb { vec![2, 4] } else { vec![4, 2] };
        check_gradients(&pair(&a, &b), TOL, |s, x| ops::matmul_t(s, &x[0], &x[1], ta, tb).unwrap());
    }
}

#[test]
fn reductions_and_reshape() {
    let inp = vec![(vec![2, 3, 2], values(12, 3, -1.0, 1.0))];
    for axes in [None, Some(vec![0]), Some(vec![1]), Some(vec![-1]), Some(vec![0, 2])] {
        for keep in [false, true] {
            let ax = axes.clone();
            check_gradients(&inp, TOL, |s, x| ops::reduce_sum(s, &x[0], ax.as_deref(), keep).unwrap());
            let ax = axes.clone();
            check_gradients(&inp, TOL, |s, x| ops::reduce_mean(s, &x[0], ax.as_deref(), keep).unwrap());
            let ax = axes.clone();
            check_gradients(&inp, TOL, |s, x| ops::reduce_max(s, &x[0], ax.as_deref(), keep).unwrap());
        }
    }
    check_gradients(&inp, TOL, |s, x| ops::reshape_to(s, &x[0], &[3, -1]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::expand_dims(s, &x[0], 1).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::identity(s, &x[0]).unwrap());
    // through float32 and back: float32 rounding limits the finite difference
    check_gradients(&inp, 1e-1, |s, x| {
        let y = ops::cast(s, &x[0], tensorgraph::DType::Float).unwrap();
        ops::cast(s, &y, tensorgraph::DType::Double).unwrap()
    });
}

#[test]
fn shared_input_gradients_are_summed() {
    let inp = vec![(vec![3], values(3, 4, 0.5, 1.5))];
    check_gradients(&inp, TOL, |s, x| {
        let a = ops::mul(s, &x[0], &x[0]).unwrap();
        ops::add(s, &a, &x[0]).unwrap()
    });
}

#[test]
fn fill_add_n_and_placeholder_with_default() {
    let inp = vec![(vec![], vec![1.5]), (vec![2, 2], values(4, 5, -1.0, 1.0))];
    check_gradients(&inp, TOL, |s, x| {
        let dims = ops::constant(s, tensorgraph::Tensor::vector(vec![2i32, 2])).unwrap();
        let f = ops::fill(s, &dims, &x[0]).unwrap();
        ops::mul(s, &f, &x[1]).unwrap()
    });
    let inp = vec![(vec![3], values(3, 6, -1.0, 1.0)), (vec![3], values(3, 7, -1.0, 1.0))];
    check_gradients(&inp, TOL, |s, x| {
        let sq = ops::mul(s, &x[1], &x[1]).unwrap();
        ops::add_n(s, &[x[0].clone(), sq, x[0].clone()]).unwrap()
    });
    check_gradients(&inp, TOL, |s, x| {
        let d = ops::placeholder_with_default(s, &x[0], [3]).unwrap();
        ops::mul(s, &d, &x[1]).unwrap()
    });
}
