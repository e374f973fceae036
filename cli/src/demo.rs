//! `tensorgraph demo`: the main job end to end on real data: train, save a checkpoint with
//! its `.meta`, freeze `model.pb`, restore into a [`Forecaster`] and forecast; every file it
//! writes is one `run`, `freeze` and `inspect` work on.

use crate::dataset::Dataset;
use crate::guard::{check_output, Input, Writes};
use crate::output::say;
use crate::run::write_npy;
use crate::threads::session_options;
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tensorgraph::io::graph_def::{freeze, write_graph_def};
use tensorgraph::models::{Forecaster, ForecasterSpec, Mlp, MlpConfig};
use tensorgraph::train::Saver;
use tensorgraph::{Graph, Session, Tensor};

/// Arguments of `tensorgraph demo`.
pub struct DemoArgs {
    /// The output directory.
    pub out: PathBuf,
    /// A CSV to train on instead of iris.
    pub data: Option<PathBuf>,
    /// Training steps (`None`: the model's default).
    pub steps: Option<usize>,
    /// Seed of the split and the initializers.
    pub seed: u64,
    /// `--threads N`: intra-op and inter-op threads of the session (`None`: the default, one
    /// per core).
    pub threads: Option<usize>,
    /// Replace files in `out` of another kind, or the `--data` file.
    pub force: bool,
}

/// Which model `tensorgraph demo` trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DemoModel {
    /// A 2-hidden-layer relu MLP on iris (or --data CSV), full-batch Adam.
    Mlp,
    /// A CNN with batch normalization on the 8x8 handwritten digits, minibatch Adam.
    Cnn,
}

/// The MLP's training steps when `--steps` is not given.
pub const DEFAULT_STEPS: usize = 400;

/// The files the demo writes into its output directory, with their kinds.
const OUTPUTS: [(&str, Writes); 8] = [
    ("model.ckpt.index", Writes::Checkpoint),
    ("model.ckpt.data-00000-of-00001", Writes::Checkpoint),
    ("model.ckpt.meta", Writes::MetaGraph),
    ("checkpoint", Writes::Checkpoint),
    ("model.pb", Writes::GraphDef),
    ("model.json", Writes::Json),
    ("inputs.npy", Writes::Npy),
    ("forecast.json", Writes::Json),
];

const HIDDEN: [usize; 2] = [16, 16];
/// Rows held out for testing (fewer for small data sets: a fifth of the rows).
const TEST_ROWS: usize = 30;
/// The fewest rows the demo accepts.
const MIN_ROWS: usize = 10;

pub(crate) fn err(e: tensorgraph::Error) -> String {
    e.to_string()
}

pub(crate) fn one_hot(labels: &[usize], classes: usize) -> Vec<f32> {
    let mut v = vec![0.0; labels.len() * classes];
    for (i, &l) in labels.iter().enumerate() {
        v[i * classes + l] = 1.0;
    }
    v
}

pub(crate) fn argmax(row: &[f32]) -> usize {
    row.iter().enumerate().fold(0, |b, (i, &v)| if v > row[b] { i } else { b })
}

/// The spec as `model.json`: what `Forecaster::new` needs to rebuild the model.
fn spec_json(spec: &ForecasterSpec) -> Value {
    json!({"features": spec.features, "hidden": spec.hidden, "classes": spec.classes,
           "mean": spec.mean, "std": spec.std, "class_names": spec.class_names})
}

/// Writes `value` as pretty JSON to `path`.
pub(crate) fn write_json(path: &Path, value: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Checks `--steps` and `--threads`, creates `--out` and checks that the demo may write each
/// of `outputs` there, before any data is read or any training.
pub(crate) fn prepare_out(args: &DemoArgs, outputs: &[(&str, Writes)]) -> Result<(), String> {
    if args.steps == Some(0) {
        return Err("--steps must be at least 1".into());
    }
    session_options(args.threads)?;
    if args.out.exists() && !args.out.is_dir() {
        return Err(format!("--out {} exists and is not a directory", args.out.display()));
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create --out directory {}: {e}", args.out.display()))?;
    let inputs: Vec<Input> = args.data.iter().map(|d| Input::new("--data", d)).collect();
    for &(name, kind) in outputs {
        check_output("--out", &args.out.join(name), kind, &inputs, args.force)?;
    }
    Ok(())
}

/// `tensorgraph demo --model mlp`: the MLP trained `steps` steps, saved, frozen, restored
/// into a [`Forecaster`] and used (`--model cnn` is [`crate::demo_cnn::run`]).
pub fn run(args: &DemoArgs, steps: usize) -> Result<(), String> {
    // the output directory first, so a bad --out fails before training
    prepare_out(args, &OUTPUTS)?;
    let data = match &args.data {
        Some(p) => Dataset::from_csv(p)?,
        None => Dataset::iris(),
    };
    let n = data.features.len();
    if n < MIN_ROWS {
        return Err(format!("the data has {n} rows; the demo needs at least {MIN_ROWS} (it holds out a fifth, at most {TEST_ROWS}, for testing)"));
    }
    let test_rows = TEST_ROWS.min(n / 5);
    let (f, c) = (data.num_features(), data.num_classes());
    say!("data: {n} rows, {f} features, {c} classes; holding out {test_rows} rows for testing");

    // deterministic shuffle and split
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(args.seed));
    let (test_idx, train_idx) = idx.split_at(test_rows);
    let pick = |ids: &[usize]| -> (Vec<Vec<f32>>, Vec<usize>) {
        (ids.iter().map(|&i| data.features[i].clone()).collect(), ids.iter().map(|&i| data.labels[i]).collect())
    };
    let (train_x, train_y) = pick(train_idx);
    let (test_x, test_y) = pick(test_idx);

    // standardize with the training statistics (computed in f64)
    let rows = train_x.len() as f64;
    let mean: Vec<f64> = (0..f).map(|j| train_x.iter().map(|r| r[j] as f64).sum::<f64>() / rows).collect();
    let std: Vec<f64> = (0..f)
        .map(|j| (train_x.iter().map(|r| (r[j] as f64 - mean[j]).powi(2)).sum::<f64>() / rows).sqrt().max(1e-6))
        .collect();
    if let Some(j) = (0..f).find(|&j| !((mean[j] as f32).is_finite() && (std[j] as f32).is_finite())) {
        return Err(format!(
            "feature column {} has values too large to standardize in float32 (mean {:e}, standard deviation {:e}); rescale that column",
            j + 1,
            mean[j],
            std[j]
        ));
    }
    let mean: Vec<f32> = mean.iter().map(|&v| v as f32).collect();
    let std: Vec<f32> = std.iter().map(|&v| v as f32).collect();
    let spec = ForecasterSpec {
        features: f,
        hidden: HIDDEN.to_vec(),
        classes: c,
        mean,
        std,
        class_names: data.class_names.clone(),
    };

    // build once, train
    let graph = Graph::new();
    let cfg = MlpConfig {
        features: f,
        hidden: HIDDEN.to_vec(),
        classes: c,
        learning_rate: Some(0.01),
        seed: Some(args.seed),
    };
    let model = Mlp::build(&graph, &cfg).map_err(err)?;
    let session = Session::with_options(&graph, &session_options(args.threads)?).map_err(err)?;
    session.run_targets(&[&model.init]).map_err(err)?;
    let xs = Tensor::new(&[train_x.len(), f], spec.standardize(&train_x).map_err(err)?.concat()).map_err(err)?;
    let ys = Tensor::new(&[train_y.len(), c], one_hot(&train_y, c)).map_err(err)?;
    let (x, y, loss, train) = (
        &model.x,
        model.y.as_ref().ok_or("no labels")?,
        model.loss.as_ref().ok_or("no loss")?,
        model.train.as_ref().ok_or("no train op")?,
    );
    let logs = crate::demo_logs::DemoLogs::new(&graph, loss, &args.out)?;
    let tx = Tensor::new(&[test_x.len(), f], spec.standardize(&test_x).map_err(err)?.concat()).map_err(err)?;
    let accuracy_of = |probs: &Tensor| -> Result<(f64, usize), String> {
        let p = probs.as_slice::<f32>().map_err(err)?;
        let correct = test_y.iter().enumerate().filter(|(i, &l)| argmax(&p[i * c..(i + 1) * c]) == l).count();
        Ok((correct as f64 / test_y.len() as f64, correct))
    };
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(
        ProgressStyle::with_template("training {bar:40} {pos}/{len} steps  loss {msg}").map_err(|e| e.to_string())?,
    );
    let mut last = f32::NAN;
    for step in 0..steps {
        let out = session.run(&[(x, xs.clone()), (y, ys.clone())], &[loss, &logs.merged], &[train]).map_err(err)?;
        last = out[0].as_slice::<f32>().map_err(err)?[0];
        logs.add(&out[1], step as i64)?;
        let probs = session.fetch(&[(x, tx.clone())], &model.probs).map_err(err)?;
        logs.accuracy(accuracy_of(&probs)?.0, step as i64)?;
        bar.set_message(format!("{last:.4}"));
        bar.inc(1);
    }
    bar.finish_and_clear();
    say!("trained {steps} steps; final training loss: {last:.4}");

    // test accuracy
    let probs = session.fetch(&[(x, tx)], &model.probs).map_err(err)?;
    let (accuracy, correct) = accuracy_of(&probs)?;
    say!("test accuracy: {accuracy:.3} ({correct}/{} held-out rows)", test_y.len());
    let events = logs.close()?;
    say!("wrote the TensorBoard log {} (tensorboard --logdir {})", events.display(), args.out.join("logs").display());

    // save a TensorFlow checkpoint (model variables and Adam slots) with its meta graph,
    // and the inference graph frozen (variables turned into constants)
    let prefix = Saver::new(&graph).and_then(|s| s.save(&session, args.out.join("model.ckpt"))).map_err(err)?;
    write_json(&args.out.join("model.json"), &spec_json(&spec))?;
    say!("saved checkpoint {} with its meta graph {}.meta", prefix.display(), prefix.display());
    let frozen_path = args.out.join("model.pb");
    let frozen = freeze(&graph, &session, &["probs"]).map_err(err)?;
    write_graph_def(&frozen, &frozen_path).map_err(err)?;
    say!("froze probs into {} ({} nodes)", frozen_path.display(), frozen.node.len());

    // restore into a fresh graph, built once; forecast twice
    let sample: Vec<Vec<f32>> = test_x.iter().take(5).cloned().collect();
    let sample_std = spec.standardize(&sample).map_err(err)?;
    let inputs_path = args.out.join("inputs.npy");
    write_npy(&inputs_path, &Tensor::new(&[sample.len(), f], sample_std.concat()).map_err(err)?)?;
    let forecaster = Forecaster::new(spec.clone(), &args.out).map_err(err)?;
    let first = forecaster.forecast(&sample).map_err(err)?;
    let second = forecaster.forecast(&sample).map_err(err)?;
    if first != second {
        return Err("two forecasts of the same rows differ".into());
    }
    let fp = first.as_slice::<f32>().map_err(err)?;
    let sp = second.as_slice::<f32>().map_err(err)?;
    say!("Forecaster: graph built once in new(), checkpoint restored; forecast() called twice:");
    let fmt = |p: &[f32]| {
        p.chunks(c)
            .map(|r| format!("{:?}", r.iter().map(|v| (v * 1000.0).round() / 1000.0).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    say!("  first call:  {}", fmt(fp));
    say!("  second call: {}  (identical)", fmt(sp));
    for (i, row) in sample.iter().enumerate() {
        let pr = &fp[i * c..(i + 1) * c];
        let k = argmax(pr);
        let name = spec.class_name(k);
        say!("  {row:?} -> {name} (p = {:.3}; true: {})", pr[k], spec.class_name(test_y[i]));
    }

    // what the interop suite checks against TensorFlow
    let variables: Vec<_> = graph
        .trainable_variables()
        .iter()
        .map(|v| json!({"name": v.op_name(), "dtype": v.dtype().name(), "shape": v.shape()}))
        .collect();
    let forecast = json!({
        "hidden": HIDDEN, "num_features": f, "num_classes": c, "variables": variables,
        "inputs": sample_std,
        "probabilities": fp.chunks(c).map(|r| r.to_vec()).collect::<Vec<_>>(),
        "test_accuracy": accuracy,
    });
    write_json(&args.out.join("forecast.json"), &forecast)?;
    let out = args.out.display();
    say!("the standardized rows above are in {}; try:", inputs_path.display());
    say!("  tensorgraph run {out}/model.ckpt --feed x:0={out}/inputs.npy --fetch probs:0");
    say!("  tensorgraph run {out}/model.pb --feed x:0={out}/inputs.npy --fetch probs:0");
    Ok(())
}
