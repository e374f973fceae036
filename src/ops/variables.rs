//! Variables' ops: TensorFlow's reference-variable subgraph (`VariableV2` op `v`,
//! `v/Assign`, `v/read`), its resource-variable subgraph (`VarHandleOp` op `v`,
//! `v/IsInitialized/VarIsInitializedOp`, `v/Assign`, `v/Read/ReadVariableOp`; chosen with
//! [`VariableOptions::use_resource`]), `get_variable` over the graph's variable store, and
//! reads and assignments of a [`Variable`].

use crate::error::{Error, Result};
use crate::graph::collections::{GLOBAL_VARIABLES, TRAINABLE_VARIABLES};
use crate::graph::{CollectionItem, Operation, Output, Reuse, Scope, Variable};
use crate::init::Initializer;
use crate::tensor::{DType, Shape, Tensor};

impl Variable {
    /// `v.read_value()`: a new read of the variable made in scope `s`, so it honours that
    /// scope's control dependencies (the snapshot does not: like TensorFlow, it may be
    /// computed before them). A reference variable gets an `Identity` (default name
    /// `read`) of the reference; a resource variable, as TensorFlow's
    /// `ResourceVariable.read_value()`, `Read/ReadVariableOp` and an `Identity`.
    pub fn read_value(&self, s: &Scope) -> Result<Output> {
        if self.resource {
            let r = crate::ops::read_variable_op(&s.name_scope("Read"), &self.reference())?;
            return s.op("Identity", "Identity").input(&r).attr("T", self.dtype()).build_output();
        }
        s.op("Identity", "read").input(&self.reference()).attr("T", self.dtype()).build_output()
    }

    /// A fresh read of the variable in scope `s`: for a resource variable a `ReadVariableOp`
    /// (default name `ReadVariableOp`), what TensorFlow adds for each use of one (`v1 + v2`
    /// makes `ReadVariableOp` and `add/ReadVariableOp`); for a reference variable as
    /// [`Variable::read_value`].
    pub fn read(&self, s: &Scope) -> Result<Output> {
        if self.resource {
            return crate::ops::read_variable_op(s, &self.reference());
        }
        self.read_value(s)
    }

    /// `v.assign(value)`: an `Assign` op in scope `s`; returns its output (the new value).
    /// For a resource variable an `AssignVariableOp`, and the new value is a
    /// `ReadVariableOp` run after it.
    pub fn assign(&self, s: &Scope, value: &Output) -> Result<Output> {
        crate::ops::ref_variable::assign(s, &self.reference(), value)
    }
    /// The op of `v.assign(value)` itself, as `tf.group` sees it: the `Assign` (default name
    /// `Assign`), or for a resource variable the `AssignVariableOp` (default name
    /// `AssignVariableOp`) with no read after it.
    pub fn assign_op(&self, s: &Scope, value: &Output) -> Result<Operation> {
        if self.resource {
            return crate::ops::assign_variable_op(s, &self.reference(), value);
        }
        Ok(crate::ops::ref_variable::assign(s, &self.reference(), value)?.op())
    }
    /// `v.assign_add(delta)`: an `AssignAdd` op (resource: `AssignAddVariableOp` and a read).
    pub fn assign_add(&self, s: &Scope, delta: &Output) -> Result<Output> {
        crate::ops::ref_variable::assign_add(s, &self.reference(), delta)
    }
    /// `v.assign_sub(delta)`: an `AssignSub` op (resource: `AssignSubVariableOp` and a read).
    pub fn assign_sub(&self, s: &Scope, delta: &Output) -> Result<Output> {
        crate::ops::ref_variable::assign_sub(s, &self.reference(), delta)
    }
}

/// Options of [`Scope::variable`] and [`Scope::get_variable_with`].
#[derive(Debug, Clone)]
pub struct VariableOptions {
    /// Added to `trainable_variables` when true (the default).
    pub trainable: bool,
    /// Collections to add the variable to (default: `variables`).
    pub collections: Vec<String>,
    /// Makes a resource variable (`use_resource=True`, TensorFlow's `ResourceVariable`):
    /// ops `v` (`VarHandleOp`), `v/IsInitialized/VarIsInitializedOp`, `v/Assign`
    /// (`AssignVariableOp`) and `v/Read/ReadVariableOp`, instead of a reference variable's
    /// `v` (`VariableV2`), `v/Assign` and `v/read`. Default false (TF1's default).
    pub use_resource: bool,
}

impl Default for VariableOptions {
    fn default() -> Self {
        VariableOptions { trainable: true, collections: vec![GLOBAL_VARIABLES.to_string()], use_resource: false }
    }
}

impl VariableOptions {
    /// The default options with [`VariableOptions::use_resource`] set: a trainable resource
    /// variable in `variables`.
    pub fn resource() -> Self {
        VariableOptions { use_resource: true, ..Default::default() }
    }
}

impl Scope {
    /// Creates a variable named `name` (uniquified: a second `v1` becomes `v1_1`) whose
    /// initial value is `initial_value`, as `tf.Variable(initial_value, name=name)`: ops
    /// `v1` (VariableV2), `v1/Assign`, `v1/read`. Added to `variables` and
    /// `trainable_variables`. Errors: `InvalidArgument` when the initial value's shape is
    /// not fully known.
    pub fn variable(&self, name: &str, initial_value: &Output) -> Result<Variable> {
        self.variable_with(name, VariableOptions::default(), |_| Ok(initial_value.clone()))
    }

    /// `tf.Variable(value, name=name)` from a tensor value: the initial value is a `Const`
    /// named `<name>/initial_value`.
    pub fn variable_from_value(&self, name: &str, value: Tensor) -> Result<Variable> {
        self.variable_with(name, VariableOptions::default(), |vs| {
            crate::ops::constant(&vs.named("initial_value"), value)
        })
    }

    /// As [`Scope::variable`], with options, the initial value built by `make_initial`
    /// inside the variable's name scope (ops `name/...`).
    pub fn variable_with(
        &self,
        name: &str,
        opts: VariableOptions,
        make_initial: impl FnOnce(&Scope) -> Result<Output>,
    ) -> Result<Variable> {
        let vs = self.name_scope(name);
        let initial_value = make_initial(&vs)?;
        let shape = initial_value.shape();
        let Some(dims) = shape.to_vec() else {
            return Err(Error::invalid_argument(format!(
                "initial value of variable '{}' has shape {shape}, which is not fully defined",
                vs.prefix()
            )));
        };
        let dtype = initial_value.dtype();
        let full = vs.prefix().to_string();
        let v = if opts.use_resource || self.var_scope().use_resource {
            build_resource_variable(&vs, &full, &dims, dtype, initial_value, opts.trainable)?
        } else {
            build_ref_variable(&vs, &full, &dims, dtype, initial_value, opts.trainable)?
        };
        let g = self.graph();
        for c in &opts.collections {
            g.add_collection_item(c, CollectionItem::Variable(v.record()));
        }
        if opts.trainable {
            g.add_collection_item(TRAINABLE_VARIABLES, CollectionItem::Variable(v.record()));
        }
        Ok(v)
    }

    /// `tf.get_variable(name, shape, dtype, initializer)` in this variable scope, trainable.
    /// With no initializer, float variables use Glorot uniform and others zeros.
    ///
    /// Errors (TensorFlow's messages, plus what to do): `AlreadyExists` when the variable
    /// exists and reuse is off ("Variable weight_def/weights already exists, disallowed. Did
    /// you mean to set reuse=True or reuse=AUTO_REUSE in VarScope?", with where it was made);
    /// `NotFound` when reuse is on and it does not exist; `InvalidArgument` when an existing
    /// variable has another shape or dtype.
    #[track_caller]
    pub fn get_variable(
        &self,
        name: &str,
        shape: impl Into<Shape>,
        dtype: DType,
        initializer: impl Into<Option<Initializer>>,
    ) -> Result<Variable> {
        self.get_variable_with(name, shape, dtype, initializer, VariableOptions::default())
    }

    /// [`Scope::get_variable`] with options (trainable, collections).
    #[track_caller]
    pub fn get_variable_with(
        &self,
        name: &str,
        shape: impl Into<Shape>,
        dtype: DType,
        initializer: impl Into<Option<Initializer>>,
        opts: VariableOptions,
    ) -> Result<Variable> {
        let caller = std::panic::Location::caller();
        let shape: Shape = shape.into();
        let full = self.join_var(name);
        let reuse = self.var_scope().reuse;
        let existing = self.graph().read().var_store.get(&full).cloned();
        if let Some(found) = existing {
            if reuse == Reuse::No || reuse == Reuse::Inherit {
                return Err(Error::already_exists(format!(
                    "Variable {full} already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n  {}\n\nBuild the model once (for example in new()) and reuse it, or build it again in a new Graph.",
                    found.created_at
                )));
            }
            let v = Variable::from_record(self.graph(), &found.record);
            let found_shape = Shape::known(&v.shape());
            if shape.rank().is_some() && !shape.compatible(&found_shape) {
                return Err(Error::invalid_argument(format!(
                    "Trying to share variable {full}, but specified shape {} and found shape {}.",
                    py_tuple(&shape),
                    py_tuple(&found_shape)
                )));
            }
            if v.dtype() != dtype {
                return Err(Error::invalid_argument(format!(
                    "Trying to share variable {full}, but specified dtype {dtype} and found dtype {}.",
                    v.dtype()
                )));
            }
            return Ok(v);
        }
        if reuse == Reuse::Yes {
            return Err(Error::not_found(format!(
                "Variable {full} does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )));
        }
        let Some(dims) = shape.to_vec() else {
            return Err(Error::invalid_argument(format!(
                "Shape of a new variable ({full}) must be fully defined, but instead was {shape}."
            )));
        };
        let init = match initializer.into() {
            Some(init) => init,
            None if matches!(dtype, DType::Complex64 | DType::Complex128) => {
                return Err(Error::invalid_argument(format!(
                    "An initializer for variable {full} of {dtype} is required: give Initializer::Value or Zeros"
                )))
            }
            None => Initializer::default_for(dtype),
        };
        // get_variable builds outside the current name scope, under the variable's full name
        let root = self.graph().scope();
        let opts = VariableOptions { use_resource: opts.use_resource || self.var_scope().use_resource, ..opts };
        let v = root.variable_with(&full, opts, |vs| {
            init.build(&vs.name_scope("Initializer"), &dims, dtype)
                .map_err(|e| e.context(format!("initial value of variable {full} ({dtype} {shape})")))
        })?;
        self.graph().register_variable(&v, &format!("{}:{}", caller.file(), caller.line()));
        Ok(v)
    }
}

/// A shape as Python prints a tuple: `(3,)`, `(4, 3)`, `()`.
fn py_tuple(s: &Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.map_or("None".to_string(), |v| v.to_string())).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}

impl Scope {
    /// `tf.global_variables_initializer()`: a `NoOp` (default name `init`) whose control
    /// inputs are the initializers of every variable in collection `variables`.
    pub fn global_variables_initializer(&self) -> Result<Operation> {
        let vars = self.graph().global_variables();
        let inits: Vec<&Operation> = vars.iter().map(|v| v.initializer()).collect();
        self.with_control_dependencies(&inits).op("NoOp", "init").build()
    }
}

/// `v` (`VariableV2`), `v/Assign`, `v/read` in name scope `vs` (`full` without the `/`).
fn build_ref_variable(
    vs: &Scope,
    full: &str,
    dims: &[usize],
    dtype: DType,
    initial_value: Output,
    trainable: bool,
) -> Result<Variable> {
    let var_op = vs
        .named(&format!("{full}/"))
        .op("VariableV2", "VariableV2")
        .attr("shape", Shape::known(dims))
        .attr("dtype", dtype)
        .attr("container", "")
        .attr("shared_name", "")
        .build()?;
    let reference = var_op.output(0)?;
    let colocate = crate::graph::AttrValue::colocation(full);
    let assign = vs
        .named("Assign")
        .op("Assign", "Assign")
        .input(&reference)
        .input(&initial_value)
        .attr("T", dtype)
        .attr("_class", colocate.clone())
        .attr("use_locking", true)
        .attr("validate_shape", true)
        .build_output()?;
    let read = vs
        .named("read")
        .op("Identity", "Identity")
        .input(&reference)
        .attr("T", dtype)
        .attr("_class", colocate)
        .build_output()?;
    let v = Variable { value: read, var_op, initializer: assign.op(), initial_value, trainable, resource: false };
    Ok(v)
}

/// TensorFlow's `ResourceVariable` subgraph in name scope `vs` (`full` without the `/`):
/// `v` (`VarHandleOp`), `v/IsInitialized/VarIsInitializedOp`, `v/Assign`
/// (`AssignVariableOp`), `v/Read/ReadVariableOp`, with TensorFlow's attrs.
fn build_resource_variable(
    vs: &Scope,
    full: &str,
    dims: &[usize],
    dtype: DType,
    initial_value: Output,
    trainable: bool,
) -> Result<Variable> {
    let colocate = crate::graph::AttrValue::colocation(full);
    let var_op = vs
        .named(&format!("{full}/"))
        .op("VarHandleOp", "VarHandleOp")
        .attr("_class", colocate)
        .attr("allowed_devices", crate::graph::AttrValue::ListString(Vec::new()))
        .attr("container", "")
        .attr("debug_name", format!("{full}/").as_str())
        .attr("dtype", dtype)
        .attr("shape", Shape::known(dims))
        .attr("shared_name", full)
        .build()?;
    let handle = var_op.output(0)?;
    crate::ops::var_is_initialized_op(&vs.name_scope("IsInitialized"), &handle)?;
    let assign = crate::ops::assign_variable_op(&vs.named(&format!("{full}/Assign/")), &handle, &initial_value)?;
    let read = crate::ops::read_variable_op(&vs.name_scope("Read"), &handle)?;
    Ok(Variable { value: read, var_op, initializer: assign, initial_value, trainable, resource: true })
}
