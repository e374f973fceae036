//! `train::ExponentialMovingAverage` against TensorFlow 2.21 (`scripts/gen_trainapi.py`,
//! `tests/data/trainapi/trainapi.json`): the shadow variables and update ops with TF's names,
//! inputs and colocation, the averages after three train steps with the global step as
//! `num_updates`, `variables_to_restore` and the "restore the averaged weights" recipe.

mod common;
use common::{assert_close, flat_f64, repo_root};
use std::collections::BTreeMap;
use tensorgraph::graph::AttrValue;
use tensorgraph::train::{
    get_or_create_global_step, ExponentialMovingAverage, GradientDescentOptimizer, Optimizer, Saver,
};
use tensorgraph::{ops, Code, Graph, Operation, Session, Tensor, Variable};

fn facts() -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join("tests/data/trainapi/trainapi.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

struct Model {
    g: Graph,
    v: Variable,
    w: Variable,
    gs: Variable,
    ema: ExponentialMovingAverage,
    apply: Operation,
    train: Operation,
}

/// TensorFlow's script: `v = [1, 2]`, `s/w = 3`, the global step, an average with decay 0.9
/// and `num_updates=global_step`, `loss = sum(v*v) + w*w`, gradient descent (0.1) with the step.
fn model() -> Model {
    let g = Graph::new();
    let s = g.scope();
    let v = s
        .variable_with("v", Default::default(), |vs| {
            ops::constant(&vs.named("Const"), Tensor::vector(vec![1.0f32, 2.0]))
        })
        .unwrap();
    let w = s
        .variable_with("s/w", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(3.0f32)))
        .unwrap();
    let gs = get_or_create_global_step(&g).unwrap();
    let ema = ExponentialMovingAverage::new(0.9).num_updates(&gs);
    let apply = ema.apply(&[v.clone(), w.clone()]).unwrap();
    let vv = ops::mul(&s, &v, &v).unwrap();
    let sum = ops::reduce_sum(&s, &vv, None, false).unwrap();
    let ww = ops::mul(&s, &w, &w).unwrap();
    let loss = ops::add(&s, &sum, &ww).unwrap();
    let train = GradientDescentOptimizer::new(0.1).minimize_with(&loss, None, Some(&gs), None).unwrap();
    Model { g, v, w, gs, ema, apply, train }
}

/// Name, op type and inputs of the nodes `keep` selects, control inputs sorted by name (as
/// TensorFlow's `Graph::ToGraphDef` writes them).
fn node_list(g: &Graph, keep: impl Fn(&str) -> bool) -> Vec<(String, String, Vec<String>)> {
    g.to_graph_def()
        .node
        .into_iter()
        .filter(|n| keep(&n.name))
        .map(|n| {
            let (mut control, data): (Vec<String>, Vec<String>) = n.input.into_iter().partition(|i| i.starts_with('^'));
            control.sort();
            (n.name, n.op, data.into_iter().chain(control).collect())
        })
        .collect()
}

#[test]
fn update_ops_have_tensorflows_names_inputs_and_colocation() {
    let facts = facts();
    let m = model();
    let want: Vec<(String, String, Vec<String>)> = facts["ema_update_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let inputs = n[2].as_array().unwrap().iter().map(|i| i.as_str().unwrap().to_string()).collect();
            (n[0].as_str().unwrap().to_string(), n[1].as_str().unwrap().to_string(), inputs)
        })
        .collect();
    assert_eq!(node_list(&m.g, |n| n.starts_with("ExponentialMovingAverage")), want);
    // the shadows and the updates are colocated with their variables, as TensorFlow
    for (name, target) in [
        ("v/ExponentialMovingAverage", "v"),
        ("v/ExponentialMovingAverage/Assign", "v"),
        ("v/ExponentialMovingAverage/read", "v"),
        ("s/w/ExponentialMovingAverage", "s/w"),
        ("ExponentialMovingAverage/AssignMovingAvg", "v"),
        ("ExponentialMovingAverage/AssignMovingAvg_1", "s/w"),
    ] {
        let class: Vec<String> =
            facts["ema_colocation"][name].as_array().unwrap().iter().map(|c| c.as_str().unwrap().into()).collect();
        assert_eq!(class, [format!("loc:@{target}")], "{name}");
        let op = m.g.operation_by_name(name).unwrap();
        assert_eq!(op.node().attrs.get("_class"), Some(&AttrValue::colocation(target)), "{name}");
    }
    let avg = m.ema.average(&m.v).unwrap();
    assert_eq!(avg.op_name(), "v/ExponentialMovingAverage");
    assert!(!avg.trainable());
    assert_eq!(m.ema.average_name(&m.w), "s/w/ExponentialMovingAverage");
    let mav: Vec<String> = m.g.variables_in("moving_average_variables").iter().map(Variable::op_name).collect();
    let want: Vec<String> =
        facts["moving_average_variables"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().into()).collect();
    assert_eq!(mav, want);
    // the train op increments the step after the updates, with TensorFlow's names
    let tail: Vec<(String, String, Vec<String>)> = facts["minimize_tail_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let inputs = n[2].as_array().unwrap().iter().map(|i| i.as_str().unwrap().to_string()).collect();
            (n[0].as_str().unwrap().to_string(), n[1].as_str().unwrap().to_string(), inputs)
        })
        .collect();
    let names: Vec<String> = tail.iter().map(|t| t.0.clone()).collect();
    assert_eq!(node_list(&m.g, |n| names.iter().any(|x| x == n)), tail);
    assert_eq!(m.train.name(), "GradientDescent");
}

#[test]
fn averages_after_three_steps_are_tensorflows() {
    let facts = facts();
    let m = model();
    let sess = Session::new(&m.g).unwrap();
    sess.run_targets(&[&m.g.scope().global_variables_initializer().unwrap()]).unwrap();
    let avg_v = m.ema.average(&m.v).unwrap();
    let avg_w = m.ema.average(&m.w).unwrap();
    for step in facts["ema_steps"].as_array().unwrap() {
        sess.run_targets(&[&m.train]).unwrap();
        sess.run_targets(&[&m.apply]).unwrap();
        let got = sess.run(&[], &[m.gs.value(), m.v.value(), m.w.value(), avg_v.value(), avg_w.value()], &[]).unwrap();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), [step["global_step"].as_i64().unwrap()]);
        let f = |t: &Tensor| t.to_vec::<f32>().unwrap().into_iter().map(f64::from).collect::<Vec<_>>();
        assert_close("v", &f(&got[1]), &flat_f64(&step["v"]));
        assert_close("s/w", &f(&got[2]), &flat_f64(&step["s/w"]));
        assert_close("v/ExponentialMovingAverage", &f(&got[3]), &flat_f64(&step["v/ExponentialMovingAverage"]));
        assert_close("s/w/ExponentialMovingAverage", &f(&got[4]), &flat_f64(&step["s/w/ExponentialMovingAverage"]));
    }
}

#[test]
fn the_averaged_weights_restore_into_the_model_for_evaluation() {
    let facts = facts();
    let m = model();
    let map: BTreeMap<String, String> =
        m.ema.variables_to_restore(&m.g, None).into_iter().map(|(k, v)| (k, v.op_name())).collect();
    let want: BTreeMap<String, String> = facts["variables_to_restore"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(map, want);
    // train three steps, save everything
    let sess = Session::new(&m.g).unwrap();
    sess.run_targets(&[&m.g.scope().global_variables_initializer().unwrap()]).unwrap();
    for _ in 0..3 {
        sess.run_targets(&[&m.train]).unwrap();
        sess.run_targets(&[&m.apply]).unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let saved = Saver::new(&m.g).unwrap().save(&sess, tmp.path().join("model")).unwrap();
    // an evaluation graph: the model's variables only, loaded with the averages
    let eval = Graph::new();
    let s = eval.scope();
    let v = s
        .variable_with("v", Default::default(), |vs| {
            ops::constant(&vs.named("Const"), Tensor::vector(vec![0.0f32, 0.0]))
        })
        .unwrap();
    let w = s
        .variable_with("s/w", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(0.0f32)))
        .unwrap();
    let ema = ExponentialMovingAverage::new(0.9);
    let saver = Saver::with_name_map(ema.variables_to_restore(&eval, None));
    let es = Session::new(&eval).unwrap();
    saver.restore(&es, &saved).unwrap();
    let last = &facts["ema_steps"][2];
    let f = |t: Tensor| t.to_vec::<f32>().unwrap().into_iter().map(f64::from).collect::<Vec<_>>();
    assert_close("v", &f(es.variable_value(v.op()).unwrap()), &flat_f64(&last["v/ExponentialMovingAverage"]));
    assert_close("s/w", &f(es.variable_value(w.op()).unwrap()), &flat_f64(&last["s/w/ExponentialMovingAverage"]));
}

#[test]
fn a_variable_never_averaged_is_named() {
    let g = Graph::new();
    let s = g.scope();
    let v = s
        .variable_with("v", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(1.0f32)))
        .unwrap();
    let u = s
        .variable_with("u", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(2.0f32)))
        .unwrap();
    let ema = ExponentialMovingAverage::new(0.5);
    ema.apply(std::slice::from_ref(&v)).unwrap();
    let e = ema.average(&u).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        "variable u has no moving average: ExponentialMovingAverage::apply was never called with it (averaged: v)"
    );
    // a checkpoint of that graph restored with every trainable variable's average: u is named
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let saved = Saver::new(&g).unwrap().save(&sess, tmp.path().join("m")).unwrap();
    let eval = Graph::new();
    let es = eval.scope();
    es.variable_with("v", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(0.0f32))).unwrap();
    es.variable_with("u", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(0.0f32))).unwrap();
    let saver = Saver::with_name_map(ExponentialMovingAverage::new(0.5).variables_to_restore(&eval, None));
    let e = saver.restore(&Session::new(&eval).unwrap(), &saved).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(
        e.message.ends_with(
            "1 variable(s) have no moving average in the checkpoint, only their own value: u. They were never averaged \
             (ExponentialMovingAverage::apply was not given them) when the checkpoint was saved; pass variables_to_restore \
             the averaged variables only (moving_avg_variables), so that these are restored under their own names."
        ),
        "{e}"
    );
    // as the message says
    let only_v = eval.trainable_variables().into_iter().filter(|x| x.op_name() == "v").collect::<Vec<_>>();
    let saver = Saver::with_name_map(ExponentialMovingAverage::new(0.5).variables_to_restore(&eval, Some(&only_v)));
    saver.restore(&Session::new(&eval).unwrap(), &saved).unwrap();
    // an integer variable cannot be averaged
    let n =
        s.variable_with("n", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(1i32))).unwrap();
    let e = ema.apply(&[n]).unwrap_err();
    assert_eq!(e.message, "The variables must be half, float, or double: n:0 is int32");
}
