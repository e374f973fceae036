//! Finite-difference checks of the gradients of the unary math ops, their gradient helper
//! ops (SqrtGrad, RsqrtGrad, ReciprocalGrad) and Maximum/Minimum with broadcasting.

mod common;
use common::{check_gradients, values};
use tensorgraph::{ops, DType, Output, Scope};

const TOL: f64 = 1e-6;

fn one(shape: &[usize], seed: u64, lo: f64, hi: f64) -> Vec<(Vec<usize>, Vec<f64>)> {
    vec![(shape.to_vec(), values(shape.iter().product(), seed, lo, hi))]
}

/// Builds a same-shaped two-input gradient helper op (`SqrtGrad(y, dy)`) directly.
fn helper(s: &Scope, op_type: &str, a: &Output, b: &Output) -> Output {
    s.op(op_type, op_type).input(a).input(b).attr("T", DType::Double).build_output().unwrap()
}

#[test]
fn neg_square_exp() {
    let inp = one(&[2, 3], 1, -2.0, 2.0);
    check_gradients(&inp, TOL, |s, x| ops::neg(s, &x[0]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::square(s, &x[0]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::exp(s, &x[0]).unwrap());
}

#[test]
fn sqrt_rsqrt_log_reciprocal_on_positive_inputs() {
    let inp = one(&[2, 3], 2, 0.5, 3.0);
    check_gradients(&inp, TOL, |s, x| ops::sqrt(s, &x[0]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::rsqrt(s, &x[0]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::log(s, &x[0]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::reciprocal(s, &x[0]).unwrap());
    // reciprocal of negative values too
    check_gradients(&one(&[4], 3, -3.0, -0.5), TOL, |s, x| ops::reciprocal(s, &x[0]).unwrap());
}

#[test]
fn chained_unary_ops() {
    // log(x^2) > 0 so its sqrt is defined
    let inp = one(&[3, 2], 4, 1.2, 2.0);
    check_gradients(&inp, TOL, |s, x| {
        let a = ops::square(s, &x[0]).unwrap();
        let b = ops::log(s, &a).unwrap();
        let c = ops::sqrt(s, &b).unwrap();
        ops::mul(s, &c, &ops::exp(s, &ops::neg(s, &x[0]).unwrap()).unwrap()).unwrap()
    });
}

#[test]
fn gradient_helper_ops_second_order() {
    let inp = vec![(vec![2, 3], values(6, 5, 0.5, 2.0)), (vec![2, 3], values(6, 6, -1.5, 1.5))];
    for op in ["SqrtGrad", "RsqrtGrad", "ReciprocalGrad"] {
        check_gradients(&inp, TOL, |s, x| helper(s, op, &x[0], &x[1]));
    }
}

#[test]
fn second_derivatives_through_gradients() {
    use tensorgraph::train::gradients;
    let inp = one(&[4], 7, 0.5, 2.0);
    for f in [ops::sqrt, ops::rsqrt, ops::reciprocal] {
        check_gradients(&inp, TOL, |s, x| {
            let y = f(s, &x[0]).unwrap();
            // a constant seed: the default Fill(Shape(y)) seed would be differentiated too
            let seed = ops::constant(s, tensorgraph::Tensor::new(&[4], vec![1.0f64; 4]).unwrap()).unwrap();
            gradients(&[y], std::slice::from_ref(&x[0]), Some(&[seed])).unwrap()[0].clone().unwrap()
        });
    }
}

fn pair(a: &[usize], b: &[usize]) -> Vec<(Vec<usize>, Vec<f64>)> {
    // distinct ranges overlapping so both inputs win somewhere, never tie
    let na = a.iter().product();
    let nb = b.iter().product();
    vec![(a.to_vec(), values(na, 11, -2.0, 2.0)), (b.to_vec(), values(nb, 12, -1.9, 1.9))]
}

#[test]
fn maximum_minimum_with_broadcasting() {
    for (a, b) in [(vec![2, 3], vec![2, 3]), (vec![2, 3], vec![3]), (vec![1, 3], vec![2, 1]), (vec![2, 3], vec![])] {
        let inp = pair(&a, &b);
        check_gradients(&inp, TOL, |s, x| ops::maximum(s, &x[0], &x[1]).unwrap());
        check_gradients(&inp, TOL, |s, x| ops::minimum(s, &x[0], &x[1]).unwrap());
        // reversed operand order, so the broadcast side is x
        let rev = vec![inp[1].clone(), inp[0].clone()];
        check_gradients(&rev, TOL, |s, x| ops::maximum(s, &x[0], &x[1]).unwrap());
        check_gradients(&rev, TOL, |s, x| ops::minimum(s, &x[0], &x[1]).unwrap());
    }
}
