//! TensorFlow 2.21's GraphDef and MetaGraphDef files decode and re-encode unchanged, their
//! nodes match the fixtures' manifests, and a graph built with tensorgraph's ops exports
//! the NodeDefs TensorFlow wrote for the same graph.

mod common;
use common::{fixtures, manifest};

use prost::Message;
use std::path::PathBuf;
use tensorgraph::format::proto::{
    AttrValue, AttrValueKind, CollectionKind, GraphDef, MetaGraphDef, NodeDef, TensorProto, VariableDef,
};
use tensorgraph::{ops, Graph, Tensor};

/// A manifest list of `[name, op type]` pairs.
fn pairs(v: &serde_json::Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect()
}

fn node_pairs(gd: &GraphDef) -> Vec<(String, String)> {
    gd.node.iter().map(|n| (n.name.clone(), n.op.clone())).collect()
}

const FROZEN: [&str; 4] = ["seed004", "mlp", "cnn_frozen", "resource_vars"];
const METAS: [&str; 7] = [
    "seed004/model.ckpt.meta",
    "mlp/model.ckpt.meta",
    "resource_vars/model.ckpt.meta",
    "dtypes/model.ckpt.meta",
    "weight_def_adam/full.ckpt.meta",
    "weight_def_adam/model_only.ckpt.meta",
    "scopes/model.ckpt.meta",
];

fn metas() -> Vec<PathBuf> {
    METAS.iter().map(|m| fixtures().join(m)).filter(|p| p.exists()).collect()
}

#[test]
fn meta_files_reencode_byte_identically() {
    let files = metas();
    assert!(files.len() >= 6, "{files:?}");
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let meta = MetaGraphDef::from_bytes(&bytes).unwrap();
        let again = meta.to_bytes();
        assert_eq!(MetaGraphDef::from_bytes(&again).unwrap(), meta, "{}", path.display());
        assert!(again == bytes, "{}: re-encoding differs ({} vs {} bytes)", path.display(), again.len(), bytes.len());
        // the graph inside also re-encodes to the same bytes
        let gd = meta.graph_def.as_ref().unwrap();
        assert_eq!(GraphDef::decode(gd.to_bytes().as_slice()).unwrap(), *gd);
    }
}

#[test]
fn frozen_graphs_reencode_to_the_same_message() {
    for f in FROZEN {
        let bytes = std::fs::read(fixtures().join(f).join("frozen.pb")).unwrap();
        let gd = GraphDef::from_bytes(&bytes).unwrap();
        let again = gd.to_bytes();
        assert_eq!(GraphDef::from_bytes(&again).unwrap(), gd, "{f}");
        // single-attr-key orders aside, TF's bytes come back exactly
        assert!(again == bytes, "{f}: re-encoding differs ({} vs {} bytes)", again.len(), bytes.len());
    }
}

#[test]
fn frozen_nodes_match_manifests() {
    for f in FROZEN {
        let gd = tensorgraph::io::graph_def::read_graph_def(fixtures().join(f).join("frozen.pb")).unwrap();
        let m = manifest(f);
        assert_eq!(node_pairs(&gd), pairs(&m["frozen_graph"]["ops"]), "{f}");
        let v = gd.versions.as_ref().unwrap();
        assert_eq!((v.producer, v.min_consumer), (2474, 0), "{f}");
    }
    // frozen variables are Consts holding the checkpoint values
    let gd = tensorgraph::io::graph_def::read_graph_def(fixtures().join("seed004/frozen.pb")).unwrap();
    for (name, v) in [("v1", 1.0f32), ("v2", 2.0), ("v3", 3.0)] {
        let n = gd.node_named(name).unwrap();
        let Some(AttrValueKind::Tensor(t)) = &n.attr.get("value").unwrap().value else {
            panic!("{name} has no tensor value")
        };
        assert_eq!(t.to_tensor().unwrap(), Tensor::new(&[1], vec![v]).unwrap());
    }
}

#[test]
fn meta_graph_nodes_collections_and_op_lists_match_manifests() {
    for (f, key) in [("seed004", "built_graph_ops"), ("resource_vars", "built_graph_ops"), ("mlp", "graph_ops")] {
        let meta =
            MetaGraphDef::from_bytes(&std::fs::read(fixtures().join(f).join("model.ckpt.meta")).unwrap()).unwrap();
        let m = manifest(f);
        let gd = meta.graph_def.as_ref().unwrap();
        assert_eq!(node_pairs(gd), pairs(&m[key]), "{f}");
        let info = meta.meta_info_def.as_ref().unwrap();
        assert_eq!(info.tensorflow_version, "2.21.0");
        let ops: Vec<&str> = info.stripped_op_list.as_ref().unwrap().op.iter().map(|o| o.name.as_str()).collect();
        let want: Vec<&str> = m["meta_graph"]["meta_info_def"]["stripped_op_list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(ops, want, "{f}");
        let saver = meta.saver_def.as_ref().unwrap();
        assert_eq!(saver.filename_tensor_name, "save/Const:0");
        assert_eq!(saver.restore_op_name, "save/restore_all");
        assert_eq!(saver.version, tensorgraph::format::proto::SAVER_DEF_V2);
    }
    let meta = MetaGraphDef::from_bytes(&std::fs::read(fixtures().join("seed004/model.ckpt.meta")).unwrap()).unwrap();
    let Some(CollectionKind::BytesList(vars)) = &meta.collection_def["variables"].kind else { panic!() };
    let defs: Vec<VariableDef> = vars.value.iter().map(|b| VariableDef::decode(b.as_slice()).unwrap()).collect();
    let m = manifest("seed004");
    for (d, want) in defs.iter().zip(m["meta_graph"]["variable_defs"].as_array().unwrap()) {
        assert_eq!(d.variable_name, want["variable_name"].as_str().unwrap());
        assert_eq!(d.initial_value_name, want["initial_value_name"].as_str().unwrap());
        assert_eq!(d.initializer_name, want["initializer_name"].as_str().unwrap());
        assert_eq!(d.snapshot_name, want["snapshot_name"].as_str().unwrap());
        assert_eq!(d.trainable, want["trainable"].as_bool().unwrap());
    }
    // VariableV2's stripped OpDef: a ref output typed by `dtype`, stateful
    let vv2 = meta.meta_info_def.unwrap().stripped_op_list.unwrap().op.into_iter().find(|o| o.name == "VariableV2");
    let vv2 = vv2.unwrap();
    assert!(vv2.is_stateful && vv2.output_arg[0].is_ref && vv2.output_arg[0].type_attr == "dtype");
}

/// The seed004 graph as TensorFlow's test built it, with tensorgraph's ops.
fn seed_graph() -> Graph {
    let g = Graph::new();
    let s = g.scope();
    let mut vars = Vec::new();
    for v in [1.0f32, 2.0, 3.0] {
        let c = ops::constant(&s, Tensor::new(&[1], vec![v]).unwrap()).unwrap();
        vars.push(s.variable(&format!("v{}", v as i32), &c).unwrap());
    }
    let add = ops::add(&s, &vars[0], &vars[1]).unwrap();
    ops::add(&s, &add, &vars[2]).unwrap();
    g
}

/// Attrs TensorFlow's Python layer adds that tensorgraph does not model.
const PYTHON_ONLY_ATTRS: [&str; 1] = ["_has_manual_control_dependencies"];

#[test]
fn exported_seed_graph_matches_tensorflows_node_defs() {
    let g = seed_graph();
    let bytes = g.to_graph_def_with_shapes().to_bytes();
    let ours = GraphDef::from_bytes(&bytes).unwrap();
    let meta = MetaGraphDef::from_bytes(&std::fs::read(fixtures().join("seed004/model.ckpt.meta")).unwrap()).unwrap();
    let tf = meta.graph_def.unwrap();
    assert_eq!(ours.versions.as_ref().unwrap().producer, 2474);
    assert_eq!(ours.node.len(), 14);
    let mut diffs = Vec::new();
    for n in &ours.node {
        let mut want: NodeDef = tf.node_named(&n.name).unwrap_or_else(|| panic!("TF has no node {}", n.name)).clone();
        for a in PYTHON_ONLY_ATTRS {
            want.attr.remove(a);
        }
        if *n != want {
            diffs.push(format!("ours: {n:?}\n  TF: {want:?}"));
        }
    }
    assert!(diffs.is_empty(), "{} NodeDef(s) differ:\n{}", diffs.len(), diffs.join("\n"));
    // and to the byte, once the Python-only attrs are gone
    let tf_nodes: Vec<Vec<u8>> = ours
        .node
        .iter()
        .map(|n| {
            let mut w = tf.node_named(&n.name).unwrap().clone();
            for a in PYTHON_ONLY_ATTRS {
                w.attr.remove(a);
            }
            w.encode_to_vec()
        })
        .collect();
    let our_nodes: Vec<Vec<u8>> = ours.node.iter().map(|n| n.encode_to_vec()).collect();
    assert_eq!(our_nodes, tf_nodes);
}

#[test]
fn export_without_shapes_writes_inputs_and_attrs() {
    let g = seed_graph();
    let gd = g.to_graph_def();
    let add_1 = gd.node_named("add_1").unwrap();
    assert_eq!(add_1.op, "AddV2");
    assert_eq!(add_1.input, ["add", "v3/read"]);
    assert!(!add_1.attr.contains_key("_output_shapes"));
    let c = gd.node_named("Const").unwrap();
    let Some(AttrValueKind::Tensor(t)) = &c.attr.get("value").unwrap().value else { panic!() };
    assert_eq!(t.float_val, [1.0]);
    // control inputs come last, written ^name
    let s = g.scope();
    let init = s.global_variables_initializer().unwrap();
    let gd = g.to_graph_def();
    let n = gd.node_named(&init.name()).unwrap();
    assert_eq!(n.input, ["^v1/Assign", "^v2/Assign", "^v3/Assign"]);
    let _ = (AttrValue::default(), TensorProto::default());
}
