//! Nodes of a graph and the handles that address them: [`Operation`] (`"add"`) and
//! [`Output`] (`"add:0"`).

use super::{AttrValue, Attrs, Graph};
use crate::error::{Error, Result};
use crate::tensor::{DType, Shape, Tensor};
use std::fmt;

/// One operation as stored in a graph: TensorFlow's `NodeDef` plus inferred output types.
#[derive(Debug, Clone)]
pub struct Node {
    /// Unique name (`layer1/MatMul`).
    pub name: String,
    /// TensorFlow op type (`MatMul`), as registered (see [`crate::ops::lookup`]).
    pub op_type: &'static str,
    /// Data inputs as (node id, output index).
    pub inputs: Vec<(usize, usize)>,
    /// Control inputs (node ids), written `^name` in a `GraphDef`.
    pub control_inputs: Vec<usize>,
    /// Attributes by name.
    pub attrs: Attrs,
    /// The dtype and inferred shape of each output.
    pub outputs: Vec<(DType, Shape)>,
    /// Requested device (kept for export; tensorgraph runs on the CPU).
    pub device: String,
}

impl Node {
    /// The attribute `name`. Errors: `InvalidArgument` naming the node when missing.
    pub fn attr(&self, name: &str) -> Result<&AttrValue> {
        self.attrs.get(name).ok_or_else(|| {
            Error::invalid_argument(format!("op '{}' ({}) has no attr '{name}'", self.name, self.op_type))
        })
    }
    /// A `type` attr.
    pub fn attr_type(&self, name: &str) -> Result<DType> {
        match self.attr(name)? {
            AttrValue::Type(t) => Ok(*t),
            v => Err(self.wrong_attr(name, "type", v)),
        }
    }
    /// A `bool` attr, or `default` when absent.
    pub fn attr_bool_or(&self, name: &str, default: bool) -> Result<bool> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Bool(b)) => Ok(*b),
            Some(v) => Err(self.wrong_attr(name, "bool", v)),
        }
    }
    /// An `int` attr, or `default` when absent.
    pub fn attr_int_or(&self, name: &str, default: i64) -> Result<i64> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Int(i)) => Ok(*i),
            Some(v) => Err(self.wrong_attr(name, "int", v)),
        }
    }
    /// A `float` attr, or `default` when absent.
    pub fn attr_float_or(&self, name: &str, default: f32) -> Result<f32> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Float(f)) => Ok(*f),
            Some(v) => Err(self.wrong_attr(name, "float", v)),
        }
    }
    /// A `shape` attr.
    pub fn attr_shape(&self, name: &str) -> Result<&Shape> {
        match self.attr(name)? {
            AttrValue::Shape(s) => Ok(s),
            v => Err(self.wrong_attr(name, "shape", v)),
        }
    }
    /// A `shape` attr, or `default` when absent (a present attr of another kind is an error).
    pub fn attr_shape_or(&self, name: &str, default: Shape) -> Result<Shape> {
        match self.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Shape(s)) => Ok(s.clone()),
            Some(v) => Err(self.wrong_attr(name, "shape", v)),
        }
    }
    /// A `tensor` attr.
    pub fn attr_tensor(&self, name: &str) -> Result<&Tensor> {
        match self.attr(name)? {
            AttrValue::Tensor(t) => Ok(t),
            v => Err(self.wrong_attr(name, "tensor", v)),
        }
    }
    fn wrong_attr(&self, name: &str, want: &str, got: &AttrValue) -> Error {
        Error::invalid_argument(format!(
            "attr '{name}' of op '{}' ({}) should be a {want}, got {got:?}",
            self.name, self.op_type
        ))
    }
}

/// A handle to one operation of a graph (TensorFlow's `tf.Operation`).
#[derive(Clone)]
pub struct Operation {
    pub(crate) graph: Graph,
    pub(crate) id: usize,
}

impl Operation {
    /// The op's unique name (`layer1/MatMul`).
    pub fn name(&self) -> String {
        self.graph.with_node(self.id, |n| n.name.clone())
    }
    /// The TensorFlow op type (`MatMul`).
    pub fn op_type(&self) -> String {
        self.graph.with_node(self.id, |n| n.op_type.to_string())
    }
    /// The op's output `index` (`name:index`). Errors: `OutOfRange` when the op has fewer outputs.
    pub fn output(&self, index: usize) -> Result<Output> {
        let n = self.num_outputs();
        if index >= n {
            return Err(Error::new(
                crate::Code::OutOfRange,
                format!("op '{}' has {n} output(s); there is no output {index}", self.name()),
            ));
        }
        Ok(Output { graph: self.graph.clone(), op: self.id, index })
    }
    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.graph.with_node(self.id, |n| n.outputs.len())
    }
    /// The graph this op belongs to.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The op's id within its graph (its position in creation order).
    pub fn id(&self) -> usize {
        self.id
    }
    /// A copy of the stored node (inputs, attrs, inferred outputs).
    pub fn node(&self) -> Node {
        self.graph.with_node(self.id, |n| n.clone())
    }
}

impl PartialEq for Operation {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.graph.same(&other.graph)
    }
}
impl Eq for Operation {}

impl fmt::Debug for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Operation({})", self.name())
    }
}

/// One output of an operation, a symbolic tensor addressed `op:index` (`tf.Tensor`).
#[derive(Clone)]
pub struct Output {
    pub(crate) graph: Graph,
    pub(crate) op: usize,
    pub(crate) index: usize,
}

impl Output {
    /// The tensor name, `op:index` (`add:0`).
    pub fn name(&self) -> String {
        self.graph.with_node(self.op, |n| format!("{}:{}", n.name, self.index))
    }
    /// The producing operation.
    pub fn op(&self) -> Operation {
        Operation { graph: self.graph.clone(), id: self.op }
    }
    /// The output index within its op.
    pub fn index(&self) -> usize {
        self.index
    }
    /// The element dtype.
    pub fn dtype(&self) -> DType {
        self.graph.with_node(self.op, |n| n.outputs[self.index].0)
    }
    /// The shape inferred at build time (dimensions may be unknown).
    pub fn shape(&self) -> Shape {
        self.graph.with_node(self.op, |n| n.outputs[self.index].1.clone())
    }
    /// The graph this tensor belongs to.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// (op id, output index), the key the session uses.
    pub fn key(&self) -> (usize, usize) {
        (self.op, self.index)
    }
}

impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.op == other.op && self.index == other.index && self.graph.same(&other.graph)
    }
}
impl Eq for Output {}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Output({})", self.name())
    }
}
impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}
