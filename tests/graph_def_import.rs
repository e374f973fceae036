//! `import_graph_def` with TensorFlow's semantics on TensorFlow 2.21's frozen graphs:
//! prefixes, input maps, return elements, run in a session to the manifests' values.

mod common;
use common::{fixtures, manifest};
use std::path::PathBuf;
use tensorgraph::format::proto::{GraphDef, MetaGraphDef, NodeDef};
use tensorgraph::graph::AttrValue;
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def, ImportGraphDefOptions, ReturnElement};
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor};

fn frozen(fixture: &str) -> GraphDef {
    read_graph_def(fixtures().join(fixture).join("frozen.pb")).unwrap()
}

fn op_pairs(g: &Graph) -> Vec<(String, String)> {
    g.operations().iter().map(|o| (o.name(), o.op_type())).collect()
}

fn manifest_pairs(v: &serde_json::Value, prefix: &str) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (format!("{prefix}{}", p[0].as_str().unwrap()), p[1].as_str().unwrap().to_string()))
        .collect()
}

fn npy(path: PathBuf) -> (Vec<usize>, Vec<f32>) {
    let t = Tensor::read_npy(&path).unwrap();
    (t.shape().to_vec(), t.to_vec::<f32>().unwrap())
}

#[test]
fn seed_frozen_graph_with_empty_prefix_keeps_names_and_runs() {
    let g = Graph::new();
    let gd = frozen("seed004");
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    assert_eq!(r.prefix, "");
    assert_eq!(op_pairs(&g), manifest_pairs(&manifest("seed004")["frozen_graph"]["ops"], ""));
    assert_eq!(r.operations.len(), 8);
    let add_1 = g.tensor_by_name("add_1:0").unwrap();
    assert_eq!(add_1.dtype(), DType::Float);
    assert_eq!(add_1.shape(), tensorgraph::Shape::known(&[1]));
    let sess = Session::new(&g).unwrap();
    assert_eq!(sess.fetch(&[], &add_1).unwrap().to_vec::<f32>().unwrap(), [6.0]);
    // names are taken: building `add` again gets add_2, importing again clashes
    let a = ops::add(&g.scope(), &add_1, &add_1).unwrap();
    assert_eq!(a.name(), "add_2:0");
    let n = g.num_ops();
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("'v1'") && e.message.contains("already exists"), "{e}");
    assert_eq!(g.num_ops(), n, "a failed import leaves the graph unchanged");
}

#[test]
fn default_prefix_is_import_then_import_1() {
    let g = Graph::new();
    let gd = frozen("seed004");
    let opts = ImportGraphDefOptions::new().return_elements(&["add_1:0", "add"]);
    let r = import_graph_def(&g, &gd, &opts).unwrap();
    assert_eq!(r.prefix, "import");
    assert_eq!(op_pairs(&g), manifest_pairs(&manifest("seed004")["frozen_graph"]["ops"], "import/"));
    let fetch = g.tensor_by_name("import/add_1:0").unwrap();
    assert_eq!(r.output(0).unwrap(), fetch);
    assert!(matches!(&r.return_elements[1], ReturnElement::Operation(op) if op.name() == "import/add"));
    assert_eq!(r.operation(1).unwrap().op_type(), "AddV2");
    assert!(r.output(1).is_err());
    let sess = Session::new(&g).unwrap();
    assert_eq!(sess.fetch(&[], &fetch).unwrap().to_vec::<f32>().unwrap(), [6.0]);
    let r2 = g.import_graph_def(&gd, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(r2.prefix, "import_1");
    assert_eq!(r2.operations[0].name(), "import_1/v1");
    let r3 = g.import_graph_def(&gd, &ImportGraphDefOptions::new().prefix("frozen")).unwrap();
    assert_eq!(r3.operations.last().unwrap().name(), "frozen/add_1");
    // an op built under the used scope name gets a fresh scope
    assert_eq!(g.scope().sub("import").prefix(), "import_2");
    let sess = Session::new(&g).unwrap();
    let t = g.tensor_by_name("import_1/add_1:0").unwrap();
    assert_eq!(sess.fetch(&[], &t).unwrap().to_vec::<f32>().unwrap(), [6.0]);
}

#[test]
fn resource_vars_frozen_graph_runs() {
    let g = Graph::new();
    let gd = frozen("resource_vars");
    let m = manifest("resource_vars");
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    assert_eq!(op_pairs(&g), manifest_pairs(&m["frozen_graph"]["ops"], ""));
    let sess = Session::new(&g).unwrap();
    let v = sess.fetch(&[], &g.tensor_by_name("add_1:0").unwrap()).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), [6.0]);
}

#[test]
fn mlp_frozen_graph_reproduces_tensorflows_probabilities() {
    let g = Graph::new();
    let gd = frozen("mlp");
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["x:0", "probs:0"])).unwrap();
    assert_eq!(op_pairs(&g), manifest_pairs(&manifest("mlp")["frozen_graph"]["ops"], "import/"));
    let (x, probs) = (r.output(0).unwrap(), r.output(1).unwrap());
    assert_eq!(x.name(), "import/x:0");
    assert_eq!(probs.shape().dim(1), Some(3));
    let (shape, inputs) = npy(fixtures().join("mlp/inputs.npy"));
    let (eshape, expected) = npy(fixtures().join("mlp/expected_probs.npy"));
    let sess = Session::new(&g).unwrap();
    let out = sess.fetch(&[(&x, Tensor::new(&shape, inputs).unwrap())], &probs).unwrap();
    assert_eq!(out.shape(), eshape.as_slice());
    for (i, (a, b)) in out.to_vec::<f32>().unwrap().iter().zip(&expected).enumerate() {
        assert!((a - b).abs() <= 1e-6 + 1e-5 * b.abs(), "probs[{i}]: {a} vs TF {b}");
    }
}

/// The CNN needs Conv2D, MaxPool and AvgPool. While the registry lacks any of its op types,
/// the import fails with `Unimplemented` naming the first such node and its type and
/// leaves the graph empty; once all are registered it must reproduce TensorFlow's output.
#[test]
fn cnn_import_fails_on_the_first_unknown_op_or_runs() {
    let g = Graph::new();
    let gd = frozen("cnn_frozen");
    let first_unknown = gd.node.iter().find(|n| ops::lookup(&n.op).is_err());
    let result = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["input:0", "probs:0"]));
    if let Some(n) = first_unknown {
        let e = result.unwrap_err();
        assert_eq!(e.code, Code::Unimplemented);
        assert!(e.message.contains(&format!("'{}'", n.name)) && e.message.contains(&format!("'{}'", n.op)), "{e}");
        assert_eq!(g.num_ops(), 0);
        return;
    }
    let r = result.unwrap();
    let (shape, input) = npy(fixtures().join("cnn_frozen/input.npy"));
    let (eshape, expected) = npy(fixtures().join("cnn_frozen/expected.npy"));
    let sess = Session::new(&g).unwrap();
    let x = r.output(0).unwrap();
    let out = sess.fetch(&[(&x, Tensor::new(&shape, input).unwrap())], &r.output(1).unwrap()).unwrap();
    assert_eq!(out.shape(), eshape.as_slice());
    for (i, (a, b)) in out.to_vec::<f32>().unwrap().iter().zip(&expected).enumerate() {
        assert!((a - b).abs() <= 1e-6 + 1e-5 * b.abs(), "probs[{i}]: {a} vs TF {b}");
    }
}

#[test]
fn an_unregistered_op_type_is_kept_and_a_run_through_it_is_unimplemented_naming_the_node() {
    let mut gd = frozen("cnn_frozen");
    // the first node of an op type no registry will have
    let i = gd.node.iter().position(|n| n.name == "conv1/Conv2D").unwrap();
    gd.node[i].op = "Conv2DNotAnOp".into();
    let last = gd.node.last().unwrap().name.clone();
    let g = Graph::new();
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(r.unknown_ops.iter().map(|o| o.name()).collect::<Vec<_>>(), ["import/conv1/Conv2D"]);
    assert_eq!(g.num_ops(), gd.node.len());
    // its output's dtype is what its reader (BiasAdd, T float) expects
    assert_eq!(g.tensor_by_name("import/conv1/Conv2D:0").unwrap().dtype(), tensorgraph::DType::Float);
    let sess = Session::new(&g).unwrap();
    let e = sess.run(&[], &[&g.tensor_by_name(&format!("import/{last}:0")).unwrap()], &[]).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert_eq!(
        e.message,
        "the run needs 1 node(s) whose op types tensorgraph does not implement: 'import/conv1/Conv2D' (Conv2DNotAnOp); feed or fetch around them"
    );
}

#[test]
fn input_map_replaces_tensors_and_is_checked() {
    let g = Graph::new();
    let ten = ops::constant(&g.scope().named("ten"), Tensor::new(&[1], vec![10.0f32]).unwrap()).unwrap();
    let gd = frozen("seed004");
    let opts = ImportGraphDefOptions::new().input_map("add:0", &ten).return_elements(&["add_1:0", "add:0"]);
    let r = import_graph_def(&g, &gd, &opts).unwrap();
    assert_eq!(r.output(1).unwrap(), ten, "a mapped return tensor is the mapped one");
    let add_1 = g.operation_by_name("import/add_1").unwrap().node();
    assert_eq!(add_1.inputs[0], ten.key());
    let sess = Session::new(&g).unwrap();
    assert_eq!(sess.fetch(&[], &r.output(0).unwrap()).unwrap().to_vec::<f32>().unwrap(), [13.0]);
    // a key the GraphDef lacks
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().input_map("nope:0", &ten)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("nope:0"), "{e}");
    // a tensor of the wrong dtype
    let int = ops::constant(&g.scope(), Tensor::new(&[1], vec![1i32]).unwrap()).unwrap();
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().input_map("v1/read", &int)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(
        e.message.contains("Input 'v1/read:0' of node import_1/add was passed int32 from Const:0 incompatible with expected float32 (input_map['v1/read:0'])"),
        "the message names the input map, not a dtype clash inside the consumer: {e}"
    );
    // a tensor of another graph
    let other = Graph::new();
    let c = ops::constant(&other.scope(), Tensor::new(&[1], vec![1f32]).unwrap()).unwrap();
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().input_map("add", &c)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    // missing return elements
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["zzz:0"])).unwrap_err();
    assert!(e.message.contains("zzz:0"), "{e}");
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["add:3"])).unwrap_err();
    assert!(e.message.contains("add"), "{e}");
}

#[test]
fn nodes_in_any_order_cycles_and_missing_inputs() {
    let mut gd = frozen("seed004");
    gd.node.reverse();
    let g = Graph::new();
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let names: Vec<String> = r.operations.iter().map(|o| o.name()).collect();
    assert!(names.iter().position(|n| n == "add").unwrap() < names.iter().position(|n| n == "add_1").unwrap());
    let sess = Session::new(&g).unwrap();
    assert_eq!(sess.fetch(&[], &g.tensor_by_name("add_1:0").unwrap()).unwrap().to_vec::<f32>().unwrap(), [6.0]);

    let ident = |name: &str, input: &str| NodeDef {
        name: name.into(),
        op: "Identity".into(),
        input: vec![input.into()],
        attr: [("T".to_string(), AttrValue::Type(DType::Float).to_proto())].into_iter().collect(),
        ..Default::default()
    };
    let cyc = GraphDef { node: vec![ident("a", "b"), ident("b", "a")], ..Default::default() };
    let e = import_graph_def(&Graph::new(), &cyc, &ImportGraphDefOptions::new()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("cycle") && e.message.contains("'a'") && e.message.contains("'b'"), "{e}");
    let missing = GraphDef { node: vec![ident("a", "ghost:1")], ..Default::default() };
    let e = import_graph_def(&Graph::new(), &missing, &ImportGraphDefOptions::new()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("'a'") && e.message.contains("ghost:1"), "{e}");
    let dup = GraphDef { node: vec![ident("a", "b"), ident("a", "b")], ..Default::default() };
    let e = import_graph_def(&Graph::new(), &dup, &ImportGraphDefOptions::new()).unwrap_err();
    assert!(e.message.contains("not unique"), "{e}");
    let unknown = GraphDef {
        node: vec![NodeDef { name: "q".into(), op: "Frobnicate".into(), ..Default::default() }],
        ..Default::default()
    };
    // an op type tensorgraph lacks is kept (TensorFlow refuses the GraphDef), with no outputs
    // read: one output of unknown shape
    let r = import_graph_def(&Graph::new(), &unknown, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(r.unknown_ops.len(), 1);
    assert_eq!((r.unknown_ops[0].op_type(), r.unknown_ops[0].num_outputs()), ("Frobnicate".to_string(), 1));
}

#[test]
fn meta_graph_def_imports_with_colocation_rewritten() {
    let meta = MetaGraphDef::from_bytes(&std::fs::read(fixtures().join("seed004/model.ckpt.meta")).unwrap()).unwrap();
    let gd = meta.graph_def.unwrap();
    let g = Graph::new();
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("m")).unwrap();
    assert_eq!(r.operations.len(), gd.node.len());
    let read = g.operation_by_name("m/v1/read").unwrap().node();
    assert_eq!(read.attrs.get("_class").unwrap(), &AttrValue::ListString(vec![b"loc:@m/v1".to_vec()]));
    let restore = g.operation_by_name("m/save/RestoreV2").unwrap().node();
    assert_eq!(restore.device, "/device:CPU:0");
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.operation_by_name("m/init").unwrap()]).unwrap();
    let v = sess.fetch(&[], &g.tensor_by_name("m/add_1:0").unwrap()).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), [6.0]);
}

#[test]
fn export_then_import_round_trips() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(2)]).unwrap();
    let w = ops::constant(&s.named("w"), Tensor::new(&[2, 1], vec![1f32, 2.0]).unwrap()).unwrap();
    let y = ops::matmul(&s, &x, &w).unwrap();
    let gd = GraphDef::from_bytes(&g.to_graph_def().to_bytes()).unwrap();
    let g2 = Graph::new();
    import_graph_def(&g2, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    assert_eq!(g2.to_graph_def(), gd);
    let y2 = g2.tensor_by_name(&y.name()).unwrap();
    assert_eq!(y2.shape(), y.shape());
    let x2 = g2.tensor_by_name("x:0").unwrap();
    let sess = Session::new(&g2).unwrap();
    let out = sess.fetch(&[(&x2, Tensor::new(&[1, 2], vec![3f32, 4.0]).unwrap())], &y2).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [11.0]);
}

#[test]
fn a_failure_late_in_an_import_rolls_back_every_node_and_name() {
    let g = Graph::new();
    let x = ops::placeholder(&g.scope().named("x"), DType::Float, [Some(2)]).unwrap();
    let attr = |pairs: &[(&str, AttrValue)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_proto())).collect();
    let node = |name: &str, op: &str, input: &[&str], attrs: &[(&str, AttrValue)]| NodeDef {
        name: name.into(),
        op: op.into(),
        input: input.iter().map(|s| s.to_string()).collect(),
        attr: attr(attrs),
        ..Default::default()
    };
    let float = ("T", AttrValue::Type(DType::Float));
    let gd = GraphDef {
        node: vec![
            node("Scope/a", "Placeholder", &[], &[("dtype", AttrValue::Type(DType::Float))]),
            node("Scope/inner/b", "Identity", &["Scope/a"], std::slice::from_ref(&float)),
            node("c", "Placeholder", &[], &[("dtype", AttrValue::Type(DType::Int32))]),
            // the last node adds a float to an int32: inference rejects it
            node("Scope/bad", "AddV2", &["Scope/inner/b", "c"], &[float]),
        ],
        ..Default::default()
    };
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Scope/bad") && e.message.contains("AddV2"), "{e}");
    assert_eq!(g.num_ops(), 1);
    assert_eq!(g.operation_by_name("Scope/a").unwrap_err().code, Code::NotFound);
    assert_eq!(g.operation_by_name("x").unwrap().name(), "x");
    // the names the failed import marked are free again (case-insensitively, as TensorFlow)
    let s = g.scope().name_scope("scope");
    assert_eq!(ops::identity(&s, &x).unwrap().name(), "scope/Identity:0");
    assert_eq!(ops::identity(&g.scope().named("c"), &x).unwrap().name(), "c:0");
    // a successful import afterwards gets the names
    let ok = GraphDef { node: gd.node[..3].to_vec(), ..Default::default() };
    import_graph_def(&g, &ok, &ImportGraphDefOptions::new().prefix("")).unwrap_err(); // `c` is taken now
    let r = import_graph_def(&g, &ok, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(
        r.operations.iter().map(|o| o.name()).collect::<Vec<_>>(),
        ["import/Scope/a", "import/Scope/inner/b", "import/c"]
    );
    assert_eq!(g.num_ops(), 6);
}

#[test]
fn names_prefixes_and_colocation_are_checked_as_tensorflow_does() {
    let placeholder = |name: &str| NodeDef {
        name: name.into(),
        op: "Placeholder".into(),
        attr: [("dtype".to_string(), AttrValue::Type(DType::Float).to_proto())].into_iter().collect(),
        ..Default::default()
    };
    let one = |name: &str| GraphDef { node: vec![placeholder(name)], ..Default::default() };
    let g = Graph::new();
    for bad in ["a b", "a:0", "^a", "/a", "_a", "h\u{e9}llo", "a>", "a>/b"] {
        let e = import_graph_def(&g, &one(bad), &ImportGraphDefOptions::new()).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(e.message.contains(&format!("Node '{bad}': Node name contains invalid characters")), "{e}");
    }
    // TensorFlow's rule allows these
    for good in ["a/", "a//b", ".a", "a-b.c_d", "a>b", "9"] {
        import_graph_def(&g, &one(good), &ImportGraphDefOptions::new().prefix("ok")).unwrap();
    }
    let e = import_graph_def(&g, &one("a"), &ImportGraphDefOptions::new().prefix("bad name!")).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("'bad name!' is not a valid scope name"), "{e}");

    // colocation with a node the GraphDef lacks
    let mut coloc = placeholder("a");
    coloc.attr.insert("_class".to_string(), AttrValue::ListString(vec![b"loc:@missing".to_vec()]).to_proto());
    let gd = GraphDef { node: vec![coloc], ..Default::default() };
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Node 'a' expects to be colocated with unknown node 'missing'"), "{e}");

    // a failed import gives its prefix back (TensorFlow would keep it: a retry landed in import_1)
    let g = Graph::new();
    let unknown_input = GraphDef {
        node: vec![NodeDef { name: "q".into(), op: "NoOp".into(), input: vec!["^ghost".into()], ..Default::default() }],
        ..Default::default()
    };
    assert_eq!(
        import_graph_def(&g, &unknown_input, &ImportGraphDefOptions::new()).unwrap_err().code,
        Code::InvalidArgument
    );
    let bad_attr = GraphDef {
        node: vec![NodeDef { name: "c".into(), op: "Const".into(), ..Default::default() }],
        ..Default::default()
    };
    assert_eq!(import_graph_def(&g, &bad_attr, &ImportGraphDefOptions::new()).unwrap_err().code, Code::InvalidArgument);
    assert_eq!(import_graph_def(&g, &one("a"), &ImportGraphDefOptions::new()).unwrap().prefix, "import");
    g.tensor_by_name("import/a:0").unwrap();
    assert_eq!(
        import_graph_def(&g, &unknown_input, &ImportGraphDefOptions::new()).unwrap_err().code,
        Code::InvalidArgument
    );
    assert_eq!(import_graph_def(&g, &one("a"), &ImportGraphDefOptions::new()).unwrap().prefix, "import_1");
}

/// A name looked up without the prefix an import added says which names exist under it.
#[test]
fn a_lookup_missing_the_import_prefix_names_the_prefixed_tensor() {
    let g = Graph::new();
    import_graph_def(&g, &frozen("cnn_frozen"), &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(g.tensor_by_name("import/probs:0").unwrap().name(), "import/probs:0");
    let e = g.tensor_by_name("probs:0").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        "The name 'probs:0' refers to a Tensor which does not exist. The operation, 'probs', does not exist in the graph. Did you mean 'import/probs:0'? (import_graph_def puts a GraphDef's names under the prefix 'import/' unless ImportGraphDefOptions gives another)"
    );
    let e = g.operation_by_name("pool1").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.ends_with("not in the graph. Did you mean 'import/pool1'? (import_graph_def puts a GraphDef's names under the prefix 'import/' unless ImportGraphDefOptions gives another)"), "{e}");
    // several candidates are listed; none, no hint
    let e = g.tensor_by_name("Relu:0").unwrap_err();
    assert!(
        e.message
            .contains("does not exist in the graph. Did you mean one of 'import/conv1/Relu:0', 'import/conv2/Relu:0'?"),
        "{e}"
    );
    let e = g.tensor_by_name("nothing:0").unwrap_err();
    assert!(e.message.ends_with("The operation, 'nothing', does not exist in the graph."), "{e}");
}
