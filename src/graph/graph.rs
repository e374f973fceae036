//! `Graph`: an explicit dataflow graph value (no process-wide default graph).

use super::name_index::NameIndex;
use super::naming::NameTable;
use super::{Node, Operation, Output, Scope, VariableRecord};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// An item of a graph collection as the graph stores it, by ids (handles would keep the
/// graph alive from inside itself). Users see [`super::CollectionValue`]s.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CollectionItem {
    /// A variable (in `variables`, `trainable_variables`, ...).
    Variable(VariableRecord),
    /// An operation, by id (in `train_op`, ...).
    Op(usize),
    /// A tensor, by (op id, output index).
    Tensor(usize, usize),
    /// Opaque bytes (a serialized proto passed through from an imported meta graph).
    Bytes(Vec<u8>),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f32),
}

/// Where `get_variable` made a variable, for the variable store.
#[derive(Debug, Clone)]
pub(crate) struct StoredVariable {
    pub record: VariableRecord,
    pub created_at: String,
}

#[derive(Default)]
pub(crate) struct GraphData {
    pub nodes: Vec<Arc<Node>>,
    pub by_name: NameIndex,
    pub names: NameTable,
    pub collections: BTreeMap<String, Vec<CollectionItem>>,
    pub var_store: HashMap<String, StoredVariable>,
    /// The GraphDef versions the graph writes; `None` for TensorFlow 2.21's (a graph
    /// built here). Imports merge theirs in ([`GraphData::merge_imported_versions`]).
    pub versions: Option<crate::format::proto::VersionDef>,
    /// The function library and the calls instantiated on import.
    pub functions: super::FunctionRecords,
    /// Set by [`Graph::finalize`]: no op may be added.
    pub finalized: bool,
}

impl GraphData {
    /// The id of the op named `name`.
    pub fn node_id(&self, name: &str) -> Option<usize> {
        self.by_name.get(&self.nodes, name)
    }

    /// Appends `node`, whose name must be free, registering its name as used.
    /// Returns its id.
    pub fn push_node(&mut self, node: Node) -> usize {
        self.push_node_reporting(node, |_, _| {})
    }

    /// [`GraphData::push_node`], calling `added(id, len)` for each name it newly marks
    /// used (see [`NameTable::mark_used_reporting`]).
    pub fn push_node_reporting(&mut self, node: Node, mut added: impl FnMut(usize, usize)) -> usize {
        let id = self.nodes.len();
        self.names.mark_used_reporting(&node.name, |len| added(id, len));
        self.by_name.insert(&self.nodes, &node.name, id);
        self.nodes.push(Arc::new(node));
        id
    }

    /// Adds control input `ctrl` to node `id` (TensorFlow's `op._add_control_input`: how
    /// a `tf.cond` branch makes an op without inputs wait for its pivot).
    pub(crate) fn add_control_input(&mut self, id: usize, ctrl: usize) {
        let node = Arc::make_mut(&mut self.nodes[id]);
        if !node.control_inputs.contains(&ctrl) {
            node.control_inputs.push(ctrl);
        }
    }

    /// Checks that data input `index` of node `id` may become output `src`.
    /// Errors: `InvalidArgument` for an input index past the node's data inputs, an output
    /// index past the source's outputs, or a source of another dtype than the input's.
    pub fn check_update(&self, id: usize, index: usize, src: (usize, usize)) -> Result<()> {
        let node = &self.nodes[id];
        let Some(&(old, old_idx)) = node.inputs.get(index) else {
            return Err(Error::invalid_argument(format!(
                "Cannot update edge. Input index [{index}] is greater than the number of total inputs [{}] of node '{}'",
                node.inputs.len(),
                node.name
            )));
        };
        let source = &self.nodes[src.0];
        let Some((got, _)) = source.outputs.get(src.1) else {
            return Err(Error::invalid_argument(format!(
                "Cannot update edge. Output index [{}] is greater than the number of total outputs [{}] of node '{}'",
                src.1,
                source.outputs.len(),
                source.name
            )));
        };
        let want = self.nodes[old].outputs[old_idx].0;
        if *got != want {
            return Err(Error::invalid_argument(format!(
                "Input {index} of node {} was passed {got} from {}:{} incompatible with expected {want}",
                node.name, source.name, src.1
            )));
        }
        Ok(())
    }

    /// Sets data input `index` of node `id` to output `src` (op id, output index), as
    /// TensorFlow's `TF_UpdateEdge`; the node's inferred outputs are kept.
    /// Errors: as [`GraphData::check_update`].
    pub fn update_input(&mut self, id: usize, index: usize, src: (usize, usize)) -> Result<()> {
        self.check_update(id, index, src)?;
        Arc::make_mut(&mut self.nodes[id]).inputs[index] = src;
        Ok(())
    }
}

pub(crate) struct GraphInner {
    pub data: RwLock<GraphData>,
}

/// A TensorFlow graph: operations, their names, collections and the variable store.
///
/// A `Graph` is a cheap handle (clones share the graph); it is `Send + Sync`. Mirrors
/// `tf.Graph`, but is never global: every op is added through a [`Scope`] of an explicit graph.
#[derive(Clone)]
pub struct Graph {
    pub(crate) inner: Arc<GraphInner>,
}

impl Default for Graph {
    fn default() -> Self {
        Self::new()
    }
}

impl Graph {
    /// A new, empty graph.
    pub fn new() -> Graph {
        Graph { inner: Arc::new(GraphInner { data: RwLock::new(GraphData::default()) }) }
    }

    /// The root scope: no name prefix, no variable scope, no control dependencies.
    pub fn scope(&self) -> Scope {
        Scope::root(self.clone())
    }

    /// True when both handles refer to the same graph.
    pub fn same(&self, other: &Graph) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    pub(crate) fn read(&self) -> std::sync::RwLockReadGuard<'_, GraphData> {
        self.inner.data.read().unwrap_or_else(|e| e.into_inner())
    }
    pub(crate) fn write(&self) -> std::sync::RwLockWriteGuard<'_, GraphData> {
        self.inner.data.write().unwrap_or_else(|e| e.into_inner())
    }
    pub(crate) fn with_node<R>(&self, id: usize, f: impl FnOnce(&Node) -> R) -> R {
        f(&self.read().nodes[id])
    }
    pub(crate) fn node(&self, id: usize) -> Arc<Node> {
        self.read().nodes[id].clone()
    }

    /// The number of operations.
    pub fn num_ops(&self) -> usize {
        self.read().nodes.len()
    }

    /// All operations in creation order.
    pub fn operations(&self) -> Vec<Operation> {
        (0..self.num_ops()).map(|id| Operation { graph: self.clone(), id }).collect()
    }

    /// The operation named `name` (`graph.get_operation_by_name`).
    /// Errors: `NotFound` naming it (and the ops named `<prefix>/<name>`, as an import adds
    /// them, when there are); `InvalidArgument` when given a tensor name (`add:0`).
    pub fn operation_by_name(&self, name: &str) -> Result<Operation> {
        if let Some(id) = self.read().node_id(name) {
            return Ok(Operation { graph: self.clone(), id });
        }
        if let Some((op, _)) = name.rsplit_once(':') {
            if self.read().node_id(op).is_some() {
                return Err(Error::invalid_argument(format!(
                    "The name '{name}' refers to a Tensor, not an Operation; write '{op}' for the operation"
                )));
            }
        }
        let hint = self.similar_names(name, "");
        Err(Error::not_found(format!("The name '{name}' refers to an Operation not in the graph.{hint}")))
    }

    /// ` Did you mean 'import/probs:0'?` when ops whose name ends in `/<op>` exist (the
    /// same op under a prefix, as `import_graph_def` adds one), else the (up to 3) names
    /// closest to `op` by edit distance (at most a third of its length: `probs` for
    /// `prob`), with `suffix` (`:0`) appended to each; empty when there are none.
    pub(crate) fn similar_names(&self, op: &str, suffix: &str) -> String {
        let g = self.read();
        let found = crate::error::suggest::closest_names(op, g.nodes.iter().map(|n| n.name.as_str()));
        match found.as_slice() {
            [one] if one.starts_with("import/") => format!(
                " Did you mean '{one}{suffix}'? (import_graph_def puts a GraphDef's names under the prefix 'import/' unless ImportGraphDefOptions gives another)"
            ),
            _ => crate::error::suggest::did_you_mean(&found, suffix),
        }
    }

    /// The tensor named `op:index` (`graph.get_tensor_by_name`).
    /// Errors: `InvalidArgument` for a bare op name (write `"add:0"`), `NotFound` for a
    /// missing op (suggesting `import/probs:0` for `probs:0` when an import put it under a
    /// prefix), `OutOfRange` for an index past the op's outputs.
    pub fn tensor_by_name(&self, name: &str) -> Result<Output> {
        let Some((op, idx)) = name.rsplit_once(':') else {
            let hint = if self.read().node_id(name).is_some() {
                format!("; the operation '{name}' exists, so write '{name}:0' for its first output")
            } else {
                String::new()
            };
            return Err(Error::invalid_argument(format!(
                "The name '{name}' looks like an (invalid) Operation name, not a Tensor. Tensor names must be of the form \"<op_name>:<output_index>\"{hint}"
            )));
        };
        let index: usize = idx.parse().map_err(|_| {
            Error::invalid_argument(format!("The name '{name}' has an output index '{idx}' that is not a number"))
        })?;
        let Some(id) = self.read().node_id(op) else {
            let hint = self.similar_names(op, &format!(":{idx}"));
            return Err(Error::not_found(format!("The name '{name}' refers to a Tensor which does not exist. The operation, '{op}', does not exist in the graph.{hint}")));
        };
        Operation { graph: self.clone(), id }.output(index)
    }

    /// Adds `item` to collection `name` (see [`Graph::add_to_collection`]).
    pub(crate) fn add_collection_item(&self, name: &str, item: CollectionItem) {
        self.write().collections.entry(name.to_string()).or_default().push(item);
    }

    /// The items of collection `name`, in insertion order (empty when absent); users get
    /// handles from [`Graph::get_collection`].
    pub(crate) fn collection(&self, name: &str) -> Vec<CollectionItem> {
        self.read().collections.get(name).cloned().unwrap_or_default()
    }

    /// The names of all collections, sorted.
    pub fn collection_names(&self) -> Vec<String> {
        self.read().collections.keys().cloned().collect()
    }

    /// The variables of collection `name` (`variables`, `trainable_variables`, ...).
    pub fn variables_in(&self, name: &str) -> Vec<super::Variable> {
        self.variables_from(&self.collection(name))
    }

    /// The variables among collection `items` of this graph.
    pub(crate) fn variables_from<'a>(
        &self,
        items: impl IntoIterator<Item = &'a CollectionItem>,
    ) -> Vec<super::Variable> {
        items
            .into_iter()
            .filter_map(|c| match c {
                CollectionItem::Variable(r) => Some(super::Variable::from_record(self, r)),
                _ => None,
            })
            .collect()
    }

    /// All global variables (`tf.global_variables()`): collection `variables`.
    pub fn global_variables(&self) -> Vec<super::Variable> {
        self.variables_in(super::collections::GLOBAL_VARIABLES)
    }

    /// The trainable variables (`tf.trainable_variables()`).
    pub fn trainable_variables(&self) -> Vec<super::Variable> {
        self.variables_in(super::collections::TRAINABLE_VARIABLES)
    }

    /// Replaces data input `index` of `op` by `src` (TensorFlow's `TF_UpdateEdge`, Python's
    /// `op._update_input`): how a while loop's back edge, `NextIteration` → `Merge`, is
    /// made once the loop body exists. `op`'s inferred output shapes are kept (not
    /// inferred again).
    /// Errors: `InvalidArgument` when `op` or `src` is from another graph, `index` is past
    /// `op`'s data inputs, `src` has another dtype than the input it replaces, or a shape
    /// incompatible with it ("Cannot update edge, incompatible shapes").
    pub fn update_input(&self, op: &Operation, index: usize, src: &Output) -> Result<()> {
        if !op.graph.same(self) || !src.graph.same(self) {
            return Err(Error::invalid_argument(format!(
                "update_input: {} and {} must both be in this graph",
                op.name(),
                src.name()
            )));
        }
        let mut g = self.write();
        g.check_update(op.id, index, (src.op, src.index))?;
        let (old, old_idx) = g.nodes[op.id].inputs[index];
        let have = &g.nodes[old].outputs[old_idx].1;
        let new = &g.nodes[src.op].outputs[src.index].1;
        if !have.compatible(new) {
            return Err(Error::invalid_argument(format!(
                "Cannot update edge, incompatible shapes: {new} and {have} (input {index} of '{}')",
                g.nodes[op.id].name
            )));
        }
        g.update_input(op.id, index, (src.op, src.index))
    }

    /// Ids of the ops that consume each op's outputs (data edges), indexed by op id.
    pub(crate) fn consumers(&self) -> Vec<Vec<usize>> {
        let g = self.read();
        let mut out = vec![Vec::new(); g.nodes.len()];
        for (id, n) in g.nodes.iter().enumerate() {
            for &(src, _) in &n.inputs {
                out[src].push(id);
            }
        }
        out
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph({} ops)", self.num_ops())
    }
}
