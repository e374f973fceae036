//! Restoring a checkpoint into a loaded meta graph for `run` and `freeze`: through the meta
//! graph's saver, or only its trainable variables (`--trainable-only`), with checkpoint names
//! mapped to the graph's (`--map OLD=NEW`). Restore errors advise these flags, not Rust calls.

use std::collections::BTreeMap;
use std::path::Path;
use tensorgraph::train::{RestoreHints, Saver};
use tensorgraph::{Session, Variable};

/// How `run` and `freeze` restore: `--trainable-only` and `--map`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RestoreFlags {
    /// Restore only the trainable variables (not the optimizer's slots).
    #[arg(long)]
    pub trainable_only: bool,
    /// Restore graph variable GRAPH_NAME from the checkpoint's CKPT_NAME; repeatable;
    /// old_scope/=new_scope/ maps every variable under a scope.
    #[arg(long = "map", value_name = "CKPT_NAME=GRAPH_NAME")]
    pub map: Vec<String>,
}

/// The advice of a failed restore, in this command's flags.
pub fn cli_hints() -> RestoreHints {
    RestoreHints {
        model_variables_only: "Pass --trainable-only to restore only the trainable (model) variables; the optimizer's stay uninitialized, which running or freezing the model's outputs does not need.".into(),
        map_names: "Restore a checkpoint of this model, or map the checkpoint's names to the graph's with --map CKPT_NAME=GRAPH_NAME (repeatable; --map old_scope/=new_scope/ maps every variable under a scope). `tensorgraph inspect CKPT` lists the checkpoint's names.".into(),
        missing_checkpoint: "give a checkpoint prefix, the path without .index, or the directory holding its `checkpoint` state file".into(),
    }
}

/// Applies one `--map` pair to `map` (checkpoint name → variable).
fn apply_pair(map: &mut BTreeMap<String, Variable>, pair: &str) -> Result<(), String> {
    let Some((ckpt, graph)) = pair.split_once('=').filter(|(a, b)| !a.is_empty() && !b.is_empty()) else {
        return Err(format!("--map {pair}: expected CKPT_NAME=GRAPH_NAME (e.g. --map old/weights=new/weights)"));
    };
    let scoped = ckpt.ends_with('/') && graph.ends_with('/');
    let renamed: Vec<(String, String)> = map
        .iter()
        .filter_map(|(key, v)| {
            let name = v.op().name();
            if scoped {
                name.strip_prefix(graph).map(|rest| (key.clone(), format!("{ckpt}{rest}")))
            } else {
                (name == graph).then(|| (key.clone(), ckpt.to_string()))
            }
        })
        .collect();
    if renamed.is_empty() {
        let names: Vec<String> = map.values().map(|v| v.op().name()).collect();
        let what = if scoped { format!("no variable under {graph}") } else { format!("no variable {graph}") };
        return Err(format!("--map {pair}: the graph has {what} to restore; its variables: {}", names.join(", ")));
    }
    let mut moved = Vec::with_capacity(renamed.len());
    for (key, new_key) in renamed {
        let v = map.remove(&key).expect("a key just listed");
        moved.push((new_key, v));
    }
    for (key, v) in moved {
        let name = v.op().name();
        if let Some(other) = map.insert(key.clone(), v) {
            return Err(format!(
                "--map {pair}: two variables, {} and {name}, would be restored from checkpoint name {key}",
                other.op().name()
            ));
        }
    }
    Ok(())
}

/// The saver to restore with: the meta graph's `saver`, reduced to its trainable variables
/// and renamed as `flags` ask, advising the CLI's flags on failure. Errors: a bad `--map`.
pub fn cli_saver(saver: &Saver, flags: &RestoreFlags) -> Result<Saver, String> {
    let mut map: BTreeMap<String, Variable> = saver
        .variables()
        .iter()
        .filter(|(_, v)| !flags.trainable_only || v.trainable())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for pair in &flags.map {
        apply_pair(&mut map, pair)?;
    }
    Ok(Saver::with_name_map(map).restore_hints(cli_hints()))
}

/// A saver that runs the meta graph's `SaverDef` ops (its variables are in no collection),
/// with the CLI's advice. Errors: `--trainable-only` or `--map`, which need the variables.
fn saver_def_saver(saver: &Saver, flags: &RestoreFlags) -> Result<Saver, String> {
    let flag = if flags.trainable_only { Some("--trainable-only") } else { flags.map.first().map(|_| "--map") };
    let def = saver.as_saver_def().map_err(|e| e.to_string())?;
    if let Some(flag) = flag {
        return Err(format!(
            "{flag}: the meta graph lists its variables in no collection, so they are restored by running its saver's restore op {} (as TensorFlow's import_meta_graph does), which reads the checkpoint names {}; {flag} needs the variables listed (tf.compat.v1.global_variables), so restore without it",
            def.restore_op_name,
            saver.checkpoint_names().join(", ")
        ));
    }
    let graph = saver.graph().ok_or("the meta graph's saver has no graph")?;
    Ok(Saver::from_saver_def(graph, def).map_err(|e| e.to_string())?.restore_hints(cli_hints()))
}

/// Restores checkpoint `prefix` into `sess` through `saver` as `flags` ask.
/// Errors: the restore error, with the CLI's advice.
pub fn restore(sess: &Session, saver: &Saver, prefix: &Path, flags: &RestoreFlags) -> Result<(), String> {
    let saver = if saver.runs_saver_def_ops() { saver_def_saver(saver, flags)? } else { cli_saver(saver, flags)? };
    saver.restore(sess, prefix).map_err(|e| e.to_string())
}
