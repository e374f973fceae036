//! The graph events of a [`FileWriter`] (defined here, beside the graph export they use):
//! `FileWriter(logdir, graph)` and `add_graph(graph)` write the graph's `GraphDef` (with
//! `_output_shapes`, as TensorFlow's) and its `MetaGraphDef` (without a saver, as
//! TensorFlow's `add_meta_graph`), which TensorBoard's graph view shows.

use super::meta_graph::export_meta_graph;
use crate::error::Result;
use crate::graph::Graph;
use crate::train::summary::{FileWriter, FileWriterOptions};
use std::path::Path;

impl FileWriter {
    /// `tf.compat.v1.summary.FileWriter(logdir, graph)`: [`FileWriter::new`], then
    /// [`FileWriter::add_graph`]. Errors: those of both.
    pub fn with_graph(logdir: impl AsRef<Path>, graph: &Graph) -> Result<FileWriter> {
        FileWriter::with_graph_and_options(logdir, graph, FileWriterOptions::default())
    }

    /// [`FileWriter::with_graph`] with `options`.
    pub fn with_graph_and_options(
        logdir: impl AsRef<Path>,
        graph: &Graph,
        options: FileWriterOptions,
    ) -> Result<FileWriter> {
        let w = FileWriter::with_options(logdir, options)?;
        w.add_graph(graph)?;
        Ok(w)
    }

    /// `add_graph(graph)`: queues an event with the graph's `GraphDef` (with
    /// `_output_shapes`) and one with its `MetaGraphDef` (collections, no saver), both at
    /// step 0. Errors: those of the meta graph export and of [`FileWriter::add_event`].
    pub fn add_graph(&self, graph: &Graph) -> Result<()> {
        self.add_graph_def(&graph.to_graph_def_with_shapes())?;
        self.add_meta_graph_def(&export_meta_graph(graph, None)?)
    }
}
