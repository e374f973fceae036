//! GraphDefs and a V1 checkpoint written by TensorFlow 2.21 with TF 1.x's legacy op types
//! (`tests/data/legacy`, made by `scripts/legacy_fixtures.py`, which also prints the values
//! held here as literals), imported and run; OpDef deprecation on import; Assert and Print.

mod common;
use common::{assert_close, repo_root};
use prost::Message;
use std::path::PathBuf;
use tensorgraph::format::checkpoint::{write_tensor_slices, SliceToSave, TensorSliceReader};
use tensorgraph::format::proto::text::TextFormat;
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{import_graph_def, read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor};

fn data(name: &str) -> PathBuf {
    repo_root().join("tests/data/legacy").join(name)
}

fn import(name: &str) -> Graph {
    let g = Graph::new();
    import_graph_def(&g, &read_graph_def_any(data(name)).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

fn fetch(g: &Graph, sess: &Session, name: &str) -> Tensor {
    sess.fetch(&[], &g.tensor_by_name(name).unwrap()).unwrap()
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec().unwrap()
}

#[test]
fn legacy_ops_graph_runs_to_tensorflows_values() {
    let g = import("legacy_ops.pbtxt");
    let sess = Session::new(&g).unwrap();
    let f = |n: &str| fetch(&g, &sess, n);
    let cases: &[(&str, &[usize], &[f64])] = &[
        ("add_v1:0", &[2, 2], &[-1.0, 2.5, 1.0, 4.5]),
        ("div_v1:0", &[2, 2], &[-0.5, 4.0, -1.5, 8.0]),
        ("div_int:0", &[6], &[-3.0, -3.0, 3.0, 3.0, -2.0, 0.0]),
        ("div_int64:0", &[2], &[-3.0, -3.0]),
        ("inv:0", &[2, 2], &[1.0, 0.5, 0.3333333432674408, 0.25]),
        ("inv_grad:0", &[2, 2], &[-1.0, -0.5, -0.3333333730697632, -0.25]),
        ("rank:0", &[], &[3.0]),
        ("select:0", &[2, 2], &[1.0, 2.0, 30.0, 40.0]),
        ("select_scalar:0", &[2, 2], &[-1.0, -2.0, -3.0, -4.0]),
        ("select_same:0", &[2, 2], &[1.0, -2.0, -3.0, 4.0]),
        ("bmm:0", &[2, 2, 2], &[10.0, 13.0, 28.0, 40.0, 172.0, 193.0, 244.0, 274.0]),
        ("bmm_adj:0", &[2, 2, 2], &[5.0, 14.0, 14.0, 50.0, 149.0, 212.0, 212.0, 302.0]),
        ("bmm_int:0", &[2, 2, 2], &[10.0, 13.0, 28.0, 40.0, 172.0, 193.0, 244.0, 274.0]),
        ("concat_v1:0", &[2, 4], &[1.0, 2.0, -2.0, 0.5, 3.0, 4.0, -2.0, 0.5]),
        ("split:0", &[2, 2], &[0.0, 1.0, 6.0, 7.0]),
        ("split:1", &[2, 2], &[2.0, 3.0, 8.0, 9.0]),
        ("split:2", &[2, 2], &[4.0, 5.0, 10.0, 11.0]),
        ("splitv:0", &[2, 1], &[0.0, 6.0]),
        ("splitv:1", &[2, 3], &[1.0, 2.0, 3.0, 7.0, 8.0, 9.0]),
        ("splitv:2", &[2, 2], &[4.0, 5.0, 10.0, 11.0]),
        ("stitch:0", &[6, 2], &[1.0, 2.0, 5.0, 6.0, 9.0, 10.0, 0.0, 0.0, 0.0, 0.0, 7.0, 8.0]),
        ("expand_vec64:0", &[2, 2, 1], &[1.0, 2.0, 3.0, 4.0]),
        ("squeeze_neg:0", &[1, 2], &[0.0, 0.0]),
        ("gather_v1:0", &[2, 1, 6], &[6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
    ];
    for (name, shape, values) in cases {
        let t = f(name);
        assert_eq!(t.shape(), *shape, "{name}");
        assert_eq!(f64s(&t), *values, "{name}");
        // the shapes inferred at import agree with the values TensorFlow computed
        assert!(g.tensor_by_name(name).unwrap().shape().is_compatible_with(shape), "{name}");
    }
    let want: Vec<Vec<u8>> = ["ax", "ayz", "aw", "bx", "byz", "bw"].iter().map(|s| s.as_bytes().to_vec()).collect();
    assert_eq!(f("add_str:0"), Tensor::strings(&[2, 3], want).unwrap());
    assert_eq!(f("div_int:0").dtype(), DType::Int32);
    assert_eq!(f("filespec:0"), Tensor::strings(&[], vec![b"model.ckpt-?????-of-00002".to_vec()]).unwrap());
}

#[test]
fn tf1_training_graph_with_variable_rank_and_dynamic_stitch_trains_like_tensorflow() {
    let g = import("legacy_train.pbtxt");
    let types: std::collections::BTreeSet<String> = g.operations().iter().map(|o| o.op_type()).collect();
    for t in ["Variable", "IsVariableInitialized", "Rank", "DynamicStitch"] {
        assert!(types.contains(t), "the graph holds {t}");
    }
    let sess = Session::new(&g).unwrap();
    let is_init = g.tensor_by_name("is_init:0").unwrap();
    assert_eq!(sess.fetch(&[], &is_init).unwrap(), Tensor::scalar(false));
    sess.run_targets(&[&g.operation_by_name("init").unwrap()]).unwrap();
    assert_eq!(sess.fetch(&[], &is_init).unwrap(), Tensor::scalar(true));
    let x = g.tensor_by_name("x:0").unwrap();
    let y = g.tensor_by_name("y:0").unwrap();
    let xs = Tensor::new(&[2, 3], vec![1f32, 2., 3., -1., 0.5, 2.]).unwrap();
    let ys = Tensor::new(&[2, 3], vec![1f32, 1., 1., 0., 2., -1.]).unwrap();
    let train = g.operation_by_name("train").unwrap();
    for _ in 0..5 {
        sess.run(&[(&x, xs.clone()), (&y, ys.clone())], &[], &[&train]).unwrap();
    }
    let w = sess.fetch(&[], &g.tensor_by_name("w:0").unwrap()).unwrap();
    // TensorFlow 2.21 after the same 5 steps
    assert_close("w", &f64s(&w), &[0.5, -0.08886474370956421, 0.18928906321525574]);
    let loss = sess.fetch(&[(&x, xs), (&y, ys)], &g.tensor_by_name("loss:0").unwrap()).unwrap();
    assert_close("loss", &f64s(&loss), &[1.358994483947754]);
}

#[test]
fn assert_fails_with_tensorflows_message_and_print_passes_through() {
    let g = import("legacy_logging.pbtxt");
    let sess = Session::new(&g).unwrap();
    let x = g.tensor_by_name("x:0").unwrap();
    let check = g.operation_by_name("check").unwrap();
    sess.run_targets(&[&check]).unwrap();
    let e = sess.run(&[(&x, Tensor::vector(vec![1f32, -2., 3.]))], &[], &[&check]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    // TensorFlow 2.21: "assertion failed: [x must be positive:] [1 -2...]"
    assert!(e.message.ends_with("assertion failed: [x must be positive:] [1 -2...]"), "{e}");
    let p = sess.fetch(&[], &g.tensor_by_name("print:0").unwrap()).unwrap();
    assert_eq!(p.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
}

#[test]
fn summarize_value_matches_tensorflow() {
    // raw.Assert(condition=False, data=[...], summarize=N): the text between the brackets
    let t = Tensor::new(&[2, 3, 4], (0..24i64).collect()).unwrap();
    assert_eq!(t.summarize_value(5), "[[0 1 2 3][4...]]...");
    assert_eq!(t.summarize_value(-1), "[[0 1 2 3][4 5 6 7][8 9 10 11]][[12 13 14 15][16 17 18 19][20 21 22 23]]");
    assert_eq!(t.summarize_value(0), "...");
    let m = Tensor::new(&[2, 2], vec![1.5f32, 2., 3., 4.]).unwrap();
    assert_eq!(m.summarize_value(3), "[1.5 2][3...]...");
    let f = Tensor::vector(vec![1.234_567_8f32, 0.1, 1e-5, 1_234_567.0, 1e20, -0.0, f32::NAN]);
    assert_eq!(f.summarize_value(100), "1.23456776 0.1 1e-05 1234567 1e+20 -0 nan");
    let d = Tensor::vector(vec![1.234_567_8f64, 0.1, 1e20]);
    assert_eq!(d.summarize_value(100), "1.2345678 0.1 1e+20");
    assert_eq!(Tensor::vector(vec![true, false]).summarize_value(3), "1 0");
    let s = Tensor::strings(&[2], vec![b"a\nb".to_vec(), b"q\"t".to_vec()]).unwrap();
    assert_eq!(s.summarize_value(3), "a\\nb q\\\"t");
    assert_eq!(Tensor::scalar(7i8).summarize_value(3), "7");
    assert_eq!(Tensor::zeros(DType::Float, &[2, 0, 3]).summarize_value(3), "");
}

#[test]
fn assert_builder_and_scalar_condition() {
    let g = Graph::new();
    let s = g.scope();
    let data = ops::constant(&s, Tensor::new(&[2, 2], vec![1.5f32, 2., 3., 4.]).unwrap()).unwrap();
    let msg = ops::constant(&s, Tensor::strings(&[], vec![b"msg".to_vec()]).unwrap()).unwrap();
    let no = ops::constant(&s, Tensor::scalar(false)).unwrap();
    let a = ops::assert_op(&s, &no, &[msg, data.clone()], 3).unwrap();
    let sess = Session::new(&g).unwrap();
    // raw.Assert(condition=False, data=["msg", [[1.5,2],[3,4]]], summarize=3)
    let e = sess.run_targets(&[&a]).unwrap_err();
    assert!(e.message.ends_with(": assertion failed: [msg] [[1.5 2][3...]...]"), "{e}");
    let vec_cond = ops::constant(&s, Tensor::vector(vec![false])).unwrap();
    let b = ops::assert_op(&s, &vec_cond, &[data], 3).unwrap();
    let e = sess.run_targets(&[&b]).unwrap_err();
    assert!(e.message.ends_with(": In[0] should be a scalar: [1]"), "{e}");
}

#[test]
fn print_writes_tensorflows_line_to_stderr() {
    // the child process runs the graph; the parent reads what it wrote to stderr
    if std::env::var_os("TENSORGRAPH_PRINT_CHILD").is_some() {
        let g = Graph::new();
        let s = g.scope();
        let x = ops::constant(&s, Tensor::vector(vec![1f32, 2., 3.])).unwrap();
        let st = ops::constant(&s, Tensor::strings(&[], vec![b"s".to_vec()]).unwrap()).unwrap();
        let p = ops::print_op(&s, &x, &[x.clone(), st], "msg: ", 2, 2).unwrap();
        let sess = Session::new(&g).unwrap();
        for _ in 0..3 {
            assert_eq!(sess.fetch(&[], &p).unwrap().to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
        }
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "print_writes_tensorflows_line_to_stderr", "--nocapture", "--test-threads=1"])
        .env("TENSORGRAPH_PRINT_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // raw.Print(input=x, data=[x, "s"], message="msg: ", summarize=2) prints "msg: [1 2...][s]";
    // first_n = 2: two of the three runs print
    assert_eq!(err.lines().filter(|l| *l == "msg: [1 2...][s]").count(), 2, "{err}");
}

#[test]
fn parse_example_graph_parses_tensorflows_examples() {
    let g = import("legacy_parse.pbtxt");
    let sess = Session::new(&g).unwrap();
    let hex = [
        "0a320a0c0a0361676512051a030a01190a0f0a046e616d6512070a050a03616e6e0a110a0177120c120a0a080000c03f00002040",
        "0a210a0c0a0361676512051a030a01280a110a0177120c120a0a080000003f000080bf",
    ];
    let bytes: Vec<Vec<u8>> = hex
        .iter()
        .map(|h| (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect())
        .collect();
    let serialized = g.tensor_by_name("serialized:0").unwrap();
    let feed = Tensor::strings(&[2], bytes).unwrap();
    let get = |n: &str| sess.fetch(&[(&serialized, feed.clone())], &g.tensor_by_name(n).unwrap()).unwrap();
    // tf.io.parse_example: ParseExampleV2, dense outputs age, name, w (sorted by key)
    assert_eq!(get("ParseExample/ParseExampleV2:3"), Tensor::new(&[2, 1], vec![25i64, 40]).unwrap());
    assert_eq!(
        get("ParseExample/ParseExampleV2:4"),
        Tensor::strings(&[2], vec![b"ann".to_vec(), b"?".to_vec()]).unwrap()
    );
    assert_eq!(get("ParseExample/ParseExampleV2:5"), Tensor::new(&[2, 2], vec![1.5f32, 2.5, 0.5, -1.0]).unwrap());
    // the VarLenFeature "tags": no example has it
    assert_eq!(get("ParseExample/ParseExampleV2:0").shape(), [0, 2]);
    assert_eq!(get("ParseExample/ParseExampleV2:2").to_vec::<i64>().unwrap(), [2, 0]);
    // raw ParseExample (v1): sparse w, dense age and name
    assert_eq!(get("parse_v1:0"), Tensor::new(&[4, 2], vec![0i64, 0, 0, 1, 1, 0, 1, 1]).unwrap());
    assert_eq!(get("parse_v1:1").to_vec::<f32>().unwrap(), [1.5, 2.5, 0.5, -1.0]);
    assert_eq!(get("parse_v1:2").to_vec::<i64>().unwrap(), [2, 2]);
    assert_eq!(get("parse_v1:3"), Tensor::new(&[2, 1], vec![25i64, 40]).unwrap());
    assert_eq!(get("parse_v1:4"), Tensor::strings(&[2], vec![b"ann".to_vec(), b"none".to_vec()]).unwrap());
}

/// Serialized `tf.train.Example`s built here: age (int64), w (float), name (bytes).
fn example(age: Option<i64>, w: &[f32], name: Option<&str>) -> Vec<u8> {
    use tensorgraph::format::proto::{BytesList, Example, Feature, FeatureKind, Features, FloatList, Int64List};
    let mut f = std::collections::BTreeMap::new();
    if let Some(a) = age {
        f.insert("age".to_string(), Feature { kind: Some(FeatureKind::Int64List(Int64List { value: vec![a] })) });
    }
    f.insert("w".to_string(), Feature { kind: Some(FeatureKind::FloatList(FloatList { value: w.to_vec() })) });
    if let Some(n) = name {
        f.insert(
            "name".to_string(),
            Feature { kind: Some(FeatureKind::BytesList(BytesList { value: vec![n.as_bytes().to_vec()] })) },
        );
    }
    Example { features: Some(Features { feature: f }) }.encode_to_vec()
}

#[test]
fn parse_example_builder_and_tensorflows_errors() {
    use tensorgraph::ops::FixedLenFeature;
    let g = Graph::new();
    let s = g.scope();
    let ser = ops::placeholder(&s, DType::String, [None]).unwrap();
    let feats = [
        FixedLenFeature { key: "w".into(), dtype: DType::Float, shape: vec![2], default: None },
        FixedLenFeature {
            key: "age".into(),
            dtype: DType::Int64,
            shape: vec![1],
            default: Some(Tensor::vector(vec![-1i64])),
        },
    ];
    let out = ops::parse_example(&s, &ser, &feats).unwrap();
    assert_eq!(out[0].name(), "ParseExample/ParseExampleV2:1");
    assert_eq!(out[1].name(), "ParseExample/ParseExampleV2:0");
    assert_eq!(out[0].shape(), tensorgraph::Shape::partial(&[None, Some(2)]));
    let sess = Session::new(&g).unwrap();
    let batch = |v: Vec<Vec<u8>>| Tensor::strings(&[v.len()], v).unwrap();
    let ok = batch(vec![example(Some(25), &[1.5, 2.5], None), example(None, &[0.5, -1.0], Some("b"))]);
    let r = sess.run(&[(&ser, ok)], &[&out[0], &out[1]], &[]).unwrap();
    assert_eq!(r[0], Tensor::new(&[2, 2], vec![1.5f32, 2.5, 0.5, -1.0]).unwrap());
    assert_eq!(r[1], Tensor::new(&[2, 1], vec![25i64, -1]).unwrap());
    let err = |v: Vec<Vec<u8>>| sess.fetch(&[(&ser, batch(v))], &out[0]).unwrap_err();
    // TensorFlow 2.21's messages (raw.ParseExample / parse_example on the same records)
    let e = err(vec![example(Some(1), &[1.0, 2.0, 3.0], None)]);
    assert!(e.message.ends_with("Name: <unknown>, Key: w, Index: 0.  Number of float values != expected.  Values size: 3 but output shape: [2]"), "{e}");
    let e = err(vec![example(Some(1), &[1.0, 2.0], None), example(Some(1), &[], None)]);
    assert!(e.message.ends_with("Name: <unknown>, Key: w, Index: 1.  Number of float values != expected.  Values size: 0 but output shape: [2]"), "{e}");
    let e = err(vec![b"\n\x05garb".to_vec()]);
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Could not parse example input, value: '"), "{e}");
    // a required feature missing, and a type mismatch, through the v1 op
    let name_key = ops::constant(&s, Tensor::strings(&[], vec![b"name".to_vec()]).unwrap()).unwrap();
    let w_key = ops::constant(&s, Tensor::strings(&[], vec![b"w".to_vec()]).unwrap()).unwrap();
    let names = ops::constant(&s, Tensor::strings(&[0], vec![]).unwrap()).unwrap();
    let no_default = ops::constant(&s, Tensor::strings(&[0], vec![]).unwrap()).unwrap();
    let int_default = ops::constant(&s, Tensor::new(&[0], Vec::<i64>::new()).unwrap()).unwrap();
    let v1 = s
        .op("ParseExample", "ParseExample")
        .input(&ser)
        .input(&names)
        .inputs(&[name_key, w_key])
        .inputs(&[no_default, int_default])
        .attr("Nsparse", 0i64)
        .attr("Ndense", 2i64)
        .attr("sparse_types", tensorgraph::graph::AttrValue::ListType(vec![]))
        .attr("Tdense", tensorgraph::graph::AttrValue::ListType(vec![DType::String, DType::Int64]))
        .attr(
            "dense_shapes",
            tensorgraph::graph::AttrValue::ListShape(vec![
                tensorgraph::Shape::scalar(),
                tensorgraph::Shape::known(&[2]),
            ]),
        )
        .build()
        .unwrap();
    let e =
        sess.fetch(&[(&ser, batch(vec![example(Some(1), &[1.0, 2.0], None)]))], &v1.output(0).unwrap()).unwrap_err();
    assert!(
        e.message.ends_with("Name: <unknown>, Feature: name (data type: string) is required but could not be found."),
        "{e}"
    );
    let e = sess
        .fetch(&[(&ser, batch(vec![example(Some(1), &[1.0, 2.0], Some("n"))]))], &v1.output(1).unwrap())
        .unwrap_err();
    assert!(
        e.message.ends_with(
            "Name: <unknown>, Key: w, Index: 0.  Data types don't match. Data type: float but expected type: int64"
        ),
        "{e}"
    );
}

#[test]
fn parse_example_v2_of_one_example_and_unsupported_features() {
    use tensorgraph::graph::AttrValue;
    let g = Graph::new();
    let s = g.scope();
    let strs = |v: &[&str]| {
        ops::constant(&s, Tensor::strings(&[v.len()], v.iter().map(|x| x.as_bytes().to_vec()).collect()).unwrap())
            .unwrap()
    };
    let one = ops::constant(&s, Tensor::strings(&[], vec![example(Some(7), &[1.0, 2.0], None)]).unwrap()).unwrap();
    let build = |dense_shape: tensorgraph::Shape, ragged: bool| {
        let default = ops::constant(&s, Tensor::new(&[0], Vec::<i64>::new()).unwrap()).unwrap();
        s.op("ParseExampleV2", "ParseExampleV2")
            .input(&one)
            .input(&strs(&[]))
            .input(&strs(&["w"]))
            .input(&strs(&["age"]))
            .input(&strs(if ragged { &["name"] } else { &[] }))
            .input(&default)
            .attr("Tdense", AttrValue::ListType(vec![DType::Int64]))
            .attr("num_sparse", 1i64)
            .attr("sparse_types", AttrValue::ListType(vec![DType::Float]))
            .attr("ragged_value_types", AttrValue::ListType(if ragged { vec![DType::String] } else { vec![] }))
            .attr("ragged_split_types", AttrValue::ListType(if ragged { vec![DType::Int64] } else { vec![] }))
            .attr("dense_shapes", AttrValue::ListShape(vec![dense_shape]))
            .build()
            .unwrap()
    };
    let op = build(tensorgraph::Shape::known(&[1]), false);
    let sess = Session::new(&g).unwrap();
    let out: Vec<Tensor> = (0..4).map(|i| sess.fetch(&[], &op.output(i).unwrap()).unwrap()).collect();
    // raw.ParseExampleV2 of a scalar: sparse indices [N, 1], shape [longest]; dense [1]
    assert_eq!(out[0], Tensor::new(&[2, 1], vec![0i64, 1]).unwrap());
    assert_eq!(out[1].to_vec::<f32>().unwrap(), [1.0, 2.0]);
    assert_eq!(out[2].to_vec::<i64>().unwrap(), [2]);
    assert_eq!(out[3], Tensor::vector(vec![7i64]));
    // graphs with a variable-length dense feature or ragged features import; running them
    // is Unimplemented naming the node
    let seq = build(tensorgraph::Shape::partial(&[None]), false);
    let e = sess.fetch(&[], &seq.output(3).unwrap()).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("variable-length dense features"), "{e}");
    let rag = build(tensorgraph::Shape::known(&[1]), true);
    assert_eq!(rag.num_outputs(), 6);
    let e = sess.fetch(&[], &rag.output(3).unwrap()).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("ragged features"), "{e}");
}

#[test]
fn deprecated_op_is_refused_from_its_removal_version_on() {
    let text = |producer: i32| {
        format!(
            "node {{ name: \"p\" op: \"PlaceholderV2\" attr {{ key: \"dtype\" value {{ type: DT_FLOAT }} }} attr {{ key: \"shape\" value {{ shape {{ unknown_rank: true }} }} }} }} versions {{ producer: {producer} }}"
        )
    };
    // TensorFlow 2.21's import_graph_def: producer 22 imports, 23 and 30 are refused
    let g = Graph::new();
    let gd = GraphDef::from_text(&text(22)).unwrap();
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let p = g.tensor_by_name("p:0").unwrap();
    assert_eq!(p.op().op_type(), "PlaceholderV2");
    let sess = Session::new(&g).unwrap();
    assert_eq!(sess.fetch(&[(&p, Tensor::scalar(2f32))], &p).unwrap(), Tensor::scalar(2f32));
    for producer in [23, 30] {
        let gd = GraphDef::from_text(&text(producer)).unwrap();
        let e = import_graph_def(&Graph::new(), &gd, &ImportGraphDefOptions::new()).unwrap_err();
        assert_eq!(e.code, Code::Unimplemented);
        assert_eq!(
            e.message,
            format!("Op PlaceholderV2 is not available in GraphDef version {producer}. It has been removed in version 23. Placeholder now behaves the same as PlaceholderV2.. (node 'p')")
        );
    }
    // building one is refused as TF's Python does (GraphDef version 2474)
    let e = g
        .scope()
        .op("PlaceholderV2", "PlaceholderV2")
        .attr("dtype", DType::Float)
        .attr("shape", tensorgraph::Shape::unknown())
        .build()
        .unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.ends_with("Op PlaceholderV2 is not available in GraphDef version 2474. It has been removed in version 23. Placeholder now behaves the same as PlaceholderV2.."), "{e}");
}

#[test]
fn v1_checkpoint_reads_tensorflows_file_and_writes_its_bytes() {
    let path = data("v1_slices.ckpt");
    let r = TensorSliceReader::open(path.to_str().unwrap()).unwrap();
    let names: Vec<String> = r.list().into_iter().map(|e| e.0).collect();
    assert_eq!(names, ["a", "i", "p", "s"]);
    assert_eq!(r.read("a", DType::Float).unwrap(), Tensor::new(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap());
    assert_eq!(r.read("i", DType::Int64).unwrap(), Tensor::vector(vec![7i64, 8]));
    // raw.Restore(file_pattern, "p", float32): the partitioned tensor assembled
    let p = Tensor::new(&[4, 2], vec![1.5f32, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]).unwrap();
    assert_eq!(r.read("p", DType::Float).unwrap(), p);
    // raw.RestoreSlice(..., "p", "4 2 1,2:1,1") -> [[4.5] [6.5]]
    assert_eq!(
        r.read_slice("p", DType::Float, &[4, 2], &[(1, 2), (1, 1)]).unwrap(),
        Tensor::new(&[2, 1], vec![4.5f32, 6.5]).unwrap()
    );
    let s = Tensor::strings(&[2], vec![b"hello".to_vec(), b"w\0rld".to_vec()]).unwrap();
    assert_eq!(r.read("s", DType::String).unwrap(), s);
    // TF's errors
    let pat = path.to_str().unwrap();
    let e = r.read("i", DType::Float).unwrap_err();
    assert!(
        e.message.ends_with(
            "Expected to restore a tensor of type float, got a tensor of type int64 instead: tensor_name = i"
        ),
        "{e}"
    );
    let e = r.read("nope", DType::Float).unwrap_err();
    assert_eq!(
        (e.code, e.message),
        (Code::NotFound, format!("Tensor name \"nope\" not found in checkpoint files {pat}"))
    );
    // the same SaveSlices call here writes TensorFlow's bytes
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v1.ckpt");
    let a = Tensor::new(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    let i = Tensor::vector(vec![7i64, 8]);
    let p0 = Tensor::new(&[2, 2], vec![1.5f32, 2.5, 3.5, 4.5]).unwrap();
    let p1 = Tensor::new(&[2, 2], vec![5.5f32, 6.5, 7.5, 8.5]).unwrap();
    let slices = [
        SliceToSave { name: "a", full_shape: vec![2, 3], extents: None, data: &a },
        SliceToSave { name: "i", full_shape: vec![2], extents: None, data: &i },
        SliceToSave { name: "p", full_shape: vec![4, 2], extents: Some(vec![Some((0, 2)), None]), data: &p0 },
        SliceToSave { name: "p", full_shape: vec![4, 2], extents: Some(vec![Some((2, 2)), None]), data: &p1 },
        SliceToSave { name: "s", full_shape: vec![2], extents: None, data: &s },
    ];
    write_tensor_slices(&out, &slices).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&path).unwrap());
}

#[test]
fn v1_saver_ops_round_trip_and_refuse_v2_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.ckpt");
    let g = Graph::new();
    let s = g.scope();
    let str_c = |v: &[&str], shape: &[usize]| {
        ops::constant(&s, Tensor::strings(shape, v.iter().map(|x| x.as_bytes().to_vec()).collect()).unwrap()).unwrap()
    };
    let fname = str_c(&[file.to_str().unwrap()], &[]);
    let names = str_c(&["x", "part"], &[2]);
    let specs = str_c(&["", "4 2 2,2:-"], &[2]);
    let x = ops::constant(&s, Tensor::vector(vec![1.0f64, 2.0])).unwrap();
    let part = ops::constant(&s, Tensor::new(&[2, 2], vec![1i32, 2, 3, 4]).unwrap()).unwrap();
    let save = tensorgraph::ops::io_ops_v1::save_slices(&s, &fname, &names, &specs, &[x, part]).unwrap();
    let pattern = str_c(&[&format!("{}/*.ckpt", dir.path().display())], &[]);
    let restore = tensorgraph::ops::io_ops_v1::restore(&s, &pattern, &str_c(&["x"], &[]), DType::Double).unwrap();
    let slice_spec = str_c(&["4 2 3,1:-"], &[]);
    let rs = tensorgraph::ops::io_ops_v1::restore_slice(&s, &fname, &str_c(&["part"], &[]), &slice_spec, DType::Int32)
        .unwrap();
    let uncovered = str_c(&["4 2 0,1:-"], &[]);
    let ru = tensorgraph::ops::io_ops_v1::restore_slice(&s, &fname, &str_c(&["part"], &[]), &uncovered, DType::Int32)
        .unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&save]).unwrap();
    assert_eq!(sess.fetch(&[], &restore).unwrap().to_vec::<f64>().unwrap(), [1.0, 2.0]);
    assert_eq!(sess.fetch(&[], &rs).unwrap(), Tensor::new(&[1, 2], vec![3i32, 4]).unwrap());
    assert_eq!(sess.fetch(&[], &ru).unwrap_err().code, Code::NotFound);
    // RestoreV2 reads a V1 file, as TensorFlow's does
    let (op, inner) = s.op_scope("RestoreV2");
    let v2 = tensorgraph::ops::io_ops::restore_v2(&op, &inner, &fname, &["x"], &[DType::Double]).unwrap();
    assert_eq!(sess.fetch(&[], &v2.output(0).unwrap()).unwrap().to_vec::<f64>().unwrap(), [1.0, 2.0]);
    // a V2 checkpoint's prefix: TF's NotFound, with advice
    let v2dir = tempfile::tempdir().unwrap();
    let prefix = v2dir.path().join("v2.ckpt");
    tensorgraph::format::checkpoint::write_checkpoint(&prefix, &[("x".to_string(), Tensor::vector(vec![1f32]))])
        .unwrap();
    let e = TensorSliceReader::open(prefix.to_str().unwrap()).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    let head = format!(
        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {}",
        prefix.display()
    );
    assert!(e.message.contains(&head) && e.message.contains("RestoreV2"), "{e}");
}
