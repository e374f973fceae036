//! `models::layers::batch_normalization` and `models::Cnn`: TensorFlow 1.x's names, the
//! `update_ops` collection, batch statistics in training and moving ones in inference, and
//! the moving averages one train step leaves.

use tensorgraph::graph::collections::UPDATE_OPS;
use tensorgraph::models::layers::BatchNormalization;
use tensorgraph::models::{Cnn, CnnConfig};
use tensorgraph::{Graph, Session, Tensor};

fn config(learning_rate: Option<f64>) -> CnnConfig {
    CnnConfig {
        input: [4, 4, 1],
        filters: vec![3],
        classes: 2,
        learning_rate,
        batch_norm: BatchNormalization { momentum: 0.9, epsilon: 0.001 },
        seed: Some(1),
    }
}

fn images(n: usize) -> Tensor {
    Tensor::new(&[n, 4, 4, 1], (0..n * 16).map(|i| ((i * 7) % 11) as f32 / 5.0 - 1.0).collect()).unwrap()
}

#[test]
fn names_and_update_ops_are_tensorflows() {
    let g = Graph::new();
    let m = Cnn::build(&g, &config(Some(0.01))).unwrap();
    assert_eq!((m.x.name(), m.training.name(), m.probs.name()), ("x:0".into(), "training:0".into(), "probs:0".into()));
    assert!(g.operation_by_name("training/input").is_ok());
    let vars: Vec<String> = g.global_variables().iter().map(|v| v.op_name()).collect();
    for v in ["conv1/kernel", "bn1/gamma", "bn1/beta", "bn1/moving_mean", "bn1/moving_variance", "output/weights"] {
        assert!(vars.contains(&v.to_string()), "{v} in {vars:?}");
    }
    let trainable: Vec<String> = g.trainable_variables().iter().map(|v| v.op_name()).collect();
    assert!(!trainable.iter().any(|v| v.contains("moving")), "{trainable:?}");
    let updates: Vec<String> = g.get_collection(UPDATE_OPS).iter().map(|v| v.as_operation().unwrap().name()).collect();
    assert_eq!(updates, ["bn1/cond_1/Merge", "bn1/cond_2/Merge"]);
    for op in ["bn1/cond/FusedBatchNormV3", "bn1/cond/FusedBatchNormV3_1", "bn1/cond_1/AssignMovingAvg/AssignSub"] {
        assert!(g.operation_by_name(op).is_ok(), "{op}");
    }
    // the same variable names twice in one graph is TensorFlow's error
    let e = Cnn::build(&g, &config(None)).unwrap_err();
    assert!(e.to_string().contains("conv1/kernel already exists"), "{e}");
}

#[test]
fn a_train_step_moves_the_averages_by_the_batch_statistics() {
    let g = Graph::new();
    let m = Cnn::build(&g, &config(Some(0.01))).unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&m.init]).unwrap();
    let conv = g.tensor_by_name("conv1/Conv2D:0").unwrap();
    let x = images(5);
    let y = Tensor::new(&[5, 2], vec![1f32, 0., 0., 1., 1., 0., 0., 1., 1., 0.]).unwrap();
    // inference before training: moving mean 0, variance 1, so y = x / sqrt(1 + eps)
    let before = sess.fetch(&[(&m.x, x.clone())], &conv).unwrap();
    let yes = Tensor::scalar(true);
    let feeds = [(&m.x, x.clone()), (m.y.as_ref().unwrap(), y), (&m.training, yes)];
    let out = sess.run(&feeds, &[&conv], &[m.train.as_ref().unwrap()]).unwrap();
    assert_eq!(out[0], before, "the convolution ran on the weights before the update");
    let c = out[0].to_f64_vec().unwrap();
    let n = (c.len() / 3) as f64;
    let var_of =
        |v: &str| g.operation_by_name(v).map(|op| sess.variable_value(&op).unwrap().to_f64_vec().unwrap()).unwrap();
    let (mean, variance) = (var_of("bn1/moving_mean"), var_of("bn1/moving_variance"));
    for ch in 0..3 {
        let vals: Vec<f64> = c.iter().skip(ch).step_by(3).copied().collect();
        let bm = vals.iter().sum::<f64>() / n;
        // FusedBatchNormV3 hands the moving average the unbiased (n - 1) batch variance
        let bv = vals.iter().map(|v| (v - bm).powi(2)).sum::<f64>() / (n - 1.0);
        assert!((mean[ch] - 0.1 * bm).abs() < 1e-5, "moving_mean[{ch}] {} vs {}", mean[ch], 0.1 * bm);
        assert!(
            (variance[ch] - (0.9 + 0.1 * bv)).abs() < 1e-5,
            "moving_variance[{ch}] {} vs {}",
            variance[ch],
            0.9 + 0.1 * bv
        );
    }
    // without `training`, a run changes nothing
    sess.fetch(&[(&m.x, x)], &m.probs).unwrap();
    assert_eq!(var_of("bn1/moving_mean"), mean);
}
