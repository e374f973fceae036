//! Test files TensorFlow's own repositories carry (`tests/data/public`, sources and licence
//! in its README.md), run here to TensorFlow 2.21's values. The expected numbers come from
//! `scripts/gen_public_models.py`, which runs the same files the same way in the TF 2.21
//! venv and prints them.

use std::path::PathBuf;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::io::saved_model::SavedModelBundle;
use tensorgraph::{Graph, Session, Tensor};

fn public(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/public").join(path)
}

fn import(path: &str) -> Graph {
    let gd = read_graph_def_any(public(path)).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

/// A serialized `tf.train.Example` with one float feature `key` holding `v` (the bytes
/// `tf.train.Example(features=Features(feature={key: Feature(float_list=FloatList(value=[v]))})).SerializeToString()`
/// gives).
fn example(key: &str, v: f32) -> Vec<u8> {
    let mut float_list = vec![0x0a, 4];
    float_list.extend_from_slice(&v.to_le_bytes()); // FloatList.value, packed
    let mut feature = vec![0x12, float_list.len() as u8]; // Feature.float_list
    feature.extend(float_list);
    let mut entry = vec![0x0a, key.len() as u8]; // map entry: key
    entry.extend_from_slice(key.as_bytes());
    entry.extend([0x12, feature.len() as u8]); // map entry: value
    entry.extend(feature);
    let mut features = vec![0x0a, entry.len() as u8]; // Features.feature
    features.extend(entry);
    let mut ex = vec![0x0a, features.len() as u8]; // Example.features
    ex.extend(features);
    ex
}

#[test]
fn multiplication_pb_multiplies_a_vector_by_a_scalar() {
    // TF 0.x wrote it with producer 9: its `shape {}` placeholders are unknown-shaped
    let g = import("tensorflow-rust/tensorflow-sys/examples/assets/multiplication.pb");
    let (a, b, c) =
        (g.tensor_by_name("a:0").unwrap(), g.tensor_by_name("b:0").unwrap(), g.tensor_by_name("c:0").unwrap());
    let sess = Session::new(&g).unwrap();
    // int feeds convert to the float32 placeholders, as feed_dict does
    let r = sess.fetch(&[(&a, Tensor::vector(vec![1i32, 2, 3])), (&b, Tensor::scalar(2i32))], &c).unwrap();
    assert_eq!(r, Tensor::vector(vec![2f32, 4.0, 6.0]));
}

/// `init` with w's random start fed as 0.7, then 5 runs of `train` (gradient descent, rate
/// 0.5) on y = 0.1 x + 0.3 at 8 points from -1 to 2; TensorFlow 2.21: w = 0.08457505702972412,
/// b = 0.2790595293045044.
fn train_regression(g: &Graph) -> (f32, f32) {
    let sess = Session::new(g).unwrap();
    let t = |n: &str| g.tensor_by_name(n).unwrap();
    let init = g.operation_by_name("init").unwrap();
    sess.run(&[(&t("random_uniform:0"), Tensor::vector(vec![0.7f32]))], &[], &[&init]).unwrap();
    let x: Vec<f32> = (0..8).map(|i| (-1.0 + 3.0 * i as f64 / 7.0) as f32).collect();
    let y: Vec<f32> = x.iter().map(|&v| (0.1 * v as f64 + 0.3) as f32).collect();
    let train = g.operation_by_name("train").unwrap();
    for _ in 0..5 {
        sess.run(&[(&t("x:0"), Tensor::vector(x.clone())), (&t("y:0"), Tensor::vector(y.clone()))], &[], &[&train])
            .unwrap();
    }
    let r = sess.run(&[], &[&t("w:0"), &t("b:0")], &[]).unwrap();
    (f32s(&r[0])[0], f32s(&r[1])[0])
}

#[test]
fn regression_models_train_to_tensorflows_values() {
    // TF 0.12's graph (Variable, Rank, DynamicStitch, Div in reduce_mean's gradient) and
    // TF 1.x's with a Saver
    for path in
        ["tensorflow-rust/examples/regression/model.pb", "tensorflow-rust/examples/regression_checkpoint/model.pb"]
    {
        let (w, b) = train_regression(&import(path));
        assert!((w - 0.084_575_06).abs() <= 1e-6, "{path}: w = {w}");
        assert!((b - 0.279_059_53).abs() <= 1e-6, "{path}: b = {b}");
    }
}

#[test]
fn regression_checkpoint_saves_and_restores_through_its_saver_ops() {
    let g = import("tensorflow-rust/examples/regression_checkpoint/model.pb");
    let (w, b) = train_regression(&g);
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("model").to_string_lossy().into_owned();
    let sess = Session::new(&g).unwrap();
    let t = |n: &str| g.tensor_by_name(n).unwrap();
    // the graph's own save/ ops (SaveV2) write the checkpoint, restore_all reads it back
    let init = g.operation_by_name("init").unwrap();
    sess.run(&[(&t("random_uniform:0"), Tensor::vector(vec![w]))], &[], &[&init]).unwrap();
    let set_b = tensorgraph::ops::assign(&g.scope(), &t("b:0"), &t("zeros:0")).unwrap();
    sess.run(&[(&t("zeros:0"), Tensor::vector(vec![b]))], &[&set_b], &[]).unwrap();
    let save = g.operation_by_name("save/control_dependency").unwrap();
    sess.run(&[(&t("save/Const:0"), Tensor::strings(&[], vec![prefix.clone().into_bytes()]).unwrap())], &[], &[&save])
        .unwrap();
    let fresh = Session::new(&g).unwrap();
    let restore = g.operation_by_name("save/restore_all").unwrap();
    fresh
        .run(&[(&t("save/Const:0"), Tensor::strings(&[], vec![prefix.into_bytes()]).unwrap())], &[], &[&restore])
        .unwrap();
    let r = fresh.run(&[], &[&t("w:0"), &t("b:0")], &[]).unwrap();
    assert_eq!((f32s(&r[0])[0], f32s(&r[1])[0]), (w, b));
}

#[test]
fn half_plus_two_signatures_run_including_tf_example_inputs() {
    let model = SavedModelBundle::load(public("serving/saved_model_half_plus_two_cpu/00000123"), &["serve"]).unwrap();
    let x = Tensor::new(&[3, 1], vec![1f32, 2.0, 5.0]).unwrap();
    let y = model.run_signature("serving_default", &[("x", x.clone())], &[]).unwrap();
    assert_eq!(f32s(&y[0].1), [2.5, 3.0, 4.5]);
    let y3 = model.run_signature("regress_x2_to_y3", &[("inputs", x)], &[]).unwrap();
    assert_eq!(f32s(&y3[0].1), [3.5, 4.0, 5.5]);
    // classify/regress signatures take serialized tf.Example protos (ParseExample)
    let examples = Tensor::strings(&[3], [1f32, 2.0, 5.0].iter().map(|&v| example("x", v)).collect()).unwrap();
    for (key, want) in [
        ("classify_x_to_y", [2.5, 3.0, 4.5]),
        ("regress_x_to_y", [2.5, 3.0, 4.5]),
        ("regress_x_to_y2", [3.5, 4.0, 5.5]),
    ] {
        let out = model.run_signature(key, &[("inputs", examples.clone())], &[]).unwrap();
        assert_eq!(f32s(&out[0].1), want, "{key}");
    }
}

#[test]
fn half_plus_three_runs() {
    let model = SavedModelBundle::load(public("serving/saved_model_half_plus_three/00000123"), &["serve"]).unwrap();
    let x = Tensor::new(&[3, 1], vec![1f32, 2.0, 5.0]).unwrap();
    let y = model.run_signature("serving_default", &[("x", x)], &[]).unwrap();
    assert_eq!(f32s(&y[0].1), [3.5, 4.0, 5.5]);
}

#[test]
fn tf2_half_plus_two_runs_its_tf_function_signatures() {
    // tf.saved_model.save of a tf.Module: resource variables, StatefulPartitionedCall, the
    // function library, and _traced_save with StaticRegexFullMatch and DisableCopyOnRead
    let model =
        SavedModelBundle::load(public("serving/saved_model_half_plus_two_tf2_cpu/00000123"), &["serve"]).unwrap();
    let y = model.run_signature("serving_default", &[("x", Tensor::vector(vec![3f32]))], &[]).unwrap();
    assert_eq!(f32s(&y[0].1), [3.5]);
    let y3 = model.run_signature("regress_x2_to_y3", &[("inputs", Tensor::vector(vec![3f32]))], &[]).unwrap();
    assert_eq!(f32s(&y3[0].1), [4.5]);
    let examples = Tensor::strings(&[3], [1f32, 2.0, 5.0].iter().map(|&v| example("x", v)).collect()).unwrap();
    let out = model.run_signature("regress_x_to_y", &[("inputs", examples)], &[]).unwrap();
    assert_eq!(f32s(&out[0].1), [2.5, 3.0, 4.5]);
}
