//! TF1 control flow in the graph: importing loops (cycles closed by a NextIteration →
//! Merge back edge, and no other), exporting them unchanged, `Graph::update_input`, the
//! ops' shape functions and attr checks, and the plan's frame rules.

mod control_flow_common;
use control_flow_common::{data_dir, graph};
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::{ops, Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn import_text(text: &str) -> tensorgraph::Result<Graph> {
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(text).unwrap(), &ImportGraphDefOptions::new().prefix(""))?;
    Ok(g)
}

#[test]
fn an_imported_while_loop_exports_unchanged() {
    let text = std::fs::read_to_string(data_dir().join("loops.pbtxt")).unwrap();
    let original = graph_def_from_text(&text).unwrap();
    let g = graph("loops.pbtxt");
    let exported = g.to_graph_def();
    assert_eq!(exported.node.len(), original.node.len());
    for n in &original.node {
        let e = exported.node.iter().find(|e| e.name == n.name).unwrap_or_else(|| panic!("{} lost", n.name));
        assert_eq!((&e.op, &e.input), (&n.op, &n.input), "{}", n.name);
    }
    // the export imports to the same nodes (attrs compared as values: a Const's tensor
    // may be written in another encoding) and runs again
    let again = Graph::new();
    import_graph_def(&again, &exported, &ImportGraphDefOptions::new().prefix("")).unwrap();
    for op in g.operations() {
        let (a, b) = (op.node(), again.operation_by_name(&op.name()).unwrap().node());
        assert_eq!((a.op_type, &a.attrs, &a.outputs), (b.op_type, &b.attrs, &b.outputs), "{}", a.name);
    }
    let out = Session::new(&again).unwrap().fetch(&[], &again.tensor_by_name("sum/Exit_1:0").unwrap()).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [499500]);
}

#[test]
fn import_connects_back_edges_with_tensorflows_shapes() {
    let g = graph("loops.pbtxt");
    let merge = g.operation_by_name("sum/Merge").unwrap();
    let next = g.operation_by_name("sum/NextIteration").unwrap();
    assert_eq!(merge.node().inputs[1], (next.id(), 0), "the back edge is connected");
    // as TensorFlow's import: a non-constant Enter's shape is unknown, and so are the
    // Merge, Switch and Exit behind it; value_index is a scalar
    for t in ["sum/Enter:0", "sum/Merge:0", "sum/Switch:1", "sum/Exit:0"] {
        assert_eq!(g.tensor_by_name(t).unwrap().shape(), Shape::unknown(), "{t}");
    }
    assert_eq!(g.tensor_by_name("sum/Merge:1").unwrap().shape(), Shape::scalar());
    assert_eq!(g.tensor_by_name("sum/LoopCond:0").unwrap().shape(), Shape::scalar());
    // a constant (loop-invariant) Enter keeps its input's shape
    assert_eq!(g.tensor_by_name("inv/mul/Enter:0").unwrap().shape(), Shape::known(&[3]));
}

/// `a` (Const), `b = Identity(c)`, `c = Identity(b)`: a cycle with no Merge.
const PLAIN_CYCLE: &str = r#"
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "b" op: "AddV2" input: "a" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 2474 }"#;

/// A Merge closing a cycle through an Identity, not a NextIteration.
const MERGE_CYCLE: &str = r#"
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "e" op: "Enter" input: "a" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "frame_name" value { s: "f" } } }
node { name: "m" op: "Merge" input: "e" input: "c" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "N" value { i: 2 } } }
node { name: "c" op: "Identity" input: "m" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 2474 }"#;

#[test]
fn import_refuses_cycles_that_are_not_a_loops_back_edge() {
    for text in [PLAIN_CYCLE, MERGE_CYCLE] {
        let e = import_text(text).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(e.message.starts_with("GraphDef contains a cycle: 2 node(s) are on or after it"), "{e}");
        assert!(e.message.contains("NextIteration -> Merge"), "{e}");
    }
    // with a NextIteration in place of the Identity, the same loop imports
    let looped = MERGE_CYCLE.replace(r#"name: "c" op: "Identity""#, r#"name: "c" op: "NextIteration""#);
    let g = import_text(&looped).unwrap();
    assert_eq!(g.num_ops(), 4);
}

/// `while i < limit: i += 1` built with the op builders (as TensorFlow's `while_loop`
/// does: the Merge first takes the Enter twice, `update_input` connects the back edge).
fn counter_loop(s: &Scope, limit: i32, parallel: i64) -> (Output, tensorgraph::Operation) {
    let zero = ops::constant(s, Tensor::scalar(0i32)).unwrap();
    let enter = ops::enter(s, &zero, "counter_frame", false, parallel).unwrap();
    let (merge, _) = ops::merge(s, &[enter.clone(), enter]).unwrap();
    let lim = ops::constant(&s.with_control_dependencies(&[&merge.op()]), Tensor::scalar(limit)).unwrap();
    let pred = ops::loop_cond(s, &ops::less(s, &merge, &lim).unwrap()).unwrap();
    let (exit_value, body) = ops::switch(s, &merge, &pred).unwrap();
    let body = ops::identity(s, &body).unwrap();
    let one = ops::constant(&s.with_control_dependencies(&[&body.op()]), Tensor::scalar(1i32)).unwrap();
    let next = ops::next_iteration(s, &ops::add(s, &body, &one).unwrap()).unwrap();
    s.graph().update_input(&merge.op(), 1, &next).unwrap();
    (ops::exit(s, &exit_value).unwrap(), merge.op())
}

#[test]
fn a_loop_built_with_update_input_runs() {
    let g = Graph::new();
    let s = g.scope();
    let (exit, merge) = counter_loop(&s, 25, 3);
    assert_eq!(merge.node().inputs[1].0, g.operation_by_name("NextIteration").unwrap().id());
    let out = Session::new(&g).unwrap().fetch(&[], &exit).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [25]);
    assert_eq!(g.to_graph_def().node.iter().find(|n| n.name == "Merge").unwrap().input, ["Enter", "NextIteration"]);
}

#[test]
fn update_input_checks_index_dtype_and_shape() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2]).unwrap();
    let y = ops::identity(&s, &x).unwrap();
    let k = ops::constant(&s, Tensor::scalar(1i32)).unwrap();
    let three = ops::placeholder(&s.named("three"), DType::Float, [3]).unwrap();
    let e = g.update_input(&y.op(), 1, &x).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Input index [1] is greater than the number of total inputs [1]"), "{e}");
    let e = g.update_input(&y.op(), 0, &k).unwrap_err();
    assert!(
        e.message.contains("Input 0 of node Identity was passed int32 from Const:0 incompatible with expected float"),
        "{e}"
    );
    let e = g.update_input(&y.op(), 0, &three).unwrap_err();
    assert!(e.message.contains("Cannot update edge, incompatible shapes: [3] and [2]"), "{e}");
    let other = Graph::new();
    let z = ops::placeholder(&other.scope().named("z"), DType::Float, [2]).unwrap();
    assert!(g.update_input(&y.op(), 0, &z).unwrap_err().message.contains("must both be in this graph"));
    let x2 = ops::placeholder(&s.named("x2"), DType::Float, [2]).unwrap();
    g.update_input(&y.op(), 0, &x2).unwrap();
    let out = Session::new(&g).unwrap().fetch(&[(&x2, Tensor::new(&[2], vec![5.0f32, 6.0]).unwrap())], &y).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [5.0, 6.0]);
}

#[test]
fn parallel_iterations_of_one_still_runs_every_iteration() {
    let g = Graph::new();
    let (exit, _) = counter_loop(&g.scope(), 100, 1);
    assert_eq!(Session::new(&g).unwrap().fetch(&[], &exit).unwrap().to_vec::<i32>().unwrap(), [100]);
}

#[test]
fn shape_functions_are_tensorflows() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2, 3]).unwrap();
    let y = ops::placeholder(&s.named("y"), DType::Float, [2, 4]).unwrap();
    let z = ops::placeholder(&s.named("z"), DType::Float, [Some(2), None, Some(5)]).unwrap();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::scalar()).unwrap();
    let pv = ops::placeholder(&s.named("pv"), DType::Bool, [2]).unwrap();
    assert_eq!(ops::merge(&s, &[x.clone(), y]).unwrap().0.shape(), Shape::partial(&[Some(2), None]));
    assert_eq!(ops::merge(&s, &[x.clone(), z]).unwrap().0.shape(), Shape::unknown());
    assert_eq!(ops::merge(&s, &[x.clone(), x.clone()]).unwrap().0.shape(), Shape::known(&[2, 3]));
    assert_eq!(ops::switch(&s, &x, &p).unwrap().1.shape(), Shape::known(&[2, 3]));
    assert_eq!(ops::enter(&s, &x, "f", true, 10).unwrap().shape(), Shape::known(&[2, 3]));
    assert_eq!(ops::enter(&s, &x, "f", false, 10).unwrap().shape(), Shape::unknown());
    let e = ops::switch(&s, &x, &pv).unwrap_err();
    assert!(
        e.message.contains("Shape must be rank 0 but is rank 1 for 'Switch_1' (Switch) with input shapes: [2, 3], [2]"),
        "{e}"
    );
    let e = ops::loop_cond(&s, &pv).unwrap_err();
    assert!(e.message.contains("Shape must be rank 0 but is rank 1"), "{e}");
    let k = ops::constant(&s, Tensor::scalar(1i32)).unwrap();
    let e = ops::merge(&s, &[x.clone(), k]).unwrap_err();
    assert!(e.message.contains("input 1 has dtype int32, which does not match input 0's dtype float"), "{e}");
    assert_eq!(ops::control_trigger(&s).unwrap().num_outputs(), 0);
}

#[test]
fn a_switch_on_a_runtime_vector_is_tensorflows_error() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, Shape::unknown()).unwrap();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::unknown()).unwrap();
    let (_, t) = ops::switch(&s, &x, &p).unwrap();
    let e = Session::new(&g)
        .unwrap()
        .fetch(&[(&x, Tensor::scalar(1.0f32)), (&p, Tensor::new(&[2], vec![true, false]).unwrap())], &t)
        .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("The second input must be a scalar, but it has shape [2]"), "{e}");
    assert!(e.message.contains("Switch 'Switch'"), "{e}");
}

#[test]
fn control_trigger_runs_when_its_inputs_are_dead() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::scalar(1.0f32)).unwrap();
    let p = ops::constant(&s, Tensor::scalar(false)).unwrap();
    let (_, t) = ops::switch(&s, &x, &p).unwrap();
    let dead = ops::identity(&s, &t).unwrap();
    let trigger = ops::control_trigger(&s.with_control_dependencies(&[&dead.op()])).unwrap();
    let noop = ops::group(&s.with_control_dependencies(&[&dead.op()]), &[]).unwrap();
    let after_trigger = ops::constant(&s.with_control_dependencies(&[&trigger]), Tensor::scalar(7.0f32)).unwrap();
    let after_noop = ops::constant(&s.with_control_dependencies(&[&noop]), Tensor::scalar(8.0f32)).unwrap();
    let sess = Session::new(&g).unwrap();
    assert_eq!(sess.fetch(&[], &after_trigger).unwrap().to_vec::<f32>().unwrap(), [7.0]);
    let e = sess.fetch(&[], &after_noop).unwrap_err();
    assert!(e.message.starts_with("Retval[0] does not have value"), "{e}");
}

#[test]
fn inputs_from_two_frames_are_an_error() {
    // `bad` adds a loop body's value to a tensor outside the loop
    let text = std::fs::read_to_string(data_dir().join("loops.pbtxt")).unwrap();
    let bad = r#"node { name: "bad" op: "AddV2" input: "sum/Identity" input: "sum/Const" attr { key: "T" value { type: DT_INT32 } } }"#;
    let g = import_text(&format!("{bad}\n{text}")).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.fetch(&[], &g.tensor_by_name("bad:0").unwrap()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("Node 'bad' has inputs from different frames. The input "), "{e}");
    assert!(e.message.contains("is in frame 'sum/while_context'") && e.message.contains("is in frame ''"), "{e}");
}

#[test]
fn an_exit_outside_a_loop_and_an_enter_without_frame_are_errors() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::scalar(1.0f32)).unwrap();
    let exit = ops::exit(&s, &x).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.fetch(&[], &exit).unwrap_err();
    assert!(e.message.contains("Exit 'Exit' is not inside a while loop"), "{e}");
    let enter = ops::enter(&s, &x, "", false, 10).unwrap();
    let e = sess.fetch(&[], &ops::identity(&s, &enter).unwrap()).unwrap_err();
    assert!(e.message.contains("The Enter 'Enter' must have a frame name"), "{e}");
    let enter = ops::enter(&s, &x, "f", false, 0).unwrap();
    let e = sess.fetch(&[], &ops::identity(&s, &enter).unwrap()).unwrap_err();
    assert!(e.message.contains("parallel_iterations of Enter 'Enter_1' must be positive, not 0"), "{e}");
}

#[test]
fn a_frame_entered_from_two_frames_is_tensorflows_internal_error() {
    // Enters of frame "f" in the root frame and inside loop frame "outer"
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::scalar(1.0f32)).unwrap();
    let outer = ops::enter(&s, &x, "outer", true, 10).unwrap();
    let a = ops::enter(&s, &x, "f", true, 10).unwrap();
    let b = ops::enter(&s, &outer, "f", true, 10).unwrap();
    let sum = ops::add(&s, &a, &b).unwrap();
    let e = Session::new(&g).unwrap().fetch(&[], &sum).unwrap_err();
    assert!(
        e.code == Code::Internal && e.message.contains("Invalid loop structure: Mismatched parent frames for \"f\"")
            || e.message.contains("has inputs from different frames"),
        "{e}"
    );
}
