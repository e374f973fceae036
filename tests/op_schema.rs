//! TensorFlow's op schema (`ops::schema`): the generated OpDef table, NodeDef validation
//! and default attrs on import and in the op builders, and the full `stripped_op_list`
//! written by `export_meta_graph`, checked against TensorFlow 2.21's own meta graphs.

mod common;
use common::fixtures;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::format::proto::{dtype_to_proto, AttrValueKind, GraphDef, MetaGraphDef};
use tensorgraph::graph::AttrValue;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::io::meta_graph::export_meta_graph;
use tensorgraph::ops::schema;
use tensorgraph::{ops, Code, DType, Error, Graph, Session, Shape, Tensor};

/// A 2x2 float Const `a` = [[1, 2], [3, 4]] followed by `extra` nodes.
fn graph_def(extra: &str) -> GraphDef {
    let text = format!(
        r#"node {{ name: "a" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
             attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ dim {{ size: 2 }} dim {{ size: 2 }} }}
                                                    float_val: 1 float_val: 2 float_val: 3 float_val: 4 }} }} }} }}
           {extra}
           versions {{ producer: 2474 }}"#
    );
    graph_def_from_text(&text).unwrap()
}

fn import_err(extra: &str) -> Error {
    let g = Graph::new();
    let e = import_graph_def(&g, &graph_def(extra), &ImportGraphDefOptions::new()).unwrap_err();
    assert_eq!(g.num_ops(), 0, "a failed import leaves the graph unchanged");
    e
}

#[test]
fn every_registered_op_type_has_a_schema_entry() {
    let types = ops::registered_op_types();
    for t in &types {
        let def = schema::op_def(t).unwrap_or_else(|| panic!("no OpDef for {t}"));
        assert_eq!(def.name, *t);
        assert!(def.description.is_empty() && def.summary.is_empty(), "{t}: descriptions are stripped");
    }
    let listed: Vec<&str> = schema::op_list().op.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(listed, types, "the table is exactly the registry, sorted");
    assert!(schema::op_def("NoSuchOp").is_none());
}

#[test]
fn matmul_and_friends_have_tensorflows_signatures() {
    let mm = schema::op_def("MatMul").unwrap();
    let names: Vec<&str> = mm.input_arg.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(mm.output_arg[0].name, "product");
    assert_eq!(mm.output_arg[0].type_attr, "T");
    for name in ["transpose_a", "transpose_b"] {
        let a = mm.attr.iter().find(|a| a.name == name).unwrap();
        assert_eq!(a.r#type, "bool");
        assert_eq!(a.default_value.as_ref().unwrap().value, Some(AttrValueKind::B(false)), "{name}");
    }
    let t = mm.attr.iter().find(|a| a.name == "T").unwrap();
    assert_eq!(t.r#type, "type");
    assert!(t.default_value.is_none());
    let Some(AttrValueKind::List(allowed)) = &t.allowed_values.as_ref().unwrap().value else { panic!() };
    for d in [DType::Float, DType::Double, DType::Int32, DType::Half] {
        assert!(allowed.r#type.contains(&dtype_to_proto(d)), "{d}");
    }
    assert!(!allowed.r#type.contains(&dtype_to_proto(DType::String)));
    // a ref-typed, stateful op and one with an fixed-type input
    let assign = schema::op_def("Assign").unwrap();
    assert!(assign.input_arg[0].is_ref && assign.allows_uninitialized_input);
    let restore = schema::op_def("RestoreV2").unwrap();
    assert!(restore.is_stateful && restore.input_arg[0].r#type == dtype_to_proto(DType::String));
    assert_eq!(restore.output_arg[0].type_list_attr, "dtypes");
}

#[test]
fn an_undeclared_attr_is_kept_on_import_and_the_op_runs_as_in_tensorflow() {
    // TensorFlow 2.21's import_graph_def keeps an attr the OpDef does not declare (a graph
    // from a newer TensorFlow) and runs the node; a declared attr of the wrong kind is refused
    let g = Graph::new();
    let gd = graph_def(
        r#"node { name: "m" op: "MatMul" input: "a" input: "a"
                  attr { key: "T" value { type: DT_FLOAT } } attr { key: "foo" value { i: 1 } } }"#,
    );
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap();
    let m = g.operation_by_name("import/m").unwrap();
    let out = Session::new(&g).unwrap().fetch(&[], &m.output(0).unwrap()).unwrap();
    assert_eq!(out.as_slice::<f32>().unwrap(), [7.0, 10.0, 15.0, 22.0]);
    // exported as it came in
    let back = g.to_graph_def();
    let node = back.node.iter().find(|n| n.name == "import/m").unwrap();
    assert_eq!(node.attr[&"foo".to_string()], tensorgraph::format::proto::AttrValue::new(AttrValueKind::I(1)));
    let e = import_err(
        r#"node { name: "m" op: "MatMul" input: "a" input: "a"
                  attr { key: "T" value { type: DT_FLOAT } } attr { key: "transpose_a" value { i: 1 } } }"#,
    );
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.contains("AttrValue had value with type 'int' when 'bool' expected for attr 'transpose_a'"),
        "{e}"
    );
    assert!(e.message.contains("NodeDef: {{node m}}"), "{e}");
    // attrs starting with `_` are free (`_class`, `_output_shapes`, ...)
    let g = Graph::new();
    let gd = graph_def(
        r#"node { name: "m" op: "MatMul" input: "a" input: "a"
                  attr { key: "T" value { type: DT_FLOAT } } attr { key: "_anything" value { i: 1 } } }"#,
    );
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap();
}

#[test]
fn defaulted_attrs_are_filled_in_run_and_exported() {
    let g = Graph::new();
    // a MatMul without transpose_a / transpose_b (nor grad_a / grad_b)
    let gd = graph_def(
        r#"node { name: "m" op: "MatMul" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } } }"#,
    );
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("").return_elements(&["m:0"])).unwrap();
    let m = r.output(0).unwrap();
    let node = m.op().node();
    for a in ["transpose_a", "transpose_b", "grad_a", "grad_b"] {
        assert_eq!(node.attrs.get(a), Some(&AttrValue::Bool(false)), "{a}");
    }
    // [[1,2],[3,4]] @ [[1,2],[3,4]]
    let out = Session::new(&g).unwrap().run(&[], &[&m], &[]).unwrap();
    assert_eq!(out[0], Tensor::new(&[2, 2], vec![7.0f32, 10.0, 15.0, 22.0]).unwrap());
    // the defaults are written back, as TensorFlow's import then as_graph_def does
    let back = g.to_graph_def();
    let n = back.node_named("m").unwrap();
    for a in ["transpose_a", "transpose_b", "grad_a", "grad_b"] {
        assert_eq!(n.attr.get(a).unwrap().value, Some(AttrValueKind::B(false)), "{a}");
    }
    // a given value is kept
    let g = Graph::new();
    let gd = graph_def(
        r#"node { name: "m" op: "MatMul" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } }
                  attr { key: "transpose_b" value { b: true } } }"#,
    );
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["m:0"])).unwrap();
    let out = Session::new(&g).unwrap().run(&[], &[&r.output(0).unwrap()], &[]).unwrap();
    assert_eq!(out[0], Tensor::new(&[2, 2], vec![5.0f32, 11.0, 11.0, 25.0]).unwrap());
    assert_eq!(
        g.to_graph_def().node_named("import/m").unwrap().attr.get("transpose_a").unwrap().value,
        Some(AttrValueKind::B(false))
    );
}

#[test]
fn a_missing_required_attr_is_refused() {
    let e = import_err(r#"node { name: "m" op: "MatMul" input: "a" input: "a" }"#);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("NodeDef missing attr 'T' from Op<name=MatMul;"), "{e}");
    assert!(e.message.ends_with("; NodeDef: {{node m}}"), "{e}");
    // several are named together
    let e = import_err(r#"node { name: "v" op: "VariableV2" }"#);
    assert!(e.message.contains("NodeDef missing attrs 'shape', 'dtype' from Op<name=VariableV2"), "{e}");
}

#[test]
fn wrong_kinds_and_disallowed_values_are_refused() {
    // an int where a type is declared
    let e = import_err(r#"node { name: "m" op: "MatMul" input: "a" input: "a" attr { key: "T" value { i: 1 } } }"#);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with(
            "AttrValue had value with type 'int' when 'type' expected for attr 'T'; NodeDef: {{node m}}; Op<name=MatMul;"
        ),
        "{e}"
    );
    // a type outside allowed_values
    let e = import_err(
        r#"node { name: "m" op: "MatMul" input: "a" input: "a" attr { key: "T" value { type: DT_STRING } } }"#,
    );
    assert!(
        e.message.starts_with(
            "Value for attr 'T' of string is not in the list of allowed values: bfloat16, half, float, double, int32,"
        ),
        "{e}"
    );
    assert!(e.message.contains("NodeDef: {{node m}}"), "{e}");
    // a string outside allowed_values, and a list shorter than its minimum
    let pool = |padding: &str, ksize: &str| {
        format!(
            r#"node {{ name: "p" op: "MaxPool" input: "a" attr {{ key: "T" value {{ type: DT_FLOAT }} }}
                  attr {{ key: "ksize" value {{ list {{ {ksize} }} }} }}
                  attr {{ key: "strides" value {{ list {{ i: 1 i: 1 i: 1 i: 1 }} }} }}
                  attr {{ key: "padding" value {{ s: "{padding}" }} }} }}"#
        )
    };
    let e = import_err(&pool("FOO", "i: 1 i: 1 i: 1 i: 1"));
    assert!(
        e.message.contains(
            r#"Value for attr 'padding' of "FOO" is not in the list of allowed values: "SAME", "VALID", "EXPLICIT"; NodeDef: {{node p}}"#
        ),
        "{e}"
    );
    let e = import_err(&pool("VALID", "i: 1 i: 1"));
    assert!(e.message.contains("Length for attr 'ksize' of 2 must be at least minimum 4"), "{e}");
    // an int below its minimum
    let e = import_err(
        r#"node { name: "c" op: "ConcatV2" input: "a" input: "a" attr { key: "N" value { i: 1 } }
                  attr { key: "T" value { type: DT_FLOAT } } }"#,
    );
    assert!(e.message.contains("Value for attr 'N' of 1 must be at least minimum 2"), "{e}");
}

#[test]
fn builders_fill_defaults_and_validate() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, Shape::known(&[2, 2])).unwrap();
    let m = ops::matmul(&s, &x, &x).unwrap();
    let node = m.op().node();
    for a in ["transpose_a", "transpose_b", "grad_a", "grad_b"] {
        assert_eq!(node.attrs.get(a), Some(&AttrValue::Bool(false)), "{a}");
    }
    // every node carries every attr of its OpDef
    for op in g.operations() {
        let n = op.node();
        let def = schema::op_def(n.op_type).unwrap();
        for a in &def.attr {
            assert!(n.attrs.contains_key(a.name.as_str()), "{} lacks {}", n.name, a.name);
        }
    }
    // an attr the OpDef lacks, and a wrong kind
    let e = s.op("MatMul", "MatMul").input(&x).input(&x).attr("T", DType::Float).attr("foo", 1i64).build().unwrap_err();
    assert!(e.message.contains("NodeDef mentions attr 'foo' not in Op<name=MatMul"), "{e}");
    let e = s.op("MatMul", "MatMul").input(&x).input(&x).attr("T", 1i64).build().unwrap_err();
    assert!(e.message.contains("AttrValue had value with type 'int' when 'type' expected for attr 'T'"), "{e}");
}

/// The stripped OpDefs TensorFlow 2.21 wrote into its meta graphs are exactly the schema's.
#[test]
fn tensorflows_stripped_op_lists_match_the_schema() {
    let mut seen = 0;
    for f in ["seed004", "resource_vars", "mlp", "weight_def_adam", "dtypes", "scopes"] {
        let path = fixtures().join(f).join("model.ckpt.meta");
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let meta = MetaGraphDef::from_bytes(&bytes).unwrap();
        for tf in &meta.meta_info_def.unwrap().stripped_op_list.unwrap().op {
            if let Some(ours) = schema::op_def(&tf.name) {
                assert_eq!(ours, tf, "{f}: {}", tf.name);
                seen += 1;
            }
        }
    }
    assert!(seen > 10, "only {seen} OpDefs compared");
}

#[test]
fn exported_meta_graph_holds_full_op_defs() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, Shape::known(&[2, 2])).unwrap();
    let c = ops::constant(&s, Tensor::new(&[2, 2], vec![1.0f32, 0.0, 0.0, 1.0]).unwrap()).unwrap();
    let m = ops::matmul(&s, &x, &c).unwrap();
    ops::add(&s, &m, &c).unwrap();
    let meta = export_meta_graph(&g, None).unwrap();
    let list = meta.meta_info_def.as_ref().unwrap().stripped_op_list.as_ref().unwrap();
    let names: Vec<&str> = list.op.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["AddV2", "Const", "MatMul", "Placeholder"]);
    for op in &list.op {
        assert_eq!(op, schema::op_def(&op.name).unwrap());
    }
    let mm = &list.op[2];
    assert_eq!(mm.input_arg.len(), 2);
    let ta = mm.attr.iter().find(|a| a.name == "transpose_a").unwrap();
    assert_eq!(ta.default_value.as_ref().unwrap().value, Some(AttrValueKind::B(false)));
    let ph = &list.op[3];
    let shape = ph.attr.iter().find(|a| a.name == "shape").unwrap();
    assert!(shape.default_value.is_some());
    // it survives the binary round trip and imports back
    let back = MetaGraphDef::from_bytes(&meta.to_bytes()).unwrap();
    assert_eq!(back.meta_info_def.unwrap().stripped_op_list.unwrap(), *list);
    let g2 = Graph::new();
    g2.import_meta_graph_def(&meta, &Default::default(), "test").unwrap();
    assert_eq!(g2.num_ops(), g.num_ops());
}

/// A meta graph from a newer producer whose MatMul has an attr tensorgraph's OpDef lacks:
/// dropped when the producer's stripped OpDef gives it as the default, refused otherwise.
#[test]
fn meta_graph_import_drops_new_attrs_left_at_their_producer_default() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s, DType::Float, Shape::known(&[2, 2])).unwrap();
    ops::matmul(&s.named("m"), &x, &x).unwrap();
    let mut meta = export_meta_graph(&g, None).unwrap();
    let newer = |meta: &mut MetaGraphDef, value: bool| {
        let gd = meta.graph_def.as_mut().unwrap();
        let m = gd.node.iter_mut().find(|n| n.name == "m").unwrap();
        m.attr.insert("new_attr".into(), tensorgraph::format::proto::AttrValue::new(AttrValueKind::B(value)));
    };
    let ops_list = meta.meta_info_def.as_mut().unwrap().stripped_op_list.as_mut().unwrap();
    let mm = ops_list.op.iter_mut().find(|o| o.name == "MatMul").unwrap();
    let mut new_attr = mm.attr.iter().find(|a| a.name == "transpose_a").unwrap().clone();
    new_attr.name = "new_attr".into();
    mm.attr.push(new_attr);
    newer(&mut meta, false);
    let g2 = Graph::new();
    g2.import_meta_graph_def(&meta, &Default::default(), "test").unwrap();
    assert!(!g2.operation_by_name("m").unwrap().node().attrs.contains_key("new_attr"));
    // a value other than the default is kept (as TensorFlow's importer keeps it)
    newer(&mut meta, true);
    let g3 = Graph::new();
    g3.import_meta_graph_def(&meta, &Default::default(), "test").unwrap();
    assert!(g3.operation_by_name("m").unwrap().node().attrs.contains_key("new_attr"));
    // a plain GraphDef import has no producer op list: the attr is kept too
    newer(&mut meta, false);
    let g4 = Graph::new();
    import_graph_def(&g4, meta.graph_def.as_ref().unwrap(), &ImportGraphDefOptions::new()).unwrap();
    assert!(g4.operation_by_name("import/m").unwrap().node().attrs.contains_key("new_attr"));
}

#[test]
fn an_input_count_that_contradicts_its_count_attr_is_refused() {
    // TensorFlow's ValidateNodeDef: AddN with N = 3 but two inputs
    let addn = |n: i64, name: &str| {
        format!(
            r#"node {{ name: "{name}" op: "AddN" input: "a" input: "a"
                 attr {{ key: "T" value {{ type: DT_FLOAT }} }} attr {{ key: "N" value {{ i: {n} }} }} }}"#
        )
    };
    for n in [3, 1, i64::MAX] {
        let e = import_err(&addn(n, "s"));
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains(&format!("NodeDef expected {} input(s)", n as usize)), "{e}");
        assert!(e.message.contains("but 2 were given; NodeDef: {{node s}}"), "{e}");
    }
    let e = import_err(
        r#"node { name: "p" op: "Pack" input: "a" input: "a"
             attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 3 } } }"#,
    );
    assert!(
        e.message.contains("NodeDef expected 3 input(s) from its attrs but 2 were given; NodeDef: {{node p}}"),
        "{e}"
    );
    // the right count imports and runs: a + a
    let g = Graph::new();
    import_graph_def(&g, &graph_def(&addn(2, "s")), &ImportGraphDefOptions::new()).unwrap();
    let s = g.tensor_by_name("import/s:0").unwrap();
    let v = Session::new(&g).unwrap().fetch(&[], &s).unwrap();
    assert_eq!(v.as_slice::<f32>().unwrap(), [2.0, 4.0, 6.0, 8.0]);
}

/// TensorFlow's `DataTypeString` of a dtype (`float`, `half`, `int32`), as its attr
/// errors name them.
fn tf_type_name(d: DType) -> String {
    tensorgraph::format::proto::data_type_name(dtype_to_proto(d)).trim_start_matches("DT_").to_ascii_lowercase()
}

/// Every registered op refuses, when built, a dtype outside its schema's allowed types,
/// for every type attr that has allowed values, with TensorFlow's words
/// (`ValidateNodeDef`'s "Value for attr 'T' of bool is not in the list of allowed
/// values: ..."). The op builders therefore never make a node TensorFlow would refuse.
#[test]
fn every_op_refuses_a_disallowed_dtype_when_built() {
    let mut checked = 0;
    for op_type in ops::registered_op_types() {
        let def = schema::op_def(op_type).unwrap();
        for attr in &def.attr {
            if attr.r#type != "type" && attr.r#type != "list(type)" {
                continue;
            }
            let Some(AttrValueKind::List(allowed)) = attr.allowed_values.as_ref().and_then(|a| a.value.as_ref()) else {
                continue;
            };
            let Some(bad) =
                DType::ALL_WITH_GRAPH_ONLY.into_iter().find(|&d| !allowed.r#type.contains(&dtype_to_proto(d)))
            else {
                continue;
            };
            let value = if attr.r#type == "type" { AttrValue::Type(bad) } else { AttrValue::ListType(vec![bad]) };
            let g = Graph::new();
            let e = g.scope().op(op_type, "n").attr(&attr.name, value).build().unwrap_err();
            assert_eq!(e.code, Code::InvalidArgument, "{op_type}.{}: {e}", attr.name);
            let names: Vec<String> = allowed
                .r#type
                .iter()
                .map(|&t| tensorgraph::format::proto::data_type_name(t).trim_start_matches("DT_").to_ascii_lowercase())
                .collect();
            let want = format!(
                "Value for attr '{}' of {} is not in the list of allowed values: {}; NodeDef: {{{{node n}}}}; {}",
                attr.name,
                tf_type_name(bad),
                names.join(", "),
                schema::summarize_op_def(def)
            );
            assert_eq!(e.message, want, "{op_type}.{}", attr.name);
            assert_eq!(g.num_ops(), 0, "{op_type}: nothing is added");
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} type attrs with allowed values");
    // TensorFlow 2.21's own text for one of them (from tf.import_graph_def), less its "\n\t"
    let g = Graph::new();
    let a = ops::placeholder(&g.scope().named("a"), DType::Bool, Shape::unknown()).unwrap();
    let e = g.scope().op("Reciprocal", "r").input(&a).attr("T", DType::Bool).build().unwrap_err();
    assert_eq!(
        e.message,
        "Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128; NodeDef: {{node r}}; Op<name=Reciprocal; signature=x:T -> y:T; attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_COMPLEX64, DT_COMPLEX128]>"
    );
}
