//! Meta graphs: TensorFlow's `.meta` files import with their collections and saver, the
//! imported variables join the variable store, a TensorFlow train op keeps training, and
//! exported meta graphs import back.

mod common;
use common::{assert_close, f32_tensor, fixtures, flat_f64, manifest};
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::{ops, Code, DType, Graph, Reuse, Session, Tensor};

fn fetch(sess: &Session, g: &Graph, name: &str) -> Vec<f64> {
    sess.fetch(&[], &g.tensor_by_name(name).unwrap()).unwrap().to_f64_vec().unwrap()
}

#[test]
fn seed004_meta_imports_restores_and_keeps_get_variable_honest() {
    let g = Graph::new();
    let saver = g.import_meta_graph(fixtures().join("seed004/model.ckpt.meta"), &Default::default()).unwrap().unwrap();
    let names: Vec<String> = g.global_variables().iter().map(|v| v.op_name()).collect();
    assert_eq!(names, ["v1", "v2", "v3"]);
    assert_eq!(g.trainable_variables().len(), 3);
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, fixtures().join("seed004/model.ckpt")).unwrap();
    assert_eq!(fetch(&sess, &g, "add:0"), vec![3.0]);
    assert_eq!(fetch(&sess, &g, "add_1:0"), vec![6.0]);

    // the fix: get_variable finds the imported v1 instead of silently making v1_1
    let root = g.scope();
    let v1 = root.variable_scope("", Reuse::Yes, |s| s.get_variable("v1", [1], DType::Float, None)).unwrap();
    assert_eq!(v1.name(), "v1:0");
    assert_eq!(sess.fetch(&[], &v1).unwrap().to_vec::<f32>().unwrap(), vec![1.0]);
    let auto = root.variable_scope("", Reuse::Auto, |s| s.get_variable("v1", [1], DType::Float, None)).unwrap();
    assert_eq!(auto, v1);
    let e = root.get_variable("v1", [1], DType::Float, None).unwrap_err();
    assert_eq!(e.code, Code::AlreadyExists);
    assert!(e.message.starts_with("Variable v1 already exists, disallowed."), "{e}");
    assert!(e.message.contains("seed004/model.ckpt.meta"), "says where it came from: {e}");
    let e = root.variable_scope("", Reuse::Yes, |s| s.get_variable("v1", [2], DType::Float, None)).unwrap_err();
    assert!(e.message.contains("Trying to share variable v1, but specified shape (2,) and found shape (1,)."), "{e}");
    // only an explicit new Variable named v1 becomes v1_1
    let c = ops::constant(&root, Tensor::new(&[1], vec![9f32]).unwrap()).unwrap();
    assert_eq!(root.variable("v1", &c).unwrap().name(), "v1_1:0");
}

#[test]
fn tensorflow_saver_ops_run_like_save_and_restore() {
    let g = Graph::new();
    g.import_meta_graph(fixtures().join("seed004/model.ckpt.meta"), &Default::default()).unwrap();
    let sess = Session::new(&g).unwrap();
    let filename = g.tensor_by_name("save/Const:0").unwrap();
    let restore_all = g.operation_by_name("save/restore_all").unwrap();
    let prefix =
        |p: &std::path::Path| Tensor::strings(&[], vec![p.to_string_lossy().into_owned().into_bytes()]).unwrap();
    sess.run(&[(&filename, prefix(&fixtures().join("seed004/model.ckpt")))], &[], &[&restore_all]).unwrap();
    assert_eq!(fetch(&sess, &g, "add_1:0"), vec![6.0]);
    // save/control_dependency writes a checkpoint TensorFlow's way
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("again.ckpt");
    let save = g.tensor_by_name("save/control_dependency:0").unwrap();
    sess.run(&[(&filename, prefix(&out))], &[&save], &[]).unwrap();
    for suffix in [".index", ".data-00000-of-00001"] {
        let ours = std::fs::read(format!("{}{suffix}", out.display())).unwrap();
        let tf = std::fs::read(fixtures().join(format!("seed004/model.ckpt{suffix}"))).unwrap();
        assert_eq!(ours, tf, "{suffix}");
    }
}

#[test]
fn tensorflow_train_op_keeps_training_after_import() {
    let m = manifest("weight_def_adam");
    let g = Graph::new();
    let saver =
        g.import_meta_graph(fixtures().join("weight_def_adam/full.ckpt.meta"), &Default::default()).unwrap().unwrap();
    assert_eq!(saver.variables().len(), 8);
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, fixtures().join("weight_def_adam/full.ckpt")).unwrap();
    // tf.get_collection('train_op')[0]
    let train = g.get_collection("train_op")[0].as_operation().cloned().expect("train_op holds an operation");
    assert_eq!(train.name(), "train");
    let x = g.tensor_by_name("x:0").unwrap();
    let y = g.tensor_by_name("y:0").unwrap();
    let xs = f32_tensor(&m["training_data"]["X"]);
    let ys = f32_tensor(&m["training_data"]["Y_one_hot"]);
    sess.run(&[(&x, xs), (&y, ys)], &[], &[&train]).unwrap();
    let after = &m["restore_observations"]["one_more_step_after_restoring_full"];
    for name in ["weight_def/weights", "weight_def/biases"] {
        assert_close(name, &fetch(&sess, &g, &format!("{name}:0")), &flat_f64(&after[name]["values"]));
    }
    // the model_only meta graph's saver (save_1) restores only the model variables
    let g2 = Graph::new();
    let saver = g2
        .import_meta_graph(fixtures().join("weight_def_adam/model_only.ckpt.meta"), &Default::default())
        .unwrap()
        .unwrap();
    let names: Vec<&String> = saver.variables().keys().collect();
    assert_eq!(names, ["weight_def/biases", "weight_def/weights"]);
    let sess2 = Session::new(&g2).unwrap();
    saver.restore(&sess2, fixtures().join("weight_def_adam/model_only.ckpt")).unwrap();
    let probs = sess2
        .fetch(
            &[(&g2.tensor_by_name("x:0").unwrap(), f32_tensor(&m["forecast"]["feeds"]["x:0"]))],
            &g2.tensor_by_name("probs:0").unwrap(),
        )
        .unwrap();
    assert_close("probs", &probs.to_f64_vec().unwrap(), &flat_f64(&m["forecast"]["expected"]["probs:0"]["values"]));
}

#[test]
fn import_scope_prefixes_names_and_collections() {
    let g = Graph::new();
    let opts = ImportMetaGraphOptions { import_scope: "restored".into(), clear_devices: true };
    let saver = g.import_meta_graph(fixtures().join("seed004/model.ckpt.meta"), &opts).unwrap().unwrap();
    let names: Vec<String> = g.global_variables().iter().map(|v| v.op_name()).collect();
    assert_eq!(names, ["restored/v1", "restored/v2", "restored/v3"]);
    let v =
        g.scope().variable_scope("restored", Reuse::Yes, |s| s.get_variable("v2", [1], DType::Float, None)).unwrap();
    assert_eq!(v.name(), "restored/v2:0");
    // the checkpoint's names are the unscoped ones the SaverDef restores
    assert!(saver.variables().contains_key("v1"), "{:?}", saver.variables().keys());
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, fixtures().join("seed004/model.ckpt")).unwrap();
    assert_eq!(fetch(&sess, &g, "restored/add_1:0"), vec![6.0]);
}

#[test]
fn exported_meta_graph_imports_back_with_saver_and_train_op() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(2)]).unwrap();
    let w = s
        .variable_scope("lin", Reuse::No, |s| s.get_variable("w", [2, 1], DType::Float, tensorgraph::init::ones()))
        .unwrap();
    let y = ops::matmul(&s.named("y"), &x, &w).unwrap();
    let loss = ops::reduce_mean(&s.named("loss"), &ops::square(&s, &y).unwrap(), None, false).unwrap();
    use tensorgraph::train::Optimizer;
    tensorgraph::train::AdamOptimizer::new(0.1).minimize_with(&loss, None, None, Some("train")).unwrap();
    let init = s.global_variables_initializer().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    // one call writes the checkpoint and its .meta (with the save/ ops and SaverDef)
    let prefix = tensorgraph::train::Saver::new(&g).unwrap().save(&sess, dir.path().join("model.ckpt")).unwrap();
    assert_eq!(g.operation_by_name("save/restore_all").unwrap().op_type(), "NoOp");
    let xs = Tensor::new(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap();
    let want = sess.fetch(&[(&x, xs.clone())], &y).unwrap();

    let g2 = Graph::new();
    let saver = g2.import_meta_graph(dir.path().join("model.ckpt.meta"), &Default::default()).unwrap().unwrap();
    assert_eq!(saver.variables().len(), 5, "w, beta1_power, beta2_power, w/Adam, w/Adam_1");
    let sess2 = Session::new(&g2).unwrap();
    saver.restore(&sess2, &prefix).unwrap();
    let (x2, y2) = (g2.tensor_by_name("x:0").unwrap(), g2.tensor_by_name("y:0").unwrap());
    assert_eq!(sess2.fetch(&[(&x2, xs.clone())], &y2).unwrap(), want);
    let train = g2.operation_by_name("train").unwrap();
    assert_eq!(g2.operations_in("train_op"), vec![train.clone()]);
    sess2.run(&[(&x2, xs.clone())], &[], &[&train]).unwrap();
    sess.run(&[(&x, xs.clone())], &[], &[&g.operation_by_name("train").unwrap()]).unwrap();
    assert_eq!(sess2.fetch(&[(&x2, xs.clone())], &y2).unwrap(), sess.fetch(&[(&x, xs)], &y).unwrap());
}

#[test]
fn a_failed_meta_graph_import_leaves_the_graph_unchanged() {
    use tensorgraph::format::proto::{CollectionDef, CollectionKind, NodeList};
    use tensorgraph::io::meta_graph::read_meta_graph;
    let meta = read_meta_graph(fixtures().join("seed004/model.ckpt.meta")).unwrap();
    let node_list = |names: &[&str]| CollectionDef {
        kind: Some(CollectionKind::NodeList(NodeList { value: names.iter().map(|s| s.to_string()).collect() })),
    };
    let g = Graph::new();
    let x = ops::placeholder(&g.scope().named("x"), DType::Float, [Some(1)]).unwrap();
    for (key, bad, code) in [("my_ops", "nonexistent_op", Code::NotFound), ("train_op", "add_1:7", Code::OutOfRange)] {
        let mut m = meta.clone();
        m.collection_def.insert(key.to_string(), node_list(&[bad]));
        let e = g.import_meta_graph_def(&m, &Default::default(), "test").unwrap_err();
        assert_eq!(e.code, code, "{e}");
        assert!(e.message.contains(bad), "{e}");
        assert_eq!(g.num_ops(), 1, "{key}: the imported ops are taken back");
        assert!(g.collection_names().is_empty(), "{key}: no collection is added");
        assert_eq!(g.operation_by_name("add_1").unwrap_err().code, Code::NotFound);
    }
    // names are free again: the good meta graph imports with its names, next to `x`
    let saver = g.import_meta_graph_def(&meta, &Default::default(), "test").unwrap().unwrap();
    assert_eq!(g.global_variables().iter().map(|v| v.name()).collect::<Vec<_>>(), ["v1:0", "v2:0", "v3:0"]);
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, fixtures().join("seed004/model.ckpt")).unwrap();
    assert_eq!(fetch(&sess, &g, "add_1:0"), vec![6.0]);
    assert_eq!(x.name(), "x:0");
    // importing it again clashes, naming import_scope in the hint, and changes nothing
    let n = g.num_ops();
    let e = g.import_meta_graph_def(&meta, &Default::default(), "test").unwrap_err();
    assert!(e.message.contains("already exists") && e.message.contains("import_scope"), "{e}");
    assert_eq!(g.num_ops(), n);
    assert_eq!(g.global_variables().len(), 3);
}
