//! Gradients through TF1 `tf.cond` (TensorFlow's `control_flow_grad`: a Switch's gradient
//! is the Merge of its branches' gradients, a Merge's a Switch on its value_index), checked
//! by finite differences; a net with a `tf.cond` on a training flag, written by TensorFlow
//! 2.21 as a .meta (scripts/gen_control_flow.py), trained here to TensorFlow's losses with
//! TensorFlow's own train op and with gradients built here; a gradient through a while
//! loop TensorFlow wrote (tests/while_loop_grad.rs has the rest).

mod common;
mod control_flow_common;
use control_flow_common::{data_dir, expected, graph, tensor};
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::train::{gradients, GradientDescentOptimizer, Optimizer};
use tensorgraph::{ops, Graph, Output, Scope, Session, Tensor};

/// `cond(p, x * w, w * 2)` with the Switches and the Merge a TF1 `tf.cond` has (x's false
/// output unused: its gradient is the zeros of the untaken branch).
fn cond_fn(s: &Scope, xs: &[Output], pred: bool) -> Output {
    let p = ops::constant(s, Tensor::scalar(pred)).unwrap();
    let (_, xt) = ops::switch(s, &xs[0], &p).unwrap();
    let (wf, wt) = ops::switch(s, &xs[1], &p).unwrap();
    let two = ops::constant(s, Tensor::scalar(2.0f64)).unwrap();
    let f = ops::mul(s, &wf, &two).unwrap();
    let t = ops::mul(s, &xt, &wt).unwrap();
    let y = ops::merge(s, &[f, ops::square(s, &t).unwrap()]).unwrap().0;
    common::weighted(s, &y, &[3], 5)
}

#[test]
fn cond_gradients_match_finite_differences_on_both_branches() {
    for pred in [true, false] {
        let inputs = [common::one(&[3], 1, -1.0, 1.0), common::one(&[3], 2, 0.5, 1.5)];
        common::check_gradients(&inputs, 1e-6, |s, xs| cond_fn(s, xs, pred));
    }
}

#[test]
fn cond_gradients_have_tensorflows_ops() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), tensorgraph::DType::Float, [2]).unwrap();
    let p = ops::placeholder(&s.named("p"), tensorgraph::DType::Bool, tensorgraph::Shape::scalar()).unwrap();
    let (f, t) = ops::switch(&s, &x, &p).unwrap();
    let y = ops::merge(&s, &[ops::neg(&s, &f).unwrap(), t]).unwrap().0;
    let dx = gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let op = |name: &str| g.operation_by_name(name).unwrap().op_type();
    assert_eq!(op("gradients/Merge_grad/cond_grad"), "Switch");
    assert_eq!(op("gradients/Switch_grad/cond_grad"), "Merge");
    assert_eq!(dx.name(), "gradients/Switch_grad/cond_grad:0");
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap();
    for (pv, want) in [(true, [1.0f32, 1.0]), (false, [-1.0, -1.0])] {
        let got = sess.fetch(&[(&x, xv.clone()), (&p, Tensor::scalar(pv))], &dx).unwrap();
        assert_eq!(got.to_vec::<f32>().unwrap(), want);
    }
}

#[test]
fn gradients_through_a_while_loop_tensorflow_wrote() {
    // inv: a = a + w * cast(i) for i in 0..4: d(sum a)/dw = 0 + 1 + 2 + 3 for each element
    let g = graph("loops.pbtxt");
    let y = g.tensor_by_name("inv/Exit_1:0").unwrap();
    let w = g.tensor_by_name("w:0").unwrap();
    let dw = gradients(&[y], std::slice::from_ref(&w), None).unwrap()[0].clone().unwrap();
    let sess = Session::new(&g).unwrap();
    let wv = Tensor::new(&[3], vec![1.0f32, 0.5, -2.0]).unwrap();
    assert_eq!(sess.fetch(&[(&w, wv)], &dw).unwrap().to_vec::<f32>().unwrap(), [6.0, 6.0, 6.0]);
    // a gradient that does not cross the loop is as before
    let x = g.tensor_by_name("x:0").unwrap();
    let y = g.tensor_by_name("cl/add:0").unwrap();
    assert!(gradients(&[y], &[x], None).unwrap()[0].is_some());
}

/// The cond net (`cond_train`: resource variables, `cond_train_ref`: reference
/// variables) imported from TensorFlow's .meta, and TensorFlow's results.
fn cond_net(which: &str) -> (Graph, Session, serde_json::Value) {
    let want = expected()[which].clone();
    let g = Graph::new();
    g.import_meta_graph(data_dir().join(want["meta"].as_str().unwrap()), &ImportMetaGraphOptions::default()).unwrap();
    let sess = Session::new(&g).unwrap();
    (g, sess, want)
}

/// Runs the training steps with `train`, checking each loss and the final variables
/// against TensorFlow's.
fn train_like_tensorflow(g: &Graph, sess: &Session, train: &tensorgraph::Operation, want: &serde_json::Value) {
    let init = want["init"].as_str().unwrap();
    sess.run_targets(&[&g.operation_by_name(init).unwrap()]).unwrap();
    let (x, y) = (g.tensor_by_name("x:0").unwrap(), g.tensor_by_name("y:0").unwrap());
    let training = g.tensor_by_name("training:0").unwrap();
    let loss = g.tensor_by_name(want["loss"].as_str().unwrap()).unwrap();
    let (xs, ys) = (tensor(&want["x"]), tensor(&want["y"]));
    let flags = want["flags"].as_array().unwrap();
    let losses = want["losses"].as_array().unwrap();
    for (step, (flag, tf_loss)) in flags.iter().zip(losses).enumerate() {
        let feeds = [(&x, xs.clone()), (&y, ys.clone()), (&training, Tensor::scalar(flag.as_bool().unwrap()))];
        let got = sess.run(&feeds, &[&loss], &[train]).unwrap()[0].to_vec::<f32>().unwrap()[0] as f64;
        let tf = tf_loss.as_f64().unwrap();
        assert!((got - tf).abs() <= 1e-5 * tf.abs(), "step {step} (training={flag}): loss {got}, TensorFlow {tf}");
    }
    for v in g.global_variables() {
        let name = v.op_name();
        let got = sess.variable_value(v.op()).unwrap().to_f64_vec().unwrap();
        common::assert_close(&name, &got, &tensor(&want["final"][&name]).to_f64_vec().unwrap());
    }
}

#[test]
fn an_imported_cond_net_trains_with_tensorflows_train_op() {
    for which in ["cond_train", "cond_train_ref"] {
        let (g, sess, want) = cond_net(which);
        let train = g.operation_by_name(want["train"].as_str().unwrap()).unwrap();
        train_like_tensorflow(&g, &sess, &train, &want);
    }
}

#[test]
fn an_imported_cond_net_trains_with_gradients_built_here() {
    for which in ["cond_train", "cond_train_ref"] {
        let (g, sess, want) = cond_net(which);
        let loss = g.tensor_by_name(want["loss"].as_str().unwrap()).unwrap();
        let lr = want["learning_rate"].as_f64().unwrap();
        let train = GradientDescentOptimizer::new(lr).minimize(&loss).unwrap();
        if which == "cond_train" {
            // the gradient of `scale`, read only in the true branch, is a Merge of itself
            // (TensorFlow's cond_resource_grad): dead, and `scale` unchanged, when training=False
            assert!(g.operations().iter().any(|op| op.name().ends_with("Switch_grad/cond_resource_grad")));
        }
        train_like_tensorflow(&g, &sess, &train, &want);
    }
}
