//! Variable scopes and get_variable: the first seed's scenario and TensorFlow's naming
//! and error texts from the `scopes` fixture.

use tensorgraph::{init, ops, Code, DType, Graph, Output, Reuse, Scope, Session, Tensor};

/// The first seed's model: forecast() builds its variables with get_variable in scope
/// `weight_def` every time it is called.
fn build_weight_def(root: &Scope, x: &Output) -> tensorgraph::Result<Output> {
    root.variable_scope("weight_def", Reuse::No, |s| {
        let w = s.get_variable("weights", [4, 3], DType::Float, init::glorot_uniform_seeded(1))?;
        let b = s.get_variable("biases", [3], DType::Float, init::zeros())?;
        let mm = ops::matmul(s, x, &w)?;
        ops::add(s, &mm, &b)
    })
}

fn rows() -> Tensor {
    Tensor::new(&[2, 4], vec![1.0f32, 2.0, 3.0, 4.0, -1.0, 0.5, 0.0, 2.0]).unwrap()
}

#[test]
fn building_twice_into_one_graph_fails_with_the_reuse_error() {
    let g = Graph::new();
    let root = g.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(4)]).unwrap();
    build_weight_def(&root, &x).unwrap();
    let err = build_weight_def(&root, &x).unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    assert!(
        err.message.starts_with(
            "Variable weight_def/weights already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:"
        ),
        "{err}"
    );
    assert!(err.message.contains("tests/variable_scopes.rs"), "says where it was first made: {err}");
}

#[test]
fn built_once_two_forecasts_agree() {
    let g = Graph::new();
    let root = g.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(4)]).unwrap();
    let logits = build_weight_def(&root, &x).unwrap();
    let init = root.global_variables_initializer().unwrap();
    assert_eq!(init.name(), "init");
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    let a = sess.fetch(&[(&x, rows())], &logits).unwrap();
    let b = sess.fetch(&[(&x, rows())], &logits).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.shape(), &[2, 3]);
}

#[test]
fn two_separate_graphs_both_work() {
    for _ in 0..2 {
        let g = Graph::new();
        let root = g.scope();
        let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(4)]).unwrap();
        let logits = build_weight_def(&root, &x).unwrap();
        assert_eq!(g.global_variables()[0].name(), "weight_def/weights:0");
        let sess = Session::new(&g).unwrap();
        sess.run_targets(&[&root.global_variables_initializer().unwrap()]).unwrap();
        assert_eq!(sess.fetch(&[(&x, rows())], &logits).unwrap().shape(), &[2, 3]);
    }
}

#[test]
fn reuse_modes() {
    let g = Graph::new();
    let root = g.scope();
    let w = root.variable_scope("vs", Reuse::No, |s| s.get_variable("w", [2], DType::Float, None)).unwrap();
    assert_eq!(w.name(), "vs/w:0");
    // Yes returns the same variable, Auto too; nested scopes inherit reuse
    let again = root.variable_scope("vs", Reuse::Yes, |s| s.get_variable("w", [2], DType::Float, None)).unwrap();
    assert_eq!(again, w);
    let auto = root.variable_scope("vs", Reuse::Auto, |s| s.get_variable("w", [2], DType::Float, None)).unwrap();
    assert_eq!(auto, w);
    let nested = root
        .variable_scope("outer", Reuse::No, |s| {
            s.variable_scope("inner", Reuse::No, |s| s.get_variable("w", [1], DType::Float, None))
        })
        .unwrap();
    let inherited = root
        .variable_scope("outer", Reuse::Yes, |s| {
            s.variable_scope("inner", Reuse::Inherit, |s| s.get_variable("w", [1], DType::Float, None))
        })
        .unwrap();
    assert_eq!(nested.name(), "outer/inner/w:0");
    assert_eq!(inherited, nested);
    // reuse_variables() turns reuse on for the rest of the scope
    root.variable_scope("rv", Reuse::No, |s| {
        let a = s.get_variable("w", [1], DType::Float, None)?;
        s.reuse_variables();
        let b = s.get_variable("w", [1], DType::Float, None)?;
        assert_eq!(a, b);
        Ok(())
    })
    .unwrap();
    // Auto creates when missing
    let created = root.variable_scope("auto", Reuse::Auto, |s| s.get_variable("w", [2], DType::Float, None)).unwrap();
    assert_eq!(created.name(), "auto/w:0");
}

#[test]
fn reuse_errors_have_tensorflow_texts() {
    let g = Graph::new();
    let root = g.scope();
    root.variable_scope("vs", Reuse::No, |s| s.get_variable("w", [2], DType::Float, None)).unwrap();
    let e = root.variable_scope("vs", Reuse::Yes, |s| s.get_variable("missing", [3], DType::Float, None)).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        "Variable vs/missing does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
    );
    let e = root.variable_scope("vs", Reuse::Yes, |s| s.get_variable("w", [3], DType::Float, None)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, "Trying to share variable vs/w, but specified shape (3,) and found shape (2,).");
    let e = root.variable_scope("vs", Reuse::Yes, |s| s.get_variable("w", [2], DType::Double, None)).unwrap_err();
    assert!(e.message.contains("specified dtype float64 and found dtype float32"), "{e}");
}

#[test]
fn names_match_the_scopes_fixture() {
    let g = Graph::new();
    let root = g.scope();
    let c = |s: &Scope, name: Option<&str>, v: f32| {
        let s = match name {
            Some(n) => s.named(n),
            None => s.clone(),
        };
        ops::constant(&s, Tensor::scalar(v)).unwrap()
    };
    let c0 = c(&root, Some("c"), 1.0);
    let names: Vec<String> = vec![
        c0.name(),
        c(&root, Some("c"), 2.0).name(),
        c(&root, Some("c"), 3.0).name(),
        c(&root, Some("c_1"), 4.0).name(),
        c(&root, None, 5.0).name(),
        c(&root, None, 6.0).name(),
        ops::add(&root, &c0, &c0).unwrap().name(),
        ops::add(&root, &c0, &c0).unwrap().name(),
        ops::add(&root.named("Add"), &c0, &c0).unwrap().name(),
        ops::identity(&root, &c0).unwrap().name(),
        ops::identity(&root, &c0).unwrap().name(),
    ];
    assert_eq!(
        names,
        [
            "c:0",
            "c_1:0",
            "c_2:0",
            "c_1_1:0",
            "Const:0",
            "Const_1:0",
            "add:0",
            "add_1:0",
            "Add_2:0",
            "Identity:0",
            "Identity_1:0"
        ]
    );
    let ns = root.name_scope("ns");
    assert_eq!(ops::add(&ns, &c0, &c0).unwrap().name(), "ns/add:0");
    assert_eq!(c(&ns, Some("k"), 0.0).name(), "ns/k:0");
    assert_eq!(ops::identity(&ns.name_scope("inner").named("id"), &c0).unwrap().name(), "ns/inner/id:0");
    assert_eq!(ops::identity(&root.name_scope("ns").named("id"), &c0).unwrap().name(), "ns_1/id:0");
    assert_eq!(ops::identity(&root.name_scope("ns/").named("id2"), &c0).unwrap().name(), "ns/id2:0");
    assert_eq!(root.name_scope("ns").prefix(), "ns_2");
    // a variable scope: get_variable ignores name scopes, Variable uses them
    let vs = root.variable_scope_value("vs", Reuse::No);
    let w = vs.get_variable("w", [2], DType::Float, None).unwrap();
    assert_eq!(w.name(), "vs/w:0");
    assert_eq!(ops::identity(&vs.named("op"), &c0).unwrap().name(), "vs/op:0");
    assert_eq!(vs.variable_from_value("tv", Tensor::scalar(1.0f32)).unwrap().name(), "vs/tv:0");
    let nsin = vs.name_scope("nsin");
    assert_eq!(nsin.get_variable("w_ns", [1], DType::Float, None).unwrap().name(), "vs/w_ns:0");
    assert_eq!(nsin.variable_from_value("tv_ns", Tensor::scalar(1.0f32)).unwrap().name(), "vs/nsin/tv_ns:0");
    let ops_of_w: Vec<String> = g.operations().iter().map(|o| o.name()).filter(|n| n.starts_with("vs/w/")).collect();
    assert_eq!(
        ops_of_w,
        [
            "vs/w/Initializer/random_uniform/shape",
            "vs/w/Initializer/random_uniform/min",
            "vs/w/Initializer/random_uniform/max",
            "vs/w/Initializer/random_uniform/RandomUniform",
            "vs/w/Initializer/random_uniform/sub",
            "vs/w/Initializer/random_uniform/mul",
            "vs/w/Initializer/random_uniform",
            "vs/w/Assign",
            "vs/w/read",
        ]
    );
    // reopening a variable scope opens a new name scope
    let vs2 = root.variable_scope_value("vs", Reuse::Yes);
    assert_eq!(vs2.get_variable("w", [2], DType::Float, None).unwrap(), w);
    assert_eq!(ops::identity(&vs2.named("op"), &c0).unwrap().name(), "vs_1/op:0");
    // Variables named v, v, unnamed, unnamed; get_variable("v") then makes v_2
    assert_eq!(root.variable_from_value("v", Tensor::scalar(0.0f32)).unwrap().name(), "v:0");
    assert_eq!(root.variable_from_value("v", Tensor::scalar(0.0f32)).unwrap().name(), "v_1:0");
    assert_eq!(root.variable_from_value("Variable", Tensor::scalar(0.0f32)).unwrap().name(), "Variable:0");
    assert_eq!(root.get_variable("v", [1], DType::Float, None).unwrap().name(), "v_2:0");
}

#[test]
fn initializers_make_the_values_they_promise() {
    let g = Graph::new();
    let s = g.scope();
    let z = s.get_variable("z", [2, 3], DType::Float, init::zeros()).unwrap();
    let o = s.get_variable("o", [3], DType::Double, init::ones()).unwrap();
    let k = s.get_variable("k", [2], DType::Int32, init::constant(7.0)).unwrap();
    let u = s.get_variable("u", [1000], DType::Float, init::random_uniform(-2.0, 3.0, Some(5))).unwrap();
    let n = s.get_variable("n", [4000], DType::Double, init::random_normal(1.0, 2.0, Some(6))).unwrap();
    let t = s.get_variable("t", [4000], DType::Double, init::truncated_normal(0.0, 1.0, Some(7))).unwrap();
    let gl = s.get_variable("gl", [10, 20], DType::Float, init::glorot_uniform_seeded(3)).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    let f = |v: &tensorgraph::Variable| sess.fetch(&[], v).unwrap().to_f64_vec().unwrap();
    assert_eq!(f(&z), vec![0.0; 6]);
    assert_eq!(f(&o), vec![1.0; 3]);
    assert_eq!(sess.fetch(&[], &k).unwrap().to_vec::<i32>().unwrap(), vec![7, 7]);
    let uv = f(&u);
    assert!(uv.iter().all(|&x| (-2.0..3.0).contains(&x)));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!((mean(&uv) - 0.5).abs() < 0.2);
    let nv = f(&n);
    let sd = (nv.iter().map(|x| (x - mean(&nv)).powi(2)).sum::<f64>() / nv.len() as f64).sqrt();
    assert!((mean(&nv) - 1.0).abs() < 0.15 && (sd - 2.0).abs() < 0.15, "mean {} sd {sd}", mean(&nv));
    assert!(f(&t).iter().all(|x| x.abs() <= 2.0));
    let limit = (6.0f64 / 30.0).sqrt();
    assert!(f(&gl).iter().all(|x| x.abs() <= limit));
    // seeded: a second session repeats the values
    let sess2 = Session::new(&g).unwrap();
    sess2.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    assert_eq!(sess2.fetch(&[], &u).unwrap().to_f64_vec().unwrap(), uv);
}

/// TensorFlow's `v.name`, `v.op.name`, `str`-like display and `tf.convert_to_tensor(v)`:
/// the variable's own accessors name `ws/w:0`, its value (what it derefs to) is `ws/w/read:0`.
#[test]
fn variable_name_op_and_value_are_tensorflows() {
    let g = Graph::new();
    let root = g.scope();
    let (w, r) = root
        .variable_scope("ws", Reuse::No, |s| {
            let w = s.get_variable("w", [2], DType::Float, None)?;
            let r = s.with_resource_variables(true).get_variable("r", [2], DType::Float, None)?;
            Ok((w, r))
        })
        .unwrap();
    assert_eq!(w.name(), "ws/w:0");
    assert_eq!(w.op_name(), "ws/w");
    assert_eq!(w.to_string(), "ws/w:0");
    assert_eq!(format!("{w}"), "ws/w:0");
    assert_eq!(w.op().name(), "ws/w");
    assert_eq!(w.op().op_type(), "VariableV2");
    assert_eq!(w.reference().name(), "ws/w:0");
    assert_eq!(w.reference().op(), *w.op());
    assert_eq!(w.value().name(), "ws/w/read:0");
    assert_eq!(w.value().op().op_type(), "Identity");
    let as_tensor: &Output = &w;
    assert_eq!(as_tensor.name(), "ws/w/read:0");
    assert_eq!(as_tensor.op().name(), "ws/w/read");

    assert_eq!(r.name(), "ws/r:0");
    assert_eq!(r.op_name(), "ws/r");
    assert_eq!(r.to_string(), "ws/r:0");
    assert_eq!(r.op().op_type(), "VarHandleOp");
    assert_eq!(r.value().name(), "ws/r/Read/ReadVariableOp:0");
}

/// get_variable without an initializer, as TensorFlow 2.21: string and bool variables
/// start as zeros (`s/Initializer/zeros`: empty strings, false), a complex one needs an
/// initializer; an initializer that cannot make the dtype names the variable.
#[test]
fn default_initializers_by_dtype_and_errors_naming_the_variable() {
    let g = Graph::new();
    let s = g.scope();
    let st = s.get_variable("s", [2], DType::String, None).unwrap();
    let b = s.get_variable("b", [2], DType::Bool, None).unwrap();
    assert_eq!(g.operation_by_name("s/Initializer/zeros").unwrap().op_type(), "Const");
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    assert_eq!(sess.fetch(&[], &st).unwrap(), Tensor::strings(&[2], vec![vec![], vec![]]).unwrap());
    assert_eq!(sess.fetch(&[], &b).unwrap().to_vec::<bool>().unwrap(), vec![false, false]);

    let e = s.get_variable("c", [2], DType::Complex64, None).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("An initializer for variable c of complex64 is required"), "{e}");
    let e = s.get_variable("t", [3], DType::String, init::ones()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with(
            "initial value of variable t (string [3]): Initializer::Ones makes numbers, not string values"
        ),
        "{e}"
    );
    let e = s.get_variable("i", [3], DType::Int32, init::glorot_uniform()).unwrap_err();
    assert!(e.message.starts_with("initial value of variable i (int32 [3]): "), "{e}");
    // a failed variable leaves no trace: the names are free
    assert!(g.operation_by_name("t").is_err() && g.operation_by_name("i").is_err());
}
