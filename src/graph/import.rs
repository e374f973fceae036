//! Crate-internal support for importing a `GraphDef` atomically: the importer adds nodes to
//! a private copy of the graph (so shape inference sees them) and appends them to the real
//! graph only when every node was accepted.

use super::graph::{GraphData, GraphInner};
use super::Graph;
use std::sync::{Arc, RwLock};

impl Graph {
    /// A private graph holding the same nodes and names as this one, and the number of
    /// nodes it starts with. Nodes added to it get the ids they would get here.
    pub(crate) fn scratch_copy(&self) -> (Graph, usize) {
        let g = self.read();
        let data = GraphData {
            nodes: g.nodes.clone(),
            by_name: g.by_name.clone(),
            names: g.names.clone(),
            ..Default::default()
        };
        let base = g.nodes.len();
        (Graph { inner: Arc::new(GraphInner { data: RwLock::new(data) }) }, base)
    }

    /// Appends the nodes `scratch` (from [`Graph::scratch_copy`]) gained after `base`,
    /// marking their names used. Returns false, changing nothing, when this graph gained
    /// nodes since the copy was made (the caller then imports again).
    pub(crate) fn commit_scratch(&self, scratch: &Graph, base: usize) -> bool {
        let new_nodes: Vec<_> = scratch.read().nodes[base..].to_vec();
        let mut g = self.write();
        if g.nodes.len() != base {
            return false;
        }
        for node in new_nodes {
            let id = g.nodes.len();
            g.names.mark_used(&node.name);
            g.by_name.insert(node.name.clone(), id);
            g.nodes.push(node);
        }
        true
    }
}
