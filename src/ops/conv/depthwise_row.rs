//! The forward depthwise convolution's inner loop for a channel multiplier of 1 (every
//! Keras `DepthwiseConv2D` and MobileNet): one output row, each output pixel's channels
//! summed over its window's taps in blocks held in registers, then the fused epilogue.
//!
//! The loop is compiled twice: for the baseline x86-64 (SSE2) and with AVX2 enabled,
//! chosen at run time, so one binary uses 256-bit vectors where the CPU has them. Both
//! compute each output with the same multiplies and adds in the same order (no fused
//! multiply-add), so the values do not depend on the CPU.

use crate::ops::kernels::{Epilogue, Float};

/// Channels one step keeps in registers (two AVX2 vectors of float32, four SSE2 ones).
const LANES: usize = 16;

/// What one output row reads: `x` the NHWC input, `f` the `[kh, kw, c, 1]` filter, `cm` the
/// channels, `rows` the window's rows inside the input for this output row (the input row's
/// first element index, the filter row's first tap), and `ix(ox, kx)` the input column
/// of tap `kx` of output column `ox` (`None` in the padding).
pub(super) struct Row<'a, T, F> {
    pub x: &'a [T],
    pub f: &'a [T],
    pub cm: usize,
    pub kw: usize,
    pub rows: &'a [(usize, usize)],
    pub ix: F,
}

/// Computes the output row `out` (`ow * cm` values, any prior content) and applies `ep` to
/// each pixel.
pub(super) fn forward_row<T: Float, F: Fn(usize, usize) -> Option<usize>>(
    r: &Row<T, F>,
    out: &mut [T],
    ep: Epilogue<T>,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above)
        unsafe { forward_row_avx2(r, out, ep) };
        return;
    }
    forward_row_any(r, out, ep);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn forward_row_avx2<T: Float, F: Fn(usize, usize) -> Option<usize>>(r: &Row<T, F>, out: &mut [T], ep: Epilogue<T>) {
    forward_row_any(r, out, ep);
}

#[inline(always)]
fn forward_row_any<T: Float, F: Fn(usize, usize) -> Option<usize>>(r: &Row<T, F>, out: &mut [T], ep: Epilogue<T>) {
    let cm = r.cm;
    // (input element, filter element) of each tap of the current pixel, reused per pixel
    let mut taps: Vec<(usize, usize)> = Vec::with_capacity(r.rows.len() * r.kw);
    for (ox, ys) in out.chunks_exact_mut(cm).enumerate() {
        taps.clear();
        for &(xr, fr) in r.rows {
            taps.extend((0..r.kw).filter_map(|kx| (r.ix)(ox, kx).map(|ix| ((xr + ix) * cm, (fr + kx) * cm))));
        }
        let mut c0 = 0;
        while c0 + LANES <= cm {
            let mut acc = [T::ZERO; LANES];
            for &(xi, fi) in &taps {
                let xs: &[T; LANES] = r.x[xi + c0..xi + c0 + LANES].try_into().expect("LANES elements");
                let ws: &[T; LANES] = r.f[fi + c0..fi + c0 + LANES].try_into().expect("LANES elements");
                for l in 0..LANES {
                    acc[l] += xs[l] * ws[l];
                }
            }
            ys[c0..c0 + LANES].copy_from_slice(&acc);
            c0 += LANES;
        }
        if c0 < cm {
            let tail = &mut ys[c0..];
            tail.iter_mut().for_each(|y| *y = T::ZERO);
            for &(xi, fi) in &taps {
                for ((y, &w), &x) in tail.iter_mut().zip(&r.f[fi + c0..fi + cm]).zip(&r.x[xi + c0..xi + cm]) {
                    *y += x * w;
                }
            }
        }
        ep.apply(ys, 0);
    }
}
