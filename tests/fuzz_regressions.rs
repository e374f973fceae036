//! Inputs the fuzz targets (fuzz/, FUZZING.md) found to crash, hang or over-allocate, each
//! now a typed error.

mod common;
use common::repo_root;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::{Code, Tensor};

/// `npy` target: 31 unclosed `[` in the header made the Python literal parser backtrack
/// exponentially (a hang). Brackets are now checked for balance and depth first.
#[test]
fn npy_header_with_unclosed_brackets_is_an_error_not_a_hang() {
    let bytes = std::fs::read(repo_root().join("tests/data/fuzz/npy_nested_brackets_timeout.npy")).unwrap();
    let e = Tensor::from_npy_bytes(&bytes).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("the .npy header nests brackets more than 8 deep"), "{e}");
    // unbalanced brackets below the depth limit, and brackets inside strings
    let header = |h: &str| {
        let h = format!("{h}\n");
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(h.len() as u16).to_le_bytes());
        b.extend_from_slice(h.as_bytes());
        b
    };
    let e = Tensor::from_npy_bytes(&header("{'descr': [[[['<f4', 'fortran_order': False, 'shape': (), }")).unwrap_err();
    assert!(e.message.contains("has an unmatched '}'"), "{e}");
    let e = Tensor::from_npy_bytes(&header("{'descr': '<f4', 'fortran_order': False, 'shape': ((), }")).unwrap_err();
    assert!(e.message.contains("has an unmatched '}'"), "{e}");
    let e = Tensor::from_npy_bytes(&header("{'descr': '<f4', 'fortran_order': False, 'shape': (), ")).unwrap_err();
    assert!(e.message.contains("has an unclosed '{'"), "{e}");
    let e = Tensor::from_npy_bytes(&header("{'descr': '<f4', 'fortran_order': False, 'shape': ()), }")).unwrap_err();
    assert!(e.message.contains("has an unmatched ')'"), "{e}");
    let e = Tensor::from_npy_bytes(&header("{'descr': '<f4, 'fortran_order': False, 'shape': (), }")).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    // a bracket inside a string does not count: the header parses (and names the bad dtype)
    let e = Tensor::from_npy_bytes(&header("{'descr': '[<f4', 'fortran_order': False, 'shape': (), }")).unwrap_err();
    assert!(!e.message.contains("bracket") && !e.message.contains("unclosed"), "{e}");
}

/// `graph_def_text` target, profiled for its slowness (90 executions a second): the
/// tokenizer counted every byte's column from the start of its line, so a text GraphDef on
/// one line (as `text_format.MessageToString(..., as_one_line=True)` writes it) of n bytes
/// took n²/2 steps: minutes for 2 MB, so a return of the quadratic count makes this test hang
/// rather than fail (no timing assertion). Columns are now counted on from the last token.
#[test]
fn a_text_graph_def_on_one_long_line_parses_in_linear_time() {
    let node = r#"node { name: "é" op: "NoOp" } "#;
    let n = (2 << 20) / node.len();
    let text = node.repeat(n);
    let gd = graph_def_from_text(&text).unwrap();
    assert_eq!(gd.node.len(), n);
    assert_eq!(gd.node[n - 1].name, "é");
    // columns still count characters (é is two bytes), on the long line and on the next one
    let e = graph_def_from_text(&format!("{text}?")).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        format!("text format parse error at line 1, column {}: unexpected character '?'", text.chars().count() + 1)
    );
    let e = graph_def_from_text(&format!("{text}\n  node {{ name: \"é\" ?")).unwrap_err();
    assert_eq!(e.message, "text format parse error at line 2, column 20: unexpected character '?'");
}
