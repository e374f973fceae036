//! A per-thread scratch buffer that kernels reuse from one call to the next (the patch
//! matrix of a convolution), so that a run does not allocate and zero-fill it per node.
//!
//! The buffer is taken out of the thread's slot while a kernel uses it, so a kernel that
//! runs inside another on the same thread (rayon work-stealing while the outer kernel waits
//! for its pieces) gets a fresh buffer instead of sharing one.

use super::matmul::Gemm;
use crate::error::Result;
use crate::tensor::oom_error;
use std::cell::Cell;

/// Bytes a thread keeps between calls; a larger buffer is freed after its call.
const KEEP_BYTES: usize = 64 << 20;

thread_local! {
    /// The thread's buffer (8-byte elements, so that it is aligned for float32 and float64).
    static SCRATCH: Cell<Vec<u64>> = const { Cell::new(Vec::new()) };
}

/// Calls `f` with a slice of `len` elements of `T` (float32 or float64: the crate's
/// `Gemm` types, so that any bits read are a valid value) holding arbitrary
/// values left by earlier calls: `f` must write what it reads. Errors: `ResourceExhausted`
/// when the buffer cannot be grown to `len` elements.
pub(crate) fn with_scratch<T: Gemm, R>(len: usize, f: impl FnOnce(&mut [T]) -> R) -> Result<R> {
    let size = std::mem::size_of::<T>();
    let bytes = len.checked_mul(size).ok_or_else(|| oom_error(T::DTYPE, len, size))?;
    let words = bytes.div_ceil(8);
    let mut buf = SCRATCH.take();
    if buf.len() < words {
        buf.try_reserve_exact(words - buf.len()).map_err(|_| oom_error(T::DTYPE, len, size))?;
        buf.resize(words, 0);
    }
    // SAFETY: `buf` holds at least `len * size_of::<T>()` initialised bytes, aligned to 8,
    // and every bit pattern is a valid float32 or float64
    let slice = unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<T>(), len) };
    let r = f(slice);
    if buf.len() * 8 <= KEEP_BYTES {
        SCRATCH.set(buf);
    }
    Ok(r)
}
