//! `NodeDef`s and attr values for the nodes a function's instantiation adds (inputs,
//! Switch/Merge of a lowered `If`, Enter/Exit/... of a lowered `While`).

use crate::format::proto::{AttrMap, AttrValue, AttrValueKind, ListValue, NodeDef};

/// `DT_BOOL`'s `DataType` number.
pub(super) const DT_BOOL: i32 = 10;

/// A node `name` of type `op` with `inputs` (`node`, `node:k`, `^node`) and `attrs`.
pub(super) fn node(name: &str, op: &str, inputs: Vec<String>, attrs: Vec<(&str, AttrValue)>) -> NodeDef {
    let mut attr = AttrMap::default();
    for (k, v) in attrs {
        attr.insert(k.to_string(), v);
    }
    NodeDef { name: name.to_string(), op: op.to_string(), input: inputs, attr, ..Default::default() }
}

/// A `type` attr value.
pub(super) fn type_attr(t: i32) -> AttrValue {
    AttrValue { value: Some(AttrValueKind::Type(t)) }
}

/// A `list(type)` attr value.
pub(super) fn type_list_attr(types: &[i32]) -> AttrValue {
    AttrValue { value: Some(AttrValueKind::List(Box::new(ListValue { r#type: types.to_vec(), ..Default::default() }))) }
}

/// An `int` attr value.
pub(super) fn int_attr(i: i64) -> AttrValue {
    AttrValue { value: Some(AttrValueKind::I(i)) }
}

/// A `bool` attr value.
pub(super) fn bool_attr(b: bool) -> AttrValue {
    AttrValue { value: Some(AttrValueKind::B(b)) }
}

/// A `string` attr value.
pub(super) fn string_attr(s: &str) -> AttrValue {
    AttrValue { value: Some(AttrValueKind::S(s.as_bytes().to_vec())) }
}

/// `name:port` as a `NodeDef` input (`name` for port 0).
pub(super) fn tensor(name: &str, port: usize) -> String {
    if port == 0 {
        name.to_string()
    } else {
        format!("{name}:{port}")
    }
}

/// True when `n` has no data inputs (only control inputs, or none).
pub(super) fn has_no_data_inputs(n: &NodeDef) -> bool {
    n.input.iter().all(|i| i.starts_with('^'))
}

/// Adds control input `^ctrl` to `n` unless it has it.
pub(super) fn add_control(n: &mut NodeDef, ctrl: &str) {
    let c = format!("^{ctrl}");
    if !n.input.contains(&c) {
        n.input.push(c);
    }
}
