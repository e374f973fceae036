//! Resource variables are keyed as TensorFlow's resource manager keys them: by the
//! `VarHandleOp`'s (container, shared_name), an empty container being `localhost`, not by
//! the node. `tests/data/resource_shared_name/graph.pbtxt` (by
//! `scripts/gen_resource_shared_name.py`) has six handles to float [2] variables:
//! `a`, `b` (shared_name `v`), `c`, `d` (shared_name empty), `e` (container `box`, `v`) and
//! `f` (container `localhost`, `v`); the values are TensorFlow 2.21's.

use std::path::Path;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::ops::resource_variable::{resource_key, ANONYMOUS_NAME};
use tensorgraph::{Code, Graph, Session, Tensor};

fn graph() -> Graph {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/resource_shared_name/graph.pbtxt");
    let gd = read_graph_def_any(path).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

fn read(sess: &Session, g: &Graph, name: &str) -> tensorgraph::Result<Vec<f32>> {
    let t = sess.fetch(&[], &g.tensor_by_name(&format!("read_{name}:0")).unwrap())?;
    Ok(t.to_vec::<f32>().unwrap())
}

#[test]
fn handles_with_one_container_and_shared_name_share_one_variable() {
    let g = graph();
    let sess = Session::new(&g).unwrap();
    let op = |n: &str| g.operation_by_name(n).unwrap();
    sess.run_targets(&[&op("assign_a"), &op("assign_c")]).unwrap();
    // TensorFlow 2.21: read_a, read_b, read_f [1, 2]; read_c, read_d [3, 4]; read_e fails
    assert_eq!(read(&sess, &g, "a").unwrap(), [1.0, 2.0]);
    assert_eq!(read(&sess, &g, "b").unwrap(), [1.0, 2.0]);
    assert_eq!(read(&sess, &g, "f").unwrap(), [1.0, 2.0]);
    assert_eq!(read(&sess, &g, "c").unwrap(), [3.0, 4.0]);
    assert_eq!(read(&sess, &g, "d").unwrap(), [3.0, 4.0]);
    let e = read(&sess, &g, "e").unwrap_err();
    assert_eq!(e.code, Code::FailedPrecondition, "{e}");
    assert!(e.message.contains("Read of uninitialized variable e"), "{e}");
    // an update through one handle is seen through the others (TF: read_a [11, 12])
    sess.run_targets(&[&op("add_to_b")]).unwrap();
    assert_eq!(read(&sess, &g, "a").unwrap(), [11.0, 12.0]);
    assert_eq!(read(&sess, &g, "f").unwrap(), [11.0, 12.0]);
    // the session's direct access (what restore uses) goes through the same key
    assert_eq!(sess.variable_value(&op("b")).unwrap().to_vec::<f32>().unwrap(), [11.0, 12.0]);
    sess.set_variable_value(&op("e"), Tensor::vector(vec![5f32, 6.0])).unwrap();
    assert_eq!(read(&sess, &g, "e").unwrap(), [5.0, 6.0]);
    assert_eq!(read(&sess, &g, "a").unwrap(), [11.0, 12.0]);
}

#[test]
fn sessions_do_not_share_variables() {
    let g = graph();
    let (s1, s2) = (Session::new(&g).unwrap(), Session::new(&g).unwrap());
    s1.run_targets(&[&g.operation_by_name("assign_a").unwrap()]).unwrap();
    assert_eq!(read(&s1, &g, "b").unwrap(), [1.0, 2.0]);
    assert_eq!(read(&s2, &g, "b").unwrap_err().code, Code::FailedPrecondition);
}

#[test]
fn resource_key_follows_tensorflows_rule() {
    let g = graph();
    let key = |n: &str| resource_key(&g.operation_by_name(n).unwrap().node()).unwrap();
    let k = |c: &str, s: &str| Some((c.as_bytes().to_vec(), s.as_bytes().to_vec()));
    assert_eq!(key("a"), k("localhost", "v"));
    assert_eq!(key("c"), k("localhost", ""));
    assert_eq!(key("e"), k("box", "v"));
    assert_eq!(key("f"), k("localhost", "v"));
}

#[test]
fn anonymous_handles_do_not_share() {
    // the same graph with shared_name `v` replaced by TF's ResourceHandle::ANONYMOUS_NAME
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/resource_shared_name/graph.pbtxt");
    let text = std::fs::read_to_string(path).unwrap().replace("s: \"v\"", &format!("s: \"{ANONYMOUS_NAME}\""));
    let dir = tempfile::tempdir().unwrap();
    let anon = dir.path().join("anonymous.pbtxt");
    std::fs::write(&anon, text).unwrap();
    let g = Graph::new();
    g.import_graph_def(&read_graph_def_any(&anon).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    assert_eq!(resource_key(&g.operation_by_name("a").unwrap().node()).unwrap(), None);
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.operation_by_name("assign_a").unwrap()]).unwrap();
    assert_eq!(read(&sess, &g, "a").unwrap(), [1.0, 2.0]);
    for other in ["b", "f"] {
        let e = read(&sess, &g, other).unwrap_err();
        assert_eq!(e.code, Code::FailedPrecondition, "{other}: {e}");
    }
}
