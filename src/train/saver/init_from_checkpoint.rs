//! `init_from_checkpoint` (`tf.compat.v1.train.init_from_checkpoint`): makes the initializers
//! of chosen variables load values from a checkpoint, renaming scopes on the way.

use crate::error::suggest::suggest;
use crate::error::{Error, Result};
use crate::format::checkpoint::{resolve_checkpoint_prefix, CheckpointReader};
use crate::graph::{CollectionItem, Graph, Output, Scope, Variable, VariableRecord};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `tf.compat.v1.train.init_from_checkpoint(ckpt_dir_or_file, assignment_map)`: replaces the
/// initializers of the variables named by `assignment_map` so that running them (directly or
/// through `global_variables_initializer()`) assigns the values stored in the checkpoint.
/// Nothing is restored now and the session is not touched, as in TensorFlow.
///
/// `ckpt_dir_or_prefix` is a checkpoint prefix (`dir/model.ckpt-100`) or a directory, whose
/// latest checkpoint (per its `checkpoint` state file) is used.
///
/// `assignment_map` pairs a name in the checkpoint with a name in the graph, as TensorFlow's
/// dict `{checkpoint_name: graph_name}`; entries are taken in checkpoint-name order:
/// - `("old/name", "new/name")`: variable `new/name` gets tensor `old/name`;
/// - `("old_scope/", "new_scope/")`: every variable under `new_scope/` (`new_scope/x/y`)
///   gets the tensor of the same name under `old_scope/` (`old_scope/x/y`);
/// - `("/", "new_scope/")`: every variable under `new_scope/` gets the tensor named by the
///   rest of its name (`new_scope/x` gets `x`); `("old_scope/", "/")` gives every variable
///   `v` the tensor `old_scope/v`; `("/", "/")` every variable the tensor of its own name.
///
/// Graph names are looked up among the variables made with `get_variable` (TensorFlow's
/// variable store) and, beyond TensorFlow, the other global variables (TensorFlow takes
/// `tf.Variable` objects in the map for those). The values must match each variable's shape
/// and dtype.
///
/// Each matched variable `v` gets, as in TensorFlow, a new initial value: a `RestoreV2` op
/// `checkpoint_initializer[_k]` that reads the tensor from the checkpoint when the
/// initializer runs (the checkpoint must still be there then: `NotFound` otherwise), and
/// a new initializer `Assign[_k]` (for a resource variable `AssignVariableOp[_k]`) at the
/// root of the graph. The values are not copied into the graph, so an exported graph stays
/// small. Its records in every collection and in the variable store are updated, so
/// [`crate::Graph::global_variables`] and initializers built afterwards use them.
/// [`Variable`] handles obtained earlier keep the old initializer; fetch them again from
/// the graph.
///
/// Returns the `(variable, checkpoint tensor)` pairs initialized, in order.
///
/// Errors (all problems are listed at once, and the graph is changed only when there are
/// none): `NotFound` when there is no checkpoint, a checkpoint tensor is missing (naming it,
/// the variable and the map entry), a graph name is neither a variable nor a scope
/// (`"scope/"`), or a scope holds no variable; `InvalidArgument` when a shape or dtype
/// differs (naming both), or a scope maps to a single tensor name (TensorFlow's "Assignment
/// map with scope only name ... should map to scope only ..."); `DataLoss` for a damaged
/// checkpoint index. Damaged tensor data shows when the initializer runs.
pub fn init_from_checkpoint<K: AsRef<str>, V: AsRef<str>>(
    graph: &Graph,
    ckpt_dir_or_prefix: impl AsRef<Path>,
    assignment_map: impl IntoIterator<Item = (K, V)>,
) -> Result<Vec<(String, String)>> {
    let prefix = resolve_checkpoint_prefix(ckpt_dir_or_prefix.as_ref())?;
    let reader = CheckpointReader::open(&prefix)?;
    let in_ckpt: BTreeMap<String, (DType, Vec<usize>)> =
        reader.list().into_iter().map(|(n, d, s)| (n, (d, s))).collect();
    let vars = candidate_variables(graph);
    let mut map: Vec<(String, String)> =
        assignment_map.into_iter().map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string())).collect();
    map.sort_by(|a, b| a.0.cmp(&b.0));

    let mut pairs: Vec<(Variable, String)> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut invalid = false;
    let ckpt = prefix.display();
    // the scopes (`a/`, `a/b/`) of the checkpoint's tensors and of the graph's variables
    let ckpt_scopes = scopes_of(in_ckpt.keys());
    let graph_scopes = scopes_of(vars.keys());
    for (tensor_name, graph_name) in &map {
        if let Some(v) = vars.get(graph_name) {
            pairs.push((v.clone(), tensor_name.clone()));
            continue;
        }
        if !(graph_name.ends_with('/')) {
            let hint = suggest(graph_name, vars.keys().map(String::as_str));
            problems.push(format!(
                "variable {graph_name} (assignment map entry {tensor_name:?}: {graph_name:?}) is not in the graph; \
                 to map a whole scope write both names with a trailing '/'.{hint}"
            ));
            continue;
        }
        let scopes = graph_name.rfind('/').map(|i| &graph_name[..i]).unwrap_or("");
        if !tensor_name.ends_with('/') {
            invalid = true;
            problems.push(format!(
                "Assignment map with scope only name {scopes} should map to scope only {tensor_name}. Should be \
                 'scope/': 'other_scope/'."
            ));
            continue;
        }
        let under: Vec<&String> =
            vars.keys().filter(|n| scopes.is_empty() || n.starts_with(&format!("{scopes}/"))).collect();
        if under.is_empty() {
            let hint = suggest(graph_name, graph_scopes.iter().map(String::as_str));
            problems.push(format!(
                "no variable of the graph is under scope {graph_name:?} (assignment map entry {tensor_name:?}: \
                 {graph_name:?}).{hint}"
            ));
        } else if tensor_name != "/" && !ckpt_scopes.contains(tensor_name) {
            // a misspelt checkpoint scope: one problem for the entry, not one per variable
            let hint = suggest(tensor_name, ckpt_scopes.iter().map(String::as_str));
            problems.push(format!(
                "no tensor of checkpoint {ckpt} is under scope {tensor_name:?} (assignment map entry \
                 {tensor_name:?}: {graph_name:?}).{hint}"
            ));
            continue;
        }
        for var_name in under {
            // TensorFlow's name arithmetic (checkpoint_utils._init_from_checkpoint).
            let mut full = var_name[scopes.len()..].to_string();
            if graph_name != "/" {
                full.remove(0);
            }
            if tensor_name != "/" {
                full = format!("{tensor_name}{full}");
            }
            let full = full.strip_suffix('/').map(str::to_string).unwrap_or(full);
            pairs.push((vars[var_name].clone(), full));
        }
    }
    for (v, t) in &pairs {
        match in_ckpt.get(t) {
            None => {
                let hint = suggest(t, in_ckpt.keys().map(String::as_str));
                let stop = if hint.is_empty() { "" } else { "." };
                problems.push(format!(
                    "Tensor {t} (for variable {}) is not found in checkpoint {ckpt}{stop}{hint}",
                    v.op_name()
                ))
            }
            Some((dtype, shape)) => {
                if !Shape::known(&v.shape()).compatible(&Shape::known(shape)) || *dtype != v.dtype() {
                    invalid = true;
                    problems.push(format!(
                        "variable {} is {} {} but tensor {t} in checkpoint {ckpt} is {dtype} {}",
                        v.op_name(),
                        v.dtype(),
                        fmt_dims(&v.shape()),
                        fmt_dims(shape)
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        let msg = format!(
            "init_from_checkpoint from {ckpt} failed ({} problem(s); nothing was changed):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
        return Err(if invalid { Error::invalid_argument(msg) } else { Error::not_found(msg) });
    }

    let root = graph.scope();
    let ckpt_path = prefix.to_string_lossy();
    let mut done = Vec::with_capacity(pairs.len());
    for (v, t) in pairs {
        let initial = checkpoint_initializer(&root, &ckpt_path, &t, v.dtype())?;
        let assign = v.assign_op(&root, &initial)?;
        let old = v.record();
        let new = VariableRecord { initializer: assign.id(), initial_value: initial.key(), ..old.clone() };
        replace_record(graph, &old, &new);
        done.push((v.op_name(), t));
    }
    Ok(done)
}

/// TensorFlow's `_set_checkpoint_initializer`: a `RestoreV2` op `checkpoint_initializer[_k]`
/// reading tensor `name` (of `dtype`) from the checkpoint at `prefix` when it runs, with its
/// `prefix`, `tensor_names` and `shape_and_slices` constants inside its name scope.
fn checkpoint_initializer(root: &Scope, prefix: &str, name: &str, dtype: DType) -> Result<Output> {
    let (op, inner) = root.op_scope("checkpoint_initializer");
    let prefix = crate::ops::constant(&inner.named("prefix"), Tensor::strings(&[], vec![prefix.as_bytes().to_vec()])?)?;
    crate::ops::io_ops::restore_v2(&op, &inner, &prefix, &[name], &[dtype])?.output(0)
}

/// Every scope of `names`, with its trailing '/': `a/` and `a/b/` for `a/b/c`.
fn scopes_of<'a>(names: impl Iterator<Item = &'a String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for name in names {
        for (i, _) in name.match_indices('/') {
            out.insert(name[..=i].to_string());
        }
    }
    out
}

/// The variables a graph name can refer to: the variable store, then the global variables.
fn candidate_variables(graph: &Graph) -> BTreeMap<String, Variable> {
    let stored: Vec<VariableRecord> = graph.read().var_store.values().map(|s| s.record.clone()).collect();
    let mut out: BTreeMap<String, Variable> = BTreeMap::new();
    for r in stored {
        let v = Variable::from_record(graph, &r);
        out.insert(v.op_name(), v);
    }
    for v in graph.global_variables() {
        out.entry(v.op_name()).or_insert(v);
    }
    out
}

/// Replaces the record of `old`'s variable by `new` in every collection and the variable store.
fn replace_record(graph: &Graph, old: &VariableRecord, new: &VariableRecord) {
    let mut g = graph.write();
    for items in g.collections.values_mut() {
        for item in items.iter_mut() {
            if matches!(item, CollectionItem::Variable(r) if r.var_op == old.var_op) {
                *item = CollectionItem::Variable(new.clone());
            }
        }
    }
    for stored in g.var_store.values_mut() {
        if stored.record.var_op == old.var_op {
            stored.record = new.clone();
        }
    }
}
