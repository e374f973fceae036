//! A process-wide pool of large float32 buffers, so that a run reuses the memory of the
//! tensors its kernels are done with instead of asking the system for fresh pages.
//!
//! glibc serves a large allocation (32 MiB or more) with fresh pages that the kernel
//! clears and maps on first touch, and returns them when the buffer is freed: a conv
//! net's biggest activations (37 MiB per tensor in MobileNetV2 at batch 8) were mapped,
//! faulted in and cleared again on every run. Now a
//! dropped tensor that was the last holder of such a buffer leaves it here while a
//! session is alive ([`PoolUser`]), and [`super::try_with_capacity`] takes a buffer from
//! here when one fits: a run's kernels reuse the memory of the tensors they are done with.
//!
//! The pool holds at most [`MAX_BUFFERS`] buffers and [`MAX_POOLED_BYTES`] in all; the
//! oldest buffer is freed to make room. When the last session is dropped, the pooled
//! buffers are freed ([`release_pooled_buffers`]).

use super::Storage;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Buffers smaller than this (bytes) are left to the system allocator: glibc maps every
/// allocation of 32 MiB or more afresh (its largest mmap threshold) but serves smaller
/// ones from its heap, reusing freed memory itself. Pooling from 1 MiB up measured 4%
/// slower on MobileNetV2 at batch 1 and no faster at batch 8 than from 32 MiB.
pub const MIN_POOLED_BYTES: usize = 32 << 20;
/// The most bytes the pool keeps.
pub const MAX_POOLED_BYTES: usize = 512 << 20;
/// The most buffers the pool keeps.
pub const MAX_BUFFERS: usize = 64;

/// The pooled buffers, oldest first, each empty (length 0) with its capacity.
static POOL: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());

/// The bytes `buffers` hold.
fn bytes_held(buffers: &[Vec<f32>]) -> usize {
    buffers.iter().map(|b| b.capacity() * 4).sum()
}

fn pool() -> std::sync::MutexGuard<'static, Vec<Vec<f32>>> {
    // the pool holds only plain buffers: a panic elsewhere cannot leave it inconsistent
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// An empty float32 buffer with room for at least `n` and at most `n + n / 4` elements,
/// from the pool, when `n` elements are large enough to be pooled and one fits: the one
/// freed last, whose memory is the likeliest to be in cache still.
pub(super) fn take(n: usize) -> Option<Vec<f32>> {
    if n.checked_mul(4).is_none_or(|b| b < MIN_POOLED_BYTES) {
        return None;
    }
    let mut pool = pool();
    let limit = n.saturating_add(n / 4);
    let last_fit = pool.iter().rposition(|v| (n..=limit).contains(&v.capacity()))?;
    Some(pool.remove(last_fit))
}

/// Sessions alive now: buffers are pooled only while one is.
static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// A session's hold on the pool (`Session` keeps one): buffers freed while any is alive
/// are kept for reuse; when the last one is dropped, the pooled buffers are freed.
#[derive(Debug)]
pub struct PoolUser(());

impl PoolUser {
    /// A new hold on the pool.
    pub fn new() -> PoolUser {
        SESSIONS.fetch_add(1, Ordering::Relaxed);
        PoolUser(())
    }
}

impl Default for PoolUser {
    fn default() -> Self {
        PoolUser::new()
    }
}

impl Drop for PoolUser {
    fn drop(&mut self) {
        if SESSIONS.fetch_sub(1, Ordering::Relaxed) == 1 {
            release_pooled_buffers();
        }
    }
}

/// Called when a tensor holding `storage` is dropped: keeps the buffer for reuse when it
/// is a large float32 buffer that no other tensor shares and a session is alive.
pub(super) fn recycle(storage: &mut Arc<Storage>) {
    // most tensors are small or another dtype: decided without touching the reference count
    if !matches!(&**storage, Storage::F32(v) if (MIN_POOLED_BYTES..=MAX_POOLED_BYTES).contains(&(v.capacity() * 4)))
        || SESSIONS.load(Ordering::Relaxed) == 0
    {
        return;
    }
    let Some(Storage::F32(v)) = Arc::get_mut(storage) else {
        return;
    };
    let mut v = std::mem::take(v);
    let bytes = v.capacity() * 4;
    v.clear();
    let mut evicted = Vec::new();
    {
        let mut pool = pool();
        let mut held = bytes_held(&pool);
        while !pool.is_empty() && (pool.len() >= MAX_BUFFERS || held + bytes > MAX_POOLED_BYTES) {
            let old = pool.remove(0);
            held -= old.capacity() * 4;
            evicted.push(old);
        }
        pool.push(v);
    }
    // the evicted buffers are freed outside the lock
    drop(evicted);
}

/// Frees every pooled buffer. Returns the bytes freed.
pub fn release_pooled_buffers() -> usize {
    let buffers = std::mem::take(&mut *pool());
    bytes_held(&buffers)
}

/// The bytes the pool holds now.
pub fn pooled_bytes() -> usize {
    bytes_held(&pool())
}
