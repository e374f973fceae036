//! Meta graphs (`.meta` files, TensorFlow's `MetaGraphDef`): a graph with its collections
//! and saver. [`export_meta_graph`] writes what `tf.train.export_meta_graph` writes;
//! [`Graph::import_meta_graph`](crate::Graph::import_meta_graph) rebuilds the graph, its
//! collections and a [`Saver`](crate::train::Saver), and puts the imported variables in
//! the variable store, so `get_variable` under reuse returns them and `Reuse::No`
//! reports that they exist (TensorFlow silently makes `v1_1` instead).
//! [`Saver::save`](crate::train::Saver::save) is defined here too: it writes the checkpoint
//! and, as TensorFlow's `Saver.save`, the `.meta` beside it.

mod collections;
mod export;
mod import;
mod save;

pub use crate::train::add_saver_ops;
pub use export::{export_meta_graph, write_meta_graph};
pub use import::{read_meta_graph, ImportMetaGraphOptions};
