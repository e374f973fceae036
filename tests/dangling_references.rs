//! References that point nowhere are all checked at import and listed in one error (issue 12,
//! item 3): colocation targets, data and control inputs (GraphDef), collection entries and
//! the SaverDef's names (MetaGraphDef), signature inputs and outputs (SavedModel); unknown op
//! types are all named.

use tensorgraph::format::proto::text::{graph_def_from_text, meta_graph_def_from_text};
use tensorgraph::format::proto::SavedModel;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::io::saved_model::SavedModelBundle;
use tensorgraph::{Code, Graph, Session};

const X: &str = r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }"#;

fn import_err(text: &str) -> tensorgraph::Error {
    let gd = graph_def_from_text(text).unwrap();
    let g = Graph::new();
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap_err();
    assert!(g.operations().is_empty(), "a failed import adds nothing");
    e
}

fn identity(name: &str, input: &str, class: &str) -> String {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!(r#"attr {{ key: "_class" value {{ list {{ s: "loc:@{class}" }} }} }}"#)
    };
    format!(
        r#"node {{ name: "{name}" op: "Identity" input: "{input}" attr {{ key: "T" value {{ type: DT_FLOAT }} }} {class} }}"#
    )
}

#[test]
fn two_missing_colocation_targets_are_both_named() {
    // the issue's example: TensorFlow (and tensorgraph before) named only the first
    let e = import_err(&format!("{X} {} {}", identity("a", "x", "v1"), identity("b", "x", "v2")));
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "2 references of the GraphDef point to nodes it does not have: Node 'a' expects to be colocated with unknown \
         node 'v1'; Node 'b' expects to be colocated with unknown node 'v2'"
    );
    // one alone keeps TensorFlow's words
    let e = import_err(&format!("{X} {}", identity("a", "x", "v1")));
    assert_eq!(e.message, "Node 'a' expects to be colocated with unknown node 'v1'");
}

#[test]
fn missing_data_and_control_inputs_are_listed_with_colocations() {
    let text = format!("{X} {} {}", identity("a", "nope:1", "gone"), identity("b", "x\" input: \"^ctl", ""));
    let e = import_err(&text);
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "3 references of the GraphDef point to nodes it does not have: Node 'a' expects to be colocated with unknown \
         node 'gone'; Node 'a': Unknown input node 'nope:1'; Node 'b': Unknown input node '^ctl'"
    );
}

fn meta(graph: &str, extra: &str) -> tensorgraph::format::proto::MetaGraphDef {
    meta_graph_def_from_text(&format!("graph_def {{ {graph} }} {extra}")).unwrap()
}

#[test]
fn meta_graph_collections_and_saver_def_are_all_checked() {
    let m = meta(
        X,
        r#"collection_def { key: "train_op" value { node_list { value: "x" value: "train" } } }
           collection_def { key: "outputs" value { node_list { value: "logits:0" } } }
           saver_def { filename_tensor_name: "save/Const:0" save_tensor_name: "x:0" restore_op_name: "save/restore_all" }"#,
    );
    let g = Graph::new();
    let e = g.import_meta_graph_def(&m, &ImportMetaGraphOptions::default(), "test").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(
        e.message.starts_with("4 names in the meta graph point to nothing in the graph: collection 'outputs': "),
        "{e}"
    );
    for part in [
        "collection 'outputs': entry 'logits:0'",
        "collection 'train_op': ",
        "'train'",
        "SaverDef filename_tensor_name 'save/Const:0'",
        "SaverDef restore_op_name 'save/restore_all'",
    ] {
        assert!(e.message.contains(part), "{part} missing from: {e}");
    }
    assert!(!e.message.contains("save_tensor_name"), "x:0 exists: {e}");
    assert!(g.operations().is_empty(), "the failed import was rolled back");
    // the good parts alone import
    let m = meta(X, r#"collection_def { key: "train_op" value { node_list { value: "x" } } }"#);
    Graph::new().import_meta_graph_def(&m, &ImportMetaGraphOptions::default(), "test").unwrap();
}

#[test]
fn saved_model_signature_inputs_and_outputs_are_all_checked() {
    use prost::Message;
    let m = meta(
        X,
        r#"meta_info_def { tags: "serve" }
           signature_def { key: "serving_default" value {
             inputs { key: "x" value { name: "x:0" dtype: DT_FLOAT } }
             inputs { key: "y" value { name: "y:0" dtype: DT_FLOAT } }
             outputs { key: "probs" value { name: "probs:0" dtype: DT_FLOAT } } } }"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let sm = SavedModel { saved_model_schema_version: 1, meta_graphs: vec![m] };
    std::fs::write(dir.path().join("saved_model.pb"), sm.encode_to_vec()).unwrap();
    let e = SavedModelBundle::load(dir.path(), &["serve"]).map(|_| ()).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(
        e.message.contains(
            "2 signature inputs and outputs point to nothing in the graph: input 'y' of signature 'serving_default': "
        ),
        "{e}"
    );
    assert!(e.message.contains("; output 'probs' of signature 'serving_default': "), "{e}");
}

#[test]
fn unknown_op_types_are_all_named() {
    let text = r#"
        node { name: "a" op: "FooOp" }
        node { name: "b" op: "BarOp" input: "a" }
        node { name: "c" op: "BarOp" input: "b" }"#;
    let gd = graph_def_from_text(text).unwrap();
    let g = Graph::new();
    let r = import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(
        r.warning().unwrap(),
        "3 node(s) have op types tensorgraph does not implement: BarOp (2), FooOp (1); they were kept, and only a run \
         that needs one of them fails"
    );
    let c = g.operation_by_name("import/c").unwrap();
    let e = Session::new(&g).unwrap().run(&[], &[], &[&c]).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(
        e.message.contains(
            "the run needs 3 node(s) whose op types tensorgraph does not implement: 'import/a' (FooOp), 'import/b' \
             (BarOp), 'import/c' (BarOp)"
        ),
        "{e}"
    );
}

/// The GraphDef's dangling references and the meta graph's own (a collection entry, the
/// SaverDef's restore op) are listed in one error: fixing the first kind does not reveal the
/// second (`all.meta` of the new-user pass: a colocation target, a control input, a
/// collection entry and the restore op).
#[test]
fn graph_def_and_meta_graph_references_are_listed_in_one_error() {
    let m = meta(
        &format!("{X} {} {}", identity("a", "x", "ghost1"), identity("b", "x\" input: \"^ghost4", "")),
        r#"collection_def { key: "my_ops" value { node_list { value: "x" value: "missing_a" } } }
           saver_def { restore_op_name: "save/nope_restore" }"#,
    );
    let g = Graph::new();
    let e = g.import_meta_graph_def(&m, &ImportMetaGraphOptions::default(), "test").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "4 references in the meta graph point to nothing in its graph: Node 'a' expects to be colocated with unknown \
         node 'ghost1'; Node 'b': Unknown input node '^ghost4'; collection 'my_ops': The name \
         'missing_a' refers to an Operation not in the graph.; SaverDef restore_op_name 'save/nope_restore': The \
         name 'save/nope_restore' refers to an Operation not in the graph."
    );
    assert!(g.operations().is_empty(), "nothing was imported");
    // the GraphDef's alone keep their own message
    let m = meta(&format!("{X} {}", identity("a", "x", "ghost1")), "");
    let e = Graph::new().import_meta_graph_def(&m, &ImportMetaGraphOptions::default(), "test").unwrap_err();
    assert_eq!(e.message, "Node 'a' expects to be colocated with unknown node 'ghost1'");
    // under an import scope, the meta graph's names are looked up under it
    let m = meta(
        &format!("{X} {}", identity("a", "x", "ghost1")),
        r#"collection_def { key: "my_ops" value { node_list { value: "missing_a" } } }"#,
    );
    let opts = ImportMetaGraphOptions { import_scope: "s".into(), ..Default::default() };
    let e = Graph::new().import_meta_graph_def(&m, &opts, "test").unwrap_err();
    assert!(e.message.starts_with("2 references in the meta graph point to nothing in its graph: "), "{e}");
    assert!(e.message.contains("'s/missing_a'"), "{e}");
}
