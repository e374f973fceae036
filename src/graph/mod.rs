//! The graph layer: [`Graph`], [`Operation`], [`Output`] (`"op:0"`), TensorFlow's unique
//! naming, name and variable scopes ([`Scope`]), collections and variables.

mod attr;
mod attr_proto;
pub mod collections;
mod finalize;
mod functions;
#[allow(clippy::module_inception)]
mod graph;
mod import_log;
mod name_index;
mod naming;
mod node;
mod scope;
pub(crate) mod traversal;
mod variable;

pub use attr::{AttrValue, Attrs};
pub use collections::CollectionValue;
pub(crate) use finalize::finalized_error;
pub(crate) use functions::{CallRecord, FunctionRecords};
pub(crate) use graph::CollectionItem;
pub use graph::Graph;
pub(crate) use graph::GraphData;
pub(crate) use import_log::ImportLog;
pub use node::{Node, Operation, Output};
pub(crate) use scope::{check_op_name, is_valid_op_name};
pub use scope::{OpBuilder, Reuse, Scope, VarScope};
pub use variable::Variable;
pub(crate) use variable::{snapshot_variable, VariableRecord};
