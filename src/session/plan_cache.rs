//! The session's cache of run plans, one per (feeds, fetches, targets) signature. A run
//! looks its plan up by a borrowed signature ([`KeyRef`], built on the stack): the hash is
//! computed once from the op ids and output indices, and the stored signature is compared
//! value by value only for entries with that hash, so a cache hit allocates nothing.
//! Each entry also keeps the buffers of the plan's previous run ([`Spare`]) for the next.

use super::frames::{Spare, SpareSlot};
use super::plan::{Plan, PlanKey};
use crate::error::Result;
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, RwLock};

/// A signature borrowed from a run's arguments: fed tensors and fetched tensors as
/// (op id, output index), target op ids.
#[derive(Clone, Copy)]
pub(crate) struct KeyRef<'a> {
    pub feeds: &'a [(usize, usize)],
    pub fetches: &'a [(usize, usize)],
    pub targets: &'a [usize],
}

impl KeyRef<'_> {
    fn hash(&self) -> u64 {
        let mut h = FxHasher::default();
        self.feeds.hash(&mut h);
        self.fetches.hash(&mut h);
        self.targets.hash(&mut h);
        h.finish()
    }

    fn matches(&self, key: &PlanKey) -> bool {
        same(&key.0, self.feeds) && same(&key.1, self.fetches) && same(&key.2, self.targets)
    }

    fn to_key(self) -> PlanKey {
        (self.feeds.to_vec(), self.fetches.to_vec(), self.targets.to_vec())
    }
}

/// `a == b` element by element: signatures are a few ids long, and the slice comparison's
/// call to `memcmp` cost more than the comparison itself (7% of a small run's time).
fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A cached plan with the buffers its previous run left.
pub(crate) struct CachedPlan {
    pub plan: Plan,
    /// Buffers for the next run (one run at a time reuses them; concurrent runs of the
    /// same plan allocate their own).
    pub spare: SpareSlot,
}

struct Entry {
    hash: u64,
    key: PlanKey,
    cached: Arc<CachedPlan>,
}

/// Plans by signature, shared by the threads calling `run`.
#[derive(Default)]
pub(crate) struct PlanCache {
    table: RwLock<HashTable<Entry>>,
}

impl PlanCache {
    /// The plan of `key`, built with `build` (without the cache's lock held) and cached on
    /// first use; when two threads build the same plan at once, the first one cached wins.
    /// Errors: those of `build`, and then nothing is cached.
    pub fn get_or_build(
        &self,
        key: KeyRef<'_>,
        build: impl FnOnce(&PlanKey) -> Result<Plan>,
    ) -> Result<Arc<CachedPlan>> {
        let hash = key.hash();
        if let Some(e) = self.table.read().unwrap_or_else(|e| e.into_inner()).find(hash, |e| key.matches(&e.key)) {
            return Ok(e.cached.clone());
        }
        let owned = key.to_key();
        let plan = build(&owned)?;
        let cached = Arc::new(CachedPlan { plan, spare: Mutex::new(None::<Spare>) });
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = table.find(hash, |e| key.matches(&e.key)) {
            return Ok(e.cached.clone());
        }
        table.insert_unique(hash, Entry { hash, key: owned, cached: cached.clone() }, |e| e.hash);
        Ok(cached)
    }

    /// The number of cached plans.
    pub fn len(&self) -> usize {
        self.table.read().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::KeyRef;

    #[test]
    fn signatures_differing_only_in_where_an_id_sits_hash_apart() {
        // fetch (1, 0) vs target 1: the same numbers in another part of the signature
        let a = KeyRef { feeds: &[], fetches: &[(1, 0)], targets: &[] };
        let b = KeyRef { feeds: &[], fetches: &[], targets: &[1, 0] };
        let c = KeyRef { feeds: &[(1, 0)], fetches: &[], targets: &[] };
        assert_ne!(a.hash(), b.hash());
        assert_ne!(a.hash(), c.hash());
        assert!(a.matches(&(vec![], vec![(1, 0)], vec![])));
        assert!(!c.matches(&(vec![], vec![(1, 0)], vec![])));
    }
}
