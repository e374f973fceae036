//! `ops::while_loop` builds TensorFlow's TF1 loops: the node names, op types and inputs of
//! the loops of scripts/gen_while_loop.py equal those TensorFlow 2.21 wrote
//! (tests/data/while_loop/loops.pbtxt), and they run here to TensorFlow's values.

mod while_loop_common;
use std::collections::BTreeMap;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::ops::{self, WhileOptions};
use tensorgraph::{Code, DType, Graph, Shape, Tensor};
use while_loop_common::{assert_tf, build, data_dir, expected, run};

const LOOPS: &[&str] =
    &["sum/", "fib/", "capped/", "uncapped/", "nested/", "cond/", "ta_loop/", "tanh/", "gru/", "nest2/"];

/// (op type, inputs) of every node of a loop, by name, of a GraphDef.
fn loop_nodes(gd: &tensorgraph::format::proto::GraphDef) -> BTreeMap<String, (String, Vec<String>)> {
    gd.node
        .iter()
        .filter(|n| LOOPS.iter().any(|p| n.name.starts_with(p)))
        .map(|n| {
            let inputs = n.input.iter().map(|i| i.strip_suffix(":0").unwrap_or(i).to_string()).collect();
            (n.name.clone(), (n.op.clone(), inputs))
        })
        .collect()
}

#[test]
fn loops_have_tensorflows_node_names_op_types_and_inputs() {
    let text = std::fs::read_to_string(data_dir().join("loops.pbtxt")).unwrap();
    let tf = loop_nodes(&graph_def_from_text(&text).unwrap());
    let (g, _) = build();
    assert!(tf.len() > 300, "{} loop nodes in loops.pbtxt", tf.len());
    let here = loop_nodes(&g.to_graph_def());
    let missing: Vec<_> = tf.keys().filter(|k| !here.contains_key(*k)).collect();
    let extra: Vec<_> = here.keys().filter(|k| !tf.contains_key(*k)).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing here: {missing:?}\nnot in TensorFlow's: {extra:?}");
    for (name, (op, inputs)) in &tf {
        let (hop, hinputs) = &here[name];
        assert_eq!(op, hop, "op type of {name}");
        let (mut a, mut b) = (inputs.clone(), hinputs.clone());
        // control inputs in any order
        a.sort();
        b.sort();
        assert_eq!(a, b, "inputs of {name}");
    }
}

#[test]
fn loops_run_to_tensorflows_values() {
    let e = expected();
    let (g, _) = build();
    let runs = e["runs"].as_object().unwrap();
    for (fetch, want) in runs {
        let Some(name) = fetch.strip_suffix(" (p false)") else {
            let out = run(&g, &[g.tensor_by_name(fetch).unwrap()], None).unwrap_or_else(|e| panic!("{fetch}: {e}"));
            assert_tf(fetch, &out[0], want, 1e-5);
            continue;
        };
        let out = run(&g, &[g.tensor_by_name(name).unwrap()], Some(false)).unwrap();
        assert_tf(fetch, &out[0], want, 1e-5);
    }
    // the counts that tell reached from not reached
    let capped = run(&g, &[g.tensor_by_name("capped/Exit_1:0").unwrap()], None).unwrap();
    assert_eq!(capped[0].as_slice::<i32>().unwrap(), &[5]);
    let uncapped = run(&g, &[g.tensor_by_name("uncapped/Exit_1:0").unwrap()], None).unwrap();
    assert_eq!(uncapped[0].as_slice::<i32>().unwrap(), &[10]);
}

#[test]
fn a_body_changing_a_shape_is_tensorflows_error() {
    let e = expected();
    let g = Graph::new();
    let s = g.scope();
    let v0 = ops::constant(&s.named("v0"), Tensor::new(&[1], vec![1.0f32]).unwrap()).unwrap();
    let err = ops::while_loop(
        &s,
        |s, v| {
            let n = ops::size(s, &v[0])?;
            let five = ops::constant(s, Tensor::scalar(5i32))?;
            ops::less(s, &n, &five)
        },
        |s, v| Ok(vec![ops::concat(s, &[v[0].clone(), v[0].clone()], 0)?]),
        std::slice::from_ref(&v0),
        &WhileOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.message, e["shape_error"].as_str().unwrap());
    // with a shape invariant the loop runs
    let r = ops::while_loop(
        &s,
        |s, v| {
            let n = ops::size(s, &v[0])?;
            let five = ops::constant(s, Tensor::scalar(5i32))?;
            ops::less(s, &n, &five)
        },
        |s, v| Ok(vec![ops::concat(s, &[v[0].clone(), v[0].clone()], 0)?]),
        &[v0],
        &WhileOptions { shape_invariants: Some(vec![Shape::partial(&[None])]), ..Default::default() },
    )
    .unwrap();
    assert_eq!(r[0].shape(), Shape::partial(&[None]));
    let out = tensorgraph::Session::new(&g).unwrap().run(&[], &[&r[0]], &[]).unwrap();
    assert_eq!(out[0].as_slice::<f32>().unwrap(), &[1.0f32; 8]);
}

#[test]
fn bad_loops_are_errors_naming_the_problem() {
    let g = Graph::new();
    let s = g.scope();
    let i0 = ops::constant(&s, Tensor::scalar(0i32)).unwrap();
    let e = ops::while_loop(
        &s,
        |_, v| Ok(v[0].clone()),
        |_, v| Ok(v.to_vec()),
        std::slice::from_ref(&i0),
        &WhileOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("cond must return a bool scalar"), "{e}");
    let e = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &v[0]),
        |_, v| Ok(vec![v[0].clone(), v[0].clone()]),
        std::slice::from_ref(&i0),
        &WhileOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "Number of inputs and outputs of 'body' must match 'loop_vars'. Got 1 for the number of inputs/outputs, and 2 for 'loop_vars'."
    );
    let e =
        ops::while_loop(&s, |s, v| ops::less(s, &v[0], &v[0]), |_, v| Ok(v.to_vec()), &[], &WhileOptions::default())
            .unwrap_err();
    assert!(e.message == "'loop_vars' must be provided.", "{e}");
    let m = ops::constant(&s, Tensor::new(&[2], vec![1i32, 2]).unwrap()).unwrap();
    let e = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &v[0]),
        |_, v| Ok(v.to_vec()),
        &[i0],
        &WhileOptions { maximum_iterations: Some(m), ..Default::default() },
    )
    .unwrap_err();
    assert!(e.message == "'maximum_iterations' must be a scalar. Received shape: (2,)", "{e}");
    let _ = DType::Float;
}
