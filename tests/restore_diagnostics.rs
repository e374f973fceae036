//! Diagnostics of issue 12 checked on its examples: an input-mapped placeholder imported
//! into the root next to a host node of its name (TensorFlow names it `batch_1`), restore
//! status codes (InvalidArgument for a dtype or shape mismatch), "did you mean" for a name
//! under an import prefix, and the note for a model built twice in one graph.

use tensorgraph::init::Initializer;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::train::Saver;
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor};

/// TensorFlow 2.21 (`import_graph_def(gd, input_map={"batch:0": host_batch}, name="")` with
/// a host Const `batch`): nodes `batch` (Const), `batch_1` (Placeholder), `y/y`, `y` (Mul
/// of `batch` and `y/y`); `y` evaluates to `[2, 6]`.
#[test]
fn an_input_mapped_node_does_not_clash_with_the_host_graph() {
    let src = Graph::new();
    let s = src.scope();
    let b = ops::placeholder(&s.named("batch"), DType::Float, &[2usize][..]).unwrap();
    let (y, inner) = s.op_scope("y");
    let two = ops::constant(&inner.named("y"), Tensor::scalar(2.0f32)).unwrap();
    ops::mul(&y, &b, &two).unwrap();
    let gd = src.to_graph_def();

    let g = Graph::new();
    let host = ops::constant(&g.scope().named("batch"), Tensor::vector(vec![1.0f32, 3.0])).unwrap();
    let opts = ImportGraphDefOptions::new().prefix("").input_map("batch:0", &host).return_elements(&["y:0"]);
    let r = import_graph_def(&g, &gd, &opts).unwrap();
    let ops_now: Vec<(String, String)> = g.operations().iter().map(|o| (o.name(), o.op_type())).collect();
    let want: Vec<(String, String)> = [("batch", "Const"), ("batch_1", "Placeholder"), ("y/y", "Const"), ("y", "Mul")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(ops_now, want);
    let y = r.output(0).unwrap();
    assert_eq!(Session::new(&g).unwrap().fetch(&[], &y).unwrap().to_vec::<f32>().unwrap(), [2.0, 6.0]);
    // a node that is really added still may not clash
    let e =
        import_graph_def(&g, &gd, &ImportGraphDefOptions::new().prefix("").input_map("batch:0", &host)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("Node 'y/y' already exists in the graph"), "{e}");
}

#[test]
fn the_issues_name_is_found_under_its_import_prefix() {
    let src = Graph::new();
    ops::constant(&src.scope().named("output"), Tensor::scalar(1.0f32)).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &src.to_graph_def(), &ImportGraphDefOptions::new()).unwrap();
    let e = g.tensor_by_name("output:0").unwrap_err();
    assert!(e.message.contains("Did you mean 'import/output:0'?"), "{e}");
}

fn saved(dir: &std::path::Path) -> std::path::PathBuf {
    let g = Graph::new();
    let s = g.scope();
    s.get_variable("dense/kernel", &[2usize, 2][..], DType::Float, Initializer::Zeros).unwrap();
    s.get_variable("dense/bias", &[2usize][..], DType::Float, Initializer::Zeros).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    Saver::new(&g).unwrap().write_meta_graph(false).save(&sess, dir.join("m")).unwrap()
}

#[test]
fn restore_mismatches_are_invalid_argument() {
    let tmp = tempfile::tempdir().unwrap();
    let p = saved(tmp.path());
    let g = Graph::new();
    let s = g.scope();
    s.get_variable("dense/kernel", &[3usize, 2][..], DType::Float, Initializer::Zeros).unwrap();
    s.get_variable("dense/bias", &[2usize][..], DType::Double, Initializer::Zeros).unwrap();
    let e = Saver::new(&g).unwrap().restore(&Session::new(&g).unwrap(), &p).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("2 dtype/shape mismatch(es)"), "{e}");
}

#[test]
fn a_model_built_twice_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let p = saved(tmp.path());
    // the model built a second time in the same graph: its variables are dense_1/...
    let g = Graph::new();
    let s = g.scope();
    s.get_variable("dense/kernel", &[2usize, 2][..], DType::Float, Initializer::Zeros).unwrap();
    s.get_variable("dense/bias", &[2usize][..], DType::Float, Initializer::Zeros).unwrap();
    let k1 = s.get_variable("dense_1/kernel", &[2usize, 2][..], DType::Float, Initializer::Zeros).unwrap();
    let b1 = s.get_variable("dense_1/bias", &[2usize][..], DType::Float, Initializer::Zeros).unwrap();
    let saver = Saver::with_var_list(&[k1, b1]).unwrap();
    let e = saver.restore(&Session::new(&g).unwrap(), &p).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(
        e.message.ends_with(
            "Every missing name is a checkpoint name with a suffix _1, _2, ... (dense_1/bias is missing, dense/bias is \
             in the checkpoint): the model was probably built twice in the same graph, so that the second build's \
             variables were renamed. Build the model once, or build it again in a new Graph (Graph::new()) before \
             restoring."
        ),
        "{e}"
    );
}
