//! Saving and restoring through a `SaverDef`'s own ops, as TensorFlow's
//! `Saver(saver_def=...)` does: the prefix is fed to `filename_tensor_name`, then
//! `restore_op_name` (or `save_tensor_name`) runs. This is how a meta graph whose variables
//! are in no collection is restored (a TF graph's imported resource variables, a TF2
//! `_traced_restore`): the restore op knows its variables when the collections do not.

use super::restore_error::{restore_error, RestoreHints};
use crate::error::{Error, Result};
use crate::format::checkpoint::CheckpointReader;
use crate::format::proto::SaverDef;
use crate::graph::Graph;
use crate::session::Session;
use crate::tensor::{Storage, Tensor};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The op of a tensor or op name (`save/Const:0` → `save/Const`).
fn op_of(name: &str) -> &str {
    name.split_once(':').map_or(name, |(op, _)| op)
}

/// `NotFound` for each name of `def` (`filename_tensor_name`, `save_tensor_name`,
/// `restore_op_name`) that is set but names nothing in `graph`, and `InvalidArgument` when the
/// filename tensor or the restore op is not set.
pub(super) fn check_saver_def(graph: &Graph, def: &SaverDef) -> Result<()> {
    for (field, name) in
        [("filename_tensor_name", &def.filename_tensor_name), ("restore_op_name", &def.restore_op_name)]
    {
        if name.is_empty() {
            return Err(Error::invalid_argument(format!(
                "the SaverDef has no {field}, so it cannot restore; give a saver the variables instead (Saver::with_var_list)"
            )));
        }
    }
    graph.tensor_by_name(&def.filename_tensor_name).map_err(|e| e.context("SaverDef filename_tensor_name"))?;
    graph.operation_by_name(op_of(&def.restore_op_name)).map_err(|e| e.context("SaverDef restore_op_name"))?;
    if !def.save_tensor_name.is_empty() {
        graph.tensor_by_name(&def.save_tensor_name).map_err(|e| e.context("SaverDef save_tensor_name"))?;
    }
    Ok(())
}

/// The checkpoint names the restore op reads: the constant `tensor_names` of every
/// `RestoreV2` it depends on (through data and control inputs), each once, in the order
/// found. A `RestoreV2` whose names are not a constant is skipped (its run says what is
/// missing).
pub(super) fn restored_names(graph: &Graph, def: &SaverDef) -> Vec<String> {
    let Ok(restore) = graph.operation_by_name(op_of(&def.restore_op_name)) else { return Vec::new() };
    let mut seen = BTreeSet::new();
    let mut stack = vec![restore.id()];
    let mut names = Vec::new();
    let mut listed = BTreeSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = graph.node(id);
        if node.op_type == "RestoreV2" {
            if let Some(&(src, _)) = node.inputs.get(1) {
                if let Ok(t) = graph.node(src).attr_tensor("value") {
                    if let Storage::Str(v) = t.storage() {
                        for n in v {
                            let n = String::from_utf8_lossy(n).into_owned();
                            if listed.insert(n.clone()) {
                                names.push(n);
                            }
                        }
                    }
                }
            }
        }
        stack.extend(node.inputs.iter().map(|&(src, _)| src));
        stack.extend(node.control_inputs.iter().copied());
    }
    names
}

/// Restores the checkpoint `reader` opened (given as `given`) by running `def`'s restore op
/// with its filename tensor fed the checkpoint's prefix. Every name the restore op reads is
/// checked first: all missing ones are listed in one `NotFound` (worded by `hints`).
/// Errors: that; the run's (a dtype that differs: `InvalidArgument` naming the tensor).
pub(super) fn restore_through_ops(
    graph: &Graph,
    def: &SaverDef,
    session: &Session,
    reader: &CheckpointReader,
    given: &Path,
    hints: &RestoreHints,
) -> Result<()> {
    let listed: BTreeMap<String, ()> = reader.list().into_iter().map(|(n, _, _)| (n, ())).collect();
    let wanted = restored_names(graph, def);
    let missing: Vec<String> = wanted.iter().filter(|n| !listed.contains_key(*n)).cloned().collect();
    if !missing.is_empty() {
        let unexpected: Vec<&String> = listed.keys().filter(|k| !wanted.contains(k)).collect();
        return Err(restore_error(given, &missing, &[], &unexpected, hints));
    }
    let filename = graph.tensor_by_name(&def.filename_tensor_name)?;
    let restore = graph.operation_by_name(op_of(&def.restore_op_name))?;
    let prefix = Tensor::strings(&[], vec![reader.prefix().to_string_lossy().into_owned().into_bytes()])?;
    session
        .run(&[(&filename, prefix)], &[], &[&restore])
        .map(|_| ())
        .map_err(|e| e.context(format!("running the SaverDef's restore op {}", restore.name())))
}

/// Saves checkpoint `prefix` by running `def`'s save tensor with its filename tensor fed
/// `prefix` (`Saver.save` of a `Saver(saver_def=...)`). Errors: `InvalidArgument` when the
/// SaverDef has no save tensor; the run's (an uninitialized variable: `FailedPrecondition`).
pub(super) fn save_through_ops(graph: &Graph, def: &SaverDef, session: &Session, prefix: &Path) -> Result<()> {
    if def.save_tensor_name.is_empty() {
        return Err(Error::invalid_argument(
            "the SaverDef has no save_tensor_name, so this saver cannot save; build a saver from the variables (Saver::with_var_list)",
        ));
    }
    let filename = graph.tensor_by_name(&def.filename_tensor_name)?;
    let save = graph.tensor_by_name(&def.save_tensor_name)?;
    let path = Tensor::strings(&[], vec![prefix.to_string_lossy().into_owned().into_bytes()])?;
    session
        .run(&[(&filename, path)], &[&save], &[])
        .map(|_| ())
        .map_err(|e| e.context(format!("running the SaverDef's save op {}", save.name())))
}
