//! GraphDef version semantics (TensorFlow 2.21's files in tests/data/offpath, made by
//! scripts/gen_offpath.py): a `Placeholder` whose `shape` attr is `{}` has any shape in a
//! producer-9 GraphDef and is a scalar in a producer-27 one; imports keep the GraphDef's
//! `versions`, so export and `freeze` write them (byte-identical to TensorFlow's
//! `convert_variables_to_constants`).

mod common;
use common::repo_root;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::format::proto::{GraphDef, VersionDef};
use tensorgraph::io::graph_def::{freeze, import_graph_def, read_graph_def_text, ImportGraphDefOptions};
use tensorgraph::{ops, Code, DType, Graph, Session, Shape, Tensor};

fn data(name: &str) -> GraphDef {
    read_graph_def_text(repo_root().join("tests/data/offpath").join(name)).unwrap()
}

fn import(gd: &GraphDef) -> Graph {
    let g = Graph::new();
    import_graph_def(&g, gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    g
}

/// `c = a * b` with a = [1, 2, 3], b = 2.
fn multiply(g: &Graph) -> tensorgraph::Result<Tensor> {
    let sess = Session::new(g).unwrap();
    let a = g.tensor_by_name("a:0").unwrap();
    let b = g.tensor_by_name("b:0").unwrap();
    let c = g.tensor_by_name("c:0").unwrap();
    sess.fetch(&[(&a, Tensor::vector(vec![1.0f32, 2.0, 3.0])), (&b, Tensor::scalar(2.0f32))], &c)
}

#[test]
fn an_empty_placeholder_shape_is_any_shape_up_to_producer_21() {
    // producer 9: TensorFlow gives a:0 an unknown shape and computes [2, 4, 6]
    let g = import(&data("placeholder_v9.pbtxt"));
    assert_eq!(g.tensor_by_name("a:0").unwrap().shape().rank(), None);
    assert_eq!(multiply(&g).unwrap().to_f64_vec().unwrap(), [2.0, 4.0, 6.0]);
    // producer 27: a scalar; TensorFlow: "Cannot feed value of shape (3,) for Tensor a:0,
    // which has shape ()"
    let g = import(&data("placeholder_v27.pbtxt"));
    assert_eq!(g.tensor_by_name("a:0").unwrap().shape(), Shape::scalar());
    let e = multiply(&g).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(e.message, "Cannot feed value of shape [3] for Tensor a:0, which has shape []");
    // the boundary: 21 any shape, 22 a scalar; no versions at all is version 0
    for (producer, any) in [(Some(21), true), (Some(22), false), (None, true)] {
        let mut gd = data("placeholder_v9.pbtxt");
        gd.versions = producer.map(|p| VersionDef { producer: p, ..Default::default() });
        let g = import(&gd);
        assert_eq!(g.tensor_by_name("a:0").unwrap().shape().rank().is_none(), any, "{producer:?}");
    }
    // PlaceholderV2 takes `{}` as a scalar whatever the producer
    let mut gd = data("placeholder_v9.pbtxt");
    gd.node[0].op = "PlaceholderV2".into();
    assert_eq!(import(&gd).tensor_by_name("a:0").unwrap().shape(), Shape::scalar());
}

#[test]
fn import_and_export_keep_the_graph_def_versions() {
    // a graph built here writes TensorFlow 2.21's
    let g = Graph::new();
    ops::placeholder(&g.scope().named("x"), DType::Float, Shape::scalar()).unwrap();
    assert_eq!(g.to_graph_def().versions, Some(VersionDef { producer: 2474, min_consumer: 0, bad_consumers: vec![] }));
    // an imported GraphDef's versions round-trip
    let mut gd = data("placeholder_v9.pbtxt");
    gd.versions = Some(VersionDef { producer: 9, min_consumer: 3, bad_consumers: vec![7, 5] });
    let g = import(&gd);
    assert_eq!(g.to_graph_def().versions, Some(VersionDef { producer: 9, min_consumer: 3, bad_consumers: vec![5, 7] }));
    assert_eq!(g.to_graph_def_with_shapes().versions, g.to_graph_def().versions);
    // a second import merges: the lower producer, the higher min_consumer, all bad consumers
    let more = graph_def_from_text(
        "node { name: \"n\" op: \"NoOp\" } versions { producer: 27 min_consumer: 12 bad_consumers: 6 }",
    )
    .unwrap();
    import_graph_def(&g, &more, &ImportGraphDefOptions::new()).unwrap();
    assert_eq!(g.versions(), VersionDef { producer: 9, min_consumer: 12, bad_consumers: vec![5, 6, 7] });
    // a failed import leaves them as they were
    let bad = graph_def_from_text(
        "node { name: \"m\" op: \"NoOp\" input: \"^ghost\" } versions { producer: 1 min_consumer: 20 }",
    )
    .unwrap();
    assert!(import_graph_def(&g, &bad, &ImportGraphDefOptions::new()).is_err());
    assert_eq!(g.versions(), VersionDef { producer: 9, min_consumer: 12, bad_consumers: vec![5, 6, 7] });
}

#[test]
fn freeze_of_a_producer_26_graph_is_tensorflows_byte_for_byte() {
    let g = import(&data("freeze_v26.pbtxt"));
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&g.operation_by_name("w/Assign").unwrap()]).unwrap();
    let frozen = freeze(&g, &sess, &["out"]).unwrap();
    assert_eq!(frozen.versions.as_ref().map(|v| v.producer), Some(26));
    let tf = data("freeze_v26_frozen.pbtxt");
    assert_eq!(frozen, tf);
    assert_eq!(frozen.to_bytes(), tf.to_bytes());
}
