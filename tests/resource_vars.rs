//! Resource variables (TensorFlow's `ResourceVariable`): TensorFlow's `resource_vars`
//! fixture imports, restores and runs (also through its own `save/restore_all`); the
//! subgraph built here has TensorFlow's names, op types and attrs; training with Adam,
//! Momentum and plain gradient descent matches reference variables; uninitialized reads
//! fail with TensorFlow's message; Saver and meta graphs round-trip; `get_variable` reuses.

mod common;
use common::{assert_close, f32_tensor, fixtures, flat_f64, manifest};
use std::collections::BTreeMap;
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::io::meta_graph::{add_saver_ops, export_meta_graph, read_meta_graph};
use tensorgraph::ops::VariableOptions;
use tensorgraph::train::{AdamOptimizer, GradientDescentOptimizer, MomentumOptimizer, Optimizer, Saver};
use tensorgraph::{init, ops, Code, DType, Graph, Output, Reuse, Session, Tensor, Variable};

fn fetch(sess: &Session, g: &Graph, name: &str) -> Vec<f64> {
    sess.fetch(&[], &g.tensor_by_name(name).unwrap()).unwrap().to_f64_vec().unwrap()
}

fn prefix_tensor(p: &std::path::Path) -> Tensor {
    Tensor::strings(&[], vec![p.to_string_lossy().into_owned().into_bytes()]).unwrap()
}

/// (name, op type) of every op, in creation order.
fn ops_of(g: &Graph) -> Vec<(String, String)> {
    g.operations().iter().map(|o| (o.name(), o.op_type())).collect()
}

fn manifest_ops(v: &serde_json::Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn fixture_meta_graph_imports_restores_and_runs() {
    let m = manifest("resource_vars");
    let dir = fixtures().join("resource_vars");
    let g = Graph::new();
    let saver = g.import_meta_graph(dir.join("model.ckpt.meta"), &Default::default()).unwrap().unwrap();
    let obs = &m["import_meta_graph_observations"];
    let names = |vs: Vec<Variable>| vs.iter().map(|v| v.name()).collect::<Vec<_>>();
    let want = |k: &str| obs[k].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(names(g.global_variables()), want("global_variables_after_import"));
    assert_eq!(names(g.trainable_variables()), want("trainable_variables_after_import"));
    for v in g.global_variables() {
        assert!(v.is_resource(), "{} is a resource variable", v.name());
        assert_eq!(v.op().op_type(), "VarHandleOp");
        assert_eq!(v.value().name(), format!("{}/Read/ReadVariableOp:0", v.op_name()));
        assert_eq!(v.reference().dtype(), DType::Resource);
        assert_eq!((v.dtype(), v.shape()), (DType::Float, vec![1]));
    }
    let sess = Session::new(&g).unwrap();
    // before restore: reading is TensorFlow's uninitialized-resource error
    let e = sess.fetch(&[], &g.tensor_by_name("add_1:0").unwrap()).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.contains("Error while reading resource variable"), "{e}");

    saver.restore(&sess, dir.join("model.ckpt")).unwrap();
    for v in m["variables"].as_array().unwrap() {
        let var = g.operation_by_name(v["name"].as_str().unwrap()).unwrap();
        let got = sess.variable_value(&var).unwrap().to_f64_vec().unwrap();
        assert_eq!(got, flat_f64(&v["value"]));
    }
    for (name, want) in obs["fetches_after_restore"].as_object().unwrap() {
        assert_close(name, &fetch(&sess, &g, name), &flat_f64(want));
    }
    for case in m["expected_fetches"].as_array().unwrap() {
        let feeds: Vec<(Output, Tensor)> = case["feeds"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(n, v)| {
                let t = g.tensor_by_name(n).unwrap();
                let shape = t.shape().to_vec().unwrap();
                (t, Tensor::new(&shape, flat_f64(v).iter().map(|&x| x as f32).collect()).unwrap())
            })
            .collect();
        let feeds: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
        for (name, want) in case["fetches"].as_object().unwrap() {
            let got = sess.fetch(&feeds, &g.tensor_by_name(name).unwrap()).unwrap().to_f64_vec().unwrap();
            assert_close(name, &got, &flat_f64(want));
        }
    }
    // VarIsInitializedOp reports the restored variables as initialized
    let inited = sess.fetch(&[], &g.tensor_by_name("v1/IsInitialized/VarIsInitializedOp:0").unwrap()).unwrap();
    assert_eq!(inited.to_vec::<bool>().unwrap(), vec![true]);

    // the variable-store fix holds for resource variables too
    let root = g.scope();
    let v1 = root.variable_scope("", Reuse::Yes, |s| s.get_variable("v1", [1], DType::Float, None)).unwrap();
    assert!(v1.is_resource());
    assert_eq!(sess.fetch(&[], &v1).unwrap().to_vec::<f32>().unwrap(), vec![1.0]);
    let e = root.get_variable("v1", [1], DType::Float, None).unwrap_err();
    assert_eq!(e.code, Code::AlreadyExists);
}

#[test]
fn tensorflow_restore_all_and_save_ops_run() {
    let m = manifest("resource_vars");
    let dir = fixtures().join("resource_vars");
    let g = Graph::new();
    g.import_meta_graph(dir.join("model.ckpt.meta"), &Default::default()).unwrap();
    let sess = Session::new(&g).unwrap();
    let filename = g.tensor_by_name("save/Const:0").unwrap();
    let restore_all = g.operation_by_name("save/restore_all").unwrap();
    assert_eq!(g.operation_by_name("save/AssignVariableOp").unwrap().op_type(), "AssignVariableOp");
    sess.run(&[(&filename, prefix_tensor(&dir.join("model.ckpt")))], &[], &[&restore_all]).unwrap();
    assert_eq!(fetch(&sess, &g, "add:0"), vec![3.0]);
    assert_eq!(fetch(&sess, &g, "add_1:0"), vec![6.0]);

    // save/control_dependency saves the ReadVariableOp snapshots; the checkpoint matches TF's
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("again.ckpt");
    let save = g.tensor_by_name("save/control_dependency:0").unwrap();
    sess.run(&[(&filename, prefix_tensor(&out))], &[&save], &[]).unwrap();
    let reader = CheckpointReader::open(&out).unwrap();
    for t in m["checkpoint"]["tensors"].as_array().unwrap() {
        assert_eq!(reader.read(t["name"].as_str().unwrap()).unwrap(), f32_tensor(t));
    }
    // byte-identical with TensorFlow's own checkpoint
    for suffix in [".index", ".data-00000-of-00001"] {
        let ours = std::fs::read(format!("{}{suffix}", out.display())).unwrap();
        let theirs = std::fs::read(dir.join(format!("model.ckpt{suffix}"))).unwrap();
        assert_eq!(ours, theirs, "{suffix}");
    }

    // a fresh session restores through TensorFlow's restore ops from what was just saved
    let sess2 = Session::new(&g).unwrap();
    sess2.run(&[(&filename, prefix_tensor(&out))], &[], &[&restore_all]).unwrap();
    assert_eq!(fetch(&sess2, &g, "add_1:0"), vec![6.0]);
}

/// Builds the fixture's graph the way its generator did: three resource variables from
/// constants, `add = v1 + v2`, `add_1 = add + v3` with TensorFlow's fresh reads, `init`,
/// and a default saver.
fn build_fixture_graph() -> (Graph, Vec<Variable>) {
    let g = Graph::new();
    let root = g.scope();
    let mut vars = Vec::new();
    for (i, name) in ["v1", "v2", "v3"].iter().enumerate() {
        let c = ops::constant(&root, Tensor::new(&[1], vec![(i + 1) as f32]).unwrap()).unwrap();
        vars.push(root.variable_with(name, VariableOptions::resource(), |_| Ok(c)).unwrap());
    }
    // `v1 + v2`: v1.value() at the root, v2 converted inside the add's name scope
    let r1 = vars[0].read(&root).unwrap();
    let (add_op, add_scope) = root.op_scope("add");
    let r2 = vars[1].read(&add_scope).unwrap();
    let add = ops::add(&add_op, &r1, &r2).unwrap();
    let (add1_op, add1_scope) = root.op_scope("add");
    let r3 = vars[2].read(&add1_scope).unwrap();
    ops::add(&add1_op, &add, &r3).unwrap();
    root.global_variables_initializer().unwrap();
    (g, vars)
}

#[test]
fn built_subgraph_has_tensorflows_names_ops_and_attrs() {
    let m = manifest("resource_vars");
    let (g, vars) = build_fixture_graph();
    let named: Vec<(String, Variable)> = vars.iter().map(|v| (v.op_name(), v.clone())).collect();
    let saver_def = add_saver_ops(&g, &named).unwrap();
    assert_eq!(ops_of(&g), manifest_ops(&m["built_graph_ops"]));
    let sd = &m["meta_graph"]["saver_def"];
    assert_eq!(saver_def.filename_tensor_name, sd["filename_tensor_name"].as_str().unwrap());
    assert_eq!(saver_def.save_tensor_name, sd["save_tensor_name"].as_str().unwrap());
    assert_eq!(saver_def.restore_op_name, sd["restore_op_name"].as_str().unwrap());

    // every NodeDef of the variables' subgraphs, the reads and the resource saver ops is
    // TensorFlow's: op, inputs and attrs (TF's `_output_shapes` left aside, which
    // to_graph_def does not write)
    let theirs = read_meta_graph(fixtures().join("resource_vars/model.ckpt.meta")).unwrap().graph_def.unwrap();
    let ours = g.to_graph_def();
    let mut compared = 0;
    for t in &theirs.node {
        let resource_op = ["VarHandleOp", "VarIsInitializedOp", "AssignVariableOp", "ReadVariableOp"]
            .contains(&t.op.as_str())
            || t.name.starts_with("save/Identity");
        if !resource_op {
            continue;
        }
        let o = ours.node_named(&t.name).unwrap_or_else(|| panic!("no node {}", t.name));
        let mut t_attr = t.attr.clone();
        t_attr.remove("_output_shapes");
        assert_eq!((&o.op, &o.input, &o.attr), (&t.op, &t.input, &t_attr), "node {}", t.name);
        compared += 1;
    }
    assert_eq!(compared, 3 * 4 + 3 + 6);

    // the VariableDefs are TensorFlow's
    let meta = export_meta_graph(&g, Some(saver_def)).unwrap();
    let defs = &m["meta_graph"]["variable_defs"];
    let ours: Vec<tensorgraph::format::proto::VariableDef> = match &meta.collection_def["variables"].kind {
        Some(tensorgraph::format::proto::CollectionKind::BytesList(l)) => {
            l.value.iter().map(|b| prost::Message::decode(b.as_slice()).unwrap()).collect()
        }
        k => panic!("variables collection is {k:?}"),
    };
    for (o, t) in ours.iter().zip(defs.as_array().unwrap()) {
        assert_eq!(o.variable_name, t["variable_name"].as_str().unwrap());
        assert_eq!(o.initial_value_name, t["initial_value_name"].as_str().unwrap());
        assert_eq!(o.initializer_name, t["initializer_name"].as_str().unwrap());
        assert_eq!(o.snapshot_name, t["snapshot_name"].as_str().unwrap());
        assert_eq!(o.is_resource, t["is_resource"].as_bool().unwrap());
        assert_eq!(o.trainable, t["trainable"].as_bool().unwrap());
    }

    // and the built graph computes the fixture's values
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.operation_by_name("init").unwrap()]).unwrap();
    assert_eq!(fetch(&sess, &g, "add_1:0"), vec![6.0]);
}

#[test]
fn exported_meta_graph_round_trips_through_tensorflows_saver_ops() {
    let (g, _) = build_fixture_graph();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.operation_by_name("init").unwrap()]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tmp.path().join("model.ckpt");
    // the save writes the .meta with the resource variables' save ops
    Saver::new(&g).unwrap().save(&sess, &ckpt).unwrap();
    let meta_path = tmp.path().join("model.ckpt.meta");

    let g2 = Graph::new();
    let saver = g2.import_meta_graph(&meta_path, &Default::default()).unwrap().unwrap();
    assert!(g2.global_variables().iter().all(Variable::is_resource));
    let sess2 = Session::new(&g2).unwrap();
    saver.restore(&sess2, &ckpt).unwrap();
    assert_eq!(fetch(&sess2, &g2, "add_1:0"), vec![6.0]);
    let sess3 = Session::new(&g2).unwrap();
    let filename = g2.tensor_by_name("save/Const:0").unwrap();
    sess3
        .run(&[(&filename, prefix_tensor(&ckpt))], &[], &[&g2.operation_by_name("save/restore_all").unwrap()])
        .unwrap();
    assert_eq!(fetch(&sess3, &g2, "add:0"), vec![3.0]);
}

/// A small regression model `y = relu(x W1 + b1) W2 + b2`, trained `steps` times with
/// `opt`; returns every variable's final value by name (optimizer state included).
fn train(use_resource: bool, opt: &dyn Optimizer, steps: usize) -> (Graph, BTreeMap<String, Tensor>) {
    let g = Graph::new();
    let root = g.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(3)]).unwrap();
    let y = ops::placeholder(&root.named("y"), DType::Float, [None, Some(1)]).unwrap();
    let opts = VariableOptions { use_resource, ..Default::default() };
    let pred = root
        .variable_scope("net", Reuse::No, |s| {
            let w1 =
                s.get_variable_with("w1", [3, 4], DType::Float, init::glorot_uniform_seeded(7), opts.clone()).unwrap();
            let b1 = s.get_variable_with("b1", [4], DType::Float, init::constant(0.1), opts.clone()).unwrap();
            let w2 =
                s.get_variable_with("w2", [4, 1], DType::Float, init::glorot_uniform_seeded(8), opts.clone()).unwrap();
            let b2 = s.get_variable_with("b2", [1], DType::Float, init::zeros(), opts.clone()).unwrap();
            let h = ops::relu(s, &ops::add(s, &ops::matmul(s, &x, &w1)?, &b1)?)?;
            ops::add(s, &ops::matmul(s, &h, &w2)?, &b2)
        })
        .unwrap();
    let err = ops::sub(&root, &pred, &y).unwrap();
    let loss = ops::reduce_mean(&root, &ops::square(&root, &err).unwrap(), None, false).unwrap();
    let train = opt.minimize(&loss).unwrap();
    let init = root.global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    let xs = common::values(8 * 3, 3, -1.0, 1.0);
    let xs = Tensor::new(&[8, 3], xs.iter().map(|&v| v as f32).collect()).unwrap();
    let ys: Vec<f32> = xs.as_slice::<f32>().unwrap().chunks(3).map(|r| r[0] - 2.0 * r[1] + 0.5 * r[2] + 1.0).collect();
    let ys = Tensor::new(&[8, 1], ys).unwrap();
    for _ in 0..steps {
        sess.run(&[(&x, xs.clone()), (&y, ys.clone())], &[], &[&train]).unwrap();
    }
    let values = g.global_variables().iter().map(|v| (v.op_name(), sess.variable_value(v.op()).unwrap())).collect();
    (g, values)
}

fn assert_same_training(opt: &dyn Optimizer, apply_op: &str) {
    let (gr, by_ref) = train(false, opt, 25);
    let (gs, by_res) = train(true, opt, 25);
    assert_eq!(by_ref.keys().collect::<Vec<_>>(), by_res.keys().collect::<Vec<_>>(), "same variables and slots");
    for (name, r) in &by_ref {
        let s = &by_res[name];
        assert_eq!(r.shape(), s.shape(), "{name}");
        for (a, b) in r.as_slice::<f32>().unwrap().iter().zip(s.as_slice::<f32>().unwrap()) {
            assert!((a - b).abs() <= 1e-6, "{name}: ref {a} vs resource {b}");
        }
    }
    // the variables did move
    let (_, untrained) = train(false, opt, 0);
    assert_ne!(untrained["net/w1"], by_ref["net/w1"]);
    // op types: Apply* on reference variables, ResourceApply* and VarHandleOp slots on resource ones
    let update = gs.operation_by_name(&format!("{}/update_net/w1/Resource{apply_op}", opt.name())).unwrap();
    assert_eq!(update.op_type(), format!("Resource{apply_op}"));
    assert_eq!(update.num_outputs(), 0);
    assert_eq!(gr.operation_by_name(&format!("{}/update_net/w1/{apply_op}", opt.name())).unwrap().op_type(), apply_op);
    for v in gs.global_variables() {
        assert!(v.is_resource(), "{} (slots and non-slot variables follow the variable)", v.name());
    }
}

#[test]
fn adam_trains_resource_variables_like_reference_variables() {
    let adam = AdamOptimizer::new(0.05);
    assert_same_training(&adam, "ApplyAdam");
    let (g, values) = train(true, &adam, 3);
    for slot in ["net/w1/Adam", "net/w1/Adam_1", "beta1_power", "beta2_power"] {
        assert_eq!(g.operation_by_name(slot).unwrap().op_type(), "VarHandleOp", "{slot}");
        assert!(values.contains_key(slot), "{slot}");
    }
    for op in [
        "net/w1/Adam/Read/ReadVariableOp",
        "net/w1/Adam/IsInitialized/VarIsInitializedOp",
        "beta1_power/Initializer/initial_value",
    ] {
        g.operation_by_name(op).unwrap_or_else(|e| panic!("{op}: {e}"));
    }
    assert_eq!(g.operation_by_name("Adam/AssignVariableOp").unwrap().op_type(), "AssignVariableOp");
    assert_eq!(values["beta1_power"].to_vec::<f32>().unwrap(), vec![0.9f32.powi(4)]);
}

#[test]
fn momentum_and_gradient_descent_train_resource_variables_like_reference_variables() {
    assert_same_training(&MomentumOptimizer::new(0.05, 0.9), "ApplyMomentum");
    assert_same_training(&GradientDescentOptimizer::new(0.1), "ApplyGradientDescent");
}

#[test]
fn gradients_flow_through_every_read_of_a_resource_variable() {
    let g = Graph::new();
    let root = g.scope();
    let c = ops::constant(&root, Tensor::new(&[2], vec![1f32, 2.0]).unwrap()).unwrap();
    let v = root.variable_with("v", VariableOptions::resource(), |_| Ok(c)).unwrap();
    // loss = sum(v * v) + sum(3 v), with three separate reads
    let (a, b) = (v.read(&root).unwrap(), v.read(&root).unwrap());
    let three = ops::constant(&root, Tensor::scalar(3f32)).unwrap();
    let sq = ops::mul(&root, &a, &b).unwrap();
    let lin = ops::mul(&root, &v, &three).unwrap();
    let loss = ops::reduce_sum(&root, &ops::add(&root, &sq, &lin).unwrap(), None, false).unwrap();
    let grads = tensorgraph::train::gradients(std::slice::from_ref(&loss), &[v.reference()], None).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[v.initializer()]).unwrap();
    // d/dv = 2 v + 3
    assert_eq!(sess.fetch(&[], grads[0].as_ref().unwrap()).unwrap().to_vec::<f32>().unwrap(), vec![5.0, 7.0]);
    // GradientDescentOptimizer with a global step that is a resource variable too
    let step = root
        .variable_with("global_step", VariableOptions { trainable: false, ..VariableOptions::resource() }, |vs| {
            ops::constant(&vs.named("initial_value"), Tensor::scalar(0i64))
        })
        .unwrap();
    let train = GradientDescentOptimizer::new(0.5).minimize_with(&loss, None, Some(&step), None).unwrap();
    assert_eq!((train.name(), train.op_type()), ("GradientDescent".to_string(), "AssignAddVariableOp".to_string()));
    sess.run_targets(&[step.initializer()]).unwrap();
    sess.run_targets(&[&train]).unwrap();
    assert_eq!(sess.variable_value(v.op()).unwrap().to_vec::<f32>().unwrap(), vec![1.0 - 2.5, 2.0 - 3.5]);
    assert_eq!(sess.variable_value(step.op()).unwrap().to_vec::<i64>().unwrap(), vec![1]);
}

#[test]
fn uninitialized_reads_fail_with_tensorflows_message_and_a_fix() {
    let g = Graph::new();
    let root = g.scope();
    let v = root
        .variable_scope("layer", Reuse::No, |s| {
            s.get_variable_with("w", [2], DType::Float, init::zeros(), VariableOptions::resource())
        })
        .unwrap();
    let sess = Session::new(&g).unwrap();
    let is_init = g.tensor_by_name("layer/w/IsInitialized/VarIsInitializedOp:0").unwrap();
    assert_eq!(sess.fetch(&[], &is_init).unwrap().to_vec::<bool>().unwrap(), vec![false]);
    for out in [v.value().clone(), v.read(&root).unwrap()] {
        let e = sess.fetch(&[], &out).unwrap_err();
        assert_eq!(e.code, Code::FailedPrecondition);
        assert!(e.message.contains("Read of uninitialized variable layer/w"), "{e}");
        assert!(
            e.message.contains(
                "Error while reading resource variable layer/w from Container: localhost. This could mean that the variable was uninitialized."
            ),
            "{e}"
        );
        assert!(e.message.contains("global_variables_initializer"), "says what to do: {e}");
    }
    let one = ops::constant(&root, Tensor::new(&[2], vec![1f32, 1.0]).unwrap()).unwrap();
    let add = v.assign_add(&root, &one).unwrap();
    assert_eq!(sess.fetch(&[], &add).unwrap_err().code, Code::FailedPrecondition);
    assert!(sess.variable_value(v.op()).is_none());

    sess.run_targets(&[&root.global_variables_initializer().unwrap()]).unwrap();
    assert_eq!(sess.fetch(&[], &is_init).unwrap().to_vec::<bool>().unwrap(), vec![true]);
    assert_eq!(sess.fetch(&[], &add).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
    let sub = v.assign_sub(&root, &one).unwrap();
    assert_eq!(sess.fetch(&[], &sub).unwrap().to_vec::<f32>().unwrap(), vec![0.0, 0.0]);
    let three = ops::constant(&root, Tensor::new(&[2], vec![3f32, 4.0]).unwrap()).unwrap();
    let set = v.assign(&root, &three).unwrap();
    assert_eq!(set.op().op_type(), "ReadVariableOp");
    assert_eq!(sess.fetch(&[], &set).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 4.0]);
    assert_eq!(g.operation_by_name("AssignVariableOp").unwrap().op_type(), "AssignVariableOp");
    assert_eq!(g.operation_by_name("AssignAddVariableOp").unwrap().op_type(), "AssignAddVariableOp");

    // a handle is no tensor: fetching it, or passing it where a value goes, says what to do
    let e = sess.fetch(&[], &v.reference()).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("layer/w/Read/ReadVariableOp:0"), "{e}");
    // building: a value of the wrong shape or dtype, a read with the wrong dtype
    let bad = ops::constant(&root, Tensor::new(&[3], vec![1f32, 2.0, 3.0]).unwrap()).unwrap();
    assert_eq!(v.assign(&root, &bad).unwrap_err().code, Code::InvalidArgument);
    let e = root.op("ReadVariableOp", "ReadVariableOp").input(&v.reference()).attr("dtype", DType::Int32).build();
    assert_eq!(e.unwrap_err().code, Code::InvalidArgument);
    // set_variable_value checks against the VarHandleOp's dtype and shape
    assert!(sess.set_variable_value(v.op(), Tensor::new(&[2], vec![7f32, 8.0]).unwrap()).is_ok());
    assert_eq!(sess.fetch(&[], &v).unwrap().to_vec::<f32>().unwrap(), vec![7.0, 8.0]);
    assert_eq!(
        sess.set_variable_value(v.op(), Tensor::new(&[3], vec![1f32; 3]).unwrap()).unwrap_err().code,
        Code::InvalidArgument
    );
    assert_eq!(
        sess.set_variable_value(v.op(), Tensor::new(&[2], vec![1i32; 2]).unwrap()).unwrap_err().code,
        Code::InvalidArgument
    );
}

#[test]
fn saver_round_trips_resource_variables_and_mixes_with_reference_variables() {
    let build = |use_resource: bool| {
        let g = Graph::new();
        let root = g.scope();
        let opts = VariableOptions { use_resource, ..Default::default() };
        let vars = root
            .variable_scope("m", Reuse::No, |s| {
                Ok(vec![
                    s.get_variable_with("w", [2, 3], DType::Float, init::glorot_uniform_seeded(3), opts.clone())?,
                    s.get_variable_with("b", [3], DType::Double, init::constant(0.25), opts.clone())?,
                    s.get_variable_with("n", tensorgraph::Shape::scalar(), DType::Int64, init::zeros(), opts.clone())?,
                ])
            })
            .unwrap();
        (g, vars)
    };
    let (g, vars) = build(true);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.scope().global_variables_initializer().unwrap()]).unwrap();
    let seven = ops::constant(&g.scope(), Tensor::scalar(7i64)).unwrap();
    sess.fetch(&[], &vars[2].assign(&g.scope(), &seven).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let prefix = Saver::new(&g).unwrap().save(&sess, tmp.path().join("model.ckpt")).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    let listed: Vec<(String, DType, Vec<usize>)> = reader.list();
    assert_eq!(
        listed,
        vec![
            ("m/b".to_string(), DType::Double, vec![3]),
            ("m/n".to_string(), DType::Int64, vec![]),
            ("m/w".to_string(), DType::Float, vec![2, 3])
        ]
    );
    let want: Vec<Tensor> = vars.iter().map(|v| sess.variable_value(v.op()).unwrap()).collect();
    assert_eq!(want[2].to_vec::<i64>().unwrap(), vec![7]);

    // into a fresh session of the same graph, and into graphs of either kind
    for use_resource in [true, false] {
        let (g2, vars2) = build(use_resource);
        let sess2 = Session::new(&g2).unwrap();
        Saver::new(&g2).unwrap().restore(&sess2, &prefix).unwrap();
        for (v, w) in vars2.iter().zip(&want) {
            assert_eq!(v.is_resource(), use_resource);
            assert_eq!(&sess2.fetch(&[], v).unwrap(), w, "{}", v.name());
        }
    }
    // a reference-variable checkpoint restores into resource variables
    let (gr, _) = build(false);
    let sr = Session::new(&gr).unwrap();
    sr.run_targets(&[&gr.scope().global_variables_initializer().unwrap()]).unwrap();
    let ref_prefix = Saver::new(&gr).unwrap().save(&sr, tmp.path().join("ref.ckpt")).unwrap();
    let sess3 = Session::new(&g).unwrap();
    Saver::new(&g).unwrap().restore(&sess3, &ref_prefix).unwrap();
    assert_eq!(sess3.fetch(&[], &vars[1]).unwrap().to_vec::<f64>().unwrap(), vec![0.25; 3]);
    // saving an uninitialized resource variable names it
    let e = Saver::new(&g).unwrap().save(&Session::new(&g).unwrap(), tmp.path().join("x.ckpt")).unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert!(e.message.contains("m/b"), "{e}");
}

#[test]
fn variable_store_reuses_resource_variables() {
    let g = Graph::new();
    let root = g.scope();
    let make = |s: &mut tensorgraph::Scope| {
        s.get_variable_with("w", [2, 2], DType::Float, init::zeros(), VariableOptions::resource())
    };
    let w = root.variable_scope("layer", Reuse::No, make).unwrap();
    assert!(w.is_resource());
    assert_eq!(w.name(), "layer/w:0");
    assert_eq!(w.value().name(), "layer/w/Read/ReadVariableOp:0");
    assert_eq!(w.initializer().name(), "layer/w/Assign");
    assert_eq!(w.initializer().op_type(), "AssignVariableOp");
    assert_eq!(w.initial_value().name(), "layer/w/Initializer/zeros:0");
    g.operation_by_name("layer/w/IsInitialized/VarIsInitializedOp").unwrap();
    assert_eq!((w.dtype(), w.shape()), (DType::Float, vec![2, 2]));

    let again = root.variable_scope("layer", Reuse::Yes, make).unwrap();
    assert_eq!(again, w);
    assert!(again.is_resource());
    let auto = root.variable_scope("layer", Reuse::Auto, make).unwrap();
    assert_eq!(auto, w);
    // reuse returns the stored variable whatever use_resource says, as TensorFlow
    let as_ref = root.variable_scope("layer", Reuse::Yes, |s| s.get_variable("w", [2, 2], DType::Float, None)).unwrap();
    assert_eq!(as_ref, w);
    let e = root.variable_scope("layer", Reuse::No, make).unwrap_err();
    assert_eq!(e.code, Code::AlreadyExists);
    assert!(e.message.starts_with("Variable layer/w already exists, disallowed."), "{e}");
    let e = root
        .variable_scope("layer", Reuse::Yes, |s| {
            s.get_variable_with("w", [3], DType::Float, None, VariableOptions::resource())
        })
        .unwrap_err();
    assert!(
        e.message.contains("Trying to share variable layer/w, but specified shape (3,) and found shape (2, 2)."),
        "{e}"
    );
    let e = root
        .variable_scope("layer", Reuse::Yes, |s| {
            s.get_variable_with("v", [2], DType::Float, None, VariableOptions::resource())
        })
        .unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    // non-trainable resource variables stay out of trainable_variables
    let n = root
        .get_variable_with(
            "counter",
            tensorgraph::Shape::scalar(),
            DType::Int32,
            init::zeros(),
            VariableOptions { trainable: false, ..VariableOptions::resource() },
        )
        .unwrap();
    assert!(n.is_resource());
    assert_eq!(g.trainable_variables(), vec![w.clone()]);
    assert_eq!(g.global_variables().len(), 2);
    // read_value makes TensorFlow's Read/ReadVariableOp + Identity in the given scope
    let rv = w.read_value(&root.sub("use")).unwrap();
    assert_eq!(rv.name(), "use/Identity:0");
    g.operation_by_name("use/Read/ReadVariableOp").unwrap();
}

#[test]
fn resource_dtype_is_graph_only() {
    assert_eq!(DType::Resource.as_enum(), 20);
    assert_eq!(DType::from_enum(20).unwrap(), DType::Resource);
    assert!(!DType::ALL.contains(&DType::Resource));
    assert!(DType::ALL_WITH_GRAPH_ONLY.contains(&DType::Resource));
    assert_eq!(DType::Resource.to_string(), "resource");
    assert_eq!(DType::Resource.size(), None);
    assert_eq!(Tensor::try_zeros(DType::Resource, &[2]).unwrap_err().code, Code::Unimplemented);
    assert_eq!(Tensor::from_f64(DType::Resource, &[1], &[0.0]).unwrap_err().code, Code::InvalidArgument);
    let proto = tensorgraph::format::proto::TensorProto { dtype: 20, ..Default::default() };
    assert_eq!(proto.to_tensor().unwrap_err().code, Code::Unimplemented);
    assert_eq!(tensorgraph::format::proto::dtype_from_proto(20).unwrap(), DType::Resource);
}

#[test]
fn a_resource_variable_scope_makes_resource_variables_inside_it() {
    let g = Graph::new();
    let root = g.scope();
    let plain = root.get_variable("plain", [2], DType::Float, None).unwrap();
    assert!(!plain.is_resource());
    let res = root.with_resource_variables(true);
    let (w, inner, tf_var) = res
        .variable_scope("layer", Reuse::No, |s| {
            let w = s.get_variable("w", [2], DType::Float, init::zeros()).unwrap();
            let inner = s.variable_scope("inner", Reuse::No, |s| s.get_variable("b", [1], DType::Float, None))?;
            let c = ops::constant(s, Tensor::new(&[1], vec![3f32]).unwrap())?;
            Ok((w, inner, s.variable("v", &c)?))
        })
        .unwrap();
    for (v, name) in [(&w, "layer/w"), (&inner, "layer/inner/b"), (&tf_var, "layer/v")] {
        assert!(v.is_resource(), "{name}");
        assert_eq!(v.op_name(), name);
        assert_eq!(v.op().op_type(), "VarHandleOp");
    }
    // turned off again inside, and reuse finds the resource variable
    let off = res.with_resource_variables(false);
    assert!(!off.get_variable("ref", [1], DType::Float, None).unwrap().is_resource());
    let again = res.variable_scope("layer", Reuse::Yes, |s| s.get_variable("w", [2], DType::Float, None)).unwrap();
    assert_eq!(again, w);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&root.global_variables_initializer().unwrap()]).unwrap();
    assert_eq!(sess.fetch(&[], &w.read(&root).unwrap()).unwrap().to_vec::<f32>().unwrap(), [0.0, 0.0]);
}
