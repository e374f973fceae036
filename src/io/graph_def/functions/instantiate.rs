//! A `FunctionDef`'s body as `NodeDef`s of the calling graph (TensorFlow's function
//! instantiation): body nodes renamed under a prefix, inputs written `node:output_arg:index`
//! turned into the graph's `node:k`, argument references into the call's input tensors,
//! attr placeholders (`T` of a polymorphic signature) replaced by the call's attrs.

use super::nodes::tensor;
use crate::error::{Error, Result};
use crate::format::proto::{data_type_name, ArgDef, AttrMap, AttrValue, AttrValueKind, FunctionDef, NodeDef};
use crate::ops;
use std::collections::HashMap;

/// For each output arg name of a node, its first flat output index and length (`None`:
/// a functional op, whose `node:output:k` is output `k`).
type OutputArgs = Option<HashMap<String, (usize, usize)>>;

/// The functions of a graph's library, by name.
pub(super) type Library = HashMap<String, FunctionDef>;

/// Op types with one output arg (a list), whose `node:output:k` is output `k`.
pub(super) const FUNCTIONAL_OPS: &[&str] =
    &["PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "While", "StatelessWhile", "SymbolicGradient"];

/// A function's body, instantiated.
pub(super) struct Instance {
    /// The body's nodes, renamed under the prefix (not yet expanded: they may call functions).
    pub nodes: Vec<NodeDef>,
    /// The tensors returned, one per output (its signature's output args flattened).
    pub outputs: Vec<String>,
    /// The dtypes of `outputs` (`DataType` numbers).
    pub output_types: Vec<i32>,
    /// The nodes that must run when the function runs (its `control_ret`).
    pub control_outputs: Vec<String>,
}

/// The error for function `f` that cannot be instantiated, saying `what`.
pub(super) fn cannot_instantiate(f: &str, what: impl std::fmt::Display) -> Error {
    Error::invalid_argument(format!("function '{f}' cannot be instantiated: {what}"))
}

/// The dtypes of each of `args` (one list per arg: an arg with `number_attr` or
/// `type_list_attr` is several tensors), given the instantiation's `attrs`.
/// Errors: `InvalidArgument` naming the function and the attr the call lacks.
pub(super) fn arg_types(fname: &str, args: &[ArgDef], attrs: &AttrMap<AttrValue>) -> Result<Vec<Vec<i32>>> {
    let attr = |name: &str, arg: &str| {
        attrs.get(name).and_then(|a| a.value.as_ref()).ok_or_else(|| {
            cannot_instantiate(
                fname,
                format!("arg '{arg}' has its type or length in attr '{name}', which the call does not set"),
            )
        })
    };
    args.iter()
        .map(|a| {
            if !a.type_list_attr.is_empty() {
                return match attr(&a.type_list_attr, &a.name)? {
                    AttrValueKind::List(l) => Ok(l.r#type.clone()),
                    _ => Err(cannot_instantiate(fname, format!("attr '{}' is not a list of types", a.type_list_attr))),
                };
            }
            let t = if a.r#type != 0 {
                a.r#type
            } else {
                match attr(&a.type_attr, &a.name)? {
                    AttrValueKind::Type(t) => *t,
                    _ => return Err(cannot_instantiate(fname, format!("attr '{}' is not a type", a.type_attr))),
                }
            };
            let n = if a.number_attr.is_empty() {
                1
            } else {
                match attr(&a.number_attr, &a.name)? {
                    AttrValueKind::I(n) if *n >= 0 => *n as usize,
                    _ => return Err(cannot_instantiate(fname, format!("attr '{}' is not a length", a.number_attr))),
                }
            };
            Ok(vec![t; n])
        })
        .collect()
}

/// Replaces attr placeholders in `v` (and in the attrs of function-valued attrs) by the
/// instantiation's `attrs`.
fn substitute(fname: &str, node: &str, v: &mut AttrValue, attrs: &AttrMap<AttrValue>) -> Result<()> {
    match &mut v.value {
        Some(AttrValueKind::Placeholder(p)) => {
            *v = attrs.get(p.as_str()).cloned().ok_or_else(|| {
                cannot_instantiate(
                    fname,
                    format!("node '{node}' uses the function's attr '{p}', which the call does not set"),
                )
            })?;
        }
        Some(AttrValueKind::Func(f)) => {
            for (_, a) in f.attr.iter_mut() {
                substitute(fname, node, a, attrs)?;
            }
        }
        Some(AttrValueKind::List(l)) => {
            for f in &mut l.func {
                for (_, a) in f.attr.iter_mut() {
                    substitute(fname, node, a, attrs)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// For each output arg name of body node `n`, its first flat output index and length.
fn output_args(fname: &str, n: &NodeDef, lib: &Library) -> Result<OutputArgs> {
    if FUNCTIONAL_OPS.contains(&n.op.as_str()) {
        return Ok(None);
    }
    let (args, attrs): (&[ArgDef], AttrMap<AttrValue>) = if let Some(f) = lib.get(&n.op) {
        (f.signature.as_ref().map(|s| s.output_arg.as_slice()).unwrap_or_default(), n.attr.clone())
    } else if let Some(def) = ops::schema::op_def(&n.op) {
        let mut attrs = n.attr.clone();
        for a in &def.attr {
            if let (None, Some(d)) = (attrs.get(a.name.as_str()), &a.default_value) {
                attrs.insert(a.name.clone(), d.clone());
            }
        }
        (def.output_arg.as_slice(), attrs)
    } else {
        return Err(Error::unimplemented(format!(
            "function '{fname}' cannot be instantiated: its node '{}' has op type '{}', which tensorgraph does not implement and the graph's library does not define",
            n.name, n.op
        )));
    };
    let sizes = arg_types(fname, args, &attrs).map_err(|e| e.context(format!("node '{}' ({})", n.name, n.op)))?;
    let mut map = HashMap::new();
    let mut start = 0;
    for (a, types) in args.iter().zip(sizes) {
        map.insert(a.name.clone(), (start, types.len()));
        start += types.len();
    }
    Ok(Some(map))
}

/// Instantiates `f` with `attrs` under `prefix` (body node `n` becomes `prefix/n`), its
/// input args reading `args` (the call's flat input tensors, one per arg tensor).
/// Errors: `InvalidArgument` "function 'F' cannot be instantiated: ..." naming what is
/// missing (an attr, a body node an input names, an output arg the `ret` map lacks, an arg
/// count different from the call's); `Unimplemented` for a body node whose op type
/// tensorgraph lacks and the library does not define.
pub(super) fn instantiate(
    f: &FunctionDef,
    attrs: &AttrMap<AttrValue>,
    prefix: &str,
    args: &[String],
    lib: &Library,
) -> Result<Instance> {
    let fname = f.name();
    let sig = f.signature.as_ref().ok_or_else(|| cannot_instantiate(fname, "it has no signature"))?;
    let in_types = arg_types(fname, &sig.input_arg, attrs)?;
    let n_in: usize = in_types.iter().map(Vec::len).sum();
    if n_in != args.len() {
        let names: Vec<&str> = sig.input_arg.iter().map(|a| a.name.as_str()).collect();
        return Err(cannot_instantiate(
            fname,
            format!("it takes {n_in} input(s) (args {}), but the call gives it {}", names.join(", "), args.len()),
        ));
    }
    // arg name -> its tensors among `args`
    let mut arg_tensors: HashMap<&str, &[String]> = HashMap::new();
    let mut start = 0;
    for (a, types) in sig.input_arg.iter().zip(&in_types) {
        arg_tensors.insert(a.name.as_str(), &args[start..start + types.len()]);
        start += types.len();
    }
    let mut outputs_of: HashMap<&str, OutputArgs> = HashMap::new();
    for n in &f.node_def {
        outputs_of.insert(n.name.as_str(), output_args(fname, n, lib)?);
    }
    let resolve = |input: &str, user: &str| -> Result<String> {
        let missing = || {
            cannot_instantiate(
                fname,
                format!("node '{user}' reads '{input}', which is neither an input arg nor a node of the function"),
            )
        };
        let mut parts = input.split(':');
        let head = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        if let Some(tensors) = arg_tensors.get(head) {
            let i: usize = match rest.as_slice() {
                [] => 0,
                [i] => i.parse().map_err(|_| missing())?,
                _ => return Err(missing()),
            };
            return tensors.get(i).cloned().ok_or_else(missing);
        }
        let outs = outputs_of.get(head).ok_or_else(missing)?;
        let port = match (rest.as_slice(), outs) {
            ([], _) => 0,
            ([arg, i], Some(map)) => {
                let (s, len) = map.get(*arg).copied().ok_or_else(|| {
                    cannot_instantiate(
                        fname,
                        format!("node '{user}' reads '{input}', but node '{head}' has no output arg '{arg}'"),
                    )
                })?;
                let i: usize = i.parse().map_err(|_| missing())?;
                if i >= len {
                    return Err(cannot_instantiate(
                        fname,
                        format!("node '{user}' reads '{input}', past the {len} output(s) of arg '{arg}'"),
                    ));
                }
                s + i
            }
            ([_, i], None) => i.parse().map_err(|_| missing())?,
            ([i], _) => i.parse().map_err(|_| missing())?,
            _ => return Err(missing()),
        };
        Ok(tensor(&format!("{prefix}/{head}"), port))
    };
    let mut nodes = Vec::with_capacity(f.node_def.len());
    for n in &f.node_def {
        let mut m = n.clone();
        m.name = format!("{prefix}/{}", n.name);
        let mut inputs = Vec::with_capacity(n.input.len());
        for i in &n.input {
            if let Some(c) = i.strip_prefix('^') {
                if let Some(tensors) = arg_tensors.get(c) {
                    // a control input on an arg: on the node producing it
                    for t in tensors.iter() {
                        inputs.push(format!("^{}", t.split(':').next().unwrap_or(t)));
                    }
                } else if outputs_of.contains_key(c) {
                    inputs.push(format!("^{prefix}/{c}"));
                } else {
                    return Err(cannot_instantiate(
                        fname,
                        format!("node '{}' has control input '^{c}', which is not a node of the function", n.name),
                    ));
                }
            } else {
                inputs.push(resolve(i, &n.name)?);
            }
        }
        m.input = inputs;
        // colocation with body nodes says nothing on one device (and names body-local nodes)
        m.attr.remove("_class");
        for (_, v) in m.attr.iter_mut() {
            substitute(fname, &n.name, v, attrs)?;
        }
        nodes.push(m);
    }
    let out_types = arg_types(fname, &sig.output_arg, attrs)?;
    let mut outputs = Vec::new();
    for (a, types) in sig.output_arg.iter().zip(&out_types) {
        let ret = f
            .ret
            .get(&a.name)
            .ok_or_else(|| cannot_instantiate(fname, format!("output arg '{}' has no entry in its ret map", a.name)))?;
        let first = resolve(ret, &format!("ret {}", a.name))?;
        if types.len() == 1 {
            outputs.push(first);
        } else {
            // a list output: ret names its first tensor; the rest follow it
            let (node, port) = match first.rsplit_once(':') {
                Some((n, p)) if p.bytes().all(|b| b.is_ascii_digit()) => (n.to_string(), p.parse().unwrap_or(0)),
                _ => (first.clone(), 0),
            };
            outputs.extend((0..types.len()).map(|k| tensor(&node, port + k)));
        }
    }
    for t in out_types.iter().flatten() {
        if crate::format::proto::dtype_from_proto(*t).is_err() {
            return Err(cannot_instantiate(
                fname,
                format!("an output has dtype {}, which tensorgraph does not support", data_type_name(*t)),
            ));
        }
    }
    let mut control_outputs = Vec::with_capacity(f.control_ret.len());
    for (name, node) in &f.control_ret {
        if !outputs_of.contains_key(node.as_str()) {
            return Err(cannot_instantiate(
                fname,
                format!("control output '{name}' names '{node}', which is not a node of the function"),
            ));
        }
        control_outputs.push(format!("{prefix}/{node}"));
    }
    Ok(Instance { nodes, outputs, output_types: out_types.into_iter().flatten().collect(), control_outputs })
}
