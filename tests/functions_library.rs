//! A GraphDef's function library on import and export: kept and written back unchanged
//! with the call nodes as they were read, and the errors for functions that cannot be
//! instantiated (naming the function and what is missing).

use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::{Code, Graph, Session, Tensor};

fn graph_def(file: &str) -> GraphDef {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/functions").join(file);
    graph_def_from_text(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn import(gd: &GraphDef) -> tensorgraph::Result<Graph> {
    let g = Graph::new();
    import_graph_def(&g, gd, &ImportGraphDefOptions::new().prefix(""))?;
    Ok(g)
}

#[test]
fn export_writes_the_library_and_the_calls_as_read() {
    for file in ["tf2_var.pbtxt", "while_v2.pbtxt", "cond_v2.pbtxt", "tf2_frozen.pbtxt", "defun.pbtxt"] {
        let gd = graph_def(file);
        let g = import(&gd).unwrap();
        let out = g.to_graph_def();
        assert_eq!(out.library, gd.library, "{file}: library");
        let names = |gd: &GraphDef| gd.node.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&out), names(&gd), "{file}: the nodes written are the nodes read");
        for (a, b) in out.node.iter().zip(&gd.node) {
            let calls = ["StatefulPartitionedCall", "PartitionedCall", "If", "StatelessIf", "While", "StatelessWhile"];
            if calls.contains(&b.op.as_str()) || ["SymbolicGradient", "Outer", "AffineAndDiff"].contains(&b.op.as_str())
            {
                assert_eq!(a, b, "{file}: call node {}", b.name);
            }
        }
        // and the written graph imports and runs again
        import(&out).unwrap_or_else(|e| panic!("{file} written back: {e}"));
    }
}

#[test]
fn instantiated_nodes_are_in_the_graph_but_not_written() {
    let g = import(&graph_def("tf2_var.pbtxt")).unwrap();
    let inner = g.operation_by_name("StatefulPartitionedCall/input/_0").unwrap();
    assert!(g.is_instantiated(inner.id()));
    assert_eq!(g.operation_by_name("StatefulPartitionedCall").unwrap().node().op_type, "IdentityN");
    assert!(g.to_graph_def().node_named("StatefulPartitionedCall/input/_0").is_none());
}

/// A graph calling function `F` (one float arg `a`, one float output) from node `c` with
/// `inputs`; `F`'s body is `body` (node_defs and ret), `called` the function `c` names.
fn call_graph(inputs: &str, called: &str, body: &str) -> GraphDef {
    graph_def_from_text(&format!(
        r#"
node {{ name: "x" op: "Placeholder" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} }}
node {{ name: "c" op: "PartitionedCall" {inputs}
  attr {{ key: "Tin" value {{ list {{ type: DT_FLOAT }} }} }}
  attr {{ key: "Tout" value {{ list {{ type: DT_FLOAT }} }} }}
  attr {{ key: "f" value {{ func {{ name: "{called}" }} }} }} }}
library {{ function {{
  signature {{ name: "F" input_arg {{ name: "a" type: DT_FLOAT }} output_arg {{ name: "out" type: DT_FLOAT }} }}
  {body} }} }}
"#
    ))
    .unwrap()
}

const NEG: &str = r#"node_def { name: "m" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } } ret { key: "out" value: "m:y:0" }"#;

#[test]
fn a_well_formed_call_runs() {
    let g = import(&call_graph(r#"input: "x""#, "F", NEG)).unwrap();
    let sess = Session::new(&g).unwrap();
    let x = g.tensor_by_name("x:0").unwrap();
    let c = g.tensor_by_name("c:0").unwrap();
    let out = sess.run(&[(&x, Tensor::new(&[2], vec![1f32, -2.]).unwrap())], &[&c], &[]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[-1., 2.]);
}

/// Imports `gd` (a call graph whose call `c` cannot be instantiated): the import keeps `c`
/// and warns naming it, a run that does not need `c` runs, and fetching `c:0` fails with the
/// instantiation's error, which is returned (TensorFlow too runs the graph's other fetches).
fn run_err(gd: &GraphDef) -> tensorgraph::Error {
    let g = Graph::new();
    let r = import_graph_def(&g, gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let warning = r.warning().unwrap();
    assert!(warning.contains("1 function call(s) cannot be instantiated: 'c' ("), "{warning}");
    assert!(warning.ends_with("they were kept, and only a run that needs one of them fails"), "{warning}");
    let sess = Session::new(&g).unwrap();
    let x = g.tensor_by_name("x:0").unwrap();
    let t = || Tensor::new(&[2], vec![1f32, -2.]).unwrap();
    let neg = tensorgraph::ops::neg(&g.scope(), &x).unwrap();
    assert_eq!(sess.run(&[(&x, t())], &[&neg], &[]).unwrap()[0].as_slice::<f32>().unwrap(), &[-1., 2.]);
    let c = g.tensor_by_name("c:0").unwrap();
    let e = sess.run(&[(&x, t())], &[&c], &[]).unwrap_err();
    assert!(e.message.starts_with("the run needs node 'c', a function call kept uninstantiated on import: "), "{e}");
    assert!(e.message.ends_with("; feed or fetch around it"), "{e}");
    assert!(
        warning.contains(
            &e.message["the run needs node 'c', a function call kept uninstantiated on import: ".len()
                ..e.message.len() - "; feed or fetch around it".len()]
        ),
        "{warning}"
    );
    // written back as it was read
    assert_eq!(g.to_graph_def().node_named("c"), gd.node_named("c"));
    // under an import prefix the run names the call as imported, with the same reason
    let g2 = Graph::new();
    import_graph_def(&g2, gd, &ImportGraphDefOptions::new()).unwrap();
    let c2 = g2.tensor_by_name("import/c:0").unwrap();
    let x2 = g2.tensor_by_name("import/x:0").unwrap();
    let e2 = Session::new(&g2).unwrap().run(&[(&x2, t())], &[&c2], &[]).unwrap_err();
    assert_eq!(e2.message, e.message.replacen("the run needs node 'c'", "the run needs node 'import/c'", 1), "{e2}");
    e
}

#[test]
fn an_unknown_op_in_a_body_is_named_with_its_function() {
    let body = r#"node_def { name: "m" op: "Frobnicate" input: "a" } ret { key: "out" value: "m:y:0" }"#;
    let e = run_err(&call_graph(r#"input: "x""#, "F", body));
    assert_eq!(e.code, Code::Unimplemented, "{e}");
    assert!(
        e.message.contains("function 'F' cannot be instantiated: its node 'm' has op type 'Frobnicate', which tensorgraph does not implement"),
        "{e}"
    );
}

#[test]
fn a_missing_function_is_named() {
    let e = run_err(&call_graph(r#"input: "x""#, "G", NEG));
    assert_eq!(e.code, Code::NotFound, "{e}");
    assert!(
        e.message
            .contains("function 'G' (called by node 'c', op PartitionedCall) is not in the graph's function library"),
        "{e}"
    );
}

#[test]
fn an_arg_count_mismatch_is_named() {
    let e = run_err(&call_graph(r#"input: "x" input: "x""#, "F", NEG));
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(
        e.message
            .contains("function 'F' cannot be instantiated: it takes 1 input(s) (args a), but the call gives it 2"),
        "{e}"
    );
}

#[test]
fn a_body_reading_a_missing_node_is_named() {
    let body = r#"node_def { name: "m" op: "Neg" input: "nothere:y:0" attr { key: "T" value { type: DT_FLOAT } } } ret { key: "out" value: "m:y:0" }"#;
    let e = run_err(&call_graph(r#"input: "x""#, "F", body));
    assert!(
        e.message.contains("function 'F' cannot be instantiated: node 'm' reads 'nothere:y:0', which is neither an input arg nor a node of the function"),
        "{e}"
    );
}

#[test]
fn a_recursive_function_is_refused() {
    let body = r#"node_def { name: "m" op: "F" input: "a" } ret { key: "out" value: "m:out:0" }"#;
    let e = run_err(&call_graph(r#"input: "x""#, "F", body));
    assert!(e.message.contains("function 'F' cannot be instantiated: it calls itself"), "{e}");
}

#[test]
fn identity_n_forwards_each_input_and_its_gradient() {
    use tensorgraph::{ops, DType};
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [Some(2)]).unwrap();
    let k = ops::placeholder(&s.named("k"), DType::Int32, [None]).unwrap();
    let outs = ops::identity_n(&s, &[&x, &k]).unwrap();
    assert_eq!(outs[0].name(), "IdentityN:0");
    assert_eq!((outs[0].dtype(), outs[1].dtype()), (DType::Float, DType::Int32));
    let y = ops::mul(&s, &outs[0], &outs[0]).unwrap();
    let dx = tensorgraph::train::gradients(&[y], std::slice::from_ref(&x), None).unwrap()[0].clone().unwrap();
    let sess = Session::new(&g).unwrap();
    let xv = Tensor::new(&[2], vec![3f32, -1.]).unwrap();
    let kv = Tensor::new(&[3], vec![1i32, 2, 3]).unwrap();
    let got = sess.run(&[(&x, xv), (&k, kv)], &[&outs[0], &outs[1], &dx], &[]).unwrap();
    assert_eq!(got[0].as_slice::<f32>().unwrap(), &[3., -1.]);
    assert_eq!(got[1].as_slice::<i32>().unwrap(), &[1, 2, 3]);
    assert_eq!(got[2].as_slice::<f32>().unwrap(), &[6., -2.]);
}
