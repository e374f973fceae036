//! [`Saver::save`]: the checkpoint, then its `.meta`, then the state file, as TensorFlow's
//! `Saver.save(sess, save_path, global_step, write_meta_graph=True)`. Defined here, in the
//! io layer, because the meta graph export is; the saver (train layer) writes the checkpoint
//! and the state file.

use super::export::export_meta_graph;
use crate::error::{Error, Result};
use crate::format::atomic_file::write_atomically_synced;
use crate::format::checkpoint::{check_save_prefix, meta_graph_path};
use crate::format::proto::MetaGraphDef;
use crate::session::Session;
use crate::train::Saver;
use std::path::{Path, PathBuf};

impl Saver {
    /// `Saver.save(sess, save_path)`: writes every variable's value to checkpoint `prefix`
    /// (`prefix.index` and `prefix.data-00000-of-00001`, or `n` data files for a sharded
    /// save), the meta graph `prefix.meta` ([`Saver::export_meta_graph`]; skipped with
    /// [`Saver::write_meta_graph`]`(false)` or when the saver has no variables), then updates
    /// the `checkpoint` state file beside it (paths relative to its directory when inside it,
    /// newest last), then deletes the checkpoints beyond `max_to_keep` (their `.meta` too).
    /// Every file is written under a temporary name and renamed into place; the state file
    /// is replaced last. Returns the prefix.
    ///
    /// The first save that writes a `.meta` adds this saver's `save/` ops to the graph
    /// ([`Saver::as_saver_def`]), as TensorFlow's `Saver()` constructor does; TensorFlow's
    /// `tf.train.import_meta_graph` and tensorgraph's
    /// [`Graph::import_meta_graph`](crate::Graph::import_meta_graph) restore through them.
    ///
    /// Errors: `InvalidArgument` for an empty prefix, a directory, or the name of a
    /// checkpoint file (`model.ckpt.index`: the prefix to use is named) before anything is
    /// written ([`check_save_prefix`]); `FailedPrecondition` naming an uninitialized
    /// variable; `NotFound` when the directory does not exist; `InvalidArgument` when the
    /// graph cannot be exported (a
    /// collection mixing kinds of items); I/O errors naming the file. On error no file of the
    /// new checkpoint is left under its final name unless its data files were already renamed
    /// (then the state file still names the previous checkpoint).
    pub fn save(&self, session: &Session, prefix: impl AsRef<Path>) -> Result<PathBuf> {
        let prefix = prefix.as_ref().to_path_buf();
        check_save_prefix(&prefix)?;
        // exported first, so that a graph that cannot be exported fails before any file is written
        let meta =
            if self.writes_meta_graph() && self.graph().is_some() { Some(self.export_meta_graph()?) } else { None };
        self.write_checkpoint(session, &prefix)?;
        if let Some(meta) = meta {
            // synced as the data files are ([`Saver::sync`])
            write_atomically_synced(&meta_graph_path(&prefix), &meta.to_bytes(), self.syncs())?;
        }
        self.record_checkpoint(&prefix)?;
        Ok(prefix)
    }

    /// As [`Saver::save`] with the step appended: `prefix-<global_step>` (`model.ckpt-1000`,
    /// with `model.ckpt-1000.meta`).
    pub fn save_with_step(&self, session: &Session, prefix: impl AsRef<Path>, global_step: u64) -> Result<PathBuf> {
        check_save_prefix(prefix.as_ref())?;
        let mut p = prefix.as_ref().as_os_str().to_os_string();
        p.push(format!("-{global_step}"));
        self.save(session, PathBuf::from(p))
    }

    /// `Saver.save(sess, prefix, global_step=step)`: as [`Saver::save_with_step`] with the
    /// step read from the variable `step` in `session` (`model.ckpt-3` after three train
    /// steps that incremented a [`get_or_create_global_step`](crate::train::get_or_create_global_step)
    /// variable).
    ///
    /// Errors: as [`crate::train::global_step`] (an uninitialized step, a step of a
    /// non-integer dtype, a negative step); as [`Saver::save`].
    pub fn save_with_global_step(
        &self,
        session: &Session,
        prefix: impl AsRef<Path>,
        step: &crate::graph::Variable,
    ) -> Result<PathBuf> {
        let n = crate::train::global_step(session, step)?;
        let n = u64::try_from(n).map_err(|_| {
            Error::invalid_argument(format!(
                "the global step {} is {n}; a checkpoint's step cannot be negative",
                step.op_name()
            ))
        })?;
        self.save_with_step(session, prefix, n)
    }

    /// `Saver.export_meta_graph()`: the meta graph of this saver's graph as
    /// [`export_meta_graph`] builds it, with this saver's `SaverDef`
    /// ([`Saver::as_saver_def`], which adds the `save/` ops the first time). What
    /// [`Saver::save`] writes to `prefix.meta`.
    ///
    /// Errors: `InvalidArgument` for a saver without variables, or a collection mixing kinds
    /// of items; as [`Saver::as_saver_def`].
    pub fn export_meta_graph(&self) -> Result<MetaGraphDef> {
        let graph = self
            .graph()
            .ok_or_else(|| Error::invalid_argument("The saver has no variables, so it has no graph to export"))?;
        let saver_def = self.as_saver_def()?;
        export_meta_graph(graph, Some(saver_def))
    }
}
