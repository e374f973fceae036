//! A variable as the graph holds it: the ids of its ops ([`VariableRecord`], kept in
//! collections and in the variable store behind `get_variable`) and the [`Variable`]
//! handle over them. The builders that make a variable's ops (`Scope::variable`,
//! `get_variable`, `Variable::assign`, ...) are in the ops layer (`ops/variables.rs`).

use super::graph::StoredVariable;
use super::{Graph, Operation, Output};
use crate::tensor::DType;

/// The ids that make up a variable, as kept in collections and the variable store
/// (TensorFlow's `VariableDef`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VariableRecord {
    /// The `VariableV2` op (reference variable) or `VarHandleOp` op (resource variable).
    pub var_op: usize,
    /// The `v/read` (resource: `v/Read/ReadVariableOp`) snapshot (op id, output index).
    pub snapshot: (usize, usize),
    /// The `v/Assign` initializer op.
    pub initializer: usize,
    /// The initial value tensor.
    pub initial_value: (usize, usize),
    /// Whether the variable is in `trainable_variables`.
    pub trainable: bool,
}

/// A variable (`tf.Variable`): a reference variable (`VariableV2`, TF1's default) or a
/// resource variable (`VarHandleOp`, TF2's `ResourceVariable`; see
/// `VariableOptions::use_resource`).
///
/// As in TensorFlow, the variable's own accessors describe the variable: [`Variable::name`]
/// is `ws/w:0` (`v.name`), [`Variable::op`] its `VariableV2` op `ws/w` (`v.op`), and it
/// displays as its name. Like TensorFlow's conversion of a variable to a tensor, it derefs to
/// its value, the `ws/w/read:0` snapshot ([`Variable::value`]; resource variables:
/// `ws/w/Read/ReadVariableOp:0`), so it can be passed wherever an [`Output`] is expected.
/// [`Variable::read`] makes a fresh read instead, as TensorFlow does for each use of a
/// resource variable; an op built under control dependencies does so by itself for a
/// resource variable's snapshot (see [`Variable::value`]).
#[derive(Clone, Debug)]
pub struct Variable {
    pub(crate) value: Output,
    pub(crate) var_op: Operation,
    pub(crate) initializer: Operation,
    pub(crate) initial_value: Output,
    pub(crate) trainable: bool,
    pub(crate) resource: bool,
}

impl std::ops::Deref for Variable {
    type Target = Output;
    fn deref(&self) -> &Output {
        &self.value
    }
}

impl std::fmt::Display for Variable {
    /// The variable's name, `ws/w:0` (TensorFlow's `v.name`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl PartialEq for Variable {
    fn eq(&self, o: &Self) -> bool {
        self.var_op == o.var_op
    }
}

impl Variable {
    pub(crate) fn from_record(g: &Graph, r: &VariableRecord) -> Variable {
        Variable {
            value: Output { graph: g.clone(), op: r.snapshot.0, index: r.snapshot.1 },
            var_op: Operation { graph: g.clone(), id: r.var_op },
            initializer: Operation { graph: g.clone(), id: r.initializer },
            initial_value: Output { graph: g.clone(), op: r.initial_value.0, index: r.initial_value.1 },
            trainable: r.trainable,
            resource: g.with_node(r.var_op, |n| n.op_type == "VarHandleOp"),
        }
    }
    /// The record stored in collections.
    pub(crate) fn record(&self) -> VariableRecord {
        VariableRecord {
            var_op: self.var_op.id,
            snapshot: self.value.key(),
            initializer: self.initializer.id,
            initial_value: self.initial_value.key(),
            trainable: self.trainable,
        }
    }
    /// The variable's name, `ws/w:0` (TensorFlow's `v.name`): the name of its output `v:0`
    /// ([`Variable::reference`]). Not the name of the value it derefs to (`ws/w/read:0`).
    pub fn name(&self) -> String {
        format!("{}:0", self.var_op.name())
    }
    /// The name of the variable's op, `ws/w` (TensorFlow's `v.op.name`): the name it is saved
    /// under in checkpoints ([`crate::train::Saver`]) and found under by `get_variable`.
    pub fn op_name(&self) -> String {
        self.var_op.name()
    }
    /// The variable's op (TensorFlow's `v.op`): `VariableV2` (its output `v:0` is the
    /// reference), or for a resource variable `VarHandleOp` (its output `v:0` is the handle).
    /// This is the op of [`Variable::reference`]; the op of the value the variable derefs to
    /// is `v.value().op()` (`v/read`).
    pub fn op(&self) -> &Operation {
        &self.var_op
    }
    /// True for a resource variable (`VarHandleOp`), false for a reference variable (`VariableV2`).
    pub fn is_resource(&self) -> bool {
        self.resource
    }
    /// The variable's output `v:0`: the reference that `Assign` and the `Apply*` optimizer
    /// ops take, or for a resource variable the handle (dtype [`DType::Resource`]) that
    /// `ReadVariableOp`, `AssignVariableOp` and the `ResourceApply*` ops take. Gradients with
    /// respect to a resource variable are taken with respect to its handle (they sum over
    /// every read).
    pub fn reference(&self) -> Output {
        Output { graph: self.var_op.graph.clone(), op: self.var_op.id, index: 0 }
    }
    /// The value snapshot `v/read:0` (resource variables: `v/Read/ReadVariableOp:0`), made
    /// once with the variable. For a reference variable it aliases the variable's buffer, so
    /// an op ordered after an update (by control dependencies) sees the new value; a fetch of
    /// `v/read:0` itself returns the value read when it ran, where TensorFlow returns the
    /// buffer as the run's later in-place updates left it. A resource variable's snapshot is a
    /// read of its own; so that `after = identity(v)` built under
    /// `control_dependencies([bump])` sees the update as in TensorFlow (which makes a fresh
    /// `ReadVariableOp` for each use of a resource variable), an op built in a scope with
    /// control dependencies that takes this snapshot as an input gets a fresh
    /// `<op>/ReadVariableOp` made under those dependencies instead. For a read before an
    /// update, make one with [`Variable::read`] outside the dependencies and pass that.
    pub fn value(&self) -> &Output {
        &self.value
    }
    /// The `v/Assign` op (`Assign`, or `AssignVariableOp` for a resource variable) that sets
    /// the initial value.
    pub fn initializer(&self) -> &Operation {
        &self.initializer
    }
    /// The initial value tensor.
    pub fn initial_value(&self) -> &Output {
        &self.initial_value
    }
    /// Whether the variable is trainable.
    pub fn trainable(&self) -> bool {
        self.trainable
    }
    /// Element dtype.
    pub fn dtype(&self) -> DType {
        self.value.dtype()
    }
    /// The variable's (fully defined) shape.
    pub fn shape(&self) -> Vec<usize> {
        self.value.shape().to_vec().unwrap_or_default()
    }
}

impl Graph {
    /// Registers an existing variable in the variable store under its name, so that
    /// `get_variable` finds it (used for variables that arrive with an imported meta graph).
    pub(crate) fn register_variable(&self, v: &Variable, origin: &str) {
        let name = v.op_name(); // takes the graph's read lock: not while holding the write lock
        self.write().var_store.insert(name, StoredVariable { record: v.record(), created_at: origin.to_string() });
    }
}

/// The variable whose value snapshot output `(op, index)` of `nodes` is, as a [`Variable`]
/// makes it: an `Identity` named `<v>/read` of reference variable `v` (`VariableV2`,
/// `Variable`), or a `ReadVariableOp` named `<v>/Read/ReadVariableOp` of resource variable
/// `v` (`VarHandleOp`); returns `v`'s node id. `None` for any other output.
pub(crate) fn snapshot_variable(nodes: &[std::sync::Arc<super::Node>], (op, index): (usize, usize)) -> Option<usize> {
    let n = &nodes[op];
    let &(v, 0) = n.inputs.first()? else { return None };
    let var = &nodes[v];
    let suffix = match (n.op_type, var.op_type) {
        ("Identity", "VariableV2" | "Variable") => "/read",
        ("ReadVariableOp", "VarHandleOp") => "/Read/ReadVariableOp",
        _ => return None,
    };
    (index == 0 && n.name.strip_suffix(suffix) == Some(var.name.as_str())).then_some(v)
}
