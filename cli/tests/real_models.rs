//! Real models written by TensorFlow 2.21 (`scripts/gen_models.py`): MobileNetV2 and ResNet50
//! (Keras' architectures), a `dynamic_rnn` LSTM language model, a conv net with batch norm and
//! dropout under `tf.cond`, a transformer encoder block, and two training graphs. Each frozen
//! model runs here to TensorFlow's outputs at batch 1 and 8, through the library and through
//! `tensorgraph run`; each training graph, restored from TF's checkpoint, trains 5 more steps
//! here to TF's losses and final variables.
//!
//! The set is about 120 MB, too large to commit: `interop/run.sh` generates it once into
//! `~/.cache/tensorgraph/models-<hash of the script>` and runs these tests with
//! `TENSORGRAPH_MODELS` pointing there. They are `#[ignore]`d so that a plain `cargo test`
//! (without TensorFlow at hand) does not need the set; run them by hand with
//! `TENSORGRAPH_MODELS=DIR cargo test --release -p tensorgraph-cli --test real_models -- --ignored`.

mod common;
use common::cli::{ok, s};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
use tensorgraph::{Graph, Session, Tensor};

/// The frozen models of the set.
const FROZEN: [&str; 5] = ["mobilenet_v2", "resnet50", "lstm_lm", "cnn_cond", "transformer"];
/// The training graphs of the set.
const TRAINING: [&str; 2] = ["cnn_bn", "lstm_classifier"];
/// Largest relative error allowed per element (issue 9: 1e-4).
const RTOL: f64 = 1e-4;

/// The generated set's folder, `$TENSORGRAPH_MODELS`.
fn models() -> PathBuf {
    let dir = std::env::var_os("TENSORGRAPH_MODELS")
        .expect("set TENSORGRAPH_MODELS to a folder written by scripts/gen_models.py (interop/run.sh does)");
    PathBuf::from(dir)
}

fn manifest(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn npy(path: &Path) -> Tensor {
    Tensor::read_npy(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every element within `RTOL` of TensorFlow's (relative to the element, with an absolute
/// floor of `RTOL` times the largest |value|), and the same argmax over the last axis.
fn assert_matches(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (got.to_f64_vec().unwrap(), want.to_f64_vec().unwrap());
    let scale = w.iter().fold(0f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!((a - b).abs() <= RTOL * (b.abs() + 1e-2 * scale), "{what}[{i}]: {a} vs TensorFlow's {b}");
    }
    let last = *want.shape().last().unwrap();
    let argmax = |v: &[f64]| -> Vec<usize> {
        v.chunks(last).map(|r| (0..r.len()).fold(0, |best, j| if r[j] > r[best] { j } else { best })).collect()
    };
    assert_eq!(argmax(&g), argmax(&w), "{what}: argmax");
}

#[test]
#[ignore = "needs the generated model set: TENSORGRAPH_MODELS (interop/run.sh)"]
fn frozen_models_give_tensorflows_outputs_through_the_library() {
    for name in FROZEN {
        let dir = models().join(name);
        let m = manifest(&dir);
        let graph = Graph::new();
        graph
            .import_graph_def(
                &read_graph_def_any(dir.join("frozen.pb")).unwrap(),
                &ImportGraphDefOptions::new().prefix(""),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let x = graph.tensor_by_name(m["input"].as_str().unwrap()).unwrap();
        let y = graph.tensor_by_name(m["output"].as_str().unwrap()).unwrap();
        let sess = Session::new(&graph).unwrap();
        for b in [1, 8] {
            let input = npy(&dir.join(format!("input_b{b}.npy")));
            let got = sess.run(&[(&x, input)], &[&y], &[]).unwrap_or_else(|e| panic!("{name} batch {b}: {e}"));
            assert_matches(&format!("{name} batch {b}"), &got[0], &npy(&dir.join(format!("expected_b{b}.npy"))));
        }
    }
}

#[test]
#[ignore = "needs the generated model set: TENSORGRAPH_MODELS (interop/run.sh)"]
fn frozen_models_give_tensorflows_outputs_through_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    for name in FROZEN {
        let dir = models().join(name);
        let m = manifest(&dir);
        let (input, output) = (m["input"].as_str().unwrap(), m["output"].as_str().unwrap());
        for b in [1, 8] {
            let out = tmp.path().join(format!("{name}-{b}"));
            let feed = format!("{input}={}", s(&dir.join(format!("input_b{b}.npy"))));
            let model = s(&dir.join("frozen.pb"));
            ok(&["run", &model, "--feed", &feed, "--fetch", output, "--out", &s(&out)]);
            let file = out.join(format!("{}.npy", output.replace(['/', ':'], "_")));
            assert_matches(
                &format!("run {name} batch {b}"),
                &npy(&file),
                &npy(&dir.join(format!("expected_b{b}.npy"))),
            );
        }
    }
}

#[test]
#[ignore = "needs the generated model set: TENSORGRAPH_MODELS (interop/run.sh)"]
fn training_graphs_continue_to_tensorflows_losses_and_variables() {
    for name in TRAINING {
        let dir = models().join(name);
        let m = manifest(&dir);
        let graph = Graph::new();
        let saver = graph
            .import_meta_graph(dir.join("model.ckpt.meta"), &Default::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .expect("a saver");
        let sess = Session::new(&graph).unwrap();
        saver.restore(&sess, dir.join("model.ckpt")).unwrap();
        let t = |key: &str| graph.tensor_by_name(m[key].as_str().unwrap()).unwrap();
        let (x, y, loss) = (t("x"), t("y"), t("loss"));
        let train = graph.operation_by_name(m["train_op"].as_str().unwrap()).unwrap();
        let want_losses = npy(&dir.join("losses.npy")).to_f64_vec().unwrap();
        for (step, want) in want_losses.iter().enumerate() {
            let bx = npy(&dir.join(format!("batch_x_{step}.npy")));
            let by = npy(&dir.join(format!("batch_y_{step}.npy")));
            let got = sess
                .run(&[(&x, bx), (&y, by)], &[&loss], &[&train])
                .unwrap_or_else(|e| panic!("{name} step {step}: {e}"));
            let l = got[0].to_f64_vec().unwrap()[0];
            assert!((l - want).abs() <= RTOL * want.abs(), "{name} step {step}: loss {l} vs TensorFlow's {want}");
        }
        let final_ckpt = CheckpointReader::open(dir.join("final.ckpt")).unwrap();
        for v in m["variables"].as_array().unwrap() {
            let v = v.as_str().unwrap();
            let op = graph.operation_by_name(v).unwrap();
            let got = sess.variable_value(&op).unwrap_or_else(|| panic!("{name}: {v} uninitialized"));
            let want = final_ckpt.read(v).unwrap();
            // relative to the element and to the variable's largest value: Adam moves a weight
            // whose gradient is near zero by an amount set by the gradient's rounding
            let (g, w) = (got.to_f64_vec().unwrap(), want.to_f64_vec().unwrap());
            let scale = w.iter().fold(0f64, |m, b| m.max(b.abs()));
            for (i, (a, b)) in g.iter().zip(&w).enumerate() {
                assert!((a - b).abs() <= RTOL * (b.abs() + scale), "{name}: {v}[{i}] = {a} vs TensorFlow's {b}");
            }
        }
    }
}
