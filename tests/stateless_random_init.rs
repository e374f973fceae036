//! Issue 9: TensorFlow 2's initializers build the stateless random ops
//! (`StatelessRandomGetKeyCounter` + `StatelessRandomUniformV2` for `glorot_uniform`,
//! `StatelessRandomNormalV2`, `StatelessTruncatedNormalV2`), so a training graph
//! written by `tf.compat.v1.layers` in TensorFlow 2.21 runs its `init` here, and every
//! variable starts with TensorFlow's value.

mod common;
use common::repo_root;
use serde_json::Value;
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::{Graph, Session};

/// `tests/data/stateless_random/init_v2.meta` (`scripts/gen_stateless_random.py`):
/// dense and conv2d layers and get_variable with Keras initializers; after `init`, each
/// variable equals TensorFlow's (`init_values.json`), but `w`, which TensorFlow
/// initializes with an unseeded `RandomUniform`.
#[test]
fn tensorflow_written_init_gives_tensorflows_values() {
    let dir = repo_root().join("tests/data/stateless_random");
    let g = Graph::new();
    g.import_meta_graph(dir.join("init_v2.meta"), &ImportMetaGraphOptions::default()).unwrap();
    let want: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("init_values.json")).unwrap()).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run(&[], &[], &[&g.operation_by_name("init").unwrap()]).unwrap();
    let vars = want["variables"].as_object().unwrap();
    assert_eq!(vars.len(), 9);
    for (name, v) in vars {
        let read = g.tensor_by_name(&format!("{name}/Read/ReadVariableOp:0")).unwrap();
        let got = sess.run(&[], &[&read], &[]).unwrap().remove(0);
        let shape: Vec<usize> = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(got.shape(), shape.as_slice(), "{name}");
        assert_eq!(got.dtype().name(), v["dtype"].as_str().unwrap(), "{name}");
        if name == "w" {
            continue;
        }
        let got = got.to_f64_vec().unwrap();
        for (i, (g, w)) in got.iter().zip(v["values"].as_array().unwrap()).enumerate() {
            let w = w.as_f64().unwrap();
            assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{name}[{i}]: {g} vs TensorFlow {w}");
        }
    }
}

/// The real-model set's `cnn_bn` training graph (`scripts/gen_models.py`, where the
/// models cache exists): its `init` runs, and the layers' kernels equal the values
/// TensorFlow saved in `model.ckpt` right after its own `init`.
#[test]
fn cnn_bn_init_runs_to_tensorflows_initial_values() {
    let dir = match std::env::var_os("TENSORGRAPH_MODELS") {
        Some(d) => std::path::PathBuf::from(d),
        None => match std::env::var_os("HOME") {
            Some(h) => std::path::PathBuf::from(h).join(".cache/tensorgraph/models-beafe2eb8107"),
            None => return,
        },
    }
    .join("cnn_bn");
    if !dir.join("model.ckpt.meta").exists() {
        eprintln!("skipped: no real-model set at {}", dir.display());
        return;
    }
    let g = Graph::new();
    g.import_meta_graph(dir.join("model.ckpt.meta"), &ImportMetaGraphOptions::default()).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run(&[], &[], &[&g.operation_by_name("init").unwrap()]).unwrap();
    let ckpt = CheckpointReader::open(dir.join("model.ckpt")).unwrap();
    for name in ["conv/kernel", "logits/kernel", "bn/gamma", "logits/bias"] {
        let read = g.tensor_by_name(&format!("{name}/Read/ReadVariableOp:0")).unwrap();
        let got = sess.run(&[], &[&read], &[]).unwrap().remove(0);
        let want = ckpt.read(name).unwrap();
        assert_eq!(got.shape(), want.shape(), "{name}");
        assert_eq!(got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap(), "{name}: TensorFlow's initial value");
    }
}
