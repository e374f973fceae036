//! A GraphDef's references that point to no node of it (colocation targets, data and
//! control inputs), found without importing it, and the GraphDef with them cut: so that a
//! meta graph import can check its own references (collections, the SaverDef) against the
//! graph as well and list every problem of both stages in one error.

use super::import::{colocation_problems, resolve_inputs};
use crate::format::proto::{AttrValueKind, GraphDef};
use crate::graph::Output;
use rustc_hash::FxHashMap as HashMap;
use std::collections::HashSet;

/// Every reference of `gd` that names no node of it, in the words and order of
/// `import_graph_def`'s error (colocations first, then inputs in node order); empty when
/// there are none.
pub(crate) fn dangling_references(gd: &GraphDef) -> Vec<String> {
    let index: HashMap<&str, usize> = gd.node.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    let mut dangling = colocation_problems(gd, &index);
    let no_map: HashMap<&str, &Output> = HashMap::default();
    // (an input order error is import's to report; only the dangling names are wanted here)
    let _ = resolve_inputs(gd, &index, &no_map, &HashMap::default(), &mut HashMap::default(), &mut dangling);
    dangling
}

/// `gd` without its dangling references: inputs naming no node dropped, and `_class`
/// colocation entries naming no node dropped.
pub(crate) fn without_dangling_references(gd: &GraphDef) -> GraphDef {
    let names: HashSet<String> = gd.node.iter().map(|n| n.name.clone()).collect();
    let known = |input: &str| {
        let name = input.strip_prefix('^').unwrap_or(input);
        let node = match name.rsplit_once(':') {
            Some((node, idx)) if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) => node,
            _ => name,
        };
        names.contains(node)
    };
    let mut out = gd.clone();
    for n in &mut out.node {
        n.input.retain(|i| known(i));
        if let Some(AttrValueKind::List(list)) = n.attr.get_mut("_class").and_then(|a| a.value.as_mut()) {
            list.s
                .retain(|loc| loc.strip_prefix(b"loc:@").is_none_or(|t| names.contains(&*String::from_utf8_lossy(t))));
        }
    }
    out
}
