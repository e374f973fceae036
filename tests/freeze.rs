//! `freeze` (`convert_variables_to_constants`) against TensorFlow 2.21's frozen graphs: the
//! seed004 and mlp fixtures rebuilt or imported from their `.meta` and checkpoint, frozen
//! with the same outputs, give TensorFlow's nodes and values; pruning and errors.

mod common;
use common::{assert_close, fixtures, manifest, seed004_graph};
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{
    extract_sub_graph, freeze, import_graph_def, read_graph_def, write_graph_def, ImportGraphDefOptions,
};
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::{ops, Code, Graph, Session, Tensor};

fn names_and_ops(gd: &GraphDef) -> Vec<(String, String)> {
    gd.node.iter().map(|n| (n.name.clone(), n.op.clone())).collect()
}

fn manifest_ops(fixture: &str) -> Vec<(String, String)> {
    manifest(fixture)["frozen_graph"]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect()
}

fn read_npy_f32(path: std::path::PathBuf) -> Tensor {
    let t = Tensor::read_npy(&path).unwrap();
    assert_eq!(t.dtype(), tensorgraph::DType::Float, "{}", path.display());
    t
}

/// The seed004 graph built here: v1, v2, v3, add, add_1 (values 1, 2, 3).
fn seed004() -> (Graph, Session) {
    let (g, vars, _, _) = seed004_graph();
    let sess = Session::new(&g).unwrap();
    for v in &vars {
        sess.run_targets(&[v.initializer()]).unwrap();
    }
    (g, sess)
}

/// A frozen GraphDef imported into a new graph (names unchanged) and run.
fn run_frozen(gd: &GraphDef, feeds: &[(&str, Tensor)], fetch: &str) -> Tensor {
    let g = Graph::new();
    import_graph_def(&g, gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let sess = Session::new(&g).unwrap();
    let outs: Vec<_> = feeds.iter().map(|(n, t)| (g.tensor_by_name(n).unwrap(), t.clone())).collect();
    let f: Vec<_> = outs.iter().map(|(o, t)| (o, t.clone())).collect();
    sess.fetch(&f, &g.tensor_by_name(fetch).unwrap()).unwrap()
}

#[test]
fn seed004_rebuilt_matches_tensorflow_frozen_pb() {
    let (g, sess) = seed004();
    let frozen = freeze(&g, &sess, &["add_1"]).unwrap();
    assert_eq!(names_and_ops(&frozen), manifest_ops("seed004"));
    // node for node what TensorFlow wrote (inputs, attrs, Const values as float_val)
    let tf = read_graph_def(fixtures().join("seed004/frozen.pb")).unwrap();
    assert_eq!(frozen.node, tf.node);
    assert_eq!(frozen.versions, tf.versions);
    assert!(frozen.library.is_some(), "TensorFlow writes an empty library");
    assert_eq!(run_frozen(&frozen, &[], "add_1:0").to_vec::<f32>().unwrap(), vec![6.0]);
}

#[test]
fn seed004_from_meta_and_checkpoint() {
    let dir = fixtures().join("seed004");
    let g = Graph::new();
    let saver = g.import_meta_graph(dir.join("model.ckpt.meta"), &ImportMetaGraphOptions::default()).unwrap().unwrap();
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, dir.join("model.ckpt")).unwrap();
    let frozen = freeze(&g, &sess, &["add_1"]).unwrap();
    assert_eq!(names_and_ops(&frozen), manifest_ops("seed004"));
    let tf = read_graph_def(dir.join("frozen.pb")).unwrap();
    assert_eq!(frozen.node, tf.node, "no _output_shapes or save/ nodes may remain");
    assert_eq!(run_frozen(&frozen, &[], "add_1:0").to_vec::<f32>().unwrap(), vec![6.0]);
}

#[test]
fn mlp_from_meta_and_checkpoint_matches_tensorflow() {
    let dir = fixtures().join("mlp");
    let m = manifest("mlp");
    let outputs: Vec<&str> =
        m["frozen_graph"]["output_nodes"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(outputs, ["probs"]);
    let g = Graph::new();
    let saver = g.import_meta_graph(dir.join("model.ckpt.meta"), &ImportMetaGraphOptions::default()).unwrap().unwrap();
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, dir.join("model.ckpt")).unwrap();
    let frozen = freeze(&g, &sess, &outputs).unwrap();
    assert_eq!(names_and_ops(&frozen), manifest_ops("mlp"));
    let tf = read_graph_def(dir.join("frozen.pb")).unwrap();
    assert_eq!(frozen.node, tf.node, "same inputs, attrs and constant values as TensorFlow's frozen.pb");

    // written and read back, it runs to TensorFlow's probabilities
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("frozen.pb");
    write_graph_def(&frozen, &path).unwrap();
    let back = read_graph_def(&path).unwrap();
    let inputs = read_npy_f32(dir.join("inputs.npy"));
    let want = read_npy_f32(dir.join("expected_probs.npy"));
    let got = run_frozen(&back, &[("x:0", inputs.clone())], "probs:0");
    assert_eq!(got.shape(), want.shape());
    assert_close("probs", &got.to_f64_vec().unwrap(), &want.to_f64_vec().unwrap());
    // TensorFlow's own frozen.pb runs to the same here
    let theirs = run_frozen(&tf, &[("x:0", inputs)], "probs:0");
    assert_close("probs (TF frozen.pb)", &theirs.to_f64_vec().unwrap(), &want.to_f64_vec().unwrap());
}

#[test]
fn pruning_keeps_only_needed_nodes() {
    let (g, sess) = seed004();
    // an unrelated branch and an init op are dropped
    let s = g.scope();
    let other = ops::constant(&s.named("other"), Tensor::new(&[1], vec![9.0f32]).unwrap()).unwrap();
    ops::add(&s.named("unrelated"), &other, &other).unwrap();
    s.global_variables_initializer().unwrap();
    let frozen = freeze(&g, &sess, &["add"]).unwrap();
    let names: Vec<String> = frozen.node.iter().map(|n| n.name.clone()).collect();
    assert_eq!(names, ["v1", "v1/read", "v2", "v2/read", "add"]);
    assert!(frozen.node.iter().all(|n| n.op != "VariableV2" && n.op != "Assign"));
    // several outputs, one given as a tensor name
    let frozen = freeze(&g, &sess, &["add", "unrelated:0"]).unwrap();
    let names: Vec<&str> = frozen.node.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["v1", "v1/read", "v2", "v2/read", "add", "other", "unrelated"]);
    // control inputs are followed
    let gd = g.to_graph_def();
    let sub = extract_sub_graph(&gd, &["init"]).unwrap();
    assert!(sub.node.iter().any(|n| n.name == "v3/Assign"), "init's control inputs are kept");
}

#[test]
fn errors() {
    let (g, sess) = seed004();
    let e = freeze(&g, &sess, &["nope"]).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains("nope"), "{e}");
    // an output that needs an Assign
    let e = freeze(&g, &sess, &["v1/Assign"]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("v1/Assign") && e.message.contains("'v1'"), "{e}");
    // uninitialized variables
    let fresh = Session::new(&g).unwrap();
    let e = freeze(&g, &fresh, &["add_1"]).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.contains("v1"), "{e}");
    // a session of another graph
    let (_, other_sess) = seed004();
    assert_eq!(freeze(&g, &other_sess, &["add_1"]).unwrap_err().code, Code::InvalidArgument);
    // an output index past the op's outputs, and no outputs at all
    let e = freeze(&g, &sess, &["add_1:1"]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("'add_1:1'") && e.message.contains("1 output(s)"), "{e}");
    assert_eq!(freeze(&g, &sess, &["add_1:0"]).unwrap().node.len(), 8);
    for (bad, want) in [("^add_1", "give the node name 'add_1'"), ("add_1:x", "the output index 'x' is not a number")] {
        let e = freeze(&g, &sess, &[bad]).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(e.message.contains(want), "{e}");
    }
    let e = freeze(&g, &sess, &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("at least one output"), "{e}");
}
