//! `Saver` (`tf.train.Saver`): saves variable values from a session into a TensorFlow V2
//! checkpoint and restores them, explaining every mismatch at once.

use crate::error::{Code, Error, Result};
use crate::graph::{Graph, Variable};
use crate::io::checkpoint::{
    data_path, index_path, read_checkpoint_state, write_checkpoint, write_checkpoint_state, CheckpointReader,
    CheckpointState,
};
use crate::session::Session;
use crate::tensor::{fmt_dims, Tensor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Name suffixes of optimizer state (slots and non-slot variables).
const OPTIMIZER_MARKERS: [&str; 6] = ["/Adam", "/Adam_1", "/Momentum", "beta1_power", "beta2_power", "/Adagrad"];

/// True when `name` looks like optimizer state rather than a model variable.
pub fn is_optimizer_variable(name: &str) -> bool {
    OPTIMIZER_MARKERS.iter().any(|m| name.ends_with(m) || name.contains(&format!("{m}/")))
}

/// Saves and restores variables (`tf.train.Saver`). Each variable is stored under its
/// name (`weight_def/weights`) unless a map gives another checkpoint name.
pub struct Saver {
    vars: BTreeMap<String, Variable>,
    max_to_keep: usize,
}

impl Saver {
    /// A saver for every global variable of `graph` (`tf.train.Saver()`), keeping the 5
    /// newest checkpoints. Errors: `InvalidArgument` when the graph has no variables.
    pub fn new(graph: &Graph) -> Result<Saver> {
        let vars = graph.global_variables();
        if vars.is_empty() {
            return Err(Error::invalid_argument("No variables to save: the graph has no global variables"));
        }
        Saver::with_var_list(&vars)
    }

    /// A saver for the given variables (`tf.train.Saver(var_list=[...])`).
    /// Errors: `InvalidArgument` when two variables have one name.
    pub fn with_var_list(vars: &[Variable]) -> Result<Saver> {
        let mut map = BTreeMap::new();
        for v in vars {
            if map.insert(v.name(), v.clone()).is_some() {
                return Err(Error::invalid_argument(format!(
                    "At least two variables have the same name: {}",
                    v.name()
                )));
            }
        }
        Ok(Saver { vars: map, max_to_keep: 5 })
    }

    /// A saver storing each variable under the given checkpoint name
    /// (`tf.train.Saver(var_list={"name": var})`).
    pub fn with_name_map(map: BTreeMap<String, Variable>) -> Saver {
        Saver { vars: map, max_to_keep: 5 }
    }

    /// Keeps at most `n` checkpoints in the state file, deleting older files (0 keeps all).
    pub fn max_to_keep(mut self, n: usize) -> Saver {
        self.max_to_keep = n;
        self
    }

    /// Checkpoint names and variables, sorted by name.
    pub fn variables(&self) -> &BTreeMap<String, Variable> {
        &self.vars
    }

    /// Writes every variable's value to checkpoint `prefix` (`prefix.index`,
    /// `prefix.data-00000-of-00001`), then updates the `checkpoint` state file beside it
    /// (relative paths, newest last) and deletes checkpoints beyond `max_to_keep`.
    /// Returns the prefix. Errors: `FailedPrecondition` naming an uninitialized variable;
    /// `NotFound` when the directory does not exist; I/O errors naming the file.
    pub fn save(&self, session: &Session, prefix: impl AsRef<Path>) -> Result<PathBuf> {
        let prefix = prefix.as_ref().to_path_buf();
        let dir = prefix.parent().map(Path::to_path_buf).unwrap_or_default();
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(Error::not_found(format!(
                "Parent directory of {} doesn't exist, can't save.",
                prefix.display()
            )));
        }
        let mut tensors = Vec::with_capacity(self.vars.len());
        for (name, v) in &self.vars {
            let value = session.variable_value(v.op()).ok_or_else(|| crate::ops::uninitialized(&v.name()))?;
            tensors.push((name.clone(), value));
        }
        write_checkpoint(&prefix, &tensors)?;
        self.update_state(&dir, &prefix)?;
        Ok(prefix)
    }

    /// As [`Saver::save`] with the step appended: `prefix-<global_step>` (`model.ckpt-1000`).
    pub fn save_with_step(&self, session: &Session, prefix: impl AsRef<Path>, global_step: u64) -> Result<PathBuf> {
        let mut p = prefix.as_ref().as_os_str().to_os_string();
        p.push(format!("-{global_step}"));
        self.save(session, PathBuf::from(p))
    }

    fn update_state(&self, dir: &Path, prefix: &Path) -> Result<()> {
        let state_dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let mut all: Vec<String> = match read_checkpoint_state(state_dir) {
            Ok(Some(st)) => st.all_model_checkpoint_paths,
            _ => Vec::new(),
        };
        let this = prefix.to_string_lossy().into_owned();
        let this_resolved = resolve_in(state_dir, &this);
        all.retain(|p| resolve_in(state_dir, p) != this_resolved);
        all.push(this.clone());
        if self.max_to_keep > 0 && all.len() > self.max_to_keep {
            let drop = all.len() - self.max_to_keep;
            for old in all.drain(..drop) {
                delete_checkpoint_files(&resolve_in(state_dir, &old));
            }
        }
        let all: Vec<String> = all.iter().map(|p| resolve_in(state_dir, p).to_string_lossy().into_owned()).collect();
        write_checkpoint_state(
            state_dir,
            &CheckpointState {
                model_checkpoint_path: this_resolved.to_string_lossy().into_owned(),
                all_model_checkpoint_paths: all,
                ..Default::default()
            },
        )
    }

    /// Restores every variable from checkpoint `prefix` into `session`.
    ///
    /// Nothing is assigned unless everything matches. Errors: `NotFound` listing every
    /// variable missing from the checkpoint, every dtype or shape mismatch, and the names
    /// the checkpoint has that this saver does not; when the missing names are optimizer
    /// slots (`/Adam`, `/Adam_1`, `/Momentum`, `beta1_power`, ...) the message says so and
    /// how to restore only the model variables. `DataLoss`/`NotFound` for damaged or
    /// absent files.
    pub fn restore(&self, session: &Session, prefix: impl AsRef<Path>) -> Result<()> {
        let prefix = prefix.as_ref();
        let reader = CheckpointReader::open(prefix).map_err(|e| {
            if e.code == Code::NotFound {
                Error::not_found(format!(
                    "Failed to find any matching files for {}: no {} (is the prefix right? `tensorgraph inspect DIR` lists a directory's latest checkpoint)",
                    prefix.display(),
                    index_path(prefix).display()
                ))
            } else {
                e
            }
        })?;
        let listed: BTreeMap<String, (crate::DType, Vec<usize>)> =
            reader.list().into_iter().map(|(n, d, s)| (n, (d, s))).collect();
        let mut missing = Vec::new();
        let mut mismatched = Vec::new();
        for (name, v) in &self.vars {
            match listed.get(name) {
                None => missing.push(name.clone()),
                Some((dtype, shape)) => {
                    if *dtype != v.dtype() || shape != &v.shape() {
                        mismatched.push(format!(
                            "{name}: checkpoint has {dtype} {}, graph has {} {}",
                            fmt_dims(shape),
                            v.dtype(),
                            fmt_dims(&v.shape())
                        ));
                    }
                }
            }
        }
        if !missing.is_empty() || !mismatched.is_empty() {
            let unexpected: Vec<&String> = listed.keys().filter(|k| !self.vars.contains_key(*k)).collect();
            return Err(restore_error(prefix, &missing, &mismatched, &unexpected));
        }
        let mut values: Vec<(&Variable, Tensor)> = Vec::with_capacity(self.vars.len());
        for (name, v) in &self.vars {
            values.push((v, reader.read(name)?));
        }
        for (v, t) in values {
            session.set_variable_value(v.op(), t)?;
        }
        Ok(())
    }
}

fn restore_error(prefix: &Path, missing: &[String], mismatched: &[String], unexpected: &[&String]) -> Error {
    let mut msg = format!("Restoring from checkpoint {} failed.", prefix.display());
    if !missing.is_empty() {
        msg.push_str(&format!("\n{} variable(s) not found in checkpoint: {}", missing.len(), missing.join(", ")));
    }
    if !mismatched.is_empty() {
        msg.push_str(&format!("\n{} dtype/shape mismatch(es):\n  {}", mismatched.len(), mismatched.join("\n  ")));
    }
    if !unexpected.is_empty() {
        let names: Vec<&str> = unexpected.iter().map(|s| s.as_str()).collect();
        msg.push_str(&format!("\nThe checkpoint has {} name(s) the graph does not: {}", names.len(), names.join(", ")));
    }
    let slots: Vec<&String> = missing.iter().filter(|n| is_optimizer_variable(n)).collect();
    if !slots.is_empty() {
        msg.push_str(&format!(
            "\n{} of the missing names are optimizer state (slots such as /Adam, /Adam_1, /Momentum, beta1_power, beta2_power): the checkpoint was saved without the optimizer, or the graph adds an optimizer the saved model did not have. To restore only the model variables, build the saver from them: Saver::with_var_list(&graph.trainable_variables()), then initialize the optimizer's variables with their initializers.",
            slots.len()
        ));
    }
    Error::not_found(msg)
}

/// `p` joined onto `dir` when relative and not already under it.
fn resolve_in(dir: &Path, p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() || path.starts_with(dir) {
        path.to_path_buf()
    } else {
        dir.join(path)
    }
}

/// Deletes the index and data files of checkpoint `prefix` (best effort, as TensorFlow).
fn delete_checkpoint_files(prefix: &Path) {
    let _ = std::fs::remove_file(index_path(prefix));
    let _ = std::fs::remove_file(data_path(prefix, 0, 1));
    let mut meta = prefix.as_os_str().to_os_string();
    meta.push(".meta");
    let _ = std::fs::remove_file(PathBuf::from(meta));
}
