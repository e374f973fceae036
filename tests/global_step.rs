//! `train::get_or_create_global_step` with TensorFlow 2.21's ops and names
//! (`tests/data/trainapi/trainapi.json`), incremented by `minimize`, appended to the
//! checkpoint's name by `Saver::save_with_global_step` (`model-3`) and read back on resume;
//! a step counter the saver leaves out is reported in `Saver::warnings`.

mod common;
use common::repo_root;
use tensorgraph::format::checkpoint::latest_checkpoint;
use tensorgraph::train::{
    get_global_step, get_or_create_global_step, global_step, GradientDescentOptimizer, Optimizer, Saver,
};
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor, VariableOptions};

fn facts() -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join("tests/data/trainapi/trainapi.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `loss = w * w` with `w = 3` and gradient descent (0.1) counting steps.
fn model() -> (Graph, tensorgraph::Operation) {
    let g = Graph::new();
    let s = g.scope();
    let w = s
        .variable_with("w", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(3.0f32)))
        .unwrap();
    let loss = ops::mul(&s, &w, &w).unwrap();
    let gs = get_or_create_global_step(&g).unwrap();
    let train = GradientDescentOptimizer::new(0.1).minimize_with(&loss, None, Some(&gs), None).unwrap();
    (g, train)
}

#[test]
fn the_global_step_is_tensorflows() {
    let facts = facts();
    let g = Graph::new();
    assert!(get_global_step(&g).unwrap().is_none());
    let gs = get_or_create_global_step(&g).unwrap();
    let ops: Vec<(String, String)> = g.operations().iter().map(|o| (o.name(), o.op_type())).collect();
    let want: Vec<(String, String)> = facts["global_step_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n[0].as_str().unwrap().to_string(), n[1].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(ops, want);
    assert_eq!(
        (gs.op_name(), gs.dtype(), gs.shape(), gs.trainable()),
        ("global_step".into(), DType::Int64, vec![], false)
    );
    assert_eq!(g.variables_in("global_step"), std::slice::from_ref(&gs));
    assert_eq!(g.global_variables(), std::slice::from_ref(&gs));
    // asked again: the same variable, no new ops
    assert_eq!(get_or_create_global_step(&g).unwrap(), gs);
    assert_eq!(g.num_ops(), 4);
}

#[test]
fn minimize_counts_steps_and_saves_name_checkpoints_by_step() {
    let tmp = tempfile::tempdir().unwrap();
    let (g, train) = model();
    let gs = get_global_step(&g).unwrap().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    for _ in 0..3 {
        sess.run_targets(&[&train]).unwrap();
    }
    assert_eq!(global_step(&sess, &gs).unwrap(), 3);
    let saver = Saver::new(&g).unwrap();
    assert!(saver.warnings().is_empty(), "{:?}", saver.warnings());
    let saved = saver.save_with_global_step(&sess, tmp.path().join("model"), &gs).unwrap();
    assert_eq!(saved, tmp.path().join("model-3"));
    // resuming in a new process: the step is read back, and the next save is model-4
    let (g2, train2) = model();
    let gs2 = get_global_step(&g2).unwrap().unwrap();
    let sess2 = Session::new(&g2).unwrap();
    let saver2 = Saver::new(&g2).unwrap();
    saver2.restore(&sess2, latest_checkpoint(tmp.path()).unwrap().unwrap()).unwrap();
    assert_eq!(global_step(&sess2, &gs2).unwrap(), 3);
    sess2.run_targets(&[&train2]).unwrap();
    assert_eq!(
        saver2.save_with_global_step(&sess2, tmp.path().join("model"), &gs2).unwrap(),
        tmp.path().join("model-4")
    );
    // an uninitialized step is named
    let e = global_step(&Session::new(&g2).unwrap(), &gs2).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.contains("global_step"), "{e}");
}

#[test]
fn a_step_counter_the_saver_leaves_out_is_reported() {
    let g = Graph::new();
    let s = g.scope();
    s.variable_with("w", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(1.0f32))).unwrap();
    let local = VariableOptions { trainable: false, collections: vec!["local_variables".into()], use_resource: false };
    s.variable_with("step", local, |vs| ops::constant(&vs.named("Const"), Tensor::scalar(0i64))).unwrap();
    let saver = Saver::new(&g).unwrap();
    assert_eq!(
        saver.warnings(),
        ["variable step looks like a step counter but is not saved (a local variable): a run resumed from the \
          checkpoint starts it again from its initial value; use train::get_or_create_global_step (a global \
          variable, saved) or add it to the saver's variables"]
    );
    // a global step left out of var_list
    let gs = get_or_create_global_step(&g).unwrap();
    let w = g.trainable_variables();
    let saver = Saver::with_var_list(&w).unwrap();
    assert_eq!(saver.warnings().len(), 2);
    assert!(
        saver.warnings()[0].starts_with(
            "variable global_step looks like a step counter but is not saved (not in this saver's variables)"
        ),
        "{:?}",
        saver.warnings()
    );
    let with_step = Saver::with_var_list(&[w[0].clone(), gs]).unwrap();
    assert_eq!(with_step.warnings().len(), 1, "only the local one");
}
