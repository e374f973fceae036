//! The forward depthwise convolution's inner loop for a channel multiplier of 1 (every
//! Keras `DepthwiseConv2D` and MobileNet): one output row, each output pixel's channels
//! summed over its window's taps in blocks held in registers, then the fused epilogue.
//!
//! The loop is compiled twice: for the baseline x86-64 (SSE2) and with AVX2 enabled,
//! chosen at run time, so one binary uses 256-bit vectors where the CPU has them. Both
//! compute each output with the same multiplies and adds in the same order (no fused
//! multiply-add), so the values do not depend on the CPU.

use crate::ops::kernels::{Epilogue, Float};
use std::mem::MaybeUninit;

/// Channels one step keeps in registers (two AVX2 vectors of float32, four SSE2 ones).
const LANES: usize = 16;

/// Channels one step keeps in registers where a pixel has that many left: four AVX2
/// vectors of float32, four independent sums per tap instead of two. Alone it measured
/// within the noise on MobileNetV2 (BENCHMARKS.md); it is part of the loop that was
/// measured with the tap lists moved along the row.
const WIDE: usize = 32;

/// What one output row reads: `x` the NHWC input, `f` the `[kh, kw, c, 1]` filter, `cm` the
/// channels, `rows` the window's rows inside the input for this output row (the input row's
/// first element index, the filter row's first tap), and `ix(ox, kx)` the input column
/// of tap `kx` of output column `ox` (`None` in the padding). `interior` holds the output
/// columns whose `kw` taps are all inside the input, where a column's taps are the
/// previous column's moved `step` input elements on (the stride times `cm`).
pub(super) struct Row<'a, T, F> {
    pub x: &'a [T],
    pub f: &'a [T],
    pub cm: usize,
    pub kw: usize,
    pub rows: &'a [(usize, usize)],
    pub ix: F,
    pub interior: std::ops::Range<usize>,
    pub step: usize,
}

/// Writes the output row `out` (`ow * cm` values, never read before they are written,
/// so it may be memory not yet initialised) and applies `ep` to each pixel: every element
/// is initialised when it returns.
pub(super) fn forward_row<T: Float, F: Fn(usize, usize) -> Option<usize>>(
    r: &Row<T, F>,
    out: &mut [MaybeUninit<T>],
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
fn forward_row_avx2<T: Float, F: Fn(usize, usize) -> Option<usize>>(
    r: &Row<T, F>,
    out: &mut [MaybeUninit<T>],
    ep: Epilogue<T>,
) {
    forward_row_any(r, out, ep);
}

#[inline(always)]
fn forward_row_any<T: Float, F: Fn(usize, usize) -> Option<usize>>(
    r: &Row<T, F>,
    out: &mut [MaybeUninit<T>],
    ep: Epilogue<T>,
) {
    let cm = r.cm;
    let taps_of = |ox: usize, taps: &mut Vec<(usize, usize)>| {
        taps.clear();
        for &(xr, fr) in r.rows {
            taps.extend((0..r.kw).filter_map(|kx| (r.ix)(ox, kx).map(|ix| ((xr + ix) * cm, (fr + kx) * cm))));
        }
    };
    // (input element, filter element) of each tap: of the first interior column (the
    // others' are these moved on), and of a column at the edges, made per column
    let mut inner: Vec<(usize, usize)> = Vec::with_capacity(r.rows.len() * r.kw);
    if !r.interior.is_empty() {
        taps_of(r.interior.start, &mut inner);
    }
    let mut edge: Vec<(usize, usize)> = Vec::with_capacity(r.rows.len() * r.kw);
    for (ox, ys) in out.chunks_exact_mut(cm).enumerate() {
        let (taps, shift) = if r.interior.contains(&ox) {
            (&inner, (ox - r.interior.start) * r.step)
        } else {
            taps_of(ox, &mut edge);
            (&edge, 0)
        };
        let xs = &r.x[shift..];
        let mut c0 = 0;
        while c0 + WIDE <= cm {
            channel_block::<T, WIDE>(xs, r.f, taps, c0, ys);
            c0 += WIDE;
        }
        while c0 + LANES <= cm {
            channel_block::<T, LANES>(xs, r.f, taps, c0, ys);
            c0 += LANES;
        }
        if c0 < cm {
            // fewer than LANES channels left
            let mut acc = [T::ZERO; LANES];
            let tail = &mut acc[..cm - c0];
            for &(xi, fi) in taps {
                for ((y, &w), &x) in tail.iter_mut().zip(&r.f[fi + c0..fi + cm]).zip(&xs[xi + c0..xi + cm]) {
                    *y += x * w;
                }
            }
            for (y, &v) in ys[c0..].iter_mut().zip(tail.iter()) {
                y.write(v);
            }
        }
        // SAFETY: the blocks above wrote every channel of this pixel; `MaybeUninit<T>` has
        // `T`'s layout
        let ys = unsafe { &mut *(ys as *mut [MaybeUninit<T>] as *mut [T]) };
        ep.apply(ys, 0);
    }
}

/// Writes `ys[c0..c0 + N]`: each channel's sum over `taps` (input element, filter element
/// of channel 0) in their order, `N` channels at once in registers.
#[inline(always)]
fn channel_block<T: Float, const N: usize>(
    x: &[T],
    f: &[T],
    taps: &[(usize, usize)],
    c0: usize,
    ys: &mut [MaybeUninit<T>],
) {
    let mut acc = [T::ZERO; N];
    for &(xi, fi) in taps {
        let xs: &[T; N] = x[xi + c0..xi + c0 + N].try_into().expect("N elements");
        let ws: &[T; N] = f[fi + c0..fi + c0 + N].try_into().expect("N elements");
        for l in 0..N {
            acc[l] += xs[l] * ws[l];
        }
    }
    for (y, v) in ys[c0..c0 + N].iter_mut().zip(acc) {
        y.write(v);
    }
}
