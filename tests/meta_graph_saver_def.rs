//! A meta graph whose `SaverDef` restores variables that no collection lists (a TensorFlow
//! graph's imported resource variables, what `tf.train.Saver({"w": read})` of an imported
//! graph writes): `import_meta_graph` builds its saver from the `SaverDef`, as TensorFlow's
//! `import_meta_graph` does (`Saver(saver_def=...)`), and that saver restores and saves by
//! running the SaverDef's ops.

mod common;
use common::{fixtures, flat_f64, manifest, repo_root};
use tensorgraph::format::checkpoint::{CheckpointReader, CheckpointWriter};
use tensorgraph::format::proto::MetaGraphDef;
use tensorgraph::io::meta_graph::{read_meta_graph, ImportMetaGraphOptions};
use tensorgraph::train::Saver;
use tensorgraph::{Code, Graph, Session, Tensor};

/// The fixture set's `model.ckpt.meta` with every collection removed.
fn without_collections(set: &str) -> MetaGraphDef {
    let mut meta = read_meta_graph(fixtures().join(set).join("model.ckpt.meta")).unwrap();
    assert!(meta.collection_def.contains_key("variables"), "{set} lists its variables");
    meta.collection_def.clear();
    meta
}

/// Imports `meta` under `scope`; the saver it returns runs the SaverDef's ops.
fn import(meta: &MetaGraphDef, scope: &str) -> (Graph, Saver) {
    let g = Graph::new();
    let options = ImportMetaGraphOptions { import_scope: scope.to_string(), ..Default::default() };
    let saver = g.import_meta_graph_def(meta, &options, "test").unwrap().expect("a saver from the SaverDef");
    assert!(g.global_variables().is_empty());
    assert!(saver.runs_saver_def_ops());
    assert!(saver.variables().is_empty());
    (g, saver)
}

fn fetch(sess: &Session, g: &Graph, name: &str) -> Vec<f64> {
    sess.fetch(&[], &g.tensor_by_name(name).unwrap()).unwrap().to_f64_vec().unwrap()
}

/// The manifest's `expected_fetches[0]` and variable values, checked in `sess`.
fn check_values(set: &str, sess: &Session, g: &Graph, scope: &str) {
    let m = manifest(set);
    let name = |n: &str| if scope.is_empty() { n.to_string() } else { format!("{scope}/{n}") };
    for (tensor, want) in m["expected_fetches"][0]["fetches"].as_object().unwrap() {
        assert_eq!(fetch(sess, g, &name(tensor)), flat_f64(want), "{set} {tensor}");
    }
    for v in m["variables"].as_array().unwrap() {
        let read = if m["variable_op_type"] == "VarHandleOp" { "Read/ReadVariableOp:0" } else { "read:0" };
        let tensor = format!("{}/{read}", v["name"].as_str().unwrap());
        assert_eq!(fetch(sess, g, &name(&tensor)), flat_f64(&v["value"]), "{set} {tensor}");
    }
}

#[test]
fn a_saver_def_without_variable_collections_restores_resource_and_reference_variables() {
    for set in ["resource_vars", "seed004"] {
        for scope in ["", "imported"] {
            let (g, saver) = import(&without_collections(set), scope);
            let mut names = saver.checkpoint_names();
            names.sort();
            assert_eq!(names, ["v1", "v2", "v3"], "{set}");
            let sess = Session::new(&g).unwrap();
            saver.restore(&sess, fixtures().join(set).join("model.ckpt")).unwrap();
            check_values(set, &sess, &g, scope);
            // the checkpoint's directory works too (its `checkpoint` state file)
            let sess = Session::new(&g).unwrap();
            saver.restore(&sess, fixtures().join(set)).unwrap();
            check_values(set, &sess, &g, scope);
        }
    }
}

#[test]
fn tensorflows_meta_graph_of_an_imported_resource_variable_restores() {
    // scripts/gen_freeze_v26_cli.py: TF 2.21 imported a producer-26 GraphDef with a resource
    // variable w (in no collection), set w = [[1.5], [-2]] and saved with
    // Saver({"w": w/Read/ReadVariableOp}); TF computes out = [[-2.5]] for x = [[1, 2]]
    let dir = repo_root().join("tests/data/offpath/freeze_v26_ckpt");
    let g = Graph::new();
    let saver = g.import_meta_graph(dir.join("model.ckpt.meta"), &Default::default()).unwrap().unwrap();
    assert!(saver.runs_saver_def_ops());
    assert_eq!(saver.checkpoint_names(), ["w"]);
    assert_eq!(g.versions().producer, 26);
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, dir.join("model.ckpt")).unwrap();
    let x = g.tensor_by_name("x:0").unwrap();
    let out = sess.fetch(&[(&x, Tensor::new(&[1, 2], vec![1f32, 2.]).unwrap())], &g.tensor_by_name("out:0").unwrap());
    assert_eq!(out.unwrap().to_vec::<f32>().unwrap(), vec![-2.5]);
}

#[test]
fn a_saver_def_saver_lists_every_missing_name_before_running() {
    let (g, saver) = import(&without_collections("resource_vars"), "");
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path().join("partial");
    let mut w = CheckpointWriter::new(&prefix).unwrap();
    w.add("v2", &Tensor::new(&[1], vec![20f32]).unwrap()).unwrap();
    w.add("other", &Tensor::new(&[1], vec![0f32]).unwrap()).unwrap();
    w.finish().unwrap();
    let sess = Session::new(&g).unwrap();
    let e = saver.restore(&sess, &prefix).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!(
            "Restoring from checkpoint {} failed.\n2 variable(s) not found in checkpoint: v1, v3\nThe checkpoint has 1 name(s) the graph does not: other\nThe graph's variable names differ from the checkpoint's. Build the same model (same scopes and names) as the one saved, or map checkpoint names to variables with Saver::with_name_map; CheckpointReader::open(prefix)?.list() lists the checkpoint's names.",
            prefix.display()
        )
    );
    // nothing was assigned
    let v2 = g.tensor_by_name("v2/Read/ReadVariableOp:0").unwrap();
    assert_eq!(sess.fetch(&[], &v2).unwrap_err().code, Code::FailedPrecondition);
}

#[test]
fn a_saver_def_saver_saves_through_the_save_op_and_writes_the_meta_graph() {
    let (g, saver) = import(&without_collections("resource_vars"), "");
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, fixtures().join("resource_vars/model.ckpt")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let prefix = saver.save(&sess, tmp.path().join("again.ckpt")).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    let names: Vec<String> = reader.list().into_iter().map(|(n, _, _)| n).collect();
    assert_eq!(names, ["v1", "v2", "v3"]);
    assert_eq!(reader.read("v3").unwrap().to_vec::<f32>().unwrap(), vec![3.0]);
    assert!(tmp.path().join("checkpoint").is_file());
    // the .meta written beside it imports and restores again
    let g2 = Graph::new();
    let saver2 = g2.import_meta_graph(tmp.path().join("again.ckpt.meta"), &Default::default()).unwrap().unwrap();
    let sess2 = Session::new(&g2).unwrap();
    saver2.restore(&sess2, &prefix).unwrap();
    check_values("resource_vars", &sess2, &g2, "");
}

#[test]
fn from_saver_def_names_what_the_graph_lacks() {
    let g = Graph::new();
    let meta = without_collections("resource_vars");
    let mut def = meta.saver_def.clone().unwrap();
    def.restore_op_name = "save/no_such_op".into();
    let e = Saver::from_saver_def(&g, def.clone()).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.starts_with("SaverDef filename_tensor_name: "), "{}", e.message);
    def.restore_op_name.clear();
    let e = Saver::from_saver_def(&g, def).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            Code::InvalidArgument,
            "the SaverDef has no restore_op_name, so it cannot restore; give a saver the variables instead (Saver::with_var_list)"
        )
    );
}
