//! The index from op name to op id. It stores ids only and compares against the names
//! kept in the nodes, so a graph holds each op name once.

use super::Node;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;
use std::sync::Arc;

/// Op name → op id for the nodes of one graph (exact, case-sensitive names).
#[derive(Debug, Default, Clone)]
pub(crate) struct NameIndex {
    ids: HashTable<usize>,
}

fn hash(name: &str) -> u64 {
    FxBuildHasher.hash_one(name)
}

impl NameIndex {
    /// The id of the node of `nodes` named `name`.
    pub fn get(&self, nodes: &[Arc<Node>], name: &str) -> Option<usize> {
        self.ids.find(hash(name), |&id| nodes[id].name == name).copied()
    }

    /// True when a node of `nodes` is named `name`.
    pub fn contains(&self, nodes: &[Arc<Node>], name: &str) -> bool {
        self.get(nodes, name).is_some()
    }

    /// Indexes node `id`, named `name`, which `nodes` may not hold yet; `name` must be free.
    pub fn insert(&mut self, nodes: &[Arc<Node>], name: &str, id: usize) {
        debug_assert!(!self.contains(nodes, name), "{name} is taken");
        self.ids.insert_unique(hash(name), id, |&i| hash(&nodes[i].name));
    }

    /// Removes `name` from the index.
    pub fn remove(&mut self, nodes: &[Arc<Node>], name: &str) {
        if let Ok(entry) = self.ids.find_entry(hash(name), |&id| nodes[id].name == name) {
            entry.remove();
        }
    }

    /// Makes room for `n` more names.
    pub fn reserve(&mut self, nodes: &[Arc<Node>], n: usize) {
        self.ids.reserve(n, |&i| hash(&nodes[i].name));
    }
}
