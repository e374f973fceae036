//! The message of a failed [`super::Saver::restore`]: every missing name, every dtype or shape
//! mismatch and every name the checkpoint has that the saver does not, with advice worded
//! for where it is shown ([`RestoreHints`]: Rust calls by default, the CLI's flags there).

use super::is_optimizer_variable;
use crate::error::Error;
use std::path::Path;

/// The advice a failed [`Saver::restore`](super::Saver::restore) gives, worded for where the
/// message is shown. The default names Rust calls ([`RestoreHints::rust`]); a front end that
/// offers other means (the `tensorgraph` command's `--trainable-only` and `--map`) sets its
/// own with [`Saver::restore_hints`](super::Saver::restore_hints).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreHints {
    /// Said when the only missing names are optimizer state (slots such as `/Adam`): how to
    /// restore only the model variables.
    pub model_variables_only: String,
    /// Said when the graph's names differ from the checkpoint's: how to map names, and how to
    /// list the checkpoint's names.
    pub map_names: String,
    /// Said when the checkpoint's `.index` file does not exist: what a checkpoint prefix is
    /// and how to find one in a directory.
    pub missing_checkpoint: String,
}

impl RestoreHints {
    /// The advice in Rust calls: [`Saver::with_var_list`](super::Saver::with_var_list) with the
    /// trainable variables, [`Saver::with_name_map`](super::Saver::with_name_map),
    /// [`CheckpointReader::list`](crate::format::checkpoint::CheckpointReader::list) and
    /// [`latest_checkpoint`](crate::format::checkpoint::latest_checkpoint).
    pub fn rust() -> RestoreHints {
        RestoreHints {
            model_variables_only: "To restore only the model variables, build the saver from them: Saver::with_var_list(&graph.trainable_variables()), then initialize the optimizer's variables with their initializers.".into(),
            map_names: "Build the same model (same scopes and names) as the one saved, or map checkpoint names to variables with Saver::with_name_map; CheckpointReader::open(prefix)?.list() lists the checkpoint's names.".into(),
            missing_checkpoint: "a checkpoint prefix is the path without .index; latest_checkpoint(dir) finds the latest checkpoint of a directory".into(),
        }
    }
}

impl Default for RestoreHints {
    fn default() -> RestoreHints {
        RestoreHints::rust()
    }
}

/// `NotFound` for a checkpoint `prefix` without an index file: TensorFlow's `Failed to find
/// any matching files for P`, then what is missing (`no P.index`, with the checkpoints near
/// it), or, for a path named as one of a checkpoint's files or its `.meta`, the reader's
/// account of that name (a V1 file to pass instead, the prefix it would stand for).
pub(super) fn missing_checkpoint_error(prefix: &Path, hints: &RestoreHints) -> Error {
    use crate::format::checkpoint::{
        checkpoints_near, index_path, missing_checkpoint_message, names_a_checkpoint_file,
    };
    let shown = prefix.display();
    if names_a_checkpoint_file(prefix) {
        let why = missing_checkpoint_message(prefix);
        let why = why.strip_prefix(&format!("checkpoint {shown} not found: ")).unwrap_or(&why);
        return Error::not_found(format!(
            "Failed to find any matching files for {shown}: {why} ({})",
            hints.missing_checkpoint
        ));
    }
    Error::not_found(format!(
        "Failed to find any matching files for {shown}: no {} ({}){}",
        index_path(prefix).display(),
        hints.missing_checkpoint,
        checkpoints_near(prefix)
    ))
}

/// The error listing everything that keeps the checkpoint `prefix` from being restored:
/// `NotFound` when a name is missing from the checkpoint, `InvalidArgument` when every name
/// is there but some dtype or shape differs (TensorFlow's `Saver.restore` raises
/// `InvalidArgumentError`, "a mismatch between the current graph and the graph", then).
pub(super) fn restore_error(
    prefix: &Path,
    missing: &[String],
    mismatched: &[String],
    unexpected: &[&String],
    hints: &RestoreHints,
) -> Error {
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
    let slots = missing.iter().filter(|n| is_optimizer_variable(n)).count();
    let model_missing = missing.len() - slots;
    if slots > 0 && model_missing == 0 && mismatched.is_empty() {
        msg.push_str(&format!(
            "\nAll {slots} missing names are optimizer state (slots such as /Adam, /Adam_1, /Momentum, beta1_power, beta2_power): the checkpoint was saved without the optimizer, or the graph adds an optimizer the saved model did not have. {}",
            hints.model_variables_only
        ));
    } else if model_missing > 0 && !unexpected.is_empty() {
        msg.push_str(&format!("\nThe graph's variable names differ from the checkpoint's. {}", hints.map_names));
    }
    if missing.is_empty() && !mismatched.is_empty() {
        Error::invalid_argument(msg)
    } else {
        Error::not_found(msg)
    }
}
