//! `GraphDef` → `Graph` (`tf.import_graph_def`).

use super::unknown_outputs::unknown_outputs;
use crate::error::suggest::{closest_names, did_you_mean};
use crate::error::{Error, Result};
use crate::format::proto::{AttrValueKind, GraphDef, NodeDef, OpList};
use crate::format::proto::{GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_PRODUCER};
use crate::graph::traversal;
use crate::graph::{
    is_valid_op_name, AttrValue as GraphAttr, Attrs, Graph, GraphData, ImportLog, Node, Operation, Output,
};
use crate::ops::{self, InferCtx};
use crate::tensor::{DType, Shape};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// What [`import_graph_def`] does: the name prefix, which GraphDef tensors to replace by
/// tensors of the target graph, and which ops and tensors to return.
/// Mirrors the arguments of `tf.import_graph_def`.
#[derive(Debug, Clone, Default)]
pub struct ImportGraphDefOptions {
    prefix: Option<String>,
    input_map: Vec<(String, Output)>,
    control_map: Vec<(String, Operation)>,
    return_elements: Vec<String>,
    producer_op_list: Option<Arc<OpList>>,
}

impl ImportGraphDefOptions {
    /// The defaults: prefix `import` (made unique: `import_1`, ...), no input map, no
    /// return elements.
    pub fn new() -> Self {
        Self::default()
    }

    /// The name scope to import under (`name=` of `tf.import_graph_def`): made unique in
    /// the target graph (`import` → `import_1` when used); a name ending in `/` is taken
    /// exactly; `""` keeps the GraphDef's names unchanged (a clash with an existing op is
    /// then `InvalidArgument`).
    pub fn prefix(mut self, prefix: &str) -> Self {
        self.prefix = Some(prefix.to_string());
        self
    }

    /// Replaces the GraphDef tensor `key` (`"x:0"`, or `"x"` for output 0) by `value`, a
    /// tensor of the target graph, wherever an imported node reads it.
    pub fn input_map(mut self, key: &str, value: &Output) -> Self {
        self.input_map.push((canonical_tensor(key), value.clone()));
        self
    }

    /// Replaces the control input `^name` of the GraphDef by the target graph's op
    /// `value` (`key` may be written with or without the `^`).
    pub fn control_input_map(mut self, key: &str, value: &Operation) -> Self {
        self.control_map.push((key.trim_start_matches('^').to_string(), value.clone()));
        self
    }

    /// The `OpDef`s of the GraphDef's producer (`producer_op_list` of
    /// `tf.import_graph_def`; a meta graph's `stripped_op_list`): an attr tensorgraph's
    /// `OpDef` lacks is then dropped, not refused, when the producer's `OpDef` declares it
    /// with a default equal to the node's value (an attr added in a newer TensorFlow and
    /// left at its default; TensorFlow's `RemoveNewDefaultAttrsFromGraphDef`).
    pub fn producer_op_list(mut self, ops: &OpList) -> Self {
        self.producer_op_list = Some(Arc::new(ops.clone()));
        self
    }

    /// Names of GraphDef elements to return, in order: `"op"` gives the imported
    /// [`Operation`], `"op:0"` the imported (or input-mapped) [`Output`].
    pub fn return_elements(mut self, names: &[&str]) -> Self {
        self.return_elements.extend(names.iter().map(|s| s.to_string()));
        self
    }
}

/// One requested return element of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReturnElement {
    /// An op (requested as `"name"`).
    Operation(Operation),
    /// A tensor (requested as `"name:index"`).
    Output(Output),
}

/// What an import added.
#[derive(Debug, Clone)]
pub struct ImportResult {
    /// The name scope used, without trailing `/` (`import`, `import_1`; `""` for none).
    pub prefix: String,
    /// The imported ops, in the order they were added (a topological order, loops' back
    /// edges aside).
    pub operations: Vec<Operation>,
    /// The requested return elements, in the requested order.
    pub return_elements: Vec<ReturnElement>,
    /// The imported ops whose op type tensorgraph does not register, in GraphDef order:
    /// kept with their attrs verbatim and outputs of unknown shape; a run that needs one
    /// fails (see [`import_graph_def`]). Empty for most graphs.
    pub unknown_ops: Vec<Operation>,
}

impl ImportResult {
    /// Return element `i` as a tensor. Errors: `InvalidArgument` when it is an op or `i`
    /// is out of range.
    pub fn output(&self, i: usize) -> Result<Output> {
        match self.return_elements.get(i) {
            Some(ReturnElement::Output(o)) => Ok(o.clone()),
            Some(ReturnElement::Operation(op)) => Err(Error::invalid_argument(format!(
                "return element {i} is the operation '{}', not a tensor; request '{}:0' for its output",
                op.name(),
                op.name()
            ))),
            None => Err(self.out_of_range(i)),
        }
    }

    /// Return element `i` as an op (a tensor gives its producing op).
    /// Errors: `InvalidArgument` when `i` is out of range.
    pub fn operation(&self, i: usize) -> Result<Operation> {
        match self.return_elements.get(i) {
            Some(ReturnElement::Operation(op)) => Ok(op.clone()),
            Some(ReturnElement::Output(o)) => Ok(o.op()),
            None => Err(self.out_of_range(i)),
        }
    }

    /// The warning for [`ImportResult::unknown_ops`], one line with their op types and
    /// node counts (`2 node(s) have op types tensorgraph does not implement: Bucketize (2);
    /// they were kept, and only a run that needs one of them fails`); `None` when there are none.
    /// Function calls kept because their function cannot be instantiated are named with why
    /// ([`ops::unknown::unknown_ops_warning_for`]).
    pub fn warning(&self) -> Option<String> {
        ops::unknown::unknown_ops_warning_for(&self.unknown_ops)
    }

    fn out_of_range(&self, i: usize) -> Error {
        Error::invalid_argument(format!(
            "there is no return element {i}: {} were requested",
            self.return_elements.len()
        ))
    }
}

/// `"x"` → `"x:0"`; `"x:1"` unchanged.
fn canonical_tensor(key: &str) -> String {
    match parse_tensor(key) {
        (name, Some(i)) => format!("{name}:{i}"),
        (name, None) => format!("{name}:0"),
    }
}

/// Splits `name:index` (index digits only); `None` when there is no index.
fn parse_tensor(s: &str) -> (&str, Option<usize>) {
    if let Some((name, idx)) = s.rsplit_once(':') {
        if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(i) = idx.parse() {
                return (name, Some(i));
            }
        }
    }
    (s, None)
}

/// A NodeDef input, resolved.
#[derive(Clone, Copy)]
pub(super) enum Input<'a> {
    /// Output `index` of GraphDef node `node`.
    Data { node: usize, index: usize },
    /// A tensor of the target graph, from the input map.
    MappedData(&'a Output),
    /// GraphDef node `node`, as a control input.
    Control(usize),
    /// An op of the target graph (by id), from the control input map.
    MappedControl(usize),
}

/// The inputs of every GraphDef node, resolved, in one list.
pub(super) struct Inputs<'a> {
    all: Vec<Input<'a>>,
    /// Node `i`'s inputs are `all[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    /// True when every node's inputs come before it in the GraphDef.
    sorted: bool,
}

impl<'a> Inputs<'a> {
    fn of(&self, i: usize) -> &[Input<'a>] {
        &self.all[self.starts[i]..self.starts[i + 1]]
    }
}

/// Imports `graph_def` into `graph` with TensorFlow's semantics (`tf.import_graph_def`):
/// nodes may come in any order (they are added in a topological order), every op type is
/// checked against the registry, each node goes through shape and dtype inference, names
/// get the prefix (`import/...` by default), `_class` colocation entries (`loc:@v1`) are
/// rewritten with it, and imported names are marked used in the graph's name table.
/// The graph is locked for the import; on any error it is left unchanged, its prefix
/// included (TensorFlow keeps a failed import's prefix, so that a retry lands in
/// `import_1/`; here it lands in `import/`).
///
/// Each node's attrs are checked against TensorFlow's `OpDef` of its type
/// ([`ops::schema::validate_node_def`]) and attrs left out that have a default get it
/// ([`ops::schema::add_default_attrs`]), as TensorFlow's importer does. An attr the
/// `OpDef` does not declare is kept unchecked and exported again, not read by the kernel
/// ([`ops::schema::declares_attr`]), as TensorFlow 2.21's `import_graph_def` keeps it.
///
/// The GraphDef's `versions` count as TensorFlow counts them (absent: version 0): shape
/// inference follows the lower of the graph's and the GraphDef's producer (a `Placeholder`
/// whose `shape` attr is `{}` has an unknown shape up to producer 21, a scalar one after),
/// and the graph's [`versions`](Graph::versions) become the lower producer, the higher
/// `min_consumer` and all bad consumers of the two, so that an export or a freeze of the
/// graph writes them (`UpdateVersionDef`).
///
/// A node whose op type tensorgraph does not register is kept, where TensorFlow refuses
/// the whole GraphDef: its attrs are stored verbatim (not validated; exported unchanged),
/// its outputs have unknown shapes, and their number and dtypes come from what reads them
/// (a reader's `OpDef`) or the node's own type attrs. [`ImportResult::unknown_ops`] lists
/// them and [`ImportResult::warning`] says so in one line; a session run whose plan needs
/// one fails with `Unimplemented` naming every such node it needs, and other runs (a
/// branch of a `cond` that is not taken, a training subgraph that is not fetched) work.
///
/// Errors: `InvalidArgument` naming the node and attr (TensorFlow's words) for
/// the first node with an attr its `OpDef` does not declare (other than `_`-prefixed
/// ones), a missing attr without a default, or an attr of the wrong kind, outside the
/// allowed values or below the minimum; `InvalidArgument` for a duplicate node name, an input naming a node
/// missing from the GraphDef, a data input after a control input, a cycle (naming its
/// nodes) other than a while loop's (closed by a `NextIteration` → `Merge` back edge, which
/// is connected after every node exists, as TensorFlow's importer does), an output index
/// past the source's outputs, an input-map key the GraphDef does not have, an input-map
/// value from another graph or of the wrong dtype, a return element not in the GraphDef,
/// a name clash under prefix `""`, a GraphDef whose version this producer cannot consume,
/// a node name or prefix TensorFlow would refuse, a colocation (`_class`) with a node the
/// GraphDef lacks, and missing or wrong attrs and shapes that inference rejects.
pub fn import_graph_def(graph: &Graph, graph_def: &GraphDef, options: &ImportGraphDefOptions) -> Result<ImportResult> {
    import_graph_def_logged(graph, graph_def, options).map(|(result, _)| result)
}

/// [`import_graph_def`], also returning the log that can take the import back
/// ([`GraphData::roll_back_import`]), for importers that do more after it.
pub(crate) fn import_graph_def_logged(
    graph: &Graph,
    graph_def: &GraphDef,
    options: &ImportGraphDefOptions,
) -> Result<(ImportResult, ImportLog)> {
    // the name scope: taken first, as TensorFlow enters it before importing, and given
    // back when the import fails (TensorFlow keeps it, so a retry would land in `import_1`)
    let requested = options.prefix.as_deref().unwrap_or("import");
    let (prefix, reserved) = if requested.is_empty() {
        (String::new(), None)
    } else {
        let name = requested.strip_suffix('/').unwrap_or(requested);
        if !is_valid_op_name(name) {
            return Err(Error::invalid_argument(format!(
                "'{requested}' is not a valid scope name: use letters, digits and _ . - / > (not starting with _ - / >)"
            )));
        }
        if name.len() < requested.len() {
            (name.to_string(), None)
        } else {
            let (unique, undo) = graph.write().names.unique_undoable(requested);
            (unique, Some(undo))
        }
    };
    let result = import_under(graph, graph_def, options, prefix);
    if let (Err(_), Some(undo)) = (&result, reserved) {
        graph.write().names.undo_unique(undo);
    }
    result
}

/// [`import_graph_def_logged`] once the prefix is chosen.
fn import_under(
    graph: &Graph,
    graph_def: &GraphDef,
    options: &ImportGraphDefOptions,
    prefix: String,
) -> Result<(ImportResult, ImportLog)> {
    check_versions(graph_def)?;
    // function calls instantiated (see `functions`); the original call nodes are recorded below
    let lowered = super::functions::lower(graph_def)?;
    let expanded;
    let (graph_def, library) = match &lowered {
        Some(l) => {
            expanded = GraphDef {
                node: l.nodes.clone(),
                library: None,
                version: graph_def.version,
                versions: graph_def.versions.clone(),
                debug_info: None,
            };
            (&expanded, graph_def.library.as_ref())
        }
        None => (graph_def, None),
    };
    let nodes = &graph_def.node;
    // index and validate
    let mut index: HashMap<&str, usize> = HashMap::with_capacity_and_hasher(nodes.len(), Default::default());
    for (i, n) in nodes.iter().enumerate() {
        if n.name.is_empty() {
            return Err(Error::invalid_argument(format!("Node {i} of the GraphDef (op '{}') has no name", n.op)));
        }
        if !is_valid_node_name(&n.name) {
            return Err(Error::invalid_argument(format!(
                "Node '{}': Node name contains invalid characters (a name is letters, digits and _ . - / >, starting with a letter, digit or .)",
                n.name
            )));
        }
        if index.insert(n.name.as_str(), i).is_some() {
            return Err(Error::invalid_argument(format!("Node '{}' is not unique", n.name)));
        }
    }
    // references that point nowhere (colocation targets, data and control inputs) are
    // collected and reported together below, once the inputs are resolved
    let mut dangling = colocation_problems(graph_def, &index);
    // `None` for an op type tensorgraph does not register (an unknown op, kept)
    let mut defs: Vec<Option<&'static dyn ops::RegisteredOp>> = Vec::with_capacity(nodes.len());
    let producer = graph_def.versions.as_ref().map(|v| v.producer);
    // per node, attrs a newer producer added and left at their default (dropped)
    let mut dropped: HashMap<usize, Vec<&str>> = HashMap::default();
    for n in nodes {
        // runs of one op type are common (a chain of adds, a layer's ops)
        let def = match defs.last() {
            Some(Some(last)) if last.op_type() == n.op => *last,
            _ => match ops::lookup(&n.op) {
                Ok(def) => def,
                Err(_) => {
                    defs.push(None);
                    continue;
                }
            },
        };
        let new_defaults = match &options.producer_op_list {
            Some(list) => new_default_attrs(n, list),
            None => Vec::new(),
        };
        // TensorFlow's graph constructor: an op removed at or before the producer is refused
        ops::schema::check_op_deprecation(&n.op, producer.unwrap_or(0))
            .map_err(|e| Error::new(e.code, format!("{} (node '{}')", e.message, n.name)))?;
        // an undeclared attr is kept unchecked, as TensorFlow's importer keeps it
        let attrs =
            n.attr.iter().filter(|(k, _)| !new_defaults.contains(&k.as_str()) && ops::schema::declares_attr(&n.op, k));
        ops::schema::validate_node_def_attrs(&n.name, &n.op, attrs, producer)?;
        if !new_defaults.is_empty() {
            dropped.insert(defs.len(), new_defaults);
        }
        defs.push(Some(def));
    }
    let input_map: HashMap<&str, &Output> = options.input_map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let control_map: HashMap<&str, &Operation> = options.control_map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for (k, v) in &options.input_map {
        if !v.graph().same(graph) {
            return Err(Error::invalid_argument(format!(
                "input_map value for '{k}' ({}) is not a tensor of the graph being imported into",
                v.name()
            )));
        }
    }
    for (k, v) in &options.control_map {
        if !v.graph().same(graph) {
            return Err(Error::invalid_argument(format!(
                "input_map value for '^{k}' ({}) is not an op of the graph being imported into",
                v.name()
            )));
        }
    }
    let mut used_keys: HashMap<String, bool> = HashMap::default();
    let inputs = resolve_inputs(graph_def, &index, &input_map, &control_map, &mut used_keys, &mut dangling)?;
    dangling_error(dangling)?;
    // each key not found, with the closest names of the GraphDef (` Did you mean 'batch:0'?`)
    let node_names = || nodes.iter().map(|n| n.name.as_str());
    let mut missing: Vec<(String, String)> = Vec::new();
    for (k, _) in &options.input_map {
        let (src, idx) = parse_tensor(k);
        if !index.contains_key(src) && !used_keys.contains_key(k) {
            let suffix = idx.map(|i| format!(":{i}")).unwrap_or_default();
            missing.push((k.clone(), did_you_mean(&closest_names(src, node_names()), &suffix)));
        }
    }
    for (k, _) in &options.control_map {
        if !index.contains_key(k.as_str()) && !used_keys.contains_key(&format!("^{k}")) {
            missing.push((format!("^{k}"), did_you_mean(&closest_names(k, node_names()), "")));
        }
    }
    if !missing.is_empty() {
        let keys: Vec<&str> = missing.iter().map(|(k, _)| k.as_str()).collect();
        let hints: String = match missing.as_slice() {
            [(_, hint)] if !hint.is_empty() => format!(".{hint}"),
            _ => missing.iter().filter(|(_, h)| !h.is_empty()).map(|(k, h)| format!(" {k}:{h}")).collect(),
        };
        return Err(Error::invalid_argument(format!(
            "Attempted to map inputs that were not found in graph_def: [{}]{hints}",
            keys.join(", ")
        )));
    }
    for r in &options.return_elements {
        let (src, idx) = parse_tensor(r);
        let found = index.contains_key(src) || (idx.is_some() && input_map.contains_key(canonical_tensor(r).as_str()));
        if !found {
            let what = if idx.is_some() { "tensor" } else { "node" };
            let suffix = idx.map(|i| format!(":{i}")).unwrap_or_default();
            let hint = did_you_mean(&closest_names(src, node_names()), &suffix);
            let stop = if hint.is_empty() { "" } else { "." };
            return Err(Error::invalid_argument(format!(
                "Requested return {what} '{r}' not found in graph_def{stop}{hint}"
            )));
        }
    }
    let order = if inputs.sorted { (0..nodes.len()).collect() } else { topological_order(graph_def, &inputs)? };
    let unknown = unknown_node_outputs(graph_def, &defs, &inputs, &options.return_elements, &index);

    // the input-map entries replacing outputs of each GraphDef node, checked as it is added
    let mut mapped: HashMap<usize, Vec<(&str, usize, &Output)>> = HashMap::default();
    for (key, out) in &input_map {
        let (src, idx) = parse_tensor(key);
        if let Some(&i) = index.get(src) {
            mapped.entry(i).or_default().push((key, idx.unwrap_or(0), out));
        }
    }

    if graph.is_finalized() {
        return Err(crate::graph::finalized_error(&format!(
            "the {} node(s) of an imported GraphDef (the first: '{}')",
            nodes.len(),
            nodes.first().map_or("", |n| n.name.as_str())
        )));
    }
    let mut g = graph.write();
    // the GraphDef version shape functions see (TensorFlow's refiner: the lower of the
    // graph's and the GraphDef's; a GraphDef without versions is version 0)
    let graph_def_version = g.graph_versions().producer.min(graph_def.versions.as_ref().map_or(0, |v| v.producer));
    let mut log = g.begin_import(nodes.len());
    // GraphDef index → id in `graph`
    let mut ids = vec![usize::MAX; nodes.len()];
    let plan = ImportPlan {
        gd: graph_def,
        defs: &defs,
        inputs: &inputs,
        mapped: &mapped,
        prefix: &prefix,
        dropped: &dropped,
        unknown: &unknown,
        graph_def_version,
    };
    if let Err(e) = plan.add_nodes(&mut g, &order, &mut ids, &mut log) {
        g.roll_back(log);
        return Err(e);
    }
    if let Some(l) = &lowered {
        let calls = GraphDef { node: l.calls.clone(), ..Default::default() };
        let id_of = |name: &str| index.get(name).map(|&i| ids[i]);
        let mut dangling_calls = Vec::new();
        let record =
            resolve_inputs(&calls, &index, &input_map, &control_map, &mut HashMap::default(), &mut dangling_calls)
                .and_then(|resolved| {
                    dangling_error(std::mem::take(&mut dangling_calls))?;
                    Ok(resolved)
                })
                .map(|resolved| {
                    super::functions::record(&mut g, l, library, resolved_calls(&calls, &resolved, &ids), id_of)
                });
        if let Err(e) = record {
            g.roll_back(log);
            return Err(e);
        }
    }
    let mut return_elements = Vec::with_capacity(options.return_elements.len());
    for r in &options.return_elements {
        match return_element(graph, &g, r, &index, &ids, &input_map) {
            Ok(e) => return_elements.push(e),
            Err(e) => {
                g.roll_back(log);
                return Err(e);
            }
        }
    }
    g.merge_imported_versions(&graph_def.versions.clone().unwrap_or_default(), &mut log);
    log.finish(&g);
    drop(g);
    if let Some(l) = lowered.as_ref().filter(|l| !l.gradients.is_empty()) {
        // TF1's SymbolicGradient: built once the instantiated ops are in the graph
        if let Err(e) = super::functions::build_gradients(graph, &l.gradients, &prefix) {
            let mut g = graph.write();
            log.finish(&g);
            g.roll_back_import(log);
            return Err(e);
        }
        log.finish(&graph.read());
    }
    let operations = order.iter().map(|&i| Operation { graph: graph.clone(), id: ids[i] }).collect();
    let unknown_ops = (0..nodes.len())
        .filter(|i| defs[*i].is_none())
        .map(|i| Operation { graph: graph.clone(), id: ids[i] })
        .collect();
    Ok((ImportResult { prefix, operations, return_elements, unknown_ops }, log))
}

/// The data inputs (graph ids) and control inputs of each node of `calls`, resolved
/// against the import (`ids`: GraphDef index → graph id).
fn resolved_calls(calls: &GraphDef, inputs: &Inputs, ids: &[usize]) -> Vec<super::functions::ResolvedInputs> {
    (0..calls.node.len())
        .map(|i| {
            let (mut data, mut control) = (Vec::new(), Vec::new());
            for input in inputs.of(i) {
                match *input {
                    Input::Data { node, index } => data.push((ids[node], index)),
                    Input::MappedData(o) => data.push((o.op, o.index)),
                    Input::Control(node) => control.push(ids[node]),
                    Input::MappedControl(id) => control.push(id),
                }
            }
            (data, control)
        })
        .collect()
}

/// TensorFlow's node-name rule (`IsValidNodeName`): a letter, digit or `.`, then letters,
/// digits and `_ . - /`; a `>` may start a further part.
fn is_valid_node_name(name: &str) -> bool {
    name.split('>').all(|part| {
        let mut bytes = part.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
            && bytes.all(|b| b.is_ascii_alphanumeric() || b"_.-/".contains(&b))
    })
}

/// Every `_class` colocation entry (`loc:@name`) must name a node of the GraphDef: the
/// message of each that does not (TensorFlow's words), in node order.
pub(super) fn colocation_problems(gd: &GraphDef, index: &HashMap<&str, usize>) -> Vec<String> {
    let mut problems = Vec::new();
    for n in &gd.node {
        let Some(AttrValueKind::List(list)) = n.attr.get("_class").and_then(|a| a.value.as_ref()) else { continue };
        for loc in &list.s {
            if let Some(target) = loc.strip_prefix(b"loc:@") {
                let target = String::from_utf8_lossy(target);
                if !index.contains_key(target.as_ref()) {
                    problems.push(format!("Node '{}' expects to be colocated with unknown node '{target}'", n.name));
                }
            }
        }
    }
    problems
}

/// One `InvalidArgument` for every reference of a GraphDef that points nowhere: a single one
/// in TensorFlow's words (`Node 'a': Unknown input node 'b'`), several as `N references of the
/// GraphDef point to nodes it does not have: ...; ...` (TensorFlow stops at the first).
fn dangling_error(problems: Vec<String>) -> Result<()> {
    match problems.len() {
        0 => Ok(()),
        1 => Err(Error::invalid_argument(problems.into_iter().next().unwrap_or_default())),
        n => Err(Error::invalid_argument(format!(
            "{n} references of the GraphDef point to nodes it does not have: {}",
            problems.join("; ")
        ))),
    }
}

/// Resolves every NodeDef input against the GraphDef and the input maps, recording the
/// map keys used in `used_keys` and an input naming no node in `dangling` (its place then
/// holds a placeholder: the caller reports `dangling` before using the inputs).
pub(super) fn resolve_inputs<'a>(
    gd: &GraphDef,
    index: &HashMap<&str, usize>,
    input_map: &HashMap<&str, &'a Output>,
    control_map: &HashMap<&str, &Operation>,
    used_keys: &mut HashMap<String, bool>,
    dangling: &mut Vec<String>,
) -> Result<Inputs<'a>> {
    let nodes = &gd.node;
    let total = nodes.iter().map(|n| n.input.len()).sum();
    let mut out = Inputs { all: Vec::with_capacity(total), starts: Vec::with_capacity(nodes.len() + 1), sorted: true };
    for (i, n) in nodes.iter().enumerate() {
        out.starts.push(out.all.len());
        let mut seen_control = false;
        for s in &n.input {
            let input = if let Some(c) = s.strip_prefix('^') {
                seen_control = true;
                if let Some(op) = control_map.get(c) {
                    used_keys.insert(format!("^{c}"), true);
                    Input::MappedControl(op.id)
                } else {
                    Input::Control(index.get(c).copied().unwrap_or_else(|| {
                        dangling.push(unknown_input(&n.name, s));
                        0
                    }))
                }
            } else {
                if seen_control {
                    return Err(Error::invalid_argument(format!(
                        "Node '{}': Control dependencies must come after regular dependencies (input '{s}')",
                        n.name
                    )));
                }
                let (src, idx) = parse_tensor(s);
                let idx = idx.unwrap_or(0);
                let mapped = if input_map.is_empty() {
                    None
                } else {
                    let key = format!("{src}:{idx}");
                    let hit = input_map.get(key.as_str()).copied();
                    if hit.is_some() {
                        used_keys.insert(key, true);
                    }
                    hit
                };
                match mapped {
                    Some(o) => Input::MappedData(o),
                    None => Input::Data {
                        node: index.get(src).copied().unwrap_or_else(|| {
                            dangling.push(unknown_input(&n.name, s));
                            0
                        }),
                        index: idx,
                    },
                }
            };
            if let Input::Data { node, .. } | Input::Control(node) = input {
                out.sorted &= node < i;
            }
            out.all.push(input);
        }
    }
    out.starts.push(out.all.len());
    Ok(out)
}

/// What [`ImportPlan::add_nodes`] adds: the GraphDef, each node's op definition and
/// resolved inputs, the input-map entries by replaced node, and the name prefix.
struct ImportPlan<'a> {
    gd: &'a GraphDef,
    defs: &'a [Option<&'static dyn ops::RegisteredOp>],
    inputs: &'a Inputs<'a>,
    mapped: &'a HashMap<usize, Vec<(&'a str, usize, &'a Output)>>,
    prefix: &'a str,
    /// Attrs not to import, by GraphDef node index (see [`new_default_attrs`]).
    dropped: &'a HashMap<usize, Vec<&'a str>>,
    /// The outputs of each unknown node (see [`unknown_node_outputs`]), by GraphDef index.
    unknown: &'a HashMap<usize, Vec<(DType, Shape)>>,
    /// The GraphDef version shape inference follows (a `Placeholder`'s `shape {}`).
    graph_def_version: i32,
}

impl ImportPlan<'_> {
    /// Adds the GraphDef's nodes to `g` in `order`, with inferred outputs, filling `ids`.
    /// On error some nodes may have been added; the caller rolls back with `log`.
    fn add_nodes(&self, g: &mut GraphData, order: &[usize], ids: &mut [usize], log: &mut ImportLog) -> Result<()> {
        let (gd, defs, inputs, prefix) = (self.gd, self.defs, self.inputs, self.prefix);
        let mut input_types: Vec<(DType, Shape)> = Vec::new();
        // back edges to connect once every node exists: (node, input index, source, output)
        let mut deferred: Vec<(usize, usize, usize, usize)> = Vec::new();
        for &i in order {
            let n = &gd.node[i];
            let ctx_err = |e: Error| e.context(format!("node '{}' (op '{}')", n.name, n.op));
            let mut attrs = Attrs::with_capacity(n.attr.len());
            let dropped = self.dropped.get(&i).map(Vec::as_slice).unwrap_or_default();
            for (k, v) in &n.attr {
                if dropped.contains(&k.as_str()) {
                    continue;
                }
                let v = match defs[i] {
                    // an unknown op's attrs are kept as they are, for export; its `_` attrs
                    // (colocation, output shapes) are read as for any op where they can be
                    None if !k.starts_with('_') => GraphAttr::Unparsed(Box::new(v.clone())),
                    None => GraphAttr::from_proto(v).unwrap_or_else(|_| GraphAttr::Unparsed(Box::new(v.clone()))),
                    Some(def) if !ops::schema::declares_attr(def.op_type(), k) => {
                        GraphAttr::Unparsed(Box::new(v.clone()))
                    }
                    Some(_) => GraphAttr::from_proto(v).map_err(|e| ctx_err(e.context(format!("attr '{k}'"))))?,
                };
                attrs.insert(k.clone(), v);
            }
            let op_type = match defs[i] {
                Some(def) => {
                    ops::schema::add_default_attrs(def.op_type(), &mut attrs);
                    def.op_type()
                }
                None => ops::unknown::op_type_name(&n.op),
            };
            if !prefix.is_empty() {
                if let Some(GraphAttr::ListString(locs)) = attrs.get_mut("_class") {
                    for loc in locs.iter_mut() {
                        if let Some(rest) = loc.strip_prefix(b"loc:@") {
                            let mut v = format!("loc:@{prefix}/").into_bytes();
                            v.extend_from_slice(rest);
                            *loc = v;
                        }
                    }
                }
            }
            let mut data_inputs = Vec::with_capacity(n.input.len());
            let mut control_inputs = Vec::new();
            input_types.clear();
            // a loop's back edges (sources not added yet) are connected after all nodes
            let mut back_edges = Vec::new();
            for input in inputs.of(i) {
                match *input {
                    Input::MappedData(o) => data_inputs.push((o.op, o.index)),
                    Input::Data { node, index } if ids[node] == usize::MAX => {
                        back_edges.push((data_inputs.len(), node, index));
                        data_inputs.push((usize::MAX, 0));
                    }
                    Input::Data { node, index } => {
                        let id = ids[node];
                        check_output_index(gd, i, node, index, g.nodes[id].outputs.len())?;
                        data_inputs.push((id, index));
                    }
                    Input::Control(node) => push_unique(&mut control_inputs, ids[node]),
                    Input::MappedControl(id) => push_unique(&mut control_inputs, id),
                }
            }
            input_types.extend(data_inputs.iter().map(|&(src, idx)| match g.nodes.get(src) {
                Some(s) => s.outputs[idx].clone(),
                None => (DType::Float, Shape::unknown()),
            }));
            if !back_edges.is_empty() {
                // until connected, a back edge reads the Merge's first other input (so
                // that `inputs` stays valid) and has an unknown shape for inference
                let Some(&stand_in) = data_inputs.iter().find(|(src, _)| *src != usize::MAX) else {
                    return Err(Error::internal(format!("Merge '{}' has no input before its back edges", n.name)));
                };
                let dtype = g.nodes[stand_in.0].outputs[stand_in.1].0;
                for &(at, node, index) in &back_edges {
                    data_inputs[at] = stand_in;
                    input_types[at] = (dtype, Shape::unknown());
                    deferred.push((i, at, node, index));
                }
            }
            let mut name = if prefix.is_empty() { n.name.clone() } else { format!("{prefix}/{}", n.name) };
            if g.node_id(&name).is_some() && self.mapped.contains_key(&i) {
                // an input-mapped node (nothing imported reads it) that clashes gets the next
                // free name, as TensorFlow's importer names it (`batch` -> `batch_1`)
                let base = name.clone();
                name = (1..).map(|k| format!("{base}_{k}")).find(|c| g.node_id(c).is_none()).unwrap_or(base);
            }
            if g.node_id(&name).is_some() {
                let hint = if prefix.is_empty() {
                    "; import under a prefix (ImportGraphDefOptions::prefix; for a meta graph, import_scope) or into a new graph"
                } else {
                    ""
                };
                return Err(Error::invalid_argument(format!("Node '{name}' already exists in the graph{hint}")));
            }
            let mut node = Node {
                name,
                op_type,
                inputs: data_inputs,
                control_inputs,
                attrs,
                outputs: Vec::new(),
                device: n.device.clone(),
            };
            let ctx = InferCtx { nodes: &g.nodes, node: &node, inputs: &input_types };
            node.outputs = match defs[i] {
                Some(def) => {
                    ops::schema::check_input_count(&n.name, node.op_type, &node.attrs, node.inputs.len())?;
                    def.infer(&ctx).map_err(ctx_err)?
                }
                None => self.unknown.get(&i).cloned().unwrap_or_default(),
            };
            if ops::array::placeholder_shape_is_any(&node, self.graph_def_version) {
                node.outputs[0].1 = Shape::unknown();
            }
            ids[i] = g.push_imported(node, log);
            if let Some(entries) = self.mapped.get(&i) {
                self.check_mapped(g, i, ids[i], entries)?;
            }
        }
        for (i, at, node, index) in deferred {
            check_output_index(gd, i, node, index, g.nodes[ids[node]].outputs.len())?;
            g.update_input(ids[i], at, (ids[node], index))
                .map_err(|e| e.context(format!("node '{}' (op '{}')", gd.node[i].name, gd.node[i].op)))?;
        }
        Ok(())
    }

    /// An input-mapped tensor must have the dtype of GraphDef node `i`'s output it replaces
    /// (checked once node `i`, added as `id`, has its inferred outputs).
    fn check_mapped(&self, g: &GraphData, i: usize, id: usize, entries: &[(&str, usize, &Output)]) -> Result<()> {
        let src = &self.gd.node[i].name;
        let full =
            |name: &str| if self.prefix.is_empty() { name.to_string() } else { format!("{}/{name}", self.prefix) };
        for &(key, idx, out) in entries {
            let outputs = &g.nodes[id].outputs;
            let Some((want, _)) = outputs.get(idx) else {
                return Err(Error::invalid_argument(format!(
                    "input_map key '{key}' names output {idx} of node '{src}', which has {} output(s)",
                    outputs.len()
                )));
            };
            let got = g.nodes[out.op].outputs[out.index].0;
            // an unknown op's dtypes are guesses: the mapped tensor's is taken
            if got != *want && self.defs[i].is_some() {
                let consumer = self
                    .gd
                    .node
                    .iter()
                    .find(|n| n.input.iter().any(|i| canonical_tensor(i) == key))
                    .map(|n| full(&n.name))
                    .unwrap_or_else(|| full(src));
                return Err(Error::invalid_argument(format!(
                "Input '{key}' of node {consumer} was passed {got} from {}:{} incompatible with expected {want} (input_map['{key}'])",
                g.nodes[out.op].name, out.index
            )));
            }
        }
        Ok(())
    }
}

/// The attrs of `n` that tensorgraph's `OpDef` lacks but the producer's (in `producer`)
/// declares with a default equal to the node's value (TensorFlow's
/// `RemoveNewDefaultAttrsFromNodeDef`).
fn new_default_attrs<'a>(n: &'a NodeDef, producer: &OpList) -> Vec<&'a str> {
    let (Some(ours), Some(theirs)) = (ops::schema::op_def(&n.op), producer.op.iter().find(|d| d.name == n.op)) else {
        return Vec::new();
    };
    n.attr
        .iter()
        .filter(|(k, v)| {
            !k.starts_with('_')
                && !ours.attr.iter().any(|a| a.name == **k)
                && theirs.attr.iter().any(|a| a.name == **k && a.default_value.as_ref() == Some(*v))
        })
        .map(|(k, _)| k.as_str())
        .collect()
}

/// The outputs of each node of unknown op type (`defs[i]` is `None`), by GraphDef index:
/// their number and dtypes from the nodes that read them and the return elements asking for
/// them (see [`unknown_outputs`]).
fn unknown_node_outputs(
    gd: &GraphDef,
    defs: &[Option<&'static dyn ops::RegisteredOp>],
    inputs: &Inputs,
    return_elements: &[String],
    index: &HashMap<&str, usize>,
) -> HashMap<usize, Vec<(DType, Shape)>> {
    let mut readers: HashMap<usize, Vec<(usize, usize, usize)>> =
        (0..defs.len()).filter(|&i| defs[i].is_none()).map(|i| (i, Vec::new())).collect();
    if readers.is_empty() {
        return HashMap::default();
    }
    for reader in 0..gd.node.len() {
        for (position, input) in inputs.of(reader).iter().enumerate() {
            if let Input::Data { node, index } = *input {
                if let Some(list) = readers.get_mut(&node) {
                    list.push((reader, position, index));
                }
            }
        }
    }
    let mut wanted: HashMap<usize, usize> = HashMap::default();
    for r in return_elements {
        if let (src, Some(k)) = parse_tensor(r) {
            if let Some(&i) = index.get(src) {
                let w = wanted.entry(i).or_insert(k);
                *w = (*w).max(k);
            }
        }
    }
    readers.into_iter().map(|(i, r)| (i, unknown_outputs(gd, &gd.node[i], &r, wanted.get(&i).copied()))).collect()
}

/// Errors when data input `index` of GraphDef node `dst` names an output its source `src`
/// (with `n_out` outputs) lacks.
fn check_output_index(gd: &GraphDef, dst: usize, src: usize, index: usize, n_out: usize) -> Result<()> {
    if index >= n_out {
        return Err(Error::invalid_argument(format!(
            "Node '{}': Connecting to invalid output {index} of source node {} which has {n_out} outputs",
            gd.node[dst].name, gd.node[src].name
        )));
    }
    Ok(())
}

fn unknown_input(node: &str, input: &str) -> String {
    format!("Node '{node}': Unknown input node '{input}'")
}

fn check_versions(gd: &GraphDef) -> Result<()> {
    let Some(v) = &gd.versions else { return Ok(()) };
    if v.producer < GRAPH_DEF_VERSION_MIN_PRODUCER {
        return Err(Error::invalid_argument(format!(
            "GraphDef producer version {} below min producer {GRAPH_DEF_VERSION_MIN_PRODUCER} supported by tensorgraph (TensorFlow GraphDef version {GRAPH_DEF_VERSION})",
            v.producer
        )));
    }
    if v.min_consumer > GRAPH_DEF_VERSION {
        return Err(Error::invalid_argument(format!(
            "GraphDef min consumer version {} above current version {GRAPH_DEF_VERSION} for tensorgraph; the graph was written by a newer TensorFlow",
            v.min_consumer
        )));
    }
    if v.bad_consumers.contains(&GRAPH_DEF_VERSION) {
        return Err(Error::invalid_argument(format!(
            "GraphDef disallows consumer version {GRAPH_DEF_VERSION} (the version tensorgraph implements)"
        )));
    }
    Ok(())
}

fn push_unique(v: &mut Vec<usize>, id: usize) {
    if !v.contains(&id) {
        v.push(id);
    }
}

/// True for the op types of a while loop's back edge: data from a `NextIteration` into a `Merge`.
fn is_back_edge(gd: &GraphDef, src: usize, dst: usize) -> bool {
    matches!(gd.node[src].op.as_str(), "NextIteration" | "RefNextIteration")
        && matches!(gd.node[dst].op.as_str(), "Merge" | "RefMerge")
}

/// A topological order of the GraphDef's nodes, taking ready nodes in GraphDef order;
/// mapped inputs are no edges. As TensorFlow's importer, a `Merge` with a data input that
/// is not a loop's back edge does not wait for its back edges (`NextIteration` inputs),
/// which are connected once every node exists; any other cycle is an error.
fn topological_order(gd: &GraphDef, inputs: &Inputs) -> Result<Vec<usize>> {
    let preds = |i: usize, preds: &mut Vec<usize>| {
        let data = || {
            inputs.of(i).iter().filter_map(|input| match *input {
                Input::Data { node: s, .. } => Some(s),
                _ => None,
            })
        };
        let skip_back_edges = data().any(|s| !is_back_edge(gd, s, i));
        preds.extend(inputs.of(i).iter().filter_map(|input| match *input {
            Input::Data { node: s, .. } if skip_back_edges && is_back_edge(gd, s, i) => None,
            Input::Data { node: s, .. } | Input::Control(s) => Some(s),
            _ => None,
        }))
    };
    traversal::topological_order(gd.node.len(), preds, |stuck| {
        let shown = stuck.iter().take(20).map(|&i| gd.node[i].name.as_str()).collect::<Vec<_>>().join("', '");
        let more = if stuck.len() > 20 { format!(" and {} more", stuck.len() - 20) } else { String::new() };
        Error::invalid_argument(format!(
            "GraphDef contains a cycle: {} node(s) are on or after it: '{shown}'{more} (only a while loop's back edge, NextIteration -> Merge, may close a cycle)",
            stuck.len()
        ))
    })
}

/// The return element `r` (`"op"` or `"op:i"`) of an import into `graph`, whose data
/// `g` is (locked by the caller).
fn return_element(
    graph: &Graph,
    g: &GraphData,
    r: &str,
    index: &HashMap<&str, usize>,
    ids: &[usize],
    input_map: &HashMap<&str, &Output>,
) -> Result<ReturnElement> {
    let (src, idx) = parse_tensor(r);
    match idx {
        Some(i) => {
            if let Some(o) = input_map.get(format!("{src}:{i}").as_str()) {
                return Ok(ReturnElement::Output((*o).clone()));
            }
            let id = ids[index[src]];
            let n = g.nodes[id].outputs.len();
            if i >= n {
                return Err(Error::invalid_argument(format!(
                    "Invalid return output {i} of node '{src}', which has {n} output(s)"
                )));
            }
            Ok(ReturnElement::Output(Output { graph: graph.clone(), op: id, index: i }))
        }
        None => Ok(ReturnElement::Operation(Operation { graph: graph.clone(), id: ids[index[src]] })),
    }
}

impl Graph {
    /// Imports `graph_def` into this graph; see [`import_graph_def`].
    pub fn import_graph_def(&self, graph_def: &GraphDef, options: &ImportGraphDefOptions) -> Result<ImportResult> {
        import_graph_def(self, graph_def, options)
    }
}
