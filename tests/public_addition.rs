//! tensorflow/rust's `examples/addition/model.pb` (`tests/data/public`, source and licence
//! in its README.md): a TF2 `tf.function` graph written with `tf.io.write_graph`, z = x + y
//! of two int32 scalar placeholders (`AddV2`, producer 1882), to TensorFlow 2.21's value.

use std::path::PathBuf;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::{Graph, Session, Tensor};

#[test]
fn addition_pb_adds_two_int32_scalars() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/public/tensorflow-rust/examples/addition/model.pb");
    let gd = read_graph_def_any(path).unwrap();
    assert_eq!(gd.versions.as_ref().map(|v| v.producer), Some(1882));
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    assert_eq!(g.operation_by_name("z").unwrap().op_type(), "AddV2");
    let t = |n: &str| g.tensor_by_name(n).unwrap();
    let sess = Session::new(&g).unwrap();
    let z =
        sess.run(&[(&t("x:0"), Tensor::scalar(2i32)), (&t("y:0"), Tensor::scalar(3i32))], &[&t("z:0")], &[]).unwrap();
    // TensorFlow 2.21: 5
    assert_eq!(z[0].to_vec::<i32>().unwrap(), [5]);
    assert_eq!(z[0].shape(), [] as [usize; 0]);
}
