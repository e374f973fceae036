//! Reads under control dependencies (issue 12, item 5): with `ticks` = 0.0, `bump` adding 1
//! to it and `after = identity(ticks)` built under `control_dependencies([bump])`, fetching
//! `after` three times gives [1, 2, 3] in TensorFlow 2.21 with reference and with resource
//! variables (scripts/gen_control_dependency_reads.py prints it): a reference variable's
//! read aliases its buffer, so a consumer sees the value when it runs; a resource
//! variable's `tf.identity(v)` makes a fresh `ReadVariableOp` under the dependencies.

mod common;
use common::repo_root;
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def_text, ImportGraphDefOptions};
use tensorgraph::ops::{self, VariableOptions};
use tensorgraph::{Graph, Output, Scope, Session, Tensor, Variable};

/// `after` fetched three times after `init`.
fn three_fetches(g: &Graph, init: &str, after: &Output) -> Vec<f32> {
    let sess = Session::new(g).unwrap();
    sess.run_targets(&[&g.operation_by_name(init).unwrap()]).unwrap();
    (0..3).map(|_| sess.fetch(&[], after).unwrap().as_slice::<f32>().unwrap()[0]).collect()
}

/// In `g`: the root scope, variable `ticks` = 0.0 (a resource variable when `resource`) and
/// a constant 1.0.
fn ticks_and_one(g: &Graph, resource: bool) -> (Scope, Variable, Output) {
    let s = g.scope();
    let c = ops::constant(&s.sub("ticks/Initializer"), Tensor::scalar(0f32)).unwrap();
    let opts = if resource { VariableOptions::resource() } else { VariableOptions::default() };
    let ticks = s.variable_with("ticks", opts, |_| Ok(c)).unwrap();
    let one = ops::constant(&s, Tensor::scalar(1f32)).unwrap();
    (s, ticks, one)
}

#[test]
fn identity_of_a_reference_variable_after_an_update_sees_the_update() {
    let g = Graph::new();
    let s = g.scope();
    let ticks = s.variable_from_value("ticks", Tensor::scalar(0f32)).unwrap();
    let one = ops::constant(&s.sub("bump"), Tensor::scalar(1f32)).unwrap();
    let bump = ticks.assign_add(&s.named("bump"), &one).unwrap();
    let after = ops::identity(&s.named("after").with_control_dependencies(&[&bump.op()]), ticks.value()).unwrap();
    let init = s.global_variables_initializer().unwrap();
    assert_eq!(three_fetches(&g, &init.name(), &after), [1.0, 2.0, 3.0]);
}

#[test]
fn a_fresh_read_of_a_resource_variable_after_an_update_sees_the_update() {
    let g = Graph::new();
    let (s, ticks, one) = ticks_and_one(&g, true);
    let bump = ticks.assign_add(&s, &one).unwrap();
    let deps = s.with_control_dependencies(&[&bump.op()]);
    let after = ops::identity(&deps.named("after"), &ticks.read(&deps.sub("after")).unwrap()).unwrap();
    let init = s.global_variables_initializer().unwrap();
    assert_eq!(three_fetches(&g, &init.name(), &after), [1.0, 2.0, 3.0]);
}

#[test]
fn a_resource_variable_used_as_a_tensor_under_control_dependencies_is_read_after_them() {
    // the README idiom: `identity(v)` with v's value; TF's `tf.identity(ticks, name="after")`
    // under control_dependencies([bump]) makes `after/ReadVariableOp` there
    let g = Graph::new();
    let (s, ticks, one) = ticks_and_one(&g, true);
    let bump = ticks.assign_add(&s, &one).unwrap();
    let deps = s.with_control_dependencies(&[&bump.op()]);
    let after = ops::identity(&deps.named("after"), ticks.value()).unwrap();
    let read = g.operation_by_name("after/ReadVariableOp").unwrap();
    assert_eq!(read.op_type(), "ReadVariableOp");
    assert_eq!(after.op().node().inputs, [(read.id(), 0)]);
    assert_eq!(read.node().control_inputs, [bump.op().id()]);
    // outside the dependencies the snapshot is used as before
    let plain = ops::identity(&s.named("plain"), ticks.value()).unwrap();
    assert_eq!(plain.op().node().inputs, [ticks.value().key()]);
    let init = s.global_variables_initializer().unwrap();
    assert_eq!(three_fetches(&g, &init.name(), &after), [1.0, 2.0, 3.0]);
}

#[test]
fn a_consumer_that_runs_before_the_update_sees_the_old_value() {
    // old = ticks * 1 runs first (bump waits for it), then bump: old is 0, not 1
    let g = Graph::new();
    let s = g.scope();
    let ticks = s.variable_from_value("ticks", Tensor::scalar(0f32)).unwrap();
    let one = ops::constant(&s, Tensor::scalar(1f32)).unwrap();
    let old = ops::mul(&s.named("old"), ticks.value(), &one).unwrap();
    let bump = ticks.assign_add(&s.named("bump").with_control_dependencies(&[&old.op()]), &one).unwrap();
    let init = s.global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    for step in 0..3 {
        let got = sess.run(&[], &[&old, &bump], &[]).unwrap();
        assert_eq!(got[0].as_slice::<f32>().unwrap()[0], step as f32);
        assert_eq!(got[1].as_slice::<f32>().unwrap()[0], step as f32 + 1.0);
    }
}

#[test]
fn tensorflow_graphs_read_after_the_update_with_both_variable_kinds() {
    for kind in ["ref", "resource"] {
        let path = repo_root().join("tests/data/control_dependency_reads").join(format!("{kind}.pbtxt"));
        let gd = read_graph_def_text(path).unwrap();
        let g = Graph::new();
        import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
        let after = g.tensor_by_name("after:0").unwrap();
        assert_eq!(three_fetches(&g, "init", &after), [1.0, 2.0, 3.0], "{kind} variable");
    }
}

#[test]
fn the_assign_builders_take_the_variable_itself_as_tf_assign_does() {
    // `tf.assign_add(ticks, 1)`: the variable (here what it derefs to, its value snapshot)
    // is assigned, for both kinds
    for resource in [false, true] {
        let g = Graph::new();
        let (s, ticks, one) = ticks_and_one(&g, resource);
        let bump = ops::assign_add(&s.named("bump"), &ticks, &one).unwrap();
        let after = ops::identity(&s.named("after").with_control_dependencies(&[&bump.op()]), &ticks).unwrap();
        let init = s.global_variables_initializer().unwrap();
        assert_eq!(three_fetches(&g, &init.name(), &after), [1.0, 2.0, 3.0], "resource {resource}");
        let down = ops::assign_sub(&s, &ticks, &one).unwrap();
        let set = ops::assign(&s, &ticks, &ops::constant(&s, Tensor::scalar(7f32)).unwrap()).unwrap();
        let sess = Session::new(&g).unwrap();
        sess.run_targets(&[&init]).unwrap();
        assert_eq!(sess.fetch(&[], &down).unwrap().as_slice::<f32>().unwrap(), [-1.0]);
        assert_eq!(sess.fetch(&[], &set).unwrap().as_slice::<f32>().unwrap(), [7.0]);
    }
}
