//! Graph collections (`tf.add_to_collection`, `tf.get_collection`): the standard names
//! (`tf.GraphKeys`) and the values a collection gives back ([`CollectionValue`]).

/// `tf.GraphKeys.GLOBAL_VARIABLES`
pub const GLOBAL_VARIABLES: &str = "variables";
/// `tf.GraphKeys.TRAINABLE_VARIABLES`
pub const TRAINABLE_VARIABLES: &str = "trainable_variables";
/// `tf.GraphKeys.TRAIN_OP`
pub const TRAIN_OP: &str = "train_op";
/// `tf.GraphKeys.GLOBAL_STEP`
pub const GLOBAL_STEP: &str = "global_step";
/// `tf.GraphKeys.UPDATE_OPS`: ops a train step must also run, such as batch
/// normalization's moving-average updates.
pub const UPDATE_OPS: &str = "update_ops";

use super::{CollectionItem, Graph, Operation, Output, Variable};
use crate::error::{Error, Result};

/// One value of a graph collection, as TensorFlow's `tf.get_collection(name)` gives it: a
/// handle to run, fetch or pass on ([`Graph::get_collection`]), or a plain value.
#[derive(Debug, Clone, PartialEq)]
pub enum CollectionValue {
    /// A variable (in `variables`, `trainable_variables`, ...).
    Variable(Variable),
    /// An operation (in `train_op`, ...): a target for `Session::run`.
    Operation(Operation),
    /// A tensor: a fetch for `Session::run`.
    Tensor(Output),
    /// Opaque bytes (a serialized proto passed through from an imported meta graph, such
    /// as a `CondContextDef`).
    Bytes(Vec<u8>),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f32),
}

impl CollectionValue {
    /// The operation, when this is one.
    pub fn as_operation(&self) -> Option<&Operation> {
        match self {
            CollectionValue::Operation(op) => Some(op),
            _ => None,
        }
    }
    /// The tensor, when this is one.
    pub fn as_tensor(&self) -> Option<&Output> {
        match self {
            CollectionValue::Tensor(t) => Some(t),
            _ => None,
        }
    }
    /// The variable, when this is one.
    pub fn as_variable(&self) -> Option<&Variable> {
        match self {
            CollectionValue::Variable(v) => Some(v),
            _ => None,
        }
    }
}

impl From<Operation> for CollectionValue {
    fn from(op: Operation) -> Self {
        CollectionValue::Operation(op)
    }
}
impl From<&Operation> for CollectionValue {
    fn from(op: &Operation) -> Self {
        CollectionValue::Operation(op.clone())
    }
}
impl From<Output> for CollectionValue {
    fn from(t: Output) -> Self {
        CollectionValue::Tensor(t)
    }
}
impl From<&Output> for CollectionValue {
    fn from(t: &Output) -> Self {
        CollectionValue::Tensor(t.clone())
    }
}
impl From<Variable> for CollectionValue {
    fn from(v: Variable) -> Self {
        CollectionValue::Variable(v)
    }
}
impl From<&Variable> for CollectionValue {
    fn from(v: &Variable) -> Self {
        CollectionValue::Variable(v.clone())
    }
}
impl From<Vec<u8>> for CollectionValue {
    fn from(b: Vec<u8>) -> Self {
        CollectionValue::Bytes(b)
    }
}
impl From<i64> for CollectionValue {
    fn from(i: i64) -> Self {
        CollectionValue::Int(i)
    }
}
impl From<f32> for CollectionValue {
    fn from(f: f32) -> Self {
        CollectionValue::Float(f)
    }
}

impl Graph {
    /// The values of collection `name` in the order they were added, as handles of this
    /// graph (`tf.get_collection(name)`; empty when there is no such collection):
    /// `g.get_collection(TRAIN_OP)[0].as_operation()` is the train op to run.
    /// [`Graph::operations_in`], [`Graph::tensors_in`] and [`Graph::variables_in`] keep
    /// one kind.
    pub fn get_collection(&self, name: &str) -> Vec<CollectionValue> {
        self.collection(name)
            .into_iter()
            .map(|item| match item {
                CollectionItem::Variable(r) => CollectionValue::Variable(Variable::from_record(self, &r)),
                CollectionItem::Op(id) => CollectionValue::Operation(Operation { graph: self.clone(), id }),
                CollectionItem::Tensor(op, index) => CollectionValue::Tensor(Output { graph: self.clone(), op, index }),
                CollectionItem::Bytes(b) => CollectionValue::Bytes(b),
                CollectionItem::Int(i) => CollectionValue::Int(i),
                CollectionItem::Float(f) => CollectionValue::Float(f),
            })
            .collect()
    }

    /// The operations of collection `name` (`train_op`: [`TRAIN_OP`]), in order, leaving
    /// out values of other kinds.
    pub fn operations_in(&self, name: &str) -> Vec<Operation> {
        self.get_collection(name).into_iter().filter_map(|v| v.as_operation().cloned()).collect()
    }

    /// The tensors of collection `name`, in order, leaving out values of other kinds.
    pub fn tensors_in(&self, name: &str) -> Vec<Output> {
        self.get_collection(name).into_iter().filter_map(|v| v.as_tensor().cloned()).collect()
    }

    /// Appends `value` (an [`Operation`], [`Output`], [`Variable`], `Vec<u8>`, `i64` or
    /// `f32`) to collection `name`, creating it (`tf.add_to_collection(name, value)`).
    /// Collections are exported with the graph (`export_meta_graph`); one collection holds
    /// one kind of value there.
    ///
    /// Errors: `InvalidArgument` when an operation, tensor or variable belongs to another
    /// graph; `FailedPrecondition` when the graph is finalized ([`Graph::finalize`]).
    pub fn add_to_collection(&self, name: &str, value: impl Into<CollectionValue>) -> Result<()> {
        let value = value.into();
        let (graph, what) = match &value {
            CollectionValue::Operation(op) => (Some(op.graph()), format!("operation '{}'", op.name())),
            CollectionValue::Tensor(t) => (Some(t.graph()), format!("tensor '{}'", t.name())),
            CollectionValue::Variable(v) => (Some(v.op().graph()), format!("variable '{}'", v.name())),
            _ => (None, String::new()),
        };
        self.check_not_finalized(|| format!("to collection '{name}'"))?;
        if graph.is_some_and(|g| !g.same(self)) {
            return Err(Error::invalid_argument(format!(
                "cannot add {what} to collection '{name}': it belongs to another graph; add it to its own graph's collection"
            )));
        }
        let item = match value {
            CollectionValue::Variable(v) => CollectionItem::Variable(v.record()),
            CollectionValue::Operation(op) => CollectionItem::Op(op.id),
            CollectionValue::Tensor(t) => CollectionItem::Tensor(t.op, t.index),
            CollectionValue::Bytes(b) => CollectionItem::Bytes(b),
            CollectionValue::Int(i) => CollectionItem::Int(i),
            CollectionValue::Float(f) => CollectionItem::Float(f),
        };
        self.add_collection_item(name, item);
        Ok(())
    }
}
