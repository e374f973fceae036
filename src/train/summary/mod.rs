//! TensorBoard: [`FileWriter`] writes event files (`tf.compat.v1.summary.FileWriter`),
//! [`EventFileReader`] reads them back (`tf.compat.v1.train.summary_iterator`), and the
//! summary ops' builders are re-exported from [`crate::ops::summary`] so that one module
//! holds the `tf.compat.v1.summary` API: [`scalar`], [`histogram`], [`image`], [`text`],
//! [`tensor_summary`], [`merge`], [`merge_all`].
//!
//! ```no_run
//! # fn main() -> tensorgraph::Result<()> {
//! use tensorgraph::train::summary::{self, FileWriter};
//! use tensorgraph::{ops, DType, Graph, Session, Tensor};
//! let graph = Graph::new();
//! let root = graph.scope();
//! let loss = ops::placeholder(&root.named("loss"), DType::Float, tensorgraph::Shape::scalar())?;
//! summary::scalar(&root, "loss", &loss)?;
//! let merged = summary::merge_all(&graph)?.expect("one summary");
//! let writer = FileWriter::with_graph("logs", &graph)?; // the graph and meta graph too
//! let sess = Session::new(&graph)?;
//! for step in 0..3 {
//!     let s = sess.fetch(&[(&loss, Tensor::scalar(1.0f32 / (step + 1) as f32))], &merged)?;
//!     writer.add_summary_tensor(&s, step)?;
//! }
//! writer.close()?; // or let it drop: nothing queued is lost
//! # Ok(())
//! # }
//! ```

mod file_name;
mod reader;
mod writer;

pub use crate::ops::summary::histogram::{default_bucket_limits, histogram, histogram_proto};
pub use crate::ops::summary::image::image;
pub use crate::ops::summary::{clean_tag, merge, merge_all, scalar, tensor_summary, text, SUMMARIES};
pub use file_name::{hostname, is_event_file_name};
pub use reader::{event_files, EventFileReader};
pub use writer::{wall_time, FileWriter, FileWriterOptions};
