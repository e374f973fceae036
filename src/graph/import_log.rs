//! Crate-internal support for importing a `GraphDef` atomically: the importer adds nodes
//! to the graph under one write lock, logging what it marked in the name table, and rolls
//! everything back when a node is rejected.

use super::graph::GraphData;
use super::Node;
use crate::format::proto::{VersionDef, GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER};

/// What an import has added to a [`GraphData`] so far, to take back on error.
#[derive(Debug, Default)]
pub(crate) struct ImportLog {
    base: usize,
    /// The number of nodes when the import finished (0 before).
    end: usize,
    /// Names newly marked used: (node id, length of the prefix of its name).
    names: Vec<(usize, usize)>,
    /// The graph's versions before the import merged its GraphDef's, once it did.
    versions: Option<Option<VersionDef>>,
}

impl ImportLog {
    /// Records that the import finished, leaving `g` with its current nodes.
    pub(crate) fn finish(&mut self, g: &GraphData) {
        self.end = g.nodes.len();
    }
}

impl GraphData {
    /// Starts an import: makes room for `n` nodes and remembers where they begin.
    pub(crate) fn begin_import(&mut self, n: usize) -> ImportLog {
        self.nodes.reserve(n);
        self.by_name.reserve(&self.nodes, n);
        self.names.reserve(n);
        ImportLog { base: self.nodes.len(), end: 0, names: Vec::new(), versions: None }
    }

    /// The GraphDef versions the graph writes: TensorFlow 2.21's
    /// (`producer` [`GRAPH_DEF_VERSION`], `min_consumer` [`GRAPH_DEF_VERSION_MIN_CONSUMER`])
    /// for a graph built here, else as imports merged them.
    pub(crate) fn graph_versions(&self) -> VersionDef {
        self.versions.clone().unwrap_or(VersionDef {
            producer: GRAPH_DEF_VERSION,
            min_consumer: GRAPH_DEF_VERSION_MIN_CONSUMER,
            bad_consumers: Vec::new(),
        })
    }

    /// Merges an imported GraphDef's `versions` into the graph's, as TensorFlow's importer
    /// does (`UpdateVersionDef`): the lower producer, the higher `min_consumer`, the union of
    /// the bad consumers (sorted). A roll-back of `log` restores the graph's versions.
    pub(crate) fn merge_imported_versions(&mut self, imported: &VersionDef, log: &mut ImportLog) {
        log.versions = Some(self.versions.clone());
        let mut v = self.graph_versions();
        v.producer = v.producer.min(imported.producer);
        v.min_consumer = v.min_consumer.max(imported.min_consumer);
        let mut bad: Vec<i32> = v.bad_consumers.iter().chain(&imported.bad_consumers).copied().collect();
        bad.sort_unstable();
        bad.dedup();
        v.bad_consumers = bad;
        self.versions = Some(v);
    }

    /// Appends an imported node whose name the caller found free, registering the name.
    /// Returns its id.
    pub(crate) fn push_imported(&mut self, node: Node, log: &mut ImportLog) -> usize {
        self.push_node_reporting(node, |id, len| log.names.push((id, len)))
    }

    /// Takes back a finished import (see [`ImportLog::finish`]). Returns false, changing
    /// nothing, when nodes were added after it.
    pub(crate) fn roll_back_import(&mut self, log: ImportLog) -> bool {
        if self.nodes.len() != log.end {
            return false;
        }
        self.roll_back(log);
        true
    }

    /// Removes every node and name the import logged.
    pub(crate) fn roll_back(&mut self, log: ImportLog) {
        if let Some(v) = log.versions {
            self.versions = v;
        }
        for &(id, len) in &log.names {
            self.names.forget(&self.nodes[id].name[..len]);
        }
        for id in (log.base..self.nodes.len()).rev() {
            self.by_name.remove(&self.nodes, &self.nodes[id].name);
        }
        self.nodes.truncate(log.base);
        self.functions.truncate(log.base);
    }
}
