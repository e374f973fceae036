//! SavedModels: one TensorFlow 2.21's `tf.compat.v1.saved_model.Builder` wrote
//! (`tests/data/saved_model`, made by `scripts/gen_saved_model.py`) loads and runs here to
//! TensorFlow's values; one written here by `SavedModelBuilder` loads back; the errors name
//! what is wrong and what to do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tensorgraph::io::saved_model::{predict_signature_def, read_saved_model, SavedModelBuilder, SavedModelBundle};
use tensorgraph::{init, ops, Code, DType, Graph, Session, Tensor};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/saved_model")
}

fn tf_model() -> PathBuf {
    data().join("tf1_dense")
}

fn npy(name: &str) -> Tensor {
    Tensor::read_npy(data().join(name)).unwrap()
}

fn assert_close(got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape());
    let (g, w) = (got.as_slice::<f32>().unwrap(), want.as_slice::<f32>().unwrap());
    for (a, b) in g.iter().zip(w) {
        assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "got {g:?}, want {w:?}");
    }
}

/// Copies directory `from` into `to` recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn tf_written_saved_model_runs_to_tensorflows_values() {
    let model = SavedModelBundle::load(tf_model(), &["serve"]).unwrap();
    assert_eq!(model.tags(), vec!["serve".to_string()]);
    // every op of the graph is implemented, the sharded saver's save half
    // (StaticRegexFullMatch, StringJoin, ShardedFilename, MergeV2Checkpoints) included
    assert!(model.left_out().is_empty(), "{:?}", model.left_out());
    let out = model.run_signature("serving_default", &[("x", npy("x.npy"))], &[]).unwrap();
    let keys: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["probs", "y"]);
    assert_close(&out[0].1, &npy("probs.npy"));
    // y = (x W + b) * scale: scale is 0.5 only when the main op ran after the restore
    assert_close(&out[1].1, &npy("y.npy"));
    let y = model.run_signature("serving_default", &[("x", npy("x.npy"))], &["y"]).unwrap();
    assert_eq!(y.len(), 1);
    assert_close(&y[0].1, &npy("y.npy"));
}

#[test]
fn the_main_op_is_fed_the_asset_paths() {
    let model = SavedModelBundle::load(tf_model(), &["serve"]).unwrap();
    let out = model.run_signature("vocab", &[], &["path"]).unwrap();
    let tensorgraph::tensor::Storage::Str(v) = out[0].1.storage() else { panic!("not a string: {:?}", out[0].1) };
    let path = String::from_utf8(v[0].clone()).unwrap();
    assert_eq!(Path::new(&path), tf_model().join("assets").join("vocab.txt"));
    assert_eq!(std::fs::read_to_string(path).unwrap(), "a\nb\nc\n");
}

#[test]
fn signatures_are_listed_as_tensorflow_wrote_them() {
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data().join("expected.json")).unwrap()).unwrap();
    let model = SavedModelBundle::load(tf_model(), &["serve"]).unwrap();
    let sigs = model.signatures();
    let want = expected["signatures"].as_object().unwrap();
    assert_eq!(
        sigs.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(),
        want.keys().map(String::as_str).collect::<Vec<_>>()
    );
    for sig in &sigs {
        let w = &want[&sig.key];
        assert_eq!(sig.method_name, w["method_name"].as_str().unwrap());
        for (specs, side) in [(&sig.inputs, "inputs"), (&sig.outputs, "outputs")] {
            let ws = w[side].as_object().unwrap();
            assert_eq!(specs.len(), ws.len(), "{} {side}", sig.key);
            for s in specs {
                let e = &ws[&s.key];
                assert_eq!(s.name, e["name"].as_str().unwrap());
                assert_eq!(s.dtype.unwrap().name(), e["dtype"].as_str().unwrap());
                let dims: Vec<i64> = s.shape.dims().unwrap().iter().map(|d| d.map_or(-1, |v| v as i64)).collect();
                let want_dims: Vec<i64> = e["shape"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
                assert_eq!(dims, want_dims);
            }
        }
    }
    let serving = model.signature("serving_default").unwrap();
    assert_eq!(
        serving.to_string(),
        "signature 'serving_default' (tensorflow/serving/predict)\n  input  x: x:0 DT_FLOAT (-1, 3)\n  output probs: probs:0 DT_FLOAT (-1, 2)\n  output y: y:0 DT_FLOAT (-1, 2)"
    );
}

#[test]
fn errors_name_the_tags_keys_and_files() {
    let dir = tf_model();
    let e = SavedModelBundle::load(&dir, &["serve", "gpu"]).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(
        e.message
            .starts_with("MetaGraphDef associated with tags {\"gpu\", \"serve\"} could not be found in SavedModel"),
        "{e}"
    );
    assert!(e.message.contains("available tag sets: {\"serve\"}"), "{e}");

    let model = SavedModelBundle::load(&dir, &["serve"]).unwrap();
    let e = model.run_signature("predict", &[], &[]).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.ends_with("has no signature 'predict'; its signatures: 'serving_default', 'vocab'"), "{e}");
    let e = model.run_signature("serving_default", &[("inputs", npy("x.npy"))], &[]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "signature 'serving_default' has no input 'inputs'; its inputs: 'x' (x: x:0 DT_FLOAT (-1, 3))"
    );
    let e = model.run_signature("serving_default", &[], &[]).unwrap_err();
    assert_eq!(
        e.message,
        "signature 'serving_default' needs input 'x' (x:0), which was not given; give every input: 'x' (x: x:0 DT_FLOAT (-1, 3))"
    );
    let e = model.run_signature("serving_default", &[("x", npy("x.npy"))], &["logits"]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("signature 'serving_default' has no output 'logits'; its outputs: 'probs'"), "{e}");
    let wrong = Tensor::new(&[1, 2], vec![1f32, 2.]).unwrap();
    let e = model.run_signature("serving_default", &[("x", wrong)], &[]).unwrap_err();
    assert!(e.message.contains("Cannot feed value of shape [1, 2] for Tensor x:0, which has shape [?, 3]"), "{e}");

    // a copy without variables/
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("m");
    copy_dir(&dir, &copy);
    std::fs::remove_dir_all(copy.join("variables")).unwrap();
    let e = SavedModelBundle::load(&copy, &["serve"]).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains("has 2 variable(s) (dense/bias, dense/kernel) but no variables/variables.index; copy the whole SavedModel directory"), "{e}");

    // not a SavedModel
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = SavedModelBundle::load(&empty, &["serve"]).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains("is not a SavedModel: SavedModel file does not exist at:"), "{e}");
    let e = SavedModelBundle::load(tmp.path().join("absent"), &["serve"]).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.starts_with("SavedModel directory ") && e.message.ends_with("absent does not exist"), "{e}");
    let e = SavedModelBundle::load(copy.join("assets/vocab.txt"), &["serve"]).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("not a SavedModel directory; give the directory that holds saved_model.pb"), "{e}");
    // a damaged saved_model.pb
    std::fs::write(copy.join("saved_model.pb"), b"\x12\xff\xff\xff").unwrap();
    let e = read_saved_model(&copy).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    // a path to saved_model.pb itself is its directory
    assert_eq!(read_saved_model(dir.join("saved_model.pb")).unwrap().meta_graphs.len(), 1);
}

/// x [None, 3] -> y = (x W + b) * scale, probs = softmax(y); scale is saved as 1.0 and set to
/// 0.5 by the main op.
fn build_model() -> (Graph, Session, tensorgraph::Output, tensorgraph::Output, tensorgraph::Operation) {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, [None, Some(3)]).unwrap();
    let w = s.get_variable("w", [3, 2], DType::Float, init::zeros()).unwrap();
    let b = s.get_variable("b", [2], DType::Float, init::zeros()).unwrap();
    let scale = s.get_variable("scale", [0usize; 0], DType::Float, init::ones()).unwrap();
    let y = ops::mul(&s.named("y"), &ops::add(&s, &ops::matmul(&s, &x, &w).unwrap(), &b).unwrap(), &scale).unwrap();
    let probs = ops::softmax(&s.named("probs"), &y).unwrap();
    let half = ops::constant(&s, Tensor::scalar(0.5f32)).unwrap();
    let main_op = scale.assign_op(&s.named("main_op"), &half).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    // TensorFlow's tf1_dense values
    sess.set_variable_value(w.op(), Tensor::new(&[3, 2], vec![0.5f32, -1.0, 2.0, 0.25, -0.75, 1.5]).unwrap()).unwrap();
    sess.set_variable_value(b.op(), Tensor::new(&[2], vec![0.1f32, -0.2]).unwrap()).unwrap();
    (g, sess, x, probs, main_op)
}

#[test]
fn a_saved_model_written_here_loads_back() {
    let (_g, sess, x, probs, main_op) = build_model();
    let y = sess.graph().tensor_by_name("y:0").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("export/1");
    let mut builder = SavedModelBuilder::new(&dir).unwrap();
    let sig = predict_signature_def(&[("x", &x)], &[("y", &y), ("probs", &probs)]);
    let map: BTreeMap<_, _> = [("serving_default".to_string(), sig)].into();
    builder.add_meta_graph_and_variables(&sess, &["serve"], map.clone(), Some(&main_op)).unwrap();
    builder.add_meta_graph(&["train"], BTreeMap::new(), None).unwrap();
    let e = builder.add_meta_graph(&["serve"], map, None).unwrap_err();
    assert_eq!(e.code, Code::AlreadyExists);
    builder.save().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(dir.join("variables"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["variables.data-00000-of-00001", "variables.index"]);
    let saved = read_saved_model(&dir).unwrap();
    assert_eq!(saved.saved_model_schema_version, 1);
    assert_eq!(saved.meta_graphs.len(), 2);
    // both meta graphs share one set of save/ ops
    assert_eq!(saved.meta_graphs[0].saver_def, saved.meta_graphs[1].saver_def);
    assert_eq!(saved.meta_graphs[0].saver_def.as_ref().unwrap().restore_op_name, "save/restore_all");

    let model = SavedModelBundle::load(&dir, &["serve"]).unwrap();
    let out = model.run_signature("serving_default", &[("x", npy("x.npy"))], &["y", "probs"]).unwrap();
    // the same model as TensorFlow's tf1_dense: the same numbers
    assert_close(&out[0].1, &npy("y.npy"));
    assert_close(&out[1].1, &npy("probs.npy"));
    // the train meta graph has no main op: scale keeps its saved 1.0
    let train = SavedModelBundle::load(&dir, &["train"]).unwrap();
    let t = train.graph().tensor_by_name("scale/read:0").unwrap();
    assert_eq!(train.session().fetch(&[], &t).unwrap().as_slice::<f32>().unwrap(), [1.0]);
}

#[test]
fn a_text_saved_model_loads() {
    let (_g, sess, x, probs, main_op) = build_model();
    let tmp = tempfile::tempdir().unwrap();
    let mut builder = SavedModelBuilder::new(tmp.path()).unwrap();
    let sig = predict_signature_def(&[("x", &x)], &[("probs", &probs)]);
    builder
        .add_meta_graph_and_variables(&sess, &["serve"], [("serving_default".to_string(), sig)].into(), Some(&main_op))
        .unwrap();
    let path = builder.save_as_text().unwrap();
    assert!(path.ends_with("saved_model.pbtxt"));
    assert!(!tmp.path().join("saved_model.pb").exists());
    let model = SavedModelBundle::load(tmp.path(), &["serve"]).unwrap();
    let out = model.run_signature("serving_default", &[("x", npy("x.npy"))], &[]).unwrap();
    assert_close(&out[0].1, &npy("probs.npy"));
}

#[test]
fn builder_errors() {
    let (_g, sess, x, probs, _) = build_model();
    let e = SavedModelBuilder::new(tf_model()).unwrap_err();
    assert_eq!(e.code, Code::AlreadyExists);
    assert!(e.message.ends_with("already exists, and isn't empty. Choose a different export directory (a new version number), or delete its contents"), "{e}");
    let tmp = tempfile::tempdir().unwrap();
    let mut builder = SavedModelBuilder::new(tmp.path()).unwrap();
    assert_eq!(builder.save().unwrap_err().code, Code::FailedPrecondition);
    assert_eq!(builder.add_meta_graph(&["serve"], BTreeMap::new(), None).unwrap_err().code, Code::FailedPrecondition);
    let mut bad = predict_signature_def(&[("x", &x)], &[("probs", &probs)]);
    bad.outputs.get_mut("probs").unwrap().dtype = 3; // DT_INT32
    let e = builder.add_meta_graph_and_variables(&sess, &["serve"], [("s".to_string(), bad)].into(), None).unwrap_err();
    assert_eq!(
        e.message,
        "output 'probs' of signature 's' gives probs:0 the dtype DT_INT32, but the tensor is float32"
    );
    // an uninitialized variable is named, and nothing is written under the final names
    let fresh = Session::new(sess.graph()).unwrap();
    let e = builder.add_meta_graph_and_variables(&fresh, &["serve"], BTreeMap::new(), None).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(!tmp.path().join("variables/variables.index").exists());
    builder.add_meta_graph_and_variables(&sess, &["serve"], BTreeMap::new(), None).unwrap();
    let e = builder.add_meta_graph_and_variables(&sess, &["serve"], BTreeMap::new(), None).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
}
