//! The second seed's scenario: three variables, `add`, `add_1`, TensorFlow's naming,
//! values from the seed004 fixture's manifest.

mod common;
use common::seed004_graph;
use tensorgraph::{ops, DType, Session, Tensor};

#[test]
fn names_follow_tensorflow() {
    let (g, vars, add, add_1) = seed004_graph();
    let names: Vec<String> = g.operations().iter().map(|o| format!("{}:{}", o.name(), o.op_type())).collect();
    assert_eq!(
        names,
        [
            "Const:Const",
            "v1:VariableV2",
            "v1/Assign:Assign",
            "v1/read:Identity",
            "Const_1:Const",
            "v2:VariableV2",
            "v2/Assign:Assign",
            "v2/read:Identity",
            "Const_2:Const",
            "v3:VariableV2",
            "v3/Assign:Assign",
            "v3/read:Identity",
            "add:AddV2",
            "add_1:AddV2",
        ]
    );
    assert_eq!(vars[0].name(), "v1:0");
    assert_eq!(add.name(), "add:0");
    assert_eq!(add_1.name(), "add_1:0");
    assert_eq!(vars[0].value().name(), "v1/read:0");
    // a second Variable named v1 becomes v1_1
    let s = g.scope();
    let c = ops::constant(&s, Tensor::new(&[1], vec![5.0f32]).unwrap()).unwrap();
    let again = s.variable("v1", &c).unwrap();
    assert_eq!(again.name(), "v1_1:0");
    assert_eq!(again.value().name(), "v1_1/read:0");
    assert_eq!(g.global_variables().len(), 4);
}

#[test]
fn runs_to_manifest_values() {
    let (g, vars, add, add_1) = seed004_graph();
    let sess = Session::new(&g).unwrap();
    let err = sess.run(&[], &[&add_1], &[]).unwrap_err();
    assert_eq!(err.code, tensorgraph::Code::FailedPrecondition);
    assert!(err.message.contains("Attempting to use uninitialized value v1"), "{err}");
    for v in &vars {
        sess.run_targets(&[v.initializer()]).unwrap();
    }
    let out = sess.run(&[], &[&add, &add_1], &[]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![3.0]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![6.0]);
    // feeding an intermediate tensor replaces its value
    let out = sess.run(&[(&add, Tensor::new(&[1], vec![10.0f32]).unwrap())], &[&add_1], &[]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![13.0]);
    // a float64 value is converted to the tensor's float32, as TensorFlow's feed_dict does
    let out = sess.run(&[(&add, Tensor::new(&[1], vec![1.0f64]).unwrap())], &[&add_1], &[]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![4.0]);
    // wrong dtype and shape feeds name the tensor
    let e = sess.run(&[(&add, Tensor::new(&[1], vec![true]).unwrap())], &[&add_1], &[]).unwrap_err();
    assert_eq!(e.code, tensorgraph::Code::InvalidArgument);
    assert!(
        e.message.starts_with("Cannot feed a tensor of dtype bool for Tensor add:0, which has dtype float32"),
        "{e}"
    );
    let e = sess.run(&[(&add, Tensor::new(&[2], vec![1.0f32, 2.0]).unwrap())], &[&add_1], &[]).unwrap_err();
    assert!(e.message.contains("Cannot feed value of shape [2] for Tensor add:0, which has shape [1]"), "{e}");
    let ten = || Tensor::new(&[1], vec![10.0f32]).unwrap();
    let e = sess.run(&[(&add, ten()), (&add, ten())], &[&add_1], &[]).unwrap_err();
    assert_eq!(e.code, tensorgraph::Code::InvalidArgument);
    assert!(e.message.contains("Tensor add:0 is fed more than once"), "{e}");
    let _ = DType::Float;
}

#[test]
fn lookups_by_name() {
    let (g, _, add, _) = seed004_graph();
    assert_eq!(g.tensor_by_name("add:0").unwrap(), add);
    assert_eq!(g.operation_by_name("add").unwrap(), add.op());
    let e = g.tensor_by_name("add").unwrap_err();
    assert!(e.message.contains("write 'add:0'"), "{e}");
    let e = g.operation_by_name("add:0").unwrap_err();
    assert_eq!(e.code, tensorgraph::Code::InvalidArgument);
    assert_eq!(g.tensor_by_name("nope:0").unwrap_err().code, tensorgraph::Code::NotFound);
    assert_eq!(g.tensor_by_name("add:3").unwrap_err().code, tensorgraph::Code::OutOfRange);
}

#[test]
fn saver_restores_the_fixture_checkpoint() {
    let (g, vars, add, add_1) = seed004_graph();
    let sess = Session::new(&g).unwrap();
    let fixture = common::fixtures();
    // variables are zeroed first, so the values can only come from the checkpoint
    for v in &vars {
        sess.set_variable_value(v.op(), Tensor::new(&[1], vec![0.0f32]).unwrap()).unwrap();
    }
    tensorgraph::train::Saver::new(&g).unwrap().restore(&sess, fixture.join("seed004/model.ckpt")).unwrap();
    let out = sess.run(&[], &[&add, &add_1], &[]).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![3.0]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![6.0]);
    // and saving writes what TensorFlow wrote, byte for byte
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tensorgraph::train::Saver::new(&g).unwrap().save(&sess, tmp.path().join("model.ckpt")).unwrap();
    for suffix in [".index", ".data-00000-of-00001"] {
        let ours = std::fs::read(format!("{}{suffix}", prefix.display())).unwrap();
        let tf = std::fs::read(fixture.join(format!("seed004/model.ckpt{suffix}"))).unwrap();
        assert_eq!(ours, tf, "model.ckpt{suffix}");
    }
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("checkpoint")).unwrap(),
        "model_checkpoint_path: \"model.ckpt\"\nall_model_checkpoint_paths: \"model.ckpt\"\n"
    );
}
