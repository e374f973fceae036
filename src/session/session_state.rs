//! Per-session state: variable buffers and the generators of random ops.

use crate::graph::Node;
use crate::ops::VarSlot;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

/// Variable values and random generators of one session, keyed by op id.
#[derive(Default)]
pub(crate) struct SessionState {
    vars: RwLock<HashMap<usize, Arc<VarSlot>>>,
    rngs: Mutex<HashMap<String, Arc<Mutex<ChaCha8Rng>>>>,
}

impl SessionState {
    /// The buffer of variable op `id`, created empty (uninitialized) on first use.
    pub fn var_slot(&self, id: usize) -> Arc<VarSlot> {
        if let Some(s) = self.vars.read().unwrap_or_else(|e| e.into_inner()).get(&id) {
            return s.clone();
        }
        self.vars.write().unwrap_or_else(|e| e.into_inner()).entry(id).or_default().clone()
    }

    /// The generator of a random op, seeded from its `seed`/`seed2` attrs (entropy when both are 0).
    pub fn rng_for(&self, node: &Node) -> Option<Arc<Mutex<ChaCha8Rng>>> {
        let seed = node.attr_int_or("seed", 0).ok()?;
        let seed2 = node.attr_int_or("seed2", 0).ok()?;
        if !node.attrs.contains_key("seed") {
            return None;
        }
        let mut map = self.rngs.lock().unwrap_or_else(|e| e.into_inner());
        let entry = map.entry(node.name.clone()).or_insert_with(|| {
            let rng = if seed == 0 && seed2 == 0 {
                ChaCha8Rng::from_entropy()
            } else {
                ChaCha8Rng::seed_from_u64((seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed2 as u64)
            };
            Arc::new(Mutex::new(rng))
        });
        Some(entry.clone())
    }
}
