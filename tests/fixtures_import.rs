//! Every TensorFlow-written graph in the fixtures imports and runs here: the mlp meta
//! graph trains 200 steps with TensorFlow's own train op to TensorFlow's losses and
//! weights, the dtypes meta graph restores every dtype, and scopes/graph.pbtxt imports.

mod common;
use common::{fixtures, manifest};
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::{Graph, Session, Tensor};

fn npy_f32(name: &str) -> (Vec<usize>, Vec<f32>) {
    let t = Tensor::read_npy(fixtures().join("mlp").join(name)).unwrap();
    (t.shape().to_vec(), t.to_vec::<f32>().unwrap())
}

fn close(what: &str, got: &[f64], want: &[f64], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= atol + rtol * w.abs(), "{what}[{i}]: got {g}, TensorFlow {w}");
    }
}

#[test]
fn mlp_meta_graph_trains_like_tensorflow() {
    let g = Graph::new();
    let saver = g.import_meta_graph(fixtures().join("mlp/model.ckpt.meta"), &Default::default()).unwrap().unwrap();
    let sess = Session::new(&g).unwrap();
    saver.restore(&sess, fixtures().join("mlp/init.ckpt")).unwrap();
    let (shape, data) = npy_f32("data.npy");
    let labels = Tensor::read_npy(fixtures().join("mlp/labels.npy")).unwrap().to_vec::<i64>().unwrap();
    let (_, losses) = npy_f32("losses.npy");
    let x = g.tensor_by_name("x:0").unwrap();
    let y = g.tensor_by_name("y:0").unwrap();
    let loss = g.tensor_by_name("loss:0").unwrap();
    let train = g.operation_by_name("train").unwrap();
    let xs = Tensor::new(&shape, data).unwrap();
    let ys = Tensor::new(&[labels.len()], labels).unwrap();
    let mut got = Vec::new();
    for _ in 0..losses.len() {
        let out = sess.run(&[(&x, xs.clone()), (&y, ys.clone())], &[&loss], &[&train]).unwrap();
        got.push(out[0].to_f64_vec().unwrap()[0]);
    }
    let want: Vec<f64> = losses.iter().map(|&v| v as f64).collect();
    // 200 Adam steps: float32 rounding differences between kernels accumulate a little
    close("losses", &got, &want, 1e-3, 1e-5);
    let reader = CheckpointReader::open(fixtures().join("mlp/model.ckpt")).unwrap();
    for v in g.trainable_variables() {
        let tf = reader.read(&v.op_name()).unwrap().to_f64_vec().unwrap();
        close(&v.op_name(), &sess.fetch(&[], &v).unwrap().to_f64_vec().unwrap(), &tf, 1e-3, 1e-4);
    }
    let m = manifest("mlp");
    let acc = sess.fetch(&[(&x, xs), (&y, ys)], &g.tensor_by_name("accuracy:0").unwrap()).unwrap();
    close("accuracy", &acc.to_f64_vec().unwrap(), &[m["training"]["final_accuracy"].as_f64().unwrap()], 0.0, 0.01);
}

#[test]
fn dtypes_meta_graph_restores_every_dtype() {
    let g = Graph::new();
    let saver = g.import_meta_graph(fixtures().join("dtypes/model.ckpt.meta"), &Default::default()).unwrap().unwrap();
    let sess = Session::new(&g).unwrap();
    let prefix = fixtures().join("dtypes/model.ckpt");
    saver.restore(&sess, &prefix).unwrap();
    let reader = CheckpointReader::open(&prefix).unwrap();
    let vars = g.global_variables();
    let names: Vec<String> = vars.iter().map(|v| v.op_name()).collect();
    let want: Vec<String> = manifest("dtypes")["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, want);
    for v in vars {
        assert_eq!(sess.variable_value(v.op()).unwrap(), reader.read(&v.op_name()).unwrap(), "{}", v.op_name());
    }
}

#[test]
fn scopes_pbtxt_imports_with_tensorflows_names() {
    let gd = read_graph_def_any(fixtures().join("scopes/graph.pbtxt")).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new().prefix("")).unwrap();
    let want = manifest("scopes")["graph_ops"].clone();
    let got: Vec<(String, String)> = g.operations().iter().map(|o| (o.name(), o.op_type())).collect();
    let want: Vec<(String, String)> = want
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect();
    let mut got_sorted = got.clone();
    got_sorted.sort();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(got_sorted, want_sorted);
    // and it runs: initialize every variable, then evaluate an op
    let sess = Session::new(&g).unwrap();
    let inits: Vec<_> =
        g.operations().into_iter().filter(|o| o.op_type() == "Assign" && o.name().ends_with("/Assign")).collect();
    let refs: Vec<&tensorgraph::Operation> = inits.iter().collect();
    sess.run_targets(&refs).unwrap();
    assert_eq!(sess.fetch(&[], &g.tensor_by_name("add:0").unwrap()).unwrap(), Tensor::scalar(2.0f32));
}
