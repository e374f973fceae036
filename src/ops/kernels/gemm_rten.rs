//! float32 matrix products through the `rten-gemm` crate: its AVX2/FMA and AVX-512 kernels
//! (chosen from the CPU at run time) ran 1.2-1.45× faster per core than `matrixmultiply`'s
//! on every shape ResNet50, MobileNetV2 and the MLP use (BENCHMARKS.md), with bitwise the
//! same results (both accumulate each output over `k` in the same order and depth blocks).
//!
//! `rten-gemm` splits a product over rayon's *current* pool: called on an intra-op worker
//! it uses that worker's pool (one thread: no splitting), so [`super::matmul`] calls it only
//! there (a serial session runs expensive plans on a one-thread worker, see
//! `session/executor.rs`) or inside [`super::parallel::install`]. Elsewhere (the caller's
//! thread of a serial run) the product stays with `matrixmultiply`, which never threads.

use super::matmul::Dims;
use rten_gemm::{GemmExecutor, GemmInputA, GemmInputB, GemmUninitOptions};
use rten_tensor::NdTensorView;
use std::mem::MaybeUninit;

thread_local! {
    /// This thread's float32 executor (its kernel picked from the CPU's features; one per
    /// thread because the crate's executor is `Sync` but not `Send`).
    static EXECUTOR: GemmExecutor<f32> = GemmExecutor::default();
}

/// `c = a @ b` for the `[m, k] @ [k, n]` product `d` (`a`, `b` from their first element
/// with `d`'s strides; `c` row-major `[m, n]`, written, never read), on rayon's current
/// pool. Returns false (nothing written) when the operands do not fit `d` (callers check
/// the spans first, so this does not happen) or `rten-gemm` refuses them.
pub(crate) fn product(d: Dims, a: &[f32], b: &[f32], c: &mut [MaybeUninit<f32>]) -> bool {
    let (Ok(av), Ok(bv)) = (
        NdTensorView::from_slice_with_strides([d.m, d.k], a, [d.rsa as usize, d.csa as usize]),
        NdTensorView::from_slice_with_strides([d.k, d.n], b, [d.rsb as usize, d.csb as usize]),
    ) else {
        return false;
    };
    let out = &mut c[..d.m * d.n];
    EXECUTOR.with(|ex| {
        ex.gemm_uninit(out, GemmInputA::Unpacked(av), GemmInputB::Unpacked(bv), GemmUninitOptions::default()).is_ok()
    })
}
