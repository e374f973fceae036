//! `init_from_checkpoint` (`tf.compat.v1.train.init_from_checkpoint`) with the TensorFlow-written
//! `weight_def_adam/full.ckpt`: scope renames, single variables, root mappings and errors.

mod common;
use common::fixtures;
use std::path::PathBuf;
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::init::Initializer;
use tensorgraph::train::{init_from_checkpoint, Saver};
use tensorgraph::{Code, DType, Graph, Reuse, Session, Tensor};

fn full_ckpt() -> PathBuf {
    fixtures().join("weight_def_adam/full.ckpt")
}

/// A graph with `<scope>/weights` [4,3] and `<scope>/biases` [3] made by get_variable
/// (zeros), plus a plain `tf.Variable` `other` [2].
fn graph_with(scope: &str) -> Graph {
    let g = Graph::new();
    let root = g.scope();
    root.variable_scope(scope, Reuse::No, |s| {
        s.get_variable("weights", [4, 3], DType::Float, Initializer::Zeros)?;
        s.get_variable("biases", [3], DType::Float, Initializer::Zeros)
    })
    .unwrap();
    root.variable_from_value("other", Tensor::new(&[2], vec![5f32, 6.]).unwrap()).unwrap();
    g
}

fn value(sess: &Session, g: &Graph, name: &str) -> Tensor {
    let v = g.global_variables().into_iter().find(|v| v.op_name() == name).unwrap();
    sess.variable_value(v.op()).unwrap_or_else(|| panic!("{name} is not initialized"))
}

fn initialized(g: &Graph) -> Session {
    let init = g.scope().global_variables_initializer().unwrap();
    let sess = Session::new(g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    sess
}

#[test]
fn scope_rename_overrides_the_initializers() {
    let reader = CheckpointReader::open(full_ckpt()).unwrap();
    let g = graph_with("renamed");
    let done = init_from_checkpoint(&g, full_ckpt(), [("weight_def/", "renamed/")]).unwrap();
    assert_eq!(
        done,
        [
            ("renamed/biases".to_string(), "weight_def/biases".to_string()),
            ("renamed/weights".to_string(), "weight_def/weights".to_string())
        ]
    );
    // TensorFlow's new ops: checkpoint_initializer[_1] (RestoreV2, with its constants in
    // its name scope) and Assign[_1].
    for (name, op_type) in [
        ("checkpoint_initializer", "RestoreV2"),
        ("checkpoint_initializer/prefix", "Const"),
        ("checkpoint_initializer/tensor_names", "Const"),
        ("checkpoint_initializer/shape_and_slices", "Const"),
        ("checkpoint_initializer_1", "RestoreV2"),
        ("Assign", "Assign"),
        ("Assign_1", "Assign"),
    ] {
        assert_eq!(g.operation_by_name(name).unwrap().op_type(), op_type, "{name}");
    }
    let w = g.global_variables().into_iter().find(|v| v.op_name() == "renamed/weights").unwrap();
    assert_eq!(w.initializer().name(), "Assign_1");
    assert_eq!(w.initial_value().name(), "checkpoint_initializer_1:0");
    assert_eq!(
        g.trainable_variables().iter().find(|v| v.op_name() == "renamed/weights").unwrap().initializer().name(),
        "Assign_1"
    );

    let sess = initialized(&g);
    assert_eq!(value(&sess, &g, "renamed/weights"), reader.read("weight_def/weights").unwrap());
    assert_eq!(value(&sess, &g, "renamed/biases"), reader.read("weight_def/biases").unwrap());
    assert_eq!(value(&sess, &g, "other"), Tensor::new(&[2], vec![5f32, 6.]).unwrap());

    // get_variable under reuse returns the variable with its new initializer.
    let again = g
        .scope()
        .variable_scope("renamed", Reuse::Yes, |s| s.get_variable("weights", [4, 3], DType::Float, None))
        .unwrap();
    assert_eq!(again.initializer().name(), "Assign_1");
    // Running just that initializer loads the checkpoint value.
    let sess2 = Session::new(&g).unwrap();
    sess2.run_targets(&[again.initializer()]).unwrap();
    assert_eq!(sess2.variable_value(again.op()).unwrap(), reader.read("weight_def/weights").unwrap());
}

#[test]
fn single_variables_and_a_directory() {
    let reader = CheckpointReader::open(full_ckpt()).unwrap();
    let g = graph_with("net");
    // The directory's state file names model_only.ckpt, which holds the model variables.
    let dir = fixtures().join("weight_def_adam");
    let done = init_from_checkpoint(&g, &dir, [("weight_def/biases", "net/biases")]).unwrap();
    assert_eq!(done, [("net/biases".to_string(), "weight_def/biases".to_string())]);
    let sess = initialized(&g);
    let model_only = CheckpointReader::open(dir.join("model_only.ckpt")).unwrap();
    assert_eq!(value(&sess, &g, "net/biases"), model_only.read("weight_def/biases").unwrap());
    assert_eq!(value(&sess, &g, "net/weights"), Tensor::zeros(DType::Float, &[4, 3]));
    // A plain tf.Variable can be named too (TensorFlow takes the Variable object).
    let g = Graph::new();
    g.scope().variable_from_value("power", Tensor::scalar(0f32)).unwrap();
    init_from_checkpoint(&g, full_ckpt(), [("beta1_power", "power")]).unwrap();
    let sess = initialized(&g);
    assert_eq!(value(&sess, &g, "power"), reader.read("beta1_power").unwrap());
}

#[test]
fn root_mappings() {
    let reader = CheckpointReader::open(full_ckpt()).unwrap();
    // "/": "outer/" maps outer/weight_def/weights to weight_def/weights.
    let g = Graph::new();
    g.scope()
        .variable_scope("outer", Reuse::No, |s| {
            s.variable_scope("weight_def", Reuse::No, |s| s.get_variable("weights", [4, 3], DType::Float, None))
        })
        .unwrap();
    let done = init_from_checkpoint(&g, full_ckpt(), [("/", "outer/")]).unwrap();
    assert_eq!(done, [("outer/weight_def/weights".to_string(), "weight_def/weights".to_string())]);
    let sess = initialized(&g);
    assert_eq!(value(&sess, &g, "outer/weight_def/weights"), reader.read("weight_def/weights").unwrap());

    // "weight_def/": "/" maps every variable v to weight_def/v.
    let g = Graph::new();
    g.scope().get_variable("weights", [4, 3], DType::Float, None).unwrap();
    g.scope().get_variable("biases", [3], DType::Float, None).unwrap();
    init_from_checkpoint(&g, full_ckpt(), [("weight_def/", "/")]).unwrap();
    let sess = initialized(&g);
    assert_eq!(value(&sess, &g, "biases"), reader.read("weight_def/biases").unwrap());
    assert_eq!(value(&sess, &g, "weights"), reader.read("weight_def/weights").unwrap());
}

#[test]
fn errors_name_what_is_missing_or_mismatched_and_change_nothing() {
    let g = graph_with("renamed");
    let ops_before = g.num_ops();
    // A tensor missing from the checkpoint.
    let err = init_from_checkpoint(&g, full_ckpt(), [("other_scope/", "renamed/")]).unwrap_err();
    assert_eq!(err.code, Code::NotFound, "{err}");
    // a scope with no tensor under it is one problem for the map entry, not one per variable
    assert!(
        err.message.contains(&format!(
            "no tensor of checkpoint {} is under scope \"other_scope/\" (assignment map entry \"other_scope/\": \"renamed/\")",
            full_ckpt().display()
        )),
        "{err}"
    );
    assert!(err.message.contains("(1 problem(s); nothing was changed)"), "{err}");
    // A shape mismatch, reported with the dtype and both shapes, beside a missing variable.
    let err = init_from_checkpoint(
        &g,
        full_ckpt(),
        [("weight_def/biases", "renamed/weights"), ("weight_def/weights", "renamed/nope")],
    )
    .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(err.message.contains("2 problem(s)"), "{err}");
    assert!(err.message.contains("variable renamed/weights is float32 [4, 3] but tensor weight_def/biases"), "{err}");
    assert!(err.message.contains("variable renamed/nope"), "{err}");
    // A dtype mismatch.
    let g2 = Graph::new();
    g2.scope().get_variable("b1", [0usize; 0], DType::Double, None).unwrap();
    let err = init_from_checkpoint(&g2, full_ckpt(), [("beta1_power", "b1")]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(err.message.contains("float64"), "{err}");
    // A scope mapped to one tensor (TensorFlow's message).
    let err = init_from_checkpoint(&g, full_ckpt(), [("weight_def/weights", "renamed/")]).unwrap_err();
    assert!(err.message.contains("Assignment map with scope only name renamed should map to scope only"), "{err}");
    // A scope with no variables, a missing checkpoint, a directory without checkpoints.
    let err = init_from_checkpoint(&g, full_ckpt(), [("weight_def/", "nothing_here/")]).unwrap_err();
    assert!(err.message.contains("no variable of the graph is under scope \"nothing_here/\""), "{err}");
    let err = init_from_checkpoint(&g, "/nonexistent/model.ckpt", [("weight_def/", "renamed/")]).unwrap_err();
    assert_eq!(err.code, Code::NotFound, "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = init_from_checkpoint(&g, empty.path(), [("weight_def/", "renamed/")]).unwrap_err();
    assert_eq!(err.code, Code::NotFound, "{err}");
    assert!(err.message.contains("Couldn't find 'checkpoint' file"), "{err}");
    // Nothing was added to the graph by the failed calls.
    assert_eq!(g.num_ops(), ops_before);
    let sess = initialized(&g);
    assert_eq!(value(&sess, &g, "renamed/biases"), Tensor::zeros(DType::Float, &[3]));
}

#[test]
fn works_with_a_saver_round_trip() {
    // Save a model, then start a renamed model from it.
    let g = graph_with("a");
    let sess = initialized(&g);
    for v in g.global_variables() {
        let n = v.shape().iter().product::<usize>();
        sess.set_variable_value(v.op(), Tensor::new(&v.shape(), (0..n).map(|i| i as f32 + 0.5).collect()).unwrap())
            .unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let prefix = Saver::new(&g).unwrap().num_shards(2).save(&sess, tmp.path().join("m")).unwrap();
    let g2 = graph_with("b");
    init_from_checkpoint(&g2, &prefix, [("a/", "b/"), ("other", "other")]).unwrap();
    let sess2 = initialized(&g2);
    assert_eq!(value(&sess2, &g2, "b/weights"), value(&sess, &g, "a/weights"));
    assert_eq!(value(&sess2, &g2, "other"), value(&sess, &g, "other"));
}

#[test]
fn values_are_read_when_the_initializer_runs() {
    // a copy of the checkpoint, changed between init_from_checkpoint and the initializer run
    let dir = tempfile::tempdir().unwrap();
    let g0 = Graph::new();
    let v = g0.scope().variable_from_value("w", Tensor::new(&[2], vec![1f32, 2.]).unwrap()).unwrap();
    let sess0 = initialized(&g0);
    let saver = Saver::with_var_list(std::slice::from_ref(&v)).unwrap();
    let prefix = saver.save(&sess0, dir.path().join("model.ckpt")).unwrap();

    let g = Graph::new();
    g.scope().variable_from_value("w", Tensor::new(&[2], vec![0f32, 0.]).unwrap()).unwrap();
    init_from_checkpoint(&g, &prefix, [("w", "w")]).unwrap();
    // the graph holds the path, not the values
    let names = g.operation_by_name("checkpoint_initializer/tensor_names").unwrap();
    assert_eq!(names.output(0).unwrap().shape(), tensorgraph::Shape::known(&[1]));
    let seven = tensorgraph::ops::constant(&g0.scope(), Tensor::new(&[2], vec![7f32, 8.]).unwrap()).unwrap();
    sess0.run_targets(&[&v.assign(&g0.scope(), &seven).unwrap().op()]).unwrap();
    saver.save(&sess0, dir.path().join("model.ckpt")).unwrap();
    let sess = initialized(&g);
    assert_eq!(value(&sess, &g, "w"), Tensor::new(&[2], vec![7f32, 8.]).unwrap());
    // a checkpoint gone by then is NotFound when the initializer runs
    std::fs::remove_dir_all(dir.path()).unwrap();
    let init = g.scope().global_variables_initializer().unwrap();
    let e = Session::new(&g).unwrap().run_targets(&[&init]).unwrap_err();
    assert_eq!(e.code, Code::NotFound, "{e}");
}
