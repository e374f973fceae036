//! Graphs in TensorFlow's file formats: `GraphDef` import, export and freezing
//! ([`graph_def`]) and `MetaGraphDef` import and export ([`meta_graph`]). The byte-level
//! messages and checkpoint files they use are in [`crate::format`].

mod file_bytes;
pub mod graph_def;
pub mod meta_graph;
pub mod model_file;
mod references;
pub mod saved_model;
mod summary_graph;
