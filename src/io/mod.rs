//! Reading and writing TensorFlow's file formats.

pub mod checkpoint;
pub mod graph_def;
pub mod meta_graph;
pub mod model_file;
pub mod proto;
