//! Hostile or inconsistent GraphDefs are errors at import, never aborts.

mod common;

use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::ImportGraphDefOptions;
use tensorgraph::{Code, Graph};

fn import(text: &str) -> tensorgraph::Result<()> {
    let gd = graph_def_from_text(text)?;
    Graph::new().import_graph_def(&gd, &ImportGraphDefOptions::new().prefix("")).map(|_| ())
}

#[test]
fn a_const_claiming_terabytes_is_resource_exhausted() {
    let e = import(
        r#"node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000000000000 } } } } } }"#,
    )
    .unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
}

#[test]
fn a_type_attr_that_contradicts_the_input_is_refused() {
    let e = import(
        r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
           node { name: "a" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }"#,
    )
    .unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("Input 0 of node a was passed int32 incompatible with expected float32"), "{e}");
    let e = import(
        r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
           node { name: "s" op: "AddV2" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }"#,
    )
    .unwrap_err();
    assert!(e.message.contains("was passed int32 incompatible with expected float32"), "{e}");
}

#[test]
fn missing_and_wrong_kinds_of_attrs_are_refused() {
    let placeholder = r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }"#;
    let cases = [
        // a Const whose dtype contradicts its value
        (
            r#"node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.5 } } } }"#
                .to_string(),
            "Type mismatch between value (float32) and dtype (int32) of Const 'a'",
        ),
        // a Const without dtype, and with dtype given as an int
        (
            r#"node { name: "a" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.5 } } } }"#
                .to_string(),
            "NodeDef missing attr 'dtype' from Op<name=Const",
        ),
        (
            r#"node { name: "a" op: "Const" attr { key: "dtype" value { i: 1 } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2.5 } } } }"#
                .to_string(),
            "AttrValue had value with type 'int' when 'type' expected for attr 'dtype'; NodeDef: {{node a}}",
        ),
        // Identity without T, and with T as a string
        (
            format!(r#"{placeholder} node {{ name: "i" op: "Identity" input: "x" }}"#),
            "NodeDef missing attr 'T'",
        ),
        (
            format!(r#"{placeholder} node {{ name: "i" op: "Identity" input: "x" attr {{ key: "T" value {{ s: "float" }} }} }}"#),
            "AttrValue had value with type 'string' when 'type' expected for attr 'T'; NodeDef: {{node i}}",
        ),
        // a Placeholder whose shape is an int
        (
            r#"node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { i: 3 } } }"#
                .to_string(),
            "AttrValue had value with type 'int' when 'shape' expected for attr 'shape'; NodeDef: {{node p}}",
        ),
    ];
    for (text, want) in cases {
        let e = import(&text).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains(want), "want {want:?} in: {e}");
    }
    // the well-formed versions import
    import(placeholder).unwrap();
    import(&format!(
        r#"{placeholder} node {{ name: "i" op: "Identity" input: "x" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}"#
    ))
    .unwrap();
}

#[test]
fn a_wrong_kind_of_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = common::fixtures();
    let meta = dir.path().join("model.pb");
    std::fs::copy(root.join("seed004/model.ckpt.meta"), &meta).unwrap();
    let e = tensorgraph::io::graph_def::read_graph_def_any(&meta).unwrap_err();
    assert!(e.message.contains("is a MetaGraphDef (.meta): import it with Graph::import_meta_graph"), "{e}");
    let text = dir.path().join("graph.pb");
    std::fs::write(&text, "node { name: \"a\" op: \"NoOp\" }\n").unwrap();
    let e = tensorgraph::io::graph_def::read_graph_def(&text).unwrap_err();
    assert!(e.message.contains("looks like text"), "{e}");
}
