//! Optimizer updates against their formulas on hand-computed cases, slot names,
//! global step, and a session shared by many threads.

use tensorgraph::train::{AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer, Optimizer};
use tensorgraph::{ops, DType, Graph, Session, Tensor, Variable};

/// var = [1, 2] (float32), loss = sum(var * [0.5, -1]), so d loss / d var = [0.5, -1].
fn linear() -> (Graph, Variable, tensorgraph::Output) {
    let g = Graph::new();
    let s = g.scope();
    let v = s.variable_from_value("var", Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap()).unwrap();
    let c = ops::constant(&s, Tensor::new(&[2], vec![0.5f32, -1.0]).unwrap()).unwrap();
    let loss = ops::reduce_sum(&s, &ops::mul(&s, &v, &c).unwrap(), None, false).unwrap();
    (g, v, loss)
}

fn value(sess: &Session, v: &Variable) -> Vec<f64> {
    sess.fetch(&[], v).unwrap().to_f64_vec().unwrap()
}

fn near(got: &[f64], want: &[f64]) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-5 * w.abs().max(1.0), "got {got:?}, want {want:?}");
    }
}

const GRAD: [f64; 2] = [0.5, -1.0];

#[test]
fn adam_steps_follow_the_update_formula() {
    let (g, v, loss) = linear();
    let train = AdamOptimizer::new(0.1).minimize(&loss).unwrap();
    assert_eq!(train.name(), "Adam");
    let names: Vec<String> = g.global_variables().iter().map(|v| v.op_name()).collect();
    assert_eq!(names, ["var", "beta1_power", "beta2_power", "var/Adam", "var/Adam_1"]);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    let (lr, b1, b2, eps) = (0.1f64, 0.9f64, 0.999f64, 1e-8f64);
    let mut want = [1.0f64, 2.0];
    let (mut m, mut vv) = ([0.0f64; 2], [0.0f64; 2]);
    for t in 1..=3 {
        sess.run_targets(&[&train]).unwrap();
        let lr_t = lr * (1.0 - b2.powi(t)).sqrt() / (1.0 - b1.powi(t));
        for i in 0..2 {
            m[i] = b1 * m[i] + (1.0 - b1) * GRAD[i];
            vv[i] = b2 * vv[i] + (1.0 - b2) * GRAD[i] * GRAD[i];
            want[i] -= lr_t * m[i] / (vv[i].sqrt() + eps);
        }
        near(&value(&sess, &v), &want);
    }
    let by_name = |n: &str| sess.fetch(&[], &g.tensor_by_name(n).unwrap()).unwrap().to_f64_vec().unwrap();
    near(&by_name("var/Adam:0"), &m);
    near(&by_name("var/Adam_1:0"), &vv);
    near(&by_name("beta1_power:0"), &[b1.powi(4)]);
    near(&by_name("beta2_power:0"), &[b2.powi(4)]);
}

#[test]
fn momentum_and_gradient_descent() {
    let (g, v, loss) = linear();
    let train = MomentumOptimizer::new(0.1, 0.9).minimize(&loss).unwrap();
    assert_eq!(g.global_variables()[1].name(), "var/Momentum:0");
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    let mut want = [1.0f64, 2.0];
    let mut acc = [0.0f64; 2];
    for _ in 0..3 {
        sess.run_targets(&[&train]).unwrap();
        for i in 0..2 {
            acc[i] = 0.9 * acc[i] + GRAD[i];
            want[i] -= 0.1 * acc[i];
        }
        near(&value(&sess, &v), &want);
    }

    let (g, v, loss) = linear();
    let step = g
        .scope()
        .get_variable_with(
            "global_step",
            tensorgraph::Shape::scalar(),
            DType::Int64,
            tensorgraph::init::zeros(),
            tensorgraph::VariableOptions { trainable: false, ..Default::default() },
        )
        .unwrap();
    let train = GradientDescentOptimizer::new(0.5).minimize_with(&loss, None, Some(&step), None).unwrap();
    assert_eq!(train.name(), "GradientDescent");
    assert_eq!(train.op_type(), "AssignAdd");
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    sess.run_targets(&[&train]).unwrap();
    sess.run_targets(&[&train]).unwrap();
    near(&value(&sess, &v), &[1.0 - 2.0 * 0.5 * 0.5, 2.0 + 2.0 * 0.5]);
    assert_eq!(sess.fetch(&[], &step).unwrap().to_vec::<i64>().unwrap(), vec![2]);
    assert_eq!(g.operations_in("train_op"), vec![train]);
}

#[test]
fn minimize_without_a_path_to_the_loss_is_an_error() {
    let (g, _, _) = linear();
    let s = g.scope();
    let other = ops::constant(&s, Tensor::scalar(1.0f32)).unwrap();
    let err = AdamOptimizer::default().minimize(&other).unwrap_err();
    assert!(err.message.starts_with("No gradients provided for any variable"), "{err}");
}

#[test]
fn one_session_many_threads_same_results() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Session>();
    assert_send_sync::<Graph>();
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(3)]).unwrap();
    let w = s.get_variable("w", [3, 2], DType::Float, tensorgraph::init::glorot_uniform_seeded(3)).unwrap();
    let y = ops::softmax(&s, &ops::matmul(&s, &x, &w).unwrap()).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    let input = |i: usize| Tensor::new(&[2, 3], (0..6).map(|j| (i * 6 + j) as f32 / 10.0).collect()).unwrap();
    let serial: Vec<Tensor> = (0..16).map(|i| sess.fetch(&[(&x, input(i))], &y).unwrap()).collect();
    let plans = sess.cached_plans();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let (sess, x, y, serial) = (&sess, &x, &y, &serial);
                scope.spawn(move || {
                    for round in 0..50 {
                        let i = (t + round) % 16;
                        assert_eq!(sess.fetch(&[(x, input(i))], y).unwrap(), serial[i]);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
    assert_eq!(sess.cached_plans(), plans, "repeated runs reuse the cached plan");
}

#[test]
fn update_attrs_of_the_wrong_kind_are_refused_when_built() {
    let g = Graph::new();
    let s = g.scope();
    let v = s.variable_from_value("var", Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap()).unwrap();
    let lr = ops::constant(&s, Tensor::scalar(0.1f32)).unwrap();
    let grad = ops::constant(&s, Tensor::new(&[2], vec![0.5f32, -1.0]).unwrap()).unwrap();
    let e = s
        .op("ApplyGradientDescent", "ApplyGradientDescent")
        .input(&v.reference())
        .input(&lr)
        .input(&grad)
        .attr("T", DType::Float)
        .attr("use_locking", 1i64)
        .build()
        .unwrap_err();
    assert_eq!(e.code, tensorgraph::Code::InvalidArgument);
    assert!(e.message.contains("'use_locking'") && e.message.contains("{{node ApplyGradientDescent}}"), "{e}");
    // the failed build added nothing: the variable trains as before
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[v.initializer()]).unwrap();
    assert_eq!(value(&sess, &v), [1.0, 2.0]);
}
