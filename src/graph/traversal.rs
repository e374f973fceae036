//! The graph walks the rest of the crate needs, over nodes numbered `0..n` (a [`Graph`]'s
//! op ids, or a `GraphDef`'s node indices): which nodes some roots reach, the post-order
//! of what some roots need (with a cycle error), and a topological order of all nodes.
//!
//! The caller gives the edges as a function filling the neighbours of a node (its inputs
//! for a backward walk, its consumers for a forward one), leaving out the edges not to
//! follow (a session's fed tensors, ops not reached from the gradient's `xs`, ...). The
//! walks are iterative, so deep graphs do not overflow the stack.
//!
//! [`Graph`]: super::Graph

use crate::error::{Error, Result};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The nodes `roots` reach through `next` (which fills the neighbours of a node into the
/// vector it gets, and may fail, e.g. for an input naming no node), roots included:
/// `reached[i]` is true for each. `next` is called once per reached node, in depth-first
/// order from the last root.
/// Errors: the first error `next` returns.
pub(crate) fn reachable(
    n: usize,
    roots: impl IntoIterator<Item = usize>,
    mut next: impl FnMut(usize, &mut Vec<usize>) -> Result<()>,
) -> Result<Vec<bool>> {
    let mut reached = vec![false; n];
    let mut stack: Vec<usize> = roots.into_iter().collect();
    let mut buf = Vec::new();
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut reached[id], true) {
            continue;
        }
        buf.clear();
        next(id, &mut buf)?;
        stack.extend(buf.iter().copied().filter(|&j| !reached[j]));
    }
    Ok(reached)
}

/// The nodes `roots` need through `next` (which fills the neighbours of a node, in the
/// order to visit them, into the vector it gets), each after all it needs: a depth-first
/// post-order, visiting `roots` in the given order, and each node's neighbours in the
/// order `next` gives them. A node listed twice appears once.
/// Errors: `cycle(node)` for a node met again while the walk is still below it (a node on
/// a cycle).
pub(crate) fn post_order(
    n: usize,
    roots: impl IntoIterator<Item = usize>,
    mut next: impl FnMut(usize, &mut Vec<usize>),
    cycle: impl FnOnce(usize) -> Error,
) -> Result<Vec<usize>> {
    let mut done = vec![false; n];
    let mut on_path = vec![false; n];
    let mut order = Vec::new();
    // the stack pops last-pushed first: push in reverse to visit in the given order
    let mut stack: Vec<(usize, bool)> = roots.into_iter().map(|r| (r, false)).collect();
    stack.reverse();
    let mut buf = Vec::new();
    while let Some((id, expanded)) = stack.pop() {
        if expanded {
            on_path[id] = false;
            if !std::mem::replace(&mut done[id], true) {
                order.push(id);
            }
            continue;
        }
        if done[id] {
            continue;
        }
        if on_path[id] {
            return Err(cycle(id));
        }
        on_path[id] = true;
        stack.push((id, true));
        buf.clear();
        next(id, &mut buf);
        stack.extend(buf.iter().rev().filter(|&&j| !done[j]).map(|&j| (j, false)));
    }
    Ok(order)
}

/// All nodes `0..n`, each after its predecessors (`preds` fills those of a node; an edge
/// listed twice counts twice): Kahn's algorithm, taking the lowest-numbered ready node
/// first, so an already sorted numbering is kept.
/// Errors: `cycle(stuck)` with the nodes left unordered (those on a cycle or after one),
/// in increasing order.
pub(crate) fn topological_order(
    n: usize,
    mut preds: impl FnMut(usize, &mut Vec<usize>),
    cycle: impl FnOnce(&[usize]) -> Error,
) -> Result<Vec<usize>> {
    let mut pending = vec![0usize; n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut buf = Vec::new();
    for (i, count) in pending.iter_mut().enumerate() {
        buf.clear();
        preds(i, &mut buf);
        *count = buf.len();
        for &p in &buf {
            succs[p].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&i| pending[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &c in &succs[i] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.push(Reverse(c));
            }
        }
    }
    if order.len() < n {
        let stuck: Vec<usize> = (0..n).filter(|&i| pending[i] > 0).collect();
        return Err(cycle(&stuck));
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs of a small graph: 0 ← 1 ← 3, 0 ← 2 ← 3 (node 3 needs 1 and 2, which need 0).
    fn inputs(i: usize, out: &mut Vec<usize>) {
        out.extend_from_slice(match i {
            1 | 2 => &[0],
            3 => &[1, 2],
            _ => &[],
        });
    }

    #[test]
    fn reachable_marks_what_roots_reach() {
        let r = reachable(5, [2], |i, out| {
            inputs(i, out);
            Ok(())
        })
        .unwrap();
        assert_eq!(r, vec![true, false, true, false, false]);
        let e = reachable(5, [3], |i, _| Err(Error::invalid_argument(format!("bad {i}")))).unwrap_err();
        assert!(e.message.contains("bad 3"));
    }

    #[test]
    fn post_order_puts_inputs_first_in_visit_order() {
        let order = post_order(5, [3, 4], inputs, |_| Error::internal("cycle")).unwrap();
        assert_eq!(order, vec![0, 1, 2, 3, 4]);
        // visiting inputs in reverse
        let order = post_order(
            5,
            [3],
            |i, out| {
                inputs(i, out);
                out.reverse()
            },
            |_| Error::internal("cycle"),
        )
        .unwrap();
        assert_eq!(order, vec![0, 2, 1, 3]);
    }

    #[test]
    fn post_order_names_a_node_on_a_cycle() {
        // 0 → 1 → 2 → 1
        let next = |i: usize, out: &mut Vec<usize>| out.push(if i == 2 { 1 } else { i + 1 });
        let e = post_order(3, [0], next, |i| Error::invalid_argument(format!("cycle through {i}"))).unwrap_err();
        assert!(e.message.contains("cycle through 1") || e.message.contains("cycle through 2"), "{e}");
    }

    #[test]
    fn topological_order_keeps_sorted_numbering_and_reports_stuck_nodes() {
        assert_eq!(topological_order(4, inputs, |_| Error::internal("cycle")).unwrap(), vec![0, 1, 2, 3]);
        // 0 needs 2, 2 needs 1: 1, 2, 0
        let preds = |i: usize, out: &mut Vec<usize>| out.extend_from_slice([&[2][..], &[], &[1]][i]);
        assert_eq!(topological_order(3, preds, |_| Error::internal("cycle")).unwrap(), vec![1, 2, 0]);
        // 0 and 1 need each other; 2 needs 1
        let preds = |i: usize, out: &mut Vec<usize>| out.extend_from_slice([&[1][..], &[0], &[1]][i]);
        let e = topological_order(3, preds, |s| Error::invalid_argument(format!("stuck {s:?}"))).unwrap_err();
        assert!(e.message.contains("stuck [0, 1, 2]"), "{e}");
    }
}
