//! `Scope`: a cheap value holding a graph, a name-scope prefix, the variable-scope
//! settings and control dependencies (like TensorFlow's C++ `Scope`). Ops are added
//! through a scope with [`Scope::op`].

use super::{AttrValue, Attrs, Graph, Node, Operation, Output};
use crate::error::{Error, Result};

/// Whether `get_variable` creates or reuses variables (TensorFlow's `reuse` argument of
/// `tf.variable_scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reuse {
    /// Take the enclosing variable scope's setting (TensorFlow's `reuse=None`).
    #[default]
    Inherit,
    /// Create new variables; an existing name is `AlreadyExists`. As in TensorFlow,
    /// a scope nested in a reusing scope still reuses (`reuse=False` cannot switch it off).
    No,
    /// Reuse existing variables; a missing name is `NotFound` (`reuse=True`).
    Yes,
    /// Reuse when the variable exists, create it otherwise (`reuse=tf.AUTO_REUSE`).
    Auto,
}

/// The variable scope part of a [`Scope`]: its name (`weight_def`) and reuse setting.
#[derive(Debug, Clone, Default)]
pub struct VarScope {
    /// Full variable-scope name without trailing `/` (`""` at the root).
    pub name: String,
    /// The effective reuse setting (never `Inherit`).
    pub reuse: Reuse,
    /// Variables made in this scope are resource variables (`tf.variable_scope(...,
    /// use_resource=True)`); inherited by nested scopes.
    pub use_resource: bool,
}

/// A handle for adding ops to a graph under a name prefix, control dependencies and a
/// variable scope. Mirrors `tf.name_scope`, `tf.variable_scope` and
/// `tf.control_dependencies`, as values instead of global state.
#[derive(Clone)]
pub struct Scope {
    pub(crate) graph: Graph,
    prefix: String,
    op_name: Option<String>,
    pub(crate) control_deps: Vec<usize>,
    var_scope: VarScope,
    pub(crate) device: String,
}

impl Scope {
    pub(crate) fn root(graph: Graph) -> Scope {
        Scope {
            graph,
            prefix: String::new(),
            op_name: None,
            control_deps: Vec::new(),
            var_scope: VarScope { name: String::new(), reuse: Reuse::No, use_resource: false },
            device: String::new(),
        }
    }

    /// The graph ops are added to.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The name-scope prefix without trailing `/` (`""` at the root, `layer1`, `layer1_1`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The variable scope.
    pub fn var_scope(&self) -> &VarScope {
        &self.var_scope
    }

    /// A scope whose next op is named `name` (uniquified as TensorFlow does: a
    /// colliding `x` becomes `x_1`). A name ending in `/` is taken exactly, without the `/`.
    pub fn named(&self, name: &str) -> Scope {
        let mut s = self.clone();
        s.op_name = Some(name.to_string());
        s
    }

    /// A nested name scope (`tf.name_scope(name)`): `layer1/`, and `layer1_1/` when
    /// `layer1` is already used. A name ending in `/` re-enters that exact scope.
    pub fn name_scope(&self, name: &str) -> Scope {
        let mut s = self.clone();
        s.op_name = None;
        s.prefix = if let Some(exact) = name.strip_suffix('/') {
            exact.to_string()
        } else if name.is_empty() {
            self.prefix.clone()
        } else {
            self.graph.write().names.unique(&self.join(name))
        };
        s
    }

    /// Short for [`Scope::name_scope`].
    pub fn sub(&self, name: &str) -> Scope {
        self.name_scope(name)
    }

    /// A scope whose ops run after `ops` (`tf.control_dependencies`).
    pub fn with_control_dependencies(&self, ops: &[&Operation]) -> Scope {
        let mut s = self.clone();
        s.control_deps.extend(ops.iter().map(|o| o.id));
        s
    }

    /// A scope for the given device string (kept for export; tensorgraph runs on the CPU).
    pub fn with_device(&self, device: &str) -> Scope {
        let mut s = self.clone();
        s.device = device.to_string();
        s
    }

    /// A variable scope (`tf.variable_scope(name, reuse=...)`) as a value: variables are
    /// named `<outer var scope>/<name>/...`, ops go in a fresh name scope (`name`, then
    /// `name_1` when reopened).
    pub fn variable_scope_value(&self, name: &str, reuse: Reuse) -> Scope {
        let mut s = self.name_scope(name);
        s.var_scope.name = self.join_var(name);
        s.var_scope.reuse = match reuse {
            Reuse::Yes | Reuse::Auto => reuse,
            Reuse::No | Reuse::Inherit => self.var_scope.reuse,
        };
        s
    }

    /// Runs `f` inside a variable scope (see [`Scope::variable_scope_value`]) and returns its result.
    pub fn variable_scope<R>(&self, name: &str, reuse: Reuse, f: impl FnOnce(&mut Scope) -> Result<R>) -> Result<R> {
        let mut s = self.variable_scope_value(name, reuse);
        f(&mut s)
    }

    /// This scope, making resource variables (`VarHandleOp`, TensorFlow 2's default) when
    /// `on`, reference variables (`VariableV2`) when not: `tf.variable_scope(...,
    /// use_resource=on)`. Applies to [`Scope::get_variable`] and [`Scope::variable`] here
    /// and in nested scopes; [`VariableOptions::resource`](crate::ops::VariableOptions::resource)
    /// asks for a resource variable anywhere.
    pub fn with_resource_variables(&self, on: bool) -> Scope {
        let mut s = self.clone();
        s.var_scope.use_resource = on;
        s
    }

    /// Sets reuse on for the rest of this scope (`scope.reuse_variables()`).
    pub fn reuse_variables(&mut self) {
        self.var_scope.reuse = Reuse::Yes;
    }

    pub(crate) fn join(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.prefix)
        }
    }

    pub(crate) fn join_var(&self, name: &str) -> String {
        if self.var_scope.name.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.var_scope.name)
        }
    }

    /// The full name the next op would get when its default name is `default`,
    /// and marks it used.
    pub(crate) fn unique_op_name(&self, default: &str) -> String {
        let requested = self.op_name.as_deref().filter(|n| !n.is_empty()).unwrap_or(default);
        if let Some(exact) = requested.strip_suffix('/') {
            return exact.to_string();
        }
        self.graph.write().names.unique(&self.join(requested))
    }

    /// Names an op that owns helper ops (`ArgMax` and its `ArgMax/dimension`), as
    /// TensorFlow's `name_scope(name, default)` does: the op's unique name is taken first,
    /// then returned are a scope that gives the op exactly that name and the name scope
    /// its helper ops go in.
    pub fn op_scope(&self, default_name: &str) -> (Scope, Scope) {
        let name = self.unique_op_name(default_name);
        (self.named(&format!("{name}/")), self.name_scope(&format!("{name}/")))
    }

    /// Starts building an op of TensorFlow type `op_type` whose default name is `default_name`.
    pub fn op(&self, op_type: &str, default_name: &str) -> OpBuilder<'_> {
        OpBuilder {
            scope: self,
            op_type: op_type.to_string(),
            default_name: default_name.to_string(),
            inputs: Vec::new(),
            control_inputs: Vec::new(),
            attrs: Attrs::new(),
        }
    }
}

/// Builds one op: inputs, attrs, then [`OpBuilder::build`] checks it against the op
/// registry, infers output dtypes and shapes, names it and adds it to the graph
/// (`build` is defined in the ops layer, `ops/builder.rs`, since it reads the registry).
pub struct OpBuilder<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) op_type: String,
    pub(crate) default_name: String,
    pub(crate) inputs: Vec<Output>,
    pub(crate) control_inputs: Vec<Operation>,
    pub(crate) attrs: Attrs,
}

impl OpBuilder<'_> {
    /// Adds a data input.
    pub fn input(mut self, o: &Output) -> Self {
        self.inputs.push(o.clone());
        self
    }
    /// Adds several data inputs.
    pub fn inputs(mut self, os: &[Output]) -> Self {
        self.inputs.extend(os.iter().cloned());
        self
    }
    /// Adds a control input (`^name`).
    pub fn control_input(mut self, o: &Operation) -> Self {
        self.control_inputs.push(o.clone());
        self
    }
    /// Sets an attr.
    pub fn attr(mut self, name: &str, v: impl Into<AttrValue>) -> Self {
        self.attrs.insert(name.to_string(), v.into());
        self
    }
}

impl Graph {
    /// Appends a finished node, registering its name. Returns its handle.
    pub(crate) fn insert_node(&self, node: Node) -> Operation {
        let id = self.write().push_node(node);
        Operation { graph: self.clone(), id }
    }
}

/// Python TensorFlow's rule for an op or root scope name (`_VALID_OP_NAME_REGEX`,
/// `[A-Za-z0-9.][A-Za-z0-9_.\-/>]*`).
pub(crate) fn is_valid_op_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"_.-/>".contains(&b))
}

/// Checks a full op name against TensorFlow's rule ([`is_valid_op_name`]) with no empty
/// scope parts. Errors: `InvalidArgument` naming it.
pub(crate) fn check_op_name(name: &str) -> Result<()> {
    if !is_valid_op_name(name) || name.split('/').any(str::is_empty) {
        return Err(Error::invalid_argument(format!(
            "'{name}' is not a valid op name: names start with a letter, digit or '.', and contain only letters, digits and _ . - / >"
        )));
    }
    Ok(())
}
