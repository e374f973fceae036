//! Matrix products: float32 through `rten-gemm` where it may use rayon's current pool (an
//! intra-op worker, or a product large enough to split over the session's pool, see
//! `gemm_rten.rs`), else through the `matrixmultiply` crate (f32, f64), split over the
//! intra-op pool: a product with enough work is cut into blocks of output rows (or of
//! output columns when there are few rows), each block one `matrixmultiply` call on one
//! thread. Measured against the `gemm` crate and `matrixmultiply`'s own threading
//! (BENCHMARKS.md): `matrixmultiply` was faster per core than `gemm`, `rten-gemm` faster
//! than both. Both crates pick their kernel (AVX-512, AVX2/FMA, SSE2, ...) from the CPU at
//! run time, so one binary runs everywhere.

use super::epilogue::Epilogue;
use super::gemm_dims::Dims;
use super::gemm_rten::{PackedB, SHORT_DEPTH};
use super::{parallel, Float, Num};
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, try_with_capacity, DType, Tensor};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// `a @ b` for rank-2 float32/float64 tensors, with TensorFlow's `transpose_a` and
/// `transpose_b`. Errors: `InvalidArgument` for other ranks/dtypes or mismatched inner
/// dimensions (naming both shapes).
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    matmul_packed(a, b, transpose_a, transpose_b, None)
}

/// [`matmul`] reading float32 `b` (not transposed) from `packed`, its packed form, where
/// the product runs on `rten-gemm`. Errors: as [`matmul`].
pub(crate) fn matmul_packed(
    a: &Tensor,
    b: &Tensor,
    transpose_a: bool,
    transpose_b: bool,
    packed: Option<&PackedB>,
) -> Result<Tensor> {
    let dims = matmul_dims(a, b, transpose_a, transpose_b)?;
    match a.dtype() {
        DType::Float => product_with::<f32>(a, b, dims, Epilogue::none(), packed.filter(|_| !transpose_b)),
        DType::Double => product::<f64>(a, b, dims),
        other => Err(Error::invalid_argument(format!("MatMul has no kernel for dtype {other}"))),
    }
}

/// The `Dims` of `a @ b` (with the transposes). Errors: as [`matmul`] for shapes.
fn matmul_dims(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Dims> {
    if a.rank() != 2 || b.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "In[0] and In[1] must be matrices: {} and {}",
            fmt_dims(a.shape()),
            fmt_dims(b.shape())
        )));
    }
    let (ar, ac) = (a.shape()[0], a.shape()[1]);
    let (br, bc) = (b.shape()[0], b.shape()[1]);
    let (m, k) = if transpose_a { (ac, ar) } else { (ar, ac) };
    let (k2, n) = if transpose_b { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(Error::invalid_argument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} (transpose_a={transpose_a}, transpose_b={transpose_b})",
            fmt_dims(a.shape()),
            fmt_dims(b.shape())
        )));
    }
    // (row stride, column stride) of the logical operand
    let (rsa, csa) = if transpose_a { (1, ac as isize) } else { (ac as isize, 1) };
    let (rsb, csb) = if transpose_b { (1, bc as isize) } else { (bc as isize, 1) };
    Ok(Dims { m, k, n, rsa, csa, rsb, csb })
}

/// The signature of `matrixmultiply::sgemm` / `dgemm`.
type GemmFn<T> =
    unsafe fn(usize, usize, usize, T, *const T, isize, isize, *const T, isize, isize, T, *mut T, isize, isize);

/// A float type with a `matrixmultiply` kernel.
pub(crate) trait Gemm: Num {
    /// `matrixmultiply::sgemm` or `dgemm`.
    const GEMM: GemmFn<Self>;
    /// True when [`Gemm::rten_product`] computes products of this type.
    const RTEN: bool = false;
    /// `c = a @ b` through `rten-gemm` on rayon's current pool (see `gemm_rten.rs`); false
    /// when this type has no such kernel or it refused the operands (nothing written).
    fn rten_product(_d: Dims, _a: &[Self], _b: &[Self], _p: Option<&PackedB>, _c: &mut [MaybeUninit<Self>]) -> bool {
        false
    }
}
impl Gemm for f32 {
    const GEMM: GemmFn<f32> = matrixmultiply::sgemm;
    const RTEN: bool = true;
    fn rten_product(d: Dims, a: &[f32], b: &[f32], p: Option<&PackedB>, c: &mut [MaybeUninit<f32>]) -> bool {
        super::gemm_rten::product(d, a, b, p, c)
    }
}
impl Gemm for f64 {
    const GEMM: GemmFn<f64> = matrixmultiply::dgemm;
}

fn product<T: Gemm + Float>(a: &Tensor, b: &Tensor, d: Dims) -> Result<Tensor> {
    product_with::<T>(a, b, d, Epilogue::none(), None)
}

/// `matmul` with a bias and activation applied as the product writes its output
/// (`_FusedMatMul`); `ep.bias` must have one value per output column; `packed` as
/// [`matmul_packed`]. Errors: as [`matmul`], and `InvalidArgument` for a bias of another
/// length.
pub(crate) fn matmul_fused<T: Gemm + Float>(
    a: &Tensor,
    b: &Tensor,
    transpose_a: bool,
    transpose_b: bool,
    ep: Epilogue<T>,
    packed: Option<&PackedB>,
) -> Result<Tensor> {
    let probe = matmul_dims(a, b, transpose_a, transpose_b)?;
    if let Some(bias) = ep.bias {
        if bias.len() != probe.n {
            return Err(Error::invalid_argument(format!(
                "bias has {} values but the product has {} columns",
                bias.len(),
                probe.n
            )));
        }
    }
    if a.dtype() != T::DTYPE || b.dtype() != T::DTYPE {
        return Err(Error::invalid_argument(format!("MatMul operands are {} and {}", a.dtype(), b.dtype())));
    }
    product_with(a, b, probe, ep, packed.filter(|_| !transpose_b))
}

fn product_with<T: Gemm + Float>(
    a: &Tensor,
    b: &Tensor,
    d: Dims,
    ep: Epilogue<T>,
    packed: Option<&PackedB>,
) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    // [m, 0] @ [0, n] is m * n zeros from two empty inputs: checked and allocated fallibly
    let len = d.m.checked_mul(d.n).ok_or_else(|| {
        Error::invalid_argument(format!("MatMul output [{}, {}] has more elements than fit in memory", d.m, d.n))
    })?;
    let mut c = try_with_capacity::<T>(len, a.dtype())?;
    gemm_uninit_packed(d, x, y, packed, &mut c.spare_capacity_mut()[..len], ep);
    // SAFETY: `gemm_uninit_packed` wrote all `len` elements
    unsafe { c.set_len(len) };
    Tensor::new(&[d.m, d.n], c)
}

/// A pointer that may cross to the pool's threads (each piece writes its own block).
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: the pieces given one pointer write disjoint blocks of the output.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

/// Elements of `b` (`k * n`) from which a one-row float32 product runs on `rten-gemm`'s
/// vector path: it reads `b` as it lies, where `matrixmultiply` packs all of `b` and fills
/// one row of its 8-row tile (MobileNetV2's 1280 × 1000 classifier at batch 1: 0.9-1.3 →
/// 0.4-0.55 ms, BENCHMARKS.md). The choice depends on the sizes alone, never on the thread
/// or pool, since the two sum in different orders and a value must not depend on either.
const VECTOR_MIN_ELEMENTS: usize = 16 * 1024;

/// Output columns of one `rten-gemm` vector-path call. The crate splits a call over
/// rayon's current pool in pieces of `max(ceil(n / threads), 128)` columns, and sums the
/// last `n % 32` columns of a piece without SIMD (in another order): a call of 128 columns
/// is one piece on any pool, so it runs inline on the calling thread and each output
/// sums in one order whatever the thread count (`tests/session_threads.rs` holds it
/// bitwise). One call for all columns, split as the pool says, was 10-20% faster.
const VECTOR_COLUMNS: usize = 128;

/// Multiply-adds below which a product runs on one thread (about 40 µs of work).
const MIN_PARALLEL_MACS: usize = 1 << 21;

/// Output elements a fused product computes before it applies its epilogue to them: the
/// block is then still in the core's cache (a block of rows, each one product call).
const EPILOGUE_BLOCK: usize = 1 << 14;

/// `c = a @ b` where `a` and `b` hold the matrices of `d` (from their first element, with
/// `d`'s strides) and `c` is `[m, n]` row-major. Split over the intra-op pool when large.
/// Panics when the slices are shorter than `d` says (callers size them from `d`).
pub(crate) fn gemm<T: Gemm + Float>(d: Dims, a: &[T], b: &[T], c: &mut [T]) {
    assert!(c.len() >= d.m * d.n);
    gemm_blocks(d, a, b, None, SendPtr(c.as_mut_ptr()), Epilogue::none());
}

/// [`gemm`] into memory not yet initialised (an output allocated for it), followed, block
/// by block on the thread that computed the block, by `ep`: the product is written
/// (`beta = 0`), then the bias added and the activation applied while the block is in
/// cache, so the values are those of the product followed by `BiasAdd` and the activation.
/// Every one of the first `m * n` elements of `c` is written. Panics as [`gemm`], and when
/// the bias is shorter than `d.n`.
/// With `packed` (the packed form of `b`, a row-major `[k, n]` float32 matrix), the
/// product reads it in `b`'s place where it runs on `rten-gemm`.
pub(crate) fn gemm_uninit_packed<T: Gemm + Float>(
    d: Dims,
    a: &[T],
    b: &[T],
    packed: Option<&PackedB>,
    c: &mut [MaybeUninit<T>],
    ep: Epilogue<T>,
) {
    assert!(c.len() >= d.m * d.n);
    gemm_blocks(d, a, b, packed, SendPtr(c.as_mut_ptr().cast::<T>()), ep);
}

/// The blocked product of [`gemm_uninit_packed`] into `c` (at least `m * n` elements, checked by
/// the callers; written, never read).
fn gemm_blocks<T: Gemm + Float>(d: Dims, a: &[T], b: &[T], packed: Option<&PackedB>, c: SendPtr<T>, ep: Epilogue<T>) {
    if d.m == 0 || d.n == 0 {
        return;
    }
    let span = |rows: usize, rs: isize, cols: usize, cs: isize| (rows - 1) * rs as usize + (cols - 1) * cs as usize + 1;
    if let Some(bias) = ep.bias {
        assert!(bias.len() >= d.n);
    }
    if let Some(norm) = ep.norm {
        assert!(norm.channels() >= d.n);
    }
    let plain = ep.is_plain();
    // SAFETY (every use): a block of `c` given to one piece (rows [i0, i0+rows), columns
    // [j0, j0+cols)), which no other piece touches, and which the product has written
    let epilogue = |c: SendPtr<T>, i0: usize, rows: usize, j0: usize, cols: usize| unsafe {
        if plain {
            return;
        }
        ep.apply_rows(c.0.add(i0 * d.n + j0), d.n, rows, cols, j0);
    };
    if d.k == 0 {
        // SAFETY: the callers' `c` holds m * n elements
        let all = unsafe { std::slice::from_raw_parts_mut(c.0, d.m * d.n) };
        all.iter_mut().for_each(|v| *v = T::ZERO);
        epilogue(c, 0, d.m, 0, d.n);
        return;
    }
    assert!(a.len() >= span(d.m, d.rsa, d.k, d.csa) && b.len() >= span(d.k, d.rsb, d.n, d.csb));
    let threads = parallel::threads();
    let macs = d.m.saturating_mul(d.n).saturating_mul(d.k);
    // rows of one product call when an epilogue follows (a multiple of the kernel's 64-row
    // blocks), so that the epilogue finds the block in cache
    let sub = if plain { usize::MAX } else { (EPILOGUE_BLOCK / d.n.max(1)).next_multiple_of(64).max(128) };
    // SAFETY (every call below): the bounds were checked above; each call reads rows
    // [i0, i0+rows) of a and columns [j0, j0+cols) of b, and writes that block of c
    // (`beta = 0`: c is not read).
    // `rten-gemm` splits over rayon's current pool whenever it has more than one thread:
    // used on a one-thread worker (a serial run's), or for a product worth splitting,
    // moved into the session's pool (whole rows only: it writes a contiguous output). A
    // small product on a worker of a larger pool stays whole on `matrixmultiply`: split,
    // its pieces would wait on the other threads longer than they compute (the matrix
    // path sums as `matrixmultiply` does, so the choice never changes a value). A one-row
    // product takes the vector path below by its size alone (`VECTOR_MIN_ELEMENTS`)
    let use_rten = T::RTEN
        && d.m > 1
        && d.k > SHORT_DEPTH
        && if threads > 1 { macs >= MIN_PARALLEL_MACS } else { parallel::is_worker() };
    let call = |i0: usize, rows: usize, j0: usize, cols: usize, c: SendPtr<T>| {
        let mut r0 = i0;
        while r0 < i0 + rows {
            let r = sub.min(i0 + rows - r0);
            let done = use_rten && j0 == 0 && cols == d.n && {
                let out =
                    unsafe { std::slice::from_raw_parts_mut(c.0.add(r0 * d.n).cast::<MaybeUninit<T>>(), r * d.n) };
                let rows_a = &a[(r0 as isize * d.rsa) as usize..];
                T::rten_product(Dims { m: r, ..d }, rows_a, b, packed, out)
            };
            if !done {
                unsafe {
                    T::GEMM(
                        r,
                        d.k,
                        cols,
                        T::ONE,
                        a.as_ptr().offset(r0 as isize * d.rsa),
                        d.rsa,
                        d.csa,
                        b.as_ptr().offset(j0 as isize * d.csb),
                        d.rsb,
                        d.csb,
                        T::ZERO,
                        c.0.add(r0 * d.n + j0),
                        d.n as isize,
                        1,
                    );
                }
            }
            epilogue(c, r0, r, j0, cols);
            r0 += r;
        }
    };
    // one row: `rten-gemm`'s vector path, a call per `VECTOR_COLUMNS` columns
    // (`matrixmultiply` where it refuses one), the calls spread over the pool when the
    // product is large
    if T::RTEN && d.m == 1 && d.k * d.n >= VECTOR_MIN_ELEMENTS {
        let calls = d.n.div_ceil(VECTOR_COLUMNS);
        let vector_call = |p: usize| {
            let j0 = p * VECTOR_COLUMNS;
            let cols = VECTOR_COLUMNS.min(d.n - j0);
            // SAFETY: columns [j0, j0 + cols) of the one output row, this call's alone
            let out = unsafe { std::slice::from_raw_parts_mut(c.0.add(j0).cast::<MaybeUninit<T>>(), cols) };
            let b_cols = &b[(j0 as isize * d.csb) as usize..];
            if T::rten_product(Dims { n: cols, ..d }, a, b_cols, None, out) {
                epilogue(c, 0, 1, j0, cols);
            } else {
                call(0, 1, j0, cols, c);
            }
        };
        let per = if threads > 1 && macs >= MIN_PARALLEL_MACS { calls.div_ceil(2 * threads) } else { calls };
        parallel::install(|| {
            (0..calls.div_ceil(per))
                .into_par_iter()
                .for_each(|q| (q * per..calls.min((q + 1) * per)).for_each(vector_call))
        });
        return;
    }
    // the output's rows in blocks of `per` (the last may be shorter), one piece each, over the pool
    let row_blocks = |per: usize| {
        let blocks = d.m.div_ceil(per);
        parallel::install(|| {
            (0..blocks).into_par_iter().for_each(|p| {
                let i0 = p * per;
                call(i0, per.min(d.m - i0), 0, d.n, c)
            })
        });
    };
    if use_rten {
        if plain || threads <= 1 {
            parallel::install(|| call(0, d.m, 0, d.n, c));
            return;
        }
        // with an epilogue, each thread takes runs of whole `sub`-row calls (so the calls,
        // and the rows `rten-gemm` sums together, are those of a serial run) and applies
        // the epilogue to the block it just computed: a few large pieces per thread, not
        // one fork and join per call with the epilogue on the calling thread alone
        row_blocks(d.m.div_ceil(4 * threads).next_multiple_of(sub).min(d.m));
        return;
    }
    if threads <= 1 || macs < MIN_PARALLEL_MACS {
        call(0, d.m, 0, d.n, c);
        return;
    }
    if d.m >= 32 * threads || d.m >= d.n {
        // row blocks, a multiple of 8 rows, about two per thread
        row_blocks(d.m.div_ceil(2 * threads).next_multiple_of(8).min(d.m));
    } else {
        // column blocks, a multiple of 16 columns
        let per = d.n.div_ceil(2 * threads).next_multiple_of(16).min(d.n);
        let blocks = d.n.div_ceil(per);
        parallel::install(|| {
            (0..blocks).into_par_iter().for_each(|p| {
                let j0 = p * per;
                call(0, d.m, j0, per.min(d.n - j0), c)
            })
        });
    }
}
