//! The `ops::cond` builder: the ops and names TensorFlow's `tf.cond` (cond_v1) writes,
//! compared node by node with TensorFlow 2.21's graph (tests/data/control_flow/cond.pbtxt),
//! its results, nesting, captured outputs, errors and gradients.

mod common;
mod control_flow_common;
use control_flow_common::{case, data_dir, tensor};
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn scalar_const(s: &Scope, op: &str, v: f32) -> (Scope, Output) {
    let (op_scope, helpers) = s.op_scope(op);
    (op_scope, ops::constant(&helpers.named("y"), Tensor::scalar(v)).unwrap())
}

/// TensorFlow's `tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)`, with its placeholders.
fn cond_graph() -> (Graph, Output, Output, Output) {
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::scalar()).unwrap();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None]).unwrap();
    let out = ops::cond(
        &s,
        &p,
        |s| {
            let (m, y) = scalar_const(s, "mul", 2.0);
            Ok(vec![ops::mul(&m, &x, &y)?])
        },
        |s| {
            let (a, y) = scalar_const(s, "add", 1.0);
            Ok(vec![ops::add(&a, &x, &y)?])
        },
    )
    .unwrap();
    (g, p, x, out[0].clone())
}

#[test]
fn cond_writes_tensorflows_nodes() {
    let (g, _, _, out) = cond_graph();
    assert_eq!(out.name(), "cond/Merge:0");
    let tf = graph_def_from_text(&std::fs::read_to_string(data_dir().join("cond.pbtxt")).unwrap()).unwrap();
    let ours = g.to_graph_def();
    let tf_cond: Vec<_> = tf.node.iter().filter(|n| n.name.starts_with("cond/")).collect();
    let our_cond: Vec<_> = ours.node.iter().filter(|n| n.name.starts_with("cond/")).collect();
    assert_eq!(our_cond.len(), tf_cond.len(), "{:?}", our_cond.iter().map(|n| &n.name).collect::<Vec<_>>());
    for n in tf_cond {
        let o = ours.node.iter().find(|o| o.name == n.name).unwrap_or_else(|| panic!("no {}", n.name));
        assert_eq!((&o.op, &o.input), (&n.op, &n.input), "{}", n.name);
    }
}

#[test]
fn cond_runs_the_selected_branch_as_tensorflow() {
    let (g, p, x, out) = cond_graph();
    let sess = Session::new(&g).unwrap();
    for name in ["cond_p1", "cond_p0"] {
        let c = case(name);
        let feeds = [(&p, tensor(&c["feeds"]["p:0"])), (&x, tensor(&c["feeds"]["x:0"]))];
        let got = sess.run(&feeds, &[&out], &[]).unwrap()[0].to_f64_vec().unwrap();
        assert_eq!(got, tensor(&c["outputs"][0]).to_f64_vec().unwrap(), "{name}");
    }
}

#[test]
fn nested_conds_and_outputs_from_outside_match_tensorflow() {
    // tf.cond(p, lambda: tf.cond(q, lambda: x * 3, lambda: x - 1), lambda: x * 0 + 5)
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::scalar()).unwrap();
    let q = ops::placeholder(&s.named("q"), DType::Bool, Shape::scalar()).unwrap();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None]).unwrap();
    let k = |s: &Scope, v: f32| ops::constant(s, Tensor::scalar(v)).unwrap();
    let out = ops::cond(
        &s,
        &p,
        |s| ops::cond(s, &q, |s| Ok(vec![ops::mul(s, &x, &k(s, 3.0))?]), |s| Ok(vec![ops::sub(s, &x, &k(s, 1.0))?])),
        |s| Ok(vec![ops::add(s, &ops::mul(s, &x, &k(s, 0.0))?, &k(s, 5.0))?]),
    )
    .unwrap();
    let sess = Session::new(&g).unwrap();
    for name in ["nested_p1_q1", "nested_p1_q0", "nested_p0_q1", "nested_p0_q0"] {
        let c = case(name);
        let feeds: Vec<(&Output, Tensor)> =
            [(&p, "p:0"), (&q, "q:0"), (&x, "x:0")].into_iter().map(|(o, k)| (o, tensor(&c["feeds"][k]))).collect();
        let got = sess.run(&feeds, &[&out[0]], &[]).unwrap()[0].to_f64_vec().unwrap();
        assert_eq!(got, tensor(&c["outputs"][0]).to_f64_vec().unwrap(), "{name}");
    }
    // a branch returning a tensor from outside gets it through a Switch (cond_1/Switch_1)
    let same = ops::cond(&s, &p, |_| Ok(vec![x.clone()]), |s| Ok(vec![ops::neg(s, &x)?])).unwrap();
    assert_eq!(g.operation_by_name("cond_1/Switch_1").unwrap().op_type(), "Switch");
    let xv = Tensor::new(&[2], vec![1.0f32, -2.0]).unwrap();
    for (pv, want) in [(true, [1.0f32, -2.0]), (false, [-1.0, 2.0])] {
        let got = sess.run(&[(&p, Tensor::scalar(pv)), (&x, xv.clone())], &[&same[0]], &[]).unwrap();
        assert_eq!(got[0].to_vec::<f32>().unwrap(), want);
    }
}

#[test]
fn cond_refuses_mismatched_branches_and_a_non_bool_predicate() {
    let g = Graph::new();
    let s = g.scope();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::scalar()).unwrap();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2]).unwrap();
    let e = ops::cond(&s, &p, |_| Ok(vec![x.clone()]), |_| Ok(vec![])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("true_fn returned 1 and false_fn 0"), "{e}");
    let e = ops::cond(&s, &p, |_| Ok(vec![x.clone()]), |s| Ok(vec![ops::cast(s, &x, DType::Int32)?])).unwrap_err();
    assert!(e.message.contains("Outputs of true_fn and false_fn must have the same type(s): output 0 is float"), "{e}");
    let e = ops::cond(&s, &x, |_| Ok(vec![x.clone()]), |_| Ok(vec![x.clone()])).unwrap_err();
    assert!(e.message.contains("pred must be a bool scalar, but x:0 is float32 [2]"), "{e}");
}

#[test]
fn gradients_through_the_cond_builder_match_finite_differences() {
    for pred in [true, false] {
        let inputs = [common::one(&[3], 3, -1.0, 1.0), common::one(&[3], 4, 0.5, 1.5)];
        common::check_gradients(&inputs, 1e-6, |s, xs| {
            let p = ops::constant(s, Tensor::scalar(pred)).unwrap();
            let (x, w) = (&xs[0], &xs[1]);
            let out = ops::cond(
                s,
                &p,
                |s| Ok(vec![ops::mul(s, &ops::square(s, x)?, w)?]),
                |s| Ok(vec![ops::sub(s, w, &ops::exp(s, x)?)?]),
            )
            .unwrap();
            common::weighted(s, &out[0], &[3], 9)
        });
    }
}
