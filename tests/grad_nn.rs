//! Finite-difference checks of the gradients of the nn ops: BiasAdd/BiasAddGrad, the
//! activations and their gradient ops, Softmax/LogSoftmax and the cross-entropy losses.

mod common;
use common::{check_gradients, one, values, weighted};
use tensorgraph::{ops, DType, Output, Scope, Tensor};

const TOL: f64 = 1e-6;

/// Values away from 0 (|v| in [0.2, 2)), for ops with a kink there.
fn away_from_zero(n: usize, seed: u64) -> Vec<f64> {
    values(n, seed, 0.2, 2.0).into_iter().enumerate().map(|(i, v)| if i % 2 == 0 { v } else { -v }).collect()
}

fn op2(s: &Scope, op_type: &str, a: &Output, b: &Output) -> Output {
    s.op(op_type, op_type).input(a).input(b).attr("T", DType::Double).build_output().unwrap()
}

#[test]
fn bias_add_nhwc_and_nchw() {
    let inp = vec![one(&[2, 3], 1, -1.0, 1.0), one(&[3], 2, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::bias_add(s, &x[0], &x[1]).unwrap(), &[2, 3], 9));
    let inp = vec![one(&[2, 3, 2, 2], 3, -1.0, 1.0), one(&[2], 4, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::bias_add(s, &x[0], &x[1]).unwrap(), &[2, 3, 2, 2], 9));
    let inp = vec![one(&[2, 3, 2, 2], 5, -1.0, 1.0), one(&[3], 6, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| {
        weighted(s, &ops::bias_add_with_format(s, &x[0], &x[1], "NCHW").unwrap(), &[2, 3, 2, 2], 9)
    });
}

#[test]
fn bias_add_grad_op() {
    for (fmt, shape, c) in [("NHWC", vec![2, 2, 3], 3), ("NCHW", vec![2, 3, 2], 3)] {
        let inp = vec![one(&shape, 7, -1.0, 1.0)];
        check_gradients(&inp, TOL, |s, x| {
            let g = s.op("BiasAddGrad", "BiasAddGrad").input(&x[0]).attr("T", DType::Double).attr("data_format", fmt);
            weighted(s, &g.build_output().unwrap(), &[c], 8)
        });
    }
}

#[test]
fn relu_away_from_zero() {
    let inp = vec![(vec![2, 4], away_from_zero(8, 10))];
    check_gradients(&inp, TOL, |s, x| ops::relu(s, &x[0]).unwrap());
    // ReluGrad(g, features): differentiable in g; features away from 0
    let inp = vec![one(&[2, 4], 11, -1.0, 1.0), (vec![2, 4], away_from_zero(8, 12))];
    check_gradients(&inp, TOL, |s, x| op2(s, "ReluGrad", &x[0], &x[1]));
}

#[test]
fn sigmoid_tanh_and_their_gradient_ops() {
    let inp = vec![one(&[3, 2], 13, -3.0, 3.0)];
    check_gradients(&inp, TOL, |s, x| ops::sigmoid(s, &x[0]).unwrap());
    check_gradients(&inp, TOL, |s, x| ops::tanh(s, &x[0]).unwrap());
    let inp = vec![one(&[3, 2], 14, 0.1, 0.9), one(&[3, 2], 15, -1.0, 1.0)];
    check_gradients(&inp, TOL, |s, x| op2(s, "SigmoidGrad", &x[0], &x[1]));
    check_gradients(&inp, TOL, |s, x| op2(s, "TanhGrad", &x[0], &x[1]));
}

#[test]
fn softmax_and_log_softmax() {
    for shape in [vec![5], vec![2, 3], vec![2, 2, 3]] {
        let inp = vec![one(&shape, 16, -3.0, 3.0)];
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::softmax(s, &x[0]).unwrap(), &shape, 17));
        check_gradients(&inp, TOL, |s, x| weighted(s, &ops::log_softmax(s, &x[0]).unwrap(), &shape, 18));
    }
    // large logits stay finite
    let inp = vec![one(&[2, 3], 19, 500.0, 510.0)];
    check_gradients(&inp, TOL, |s, x| weighted(s, &ops::softmax(s, &x[0]).unwrap(), &[2, 3], 20));
}

/// Label distributions: positive rows summing to 1.
fn distributions(b: usize, c: usize, seed: u64) -> Vec<f64> {
    let v = values(b * c, seed, 0.1, 1.0);
    v.chunks(c).flat_map(|r| r.iter().map(|x| x / r.iter().sum::<f64>()).collect::<Vec<_>>()).collect()
}

#[test]
fn softmax_cross_entropy_wrt_logits_and_labels() {
    let inp = vec![(vec![3, 4], distributions(3, 4, 21)), one(&[3, 4], 22, -2.0, 2.0)];
    check_gradients(&inp, TOL, |s, x| {
        weighted(s, &ops::softmax_cross_entropy_with_logits(s, &x[0], &x[1]).unwrap(), &[3], 23)
    });
}

#[test]
fn softmax_cross_entropy_backprop_output() {
    // gradient flowing into output 1 (backprop) wrt the logits; labels are constants, as
    // TensorFlow's gradient gives labels only the loss term
    let labels = Tensor::new(&[2, 3], distributions(2, 3, 24)).unwrap();
    let inp = vec![one(&[2, 3], 25, -2.0, 2.0)];
    check_gradients(&inp, TOL, |s, x| {
        let l = ops::constant(s, labels.clone()).unwrap();
        let op = s.op("SoftmaxCrossEntropyWithLogits", "xent").input(&x[0]).input(&l).attr("T", DType::Double);
        let op = op.build().unwrap();
        let loss = weighted(s, &op.output(0).unwrap(), &[2], 26);
        let bp = weighted(s, &op.output(1).unwrap(), &[2, 3], 27);
        let bp = ops::reduce_sum(s, &bp, Some(&[1]), false).unwrap();
        ops::add(s, &loss, &bp).unwrap()
    });
}

#[test]
fn sparse_softmax_cross_entropy_int32_and_int64_labels() {
    let inp = vec![one(&[4, 3], 28, -2.0, 2.0)];
    check_gradients(&inp, TOL, |s, x| {
        let l = ops::constant(s, Tensor::vector(vec![0i32, 2, 1, 2])).unwrap();
        weighted(s, &ops::sparse_softmax_cross_entropy_with_logits(s, &l, &x[0]).unwrap(), &[4], 29)
    });
    check_gradients(&inp, TOL, |s, x| {
        let l = ops::constant(s, Tensor::vector(vec![1i64, 0, 0, 2])).unwrap();
        ops::sparse_softmax_cross_entropy_with_logits(s, &l, &x[0]).unwrap()
    });
}

#[test]
fn small_mlp_end_to_end() {
    // x @ w + b -> tanh -> bias_add -> softmax xent; gradients wrt x, w, b
    let inp = vec![one(&[3, 4], 30, -1.0, 1.0), one(&[4, 2], 31, -1.0, 1.0), one(&[2], 32, -0.5, 0.5)];
    let labels = Tensor::new(&[3, 2], distributions(3, 2, 33)).unwrap();
    check_gradients(&inp, TOL, |s, x| {
        let h = ops::bias_add(s, &ops::matmul(s, &x[0], &x[1]).unwrap(), &x[2]).unwrap();
        let h = ops::sigmoid(s, &ops::tanh(s, &h).unwrap()).unwrap();
        let l = ops::constant(s, labels.clone()).unwrap();
        ops::softmax_cross_entropy_with_logits(s, &l, &h).unwrap()
    });
}
