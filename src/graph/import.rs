//! Crate-internal support for importing a `GraphDef` atomically: the importer adds nodes to
//! a private copy of the graph (so shape inference sees them) and appends them to the real
//! graph only when every node was accepted.

use super::graph::{GraphData, GraphInner};
use super::Graph;
use std::sync::{Arc, RwLock};

impl Graph {
    /// A private graph holding the same nodes and names as this one, the number of nodes
    /// it starts with, and the name table's version. Nodes added to it get the ids they would get here.
    pub(crate) fn scratch_copy(&self) -> (Graph, usize, u64) {
        let g = self.read();
        let version = g.names.version();
        let data = GraphData {
            nodes: g.nodes.clone(),
            by_name: g.by_name.clone(),
            names: g.names.clone(),
            ..Default::default()
        };
        let base = g.nodes.len();
        (Graph { inner: Arc::new(GraphInner { data: RwLock::new(data) }) }, base, version)
    }

    /// Appends the nodes `scratch` (from [`Graph::scratch_copy`]) gained after `base`,
    /// marking their names used. Returns false, changing nothing, when this graph gained
    /// nodes since the copy was made (the caller then imports again).
    pub(crate) fn commit_scratch(&self, scratch: &Graph, base: usize, names_version: u64) -> bool {
        let mut g = self.write();
        if g.nodes.len() != base {
            return false;
        }
        if g.names.version() == names_version {
            // nothing changed here since the copy: the scratch tables are this graph's plus
            // the imported names, so take them whole instead of re-registering every node
            let mut s = scratch.write();
            g.nodes = std::mem::take(&mut s.nodes);
            g.by_name = std::mem::take(&mut s.by_name);
            g.names = std::mem::take(&mut s.names);
            return true;
        }
        let new_nodes: Vec<_> = scratch.read().nodes[base..].to_vec();
        for node in new_nodes {
            let id = g.nodes.len();
            g.names.mark_used(&node.name);
            g.by_name.insert(node.name.clone(), id);
            g.nodes.push(node);
        }
        true
    }
}
