//! A sequence classifier built here with `ops::while_loop` and TensorArrays (a tanh RNN
//! over 6 steps, a dense layer, softmax cross-entropy) trains with Adam: its first losses
//! are TensorFlow 2.21's for the same graph and initial values
//! (scripts/gen_while_loop.py, `train`), and 50 steps bring the loss down.

mod while_loop_common;
use tensorgraph::ops::{self, TensorArrayOptions, WhileOptions};
use tensorgraph::train::{AdamOptimizer, Optimizer};
use tensorgraph::{init, DType, Graph, Session, Shape, Tensor};
use while_loop_common::{expected, tensor};

#[test]
fn a_while_loop_rnn_trains_with_tensorflows_losses() {
    let e = expected();
    let t = &e["train"];
    let (steps, batch, d, h) = (6usize, 8usize, 3usize, 5usize);
    let g = Graph::new();
    let s = g.scope();
    let mut vars = Vec::new();
    let mut assigns = Vec::new();
    for name in ["Wx", "Wh", "b", "Wo"] {
        let init_v = tensor(&t["inits"][name]);
        let v = s.get_variable(name, Shape::known(init_v.shape()), DType::Float, init::zeros()).unwrap();
        let c = ops::constant(&s, init_v).unwrap();
        assigns.push(v.assign_op(&s, &c).unwrap());
        vars.push(v);
    }
    let seq = ops::constant(&s.named("seq"), tensor(&t["data"])).unwrap();
    let labels = ops::constant(&s.named("labels"), tensor(&t["labels"])).unwrap();
    let n = ops::constant(&s.named("steps"), Tensor::scalar(steps as i32)).unwrap();
    let i0 = ops::constant(&s.named("i0"), Tensor::scalar(0i32)).unwrap();
    let idx = ops::range(&s.named("idx"), 0, steps as i32, 1).unwrap();
    let (xin, xf) = ops::tensor_array_v3(&s.named("xin"), &n, DType::Float, &TensorArrayOptions::default()).unwrap();
    let xf = ops::tensor_array_scatter_v3(&s.named("xin_scatter"), &xin, &idx, &seq, &xf).unwrap();
    let h0 = ops::constant(&s.named("h0"), Tensor::zeros(DType::Float, &[batch, h])).unwrap();
    let (wx, wh, b, wo) =
        (vars[0].value().clone(), vars[1].value().clone(), vars[2].value().clone(), vars[3].value().clone());
    let r = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &n),
        |s, v| {
            let x = ops::tensor_array_read_v3(s, &xin, &v[0], &xf, DType::Float)?;
            let x = while_loop_common::reshape_c(s, &x, &[batch as i32, d as i32])?;
            let one = ops::constant(s, Tensor::scalar(1i32))?;
            let pre = ops::add(s, &ops::add(s, &ops::matmul(s, &x, &wx)?, &ops::matmul(s, &v[1], &wh)?)?, &b)?;
            Ok(vec![ops::add(s, &v[0], &one)?, ops::tanh(s, &pre)?])
        },
        &[i0, h0],
        &WhileOptions { name: "rnn".into(), ..Default::default() },
    )
    .unwrap();
    let logits = ops::matmul(&s.named("logits"), &r[1], &wo).unwrap();
    let xent = ops::sparse_softmax_cross_entropy_with_logits(&s, &labels, &logits).unwrap();
    let loss = ops::reduce_mean(&s.named("loss"), &xent, Some(&[0]), false).unwrap();
    let train = AdamOptimizer::new(0.05).minimize(&loss).unwrap();
    let initop = s.global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&initop]).unwrap();
    sess.run_targets(&assigns.iter().collect::<Vec<_>>()).unwrap();
    let mut losses = Vec::new();
    for _ in 0..50 {
        let out = sess.run(&[], &[&loss], &[&train]).unwrap();
        losses.push(out[0].to_f64_vec().unwrap()[0]);
    }
    let want: Vec<f64> = t["losses"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    for (i, (a, b)) in losses.iter().zip(&want).enumerate() {
        assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "step {i}: loss {a}, TensorFlow {b}");
    }
    assert!(losses[49] < 0.5 * losses[0], "50 steps of Adam: {} -> {}", losses[0], losses[49]);
}
