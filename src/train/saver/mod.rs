//! `Saver` (`tf.compat.v1.train.Saver`): saves variable values from a session into a
//! TensorFlow V2 checkpoint (one data file, or several for a sharded save) and restores them,
//! explaining every mismatch at once; keeps the newest `max_to_keep` checkpoints plus one every
//! `keep_checkpoint_every_n_hours`; and [`init_from_checkpoint()`]
//! (`tf.compat.v1.train.init_from_checkpoint`) makes variable initializers load checkpoint values.
//!
//! `Saver::save` and `Saver::save_with_step`, which also write the `.meta` meta graph, are
//! defined in `io::meta_graph` (the meta graph export lives in the io layer, above this one);
//! this module writes the checkpoint files and the state file they call.

mod init_from_checkpoint;
mod restore_error;
mod restore_notes;
mod retention;
mod saver_def_ops;
mod saver_ops;
mod step_counters;

pub use init_from_checkpoint::init_from_checkpoint;
pub use restore_error::RestoreHints;
pub use saver_ops::add_saver_ops;

use crate::error::{Code, Error, Result};
use crate::format::checkpoint::{
    index_path, read_checkpoint_state, read_tensors, write_checkpoint_state, CheckpointReader, CheckpointState,
    CheckpointWriter, MAX_SHARDS,
};
use crate::format::proto::SaverDef;
use crate::graph::{Graph, Variable};
use crate::session::Session;
use crate::tensor::{fmt_dims, Tensor};
use restore_error::{missing_checkpoint_error, restore_error};
use retention::{delete_checkpoint_files, now, History};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Name suffixes of optimizer state (slots and non-slot variables).
const OPTIMIZER_MARKERS: [&str; 6] = ["/Adam", "/Adam_1", "/Momentum", "beta1_power", "beta2_power", "/Adagrad"];

/// True when `name` looks like optimizer state rather than a model variable.
pub fn is_optimizer_variable(name: &str) -> bool {
    OPTIMIZER_MARKERS.iter().any(|m| name.ends_with(m) || name.contains(&format!("{m}/")))
}

/// TensorFlow's default `keep_checkpoint_every_n_hours` (10000 hours: in effect never).
pub const DEFAULT_KEEP_CHECKPOINT_EVERY_N_HOURS: f64 = 10000.0;

/// Saves and restores variables (`tf.compat.v1.train.Saver`). Each variable is stored under
/// its name (`weight_def/weights`) unless a map gives another checkpoint name.
///
/// Options mirror the constructor arguments of TensorFlow's `Saver`:
/// [`Saver::max_to_keep`] (default 5), [`Saver::keep_checkpoint_every_n_hours`] (default
/// 10000), [`Saver::sharded`] (default false), plus [`Saver::num_shards`] (data files per
/// sharded save), [`Saver::sync`], [`Saver::write_meta_graph`] (`Saver.save`'s
/// `write_meta_graph`, default true) and [`Saver::restore_hints`].
///
/// [`Saver::save`] writes `prefix.index`, the data files, `prefix.meta` (the graph with this
/// saver's `save/` ops and its `SaverDef`, as TensorFlow's `Saver.save` writes it, unless
/// [`Saver::write_meta_graph`] turns it off) and the `checkpoint` state file. As TensorFlow's
/// `Saver()` constructor, the saver adds its `save/` ops to the graph, here the first time they
/// are needed ([`Saver::as_saver_def`]); a saver returned by
/// [`Graph::import_meta_graph`](crate::Graph::import_meta_graph) reuses the imported ones.
///
/// Every save is atomic: each file is written under a temporary name and renamed into place,
/// the data files first, then the index, then the `.meta`, then the `checkpoint` state file;
/// only then are the checkpoints beyond `max_to_keep` deleted. A process killed at any moment
/// leaves the state file naming a complete checkpoint (the previous one or the new one).
///
/// Like TensorFlow's, a saver remembers the checkpoints *it* saved (oldest first) and applies
/// `max_to_keep` to those; a new saver starts with none. To continue managing the checkpoints
/// of an earlier run, call [`Saver::recover_last_checkpoints`] or
/// [`Saver::recover_from_checkpoint_state`]. A saver is `Send + Sync`; concurrent saves are
/// recorded one at a time.
pub struct Saver {
    vars: BTreeMap<String, Variable>,
    max_to_keep: usize,
    keep_every_n_hours: Option<f64>,
    num_shards: Option<usize>,
    sync: bool,
    write_meta: bool,
    hints: RestoreHints,
    /// The `SaverDef` of this saver's `save/` ops, once added (or imported).
    saver_def: Mutex<Option<SaverDef>>,
    /// For a saver of a `SaverDef` alone ([`Saver::from_saver_def`]): the graph whose save and
    /// restore ops it runs.
    ops_graph: Option<Graph>,
    history: Mutex<History>,
    /// Warnings recorded when the saver was made ([`Saver::warnings`]).
    warnings: Vec<String>,
}

impl std::fmt::Debug for Saver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Saver")
            .field("variables", &self.vars.keys().collect::<Vec<_>>())
            .field("max_to_keep", &self.max_to_keep)
            .field("keep_checkpoint_every_n_hours", &self.keep_every_n_hours)
            .field("num_shards", &self.num_shards)
            .field("write_meta_graph", &self.write_meta)
            .finish()
    }
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
            if map.insert(v.op_name(), v.clone()).is_some() {
                return Err(Error::invalid_argument(format!(
                    "At least two variables have the same name: {}",
                    v.op_name()
                )));
            }
        }
        Ok(Saver::with_name_map(map))
    }

    /// A saver storing each variable under the given checkpoint name
    /// (`tf.train.Saver(var_list={"name": var})`).
    ///
    /// A variable of the graph named like a step counter (`global_step`, `step`,
    /// `train_step`) that the saver does not save, such as a local variable, is recorded in
    /// [`Saver::warnings`].
    pub fn with_name_map(map: BTreeMap<String, Variable>) -> Saver {
        let warnings = match map.values().next() {
            Some(v) => step_counters::unsaved_step_counters(v.op().graph(), &map),
            None => Vec::new(),
        };
        Saver {
            warnings,
            vars: map,
            max_to_keep: 5,
            keep_every_n_hours: None,
            num_shards: None,
            sync: true,
            write_meta: true,
            hints: RestoreHints::rust(),
            saver_def: Mutex::new(None),
            ops_graph: None,
            history: Mutex::new(History::new(now())),
        }
    }

    /// `tf.compat.v1.train.Saver(saver_def=def)`: a saver that saves and restores by running
    /// the `SaverDef`'s ops in `graph` (its filename tensor fed the checkpoint prefix, then its
    /// restore op or save tensor), whatever variables they assign. This is the saver
    /// [`Graph::import_meta_graph`](crate::Graph::import_meta_graph) returns for a meta graph
    /// whose `SaverDef` restores variables that are in no collection (a TensorFlow graph's
    /// imported resource variables, a TF2 `_traced_restore`), as TensorFlow's
    /// `import_meta_graph` builds its saver from the `SaverDef` whenever there is one.
    ///
    /// Its [`Saver::variables`] is empty (the ops know the variables, not the saver);
    /// [`Saver::restore`] first checks that the checkpoint has every name the restore op's
    /// `RestoreV2` ops read and lists all missing ones in one `NotFound`. `max_to_keep` and
    /// `keep_checkpoint_every_n_hours` come from `def`.
    ///
    /// Errors: `InvalidArgument` when `def` has no `filename_tensor_name` or `restore_op_name`;
    /// `NotFound` when one of its names (the save tensor's too, when set) is not in `graph`.
    pub fn from_saver_def(graph: &Graph, def: SaverDef) -> Result<Saver> {
        saver_def_ops::check_saver_def(graph, &def)?;
        let mut saver = Saver::with_name_map(BTreeMap::new()).with_saver_def(def);
        saver.ops_graph = Some(graph.clone());
        Ok(saver)
    }

    /// True for a saver made by [`Saver::from_saver_def`], which runs the `SaverDef`'s ops
    /// rather than reading and writing [`Saver::variables`].
    pub fn runs_saver_def_ops(&self) -> bool {
        self.ops_graph.is_some()
    }

    /// The checkpoint names the `SaverDef`'s restore op reads, for a saver made by
    /// [`Saver::from_saver_def`] (the constant `tensor_names` of its `RestoreV2` ops); those of
    /// [`Saver::variables`] otherwise.
    pub fn checkpoint_names(&self) -> Vec<String> {
        match (&self.ops_graph, &*self.saver_def.lock().unwrap_or_else(|e| e.into_inner())) {
            (Some(g), Some(def)) => saver_def_ops::restored_names(g, def),
            _ => self.vars.keys().cloned().collect(),
        }
    }

    /// Takes `def` as the `SaverDef` of this saver's `save/` ops, already in the graph (a meta
    /// graph's, on import), with its `max_to_keep` and `keep_checkpoint_every_n_hours`, as
    /// `tf.train.Saver(saver_def=...)`.
    pub(crate) fn with_saver_def(self, def: SaverDef) -> Saver {
        let mut saver = self.max_to_keep(def.max_to_keep.max(0) as usize);
        // TensorFlow's default (10000 hours) keeps the option off, as in `Saver::new`
        if def.keep_checkpoint_every_n_hours != DEFAULT_KEEP_CHECKPOINT_EVERY_N_HOURS as f32 {
            saver = saver.keep_checkpoint_every_n_hours(def.keep_checkpoint_every_n_hours as f64);
        }
        *saver.saver_def.lock().unwrap_or_else(|e| e.into_inner()) = Some(def);
        saver
    }

    /// Keeps at most `n` checkpoints (`max_to_keep`, default 5): after each save the oldest
    /// checkpoints this saver recorded beyond the newest `n` are deleted (index, data files,
    /// `.meta`), oldest first, unless [`Saver::keep_checkpoint_every_n_hours`] keeps them.
    /// `0` deletes nothing and, as TensorFlow, lists only the newest checkpoint in the state
    /// file.
    pub fn max_to_keep(mut self, n: usize) -> Saver {
        self.max_to_keep = n;
        self
    }

    /// `keep_checkpoint_every_n_hours` (TensorFlow's default 10000): a checkpoint pushed out by
    /// `max_to_keep` is kept on disk (no longer listed in the state file) when it was saved at
    /// least `hours` after the last checkpoint kept this way; the first is compared with the
    /// time the saver was made. Fractions of an hour are allowed.
    ///
    /// When set, the state file also records `all_model_checkpoint_timestamps` and
    /// `last_preserved_timestamp` (as `tf.train.CheckpointManager` writes them), which
    /// [`Saver::recover_from_checkpoint_state`] reads back. A value that is not a positive
    /// number turns the option off.
    pub fn keep_checkpoint_every_n_hours(mut self, hours: f64) -> Saver {
        self.keep_every_n_hours = (hours.is_finite() && hours > 0.0).then_some(hours);
        self
    }

    /// `sharded=True`: each save writes its data as TensorFlow's sharded `Saver` does, one
    /// data file per device shard. tensorgraph runs on one CPU device, so this is one file
    /// `prefix.data-00000-of-00001` (the layout TensorFlow produces on one device) unless
    /// [`Saver::num_shards`] asks for more. `false` undoes [`Saver::num_shards`].
    pub fn sharded(mut self, sharded: bool) -> Saver {
        self.num_shards = sharded.then_some(self.num_shards.unwrap_or(1));
        self
    }

    /// A sharded save over `n` data files `prefix.data-0000k-of-0000n` and one index (as
    /// TensorFlow's sharded `Saver` writes with variables on `n` devices): each variable, in
    /// name order, goes to the shard holding the fewest bytes so far; the shards are written
    /// in parallel. Implies [`Saver::sharded`]. `n` is clamped to 1..=99999.
    pub fn num_shards(mut self, n: usize) -> Saver {
        self.num_shards = Some(n.clamp(1, MAX_SHARDS));
        self
    }

    /// Whether a save flushes its data files and `.meta` to disk (`fsync`) before renaming
    /// them into place (default true; the index and the state file are always synced). Saves
    /// are atomic either way for other processes and for a killed saver; with `sync` a saved
    /// checkpoint also survives a power loss. TensorFlow does not sync.
    pub fn sync(mut self, sync: bool) -> Saver {
        self.sync = sync;
        self
    }

    /// Whether [`Saver::save`] also writes the meta graph `prefix.meta` (default true, as the
    /// `write_meta_graph` argument of TensorFlow's `Saver.save`). `false` writes only the
    /// checkpoint and the state file, and adds no `save/` ops to the graph.
    pub fn write_meta_graph(mut self, write: bool) -> Saver {
        self.write_meta = write;
        self
    }

    /// The advice a failed [`Saver::restore`] gives (default [`RestoreHints::rust`]: Rust
    /// calls), for a front end that offers its own means, such as command-line flags.
    pub fn restore_hints(mut self, hints: RestoreHints) -> Saver {
        self.hints = hints;
        self
    }

    /// Whether a save syncs its data files and `.meta` to disk ([`Saver::sync`]).
    pub(crate) fn syncs(&self) -> bool {
        self.sync
    }

    /// Whether [`Saver::save`] writes the `.meta` ([`Saver::write_meta_graph`]).
    pub fn writes_meta_graph(&self) -> bool {
        self.write_meta
    }

    /// The graph of this saver's variables, or of its `SaverDef`'s ops
    /// ([`Saver::from_saver_def`]); `None` for a saver without either.
    pub fn graph(&self) -> Option<&Graph> {
        self.vars.values().next().map(|v| v.op().graph()).or(self.ops_graph.as_ref())
    }

    /// This saver's `SaverDef` (`Saver.as_saver_def()`): the names of its `save/` ops in the
    /// graph (`save/Const:0` fed with the prefix, `save/control_dependency:0`,
    /// `save/restore_all`), with its `max_to_keep`, `keep_checkpoint_every_n_hours` and V2
    /// format. The first call adds the ops ([`add_saver_ops`]: under `save`, or `save_1` when
    /// taken) unless the saver came with them (an imported meta graph's); later calls return
    /// the same ops.
    ///
    /// Errors: `InvalidArgument` for a saver without variables (there is no graph to add the
    /// ops to); `FailedPrecondition` when the ops are not there yet and the graph is finalized
    /// ([`Graph::finalize`]: call this before); as [`add_saver_ops`].
    pub fn as_saver_def(&self) -> Result<SaverDef> {
        let mut slot = self.saver_def.lock().unwrap_or_else(|e| e.into_inner());
        let mut def = match &*slot {
            Some(def) => def.clone(),
            None => {
                let graph = self.graph().ok_or_else(|| {
                    Error::invalid_argument("The saver has no variables, so it has no graph to add save ops to")
                })?;
                if graph.is_finalized() {
                    return Err(Error::failed_precondition(
                        "the graph was finalized before this saver added its save/ ops (which the .meta it writes \
                         names); call saver.as_saver_def() before Graph::finalize() (TensorFlow's Saver() adds them \
                         when it is made), or save without the meta graph (Saver::write_meta_graph(false))",
                    ));
                }
                let vars: Vec<(String, Variable)> = self.vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                let def = add_saver_ops(graph, &vars)?;
                *slot = Some(def.clone());
                def
            }
        };
        def.max_to_keep = i32::try_from(self.max_to_keep).unwrap_or(i32::MAX);
        def.keep_checkpoint_every_n_hours =
            self.keep_every_n_hours.unwrap_or(DEFAULT_KEEP_CHECKPOINT_EVERY_N_HOURS) as f32;
        Ok(def)
    }

    /// What the saver found questionable when it was made, one sentence each: variables named
    /// like a step counter (`global_step`, `step`) that it does not save (a local variable,
    /// or one left out of its variables), which a resumed run would start from their
    /// initial value. Nothing is printed; a front end shows these.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Checkpoint names and variables, sorted by name.
    pub fn variables(&self) -> &BTreeMap<String, Variable> {
        &self.vars
    }

    /// The checkpoints this saver manages, oldest first (`Saver.last_checkpoints`).
    pub fn last_checkpoints(&self) -> Vec<PathBuf> {
        self.history.lock().unwrap_or_else(|e| e.into_inner()).last.iter().map(|p| p.0.clone()).collect()
    }

    /// Adopts `checkpoints` (oldest first), with the times they were saved (seconds since the
    /// epoch), as the list this saver manages (`Saver.set_last_checkpoints_with_time`). They
    /// count towards `max_to_keep` on the next save.
    pub fn set_last_checkpoints_with_time(&self, checkpoints: Vec<(PathBuf, f64)>) {
        self.history.lock().unwrap_or_else(|e| e.into_inner()).last = checkpoints;
    }

    /// `Saver.recover_last_checkpoints(paths)`: adopts the checkpoints among `paths` that still
    /// exist (their `.index` file), oldest first, each with the modification time of its
    /// index as its save time, so that the next saves delete them beyond `max_to_keep`.
    pub fn recover_last_checkpoints(&self, paths: &[impl AsRef<Path>]) {
        let found = paths
            .iter()
            .filter_map(|p| {
                let p = p.as_ref();
                let mtime = std::fs::metadata(index_path(p)).and_then(|m| m.modified()).ok()?;
                let secs = mtime.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
                Some((p.to_path_buf(), secs))
            })
            .collect();
        self.set_last_checkpoints_with_time(found);
    }

    /// Adopts what the `checkpoint` state file of `dir` lists, as `tf.train.CheckpointManager`
    /// does when it starts: its `all_model_checkpoint_paths` that still exist, with their
    /// recorded timestamps (or their index's modification time when the file has none), and
    /// its `last_preserved_timestamp` when set. Returns false (and changes nothing) when `dir`
    /// has no state file.
    ///
    /// Errors: as [`crate::format::checkpoint::read_checkpoint_state`] for a damaged state file.
    pub fn recover_from_checkpoint_state(&self, dir: impl AsRef<Path>) -> Result<bool> {
        let Some(st) = read_checkpoint_state(dir)? else { return Ok(false) };
        let paths = &st.all_model_checkpoint_paths;
        if st.all_model_checkpoint_timestamps.len() == paths.len() {
            let found = paths
                .iter()
                .zip(&st.all_model_checkpoint_timestamps)
                .filter(|(p, _)| index_path(p).is_file())
                .map(|(p, t)| (PathBuf::from(p), *t))
                .collect();
            self.set_last_checkpoints_with_time(found);
        } else {
            self.recover_last_checkpoints(paths);
        }
        if st.last_preserved_timestamp > 0.0 {
            self.history.lock().unwrap_or_else(|e| e.into_inner()).last_preserved = st.last_preserved_timestamp;
        }
        Ok(true)
    }

    /// The first half of [`Saver::save`]: writes every variable's value to checkpoint `prefix`
    /// (`prefix.index` and `prefix.data-00000-of-00001`, or `n` data files for a sharded save),
    /// each file under a temporary name renamed into place, the index last.
    ///
    /// Errors: `FailedPrecondition` naming an uninitialized variable; `NotFound` when the
    /// directory does not exist; I/O errors naming the file.
    pub(crate) fn write_checkpoint(&self, session: &Session, prefix: &Path) -> Result<()> {
        crate::format::checkpoint::check_save_prefix(prefix)?;
        let dir = prefix.parent().map(Path::to_path_buf).unwrap_or_default();
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(Error::not_found(format!(
                "Parent directory of {} doesn't exist, can't save.",
                prefix.display()
            )));
        }
        if let Some(graph) = &self.ops_graph {
            let def = self.as_saver_def()?;
            return saver_def_ops::save_through_ops(graph, &def, session, prefix);
        }
        let mut tensors = Vec::with_capacity(self.vars.len());
        for (name, v) in &self.vars {
            let value = session.variable_value(v.op()).ok_or_else(|| crate::ops::uninitialized(&v.op_name()))?;
            tensors.push((name.clone(), value));
        }
        let mut writer = CheckpointWriter::with_num_shards(prefix, self.num_shards.unwrap_or(1))?.sync(self.sync);
        writer.add_all(&tensors)?;
        drop(tensors);
        writer.finish()
    }

    /// The last half of [`Saver::save`], once checkpoint `prefix` is complete: records it,
    /// writes the `checkpoint` state file beside it (paths relative to its directory when
    /// inside it, newest last), then deletes what `max_to_keep` lets go (TensorFlow's order:
    /// `_RecordLastCheckpoint`, `update_checkpoint_state`, `_MaybeDeleteOldCheckpoints`).
    pub(crate) fn record_checkpoint(&self, prefix: &Path) -> Result<()> {
        let dir = prefix.parent().unwrap_or(Path::new(""));
        let state_dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let this = resolve_in(state_dir, &prefix.to_string_lossy());
        let mut hist = self.history.lock().unwrap_or_else(|e| e.into_inner());
        let decision = hist.record(this.clone(), now(), self.max_to_keep, self.keep_every_n_hours);
        let listed: Vec<(PathBuf, f64)> = if self.max_to_keep == 0 {
            vec![(this.clone(), now())]
        } else {
            hist.last.iter().map(|(p, t)| (resolve_in(state_dir, &p.to_string_lossy()), *t)).collect()
        };
        let timed = self.keep_every_n_hours.is_some();
        write_checkpoint_state(
            state_dir,
            &CheckpointState {
                model_checkpoint_path: this.to_string_lossy().into_owned(),
                all_model_checkpoint_paths: listed.iter().map(|p| p.0.to_string_lossy().into_owned()).collect(),
                all_model_checkpoint_timestamps: if timed { listed.iter().map(|p| p.1).collect() } else { Vec::new() },
                last_preserved_timestamp: if timed { hist.last_preserved } else { 0.0 },
            },
        )?;
        for old in &decision.delete {
            if *old != this {
                delete_checkpoint_files(&resolve_in(state_dir, &old.to_string_lossy()));
            }
        }
        Ok(())
    }

    /// Restores every variable from checkpoint `prefix` into `session`. `prefix` may also be
    /// a checkpoint file (`model.ckpt.index`, `model.ckpt.data-00000-of-00001`), a
    /// directory (its newest checkpoint) or a V1 checkpoint file
    /// ([`CheckpointReader::open`]).
    ///
    /// Nothing is assigned unless everything matches. Errors: `NotFound` listing every
    /// variable missing from the checkpoint, every dtype or shape mismatch, and the names
    /// the checkpoint has that this saver does not (`InvalidArgument`, as TensorFlow, when no
    /// name is missing and only dtypes or shapes differ); when the missing names are optimizer
    /// slots (`/Adam`, `/Adam_1`, `/Momentum`, `beta1_power`, ...) the message says so and
    /// how to restore only the model variables, and when names differ how to map them (worded
    /// by [`Saver::restore_hints`]); when every missing name is a saved name with a suffix
    /// `_1`, `_2`, ... the message says the model was probably built twice in the graph, and
    /// when missing moving averages (`w/ExponentialMovingAverage`) belong to saved variables
    /// that were never averaged it names them. `DataLoss`/`NotFound` for damaged or absent
    /// files.
    pub fn restore(&self, session: &Session, prefix: impl AsRef<Path>) -> Result<()> {
        let prefix = prefix.as_ref();
        let reader = CheckpointReader::open(prefix).map_err(|e| {
            // (a directory's own NotFound names its checkpoints or its stale state file)
            if e.code == Code::NotFound && !prefix.is_dir() {
                missing_checkpoint_error(prefix, &self.hints)
            } else {
                e
            }
        })?;
        if let Some(graph) = &self.ops_graph {
            let def = self.as_saver_def()?;
            return saver_def_ops::restore_through_ops(graph, &def, session, &reader, prefix, &self.hints);
        }
        let listed: BTreeMap<String, (crate::DType, Vec<usize>)> =
            reader.list().into_iter().map(|(n, d, s)| (n, (d, s))).collect();
        let mut missing = Vec::new();
        let mut mismatched = Vec::new();
        let problems = reader.problems();
        for (name, v) in &self.vars {
            match listed.get(name) {
                // an entry the reader cannot decode is there, damaged: said so, not "not found"
                None => match problems.iter().find(|p| p.name == *name) {
                    Some(p) => {
                        mismatched.push(format!("{name}: the checkpoint's entry cannot be decoded ({})", p.problem))
                    }
                    None => missing.push(name.clone()),
                },
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
            let mut e = restore_error(prefix, &missing, &mismatched, &unexpected, &self.hints);
            let in_ckpt = |n: &str| listed.contains_key(n);
            if let Some(note) = restore_notes::rebuilt_model_note(&missing, in_ckpt) {
                e.message.push_str(&note);
            } else if let Some(note) = restore_notes::never_averaged_note(&missing, in_ckpt) {
                e.message.push_str(&note);
            }
            return Err(e);
        }
        let names: Vec<&str> = self.vars.keys().map(String::as_str).collect();
        let values: Vec<Tensor> = read_tensors(&reader, &names)?;
        for (v, t) in self.vars.values().zip(values) {
            session.set_variable_value(v.op(), t)?;
        }
        Ok(())
    }
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
