//! `tensorgraph demo --model cnn`: a convolutional network with batch normalization trained
//! on the handwritten digits shipped in the binary, saved with its `.meta`, frozen into
//! `model.pb`, restored into a fresh inference graph and used to forecast, like the MLP demo.

use crate::dataset::{Dataset, DIGITS_MAX_PIXEL, DIGITS_SIDE};
use crate::demo::{argmax, err, one_hot, prepare_out, write_json, DemoArgs};
use crate::guard::Writes;
use crate::output::say;
use crate::run::write_npy;
use crate::threads::session_options;
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::json;
use std::path::Path;
use tensorgraph::io::graph_def::{freeze, write_graph_def};
use tensorgraph::models::layers::BatchNormalization;
use tensorgraph::models::{Cnn, CnnConfig};
use tensorgraph::train::Saver;
use tensorgraph::{Graph, Session, Tensor};

/// The files the CNN demo writes into its output directory, with their kinds.
const OUTPUTS: [(&str, Writes); 7] = [
    ("model.ckpt.index", Writes::Checkpoint),
    ("model.ckpt.data-00000-of-00001", Writes::Checkpoint),
    ("model.ckpt.meta", Writes::MetaGraph),
    ("checkpoint", Writes::Checkpoint),
    ("model.pb", Writes::GraphDef),
    ("inputs.npy", Writes::Npy),
    ("forecast.json", Writes::Json),
];

/// Filters of the two convolution blocks.
const FILTERS: [usize; 2] = [16, 32];
/// Images held out for testing (a fifth of the 1,797).
const TEST_ROWS: usize = 360;
/// Images per training step.
const BATCH: usize = 64;
/// The training steps when `--steps` is not given.
pub const DEFAULT_STEPS: usize = 300;

/// The model's settings: Adam at 0.01, batch norm momentum 0.9 (the moving statistics
/// settle within the demo's few hundred steps).
fn config(seed: u64, learning_rate: Option<f64>) -> CnnConfig {
    CnnConfig {
        input: [DIGITS_SIDE, DIGITS_SIDE, 1],
        filters: FILTERS.to_vec(),
        classes: 10,
        learning_rate,
        batch_norm: BatchNormalization { momentum: 0.9, ..Default::default() },
        seed: Some(seed),
    }
}

/// Images `ids` of `data` as a float32 `[n, 8, 8, 1]` tensor with pixels scaled to 0..1.
fn images(data: &Dataset, ids: &[usize]) -> Result<Tensor, String> {
    let v: Vec<f32> = ids.iter().flat_map(|&i| data.features[i].iter().map(|p| p / DIGITS_MAX_PIXEL)).collect();
    Tensor::new(&[ids.len(), DIGITS_SIDE, DIGITS_SIDE, 1], v).map_err(err)
}

/// Steps between two held-out accuracy summaries (and the last step).
const ACCURACY_EVERY: usize = 10;

/// The fraction of `labels` that `probs` (`[n, classes]`) ranks first, with the count.
fn accuracy(probs: &Tensor, labels: &[usize]) -> Result<(f64, usize), String> {
    let p = probs.as_slice::<f32>().map_err(err)?;
    let c = p.len() / labels.len().max(1);
    let correct = labels.iter().enumerate().filter(|(i, &l)| argmax(&p[i * c..(i + 1) * c]) == l).count();
    Ok((correct as f64 / labels.len() as f64, correct))
}

pub fn run(args: &DemoArgs, steps: usize) -> Result<(), String> {
    if args.data.is_some() {
        return Err(
            "--data trains the mlp model; --model cnn trains on the handwritten digits shipped in the binary".into()
        );
    }
    prepare_out(args, &OUTPUTS)?;
    let data = Dataset::digits();
    let n = data.features.len();
    say!("data: {n} handwritten digits of 8x8 pixels, 10 classes; holding out {TEST_ROWS} for testing");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut rng);
    let (test_idx, train_idx) = idx.split_at(TEST_ROWS);
    let mut order = train_idx.to_vec();

    let graph = Graph::new();
    let model = Cnn::build(&graph, &config(args.seed, Some(0.01))).map_err(err)?;
    let session = Session::with_options(&graph, &session_options(args.threads)?).map_err(err)?;
    session.run_targets(&[&model.init]).map_err(err)?;
    let (y, loss, train) = (
        model.y.as_ref().ok_or("no labels")?,
        model.loss.as_ref().ok_or("no loss")?,
        model.train.as_ref().ok_or("no train op")?,
    );
    let yes = Tensor::scalar(true);
    let logs = crate::demo_logs::DemoLogs::new(&graph, loss, &args.out)?;
    let test_labels: Vec<usize> = test_idx.iter().map(|&i| data.labels[i]).collect();
    let test_images = images(&data, test_idx)?;
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(
        ProgressStyle::with_template("training {bar:40} {pos}/{len} steps  loss {msg}").map_err(|e| e.to_string())?,
    );
    let mut last = f32::NAN;
    let mut at = order.len();
    for step in 0..steps {
        if at + BATCH > order.len() {
            order.shuffle(&mut rng);
            at = 0;
        }
        let batch = &order[at..at + BATCH];
        at += BATCH;
        let labels: Vec<usize> = batch.iter().map(|&i| data.labels[i]).collect();
        let ys = Tensor::new(&[BATCH, 10], one_hot(&labels, 10)).map_err(err)?;
        let feeds = [(&model.x, images(&data, batch)?), (y, ys), (&model.training, yes.clone())];
        let out = session.run(&feeds, &[loss, &logs.merged], &[train]).map_err(err)?;
        last = out[0].as_slice::<f32>().map_err(err)?[0];
        logs.add(&out[1], step as i64)?;
        if step % ACCURACY_EVERY == 0 || step + 1 == steps {
            let probs = session.fetch(&[(&model.x, test_images.clone())], &model.probs).map_err(err)?;
            logs.accuracy(accuracy(&probs, &test_labels)?.0, step as i64)?;
        }
        bar.set_message(format!("{last:.4}"));
        bar.inc(1);
    }
    bar.finish_and_clear();
    say!("trained {steps} steps of {BATCH} images; final training loss: {last:.4}");

    // held-out accuracy, batch norm in inference mode (training defaults to false)
    let probs = session.fetch(&[(&model.x, test_images)], &model.probs).map_err(err)?;
    let (acc, correct) = accuracy(&probs, &test_labels)?;
    say!("test accuracy: {acc:.3} ({correct}/{TEST_ROWS} held-out images)");
    let events = logs.close()?;
    say!("wrote the TensorBoard log {} (tensorboard --logdir {})", events.display(), args.out.join("logs").display());

    let prefix = Saver::new(&graph).and_then(|s| s.save(&session, args.out.join("model.ckpt"))).map_err(err)?;
    say!("saved checkpoint {} with its meta graph {}.meta", prefix.display(), prefix.display());
    let frozen = freeze(&graph, &session, &["probs"]).map_err(err)?;
    write_graph_def(&frozen, args.out.join("model.pb")).map_err(err)?;
    say!("froze probs into {} ({} nodes)", args.out.join("model.pb").display(), frozen.node.len());

    // a fresh inference graph (no optimizer), restored from the checkpoint
    let sample = &test_idx[..5];
    let inputs = images(&data, sample)?;
    write_npy(&args.out.join("inputs.npy"), &inputs)?;
    let probs = forecast(args.seed, &prefix, &inputs, args.threads)?;
    let p = probs.as_slice::<f32>().map_err(err)?;
    say!("restored into a fresh inference graph; forecasts of 5 held-out images:");
    for (i, &id) in sample.iter().enumerate() {
        let k = argmax(&p[i * 10..(i + 1) * 10]);
        say!("  image {id}: {k} (p = {:.3}; true: {})", p[i * 10 + k], data.labels[id]);
    }
    let forecast = json!({
        "model": "cnn", "filters": FILTERS, "inputs_shape": inputs.shape(),
        "probabilities": p.chunks(10).map(|r| r.to_vec()).collect::<Vec<_>>(),
        "test_accuracy": acc,
    });
    write_json(&args.out.join("forecast.json"), &forecast)?;
    let out = args.out.display();
    say!("the images above are in {}; try:", args.out.join("inputs.npy").display());
    say!("  tensorgraph run {out}/model.ckpt --feed x:0={out}/inputs.npy --fetch probs:0");
    say!("  tensorgraph run {out}/model.pb --feed x:0={out}/inputs.npy --fetch probs:0");
    Ok(())
}

/// Builds the inference graph once, restores `prefix` into it and forecasts `inputs`.
fn forecast(seed: u64, prefix: &Path, inputs: &Tensor, threads: Option<usize>) -> Result<Tensor, String> {
    let graph = Graph::new();
    let model = Cnn::build(&graph, &config(seed, None)).map_err(err)?;
    let session = Session::with_options(&graph, &session_options(threads)?).map_err(err)?;
    Saver::new(&graph).and_then(|s| s.restore(&session, prefix)).map_err(err)?;
    session.fetch(&[(&model.x, inputs.clone())], &model.probs).map_err(err)
}
