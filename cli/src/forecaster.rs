//! The `Forecaster` the seeds' users wanted: the graph is built once in `new()`, the
//! checkpoint restored into it, and `forecast()` only runs the session.

use serde_json::{json, Value};
use std::path::Path;
use tensorgraph::models::{Mlp, MlpConfig};
use tensorgraph::train::Saver;
use tensorgraph::{Graph, Output, Session, Tensor};

/// Everything needed to rebuild the model: sizes and the feature standardization.
pub struct ModelSpec {
    pub features: usize,
    pub hidden: Vec<usize>,
    pub classes: usize,
    pub mean: Vec<f32>,
    pub std: Vec<f32>,
    pub class_names: Vec<String>,
}

impl ModelSpec {
    pub fn to_json(&self) -> Value {
        json!({"features": self.features, "hidden": self.hidden, "classes": self.classes,
               "mean": self.mean, "std": self.std, "class_names": self.class_names})
    }

    pub fn from_json(v: &Value) -> Result<ModelSpec, String> {
        let usz = |k: &str| v[k].as_u64().map(|x| x as usize).ok_or(format!("model.json: '{k}' missing"));
        let floats = |k: &str| -> Result<Vec<f32>, String> {
            v[k].as_array()
                .ok_or(format!("model.json: '{k}' missing"))?
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32).ok_or(format!("model.json: '{k}' holds a non-number")))
                .collect()
        };
        Ok(ModelSpec {
            features: usz("features")?,
            hidden: v["hidden"]
                .as_array()
                .ok_or("model.json: 'hidden' missing")?
                .iter()
                .filter_map(|x| x.as_u64().map(|x| x as usize))
                .collect(),
            classes: usz("classes")?,
            mean: floats("mean")?,
            std: floats("std")?,
            class_names: v["class_names"]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect())
                .unwrap_or_default(),
        })
    }

    /// Standardizes rows with the training mean and standard deviation.
    pub fn standardize(&self, rows: &[Vec<f32>]) -> Vec<Vec<f32>> {
        rows.iter().map(|r| r.iter().enumerate().map(|(j, v)| (v - self.mean[j]) / self.std[j]).collect()).collect()
    }
}

pub struct Forecaster {
    session: Session,
    x: Output,
    probs: Output,
    pub spec: ModelSpec,
}

impl Forecaster {
    /// Builds the inference graph once and restores the latest checkpoint of `dir`.
    pub fn new(dir: &Path) -> Result<Forecaster, String> {
        let spec_path = dir.join("model.json");
        let text =
            std::fs::read_to_string(&spec_path).map_err(|e| format!("cannot read {}: {e}", spec_path.display()))?;
        let spec =
            ModelSpec::from_json(&serde_json::from_str(&text).map_err(|e| format!("{}: {e}", spec_path.display()))?)?;
        let graph = Graph::new();
        let cfg = MlpConfig {
            features: spec.features,
            hidden: spec.hidden.clone(),
            classes: spec.classes,
            learning_rate: None,
            seed: None,
        };
        let model = Mlp::build(&graph, &cfg).map_err(|e| e.to_string())?;
        let session = Session::new(&graph).map_err(|e| e.to_string())?;
        let prefix = tensorgraph::format::checkpoint::latest_checkpoint(dir)
            .map_err(|e| e.to_string())?
            .ok_or(format!("no checkpoint in {} (its 'checkpoint' state file is missing)", dir.display()))?;
        Saver::new(&graph).and_then(|s| s.restore(&session, &prefix)).map_err(|e| e.to_string())?;
        Ok(Forecaster { session, x: model.x, probs: model.probs, spec })
    }

    /// Class probabilities `[rows, classes]` for raw (unstandardized) feature rows.
    pub fn forecast(&self, rows: &[Vec<f32>]) -> Result<Tensor, String> {
        let std_rows = self.spec.standardize(rows);
        let flat: Vec<f32> = std_rows.concat();
        let t = Tensor::new(&[rows.len(), self.spec.features], flat).map_err(|e| e.to_string())?;
        self.session.fetch(&[(&self.x, t)], &self.probs).map_err(|e| e.to_string())
    }
}
