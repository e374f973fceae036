//! `Graph::finalize` (`tf.Graph.finalize`): afterwards building an op, importing a graph or
//! adding to a collection is an error naming what was added; the graph still runs. A
//! session whose graph grew between runs says so in its errors and suggests finalize.

use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::train::{AdamOptimizer, Optimizer, Saver};
use tensorgraph::{ops, Code, Graph, Session, Tensor};

#[test]
fn a_finalized_graph_refuses_new_ops_and_still_runs() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s.named("x"), Tensor::scalar(2.0f32)).unwrap();
    let y = ops::mul(&s.name_scope("loss"), &x, &x).unwrap();
    let gd: GraphDef = g.to_graph_def();
    assert!(!g.is_finalized());
    g.finalize();
    assert!(g.is_finalized());
    let n = g.num_ops();
    let e = ops::add(&s.name_scope("loss"), &y, &x).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert_eq!(
        e.message,
        "Graph is finalized and cannot be modified: cannot add op 'loss_1/add' (AddV2). Build every op before \
         Graph::finalize() (an op built inside a training loop is added again at every step)"
    );
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.contains("cannot add the 2 node(s) of an imported GraphDef (the first: 'x')"), "{e}");
    let e = g.add_to_collection("losses", y.clone()).unwrap_err();
    assert!(e.message.contains("cannot add to collection 'losses'"), "{e}");
    assert_eq!(g.num_ops(), n, "nothing added");
    assert_eq!(Session::new(&g).unwrap().fetch(&[], &y).unwrap(), Tensor::scalar(4.0f32));
}

#[test]
fn an_error_after_the_graph_grew_between_runs_suggests_finalize() {
    // a training loop that builds its optimizer at every step: the second one's slots are
    // uninitialized
    let g = Graph::new();
    let s = g.scope();
    let w = s
        .variable_with("w", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(3.0f32)))
        .unwrap();
    let loss = ops::mul(&s, &w, &w).unwrap();
    let sess = Session::new(&g).unwrap();
    let mut errors = Vec::new();
    let mut sizes = Vec::new();
    for step in 0..2 {
        let train = AdamOptimizer::new(0.1).minimize(&loss).unwrap();
        if step == 0 {
            sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
        }
        sizes.push(g.num_ops());
        if let Err(e) = sess.run_targets(&[&train]) {
            errors.push(e);
        }
    }
    assert_eq!(errors.len(), 1);
    let e = &errors[0];
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(
        e.message.ends_with(&format!(
            " (note: the graph grew by {} op(s) since the previous Session::run; if ops are built inside the training \
             loop, build them once before it and call Graph::finalize(), so that adding an op is an error naming it)",
            sizes[1] - sizes[0]
        )),
        "{e}"
    );
    assert!(sizes[1] > sizes[0]);
    // no note when the graph did not grow
    let e2 = sess.run_targets(&[&g.operation_by_name("Adam_1").unwrap()]).unwrap_err();
    assert!(!e2.message.contains("grew"), "{e2}");
}

#[test]
fn a_saver_adds_its_ops_before_finalize() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Graph::new();
    let s = g.scope();
    s.variable_with("w", Default::default(), |vs| ops::constant(&vs.named("Const"), Tensor::scalar(3.0f32))).unwrap();
    let init = s.global_variables_initializer().unwrap();
    let late = Saver::new(&g).unwrap();
    let early = Saver::new(&g).unwrap();
    early.as_saver_def().unwrap();
    g.finalize();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    early.save(&sess, tmp.path().join("a")).unwrap();
    let e = late.save(&sess, tmp.path().join("b")).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.starts_with("the graph was finalized before this saver added its save/ ops"), "{e}");
    late.write_meta_graph(false).save(&sess, tmp.path().join("b")).unwrap();
}
