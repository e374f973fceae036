//! Hostile or inconsistent GraphDefs are errors at import, never aborts.

use tensorgraph::io::graph_def::ImportGraphDefOptions;
use tensorgraph::io::proto::text::graph_def_from_text;
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
