//! Per-session state: variable buffers and the generators of random ops.

use crate::graph::Node;
use crate::ops::random::RandomState;
use crate::ops::resource_variable::resource_key;
use crate::ops::VarSlot;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

/// What a variable buffer is keyed by.
#[derive(Clone, PartialEq, Eq, Hash)]
enum VarKey {
    /// A reference variable (`VariableV2`, `Variable`) or an anonymous resource variable: its op id.
    Op(usize),
    /// A resource variable: its `VarHandleOp`'s (container, shared_name), as TensorFlow's
    /// resource manager keys it ([`crate::ops::resource_variable::resource_key`]).
    Resource(Vec<u8>, Vec<u8>),
}

/// Variable values and random generators of one session: reference variables keyed by op
/// id, resource variables by (container, shared_name), so that every `VarHandleOp` naming
/// the same resource reaches the same buffer, as in TensorFlow.
#[derive(Default)]
pub(crate) struct SessionState {
    vars: RwLock<HashMap<VarKey, Arc<VarSlot>>>,
    rngs: Mutex<HashMap<String, Arc<Mutex<RandomState>>>>,
}

impl SessionState {
    /// The buffer of variable op `id` (node `node`), created empty (uninitialized) on first
    /// use; for a `VarHandleOp`, the buffer of its (container, shared_name) resource.
    pub fn var_slot(&self, id: usize, node: &Node) -> Arc<VarSlot> {
        let key = match node.op_type {
            // the attrs were checked at import (VarHandleOp's shape function)
            "VarHandleOp" => match resource_key(node) {
                Ok(Some((container, name))) => VarKey::Resource(container, name),
                _ => VarKey::Op(id),
            },
            _ => VarKey::Op(id),
        };
        if let Some(s) = self.vars.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return s.clone();
        }
        self.vars.write().unwrap_or_else(|e| e.into_inner()).entry(key).or_default().clone()
    }

    /// The generator of a random op, seeded from its `seed`/`seed2` attrs (entropy when both are 0).
    pub fn rng_for(&self, node: &Node) -> Option<Arc<Mutex<RandomState>>> {
        let seed = node.attr_int_or("seed", 0).ok()?;
        let seed2 = node.attr_int_or("seed2", 0).ok()?;
        if !node.attrs.contains_key("seed") {
            return None;
        }
        let mut map = self.rngs.lock().unwrap_or_else(|e| e.into_inner());
        let entry = map.entry(node.name.clone()).or_insert_with(|| Arc::new(Mutex::new(RandomState::new(seed, seed2))));
        Some(entry.clone())
    }
}
