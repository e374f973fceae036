//! Ops off the run path: a GraphDef with an op type tensorgraph does not register
//! (`Bucketize`, written by TensorFlow 2.21: tests/data/offpath/unknown_ops.pbtxt, made by
//! scripts/gen_offpath.py) imports with the unknown nodes kept; runs that do not need them
//! give TensorFlow's values, and a run that needs one fails naming every such node.

mod common;
use common::repo_root;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def_text, ImportGraphDefOptions};
use tensorgraph::train::gradients;
use tensorgraph::{Code, DType, Graph, Session, Tensor};

fn unknown_ops_gd() -> GraphDef {
    read_graph_def_text(repo_root().join("tests/data/offpath/unknown_ops.pbtxt")).unwrap()
}

fn imported() -> Graph {
    let g = Graph::new();
    import_graph_def(&g, &unknown_ops_gd(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

fn x_value() -> Tensor {
    Tensor::vector(vec![-1.0f32, 0.5, 3.0])
}

#[test]
fn import_keeps_unknown_ops_and_warns_once() {
    let g = Graph::new();
    let r = import_graph_def(&g, &unknown_ops_gd(), &ImportGraphDefOptions::new()).unwrap();
    let names: Vec<String> = r.unknown_ops.iter().map(|o| o.name()).collect();
    assert_eq!(names, ["import/cond/bucketize", "import/direct"]);
    assert_eq!(
        r.warning().unwrap(),
        "2 node(s) have op types tensorgraph does not implement: Bucketize (2); they were kept, and only a run that needs one of them fails"
    );
    assert_eq!(g.unknown_ops(), r.unknown_ops);
    // outputs: unknown shape; dtype from the reader (Cast's SrcT int32, Identity's T int32)
    let b = g.operation_by_name("import/cond/bucketize").unwrap();
    assert_eq!(b.op_type(), "Bucketize");
    assert_eq!(b.num_outputs(), 1);
    let out = b.output(0).unwrap();
    assert_eq!((out.dtype(), out.shape().rank()), (DType::Int32, None));
    // a graph without unknown ops has no warning
    let g2 = Graph::new();
    let r2 =
        import_graph_def(&g2, &graph_def_from_text("node { name: \"c\" op: \"NoOp\" }").unwrap(), &Default::default())
            .unwrap();
    assert!(r2.unknown_ops.is_empty() && r2.warning().is_none());
}

#[test]
fn runs_that_do_not_need_them_give_tensorflows_values() {
    let g = imported();
    let sess = Session::new(&g).unwrap();
    let x = g.tensor_by_name("x:0").unwrap();
    let p = g.tensor_by_name("p:0").unwrap();
    let y = g.tensor_by_name("y:0").unwrap();
    // the untaken branch holds Bucketize: TensorFlow's [-2, 1, 6]
    let v = sess.fetch(&[(&x, x_value()), (&p, Tensor::scalar(false))], &y).unwrap();
    assert_eq!(v.to_f64_vec().unwrap(), [-2.0, 1.0, 6.0]);
}

#[test]
fn a_run_through_an_unknown_op_fails_naming_it() {
    let g = imported();
    let sess = Session::new(&g).unwrap();
    let x = g.tensor_by_name("x:0").unwrap();
    let p = g.tensor_by_name("p:0").unwrap();
    // no Switch before it: refused when the plan is built
    let z = g.tensor_by_name("z:0").unwrap();
    let e = sess.fetch(&[(&x, x_value())], &z).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert_eq!(
        e.message,
        "the run needs 1 node(s) whose op types tensorgraph does not implement: 'direct' (Bucketize); feed or fetch around them"
    );
    // every such node of the plan is named
    let y = g.tensor_by_name("y:0").unwrap();
    // (the plan has a Switch, so it is built; the run reaches 'direct' live, not the
    // untaken branch's Bucketize)
    let e = sess.run(&[(&x, x_value()), (&p, Tensor::scalar(false))], &[&z, &y], &[]).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert_eq!(
        e.message,
        "node 'direct' (Bucketize) was reached on the run's live path, but tensorgraph does not implement op type Bucketize; the run's plan holds 2 such node(s): 'direct' (Bucketize), 'cond/bucketize' (Bucketize)"
    );
    // on the taken branch: fails when it runs
    let e = sess.fetch(&[(&x, x_value()), (&p, Tensor::scalar(true))], &y).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert_eq!(
        e.message,
        "node 'cond/bucketize' (Bucketize) was reached on the run's live path, but tensorgraph does not implement op type Bucketize; the run's plan holds 1 such node(s): 'cond/bucketize' (Bucketize)"
    );
    // feeding around it works
    let b = g.tensor_by_name("direct:0").unwrap();
    let v = sess.fetch(&[(&b, Tensor::vector(vec![0i32, 1, 1]))], &z).unwrap();
    assert_eq!(v.to_f64_vec().unwrap(), [0.0, 1.0, 1.0]);
}

#[test]
fn export_keeps_unknown_nodes_verbatim() {
    let gd = unknown_ops_gd();
    let g = imported();
    let out = g.to_graph_def();
    for name in ["cond/bucketize", "direct"] {
        let want = gd.node.iter().find(|n| n.name == name).unwrap();
        let got = out.node.iter().find(|n| n.name == name).unwrap();
        assert_eq!(got, want, "{name}");
    }
    // with shapes (a meta graph's form), a node without `_output_shapes` gets unknown ones
    let shapes = g.to_graph_def_with_shapes();
    let d = shapes.node.iter().find(|n| n.name == "direct").unwrap();
    assert!(d.attr.contains_key("_output_shapes"));
    // and the export imports again, the unknown nodes still kept
    let g2 = Graph::new();
    let r = import_graph_def(&g2, &out, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(r.unknown_ops.len(), 2);
}

/// An unknown op whose output is float, between x and y.
const FLOAT_UNKNOWN: &str = r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "u" op: "MyCustomOp" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "f" value { func { name: "g" } } } attr { key: "_fns" value { list { func { name: "g" } } } } }
node { name: "y" op: "Square" input: "u" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "t" op: "MyTrainOp" input: "x:0" input: "u:2" }
"#;

#[test]
fn gradients_through_an_unknown_op_name_it() {
    let g = Graph::new();
    let r =
        import_graph_def(&g, &graph_def_from_text(FLOAT_UNKNOWN).unwrap(), &ImportGraphDefOptions::new().prefix(""))
            .unwrap();
    assert_eq!(r.unknown_ops.len(), 2);
    // outputs: as many as read (u:2 is read), the func attr kept as it is
    let u = g.operation_by_name("u").unwrap();
    assert_eq!(u.num_outputs(), 3);
    assert_eq!(u.output(0).unwrap().dtype(), DType::Float);
    let x = g.tensor_by_name("x:0").unwrap();
    let y = g.tensor_by_name("y:0").unwrap();
    let e = gradients(&[y], &[x], None).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert_eq!(
        e.message,
        "cannot compute the gradient through node 'u' (MyCustomOp): tensorgraph does not implement op type MyCustomOp"
    );
    let exported = g.to_graph_def();
    let want = graph_def_from_text(FLOAT_UNKNOWN).unwrap();
    assert_eq!(exported.node.iter().find(|n| n.name == "u"), want.node.iter().find(|n| n.name == "u"));
}
