//! [`Forecaster`]: an [`Mlp`] classifier's inference graph built once, a checkpoint restored
//! into it, and `forecast()` running only the session, on raw feature rows it standardizes
//! itself (the load way "you have the code that builds the model").

use super::mlp::{Mlp, MlpConfig};
use crate::error::{Error, Result};
use crate::format::checkpoint::latest_checkpoint;
use crate::graph::{Graph, Output};
use crate::session::Session;
use crate::tensor::Tensor;
use crate::train::Saver;
use std::path::{Path, PathBuf};

/// What a [`Forecaster`] needs to rebuild a trained [`Mlp`] and feed it: the layer sizes
/// and the standardization of the features computed on the training rows.
#[derive(Debug, Clone, PartialEq)]
pub struct ForecasterSpec {
    /// Number of input features F.
    pub features: usize,
    /// Width of each hidden layer.
    pub hidden: Vec<usize>,
    /// Number of classes C.
    pub classes: usize,
    /// Per-feature mean of the training rows (F values).
    pub mean: Vec<f32>,
    /// Per-feature standard deviation of the training rows (F positive values).
    pub std: Vec<f32>,
    /// A name per class (may be empty: classes are then numbered).
    pub class_names: Vec<String>,
}

impl ForecasterSpec {
    /// Checks that the sizes agree: at least one feature and one class, F means and F
    /// positive finite standard deviations, no class name beyond C.
    /// Errors: `InvalidArgument` naming the field.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::invalid_argument(format!("forecaster spec: {m}")));
        if self.features == 0 || self.classes == 0 {
            return bad(format!("features ({}) and classes ({}) must be at least 1", self.features, self.classes));
        }
        if self.hidden.contains(&0) {
            return bad(format!("hidden layer widths {:?} must be at least 1", self.hidden));
        }
        if self.mean.len() != self.features || self.std.len() != self.features {
            return bad(format!(
                "mean has {} and std {} values; the model has {} features",
                self.mean.len(),
                self.std.len(),
                self.features
            ));
        }
        if let Some(j) = (0..self.features).find(|&j| !self.mean[j].is_finite()) {
            return bad(format!("mean[{j}] is {}", self.mean[j]));
        }
        if let Some(j) = (0..self.features).find(|&j| !(self.std[j].is_finite() && self.std[j] > 0.0)) {
            return bad(format!("std[{j}] is {}; standard deviations must be positive and finite", self.std[j]));
        }
        if self.class_names.len() > self.classes {
            return bad(format!("{} class names for {} classes", self.class_names.len(), self.classes));
        }
        Ok(())
    }

    /// `(x - mean) / std` per feature, row by row.
    /// Errors: `InvalidArgument` naming a row that has not F values.
    pub fn standardize(&self, rows: &[Vec<f32>]) -> Result<Vec<Vec<f32>>> {
        rows.iter()
            .enumerate()
            .map(|(i, r)| {
                if r.len() != self.features {
                    return Err(Error::invalid_argument(format!(
                        "row {i} has {} values; the model takes {} features",
                        r.len(),
                        self.features
                    )));
                }
                Ok(r.iter().zip(self.mean.iter().zip(&self.std)).map(|(v, (m, s))| (v - m) / s).collect())
            })
            .collect()
    }

    /// The name of class `k`: its entry of `class_names`, else the number.
    pub fn class_name(&self, k: usize) -> String {
        self.class_names.get(k).cloned().unwrap_or_else(|| k.to_string())
    }
}

/// An [`Mlp`] classifier ready to forecast: [`Forecaster::new`] builds the inference graph
/// once (no loss, no optimizer) and restores a checkpoint's model variables into a session;
/// [`Forecaster::forecast`] only runs the session. `tensorgraph demo` uses it on its saved
/// checkpoint.
///
/// ```no_run
/// use tensorgraph::models::{Forecaster, ForecasterSpec};
/// # fn main() -> tensorgraph::Result<()> {
/// let spec = ForecasterSpec {
///     features: 4,
///     hidden: vec![16, 16],
///     classes: 3,
///     mean: vec![5.8, 3.0, 3.8, 1.2],
///     std: vec![0.8, 0.4, 1.8, 0.8],
///     class_names: vec!["setosa".into(), "versicolor".into(), "virginica".into()],
/// };
/// let forecaster = Forecaster::new(spec, "demo-model")?; // the latest checkpoint there
/// let probs = forecaster.forecast(&[vec![5.1, 3.5, 1.4, 0.2]])?; // float32 [1, 3]
/// # Ok(()) }
/// ```
pub struct Forecaster {
    session: Session,
    x: Output,
    probs: Output,
    spec: ForecasterSpec,
    checkpoint: PathBuf,
}

impl std::fmt::Debug for Forecaster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forecaster").field("spec", &self.spec).field("checkpoint", &self.checkpoint).finish()
    }
}

impl Forecaster {
    /// Builds the inference graph of `spec` (an [`Mlp`] without training ops) into a new graph
    /// and restores its variables from `checkpoint`: a checkpoint prefix, or a directory whose
    /// `checkpoint` state file names the latest one (`tf.train.latest_checkpoint`). The
    /// checkpoint may hold more (optimizer slots); only the model variables are read.
    ///
    /// Errors: `InvalidArgument` for a spec whose sizes disagree ([`ForecasterSpec::validate`]);
    /// `NotFound` for a directory without a checkpoint, or a missing checkpoint; as
    /// [`Saver::restore`] when the checkpoint is not of this model (names, dtypes or shapes).
    pub fn new(spec: ForecasterSpec, checkpoint: impl AsRef<Path>) -> Result<Forecaster> {
        spec.validate()?;
        let checkpoint = checkpoint.as_ref();
        let prefix = if checkpoint.is_dir() {
            latest_checkpoint(checkpoint)?.ok_or_else(|| {
                Error::not_found(format!(
                    "no checkpoint in {}: it has no `checkpoint` state file naming an existing checkpoint",
                    checkpoint.display()
                ))
            })?
        } else {
            checkpoint.to_path_buf()
        };
        let graph = Graph::new();
        let cfg = MlpConfig {
            features: spec.features,
            hidden: spec.hidden.clone(),
            classes: spec.classes,
            learning_rate: None,
            seed: None,
        };
        let model = Mlp::build(&graph, &cfg)?;
        let session = Session::new(&graph)?;
        Saver::new(&graph)?.restore(&session, &prefix)?;
        Ok(Forecaster { session, x: model.x, probs: model.probs, spec, checkpoint: prefix })
    }

    /// Class probabilities, float32 `[rows, C]` (each row sums to 1), for raw feature rows
    /// (F values each), standardized with the spec's mean and std.
    /// Errors: `InvalidArgument` naming a row that has not F values.
    pub fn forecast(&self, rows: &[Vec<f32>]) -> Result<Tensor> {
        let flat: Vec<f32> = self.spec.standardize(rows)?.concat();
        let t = Tensor::new(&[rows.len(), self.spec.features], flat)?;
        self.session.fetch(&[(&self.x, t)], &self.probs)
    }

    /// The spec the forecaster was built from.
    pub fn spec(&self) -> &ForecasterSpec {
        &self.spec
    }

    /// The checkpoint prefix that was restored.
    pub fn checkpoint(&self) -> &Path {
        &self.checkpoint
    }
}
