//! [`ExponentialMovingAverage`] (`tf.compat.v1.train.ExponentialMovingAverage`,
//! `moving_averages.py`): shadow variables `<var>/ExponentialMovingAverage` that follow
//! variables with `shadow -= (1 - decay) * (shadow - var)` each time the update op runs,
//! and the name map that restores the averages into the model's variables for evaluation.

use crate::error::{Error, Result};
use crate::graph::collections::{GLOBAL_VARIABLES, TRAINABLE_VARIABLES};
use crate::graph::{AttrValue, CollectionItem, Graph, Operation, Output, Scope, Variable};
use crate::ops::{self, VariableOptions};
use crate::tensor::{DType, Tensor};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// `tf.GraphKeys.MOVING_AVERAGE_VARIABLES`: the variables an [`ExponentialMovingAverage`]
/// averages.
pub const MOVING_AVERAGE_VARIABLES: &str = "moving_average_variables";

/// Maintains moving averages of variables (`tf.compat.v1.train.ExponentialMovingAverage`).
///
/// [`ExponentialMovingAverage::apply`] creates for each variable `v` a shadow variable
/// `v/ExponentialMovingAverage` (not trainable, in `variables`, initialized to `v`'s initial
/// value, colocated with `v`) and returns the op that updates them all:
/// `shadow -= (1 - decay) * (shadow - v)`, with `decay = min(decay, (1 + n) / (10 + n))`
/// when a step `n` is given ([`ExponentialMovingAverage::num_updates`]). The ops are
/// TensorFlow's, with its names: under the name scope `ExponentialMovingAverage` the
/// constant `decay` (then `num_updates`, `add`, `add_1`, `truediv`, `Minimum`), per variable
/// a scope `AssignMovingAvg` (`_1`, ...) with `sub` (`1 - decay`), `sub_1` (`shadow - v`),
/// `mul` and the `AssignSub` named like the scope, and the `NoOp` `ExponentialMovingAverage`
/// grouping them. For resource variables the reads are `ReadVariableOp`s and the update an
/// `AssignSubVariableOp` in that scope.
///
/// Differences from TensorFlow: a shadow's initial value is its variable's initial value
/// (TensorFlow's is a `cond` taking the variable's current value when it is already
/// initialized; both are the same when the initializers run together); zero-debiasing
/// applies in TensorFlow only to averages of tensors that are not variables, which `apply`
/// does not take, so [`ExponentialMovingAverage::zero_debias`] has no effect here either.
#[derive(Debug, Clone)]
pub struct ExponentialMovingAverage {
    decay: f64,
    num_updates: Option<Output>,
    zero_debias: bool,
    name: String,
    /// (variable, shadow) for each variable averaged, in the order `apply` saw them.
    averages: Arc<Mutex<Vec<(Variable, Variable)>>>,
}

/// Sets TensorFlow's colocation attr (`_class: loc:@target`) on `op`.
fn colocate(op: &Operation, target: &str) {
    let graph = op.graph().clone();
    let mut g = graph.write();
    let node = Arc::make_mut(&mut g.nodes[op.id()]);
    node.attrs.insert("_class".to_string(), AttrValue::colocation(target));
}

/// `op_name(x, c)` with the constant `c` named `op_name/x` inside its scope (TensorFlow's
/// `1.0 - t`, `1.0 + t`: the Python number becomes `sub/x`, `add/x`).
fn with_const(s: &Scope, default: &str, c: f32, f: impl FnOnce(&Scope, &Output) -> Result<Output>) -> Result<Output> {
    let (op, inner) = s.op_scope(default);
    let x = ops::constant(&inner.named("x"), Tensor::scalar(c))?;
    f(&op, &x)
}

impl ExponentialMovingAverage {
    /// An average with `decay` (TensorFlow recommends values close to 1: 0.999, 0.9999),
    /// no step, zero-debiasing off, name `ExponentialMovingAverage`.
    pub fn new(decay: f64) -> ExponentialMovingAverage {
        ExponentialMovingAverage {
            decay,
            num_updates: None,
            zero_debias: false,
            name: "ExponentialMovingAverage".to_string(),
            averages: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// `num_updates`: a step tensor (the global step, see
    /// [`get_or_create_global_step`](super::get_or_create_global_step)) that lowers the
    /// decay early in training to `min(decay, (1 + n) / (10 + n))`. Cast to float32
    /// (`ExponentialMovingAverage/num_updates`).
    pub fn num_updates(mut self, step: &Output) -> ExponentialMovingAverage {
        self.num_updates = Some(step.clone());
        self
    }

    /// `zero_debias` (default false). See the type's documentation: it has no effect on
    /// variables, which are all `apply` takes.
    pub fn zero_debias(mut self, on: bool) -> ExponentialMovingAverage {
        self.zero_debias = on;
        self
    }

    /// `name` (default `ExponentialMovingAverage`): the name scope of the update ops and the
    /// suffix of the shadow variables' names.
    pub fn name(mut self, name: &str) -> ExponentialMovingAverage {
        self.name = name.to_string();
        self
    }

    /// The decay given to [`ExponentialMovingAverage::new`].
    pub fn decay(&self) -> f64 {
        self.decay
    }

    /// `ema.apply(var_list)`: creates the shadow variables of the variables not averaged yet
    /// (adding the variables to collection `moving_average_variables`) and returns the op
    /// updating the averages of all of `vars` (see the type's documentation). Run it after
    /// each train step (for example as a control dependency of the train op).
    ///
    /// Errors: `InvalidArgument` for an empty list, variables of two graphs, or a variable
    /// that is not float16, bfloat16, float32 or float64 ("The variables must be half,
    /// float, or double", naming it).
    pub fn apply(&self, vars: &[Variable]) -> Result<Operation> {
        let Some(first) = vars.first() else {
            return Err(Error::invalid_argument("ExponentialMovingAverage::apply got no variables"));
        };
        let graph = first.op().graph().clone();
        for v in vars {
            if !v.op().graph().same(&graph) {
                return Err(Error::invalid_argument(format!(
                    "ExponentialMovingAverage::apply: {} is from another graph than {}",
                    v.op_name(),
                    first.op_name()
                )));
            }
            if !matches!(v.dtype(), DType::Half | DType::BFloat16 | DType::Float | DType::Double) {
                return Err(Error::invalid_argument(format!(
                    "The variables must be half, float, or double: {} is {}",
                    v.name(),
                    v.dtype()
                )));
            }
        }
        let mut pairs = Vec::with_capacity(vars.len());
        for v in vars {
            pairs.push((v.clone(), self.shadow_of(&graph, v)?));
        }
        let scope = graph.scope().name_scope(&self.name);
        let mut decay = ops::constant(&scope.named("decay"), Tensor::scalar(self.decay as f32))?;
        if let Some(n) = &self.num_updates {
            let n = if n.dtype() == DType::Float {
                n.clone()
            } else {
                ops::cast(&scope.named("num_updates"), n, DType::Float)?
            };
            let num = with_const(&scope, "add", 1.0, |op, x| ops::add(op, x, &n))?;
            let den = with_const(&scope, "add", 10.0, |op, x| ops::add(op, x, &n))?;
            let ratio = ops::div(&scope, &num, &den)?;
            decay = ops::minimum(&scope.named("Minimum"), &decay, &ratio)?;
        }
        let mut updates = Vec::with_capacity(pairs.len());
        for (var, avg) in &pairs {
            updates.push(assign_moving_average(&scope, avg, var, &decay)?);
        }
        let refs: Vec<&Operation> = updates.iter().collect();
        ops::group(&scope.named(&format!("{}/", scope.prefix())), &refs)
    }

    /// The shadow of `v`, created the first time.
    fn shadow_of(&self, graph: &Graph, v: &Variable) -> Result<Variable> {
        let mut averages = self.averages.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, avg)) = averages.iter().find(|(x, _)| x == v) {
            return Ok(avg.clone());
        }
        let opts = VariableOptions {
            trainable: false,
            collections: vec![GLOBAL_VARIABLES.to_string()],
            use_resource: v.is_resource(),
        };
        let initial = v.initial_value().clone();
        let avg = graph.scope().variable_with(&format!("{}/{}", v.op_name(), self.name), opts, |_| Ok(initial))?;
        let target = v.op_name();
        for op in [avg.op().clone(), avg.initializer().clone(), avg.value().op()] {
            colocate(&op, &target);
        }
        graph.register_variable(&avg, "ExponentialMovingAverage::apply");
        graph.add_collection_item(MOVING_AVERAGE_VARIABLES, CollectionItem::Variable(v.record()));
        averages.push((v.clone(), avg.clone()));
        Ok(avg)
    }

    /// The shadow variable of `var` (`ema.average(var)`).
    ///
    /// Errors: `NotFound` naming `var` (and the variables that are averaged) when `apply`
    /// was never called with it (TensorFlow returns `None`).
    pub fn average(&self, var: &Variable) -> Result<Variable> {
        let averages = self.averages.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, avg)) = averages.iter().find(|(x, _)| x == var) {
            return Ok(avg.clone());
        }
        let names: Vec<String> = averages.iter().map(|(v, _)| v.op_name()).collect();
        Err(Error::not_found(format!(
            "variable {} has no moving average: ExponentialMovingAverage::apply was never called with it (averaged: {})",
            var.op_name(),
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )))
    }

    /// The name of `var`'s shadow variable, `<var>/ExponentialMovingAverage`
    /// (`ema.average_name(var)`): the shadow's name when `var` is averaged, else the name
    /// `apply` would give it (the checkpoint name [`ExponentialMovingAverage::variables_to_restore`]
    /// uses).
    pub fn average_name(&self, var: &Variable) -> String {
        match self.average(var) {
            Ok(avg) => avg.op_name(),
            Err(_) => format!("{}/{}", var.op_name(), self.name),
        }
    }

    /// `ema.variables_to_restore(moving_avg_variables)`: a name map for
    /// [`Saver::with_name_map`](super::Saver::with_name_map) that restores the moving
    /// averages into the variables themselves (the "evaluate with the averaged weights"
    /// recipe): each of `moving_avg_variables` (default: the trainable variables and those
    /// in `moving_average_variables`) under [`ExponentialMovingAverage::average_name`], every
    /// other global variable under its own name (the shadows, already mapped, excepted).
    ///
    /// A variable the checkpoint holds no average of (it was never averaged in the saved
    /// model) makes `Saver::restore` fail naming it and saying so; give
    /// `moving_avg_variables` without it to restore it under its own name.
    pub fn variables_to_restore(
        &self,
        graph: &Graph,
        moving_avg_variables: Option<&[Variable]>,
    ) -> BTreeMap<String, Variable> {
        let averaged: Vec<Variable> = match moving_avg_variables {
            Some(v) => v.to_vec(),
            None => {
                let mut v = graph.variables_in(TRAINABLE_VARIABLES);
                for x in graph.variables_in(MOVING_AVERAGE_VARIABLES) {
                    if !v.contains(&x) {
                        v.push(x);
                    }
                }
                v
            }
        };
        let mut map = BTreeMap::new();
        for v in &averaged {
            map.insert(self.average_name(v), v.clone());
        }
        for v in graph.global_variables() {
            if !averaged.contains(&v) && !map.contains_key(&v.op_name()) {
                map.insert(v.op_name(), v);
            }
        }
        map
    }
}

/// TensorFlow's `assign_moving_average(avg, var, decay, zero_debias=False)` in a new name
/// scope `AssignMovingAvg` under `scope`: `avg -= (avg - var) * (1 - decay)`.
fn assign_moving_average(scope: &Scope, avg: &Variable, var: &Variable, decay: &Output) -> Result<Operation> {
    let s = scope.name_scope("AssignMovingAvg");
    let mut one_minus = with_const(&s, "sub", 1.0, |op, x| ops::sub(op, x, decay))?;
    if var.dtype() != DType::Float {
        one_minus = ops::cast(&s.named("Cast"), &one_minus, var.dtype())?;
    }
    if var.is_resource() {
        let a = ops::read_variable_op(&s, &avg.reference())?;
        let b = ops::read_variable_op(&s, &var.reference())?;
        let diff = ops::sub(&s, &a, &b)?;
        let delta = ops::mul(&s, &diff, &one_minus)?;
        return ops::assign_sub_variable_op(&s, &avg.reference(), &delta);
    }
    let diff = ops::sub(&s, avg.value(), var.value())?;
    let delta = ops::mul(&s, &diff, &one_minus)?;
    let op = ops::assign_sub(&s.named(&format!("{}/", s.prefix())), &avg.reference(), &delta)?.op();
    colocate(&op, &var.op_name());
    Ok(op)
}
