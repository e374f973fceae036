//! Prepared kernels of the array, shape, conv, nn and random ops: attrs are parsed once
//! when a session plans a run (an attr of the wrong kind is refused earlier, by the op
//! builder's schema check, naming the node and the attr), and a prepared kernel runs many
//! times.

use tensorgraph::graph::AttrValue;
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor};

#[test]
fn a_bad_seed_attr_names_the_node_and_the_attr() {
    let g = Graph::new();
    let s = g.scope();
    let shape = ops::constant(&s.named("shape"), Tensor::vector(vec![2i32])).unwrap();
    let err = s
        .op("RandomUniform", "r")
        .input(&shape)
        .attr("dtype", DType::Float)
        .attr("seed", AttrValue::String(b"x".to_vec()))
        .attr("seed2", 0i64)
        .attr("T", DType::Int32)
        .build_output()
        .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(err.message.contains("{{node r}}") && err.message.contains("'seed'"), "{}", err.message);
}

#[test]
fn an_unfed_placeholder_names_itself_and_its_dtype() {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("images"), DType::Double, [None, Some(3)]).unwrap();
    let err = Session::new(&g).unwrap().run(&[], &[&x], &[]).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument, "{err}");
    assert!(err.message.contains("'images'") && err.message.contains("float64"), "{}", err.message);
}

#[test]
fn prepared_kernels_run_many_times_with_their_attrs() {
    let g = Graph::new();
    let s = g.scope();
    let x =
        ops::constant(&s, Tensor::new(&[1, 3, 3, 1], (0..9).map(|v| v as f32).collect::<Vec<_>>()).unwrap()).unwrap();
    let f = ops::constant(&s, Tensor::new(&[2, 2, 1, 1], vec![1f32; 4]).unwrap()).unwrap();
    let conv = ops::conv2d(&s, &x, &f, &[1], "VALID").unwrap();
    let pool = ops::max_pool(&s, &x, &[2], &[1], "SAME").unwrap();
    let sq = ops::squeeze(&s, &conv, &[0, 3]).unwrap();
    let cast = ops::cast(&s, &sq, DType::Int64).unwrap();
    let parts = ops::unstack(&s, &cast, 2, 1).unwrap();
    let packed = ops::stack(&s, &parts, 0).unwrap();
    let shape = ops::shape_as(&s, &pool, DType::Int64).unwrap();
    let sess = Session::new(&g).unwrap();
    let first = sess.run(&[], &[&packed, &shape, &pool], &[]).unwrap();
    for _ in 0..3 {
        let again = sess.run(&[], &[&packed, &shape, &pool], &[]).unwrap();
        assert_eq!(again, first);
    }
    // conv [[8, 12], [20, 24]] unstacked along axis 1 and stacked along axis 0 (a transpose)
    assert_eq!(first[0].dtype(), DType::Int64);
    assert_eq!(first[0].to_f64_vec().unwrap(), vec![8.0, 20.0, 12.0, 24.0]);
    assert_eq!(first[1].to_vec::<i64>().unwrap(), vec![1, 3, 3, 1]);
    assert_eq!(first[2].to_f64_vec().unwrap(), vec![4.0, 5.0, 5.0, 7.0, 8.0, 8.0, 7.0, 8.0, 8.0]);
}
