//! The `weight_def_adam` fixture: the same model trained here with Adam and gradient
//! descent matches TensorFlow 2.21 step by step; restore errors explain missing slots.

mod common;
use common::{assert_close, f32_tensor, fixtures, manifest};
use serde_json::Value;
use std::path::Path;
use tensorgraph::init::Initializer;
use tensorgraph::train::{AdamOptimizer, GradientDescentOptimizer, Optimizer, RestoreHints, Saver};
use tensorgraph::{ops, Code, DType, Graph, Operation, Output, Reuse, Session};

struct Model {
    graph: Graph,
    x: Output,
    y: Output,
    probs: Output,
    loss: Output,
    train: Option<Operation>,
}

/// The fixture's graph: weight_def/{weights,biases}, logits, probs, loss, train.
fn build(m: &Value, optimizer: Option<&dyn Optimizer>) -> Model {
    let graph = Graph::new();
    let root = graph.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(4)]).unwrap();
    let y = ops::placeholder(&root.named("y"), DType::Float, [None, Some(3)]).unwrap();
    let iv = &m["initial_values"];
    let logits = root
        .variable_scope("weight_def", Reuse::No, |s| {
            let w = s.get_variable(
                "weights",
                [4, 3],
                DType::Float,
                Initializer::Value(f32_tensor(&iv["weight_def/weights"])),
            )?;
            let b =
                s.get_variable("biases", [3], DType::Float, Initializer::Value(f32_tensor(&iv["weight_def/biases"])))?;
            let mm = ops::matmul(s, &x, &w)?;
            ops::add(&root.named("logits"), &mm, &b)
        })
        .unwrap();
    let probs = ops::softmax(&root.named("probs"), &logits).unwrap();
    let xent = ops::softmax_cross_entropy_with_logits(&root, &y, &logits).unwrap();
    let loss = ops::reduce_mean(&root.named("loss"), &xent, None, false).unwrap();
    let train = optimizer.map(|o| o.minimize_with(&loss, None, None, Some("train")).unwrap());
    Model { graph, x, y, probs, loss, train }
}

fn batch(m: &Value) -> (tensorgraph::Tensor, tensorgraph::Tensor) {
    (f32_tensor(&m["training_data"]["X"]), f32_tensor(&m["training_data"]["Y_one_hot"]))
}

fn values(sess: &Session, g: &Graph, name: &str) -> Vec<f64> {
    sess.fetch(&[], &g.tensor_by_name(&format!("{name}:0")).unwrap()).unwrap().to_f64_vec().unwrap()
}

fn train_and_compare(model: &Model, sess: &Session, m: &Value, losses: &Value) {
    let (xs, ys) = batch(m);
    let train = model.train.as_ref().unwrap();
    for (step, want) in losses.as_array().unwrap().iter().enumerate() {
        let out = sess.run(&[(&model.x, xs.clone()), (&model.y, ys.clone())], &[&model.loss], &[train]).unwrap();
        assert_close(&format!("loss at step {step}"), &out[0].to_f64_vec().unwrap(), &[want.as_f64().unwrap()]);
    }
}

#[test]
fn adam_matches_tensorflow_step_by_step() {
    let m = manifest("weight_def_adam");
    let adam = AdamOptimizer::new(0.01);
    let model = build(&m, Some(&adam));
    let names: Vec<String> = model.graph.global_variables().iter().map(|v| v.op_name()).collect();
    let want: Vec<String> =
        m["global_variables"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    assert_eq!(names, want, "variables and slots in TensorFlow's order");
    for op in [
        "train/update_weight_def/weights/ApplyAdam",
        "train/mul",
        "train/Assign",
        "train/mul_1",
        "train/Assign_1",
        "train",
        "weight_def/weights/Adam_1/Initializer/zeros",
        "beta1_power/initial_value",
    ] {
        model.graph.operation_by_name(op).unwrap_or_else(|e| panic!("{op}: {e}"));
    }
    assert_eq!(
        model.graph.operation_by_name("train/update_weight_def/weights/ApplyAdam").unwrap().op_type(),
        "ApplyAdam"
    );
    let sess = Session::new(&model.graph).unwrap();
    sess.run_targets(&[&model.graph.scope().global_variables_initializer().unwrap()]).unwrap();
    train_and_compare(&model, &sess, &m, &m["training"]["losses_per_step"]);
    // every variable and slot equals what TensorFlow saved in full.ckpt
    for t in m["checkpoints"]["full.ckpt"]["tensors"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert_close(name, &values(&sess, &model.graph, name), &common::flat_f64(&t["values"]));
    }
    let (xs, ys) = batch(&m);
    let final_loss = sess.run(&[(&model.x, xs), (&model.y, ys)], &[&model.loss], &[]).unwrap();
    assert_close("final loss", &final_loss[0].to_f64_vec().unwrap(), &[m["training"]["final_loss"].as_f64().unwrap()]);
}

#[test]
fn gradient_descent_matches_tensorflow() {
    let m = manifest("weight_def_adam");
    let gd = GradientDescentOptimizer::new(0.1);
    let model = build(&m, Some(&gd));
    let sess = Session::new(&model.graph).unwrap();
    sess.run_targets(&[&model.graph.scope().global_variables_initializer().unwrap()]).unwrap();
    let r = &m["gradient_descent_reference"];
    train_and_compare(&model, &sess, &m, &r["losses"]);
    for name in ["weight_def/weights", "weight_def/biases"] {
        assert_close(name, &values(&sess, &model.graph, name), &common::flat_f64(&r[name]["values"]));
    }
}

#[test]
fn restore_full_checkpoint_forecasts_and_trains_one_more_step() {
    let m = manifest("weight_def_adam");
    let adam = AdamOptimizer::new(0.01);
    let model = build(&m, Some(&adam));
    let sess = Session::new(&model.graph).unwrap();
    Saver::new(&model.graph).unwrap().restore(&sess, fixtures().join("weight_def_adam/full.ckpt")).unwrap();
    let f = &m["forecast"];
    let probs = sess.fetch(&[(&model.x, f32_tensor(&f["feeds"]["x:0"]))], &model.probs).unwrap();
    assert_close("probs", &probs.to_f64_vec().unwrap(), &common::flat_f64(&f["expected"]["probs:0"]["values"]));
    let (xs, ys) = batch(&m);
    sess.run(&[(&model.x, xs), (&model.y, ys)], &[], &[model.train.as_ref().unwrap()]).unwrap();
    let after = &m["restore_observations"]["one_more_step_after_restoring_full"];
    for name in ["weight_def/weights", "weight_def/biases"] {
        assert_close(name, &values(&sess, &model.graph, name), &common::flat_f64(&after[name]["values"]));
    }
}

#[test]
fn restoring_a_model_only_checkpoint_lists_every_missing_slot() {
    let m = manifest("weight_def_adam");
    let adam = AdamOptimizer::new(0.01);
    let model = build(&m, Some(&adam));
    let sess = Session::new(&model.graph).unwrap();
    let prefix = fixtures().join("weight_def_adam/model_only.ckpt");
    let err = Saver::new(&model.graph).unwrap().restore(&sess, &prefix).unwrap_err();
    assert_eq!(err.code, Code::NotFound);
    assert!(
        err.message.contains("6 variable(s) not found in checkpoint: beta1_power, beta2_power, weight_def/biases/Adam, weight_def/biases/Adam_1, weight_def/weights/Adam, weight_def/weights/Adam_1"),
        "{err}"
    );
    assert!(err.message.contains("optimizer state"), "{err}");
    assert!(err.message.contains("Saver::with_var_list(&graph.trainable_variables())"), "{err}");
    // nothing was assigned
    assert!(sess.variable_value(model.graph.global_variables()[0].op()).is_none());
    // the fix the message gives works
    Saver::with_var_list(&model.graph.trainable_variables()).unwrap().restore(&sess, &prefix).unwrap();
    let want = &m["checkpoints"]["model_only.ckpt"]["tensors"];
    for t in want.as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert_close(name, &values(&sess, &model.graph, name), &common::flat_f64(&t["values"]));
    }
}

#[test]
fn restore_advice_is_worded_for_where_it_is_shown() {
    let m = manifest("weight_def_adam");
    let adam = AdamOptimizer::new(0.01);
    let model = build(&m, Some(&adam));
    let sess = Session::new(&model.graph).unwrap();
    let prefix = fixtures().join("weight_def_adam/model_only.ckpt");
    let head = format!(
        "NotFound: Restoring from checkpoint {} failed.\n6 variable(s) not found in checkpoint: beta1_power, beta2_power, weight_def/biases/Adam, weight_def/biases/Adam_1, weight_def/weights/Adam, weight_def/weights/Adam_1\nAll 6 missing names are optimizer state (slots such as /Adam, /Adam_1, /Momentum, beta1_power, beta2_power): the checkpoint was saved without the optimizer, or the graph adds an optimizer the saved model did not have. ",
        prefix.display()
    );
    // by default, in Rust calls
    let err = Saver::new(&model.graph).unwrap().restore(&sess, &prefix).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{head}To restore only the model variables, build the saver from them: Saver::with_var_list(&graph.trainable_variables()), then initialize the optimizer's variables with their initializers.")
    );
    // a front end words its own
    let hints = RestoreHints {
        model_variables_only: "Pass --trainable-only.".into(),
        map_names: "Pass --map.".into(),
        missing_checkpoint: "give a prefix".into(),
    };
    let saver = Saver::new(&model.graph).unwrap().restore_hints(hints);
    assert_eq!(saver.restore(&sess, &prefix).unwrap_err().to_string(), format!("{head}Pass --trainable-only."));
    let gone = Path::new("/nonexistent/model.ckpt");
    assert_eq!(
        saver.restore(&sess, gone).unwrap_err().to_string(),
        "NotFound: Failed to find any matching files for /nonexistent/model.ckpt: no /nonexistent/model.ckpt.index (give a prefix)"
    );
    assert_eq!(
        Saver::new(&model.graph).unwrap().restore(&sess, gone).unwrap_err().to_string(),
        "NotFound: Failed to find any matching files for /nonexistent/model.ckpt: no /nonexistent/model.ckpt.index (a checkpoint prefix is the path without .index; latest_checkpoint(dir) finds the latest checkpoint of a directory)"
    );
    // names that differ get the mapping advice: a graph of other names
    let graph = Graph::new();
    graph
        .scope()
        .variable_scope("renamed", Reuse::No, |s| s.get_variable("weights", [4, 3], DType::Float, None))
        .unwrap();
    let sess = Session::new(&graph).unwrap();
    let err = Saver::new(&graph).unwrap().restore(&sess, &prefix).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "NotFound: Restoring from checkpoint {} failed.\n1 variable(s) not found in checkpoint: renamed/weights\nThe checkpoint has 2 name(s) the graph does not: weight_def/biases, weight_def/weights\nThe graph's variable names differ from the checkpoint's. Build the same model (same scopes and names) as the one saved, or map checkpoint names to variables with Saver::with_name_map; CheckpointReader::open(prefix)?.list() lists the checkpoint's names.",
            prefix.display()
        )
    );
}

#[test]
fn restore_reports_shape_mismatches_and_unknown_names_together() {
    let graph = Graph::new();
    let s = graph.scope();
    s.variable_scope("weight_def", Reuse::No, |s| {
        s.get_variable("weights", [3, 3], DType::Float, None)?;
        s.get_variable("extra", [2], DType::Float, None)
    })
    .unwrap();
    let sess = Session::new(&graph).unwrap();
    let err =
        Saver::new(&graph).unwrap().restore(&sess, fixtures().join("weight_def_adam/model_only.ckpt")).unwrap_err();
    assert!(err.message.contains("1 variable(s) not found in checkpoint: weight_def/extra"), "{err}");
    assert!(
        err.message.contains("weight_def/weights: checkpoint has float32 [4, 3], graph has float32 [3, 3]"),
        "{err}"
    );
    assert!(err.message.contains("The checkpoint has 1 name(s) the graph does not: weight_def/biases"), "{err}");
    assert!(err.message.contains("The graph's variable names differ from the checkpoint's"), "{err}");
    assert!(!err.message.contains("optimizer state"), "no slot hint when model variables are missing: {err}");
    let missing = Saver::new(&graph).unwrap().restore(&sess, "/nonexistent/model.ckpt").unwrap_err();
    assert_eq!(missing.code, Code::NotFound);
}
