//! `MetaGraphDef` → graph (`tf.train.import_meta_graph`), with the variable-store fix.

use super::collections::{self, VARIABLE_COLLECTIONS};
use crate::error::{Code, Error, Result};
use crate::format::proto::{GraphDef, MetaGraphDef, SaverDef};
use crate::graph::collections::GLOBAL_VARIABLES;
use crate::graph::{CollectionItem, Graph, Variable};
use crate::io::graph_def::{
    dangling_references, import_graph_def_logged, without_dangling_references, ImportGraphDefOptions,
};
use crate::io::model_file::{read_model_file, Model};
use crate::io::references::{all_or_every_error, merged_error};
use crate::train::Saver;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Options of [`Graph::import_meta_graph`] (`import_scope`, `clear_devices`).
#[derive(Debug, Clone, Default)]
pub struct ImportMetaGraphOptions {
    /// A name scope for every imported name (`""`: names kept exactly, TensorFlow's default).
    pub import_scope: String,
    /// Drops the device of every node.
    pub clear_devices: bool,
}

/// Reads a meta graph file (`.meta`), binary or text (`as_text=True`), by its content
/// (see [`read_model_file`](crate::io::model_file::read_model_file)).
/// Errors: `NotFound` for a missing file; `DataLoss` when a binary file is not a
/// `MetaGraphDef` (damaged or truncated); `InvalidArgument` for text that does not parse
/// (with line and column), an empty file or a directory; and, naming what the file is and
/// what reads it, `InvalidArgument` for a `GraphDef` (`read_graph_def_any` and
/// `import_graph_def`), a checkpoint, or a SavedModel (naming `SavedModelBundle::load`).
pub fn read_meta_graph(path: impl AsRef<Path>) -> Result<MetaGraphDef> {
    let path = path.as_ref();
    let file = read_model_file(path)?;
    match file.model {
        Model::Meta(meta) => Ok(*meta),
        Model::Graph(_) => Err(Error::invalid_argument(format!(
            "{} is {}, not a MetaGraphDef: read it with read_graph_def_any and add it to a graph with import_graph_def",
            path.display(),
            file.kind.describe()
        ))),
    }
}

impl Graph {
    /// `tf.train.import_meta_graph(path, import_scope, clear_devices)`: imports the meta
    /// graph's `GraphDef` and collections into this graph and returns a [`Saver`] for the
    /// variables its `SaverDef` restores: as TensorFlow, built from the `SaverDef` whenever
    /// there is one. When its restore op assigns variables that are in no collection (a
    /// TensorFlow graph's imported resource variables, a TF2 `_traced_restore`), or no
    /// collection lists variables, the saver runs the `SaverDef`'s ops
    /// ([`Saver::from_saver_def`]); otherwise it restores the collections' variables under the
    /// names the restore op reads. Without a `SaverDef`, all global variables; `None` when
    /// there is neither a `SaverDef` nor a variable.
    ///
    /// Unlike TensorFlow, the imported variables join the variable store: `get_variable("v1")`
    /// under `Reuse::Yes`/`Reuse::Auto` returns the imported `v1`, and under `Reuse::No` is
    /// the already-exists error instead of a silent new `v1_1`.
    ///
    /// The meta graph's `stripped_op_list` is the producer's op list
    /// ([`ImportGraphDefOptions::producer_op_list`]): attrs a newer TensorFlow added and left
    /// at their defaults are dropped, as TensorFlow's `import_meta_graph` does.
    ///
    /// Errors: as [`read_meta_graph`] and [`import_graph_def`](crate::io::graph_def::import_graph_def);
    /// `NotFound` when a collection entry or the `SaverDef` (its filename and save tensors, its
    /// restore op) names something the graph lacks: every such name is checked and all are
    /// listed in one error (`N names in the meta graph point to nothing in the graph: ...`).
    /// When the GraphDef has dangling references too (colocation targets, data or control
    /// inputs), both kinds are listed in one `InvalidArgument` (`N references in the meta
    /// graph point to nothing in its graph: ...`), the GraphDef's first.
    pub fn import_meta_graph(&self, path: impl AsRef<Path>, options: &ImportMetaGraphOptions) -> Result<Option<Saver>> {
        let path = path.as_ref();
        let meta = read_meta_graph(path)?;
        self.import_meta_graph_def(&meta, options, &format!("imported from {}", path.display()))
    }

    /// [`Graph::import_meta_graph`] from a decoded `MetaGraphDef`; `origin` is what the
    /// variable store records as where the variables were made.
    pub fn import_meta_graph_def(
        &self,
        meta: &MetaGraphDef,
        options: &ImportMetaGraphOptions,
        origin: &str,
    ) -> Result<Option<Saver>> {
        let mut gd = meta.graph_def.clone().unwrap_or_default();
        if options.clear_devices {
            for n in &mut gd.node {
                n.device.clear();
            }
        }
        let prefix = if options.import_scope.is_empty() { String::new() } else { format!("{}/", options.import_scope) };
        let mut import_options = ImportGraphDefOptions::new().prefix(&prefix);
        if let Some(ops) = meta.meta_info_def.as_ref().and_then(|m| m.stripped_op_list.as_ref()) {
            import_options = import_options.producer_op_list(ops);
        }
        let dangling = dangling_references(&gd);
        if !dangling.is_empty() {
            // the GraphDef's dangling references fail the import; the meta graph's own (its
            // collections, its SaverDef) are checked too, so that one error lists them all
            let beyond = meta_problems_beyond(meta, &gd, &import_options);
            if !beyond.is_empty() {
                return Err(merged_error(
                    Code::InvalidArgument,
                    [dangling, beyond],
                    "references in the meta graph point to nothing in its graph",
                ));
            }
        }
        let (imported, log) = import_graph_def_logged(self, &gd, &import_options)?;
        match self.finish_meta_import(meta, &imported.prefix, origin) {
            Ok(saver) => Ok(saver),
            Err(e) => {
                // a failed import leaves the graph as it was (unless others added ops since)
                self.write().roll_back_import(log);
                Err(e)
            }
        }
    }

    /// The part of a meta graph import after its GraphDef is in: resolves every
    /// collection and the saver first, and changes the graph (collections, variable
    /// store) only when all of them resolved.
    fn finish_meta_import(&self, meta: &MetaGraphDef, scope: &str, origin: &str) -> Result<Option<Saver>> {
        // every name the meta graph refers to is resolved first, and all that point nowhere
        // are reported together
        let (resolved, problems) = self.resolve_meta_references(meta, scope);
        all_or_every_error(
            problems.into_iter().map(Err::<(), _>),
            "names in the meta graph point to nothing in the graph",
        )?;
        // the variables of imported collection `key`
        let imported = |key: &str| {
            self.variables_from(resolved.iter().filter(|(name, _)| name.as_str() == key).flat_map(|(_, items)| items))
        };
        let mut globals = self.global_variables();
        globals.extend(imported(GLOBAL_VARIABLES));
        // TensorFlow builds the saver from the SaverDef whenever there is one
        // (`Saver(saver_def=...)`), so variables in no collection are restored too
        let saver = match meta.saver_def.as_ref().filter(|d| !d.restore_op_name.is_empty()) {
            Some(def) if globals.is_empty() || restores_uncollected(self, &scoped_saver_def(def, scope), &globals) => {
                Some(Saver::from_saver_def(self, scoped_saver_def(def, scope))?)
            }
            _ if globals.is_empty() => None,
            Some(def) => Some(match saver_vars(self, scope, def, &globals)? {
                // the saver reuses the imported save ops (`tf.train.Saver(saver_def=...)`)
                Some(map) => Saver::with_name_map(map).with_saver_def(scoped_saver_def(def, scope)),
                None => Saver::with_var_list(&globals)?,
            }),
            None => Some(Saver::with_var_list(&globals)?),
        };
        // the variable-store fix: imported variables are what get_variable finds
        let mut stored = imported(GLOBAL_VARIABLES);
        for key in VARIABLE_COLLECTIONS.iter().skip(2) {
            stored.extend(imported(key));
        }
        for (name, items) in resolved {
            for it in items {
                self.add_collection_item(name, it);
            }
        }
        for v in &stored {
            self.register_variable(v, origin);
        }
        Ok(saver)
    }
}

impl Graph {
    /// The items of every collection of `meta` resolved in this graph (the GraphDef imported
    /// under `scope`), and a `NotFound` for each collection entry or `SaverDef` name that
    /// points to nothing in it.
    fn resolve_meta_references<'m>(
        &self,
        meta: &'m MetaGraphDef,
        scope: &str,
    ) -> (Vec<(&'m String, Vec<CollectionItem>)>, Vec<Error>) {
        let mut resolved = Vec::with_capacity(meta.collection_def.len());
        let mut problems = Vec::new();
        for (name, def) in &meta.collection_def {
            let mut items = Vec::new();
            for item in collections::import(self, scope, name, def) {
                match item {
                    Ok(it) => items.push(it),
                    Err(e) => problems.push(e),
                }
            }
            resolved.push((name, items));
        }
        if let Some(def) = &meta.saver_def {
            problems.extend(saver_def_problems(self, &scoped_saver_def(def, scope)));
        }
        (resolved, problems)
    }
}

/// The messages of the meta graph's own references (collections, SaverDef) that point to
/// nothing, for a GraphDef `gd` with dangling references: checked in a scratch graph that
/// imports `gd` with those references cut (empty when even that import fails).
fn meta_problems_beyond(meta: &MetaGraphDef, gd: &GraphDef, options: &ImportGraphDefOptions) -> Vec<String> {
    let scratch = Graph::new();
    match import_graph_def_logged(&scratch, &without_dangling_references(gd), options) {
        Ok((imported, _)) => {
            scratch.resolve_meta_references(meta, &imported.prefix).1.into_iter().map(|e| e.message).collect()
        }
        Err(_) => Vec::new(),
    }
}

/// `NotFound` for each of the SaverDef's names (`filename_tensor_name`, `save_tensor_name`,
/// `restore_op_name`; already scoped) that is set but names nothing in `graph`.
fn saver_def_problems(graph: &Graph, def: &SaverDef) -> Vec<Error> {
    let mut problems = Vec::new();
    for (field, name) in
        [("filename_tensor_name", &def.filename_tensor_name), ("save_tensor_name", &def.save_tensor_name)]
    {
        if !name.is_empty() {
            if let Err(e) = graph.tensor_by_name(name) {
                problems.push(e.context(format!("SaverDef {field} '{name}'")));
            }
        }
    }
    if !def.restore_op_name.is_empty() {
        if let Err(e) = graph.operation_by_name(&def.restore_op_name) {
            problems.push(e.context(format!("SaverDef restore_op_name '{}'", def.restore_op_name)));
        }
    }
    problems
}

/// Whether `def`'s restore op assigns a variable op (`VariableV2`, `Variable`, `VarHandleOp`)
/// that is not among `globals`: one in no collection, which only the SaverDef's ops restore.
fn restores_uncollected(graph: &Graph, def: &SaverDef, globals: &[Variable]) -> bool {
    let Ok(restore) = graph.operation_by_name(&def.restore_op_name) else { return false };
    let collected: BTreeSet<usize> = globals.iter().map(|v| v.op().id()).collect();
    let mut seen = BTreeSet::new();
    let mut stack = vec![restore.id()];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = graph.node(id);
        if matches!(node.op_type, "VariableV2" | "Variable" | "VarHandleOp") && !collected.contains(&id) {
            return true;
        }
        stack.extend(node.inputs.iter().map(|&(src, _)| src));
        stack.extend(node.control_inputs.iter().copied());
    }
    false
}

/// `def` with its op and tensor names under the import scope `scope` (`""`: unchanged).
fn scoped_saver_def(def: &SaverDef, scope: &str) -> SaverDef {
    let name = |n: &str| if scope.is_empty() { n.to_string() } else { format!("{scope}/{n}") };
    SaverDef {
        filename_tensor_name: name(&def.filename_tensor_name),
        save_tensor_name: name(&def.save_tensor_name),
        restore_op_name: name(&def.restore_op_name),
        ..def.clone()
    }
}

/// The checkpoint names and variables the `SaverDef`'s restore op assigns: each control
/// input of `restore_all` is an `Assign`/`AssignVariableOp` whose value comes (through
/// `Identity`s) from output `i` of a `RestoreV2` with constant `tensor_names`.
fn saver_vars(
    graph: &Graph,
    scope: &str,
    def: &SaverDef,
    globals: &[Variable],
) -> Result<Option<BTreeMap<String, Variable>>> {
    let full = if scope.is_empty() { def.restore_op_name.clone() } else { format!("{scope}/{}", def.restore_op_name) };
    let Ok(restore_all) = graph.operation_by_name(&full) else { return Ok(None) };
    let by_op: BTreeMap<usize, &Variable> = globals.iter().map(|v| (v.op().id(), v)).collect();
    let mut map = BTreeMap::new();
    for c in restore_all.node().control_inputs {
        let assign = graph.node(c);
        if !matches!(assign.op_type, "Assign" | "AssignVariableOp") || assign.inputs.len() != 2 {
            return Ok(None);
        }
        let Some(var) = by_op.get(&assign.inputs[0].0) else { return Ok(None) };
        let (mut src, mut idx) = assign.inputs[1];
        while graph.node(src).op_type == "Identity" {
            (src, idx) = graph.node(src).inputs[0];
        }
        let restore = graph.node(src);
        if restore.op_type != "RestoreV2" {
            return Ok(None);
        }
        let names = graph.node(restore.inputs[1].0);
        let Ok(t) = names.attr_tensor("value") else { return Ok(None) };
        let crate::tensor::Storage::Str(v) = t.storage() else { return Ok(None) };
        let Some(name) = v.get(idx) else { return Ok(None) };
        map.insert(String::from_utf8_lossy(name).into_owned(), (*var).clone());
    }
    Ok(Some(map))
}
