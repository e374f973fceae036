//! What a graph keeps of the function library it was imported with: the library itself
//! (exported unchanged), the original form of each function call that import instantiated
//! (a node whose op is a library function, `PartitionedCall`, `StatefulPartitionedCall`,
//! `If`, `StatelessIf`, `While`, `StatelessWhile`), and which nodes instantiation made, so
//! that [`Graph::to_graph_def`](crate::Graph::to_graph_def) writes the graph as it was read.

use crate::format::proto::{AttrMap, AttrValue, FunctionDefLibrary};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The original form of a node that import replaced by the function's instantiation: its
/// op type, inputs (by node id), control inputs and attrs as the `GraphDef` had them.
#[derive(Debug, Clone)]
pub(crate) struct CallRecord {
    pub op: String,
    pub inputs: Vec<(usize, usize)>,
    pub control_inputs: Vec<usize>,
    pub attr: AttrMap<AttrValue>,
}

/// A graph's function library and the records of its instantiated calls.
#[derive(Debug, Default, Clone)]
pub(crate) struct FunctionRecords {
    /// The functions and gradients of every imported `GraphDef`'s library (the first
    /// definition of a name kept).
    pub library: FunctionDefLibrary,
    /// Names of the functions in `library`, serialized bytes aside.
    pub names: HashSet<String>,
    /// Call nodes (by id) and how they were written.
    pub calls: HashMap<usize, CallRecord>,
    /// Nodes made by instantiating a function body (by id).
    pub instantiated: HashSet<usize>,
    /// Call nodes (by id) whose function could not be instantiated, kept as ops
    /// tensorgraph cannot run: (node name, the instantiation's error).
    pub uninstantiable: HashMap<usize, (String, crate::error::Error)>,
}

impl FunctionRecords {
    /// Forgets the records of nodes `base..` (an import taken back).
    pub(crate) fn truncate(&mut self, base: usize) {
        self.calls.retain(|&id, _| id < base);
        self.instantiated.retain(|&id| id < base);
        self.uninstantiable.retain(|&id, _| id < base);
    }

    /// Adds `library`'s functions and gradients not already in the graph's library
    /// (functions by name: `function_names[i]` is the name of `library.function[i]`).
    pub(crate) fn add_library(&mut self, library: &FunctionDefLibrary, function_names: &[String]) {
        for (bytes, name) in library.function.iter().zip(function_names) {
            if self.names.insert(name.clone()) {
                self.library.function.push(bytes.clone());
            }
        }
        for g in &library.gradient {
            if !self.library.gradient.contains(g) {
                self.library.gradient.push(g.clone());
            }
        }
        for g in &library.registered_gradients {
            if !self.library.registered_gradients.contains(g) {
                self.library.registered_gradients.push(g.clone());
            }
        }
    }
}
