//! The control-flow contexts being built (TensorFlow's `ControlFlowContext` stack: the
//! `WhileContext` of a `while_loop` whose cond or body is being built, the `CondContext`
//! of a `cond` branch), so that a value a nested loop or branch takes from outside is
//! brought in through every enclosing context in turn, as TensorFlow's `AddValue` chain
//! does (`while/while/mul/Enter` made by the outer loop, then `while/while/mul/Enter_1`
//! by the inner one).
//!
//! Builders (`ops::while_loop`, `ops::cond`) build a body first and then rewire what its
//! ops read from outside. The contexts live on a per-thread stack while their functions
//! run; the ops a finished inner context already handled (its whole range and the captures
//! it made) are recorded, so an outer context leaves them alone as TensorFlow does (an op
//! belongs to its innermost context only).

use crate::error::Result;
use crate::graph::{Graph, Output, Scope};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

/// One control-flow context under construction.
pub(crate) trait FlowContext {
    /// The graph it builds in.
    fn graph(&self) -> &Graph;
    /// `x` made available inside this context (TensorFlow's `AddValue`): `x` itself when
    /// made inside, else an `Enter` / `Switch` of it made in name scope `s` (once per `x`),
    /// after the enclosing contexts brought it into theirs.
    fn add_value(&self, s: &Scope, x: &Output) -> Result<Output>;
    /// The frames of the while loops whose cond or body is being built around this
    /// context, innermost first.
    fn while_frames(&self) -> Vec<String>;
}

thread_local! {
    static STACK: RefCell<Vec<Rc<dyn FlowContext>>> = const { RefCell::new(Vec::new()) };
    static HANDLED: RefCell<HashSet<usize>> = RefCell::new(HashSet::new());
}

/// The innermost context being built in graph `g`, if any.
pub(crate) fn enclosing(g: &Graph) -> Option<Rc<dyn FlowContext>> {
    STACK.with(|s| s.borrow().last().filter(|c| c.graph().same(g)).cloned())
}

/// The frames of the while loops being built in graph `g` (their cond or body is being
/// built now: `tf.gradients` called there differentiates one iteration), innermost first.
pub(crate) fn building_while_frames(g: &Graph) -> Vec<String> {
    enclosing(g).map(|c| c.while_frames()).unwrap_or_default()
}

/// Runs `f` with `ctx` as the innermost context.
pub(crate) fn within<R>(ctx: Rc<dyn FlowContext>, f: impl FnOnce() -> R) -> R {
    STACK.with(|s| s.borrow_mut().push(ctx));
    let r = f();
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        s.pop();
        if s.is_empty() {
            HANDLED.with(|h| h.borrow_mut().clear());
        }
    });
    r
}

/// Records ops an inner context has handled (an enclosing context skips them).
pub(crate) fn mark_handled(ids: impl IntoIterator<Item = usize>) {
    if STACK.with(|s| s.borrow().is_empty()) {
        return;
    }
    HANDLED.with(|h| h.borrow_mut().extend(ids));
}

/// Whether an inner context has handled op `id`.
pub(crate) fn handled(id: usize) -> bool {
    HANDLED.with(|h| h.borrow().contains(&id))
}
