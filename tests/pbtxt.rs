//! The protobuf text format (`.pbtxt`): TensorFlow 2.21's `tf.io.write_graph(...,
//! as_text=True)` output parses and is reproduced byte for byte; every binary GraphDef and
//! MetaGraphDef fixture survives text and back unchanged; the parser accepts protobuf's
//! text syntax and reports malformed input as `InvalidArgument` with a position, never
//! panicking.

mod common;
use common::fixtures;

use prost::Message;
use rand::{Rng, SeedableRng};
use tensorgraph::format::proto::text::{
    format_double, format_float, graph_def_from_text, graph_def_to_text, meta_graph_def_from_text,
    meta_graph_def_to_text, TextFormat,
};
use tensorgraph::format::proto::{
    AttrValue, AttrValueKind, FunctionDefLibrary, GraphDef, MetaGraphDef, NodeDef, TensorProto, TensorShapeProto,
};
use tensorgraph::io::graph_def::{read_graph_def, read_graph_def_any, read_graph_def_text, write_graph_def_text};
use tensorgraph::Code;

fn scopes_text() -> String {
    std::fs::read_to_string(fixtures().join("scopes/graph.pbtxt")).unwrap()
}

fn binary_graph_defs() -> Vec<(String, GraphDef)> {
    let mut out = Vec::new();
    for f in ["seed004/frozen.pb", "mlp/frozen.pb", "cnn_frozen/frozen.pb", "resource_vars/frozen.pb"] {
        out.push((f.to_string(), read_graph_def(fixtures().join(f)).unwrap()));
    }
    for (name, m) in metas() {
        out.push((format!("{name}: graph_def"), m.graph_def.unwrap()));
    }
    out
}

fn metas() -> Vec<(String, MetaGraphDef)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(fixtures()).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "meta") {
                let m = MetaGraphDef::from_bytes(&std::fs::read(&f).unwrap()).unwrap();
                out.push((f.display().to_string(), m));
            }
        }
    }
    assert!(out.len() >= 6, "expected the .meta fixtures, found {}", out.len());
    out
}

#[test]
fn tensorflow_pbtxt_is_reproduced_byte_for_byte() {
    let text = scopes_text();
    let gd = graph_def_from_text(&text).unwrap();
    assert_eq!(gd.node.len(), 164);
    assert_eq!(gd.versions.as_ref().unwrap().producer, 2474);
    let c = gd.node_named("c").unwrap();
    match &c.attr.get("value").unwrap().value {
        Some(AttrValueKind::Tensor(t)) => assert_eq!(t.float_val, [1.0]),
        other => panic!("unexpected value attr {other:?}"),
    }
    let again = graph_def_to_text(&gd).unwrap();
    assert!(again == text, "text differs at byte {:?}", again.bytes().zip(text.bytes()).position(|(a, b)| a != b));
    // Through the binary encoding and back.
    let decoded = GraphDef::from_bytes(&gd.to_bytes()).unwrap();
    assert_eq!(decoded, gd);
    assert_eq!(graph_def_to_text(&decoded).unwrap(), text);
}

#[test]
fn binary_fixtures_round_trip_through_text() {
    for (name, gd) in binary_graph_defs() {
        let text = graph_def_to_text(&gd).unwrap();
        let back = graph_def_from_text(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(back == gd, "{name}: GraphDef changed through text");
        assert_eq!(back.to_bytes(), gd.to_bytes(), "{name}: bytes changed through text");
        assert_eq!(graph_def_to_text(&back).unwrap(), text, "{name}: text is not stable");
    }
}

#[test]
fn binary_fixtures_keep_their_bytes_through_text() {
    // The frozen graphs' file bytes come back exactly (TensorFlow's deterministic order).
    for f in ["seed004/frozen.pb", "mlp/frozen.pb", "cnn_frozen/frozen.pb"] {
        let bytes = std::fs::read(fixtures().join(f)).unwrap();
        let gd = GraphDef::from_bytes(&bytes).unwrap();
        let back = graph_def_from_text(&graph_def_to_text(&gd).unwrap()).unwrap();
        assert!(back.to_bytes() == gd.to_bytes(), "{f}");
        // tensor_content holds raw bytes, written with octal escapes.
        if f.starts_with("cnn") {
            assert!(graph_def_to_text(&gd).unwrap().contains("tensor_content: \""));
        }
    }
}

#[test]
fn meta_graph_defs_round_trip_through_text() {
    for (name, m) in metas() {
        let text = meta_graph_def_to_text(&m).unwrap();
        assert!(text.starts_with("meta_info_def {\n  stripped_op_list {\n    op {\n"), "{name}");
        assert!(text.contains("saver_def {\n"), "{name}");
        assert!(text.contains("collection_def {\n  key: \""), "{name}");
        let back = meta_graph_def_from_text(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(back == m, "{name}: MetaGraphDef changed through text");
        assert_eq!(back.to_bytes(), m.to_bytes(), "{name}");
        assert_eq!(meta_graph_def_to_text(&back).unwrap(), text, "{name}: text is not stable");
    }
}

#[test]
fn saver_def_text_matches_python() {
    let m = metas().into_iter().find(|(n, _)| n.contains("seed004")).unwrap().1;
    let text = m.saver_def.unwrap().to_text().unwrap();
    assert_eq!(
        text,
        "filename_tensor_name: \"save/Const:0\"\nsave_tensor_name: \"save/control_dependency:0\"\n\
         restore_op_name: \"save/restore_all\"\nmax_to_keep: 5\nkeep_checkpoint_every_n_hours: 10000.0\n\
         version: V2\n"
    );
}

#[test]
fn floats_are_written_as_python_does() {
    for (v, want) in [
        (1.0f32, "1.0"),
        (0.1, "0.1"),
        (1e-5, "1e-05"),
        (1.7320508, "1.7320508"),
        (123456.79, "123456.79"),
        (1e16, "1e+16"),
        (f32::MIN_POSITIVE, "1.1754944e-38"),
        (f32::NEG_INFINITY, "-inf"),
        (-0.0, "-0.0"),
    ] {
        assert_eq!(format_float(v), want);
    }
    assert_eq!(format_double(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(format_double(1e22), "1e+22");
    assert_eq!(format_double(5e-324), "5e-324");

    // Every float survives text and back bit for bit (NaN as a NaN).
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut vals: Vec<f32> = (0..2000).map(|_| f32::from_bits(rng.gen())).filter(|v| !v.is_nan()).collect();
    vals.extend([0.0, -0.0, f32::MAX, f32::MIN, f32::EPSILON, 1e-45, f32::INFINITY]);
    let t = TensorProto { dtype: 1, float_val: vals.clone(), ..Default::default() };
    let back = TensorProto::from_text(&t.to_text().unwrap()).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back.float_val), bits(&vals));
    let d: Vec<f64> = (0..2000).map(|_| f64::from_bits(rng.gen())).filter(|v| !v.is_nan()).collect();
    let t = TensorProto { dtype: 2, double_val: d.clone(), ..Default::default() };
    let back = TensorProto::from_text(&t.to_text().unwrap()).unwrap();
    assert_eq!(
        back.double_val.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        d.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    let nan = TensorProto { float_val: vec![f32::NAN], ..Default::default() };
    assert_eq!(nan.to_text().unwrap(), "float_val: nan\n");
    assert!(TensorProto::from_text("float_val: nan").unwrap().float_val[0].is_nan());
}

#[test]
fn bytes_are_escaped_as_python_does() {
    let all: Vec<u8> = (0..=255).collect();
    let t = TensorProto { dtype: 4, tensor_content: all.clone().into(), ..Default::default() };
    let text = t.to_text().unwrap();
    assert!(text.starts_with(
        "dtype: DT_UINT8\ntensor_content: \"\\000\\001\\002\\003\\004\\005\\006\\007\\010\\t\\n\\013\\014\\r\\016"
    ));
    assert!(text.contains(" !\\\"#$%&\\'()*+,-./0123"));
    assert!(text.contains("[\\\\]^_`abc"));
    assert!(text.contains("|}~\\177\\200\\201"));
    assert!(text.ends_with("\\375\\376\\377\"\n"));
    assert_eq!(TensorProto::from_text(&text).unwrap().tensor_content, all);
    // Strings: non-ASCII UTF-8 is written as octal bytes too.
    let n = NodeDef { name: "é\"x".into(), ..Default::default() };
    assert_eq!(n.to_text().unwrap(), "name: \"\\303\\251\\\"x\"\n");
    assert_eq!(NodeDef::from_text("name: \"\\303\\251\\\"x\"").unwrap().name, "é\"x");
}

#[test]
fn parser_accepts_protobuf_text_syntax() {
    let text = r#"
        # a comment
        node <
          name: 'a' "b"          # adjacent literals join
          op: "Const";
          input: ["x", "y:1"]
          input: "^z",
          attr: { key: "dtype" value { type: 1 } }
          attr { key: "value" value: < tensor {
              dtype: DT_FLOAT tensor_shape { dim { size: 0x2 } dim: { size: -1 } }
              float_val: [1, 2.5, -3e2, inf, -Infinity, 1.5f, .5]
              double_val: 1e-05
              int64_val: 017
              bool_val: [true, False, t, 0]
              string_val: "\x41\101\u00e9\n"
          } > }
          attr { key: "s" value { s: "" } }
        >
        node { name: "b" }
        node { name: "b" op: "NoOp" }
        versions { producer: 1 } versions { min_consumer: 2 }
    "#;
    let gd = graph_def_from_text(text).unwrap();
    let a = &gd.node[0];
    assert_eq!((a.name.as_str(), a.op.as_str()), ("ab", "Const"));
    assert_eq!(a.input, ["x", "y:1", "^z"]);
    assert_eq!(a.attr.get("dtype").unwrap(), &AttrValue::new(AttrValueKind::Type(1)));
    assert_eq!(a.attr.get("s").unwrap(), &AttrValue::new(AttrValueKind::S(vec![])));
    let Some(AttrValueKind::Tensor(t)) = &a.attr.get("value").unwrap().value else { panic!() };
    assert_eq!(t.float_val, [1.0, 2.5, -300.0, f32::INFINITY, f32::NEG_INFINITY, 1.5, 0.5]);
    assert_eq!(t.double_val, [1e-5]);
    assert_eq!(t.int64_val, [15]);
    assert_eq!(t.bool_val, [true, false, true, false]);
    assert_eq!(t.string_val, [b"AA\xc3\xa9\n".to_vec()]);
    assert_eq!(t.tensor_shape.as_ref().unwrap().dim.iter().map(|d| d.size).collect::<Vec<_>>(), [2, -1]);
    assert_eq!(gd.node.len(), 3);
    let v = gd.versions.as_ref().unwrap();
    assert_eq!((v.producer, v.min_consumer), (1, 2), "a repeated singular message is merged");
    // Written back canonically: attrs sorted by key, defaults left out.
    let out = graph_def_to_text(&gd).unwrap();
    assert!(out.contains("  attr {\n    key: \"dtype\"\n    value {\n      type: DT_FLOAT\n    }\n  }\n  attr {\n    key: \"s\"\n    value {\n      s: \"\"\n    }\n  }\n  attr {\n    key: \"value\""));
    assert!(out.contains("float_val: 1.0\n        float_val: 2.5\n        float_val: -300.0\n        float_val: inf\n        float_val: -inf\n"));
    assert!(out.contains("node {\n  name: \"b\"\n}\nnode {\n  name: \"b\"\n  op: \"NoOp\"\n}\nversions {\n  producer: 1\n  min_consumer: 2\n}\n"));
    assert_eq!(graph_def_from_text(&out).unwrap(), gd);
    assert_eq!(graph_def_from_text("").unwrap(), GraphDef::default());
    assert_eq!(graph_def_to_text(&GraphDef::default()).unwrap(), "");
}

#[test]
fn function_library_round_trips() {
    // FunctionDefs are kept as bytes in the Rust struct; their text form is TensorFlow's.
    let text = "node {\n  name: \"call\"\n  op: \"f\"\n}\nlibrary {\n  function {\n    signature {\n      name: \"f\"\n      \
                input_arg {\n        name: \"x\"\n        type: DT_FLOAT\n      }\n      output_arg {\n        name: \"y\"\n        \
                type: DT_FLOAT\n      }\n    }\n    node_def {\n      name: \"Identity\"\n      op: \"Identity\"\n      input: \"x\"\n      \
                attr {\n        key: \"T\"\n        value {\n          type: DT_FLOAT\n        }\n      }\n      experimental_type {\n        \
                type_id: TFT_PRODUCT\n        args {\n          type_id: TFT_TENSOR\n        }\n      }\n    }\n    ret {\n      key: \"y\"\n      \
                value: \"Identity:output:0\"\n    }\n    attr {\n      key: \"_noinline\"\n      value {\n        b: true\n      }\n    }\n    \
                arg_attr {\n      value {\n        attr {\n          key: \"_user_specified_name\"\n          value {\n            \
                s: \"x\"\n          }\n        }\n      }\n    }\n  }\n  gradient {\n    function_name: \"f\"\n    gradient_func: \"g\"\n  }\n}\n\
                versions {\n  producer: 2474\n}\n";
    let gd = graph_def_from_text(text).unwrap();
    let lib: &FunctionDefLibrary = gd.library.as_ref().unwrap();
    assert_eq!((lib.function.len(), lib.gradient.len()), (1, 1));
    assert_eq!(graph_def_to_text(&gd).unwrap(), text);
    assert_eq!(graph_def_to_text(&GraphDef::from_bytes(&gd.to_bytes()).unwrap()).unwrap(), text);
}

#[test]
fn map_entries_are_sorted_for_text_and_in_tf_order_on_the_wire() {
    let text = "attr {\n  key: \"T\"\n  value {\n    type: DT_FLOAT\n  }\n}\nattr {\n  key: \"Tshape\"\n  value {\n    type: DT_INT32\n  }\n}\n";
    let n = NodeDef::from_text(text).unwrap();
    assert_eq!(n.to_text().unwrap(), text);
    // Binary: "Tshape" before "T" (formats.md §0.4).
    let bytes = n.encode_to_vec();
    let t = bytes.windows(3).position(|w| w == b"\x01T\x12").unwrap();
    let ts = bytes.windows(6).position(|w| w == b"Tshape").unwrap();
    assert!(ts < t);
}

#[test]
fn other_messages_have_a_text_form() {
    let s = TensorShapeProto::from_text("unknown_rank: true").unwrap();
    assert!(s.unknown_rank);
    assert_eq!(s.to_text().unwrap(), "unknown_rank: true\n");
    let a = AttrValue::from_text("list { }").unwrap();
    assert_eq!(a.to_text().unwrap(), "list {\n}\n");
    let a = AttrValue::from_text("i: 0").unwrap();
    assert_eq!(a.to_text().unwrap(), "i: 0\n", "oneof members are written even when zero");
    let a = AttrValue::from_text("list { type: [DT_FLOAT, DT_INT32_REF, 99] }").unwrap();
    assert_eq!(a.to_text().unwrap(), "list {\n  type: DT_FLOAT\n  type: DT_INT32_REF\n  type: 99\n}\n");
}

fn parse_error(text: &str) -> String {
    let e = graph_def_from_text(text).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    e.to_string()
}

#[test]
fn parse_errors_name_line_column_and_expectation() {
    let e = parse_error("node {\n  nam: \"x\"\n}\n");
    assert!(e.contains("line 2, column 3") && e.contains("no field named \"nam\""), "{e}");
    let e = parse_error("node {\n  name: \"x\"\n");
    assert!(e.contains("line 3, column 1") && e.contains("expected") && e.contains("`}`"), "{e}");
    let e = parse_error("node { name \"x\" }");
    assert!(e.contains("line 1, column 13") && e.contains("expected `:`"), "{e}");
    let e = parse_error("versions { producer: 1.5 }");
    assert!(e.contains("column 22") && e.contains("int32"), "{e}");
    let e = parse_error("versions { producer: 2147483648 }");
    assert!(e.contains("int32"), "{e}");
    let e = parse_error("node { attr { key: \"T\" value { type: DT_NOPE } } }");
    assert!(e.contains("DT_NOPE"), "{e}");
    let e = parse_error("node { name: \"abc }");
    assert!(e.contains("not terminated"), "{e}");
    let e = parse_error("node { name: \"\\q\" }");
    assert!(e.contains("escape"), "{e}");
    let e = parse_error("node { name: \"\\377\" }");
    assert!(e.contains("UTF-8"), "{e}");
    let e = parse_error("node { name: [\"a\"] }");
    assert!(e.contains("not repeated"), "{e}");
    let e = parse_error("node { name: \"a\" } }");
    assert!(e.contains("line 1, column 20"), "{e}");
    let e = parse_error("node { ? }");
    assert!(e.contains("unexpected character"), "{e}");
    let deep = "func { attr { key: \"a\" value { ".repeat(40);
    let e = AttrValue::from_text(&deep).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    let e = e.to_string();
    assert!(e.contains("nested deeper"), "{e}");
}

#[test]
fn malformed_text_never_panics() {
    let text = scopes_text();
    let bytes = text.as_bytes();
    // Truncations.
    for cut in (0..bytes.len()).step_by(173) {
        if let Ok(prefix) = std::str::from_utf8(&bytes[..cut]) {
            let _ = graph_def_from_text(prefix);
        }
    }
    // Random mutations of a small graph: replaced, deleted and inserted characters.
    let small = &text[..text.match_indices("node {").nth(12).unwrap().0];
    let alphabet = b"{}<>[]:;,#\"'\\-.0123456789exfinaT_ \n";
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let mut failures = 0;
    for _ in 0..3000 {
        let mut b = small.as_bytes().to_vec();
        for _ in 0..rng.gen_range(1..4) {
            let i = rng.gen_range(0..b.len());
            let c = alphabet[rng.gen_range(0..alphabet.len())];
            match rng.gen_range(0..3) {
                0 => b[i] = c,
                1 => {
                    b.remove(i);
                }
                _ => b.insert(i, c),
            }
        }
        let Ok(s) = String::from_utf8(b) else { continue };
        match graph_def_from_text(&s) {
            Ok(gd) => {
                // Whatever parsed writes back to text that parses to the same graph.
                let again = graph_def_to_text(&gd).unwrap();
                assert_eq!(graph_def_from_text(&again).unwrap(), gd);
            }
            Err(e) => {
                assert_eq!(e.code, Code::InvalidArgument, "{e}");
                assert!(e.to_string().contains("line "), "{e}");
                failures += 1;
            }
        }
    }
    assert!(failures > 100);
    // Garbage bytes as text.
    for _ in 0..300 {
        let n = rng.gen_range(0..200);
        let s: String = (0..n).map(|_| char::from(rng.gen_range(32u8..127))).collect();
        let _ = graph_def_from_text(&s);
        let _ = meta_graph_def_from_text(&s);
    }
}

#[test]
fn unimplemented_parts_are_reported() {
    let m = MetaGraphDef { object_graph_def: Some(vec![]), ..Default::default() };
    assert_eq!(meta_graph_def_to_text(&m).unwrap_err().code, Code::Unimplemented);
    let e = meta_graph_def_from_text("object_graph_def { }").unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    let e = graph_def_from_text("[type.googleapis.com/x] { }").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    // Kept FunctionDef bytes that are not a message.
    let gd = GraphDef {
        library: Some(FunctionDefLibrary { function: vec![vec![0x0a, 0x05]], ..Default::default() }),
        ..Default::default()
    };
    assert_eq!(graph_def_to_text(&gd).unwrap_err().code, Code::DataLoss);
}

#[test]
fn files_in_either_format() {
    let dir = tempfile::tempdir().unwrap();
    let gd = graph_def_from_text(&scopes_text()).unwrap();
    let txt = dir.path().join("graph.pbtxt");
    write_graph_def_text(&gd, &txt).unwrap();
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), scopes_text());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
    assert_eq!(read_graph_def_text(&txt).unwrap(), gd);
    assert_eq!(read_graph_def_any(&txt).unwrap(), gd);
    // By content when the extension says nothing.
    let plain = dir.path().join("graph");
    std::fs::copy(&txt, &plain).unwrap();
    assert_eq!(read_graph_def_any(&plain).unwrap(), gd);
    let frozen = fixtures().join("mlp/frozen.pb");
    let bin = dir.path().join("frozen.bin");
    std::fs::copy(&frozen, &bin).unwrap();
    assert_eq!(read_graph_def_any(&bin).unwrap(), read_graph_def(&frozen).unwrap());
    assert_eq!(read_graph_def_any(&frozen).unwrap(), read_graph_def(&frozen).unwrap());
    // Errors carry the path.
    let missing = dir.path().join("missing.pbtxt");
    assert_eq!(read_graph_def_any(&missing).unwrap_err().code, Code::NotFound);
    std::fs::write(&txt, "node { name: 1 }").unwrap();
    let e = read_graph_def_any(&txt).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.to_string().contains("graph.pbtxt") && e.to_string().contains("line 1, column 14"), "{e}");
}
