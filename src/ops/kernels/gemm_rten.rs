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

use super::gemm_dims::Dims;
use crate::tensor::Tensor;
use rten_gemm::{GemmExecutor, GemmInputA, GemmInputB, GemmUninitOptions, PackedBMatrix};
use rten_tensor::NdTensorView;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

thread_local! {
    /// This thread's float32 executor (its kernel picked from the CPU's features; one per
    /// thread because the crate's executor is `Sync` but not `Send`).
    static EXECUTOR: GemmExecutor<f32> = GemmExecutor::default();
}

/// Depth up to which `matrixmultiply` computes a product of several rows: its 8×8 tile
/// ran MobileNetV2's 16-deep 1x1 convolution 1.35× faster than `rten-gemm`'s 6×16 one,
/// whose fixed cost per tile weighs on so few steps (from 24 deep `rten-gemm` is faster).
/// Both sum each output in the same order, so the values do not change.
pub(crate) const SHORT_DEPTH: usize = 16;

/// A float32 `[k, n]` right operand packed once into `rten-gemm`'s panel layout, for a
/// product whose weights are a constant (TensorFlow's oneDNN kernels keep weights in their
/// blocked layout the same way). Made by [`PackedWeights::get`].
pub(crate) struct PackedB(PackedBMatrix<f32>);

impl PackedB {
    /// `data` read as a row-major `[k, n]` matrix, packed; `None` when it does not hold
    /// `k * n` elements or is empty.
    pub(crate) fn new(data: &[f32], k: usize, n: usize) -> Option<PackedB> {
        if k.checked_mul(n) != Some(data.len()) || k == 0 || n == 0 {
            return None;
        }
        Some(PackedB(EXECUTOR.with(|ex| ex.prepack_b(NdTensorView::from_data([k, n], data)))))
    }
}

/// A kernel's packed copy of its constant right operand (`Conv2D`'s filter, `MatMul`'s
/// `b`), made on its first run and reused while later runs pass the same buffer (a
/// `Const` node's value is one buffer for every run). Holds a clone of the tensor it
/// packed, so that buffer cannot change (copy on write) while the packed copy is in use.
#[derive(Default)]
pub(crate) struct PackedWeights {
    slot: Mutex<Option<(Tensor, Arc<PackedB>)>>,
}

impl PackedWeights {
    /// The packed form of `t` read as a row-major float32 `[k, n]` matrix: the one kept
    /// when `t` shares its buffer, else packed now and kept. `None` when `t` is not float32
    /// or does not hold `k * n` elements, and when `k` is at most [`SHORT_DEPTH`] (such a
    /// product runs on `matrixmultiply`, which never reads the packed form).
    pub(crate) fn get(&self, t: &Tensor, k: usize, n: usize) -> Option<Arc<PackedB>> {
        if k <= SHORT_DEPTH {
            return None;
        }
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kept, packed)) = slot.as_ref() {
            if kept.shares_buffer(t) {
                return Some(packed.clone());
            }
        }
        let data = t.as_slice::<f32>().ok()?;
        let packed = Arc::new(PackedB::new(data, k, n)?);
        *slot = Some((t.clone(), packed.clone()));
        Some(packed)
    }
}

/// `c = a @ b` for the `[m, k] @ [k, n]` product `d` (`a`, `b` from their first element
/// with `d`'s strides; `c` row-major `[m, n]`, written, never read), on rayon's current
/// pool; with `packed`, `b`'s packed form (made from the same `[k, n]` matrix) is read in
/// its place, except for a single row (`rten-gemm`'s matrix-vector path reads `b` as is).
/// Returns false (nothing written) when the operands do not fit `d` (callers check the
/// spans first, so this does not happen) or `rten-gemm` refuses them.
pub(crate) fn product(d: Dims, a: &[f32], b: &[f32], packed: Option<&PackedB>, c: &mut [MaybeUninit<f32>]) -> bool {
    let (Ok(av), Ok(bv)) = (
        NdTensorView::from_slice_with_strides([d.m, d.k], a, [d.rsa as usize, d.csa as usize]),
        NdTensorView::from_slice_with_strides([d.k, d.n], b, [d.rsb as usize, d.csb as usize]),
    ) else {
        return false;
    };
    let rhs = match packed {
        Some(p) if d.m > 1 && p.0.rows() == d.k && p.0.cols() == d.n => GemmInputB::Packed(&p.0),
        _ => GemmInputB::Unpacked(bv),
    };
    let out = &mut c[..d.m * d.n];
    EXECUTOR.with(|ex| ex.gemm_uninit(out, GemmInputA::Unpacked(av), rhs, GemmUninitOptions::default()).is_ok())
}
