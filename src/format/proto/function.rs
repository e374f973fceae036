//! `FunctionDef` and `GradientDef` (function.proto), decoded from a
//! [`FunctionDefLibrary`](super::FunctionDefLibrary)'s kept bytes when a graph's functions
//! are instantiated. The library itself stays serialized, so it round-trips unchanged.

use super::attr_value::AttrValue;
use super::graph::{FunctionDefLibrary, NodeDef};
use super::op_def::OpDef;
use crate::error::{Error, Result};
use prost::Message;
use std::collections::BTreeMap;

/// `tensorflow.FunctionDef`: a function's signature (an `OpDef`: its name, input and
/// output args, attrs), its body (`node_def`, whose inputs are written `arg`,
/// `node:output_arg:index` or `^node`), and which body tensors it returns.
#[derive(Clone, PartialEq, Message)]
pub struct FunctionDef {
    /// The function's name, args and attrs.
    #[prost(message, optional, tag = "1")]
    pub signature: Option<OpDef>,
    /// The body.
    #[prost(message, repeated, tag = "3")]
    pub node_def: Vec<NodeDef>,
    /// Output arg name → the body tensor returned (`node:output_arg:index`, or an input arg).
    #[prost(btree_map = "string, string", tag = "4")]
    pub ret: BTreeMap<String, String>,
    /// Attrs of the function itself (`_noinline`, ...).
    #[prost(btree_map = "string, message", tag = "5")]
    pub attr: BTreeMap<String, AttrValue>,
    /// Control output name → body node that must run when the function runs.
    #[prost(btree_map = "string, string", tag = "6")]
    pub control_ret: BTreeMap<String, String>,
}

/// `tensorflow.GradientDef`: the function computing `function_name`'s gradient.
#[derive(Clone, PartialEq, Eq, Message)]
pub struct GradientDef {
    /// The function differentiated.
    #[prost(string, tag = "1")]
    pub function_name: String,
    /// The function computing its gradient.
    #[prost(string, tag = "2")]
    pub gradient_func: String,
}

impl FunctionDef {
    /// The function's name (its signature's).
    pub fn name(&self) -> &str {
        self.signature.as_ref().map_or("", |s| s.name.as_str())
    }
}

impl FunctionDefLibrary {
    /// The library's functions, decoded.
    /// Errors: `DataLoss` when a kept `FunctionDef` is not a valid message.
    pub fn functions(&self) -> Result<Vec<FunctionDef>> {
        self.function
            .iter()
            .enumerate()
            .map(|(i, b)| {
                FunctionDef::decode(b.as_slice()).map_err(|e| {
                    Error::data_loss(format!("function {i} of the graph's library is not a FunctionDef: {e}"))
                })
            })
            .collect()
    }

    /// The library's gradient definitions, decoded.
    /// Errors: `DataLoss` when a kept `GradientDef` is not a valid message.
    pub fn gradients(&self) -> Result<Vec<GradientDef>> {
        self.gradient
            .iter()
            .map(|b| {
                GradientDef::decode(b.as_slice())
                    .map_err(|e| Error::data_loss(format!("a GradientDef of the graph's library is invalid: {e}")))
            })
            .collect()
    }

    /// True when the library has no functions and no gradients.
    pub fn is_empty(&self) -> bool {
        self.function.is_empty() && self.gradient.is_empty() && self.registered_gradients.is_empty()
    }
}
