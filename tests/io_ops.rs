//! The saver subgraph ops run like TensorFlow's `save/...` nodes.

use tensorgraph::graph::AttrValue;
use tensorgraph::{ops, DType, Graph, Session, Tensor};

fn strs(v: &[&str]) -> Tensor {
    Tensor::strings(&[v.len()], v.iter().map(|s| s.as_bytes().to_vec()).collect()).unwrap()
}

#[test]
fn save_v2_then_restore_v2_through_assign() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("model.ckpt").to_string_lossy().into_owned();
    let g = Graph::new();
    let s = g.scope();
    let a = s.variable_from_value("a", Tensor::new(&[2], vec![1f32, 2.]).unwrap()).unwrap();
    let b = s.variable_from_value("b", Tensor::scalar(7i64)).unwrap();
    let sv = s.name_scope("save");
    let filename =
        ops::constant(&sv.named("Const"), Tensor::strings(&[], vec![prefix.clone().into_bytes()]).unwrap()).unwrap();
    let names = ops::constant(&sv.named("SaveV2/tensor_names"), strs(&["a", "b"])).unwrap();
    let slices = ops::constant(&sv.named("SaveV2/shape_and_slices"), strs(&["", ""])).unwrap();
    let save = sv
        .op("SaveV2", "SaveV2")
        .input(&filename)
        .input(&names)
        .input(&slices)
        .input(&a)
        .input(&b)
        .attr("dtypes", AttrValue::ListType(vec![DType::Float, DType::Int64]))
        .build()
        .unwrap();
    let restore = sv
        .op("RestoreV2", "RestoreV2")
        .input(&filename)
        .input(&names)
        .input(&slices)
        .attr("dtypes", AttrValue::ListType(vec![DType::Float, DType::Int64]))
        .build()
        .unwrap();
    let ra = a.assign(&sv.named("Assign"), &restore.output(0).unwrap()).unwrap();
    let rb = b.assign(&sv.named("Assign_1"), &restore.output(1).unwrap()).unwrap();
    let restore_all = ops::group(&sv.named("restore_all"), &[&ra.op(), &rb.op()]).unwrap();
    assert_eq!(restore_all.name(), "save/restore_all");

    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&s.global_variables_initializer().unwrap()]).unwrap();
    sess.run_targets(&[&save]).unwrap();
    let reader = tensorgraph::format::checkpoint::CheckpointReader::open(&prefix).unwrap();
    assert_eq!(reader.read("b").unwrap(), Tensor::scalar(7i64));

    let fresh = Session::new(&g).unwrap();
    fresh.run_targets(&[&restore_all]).unwrap();
    assert_eq!(fresh.fetch(&[], &a).unwrap().to_vec::<f32>().unwrap(), vec![1., 2.]);
    assert_eq!(fresh.fetch(&[], &b).unwrap().to_vec::<i64>().unwrap(), vec![7]);

    // a missing key is NotFound naming it
    let bad = sv
        .op("RestoreV2", "RestoreV2")
        .input(&filename)
        .input(&ops::constant(&sv, strs(&["nope"])).unwrap())
        .input(&ops::constant(&sv, strs(&[""])).unwrap())
        .attr("dtypes", AttrValue::ListType(vec![DType::Float]))
        .build()
        .unwrap();
    let e = fresh.fetch(&[], &bad.output(0).unwrap()).unwrap_err();
    assert!(e.message.contains("Key nope not found in checkpoint"), "{e}");
}

#[test]
fn string_join_and_sharded_filename() {
    let g = Graph::new();
    let s = g.scope();
    let a = ops::constant(&s, Tensor::strings(&[], vec![b"dir/model".to_vec()]).unwrap()).unwrap();
    let b = ops::constant(&s, Tensor::strings(&[], vec![b"_temp/part".to_vec()]).unwrap()).unwrap();
    let j = s
        .op("StringJoin", "StringJoin")
        .input(&a)
        .input(&b)
        .attr("N", 2i64)
        .attr("separator", "")
        .build_output()
        .unwrap();
    let shard = ops::constant(&s, Tensor::scalar(0i32)).unwrap();
    let n = ops::constant(&s, Tensor::scalar(1i32)).unwrap();
    let f = s.op("ShardedFilename", "ShardedFilename").input(&j).input(&shard).input(&n).build_output().unwrap();
    let sess = Session::new(&g).unwrap();
    let out = sess.fetch(&[], &f).unwrap();
    assert_eq!(out, Tensor::strings(&[], vec![b"dir/model_temp/part-00000-of-00001".to_vec()]).unwrap());
}
