//! Static control-flow information of a run plan (TensorFlow's `BuildControlFlowInfo`):
//! the loop frame each op runs in, and the frames themselves.
//!
//! A breadth-first walk from the ops without inputs (and the fed tensors), all in the root
//! frame, gives each op the frame its first-seen input's value is in: an `Enter`'s output
//! is in the child frame its `frame_name` names, an `Exit`'s in the parent of its own
//! frame, every other op's in its own frame. An op whose inputs are in different frames,
//! a frame entered from two different parents, an `Exit` outside any loop, and an op no
//! walk reaches (on a cycle that no `Enter` enters) are errors.

use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::control_flow::{control_flow, enter_attrs, ControlFlow};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// One static loop frame (the root frame is frame 0, named `""`).
pub(crate) struct StaticFrame {
    /// The `frame_name` of its Enters (`while/while_context`).
    pub name: String,
    /// The frame its Enters run in (0 for the root frame itself).
    pub parent: usize,
    /// The most iterations of one instance of the frame in flight at once (the
    /// `parallel_iterations` of its first Enter).
    pub parallel_iterations: usize,
    /// The number of Enter ops into the frame (each delivers once per instance).
    pub enters: usize,
}

/// The frames of a plan's ops.
pub(crate) struct FrameAssignment {
    /// The frame each op runs in, by op (item) index.
    pub frame_of: Vec<usize>,
    /// For an Enter, the frame its output is in.
    pub enter_child: Vec<Option<usize>>,
    /// The frames, root first.
    pub frames: Vec<StaticFrame>,
}

/// Who first reached an op in the walk (for error messages).
#[derive(Clone, Copy)]
enum Via {
    Unreached,
    Start,
    Feed(usize),
    Op(usize),
}

/// Assigns frames to `ops` (a plan's ops, by index), given each op's `consumers` (ops
/// reading one of its outputs or depending on it by a control edge), the `roots` (ops with
/// no input from another op of the plan) and the consumers of each fed tensor (`feeds`:
/// tensor name, consumers).
/// Errors: `InvalidArgument` for an op with inputs from different frames, an Enter without
/// a frame name or with `parallel_iterations` <= 0, an Exit in the root frame, or an op that
/// can never run; `Internal` for a frame entered from two different frames (TensorFlow's
/// "Invalid loop structure").
pub(crate) fn assign_frames(
    ops: &[Arc<Node>],
    consumers: &[Vec<usize>],
    roots: &[usize],
    feeds: &[(String, Vec<usize>)],
) -> Result<FrameAssignment> {
    let n = ops.len();
    let mut a = FrameAssignment {
        frame_of: vec![usize::MAX; n],
        enter_child: vec![None; n],
        frames: vec![StaticFrame { name: String::new(), parent: 0, parallel_iterations: 1, enters: 0 }],
    };
    let mut walk = Walk { ops, feeds, via: vec![Via::Unreached; n], queue: VecDeque::with_capacity(n) };
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (i, (_, cons)) in feeds.iter().enumerate() {
        for &c in cons {
            walk.visit(&mut a, c, 0, Via::Feed(i))?;
        }
    }
    for &r in roots {
        walk.visit(&mut a, r, 0, Via::Start)?;
    }
    while let Some(op) = walk.queue.pop_front() {
        let frame = a.frame_of[op];
        let out = match control_flow(ops[op].op_type) {
            Some(ControlFlow::Enter) => {
                let (name, _, parallel) = enter_attrs(&ops[op])?;
                let child = match by_name.get(&name) {
                    Some(&c) => {
                        if a.frames[c].parent != frame {
                            return Err(Error::internal(format!(
                                "Invalid loop structure: Mismatched parent frames for \"{name}\": \"{}\" vs \"{}\". The node giving this error: '{}'. (The Enters of one loop must all read tensors of the same frame.)",
                                a.frames[frame].name, a.frames[a.frames[c].parent].name, ops[op].name
                            )));
                        }
                        c
                    }
                    None => {
                        a.frames.push(StaticFrame {
                            name: name.clone(),
                            parent: frame,
                            parallel_iterations: parallel,
                            enters: 0,
                        });
                        by_name.insert(name, a.frames.len() - 1);
                        a.frames.len() - 1
                    }
                };
                a.frames[child].enters += 1;
                a.enter_child[op] = Some(child);
                child
            }
            Some(ControlFlow::Exit) => {
                if frame == 0 {
                    return Err(Error::invalid_argument(format!(
                        "{} '{}' is not inside a while loop: its input is in the root frame (an Exit's input comes from a loop frame, entered through an Enter)",
                        ops[op].op_type, ops[op].name
                    )));
                }
                a.frames[frame].parent
            }
            _ => frame,
        };
        for &c in &consumers[op] {
            walk.visit(&mut a, c, out, Via::Op(op))?;
        }
    }
    if let Some(op) = (0..n).find(|&i| matches!(walk.via[i], Via::Unreached)) {
        return Err(Error::invalid_argument(format!(
            "op '{}' ({}) can never run: it is on a cycle that no Enter enters (a while loop's Merge takes its first input from an Enter)",
            ops[op].name, ops[op].op_type
        )));
    }
    Ok(a)
}

/// The breadth-first walk's state.
struct Walk<'a> {
    ops: &'a [Arc<Node>],
    feeds: &'a [(String, Vec<usize>)],
    via: Vec<Via>,
    queue: VecDeque<usize>,
}

impl Walk<'_> {
    /// Reaches `op` from `from`, whose output is in `frame`: the first time, `op` runs in
    /// `frame`; afterwards `frame` must be the same.
    fn visit(&mut self, a: &mut FrameAssignment, op: usize, frame: usize, from: Via) -> Result<()> {
        if a.frame_of[op] == usize::MAX {
            a.frame_of[op] = frame;
            self.via[op] = from;
            self.queue.push_back(op);
            return Ok(());
        }
        if a.frame_of[op] == frame {
            return Ok(());
        }
        let name = |v: Via| match v {
            Via::Op(i) => format!("'{}'", self.ops[i].name),
            Via::Feed(i) => format!("fed tensor '{}'", self.feeds[i].0),
            Via::Start | Via::Unreached => "(none)".to_string(),
        };
        Err(Error::invalid_argument(format!(
            "Node '{}' has inputs from different frames. The input {} is in frame '{}'. The input {} is in frame '{}'. (An op inside a while loop reads tensors of its own frame: values from outside enter through an Enter, values leave through an Exit.)",
            self.ops[op].name,
            name(from),
            a.frames[frame].name,
            name(self.via[op]),
            a.frames[a.frame_of[op]].name
        )))
    }
}
