//! `Saver::save` writes `PREFIX.meta` beside the checkpoint, as TensorFlow's `Saver.save`
//! (`write_meta_graph=True`): the graph with the saver's `save/` ops and its `SaverDef`, node
//! for node what TensorFlow 2.21 wrote for the seed004 fixture; `write_meta_graph(false)`
//! skips it; a saver adds its ops once and an imported saver reuses the imported ones.

mod common;
use common::{fixtures, manifest, seed004_graph};
use std::collections::BTreeMap;
use std::path::Path;
use tensorgraph::format::checkpoint::meta_graph_path;
use tensorgraph::format::proto::MetaGraphDef;
use tensorgraph::graph::CollectionValue;
use tensorgraph::io::meta_graph::{read_meta_graph, ImportMetaGraphOptions};
use tensorgraph::train::Saver;
use tensorgraph::{Code, Graph, Session};

/// The sorted file names of `dir`.
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// `[name, op]` of every node of the meta graph's graph.
fn node_ops(meta: &MetaGraphDef) -> Vec<[String; 2]> {
    meta.graph_def.as_ref().unwrap().node.iter().map(|n| [n.name.clone(), n.op.clone()]).collect()
}

/// seed004 (v1, v2, v3, add, add_1) with `init`, initialized.
fn seed004_session() -> (Graph, Session) {
    let (g, _, _, _) = seed004_graph();
    let init = g.scope().global_variables_initializer().unwrap();
    assert_eq!(init.name(), "init");
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    (g, sess)
}

/// `add_1:0` of `g` after restoring `prefix` through `saver`.
fn add_1_after_restore(g: &Graph, saver: &Saver, prefix: &Path) -> Vec<f32> {
    let sess = Session::new(g).unwrap();
    saver.restore(&sess, prefix).unwrap();
    sess.fetch(&[], &g.tensor_by_name("add_1:0").unwrap()).unwrap().to_vec::<f32>().unwrap()
}

#[test]
fn save_writes_the_meta_graph_tensorflow_writes() {
    let (g, sess) = seed004_session();
    let tmp = tempfile::tempdir().unwrap();
    let prefix = Saver::new(&g).unwrap().save(&sess, tmp.path().join("model.ckpt")).unwrap();
    assert_eq!(
        files(tmp.path()),
        ["checkpoint", "model.ckpt.data-00000-of-00001", "model.ckpt.index", "model.ckpt.meta"]
    );
    let meta = read_meta_graph(meta_graph_path(&prefix)).unwrap();
    // what TensorFlow 2.21's tf.train.Saver().save wrote for the same graph
    let tf = &manifest("seed004")["meta_graph"];
    let want_ops: Vec<[String; 2]> = serde_json::from_value(tf["graph_ops"].clone()).unwrap();
    assert_eq!(node_ops(&meta), want_ops);
    let def = meta.saver_def.clone().unwrap();
    let tf_def = &tf["saver_def"];
    assert_eq!(def.filename_tensor_name, tf_def["filename_tensor_name"].as_str().unwrap());
    assert_eq!(def.save_tensor_name, tf_def["save_tensor_name"].as_str().unwrap());
    assert_eq!(def.restore_op_name, tf_def["restore_op_name"].as_str().unwrap());
    assert_eq!(def.max_to_keep as i64, tf_def["max_to_keep"].as_i64().unwrap());
    assert_eq!(def.sharded, tf_def["sharded"].as_bool().unwrap());
    assert_eq!(def.keep_checkpoint_every_n_hours as f64, tf_def["keep_checkpoint_every_n_hours"].as_f64().unwrap());
    assert_eq!(def.version as i64, tf_def["version"].as_i64().unwrap());
    let stripped: Vec<String> = meta
        .meta_info_def
        .as_ref()
        .unwrap()
        .stripped_op_list
        .as_ref()
        .unwrap()
        .op
        .iter()
        .map(|o| o.name.clone())
        .collect();
    let want_stripped: Vec<String> = serde_json::from_value(tf["meta_info_def"]["stripped_op_list"].clone()).unwrap();
    assert_eq!(stripped, want_stripped);
    let collections: Vec<&String> = meta.collection_def.keys().collect();
    assert_eq!(collections, ["trainable_variables", "variables"]);
    // the same bytes TensorFlow's own .meta decodes to, as far as the graph goes
    let tf_meta = read_meta_graph(fixtures().join("seed004/model.ckpt.meta")).unwrap();
    assert_eq!(node_ops(&meta), node_ops(&tf_meta));
    assert_eq!(meta.saver_def, tf_meta.saver_def);

    // the second way to load: import the .meta, restore through its saver
    let g2 = Graph::new();
    let saver2 = g2.import_meta_graph(meta_graph_path(&prefix), &ImportMetaGraphOptions::default()).unwrap().unwrap();
    assert_eq!(add_1_after_restore(&g2, &saver2, &prefix), [6.0]);
}

#[test]
fn write_meta_graph_false_writes_no_meta_and_adds_no_ops() {
    let (g, sess) = seed004_session();
    let n = g.num_ops();
    let tmp = tempfile::tempdir().unwrap();
    let saver = Saver::new(&g).unwrap().write_meta_graph(false);
    assert!(!saver.writes_meta_graph());
    saver.save_with_step(&sess, tmp.path().join("model.ckpt"), 3).unwrap();
    assert_eq!(files(tmp.path()), ["checkpoint", "model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index"]);
    assert_eq!(g.num_ops(), n, "no save/ ops were added");
    assert_eq!(g.operation_by_name("save/Const").unwrap_err().code, Code::NotFound);
}

#[test]
fn a_saver_adds_its_save_ops_once_and_each_saver_its_own() {
    let (g, sess) = seed004_session();
    let tmp = tempfile::tempdir().unwrap();
    let saver = Saver::new(&g).unwrap().max_to_keep(3).keep_checkpoint_every_n_hours(2.0);
    for step in 1..=2 {
        saver.save_with_step(&sess, tmp.path().join("model.ckpt"), step).unwrap();
    }
    let n = g.num_ops();
    assert_eq!(n, 29, "seed004's 15 ops and one save/ scope of 14");
    let meta = read_meta_graph(tmp.path().join("model.ckpt-2.meta")).unwrap();
    assert_eq!(node_ops(&meta).len(), 29);
    let def = meta.saver_def.unwrap();
    assert_eq!((def.max_to_keep, def.keep_checkpoint_every_n_hours), (3, 2.0));
    assert_eq!(saver.as_saver_def().unwrap(), def);
    assert_eq!(g.num_ops(), n);
    // a second saver gets its own ops under save_1, as a second tf.train.Saver()
    let other = Saver::new(&g).unwrap();
    let def1 = other.as_saver_def().unwrap();
    assert_eq!(
        [def1.filename_tensor_name, def1.save_tensor_name, def1.restore_op_name],
        ["save_1/Const:0", "save_1/control_dependency:0", "save_1/restore_all"]
    );
    assert_eq!(g.num_ops(), n + 14);
    // an empty saver has no graph to add them to
    let empty = Saver::with_name_map(BTreeMap::new());
    let e = empty.as_saver_def().unwrap_err();
    assert_eq!(e.to_string(), "InvalidArgument: The saver has no variables, so it has no graph to add save ops to");
    let e = empty.export_meta_graph().unwrap_err();
    assert_eq!(e.to_string(), "InvalidArgument: The saver has no variables, so it has no graph to export");
}

#[test]
fn an_imported_saver_saves_through_the_imported_ops() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = read_meta_graph(fixtures().join("seed004/model.ckpt.meta")).unwrap();
    for scope in ["", "imp"] {
        let g = Graph::new();
        let opts = ImportMetaGraphOptions { import_scope: scope.to_string(), ..Default::default() };
        let saver = g.import_meta_graph(fixtures().join("seed004/model.ckpt.meta"), &opts).unwrap().unwrap();
        let n = g.num_ops();
        let sess = Session::new(&g).unwrap();
        saver.restore(&sess, fixtures().join("seed004/model.ckpt")).unwrap();
        let dir = tmp.path().join(format!("scope_{scope}"));
        std::fs::create_dir(&dir).unwrap();
        let prefix = saver.save(&sess, dir.join("model.ckpt")).unwrap();
        assert_eq!(g.num_ops(), n, "scope '{scope}': no save_1 ops");
        let meta = read_meta_graph(meta_graph_path(&prefix)).unwrap();
        let def = meta.saver_def.clone().unwrap();
        let p = if scope.is_empty() { String::new() } else { format!("{scope}/") };
        assert_eq!(def.restore_op_name, format!("{p}save/restore_all"));
        assert_eq!(def.filename_tensor_name, format!("{p}save/Const:0"));
        if scope.is_empty() {
            assert_eq!(node_ops(&meta), node_ops(&fixture));
            assert_eq!(meta.saver_def, fixture.saver_def);
        }
        // and the .meta written loads back, restoring the values saved
        let g2 = Graph::new();
        let saver2 = g2.import_meta_graph(meta_graph_path(&prefix), &Default::default()).unwrap().unwrap();
        let sess2 = Session::new(&g2).unwrap();
        saver2.restore(&sess2, &prefix).unwrap();
        let add_1 = g2.tensor_by_name(&format!("{p}add_1:0")).unwrap();
        assert_eq!(sess2.fetch(&[], &add_1).unwrap().to_vec::<f32>().unwrap(), [6.0]);
    }
}

#[test]
fn a_graph_that_cannot_be_exported_fails_before_any_file_is_written() {
    let (g, sess) = seed004_session();
    g.add_to_collection("mixed", CollectionValue::Int(1)).unwrap();
    g.add_to_collection("mixed", CollectionValue::Float(2.0)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let e = Saver::new(&g).unwrap().save(&sess, tmp.path().join("model.ckpt")).unwrap_err();
    assert_eq!(e.to_string(), "InvalidArgument: collection 'mixed' mixes kinds of items and cannot be exported");
    assert!(files(tmp.path()).is_empty(), "{:?}", files(tmp.path()));
    // without the .meta the same save succeeds
    Saver::new(&g).unwrap().write_meta_graph(false).save(&sess, tmp.path().join("model.ckpt")).unwrap();
}
