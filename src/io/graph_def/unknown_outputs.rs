//! The outputs an import gives a node whose op type tensorgraph does not register: with no
//! `OpDef`, their number and dtypes come from what the GraphDef says about them, their
//! shapes are unknown.

use crate::format::proto::{dtype_from_proto, AttrValueKind, GraphDef, NodeDef};
use crate::ops;
use crate::tensor::{DType, Shape};

/// The attrs that name an op's output dtype in TensorFlow's op schemas, most specific
/// first (`T` last: it is often an input's type only, as `Bucketize`'s).
const OUTPUT_TYPE_ATTRS: &[&str] = &["out_type", "Tout", "output_type", "dtype", "DstT", "T"];

/// The (dtype, shape) of each output of unknown node `node`, given the places that read
/// it: `readers` holds (reader node index in `gd`, data input position, output index) and
/// `wanted`, an output index asked for elsewhere (a return element), if any.
///
/// The number of outputs is that of the node's `_output_shapes` attr when it has one,
/// else one past the highest output index read or asked for (at least one). Each output's
/// dtype is what a registered reader's `OpDef` expects at that input (a fixed type or its
/// type attr), else the node's own `out_type`, `Tout`, `output_type`, `dtype`, `DstT` or
/// `T` attr (a `list(type)` one gives output `k` its `k`-th entry), else `float` (a stand-in
/// nothing checks: the node never runs). Shapes are unknown.
pub(super) fn unknown_outputs(
    gd: &GraphDef,
    node: &NodeDef,
    readers: &[(usize, usize, usize)],
    wanted: Option<usize>,
) -> Vec<(DType, Shape)> {
    let declared = match node.attr.get("_output_shapes").and_then(|a| a.value.as_ref()) {
        Some(AttrValueKind::List(l)) if !l.shape.is_empty() => Some(l.shape.len()),
        _ => None,
    };
    let used = readers.iter().map(|r| r.2 + 1).chain(wanted.map(|w| w + 1)).max().unwrap_or(1);
    let count = declared.map_or(used, |d| d.max(used));
    (0..count)
        .map(|k| {
            let from_reader = readers
                .iter()
                .filter(|r| r.2 == k)
                .find_map(|&(reader, position, _)| input_dtype(&gd.node[reader], position));
            let dtype = from_reader.or_else(|| own_dtype(node, k, count)).unwrap_or(DType::Float);
            (dtype, Shape::unknown())
        })
        .collect()
}

/// The dtype the `OpDef` of `reader`'s op type expects at data input `position`: the arg's
/// fixed type, or the value of its type attr (or its `list(type)` attr's entry); `None` for
/// an unregistered reader or an attr the node lacks.
fn input_dtype(reader: &NodeDef, position: usize) -> Option<DType> {
    let def = ops::schema::op_def(&reader.op)?;
    let attr = |name: &str| reader.attr.get(name).and_then(|a| a.value.as_ref());
    let mut start = 0usize;
    for arg in &def.input_arg {
        let len = if !arg.number_attr.is_empty() {
            match attr(&arg.number_attr)? {
                AttrValueKind::I(n) => usize::try_from(*n).ok()?,
                _ => return None,
            }
        } else if !arg.type_list_attr.is_empty() {
            match attr(&arg.type_list_attr)? {
                AttrValueKind::List(l) => l.r#type.len(),
                _ => return None,
            }
        } else {
            1
        };
        if position < start + len {
            let t = if arg.r#type != 0 {
                arg.r#type
            } else if !arg.type_attr.is_empty() {
                match attr(&arg.type_attr)? {
                    AttrValueKind::Type(t) => *t,
                    _ => return None,
                }
            } else {
                match attr(&arg.type_list_attr)? {
                    AttrValueKind::List(l) => *l.r#type.get(position - start)?,
                    _ => return None,
                }
            };
            return dtype_from_proto(t).ok();
        }
        start += len;
    }
    None
}

/// Output `k`'s dtype (of `count`) by the node's own type attrs ([`OUTPUT_TYPE_ATTRS`]).
fn own_dtype(node: &NodeDef, k: usize, count: usize) -> Option<DType> {
    OUTPUT_TYPE_ATTRS.iter().find_map(|name| match node.attr.get(*name).and_then(|a| a.value.as_ref())? {
        AttrValueKind::Type(t) => dtype_from_proto(*t).ok(),
        AttrValueKind::List(l) if l.r#type.len() == count => dtype_from_proto(l.r#type[k]).ok(),
        _ => None,
    })
}
