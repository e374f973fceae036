//! The `Optimizer` trait (`tf.train.Optimizer`): `minimize` computes gradients with
//! [`gradients`](super::gradients) and applies them with one update op per variable.

use super::gradients;
use crate::error::{Error, Result};
use crate::graph::collections::TRAIN_OP;
use crate::graph::{CollectionItem, Operation, Output, Scope, Variable};
use crate::init::Initializer;
use crate::ops;
use crate::ops::VariableOptions;
use crate::tensor::{DType, Tensor};

/// A gradient-based optimizer. Implementations add TensorFlow's ops (`ApplyAdam`, ...)
/// and slot variables named as TensorFlow names them (`<var>/Adam`, `<var>/Adam_1`, ...).
pub trait Optimizer {
    /// The default name of the update op and its scope (`Adam`, `GradientDescent`, `Momentum`).
    fn name(&self) -> &'static str;

    /// Adds the ops applying `grads_and_vars` (`opt.apply_gradients`): under name scope
    /// `name` (default [`Optimizer::name`]), one `update_<var>/Apply*` op per variable,
    /// then a `NoOp` named like the scope that groups them (after which `global_step`, if
    /// given, is incremented). The returned op is added to collection `train_op`.
    /// Errors: `InvalidArgument` for an empty list or mismatched gradient shapes.
    fn apply_gradients(
        &self,
        grads_and_vars: &[(Output, Variable)],
        global_step: Option<&Variable>,
        name: Option<&str>,
    ) -> Result<Operation>;

    /// `opt.minimize(loss)` over all trainable variables.
    fn minimize(&self, loss: &Output) -> Result<Operation> {
        self.minimize_with(loss, None, None, None)
    }

    /// `opt.minimize(loss, var_list=..., global_step=..., name=...)`, arguments in this order.
    /// Errors: `InvalidArgument` when no variable receives a gradient ("No gradients
    /// provided for any variable", listing them).
    fn minimize_with(
        &self,
        loss: &Output,
        var_list: Option<&[Variable]>,
        global_step: Option<&Variable>,
        name: Option<&str>,
    ) -> Result<Operation> {
        let vars = match var_list {
            Some(v) => v.to_vec(),
            None => loss.graph().trainable_variables(),
        };
        if vars.is_empty() {
            return Err(Error::invalid_argument("No variables to optimize: the graph has no trainable variables"));
        }
        // as TensorFlow: a resource variable's gradient is taken with respect to its handle,
        // which sums the gradients of all its reads
        let xs: Vec<Output> =
            vars.iter().map(|v| if v.is_resource() { v.reference() } else { v.value().clone() }).collect();
        let grads = gradients(std::slice::from_ref(loss), &xs, None)?;
        let pairs: Vec<(Output, Variable)> =
            grads.into_iter().zip(vars.iter()).filter_map(|(g, v)| g.map(|g| (g, v.clone()))).collect();
        if pairs.is_empty() {
            let names: Vec<String> = vars.iter().map(|v| v.name()).collect();
            return Err(Error::invalid_argument(format!(
                "No gradients provided for any variable, check your graph for ops that do not support gradients, between variables {names:?} and loss {}",
                loss.name()
            )));
        }
        self.apply_gradients(&pairs, global_step, name)
    }
}

/// A zero-initialized, non-trainable slot variable `<var>/<slot>` (TensorFlow's
/// `slot_creator.create_zeros_slot`): ops `<var>/<slot>`, `.../Initializer/zeros`,
/// `.../Assign`, `.../read`; a resource variable when `var` is one (as TensorFlow), with
/// `.../IsInitialized/VarIsInitializedOp` and `.../Read/ReadVariableOp`.
pub(crate) fn zeros_slot(var: &Variable, slot: &str) -> Result<Variable> {
    let g = var.graph().clone();
    let dims = var.shape();
    let dtype = var.dtype();
    g.scope().variable_with(
        &format!("{}/{slot}", var.op_name()),
        VariableOptions { trainable: false, use_resource: var.is_resource(), ..Default::default() },
        |vs| Initializer::Zeros.build(&vs.name_scope("Initializer"), &dims, dtype),
    )
}

/// A non-trainable scalar variable `name` initialized to `value` (Adam's `beta1_power`),
/// a resource variable when `like` is one (TensorFlow's `_create_non_slot_variable`): its
/// initial value is `name/initial_value`, or for a resource variable
/// `name/Initializer/initial_value`.
pub(crate) fn non_slot_scalar(like: &Variable, name: &str, value: f64, dtype: DType) -> Result<Variable> {
    let resource = like.is_resource();
    let opts = VariableOptions { trainable: false, use_resource: resource, ..Default::default() };
    like.graph().scope().variable_with(name, opts, |vs| {
        let s = if resource { vs.name_scope("Initializer") } else { vs.clone() };
        ops::constant(&s.named("initial_value"), Tensor::from_f64(dtype, &[], &[value])?)
    })
}

/// A scalar hyper-parameter constant in the update scope (`train/learning_rate`).
pub(crate) fn hyper(s: &Scope, name: &str, value: f64, dtype: DType) -> Result<Output> {
    ops::constant(&s.named(name), Tensor::from_f64(dtype, &[], &[value])?)
}

/// Shared shape of `apply_gradients`: checks, the update scope, one update op per
/// variable (`update` gets the pair's index, to find its slots), extra finishing ops, then the grouping op (and global step).
pub(crate) fn apply_with(
    default_name: &str,
    grads_and_vars: &[(Output, Variable)],
    global_step: Option<&Variable>,
    name: Option<&str>,
    prepare: impl FnOnce(&Scope, DType) -> Result<Vec<Output>>,
    update: impl Fn(&Scope, &[Output], usize, &Output, &Variable) -> Result<Operation>,
    finish: impl FnOnce(&Scope, &[Operation]) -> Result<Vec<Operation>>,
) -> Result<Operation> {
    let Some((_, first)) = grads_and_vars.first() else {
        return Err(Error::invalid_argument("apply_gradients got no (gradient, variable) pairs"));
    };
    let g = first.graph().clone();
    for (grad, var) in grads_and_vars {
        if !grad.shape().compatible(&crate::Shape::known(&var.shape())) {
            return Err(Error::invalid_argument(format!(
                "gradient {} has shape {} but variable {} has shape {:?}",
                grad.name(),
                grad.shape(),
                var.name(),
                var.shape()
            )));
        }
    }
    let scope = g.scope().name_scope(name.unwrap_or(default_name));
    let hypers = prepare(&scope, first.dtype())?;
    let mut updates = Vec::with_capacity(grads_and_vars.len());
    for (i, (grad, var)) in grads_and_vars.iter().enumerate() {
        let us = scope.name_scope(&format!("update_{}", var.op_name()));
        updates.push(update(&us, &hypers, i, grad, var)?);
    }
    let refs: Vec<&Operation> = updates.iter().collect();
    let extra = finish(&scope.with_control_dependencies(&refs), &updates)?;
    let all: Vec<&Operation> = updates.iter().chain(extra.iter()).collect();
    let exact = format!("{}/", scope.prefix());
    let train = match global_step {
        None => ops::group(&scope.named(&exact), &all)?,
        Some(step) => {
            let done = ops::group(&scope.named("update"), &all)?;
            // as TensorFlow: the constant is built after the updates too (`^update`), named
            // `value` by `assign_add` for a reference variable, `Const` for a resource one
            let after_updates = scope.with_control_dependencies(&[&done]);
            let one_name = if step.is_resource() { "Const" } else { "value" };
            let one = ops::constant(&after_updates.named(one_name), Tensor::from_f64(step.dtype(), &[], &[1.0])?)?;
            // (its input `one` already waits for the updates: no control input of its own)
            let after = scope.named(&exact);
            if step.is_resource() {
                // TensorFlow's train op is then the AssignAddVariableOp itself
                ops::assign_add_variable_op(&after, &step.reference(), &one)?
            } else {
                ops::assign_add(&after, &step.reference(), &one)?.op()
            }
        }
    };
    g.add_collection_item(TRAIN_OP, CollectionItem::Op(train.id()));
    Ok(train)
}
