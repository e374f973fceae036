//! [`OpBuilder::build`]: an op checked against the op registry and TensorFlow's schema
//! (attrs defaulted and validated), its outputs inferred, named and added to its graph.
//! The builder type is the graph layer's; building it needs the registry, so it is here.

use super::{lookup, schema, InferCtx};
use crate::error::{Error, Result};
use crate::graph::{check_op_name, snapshot_variable, Node, OpBuilder, Operation, Output, Scope};
use crate::tensor::Shape;

impl OpBuilder<'_> {
    /// Adds the op, with every attr its TensorFlow `OpDef` gives a default for that was
    /// not set ([`crate::ops::schema::add_default_attrs`]), as TensorFlow's Python op wrappers do.
    /// Errors: `Unimplemented` for an op type the registry lacks; `InvalidArgument` naming
    /// the op when inputs come from another graph, when its attrs do not fit the `OpDef`
    /// (an undeclared attr, a missing one without a default, a wrong kind or disallowed
    /// value; see [`crate::ops::schema::validate_attrs`]), or when the inputs' dtypes/shapes do
    /// not fit (with both shapes in the message), or when no kernel runs the op on its
    /// dtypes ([`crate::ops::RegisteredOp::check_kernel`]).
    /// `FailedPrecondition` naming the op when the graph is finalized ([`crate::Graph::finalize`]).
    pub fn build(self) -> Result<Operation> {
        let graph = self.scope.graph.clone();
        for i in &self.inputs {
            if !i.graph.same(&graph) {
                return Err(Error::invalid_argument(format!(
                    "input {} of a new {} op is from another graph",
                    i.name(),
                    self.op_type
                )));
            }
        }
        for c in &self.control_inputs {
            if !c.graph.same(&graph) {
                return Err(Error::invalid_argument(format!(
                    "control input {} of a new {} op is from another graph",
                    c.name(),
                    self.op_type
                )));
            }
        }
        let def = lookup(&self.op_type)?;
        schema::check_op_deprecation(def.op_type(), crate::format::proto::GRAPH_DEF_VERSION)?;
        let name = self.scope.unique_op_name(&self.default_name);
        if graph.is_finalized() {
            return Err(crate::graph::finalized_error(&format!("op '{name}' ({})", self.op_type)));
        }
        check_op_name(&name)?;
        let inputs = fresh_reads_under_control_deps(self.scope, &name, self.inputs)?;
        // every attr TensorFlow's Python would set: the given ones, then the defaults
        let mut attrs = self.attrs;
        schema::add_default_attrs(def.op_type(), &mut attrs);
        schema::validate_attrs(&name, def.op_type(), &attrs)?;
        let mut node = Node {
            name: name.clone(),
            op_type: def.op_type(),
            inputs: inputs.iter().map(|o| (o.op, o.index)).collect(),
            control_inputs: self
                .scope
                .control_deps
                .iter()
                .copied()
                .chain(self.control_inputs.iter().map(|c| c.id))
                .collect(),
            attrs,
            outputs: Vec::new(),
            device: self.scope.device.clone(),
        };
        node.control_inputs.dedup();
        schema::check_input_count(&name, def.op_type(), &node.attrs, node.inputs.len())?;
        {
            // inference reads constant inputs from the graph; it takes no lock itself
            let g = graph.read();
            let input_types: Vec<(crate::tensor::DType, Shape)> =
                inputs.iter().map(|o| g.nodes[o.op].outputs[o.index].clone()).collect();
            let ctx = InferCtx { nodes: &g.nodes, node: &node, inputs: &input_types };
            let outputs = def.infer(&ctx).map_err(|e| e.context(format!("op '{name}' ({})", self.op_type)))?;
            drop(g);
            node.outputs = outputs;
        }
        def.check_kernel(&node).map_err(|e| e.context(format!("op '{name}' ({})", self.op_type)))?;
        Ok(graph.insert_node(node))
    }

    /// Builds the op and returns its output 0.
    pub fn build_output(self) -> Result<Output> {
        self.build()?.output(0)
    }
}

/// The inputs of op `name`, where the scope has control dependencies, with each resource
/// variable's value snapshot (`v/Read/ReadVariableOp:0`, what a [`crate::Variable`] derefs to)
/// replaced by a fresh `name/ReadVariableOp` of its handle made in the same scope, so the read
/// runs after those dependencies. TensorFlow makes a fresh `ReadVariableOp` in the current
/// control-dependency context for every use of a resource variable as a tensor, so
/// `identity(v)` under `control_dependencies([v.assign_add(1)])` sees the new value; a
/// reference variable's `v/read` aliases the variable's buffer and needs no new read.
fn fresh_reads_under_control_deps(scope: &Scope, name: &str, inputs: Vec<Output>) -> Result<Vec<Output>> {
    if scope.control_deps.is_empty() {
        return Ok(inputs);
    }
    let handles: Vec<Option<usize>> = {
        let g = scope.graph.read();
        let handle = |o: &Output| snapshot_variable(&g.nodes, o.key()).filter(|&v| g.nodes[v].op_type == "VarHandleOp");
        inputs.iter().map(handle).collect()
    };
    if handles.iter().all(Option::is_none) {
        return Ok(inputs);
    }
    let read_scope = scope.name_scope(&format!("{name}/"));
    inputs
        .into_iter()
        .zip(handles)
        .map(|(input, handle)| match handle {
            Some(h) => super::read_variable_op(&read_scope, &Output { graph: scope.graph.clone(), op: h, index: 0 }),
            None => Ok(input),
        })
        .collect()
}
