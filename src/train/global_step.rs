//! The global step (`tf.compat.v1.train.get_or_create_global_step`, `training_util.py`):
//! an int64 scalar variable `global_step` in the `global_step` collection, which
//! optimizers increment ([`Optimizer::minimize_with`](super::Optimizer::minimize_with)'s
//! `global_step`) and `Saver::save_with_global_step` appends to the checkpoint's name.

use crate::error::{Error, Result};
use crate::graph::collections::{GLOBAL_STEP, GLOBAL_VARIABLES};
use crate::graph::{Graph, Variable};
use crate::init::Initializer;
use crate::ops::VariableOptions;
use crate::session::Session;
use crate::tensor::{DType, Shape};

/// The graph's global step (`tf.train.get_global_step`): the variable in collection
/// `global_step`, else the variable `get_variable` made under the name `global_step`;
/// `None` when there is neither.
///
/// Errors: `InvalidArgument` when the collection holds more than one variable ("Multiple
/// tensors in global_step collection") or the step is not an integer scalar.
pub fn get_global_step(graph: &Graph) -> Result<Option<Variable>> {
    let mut in_collection = graph.variables_in(GLOBAL_STEP);
    let step = match in_collection.len() {
        0 => graph.global_variables().into_iter().find(|v| v.op_name() == GLOBAL_STEP),
        1 => in_collection.pop(),
        n => {
            return Err(Error::invalid_argument(format!(
                "Multiple tensors in global_step collection: {n} variables ({}); a graph has one global step",
                in_collection.iter().map(Variable::op_name).collect::<Vec<_>>().join(", ")
            )))
        }
    };
    if let Some(v) = &step {
        if !matches!(v.dtype(), DType::Int32 | DType::Int64) || !v.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "Existing \"global_step\" must be an integer scalar: {} is {} of shape {:?}",
                v.op_name(),
                v.dtype(),
                v.shape()
            )));
        }
    }
    Ok(step)
}

/// `tf.compat.v1.train.get_or_create_global_step(graph)`: the graph's global step
/// ([`get_global_step`]), created when it has none as TensorFlow creates it: the int64
/// scalar `global_step` made by `get_variable` at the root of the graph with the zeros
/// initializer (ops `global_step/Initializer/zeros`, `global_step`, `global_step/Assign`,
/// `global_step/read`), not trainable, in collections `variables` and `global_step`.
/// A reference variable (`VariableV2`), as TF1's `get_variable` makes it.
///
/// Errors: as [`get_global_step`]; `AlreadyExists` when the graph has a variable named
/// `global_step` that `get_variable` made with another role.
pub fn get_or_create_global_step(graph: &Graph) -> Result<Variable> {
    if let Some(step) = get_global_step(graph)? {
        return Ok(step);
    }
    let opts = VariableOptions {
        trainable: false,
        collections: vec![GLOBAL_VARIABLES.to_string(), GLOBAL_STEP.to_string()],
        use_resource: false,
    };
    graph.scope().get_variable_with(GLOBAL_STEP, Shape::scalar(), DType::Int64, Initializer::Zeros, opts)
}

/// The value of the global step `step` in `session` (`tf.compat.v1.train.global_step(sess,
/// step)`).
///
/// Errors: `FailedPrecondition` naming it when it is not initialized; `InvalidArgument` when
/// it is not an integer scalar.
pub fn global_step(session: &Session, step: &Variable) -> Result<i64> {
    let value = session.variable_value(step.op()).ok_or_else(|| crate::ops::uninitialized(&step.op_name()))?;
    let n = match value.dtype() {
        DType::Int64 => value.as_slice::<i64>()?.first().copied(),
        DType::Int32 => value.as_slice::<i32>()?.first().map(|&x| x as i64),
        _ => None,
    };
    match n {
        Some(n) if value.shape().is_empty() => Ok(n),
        _ => Err(Error::invalid_argument(format!(
            "the global step {} is {} of shape {:?}; it must be an integer scalar",
            step.op_name(),
            value.dtype(),
            value.shape()
        ))),
    }
}
