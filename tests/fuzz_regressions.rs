//! Inputs the fuzz targets (fuzz/, FUZZING.md) found to crash, hang or over-allocate, each
//! now a typed error.

mod common;
use common::repo_root;
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
