//! Instantiating a `GraphDef`'s function library on import, as TensorFlow's graph
//! optimizer does before it runs a graph (function inlining, then `LowerFunctionalOps`):
//!
//! - a call (a node whose op is a library function, as TF1's `Defun` writes it;
//!   `PartitionedCall` and `StatefulPartitionedCall` with the function in attr `f`) is
//!   replaced by the function's body, its nodes named `<call>/<node>`, reading the call's
//!   inputs through `<call>/input/_<i>` Identities; the call node itself becomes an
//!   `IdentityN` of the returned tensors, with control inputs on the function's control
//!   outputs (its stateful ops run whenever the call's outputs are used);
//! - `If`/`StatelessIf` become TF1 control flow: a `Switch` of each input on the
//!   condition, both branches instantiated on their side of the Switches (ops without
//!   inputs wait for the branch's pivot, so only the taken branch runs), a `Merge` per
//!   output;
//! - `While`/`StatelessWhile` become a TF1 loop: `Enter`, `Merge`, the cond function,
//!   `LoopCond`, `Switch`, the body function, `NextIteration` and `Exit` per loop variable,
//!   in a frame named after the node.
//!
//! Bodies are expanded recursively (a call in a branch, a loop in a function). The
//! session then runs the result with its dataflow executor, and gradients flow through
//! the instantiated ops (TensorFlow's own gradient functions in the library, written as
//! further calls, are instantiated the same way).

mod instantiate;
mod nodes;
mod symbolic_gradient;

use crate::error::{Error, Result};
use crate::format::proto::{AttrMap, AttrValue, AttrValueKind, FunctionDefLibrary, GraphDef, NameAttrList, NodeDef};
use crate::graph::{CallRecord, GraphData};
use instantiate::{arg_types, cannot_instantiate, instantiate, Instance, Library, FUNCTIONAL_OPS};
use nodes::{
    add_control, bool_attr, has_no_data_inputs, int_attr, node, string_attr, tensor, type_attr, type_list_attr, DT_BOOL,
};
use std::collections::{BTreeSet, HashSet};
pub(crate) use symbolic_gradient::build_gradients;
use symbolic_gradient::SymbolicGradient;

/// Nested instantiations deeper than this are taken for recursion.
const MAX_DEPTH: usize = 64;

/// A `GraphDef` with its function calls instantiated.
pub(crate) struct Lowered {
    /// The nodes to import: the graph's own (calls replaced) and the instantiated ones.
    pub nodes: Vec<NodeDef>,
    /// The original form of each replaced call node (named as in the `GraphDef`).
    pub calls: Vec<NodeDef>,
    /// Names of the nodes made by instantiation.
    pub instantiated: HashSet<String>,
    /// The names of the library's functions, in library order.
    pub function_names: Vec<String>,
    /// The `SymbolicGradient` nodes, whose gradients are built once the graph is imported.
    pub gradients: Vec<SymbolicGradient>,
    /// The graph's own call nodes that could not be instantiated, kept as they are (ops
    /// tensorgraph cannot run), with why: (node name, message).
    pub failed: Vec<(String, Error)>,
}

/// A node's data inputs (graph ids and output indices) and control inputs (graph ids).
pub(crate) type ResolvedInputs = (Vec<(usize, usize)>, Vec<usize>);

/// Records in `g` what import did with `l` (the lowered GraphDef, imported): the
/// library's functions, the original form of each call node (`resolved[i]`: the data and
/// control inputs of `l.calls[i]` as graph ids), and which nodes are instantiated
/// (`id_of`: a GraphDef node name's graph id).
pub(crate) fn record(
    g: &mut GraphData,
    l: &Lowered,
    library: Option<&FunctionDefLibrary>,
    resolved: Vec<ResolvedInputs>,
    id_of: impl Fn(&str) -> Option<usize>,
) {
    if let Some(lib) = library {
        g.functions.add_library(lib, &l.function_names);
    }
    for (c, (inputs, control_inputs)) in l.calls.iter().zip(resolved) {
        if let Some(id) = id_of(&c.name) {
            let rec = CallRecord { op: c.op.clone(), inputs, control_inputs, attr: c.attr.clone() };
            g.functions.calls.insert(id, rec);
        }
    }
    for name in &l.instantiated {
        if let Some(id) = id_of(name) {
            g.functions.instantiated.insert(id);
        }
    }
    for (name, why) in &l.failed {
        if let Some(id) = id_of(name) {
            // named as imported (under the import's prefix), as runs name it
            let imported = g.nodes[id].name.clone();
            g.functions.uninstantiable.insert(id, (imported, why.clone()));
        }
    }
}

/// True when `op` is run by instantiating a function (given the library's names).
fn is_call(op: &str, lib: &Library) -> bool {
    FUNCTIONAL_OPS.contains(&op) || lib.contains_key(op)
}

/// `gd`'s nodes with every function call instantiated, or `None` when it has no library
/// and no call (nothing to do).
/// Errors: `InvalidArgument` "function 'F' cannot be instantiated: ..." naming the
/// function and what is missing (a function the library lacks, an attr, an arg count that
/// differs from the call's inputs, recursion); `Unimplemented` for a body op tensorgraph
/// lacks; `DataLoss` for a library entry that is not a `FunctionDef`.
/// Whether nodes of `op_type` are function calls or functional control flow that import
/// instantiates.
pub(crate) fn is_functional_op(op_type: &str) -> bool {
    instantiate::FUNCTIONAL_OPS.contains(&op_type)
}

pub(crate) fn lower(gd: &GraphDef) -> Result<Option<Lowered>> {
    let empty = FunctionDefLibrary::default();
    let library = gd.library.as_ref().unwrap_or(&empty);
    let functions = library.functions()?;
    let function_names: Vec<String> = functions.iter().map(|f| f.name().to_string()).collect();
    let lib: Library = functions.into_iter().map(|f| (f.name().to_string(), f)).collect();
    if library.is_empty() && !gd.node.iter().any(|n| is_call(&n.op, &lib)) {
        return Ok(None);
    }
    let mut x = Expander {
        lib: &lib,
        names: gd.node.iter().map(|n| n.name.clone()).collect(),
        out: Vec::with_capacity(gd.node.len()),
        instantiated: HashSet::new(),
        calls: Vec::new(),
        stack: Vec::new(),
        gradients: Vec::new(),
        failed: Vec::new(),
    };
    x.expand(gd.node.clone(), None, true)?;
    Ok(Some(Lowered {
        nodes: x.out,
        calls: x.calls,
        instantiated: x.instantiated,
        function_names,
        gradients: x.gradients,
        failed: x.failed,
    }))
}

/// The state of one [`lower`].
struct Expander<'a> {
    lib: &'a Library,
    /// Every node name taken (the graph's and the instantiated).
    names: BTreeSet<String>,
    out: Vec<NodeDef>,
    instantiated: HashSet<String>,
    calls: Vec<NodeDef>,
    /// The functions being instantiated, outermost first (for recursion and messages).
    stack: Vec<String>,
    gradients: Vec<SymbolicGradient>,
    /// See [`Lowered::failed`].
    failed: Vec<(String, Error)>,
}

impl Expander<'_> {
    /// Adds `nodes` to the output, instantiating calls. `anchor`: a node of the frame and
    /// branch the nodes run in, that every node without data inputs waits for; `top`: the
    /// graph's own nodes (not instantiated ones).
    fn expand(&mut self, nodes: Vec<NodeDef>, anchor: Option<&str>, top: bool) -> Result<()> {
        for mut n in nodes {
            if let Some(a) = anchor {
                if has_no_data_inputs(&n) {
                    add_control(&mut n, a);
                }
            }
            let (out_len, gradients_len) = (self.out.len(), self.gradients.len());
            let replaced = match self.replace(&n, anchor) {
                Ok(r) => r,
                // a call of the graph's own that cannot be instantiated is kept as it is,
                // an op tensorgraph cannot run: only a run that needs it fails, with `e`
                Err(e) if top => {
                    for m in self.out.drain(out_len..) {
                        self.instantiated.remove(&m.name);
                    }
                    self.gradients.truncate(gradients_len);
                    self.failed.push((n.name.clone(), e));
                    None
                }
                Err(e) => return Err(e),
            };
            match replaced {
                Some(r) => {
                    if top {
                        self.calls.push(n);
                    } else {
                        self.instantiated.insert(r.name.clone());
                    }
                    self.out.push(r);
                }
                None => {
                    if !top {
                        self.instantiated.insert(n.name.clone());
                    }
                    self.out.push(n);
                }
            }
        }
        Ok(())
    }

    /// The node that replaces `n` when it is a function call or functional control flow
    /// (its body's nodes added to the output), else `None`.
    fn replace(&mut self, n: &NodeDef, anchor: Option<&str>) -> Result<Option<NodeDef>> {
        Ok(match n.op.as_str() {
            "If" | "StatelessIf" => Some(self.lower_if(n, anchor)?),
            "While" | "StatelessWhile" => Some(self.lower_while(n, anchor)?),
            "SymbolicGradient" => Some(self.symbolic_gradient(n, anchor)?),
            "PartitionedCall" | "StatefulPartitionedCall" => {
                let f = func_attr(n, "f")?;
                Some(self.call(n, &f.name, &f.attr, anchor)?)
            }
            op if self.lib.contains_key(op) => {
                let attrs: AttrMap<AttrValue> =
                    n.attr.iter().filter(|(k, _)| !k.starts_with('_')).map(|(k, v)| (k.clone(), v.clone())).collect();
                Some(self.call(n, op, &attrs, anchor)?)
            }
            _ => None,
        })
    }

    /// Adds an instantiated node.
    fn emit(&mut self, n: NodeDef) {
        self.names.insert(n.name.clone());
        self.instantiated.insert(n.name.clone());
        self.out.push(n);
    }

    /// A name scope for instantiating under node `base`: `base`, or `base_1`, ... when
    /// the graph already has nodes under `base/`.
    fn unique_prefix(&self, base: &str) -> String {
        let taken = |p: &str| {
            let scope = format!("{p}/");
            self.names.range(scope.clone()..).next().is_some_and(|s| s.starts_with(&scope))
        };
        if !taken(base) {
            return base.to_string();
        }
        (1..).map(|k| format!("{base}_{k}")).find(|p| !taken(p) && !self.names.contains(p)).unwrap_or_default()
    }

    /// Instantiates function `fname` with `attrs` for call node `n` under `prefix`, its
    /// args reading `args`, its nodes without inputs waiting for `anchor`; expands the
    /// body and returns it.
    fn body(
        &mut self,
        n: &NodeDef,
        fname: &str,
        attrs: &AttrMap<AttrValue>,
        prefix: &str,
        args: &[String],
        anchor: Option<&str>,
    ) -> Result<Instance> {
        let f = self.lib.get(fname).ok_or_else(|| {
            Error::not_found(format!(
                "function '{fname}' (called by node '{}', op {}) is not in the graph's function library",
                n.name, n.op
            ))
        })?;
        if self.stack.len() >= MAX_DEPTH || self.stack.iter().any(|s| s == fname) {
            return Err(cannot_instantiate(
                fname,
                format!("it calls itself (through {}); recursive functions are not supported", self.stack.join(" -> ")),
            ));
        }
        let mut inst = instantiate(f, attrs, prefix, args, self.lib).map_err(|e| {
            if self.stack.is_empty() {
                e
            } else {
                e.context(format!("in function '{}'", self.stack.join("' -> '")))
            }
        })?;
        self.stack.push(fname.to_string());
        let nodes = std::mem::take(&mut inst.nodes);
        for m in &nodes {
            self.names.insert(m.name.clone());
        }
        let r = self.expand(nodes, anchor, false);
        self.stack.pop();
        r?;
        Ok(inst)
    }

    /// A call of `fname` (with `attrs`) by node `n`: the body, and the node that replaces
    /// `n` (an `IdentityN` of the returned tensors, or a `NoOp` when there are none).
    fn call(&mut self, n: &NodeDef, fname: &str, attrs: &AttrMap<AttrValue>, anchor: Option<&str>) -> Result<NodeDef> {
        let prefix = self.unique_prefix(&n.name);
        let (data, controls) = split_inputs(n);
        let (args, body_anchor) = self.call_inputs(fname, attrs, &prefix, &data, &controls, anchor)?;
        let inst = self.body(n, fname, attrs, &prefix, &args, body_anchor.as_deref())?;
        Ok(replacement(n, &inst.outputs, &inst.output_types, &inst.control_outputs))
    }

    /// The Identities `prefix/input/_i` through which a call of `fname` reads `data`, and
    /// the anchor its body's nodes without inputs wait for: a `NoOp` on the call's
    /// `controls` and the enclosing `anchor` (`None` when there are neither).
    fn call_inputs(
        &mut self,
        fname: &str,
        attrs: &AttrMap<AttrValue>,
        prefix: &str,
        data: &[String],
        controls: &[String],
        anchor: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>)> {
        let in_types = match self.lib.get(fname).and_then(|f| f.signature.as_ref()) {
            Some(sig) => arg_types(fname, &sig.input_arg, attrs)?.concat(),
            None => Vec::new(),
        };
        let mut body_anchor = None;
        if !controls.is_empty() || anchor.is_some() {
            let name = format!("{prefix}/input_control_node/_0");
            let mut c: Vec<String> = controls.iter().map(|c| format!("^{c}")).collect();
            c.extend(anchor.map(|a| format!("^{a}")));
            self.emit(node(&name, "NoOp", c, vec![]));
            body_anchor = Some(name);
        }
        let mut args = Vec::with_capacity(data.len());
        for (i, input) in data.iter().enumerate() {
            let name = format!("{prefix}/input/_{i}");
            let mut inputs = vec![input.clone()];
            inputs.extend(body_anchor.iter().map(|a| format!("^{a}")));
            let t = in_types.get(i).copied().unwrap_or(DT_BOOL);
            self.emit(node(&name, "Identity", inputs, vec![("T", type_attr(t))]));
            args.push(name);
        }
        Ok((args, body_anchor))
    }

    /// `SymbolicGradient` node `n` (inputs: the function's inputs, then one gradient per
    /// output): the function instantiated under `<n>/forward`, and an `IdentityN` named
    /// `n` of its inputs, rewired to their gradients once the graph is imported.
    fn symbolic_gradient(&mut self, n: &NodeDef, anchor: Option<&str>) -> Result<NodeDef> {
        let f = func_attr(n, "f")?;
        let fdef = self.lib.get(&f.name).ok_or_else(|| {
            Error::not_found(format!(
                "function '{}' (called by node '{}', op {}) is not in the graph's function library",
                f.name, n.name, n.op
            ))
        })?;
        let sig = fdef.signature.as_ref().ok_or_else(|| cannot_instantiate(&f.name, "it has no signature"))?;
        let in_types = arg_types(&f.name, &sig.input_arg, &f.attr)?.concat();
        let n_out = arg_types(&f.name, &sig.output_arg, &f.attr)?.concat().len();
        let prefix = self.unique_prefix(&n.name);
        let (data, controls) = split_inputs(n);
        if data.len() != in_types.len() + n_out {
            return Err(cannot_instantiate(
                &f.name,
                format!(
                    "its gradient '{}' (SymbolicGradient) has {} inputs, but the function has {} inputs and {n_out} outputs",
                    n.name,
                    data.len(),
                    in_types.len()
                ),
            ));
        }
        let (xs, dys) = data.split_at(in_types.len());
        let (args, body_anchor) = self.call_inputs(&f.name, &f.attr, &prefix, xs, &controls, anchor)?;
        let inst = self.body(n, &f.name, &f.attr, &format!("{prefix}/forward"), &args, body_anchor.as_deref())?;
        self.gradients.push(SymbolicGradient {
            node: n.name.clone(),
            xs: args.clone(),
            ys: inst.outputs.clone(),
            dys: dys.to_vec(),
        });
        Ok(replacement(n, &args, &in_types, &[]))
    }

    /// `If`/`StatelessIf` node `n` as Switch/Merge (TensorFlow's `LowerIfOp`); returns the
    /// node replacing `n`.
    fn lower_if(&mut self, n: &NodeDef, anchor: Option<&str>) -> Result<NodeDef> {
        let then_f = func_attr(n, "then_branch")?;
        let else_f = func_attr(n, "else_branch")?;
        let p = self.unique_prefix(&n.name);
        let (data, controls) = split_inputs(n);
        let (cond, inputs) = data
            .split_first()
            .ok_or_else(|| Error::invalid_argument(format!("node '{}' ({}) has no condition input", n.name, n.op)))?;
        let tin = list_types(n, "Tin")?;
        let tout = list_types(n, "Tout")?;
        if tin.len() != inputs.len() {
            return Err(Error::invalid_argument(format!(
                "node '{}' ({}) has {} inputs after its condition, but attr Tin lists {}",
                n.name,
                n.op,
                inputs.len(),
                tin.len()
            )));
        }
        let mut ctrl: Vec<String> = controls.iter().map(|c| format!("^{c}")).collect();
        ctrl.extend(anchor.map(|a| format!("^{a}")));
        let pred = self.boolean(n, cond, &format!("{p}/cond_bool"), "Tcond", &ctrl)?;
        let with = |mut v: Vec<String>| {
            v.extend(ctrl.iter().cloned());
            v
        };
        let sw = format!("{p}/switch_pred/_0");
        self.emit(node(&sw, "Switch", with(vec![pred.clone(), pred.clone()]), vec![("T", type_attr(DT_BOOL))]));
        let pivot_t = format!("{p}/switch_t/_1");
        let pivot_f = format!("{p}/switch_f/_2");
        self.emit(node(&pivot_t, "Identity", vec![tensor(&sw, 1)], vec![("T", type_attr(DT_BOOL))]));
        self.emit(node(&pivot_f, "Identity", vec![tensor(&sw, 0)], vec![("T", type_attr(DT_BOOL))]));
        let mut then_args = Vec::new();
        let mut else_args = Vec::new();
        for (i, (input, t)) in inputs.iter().zip(&tin).enumerate() {
            let name = format!("{p}/input/_{i}");
            self.emit(node(&name, "Switch", with(vec![input.clone(), pred.clone()]), vec![("T", type_attr(*t))]));
            then_args.push(tensor(&name, 1));
            else_args.push(name);
        }
        let then_i = self.body(n, &then_f.name, &then_f.attr, &format!("{p}/then"), &then_args, Some(&pivot_t))?;
        let else_i = self.body(n, &else_f.name, &else_f.attr, &format!("{p}/else"), &else_args, Some(&pivot_f))?;
        for (which, inst) in [("then_branch", &then_i), ("else_branch", &else_i)] {
            if inst.output_types != tout {
                return Err(Error::invalid_argument(format!(
                    "node '{}' ({}): its {which} '{}' returns {} output(s) of types {:?}, but attr Tout lists {:?}",
                    n.name,
                    n.op,
                    if which == "then_branch" { &then_f.name } else { &else_f.name },
                    inst.outputs.len(),
                    inst.output_types,
                    tout
                )));
            }
        }
        let mut outputs = Vec::with_capacity(tout.len());
        for (k, t) in tout.iter().enumerate() {
            let name = format!("{p}/output/_{k}");
            let inputs = vec![then_i.outputs[k].clone(), else_i.outputs[k].clone()];
            self.emit(node(&name, "Merge", inputs, vec![("T", type_attr(*t)), ("N", int_attr(2))]));
            outputs.push(name);
        }
        // the branches' control outputs: their Merge runs when either branch ran
        let mut control_outputs = Vec::new();
        if !then_i.control_outputs.is_empty() || !else_i.control_outputs.is_empty() {
            let mut sides = Vec::new();
            for (pivot, inst, side) in [(&pivot_t, &then_i, "then"), (&pivot_f, &else_i, "else")] {
                let name = format!("{p}/{side}_control/_0");
                let mut inputs = vec![pivot.clone()];
                inputs.extend(inst.control_outputs.iter().map(|c| format!("^{c}")));
                self.emit(node(&name, "Identity", inputs, vec![("T", type_attr(DT_BOOL))]));
                sides.push(name);
            }
            let name = format!("{p}/branch_executed/_0");
            self.emit(node(&name, "Merge", sides, vec![("T", type_attr(DT_BOOL)), ("N", int_attr(2))]));
            control_outputs.push(name);
        }
        if outputs.is_empty() && control_outputs.is_empty() {
            control_outputs.push(pivot_t.clone());
            control_outputs.push(pivot_f.clone());
        }
        Ok(replacement(n, &outputs, &tout, &control_outputs))
    }

    /// `While`/`StatelessWhile` node `n` as a TF1 loop (TensorFlow's `LowerWhileOp`);
    /// returns the node replacing `n`.
    fn lower_while(&mut self, n: &NodeDef, anchor: Option<&str>) -> Result<NodeDef> {
        let cond_f = func_attr(n, "cond")?;
        let body_f = func_attr(n, "body")?;
        let p = self.unique_prefix(&n.name);
        let (data, controls) = split_inputs(n);
        let types = list_types(n, "T")?;
        if types.len() != data.len() || data.is_empty() {
            return Err(Error::invalid_argument(format!(
                "node '{}' ({}) has {} loop variable(s), but attr T lists {}{}",
                n.name,
                n.op,
                data.len(),
                types.len(),
                if data.is_empty() { " (a loop needs at least one)" } else { "" }
            )));
        }
        let parallel = match n.attr.get("parallel_iterations").and_then(|a| a.value.as_ref()) {
            Some(AttrValueKind::I(i)) if *i > 0 => *i,
            _ => 10,
        };
        let frame = format!("{p}/while_context");
        let mut ctrl: Vec<String> = controls.iter().map(|c| format!("^{c}")).collect();
        ctrl.extend(anchor.map(|a| format!("^{a}")));
        let mut merges = Vec::with_capacity(data.len());
        for (i, (input, t)) in data.iter().zip(&types).enumerate() {
            let enter = format!("{p}/enter/_{i}");
            let mut inputs = vec![input.clone()];
            inputs.extend(ctrl.iter().cloned());
            let attrs = vec![
                ("T", type_attr(*t)),
                ("frame_name", string_attr(&frame)),
                ("is_constant", bool_attr(false)),
                ("parallel_iterations", int_attr(parallel)),
            ];
            self.emit(node(&enter, "Enter", inputs, attrs));
            let merge = format!("{p}/merge/_{i}");
            let next = format!("{p}/next_iteration/_{i}");
            self.emit(node(&merge, "Merge", vec![enter, next], vec![("T", type_attr(*t)), ("N", int_attr(2))]));
            merges.push(merge);
        }
        let cond_i = self.body(n, &cond_f.name, &cond_f.attr, &format!("{p}/cond"), &merges, Some(&merges[0]))?;
        let [cond_out] = cond_i.outputs.as_slice() else {
            return Err(cannot_instantiate(
                &cond_f.name,
                format!("as the cond of While '{}' it must return one tensor, not {}", n.name, cond_i.outputs.len()),
            ));
        };
        let cond_t = cond_i.output_types[0];
        let pred = if cond_t == DT_BOOL {
            cond_out.clone()
        } else {
            let name = format!("{p}/cond_bool/_0");
            let attrs = vec![("SrcT", type_attr(cond_t)), ("DstT", type_attr(DT_BOOL)), ("Truncate", bool_attr(false))];
            self.emit(node(&name, "Cast", vec![cond_out.clone()], attrs));
            name
        };
        let loop_cond = format!("{p}/loop_cond/_0");
        self.emit(node(&loop_cond, "LoopCond", vec![pred], vec![]));
        let mut exits = Vec::with_capacity(data.len());
        let mut body_args = Vec::with_capacity(data.len());
        for (i, t) in types.iter().enumerate() {
            let sw = format!("{p}/switch/_{i}");
            self.emit(node(&sw, "Switch", vec![merges[i].clone(), loop_cond.clone()], vec![("T", type_attr(*t))]));
            let exit = format!("{p}/exit/_{i}");
            self.emit(node(&exit, "Exit", vec![sw.clone()], vec![("T", type_attr(*t))]));
            exits.push(exit);
            let id = format!("{p}/body_input/_{i}");
            self.emit(node(&id, "Identity", vec![tensor(&sw, 1)], vec![("T", type_attr(*t))]));
            body_args.push(id);
        }
        let pivot = body_args[0].clone();
        let body_i = self.body(n, &body_f.name, &body_f.attr, &format!("{p}/body"), &body_args, Some(&pivot))?;
        if body_i.output_types != types {
            return Err(Error::invalid_argument(format!(
                "node '{}' ({}): its body '{}' returns types {:?}, but the loop variables have types {:?} (attr T)",
                n.name, n.op, body_f.name, body_i.output_types, types
            )));
        }
        for (i, (out, t)) in body_i.outputs.iter().zip(&types).enumerate() {
            let mut inputs = vec![out.clone()];
            inputs.extend(body_i.control_outputs.iter().map(|c| format!("^{c}")));
            self.emit(node(&format!("{p}/next_iteration/_{i}"), "NextIteration", inputs, vec![("T", type_attr(*t))]));
        }
        Ok(replacement(n, &exits, &types, &[]))
    }

    /// `cond` as a bool tensor: itself when attr `attr` (its dtype) is bool, else a `Cast`
    /// named `name` (a number is true when non-zero).
    fn boolean(&mut self, n: &NodeDef, cond: &str, name: &str, attr: &str, ctrl: &[String]) -> Result<String> {
        let t = match n.attr.get(attr).and_then(|a| a.value.as_ref()) {
            Some(AttrValueKind::Type(t)) => *t,
            _ => DT_BOOL,
        };
        if t == DT_BOOL {
            return Ok(cond.to_string());
        }
        let mut inputs = vec![cond.to_string()];
        inputs.extend(ctrl.iter().cloned());
        let attrs = vec![("SrcT", type_attr(t)), ("DstT", type_attr(DT_BOOL)), ("Truncate", bool_attr(false))];
        self.emit(node(name, "Cast", inputs, attrs));
        Ok(name.to_string())
    }
}

/// The node that replaces call `n`: an `IdentityN` named as `n` forwarding `outputs`
/// (dtypes `types`) and waiting for `control_outputs`, or a `NoOp` when there are no outputs.
fn replacement(n: &NodeDef, outputs: &[String], types: &[i32], control_outputs: &[String]) -> NodeDef {
    let mut inputs = outputs.to_vec();
    inputs.extend(control_outputs.iter().map(|c| format!("^{c}")));
    let mut r = if outputs.is_empty() {
        node(&n.name, "NoOp", inputs, vec![])
    } else {
        node(&n.name, "IdentityN", inputs, vec![("T", type_list_attr(types))])
    };
    r.device = n.device.clone();
    r
}

/// `n`'s data inputs and the node names of its control inputs.
fn split_inputs(n: &NodeDef) -> (Vec<String>, Vec<String>) {
    let data = n.input.iter().filter(|i| !i.starts_with('^')).cloned().collect();
    let controls = n.input.iter().filter_map(|i| i.strip_prefix('^')).map(str::to_string).collect();
    (data, controls)
}

/// The function named by `n`'s `func` attr `attr`.
fn func_attr(n: &NodeDef, attr: &str) -> Result<NameAttrList> {
    match n.attr.get(attr).and_then(|a| a.value.as_ref()) {
        Some(AttrValueKind::Func(f)) => Ok((**f).clone()),
        _ => Err(Error::invalid_argument(format!(
            "node '{}' ({}) has no function attr '{attr}' (a NameAttrList naming a function of the library)",
            n.name, n.op
        ))),
    }
}

/// `n`'s `list(type)` attr `attr` (empty when absent).
fn list_types(n: &NodeDef, attr: &str) -> Result<Vec<i32>> {
    match n.attr.get(attr).and_then(|a| a.value.as_ref()) {
        Some(AttrValueKind::List(l)) => Ok(l.r#type.clone()),
        None => Ok(Vec::new()),
        Some(_) => {
            Err(Error::invalid_argument(format!("node '{}' ({}): attr '{attr}' is not a list of types", n.name, n.op)))
        }
    }
}
