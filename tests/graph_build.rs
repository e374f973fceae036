//! Build-time checks, control dependencies, pruning and collections.

use tensorgraph::graph::collections::{CollectionValue, TRAIN_OP};
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor};

#[test]
fn shape_mismatch_fails_at_build_time_naming_op_and_shapes() {
    let g = Graph::new();
    let s = g.scope();
    let a = ops::placeholder(&s.named("a"), DType::Float, [Some(2), Some(3)]).unwrap();
    let b = ops::placeholder(&s.named("b"), DType::Float, [4]).unwrap();
    let e = ops::add(&s, &a, &b).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, "op 'add' (AddV2): Dimensions must be equal, but are 3 and 4 for shapes [2, 3] and [4]");
    let e = ops::matmul(&s, &a, &a).unwrap_err();
    assert!(e.message.contains("op 'MatMul' (MatMul)") && e.message.contains("[2, 3]"), "{e}");
    let i = ops::placeholder(&s.named("i"), DType::Int32, [Some(2), Some(3)]).unwrap();
    let e = ops::add(&s, &a, &i).unwrap_err();
    assert!(e.message.contains("dtype int32, which does not match input 0's dtype float32"), "{e}");
    // unknown dimensions broadcast at build time and are checked at run time
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(3)]).unwrap();
    let y = ops::add(&s, &x, &a).unwrap();
    assert_eq!(y.shape().to_string(), "[2, 3]");
    let sess = Session::new(&g).unwrap();
    let e = sess
        .run(
            &[(&x, Tensor::new(&[4, 3], vec![0f32; 12]).unwrap()), (&a, Tensor::new(&[2, 3], vec![0f32; 6]).unwrap())],
            &[&y],
            &[],
        )
        .unwrap_err();
    assert!(e.message.contains("Incompatible shapes: [4, 3] vs. [2, 3]"), "{e}");
    // tensors of another graph are refused
    let other = Graph::new();
    let z = ops::constant(&other.scope(), Tensor::scalar(1f32)).unwrap();
    assert!(ops::add(&s, &x, &z).unwrap_err().message.contains("is from another graph"));
    assert!(sess.run(&[], &[&z], &[]).unwrap_err().message.contains("not an element of this session's graph"));
}

#[test]
fn unfed_placeholders_are_pruned_or_named() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2]).unwrap();
    let unused = ops::placeholder(&s.named("unused"), DType::Float, [2]).unwrap();
    let _ = ops::add(&s, &unused, &unused).unwrap();
    let y = ops::mul(&s, &x, &x).unwrap();
    let sess = Session::new(&g).unwrap();
    let out = sess.fetch(&[(&x, Tensor::new(&[2], vec![2f32, 3.]).unwrap())], &y).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![4., 9.]);
    let e = sess.fetch(&[], &y).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("You must feed a value for placeholder tensor 'x' with dtype float32"), "{e}");
}

#[test]
fn control_dependencies_order_effects() {
    let g = Graph::new();
    let s = g.scope();
    let v = s.variable_from_value("v", Tensor::scalar(1f32)).unwrap();
    let two = ops::constant(&s, Tensor::scalar(2f32)).unwrap();
    let bump = v.assign_add(&s, &two).unwrap();
    // a read made under a control dependency on the update sees the new value
    let after = v.read_value(&s.with_control_dependencies(&[&bump.op()])).unwrap();
    assert_eq!(after.op().node().control_inputs, vec![bump.op().id()]);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[v.initializer()]).unwrap();
    assert_eq!(sess.fetch(&[], &after).unwrap().to_vec::<f32>().unwrap(), vec![3.]);
    assert_eq!(sess.fetch(&[], &after).unwrap().to_vec::<f32>().unwrap(), vec![5.]);
    let sub = v.assign_sub(&s, &two).unwrap();
    assert_eq!(sess.fetch(&[], &sub).unwrap().to_vec::<f32>().unwrap(), vec![3.]);
    let set = v.assign(&s, &two).unwrap();
    assert_eq!(sess.fetch(&[], &set).unwrap().to_vec::<f32>().unwrap(), vec![2.]);
    // assigning a value of another shape is refused at build time
    let wrong = ops::constant(&s, Tensor::new(&[2], vec![1f32, 2.]).unwrap()).unwrap();
    assert!(v.assign(&s, &wrong).unwrap_err().message.contains("Assign requires shapes of both tensors to match"));
}

#[test]
fn collections_hold_what_was_added() {
    let g = Graph::new();
    let s = g.scope();
    let c = ops::constant(&s, Tensor::scalar(1f32)).unwrap();
    g.add_to_collection("losses", &c).unwrap();
    g.add_to_collection("losses", 0.5f32).unwrap();
    assert_eq!(g.get_collection("losses"), vec![CollectionValue::Tensor(c.clone()), CollectionValue::Float(0.5)]);
    assert_eq!(g.tensors_in("losses"), vec![c.clone()]);
    assert!(g.operations_in("losses").is_empty());
    assert!(g.get_collection("nothing").is_empty());
    let t = s.variable_with("nt", tensorgraph::VariableOptions { trainable: false, ..Default::default() }, |vs| {
        ops::constant(&vs.named("initial_value"), Tensor::scalar(0f32))
    });
    let t = t.unwrap();
    assert_eq!(g.global_variables(), vec![t.clone()]);
    assert!(g.trainable_variables().is_empty());
    assert_eq!(g.collection_names(), ["losses", "variables"]);
    assert_eq!(g.get_collection("variables"), vec![CollectionValue::Variable(t.clone())]);
    assert_eq!(g.get_collection("variables")[0].as_variable().map(|v| v.name()), Some("nt:0".to_string()));
}

/// `tf.get_collection` gives handles: an operation added to a collection comes back as
/// one that a session runs, a variable as the variable.
#[test]
fn collections_give_back_runnable_operations_and_tensors() {
    let g = Graph::new();
    let s = g.scope();
    let v = s.variable_from_value("counter", Tensor::scalar(1f32)).unwrap();
    let one = ops::constant(&s, Tensor::scalar(1f32)).unwrap();
    let bump = ops::assign_add(&s, &v.reference(), &one).unwrap();
    g.add_to_collection(TRAIN_OP, bump.op()).unwrap();
    g.add_to_collection("step_value", &v).unwrap();
    g.add_to_collection("sizes", 3i64).unwrap();
    g.add_to_collection("sizes", 4i64).unwrap();
    g.add_to_collection("blob", b"\x08\x01".to_vec()).unwrap();

    let train = g.get_collection(TRAIN_OP)[0].as_operation().cloned().unwrap();
    assert_eq!(train.name(), "AssignAdd");
    assert_eq!(g.operations_in(TRAIN_OP), vec![train.clone()]);
    assert_eq!(g.get_collection("step_value")[0].as_variable(), Some(&v));
    assert_eq!(g.variables_in("step_value"), vec![v.clone()]);
    assert_eq!(g.get_collection("sizes"), vec![CollectionValue::Int(3), CollectionValue::Int(4)]);
    assert_eq!(g.get_collection("blob"), vec![CollectionValue::Bytes(vec![8, 1])]);
    assert_eq!(g.get_collection("sizes")[0].as_operation(), None);

    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[v.initializer()]).unwrap();
    sess.run_targets(&[&train]).unwrap();
    sess.run_targets(&[&train]).unwrap();
    assert_eq!(sess.fetch(&[], &v).unwrap().to_vec::<f32>().unwrap(), vec![3.0]);
}

#[test]
fn a_collection_refuses_another_graphs_ops() {
    let g = Graph::new();
    let other = Graph::new();
    let c = ops::constant(&other.scope().named("c"), Tensor::scalar(1f32)).unwrap();
    let err = g.add_to_collection("losses", &c).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(
        err.message,
        "cannot add tensor 'c:0' to collection 'losses': it belongs to another graph; add it to its own graph's collection"
    );
    let err = g.add_to_collection(TRAIN_OP, c.op()).unwrap_err();
    assert!(err.message.starts_with("cannot add operation 'c' to collection 'train_op'"), "{err}");
    assert!(g.collection_names().is_empty());
}

#[test]
fn bool_int_and_argmax_kernels() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::constant(&s, Tensor::new(&[2, 3], vec![1i64, 5, 2, 7, 0, 7]).unwrap()).unwrap();
    let am = ops::argmax(&s, &x, 1).unwrap();
    let eq = ops::equal(&s, &am, &ops::constant(&s, Tensor::vector(vec![1i64, 0])).unwrap()).unwrap();
    let f = ops::cast(&s, &eq, DType::Float).unwrap();
    let acc = ops::reduce_mean(&s, &f, None, false).unwrap();
    let i = ops::constant(&s, Tensor::vector(vec![3i32, -4])).unwrap();
    let isum = ops::reduce_sum(&s, &ops::mul(&s, &i, &i).unwrap(), None, false).unwrap();
    let sess = Session::new(&g).unwrap();
    let out = sess.run(&[], &[&am, &eq, &acc, &isum], &[]).unwrap();
    assert_eq!(out[0].to_vec::<i64>().unwrap(), vec![1, 0]);
    assert_eq!(out[1].to_vec::<bool>().unwrap(), vec![true, true]);
    assert_eq!(out[2].to_vec::<f32>().unwrap(), vec![1.0]);
    assert_eq!(out[3].to_vec::<i32>().unwrap(), vec![25]);
}

#[test]
fn helper_constants_take_their_op_name_scope() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [2, 3]).unwrap();
    assert_eq!(ops::argmax(&s, &x, 1).unwrap().name(), "ArgMax:0");
    assert_eq!(ops::expand_dims(&s, &x, 0).unwrap().name(), "ExpandDims:0");
    assert_eq!(ops::reshape_to(&s, &x, &[-1]).unwrap().name(), "Reshape:0");
    assert_eq!(ops::reduce_sum(&s, &x, None, false).unwrap().name(), "Sum:0");
    for helper in ["ArgMax/dimension", "ExpandDims/dim", "Reshape/shape", "Sum/reduction_indices"] {
        g.operation_by_name(helper).unwrap_or_else(|e| panic!("{helper}: {e}"));
    }
}

#[test]
fn invalid_names_are_refused_and_empty_names_take_the_default() {
    let g = Graph::new();
    let s = g.scope();
    for bad in ["bad name!", "a:b", "_x"] {
        let e = ops::constant(&s.named(bad), Tensor::scalar(1f32)).unwrap_err();
        assert!(e.message.contains("is not a valid op name"), "{bad}: {e}");
    }
    let e = ops::constant(&s.name_scope("a b").named("c"), Tensor::scalar(1f32)).unwrap_err();
    assert!(e.message.contains("'a b/c' is not a valid op name"), "{e}");
    assert_eq!(ops::constant(&s.named(""), Tensor::scalar(1f32)).unwrap().name(), "Const:0");
}

#[test]
fn huge_allocations_are_resource_exhausted_not_aborts() {
    let g = Graph::new();
    let s = g.scope();
    let dims = ops::constant(&s, Tensor::vector(vec![1i64 << 30, 1 << 30, 1 << 20])).unwrap();
    let one = ops::constant(&s, Tensor::scalar(1f32)).unwrap();
    let f = ops::fill(&s, &dims, &one).unwrap();
    let sess = Session::new(&g).unwrap();
    let e = sess.fetch(&[], &f).unwrap_err();
    assert!(matches!(e.code, Code::ResourceExhausted | Code::InvalidArgument), "{e}");
    let dims = ops::constant(&s, Tensor::vector(vec![1i64 << 22, 1 << 22])).unwrap();
    let f = ops::fill(&s, &dims, &one).unwrap();
    assert_eq!(sess.fetch(&[], &f).unwrap_err().code, Code::ResourceExhausted);
    // and a non-variable cannot be set as one
    let e = sess.set_variable_value(&one.op(), Tensor::scalar(2f32)).unwrap_err();
    assert!(e.message.contains("is a Const op, not a variable"), "{e}");
}

/// A name not in the graph comes with the closest names there (a typo), as `tensor_by_name`
/// and `operation_by_name` say it.
#[test]
fn a_misspelt_name_suggests_the_closest_names() {
    let g = tensorgraph::Graph::new();
    let root = g.scope();
    let x = tensorgraph::ops::placeholder(&root.named("x"), tensorgraph::DType::Float, [None]).unwrap();
    tensorgraph::ops::identity(&root.named("probs"), &x).unwrap();
    tensorgraph::ops::identity(&root.named("logits"), &x).unwrap();
    let e = g.tensor_by_name("prob:0").unwrap_err();
    assert_eq!(e.code, tensorgraph::Code::NotFound);
    assert_eq!(
        e.message,
        "The name 'prob:0' refers to a Tensor which does not exist. The operation, 'prob', does not exist in the graph. Did you mean 'probs:0'?"
    );
    assert_eq!(
        g.operation_by_name("logit").unwrap_err().message,
        "The name 'logit' refers to an Operation not in the graph. Did you mean 'logits'?"
    );
    // nothing close: no suggestion
    assert_eq!(
        g.tensor_by_name("softmax:0").unwrap_err().message,
        "The name 'softmax:0' refers to a Tensor which does not exist. The operation, 'softmax', does not exist in the graph."
    );
}
