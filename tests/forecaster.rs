//! `models::Forecaster`: the inference graph built once, a checkpoint's model variables
//! restored (optimizer slots in it ignored), raw rows standardized and forecast to the
//! probabilities computed here by hand; bad specs, rows and checkpoints are errors.

use tensorgraph::models::{Forecaster, ForecasterSpec, Mlp, MlpConfig};
use tensorgraph::train::Saver;
use tensorgraph::{Graph, Session, Tensor};

/// Weights of a 2-3-2 MLP: (layer1/weights [2,3], layer1/biases [3], output/weights [3,2],
/// output/biases [2]).
const W1: [f32; 6] = [0.5, -1.0, 0.25, 1.5, 0.75, -0.5];
const B1: [f32; 3] = [0.1, 0.0, -0.2];
const W2: [f32; 6] = [1.0, -0.5, -1.25, 0.5, 0.75, 2.0];
const B2: [f32; 2] = [0.05, -0.05];

fn spec() -> ForecasterSpec {
    ForecasterSpec {
        features: 2,
        hidden: vec![3],
        classes: 2,
        mean: vec![1.0, -2.0],
        std: vec![2.0, 0.5],
        class_names: vec!["no".into(), "yes".into()],
    }
}

/// The probabilities of the MLP above for a raw row, in f64.
fn by_hand(spec: &ForecasterSpec, row: &[f32]) -> Vec<f64> {
    let x: Vec<f64> = (0..2).map(|j| ((row[j] - spec.mean[j]) / spec.std[j]) as f64).collect();
    let h: Vec<f64> = (0..3).map(|k| (x[0] * W1[k] as f64 + x[1] * W1[3 + k] as f64 + B1[k] as f64).max(0.0)).collect();
    let z: Vec<f64> = (0..2).map(|c| (0..3).map(|k| h[k] * W2[k * 2 + c] as f64).sum::<f64>() + B2[c] as f64).collect();
    let m = z[0].max(z[1]);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    e.iter().map(|v| v / (e[0] + e[1])).collect()
}

/// Saves the training graph of the MLP (with Adam's slots) holding the weights above into `dir`.
fn save_trained(dir: &std::path::Path) {
    let g = Graph::new();
    let cfg = MlpConfig { features: 2, hidden: vec![3], classes: 2, learning_rate: Some(0.01), seed: Some(1) };
    let model = Mlp::build(&g, &cfg).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&model.init]).unwrap();
    for (name, shape, vals) in [
        ("layer1/weights", vec![2, 3], &W1[..]),
        ("layer1/biases", vec![3], &B1[..]),
        ("output/weights", vec![3, 2], &W2[..]),
        ("output/biases", vec![2], &B2[..]),
    ] {
        let v = g.global_variables().into_iter().find(|v| v.op().name() == name).unwrap();
        sess.set_variable_value(v.op(), Tensor::new(&shape, vals.to_vec()).unwrap()).unwrap();
    }
    Saver::new(&g).unwrap().save(&sess, dir.join("model.ckpt")).unwrap();
}

#[test]
fn forecasts_the_checkpoints_model_on_raw_rows() {
    let tmp = tempfile::tempdir().unwrap();
    save_trained(tmp.path());
    let rows = vec![vec![1.0f32, -2.0], vec![3.0, -1.5], vec![-4.0, 0.0]];
    // the directory (its latest checkpoint) and the prefix give the same forecaster
    for ckpt in [tmp.path().to_path_buf(), tmp.path().join("model.ckpt")] {
        let f = Forecaster::new(spec(), &ckpt).unwrap();
        assert_eq!(f.checkpoint(), tmp.path().join("model.ckpt"));
        assert_eq!(f.spec(), &spec());
        let probs = f.forecast(&rows).unwrap();
        assert_eq!(probs.shape(), [3, 2]);
        let got = probs.to_f64_vec().unwrap();
        for (i, row) in rows.iter().enumerate() {
            let want = by_hand(&spec(), row);
            for c in 0..2 {
                assert!(
                    (got[i * 2 + c] - want[c]).abs() < 1e-6,
                    "row {i} class {c}: {} vs {}",
                    got[i * 2 + c],
                    want[c]
                );
            }
        }
        // forecasting again runs the same graph to the same values
        assert_eq!(f.forecast(&rows).unwrap(), probs);
    }
    assert_eq!(spec().class_name(1), "yes");
    assert_eq!(ForecasterSpec { class_names: vec![], ..spec() }.class_name(1), "1");
}

#[test]
fn bad_specs_rows_and_checkpoints_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    save_trained(tmp.path());
    let f = Forecaster::new(spec(), tmp.path()).unwrap();
    assert_eq!(
        f.forecast(&[vec![1.0, 2.0], vec![1.0, 2.0, 3.0]]).unwrap_err().to_string(),
        "InvalidArgument: row 1 has 3 values; the model takes 2 features"
    );
    let bad = |s: ForecasterSpec| Forecaster::new(s, tmp.path()).unwrap_err().to_string();
    assert_eq!(
        bad(ForecasterSpec { std: vec![2.0, 0.0], ..spec() }),
        "InvalidArgument: forecaster spec: std[1] is 0; standard deviations must be positive and finite"
    );
    assert_eq!(
        bad(ForecasterSpec { mean: vec![1.0], ..spec() }),
        "InvalidArgument: forecaster spec: mean has 1 and std 2 values; the model has 2 features"
    );
    assert_eq!(
        bad(ForecasterSpec { classes: 0, ..spec() }),
        "InvalidArgument: forecaster spec: features (2) and classes (0) must be at least 1"
    );
    // a checkpoint of another model: the restore error names the mismatch; every name is
    // there, so it is TensorFlow's InvalidArgument (a shape mismatch), not NotFound
    assert_eq!(
        bad(ForecasterSpec { hidden: vec![4], ..spec() }),
        format!(
            "InvalidArgument: Restoring from checkpoint {} failed.\n3 dtype/shape mismatch(es):\n  layer1/biases: checkpoint has float32 [3], graph has float32 [4]\n  layer1/weights: checkpoint has float32 [2, 3], graph has float32 [2, 4]\n  output/weights: checkpoint has float32 [3, 2], graph has float32 [4, 2]\nThe checkpoint has 10 name(s) the graph does not: beta1_power, beta2_power, layer1/biases/Adam, layer1/biases/Adam_1, layer1/weights/Adam, layer1/weights/Adam_1, output/biases/Adam, output/biases/Adam_1, output/weights/Adam, output/weights/Adam_1",
            tmp.path().join("model.ckpt").display()
        )
    );
    // a directory without a checkpoint
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        Forecaster::new(spec(), empty.path()).unwrap_err().to_string(),
        format!(
            "NotFound: no checkpoint in {}: it has no `checkpoint` state file naming an existing checkpoint",
            empty.path().display()
        )
    );
}
