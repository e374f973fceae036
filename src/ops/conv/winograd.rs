//! Winograd F(2x2, 3x3) convolution (Lavin & Gray, "Fast Algorithms for Convolutional
//! Neural Networks", 2015) for `Conv2D` and `_FusedConv2D` with a 3x3 window, strides 1 and
//! dilations 1 (any padding), when both channel counts are large enough for it to pay.
//!
//! The output is cut into 2x2 tiles, each read from a 4x4 input tile (zeros outside the
//! input: the padding and the partial tiles at odd heights and widths). Per tile and input
//! channel the input transform `V = Bᵀ d B` gives 16 values; the filter transform
//! `U = G g Gᵀ` (16 `[c, o]` matrices, made once for a `Const` filter and kept) turns the
//! 3x3 window of each channel pair into 16 values; the 16 products `M = V U`
//! (`[tiles, c] @ [c, o]` each, the crate's matrix kernel) replace the 36 multiplies of a
//! 2x2 output tile by 16, and the output transform `Y = Aᵀ M A` gives the tile's 2x2 outputs,
//! to which the epilogue (bias or batch norm, then activation) is applied pixel by pixel,
//! as the im2col path applies it.
//!
//! Tiles are processed in chunks whose transforms and products stay in cache; chunks go to
//! the intra-op pool's threads. Every value depends only on its own tile, so the result does
//! not depend on the thread count.

use super::Geom;
use crate::error::{Error, Result};
use crate::ops::kernels::{gemm_uninit_packed, parallel, with_scratch, Dims, Epilogue, Float, Gemm, PackedB};
use crate::tensor::Tensor;
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

/// Input and output channels below which the im2col product is kept. Measured on one
/// AVX2 core, a 3x3 SAME convolution (`c = o`): 16 channels at 32x32 ran 1.4x slower as
/// Winograd, 32 at 16x16 as fast, 64 at 56x56 1.55x faster, 128 to 256 1.8-1.95x faster
/// (512 at 7x7 about as fast: 4x4 tiles cover 8x8 pixels there).
const MIN_CHANNELS: usize = 64;

/// Elements (`tiles * (c + o)`) of one chunk's 16 input-transform and product matrices: the
/// chunk's `16 * tiles * (c + o)` values stay in cache between the transforms and the
/// products (measured on ResNet50's 3x3 shapes: 16K to 64K within 2% of each other).
const CHUNK_ELEMS: usize = 1 << 15;

/// Output height and width below which the im2col product is kept: at ResNet50's 7x7 with
/// 512 channels Winograd was only about 5% faster per run, and its filter transform made a
/// one-shot run (`tensorgraph run`) slower.
const MIN_OUTPUT_SIDE: usize = 8;

/// True when [`conv`] computes the convolution of `g` with `o` output channels: a 3x3
/// window, strides and dilations 1, at least [`MIN_CHANNELS`] input and output channels,
/// an output at least [`MIN_OUTPUT_SIDE`] high and wide.
pub(super) fn applies(g: &Geom, o: usize) -> bool {
    g.kh == 3
        && g.kw == 3
        && (g.sh, g.sw, g.dh, g.dw) == (1, 1, 1, 1)
        && g.c >= MIN_CHANNELS
        && o >= MIN_CHANNELS
        && g.oh >= MIN_OUTPUT_SIDE
        && g.ow >= MIN_OUTPUT_SIDE
        && g.n > 0
}

/// A filter `[3, 3, c, o]` transformed: `U = G g Gᵀ` as 16 row-major `[c, o]` matrices (one
/// tensor `[16, c, o]` of the filter's dtype), and for float32 their packed forms.
struct Transformed {
    u: Tensor,
    packed: Vec<PackedB>,
}

/// The transformed copy of a `Const` filter, made on the kernel's first run and kept
/// while later runs pass the same buffer (as `PackedWeights` keeps the packed filter).
#[derive(Default)]
pub(crate) struct WinogradWeights {
    slot: Mutex<Option<(Tensor, Arc<Transformed>)>>,
}

impl WinogradWeights {
    /// The transform of `f`: the one kept when `f` shares its buffer, else made and kept.
    fn get<T: Float>(&self, f: &Tensor, c: usize, o: usize) -> Result<Arc<Transformed>> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kept, t)) = slot.as_ref() {
            if kept.shares_buffer(f) && t.u.shape() == [16, c, o] {
                return Ok(t.clone());
            }
        }
        let t = Arc::new(transform_filter::<T>(f, c, o)?);
        *slot = Some((f.clone(), t.clone()));
        Ok(t)
    }
}

/// `U = G g Gᵀ` for every (input, output) channel pair of the HWIO filter `f`, computed in
/// float64 and rounded once to `T`, with `G = [[1, 0, 0], [½, ½, ½], [½, -½, ½], [0, 0, 1]]`.
fn transform_filter<T: Float>(f: &Tensor, c: usize, o: usize) -> Result<Transformed> {
    let fv = f.as_slice::<T>()?;
    let co = c * o;
    if fv.len() != 9 * co {
        return Err(Error::internal(format!("Winograd filter of {} values for [3, 3, {c}, {o}]", fv.len())));
    }
    // G applied to 3 taps
    let gcol = |a: f64, b: f64, c: f64| [a, 0.5 * (a + b + c), 0.5 * (a - b + c), c];
    let mut u = vec![T::ZERO; 16 * co];
    // channel pairs in blocks: the 9 taps of a block, G applied down each column of taps
    // (ky), then along each row (kx), each of the 16 values stored for the whole block
    const BLOCK: usize = 128;
    let mut rows = [[[0f64; BLOCK]; 3]; 4];
    for e0 in (0..co).step_by(BLOCK) {
        let len = BLOCK.min(co - e0);
        for kx in 0..3 {
            for e in 0..len {
                let g = |ky: usize| fv[(ky * 3 + kx) * co + e0 + e].to_f64();
                let col = gcol(g(0), g(1), g(2));
                for i in 0..4 {
                    rows[i][kx][e] = col[i];
                }
            }
        }
        for (i, row) in rows.iter().enumerate() {
            for e in 0..len {
                let r = gcol(row[0][e], row[1][e], row[2][e]);
                for (j, &v) in r.iter().enumerate() {
                    u[(i * 4 + j) * co + e0 + e] = T::from_f64(v);
                }
            }
        }
    }
    let u = Tensor::new(&[16, c, o], u)?;
    let packed = match u.as_slice::<f32>() {
        Ok(uv) => (0..16).filter_map(|k| PackedB::new(&uv[k * co..(k + 1) * co], c, o)).collect(),
        Err(_) => Vec::new(),
    };
    Ok(Transformed { u, packed })
}

/// Tiles per chunk for `c` input and `o` output channels (a multiple of 8, 16 to 1024).
fn chunk_tiles(c: usize, o: usize) -> usize {
    (CHUNK_ELEMS / (c + o)).clamp(16, 1024) / 8 * 8
}

/// A pointer to the output that the chunks running on the pool's threads share (each
/// writes the pixels of its own tiles only).
#[derive(Clone, Copy)]
struct OutPtr<T>(*mut MaybeUninit<T>);
// SAFETY: the chunks given one pointer write disjoint pixels.
unsafe impl<T> Send for OutPtr<T> {}
unsafe impl<T> Sync for OutPtr<T> {}

/// The convolution of the NHWC input `x` with the HWIO filter `f` (`[3, 3, g.c, o]`) for a
/// geometry where [`applies`] holds, followed by `ep`, into `out` (`[n, oh, ow, o]`, every
/// element written). With `cache` (the filter is a `Const`), the filter's transform is kept
/// there. Errors: `ResourceExhausted` when the scratch matrices cannot be allocated.
pub(super) fn conv<T: Float + Gemm>(
    x: &[T],
    f: &Tensor,
    g: &Geom,
    o: usize,
    ep: Epilogue<T>,
    cache: Option<&WinogradWeights>,
    out: &mut [MaybeUninit<T>],
) -> Result<()> {
    assert!(out.len() >= g.n * g.oh * g.ow * o && x.len() >= g.n * g.h * g.w * g.c);
    let t = match cache {
        Some(w) => w.get::<T>(f, g.c, o)?,
        None => Arc::new(transform_filter::<T>(f, g.c, o)?),
    };
    let u = t.u.as_slice::<T>()?;
    let total = g.n * g.oh.div_ceil(2) * g.ow.div_ceil(2);
    // chunks of at most `chunk_tiles`, as many as a multiple of the threads (each tile's
    // values do not depend on its chunk)
    let threads = parallel::threads();
    let chunks = total.div_ceil(chunk_tiles(g.c, o)).next_multiple_of(threads).min(total);
    let per = total.div_ceil(chunks);
    let chunks = total.div_ceil(per);
    let scratch = 16 * per * (g.c + o) + 17 * g.c.max(o);
    let ptr = OutPtr(out.as_mut_ptr());
    let run = |i: usize| {
        let t0 = i * per;
        let nt = per.min(total - t0);
        with_scratch::<T, ()>(scratch, |buf| chunk(x, g, o, u, &t.packed, ep, t0, nt, buf, ptr))
    };
    if threads > 1 && chunks > 1 {
        parallel::install(|| (0..chunks).into_par_iter().try_for_each(run))
    } else {
        (0..chunks).try_for_each(run)
    }
}

/// Tiles `t0..t0 + nt` (numbered image by image, row by row): input transforms into 16
/// matrices `[nt, c]`, the 16 products `[nt, c] @ [c, o]`, output transforms and `ep` into
/// the tiles' pixels of `out`. `buf` is scratch (at least `16 * nt * (c + o) + 17 *
/// max(c, o)` elements).
#[allow(clippy::too_many_arguments)]
fn chunk<T: Float + Gemm>(
    x: &[T],
    g: &Geom,
    o: usize,
    u: &[T],
    packed: &[PackedB],
    ep: Epilogue<T>,
    t0: usize,
    nt: usize,
    buf: &mut [T],
    out: OutPtr<T>,
) {
    let c = g.c;
    let (v, rest) = buf.split_at_mut(16 * nt * c);
    let (m, tmp) = rest.split_at_mut(16 * nt * o);
    let (th, tw) = (g.oh.div_ceil(2), g.ow.div_ceil(2));
    let at = |t: usize| (t / (th * tw), t % (th * tw) / tw, t % tw);
    for t in 0..nt {
        let (img, ty, tx) = at(t0 + t);
        input_tile(x, g, img, ty, tx, v, t, nt, tmp);
    }
    for k in 0..16 {
        let d = Dims { m: nt, k: c, n: o, rsa: c as isize, csa: 1, rsb: o as isize, csb: 1 };
        let mk = &mut m[k * nt * o..(k + 1) * nt * o];
        // SAFETY: a `T` slot may be seen as an uninitialised one: the product only writes it
        let mk = unsafe { std::slice::from_raw_parts_mut(mk.as_mut_ptr().cast::<MaybeUninit<T>>(), mk.len()) };
        let (vk, uk) = (&v[k * nt * c..(k + 1) * nt * c], &u[k * c * o..(k + 1) * c * o]);
        gemm_uninit_packed(d, vk, uk, packed.get(k), mk, Epilogue::none());
    }
    for t in 0..nt {
        let (img, ty, tx) = at(t0 + t);
        output_tile(g, o, m, t, nt, img, ty, tx, ep, tmp, out);
    }
}

/// `a - b` into `out`.
#[inline]
fn sub<T: Float>(out: &mut [T], a: &[T], b: &[T]) {
    out.iter_mut().zip(a.iter().zip(b)).for_each(|(r, (&a, &b))| *r = a - b);
}

/// `a + b` into `out`.
#[inline]
fn add<T: Float>(out: &mut [T], a: &[T], b: &[T]) {
    out.iter_mut().zip(a.iter().zip(b)).for_each(|(r, (&a, &b))| *r = a + b);
}

/// `a + b + c` into `out`.
#[inline]
fn add3<T: Float>(out: &mut [T], a: &[T], b: &[T], c: &[T]) {
    out.iter_mut().zip(a.iter().zip(b).zip(c)).for_each(|(r, ((&a, &b), &c))| *r = a + b + c);
}

/// `a - b - c` into `out`.
#[inline]
fn sub3<T: Float>(out: &mut [T], a: &[T], b: &[T], c: &[T]) {
    out.iter_mut().zip(a.iter().zip(b).zip(c)).for_each(|(r, ((&a, &b), &c))| *r = a - b - c);
}

/// `Bᵀ d` for the 4 channel vectors `d` of a column (or row): `(d0 - d2, d1 + d2, d2 - d1,
/// d1 - d3)` into the 4 slices of `out`.
#[inline]
fn bt<T: Float>(out: [&mut [T]; 4], d: [&[T]; 4]) {
    let [o0, o1, o2, o3] = out;
    sub(o0, d[0], d[2]);
    add(o1, d[1], d[2]);
    sub(o2, d[2], d[1]);
    sub(o3, d[1], d[3]);
}

/// The 4 disjoint `len`-element slices of `v` at `starts`.
#[inline]
fn four<T>(v: &mut [T], starts: [usize; 4], len: usize) -> [&mut [T]; 4] {
    v.get_disjoint_mut(starts.map(|s| s..s + len)).expect("four disjoint slices inside the buffer")
}

/// Input transform of tile (`img`, `ty`, `tx`): `V = Bᵀ d B` of its 4x4 input pixels
/// (zeros outside the input), channel vector `(i, j)` into row `t` of matrix `i * 4 + j`
/// of `v` (16 matrices `[nt, c]`). `tmp` holds at least `17 * c` elements.
#[allow(clippy::too_many_arguments)]
fn input_tile<T: Float>(
    x: &[T],
    g: &Geom,
    img: usize,
    ty: usize,
    tx: usize,
    v: &mut [T],
    t: usize,
    nt: usize,
    tmp: &mut [T],
) {
    let c = g.c;
    let (db, zero) = tmp.split_at_mut(16 * c);
    let zero = &mut zero[..c];
    zero.fill(T::ZERO);
    let zero = &*zero;
    let base = img * g.h * g.w * c;
    let pixel = |i: usize, j: usize| -> &[T] {
        let iy = (2 * ty + i).checked_sub(g.pt).filter(|&y| y < g.h);
        let ix = (2 * tx + j).checked_sub(g.pl).filter(|&x| x < g.w);
        match (iy, ix) {
            (Some(iy), Some(ix)) => &x[base + (iy * g.w + ix) * c..][..c],
            _ => zero,
        }
    };
    // (d B) of input row i: vectors 4i..4i + 4 of db
    for i in 0..4 {
        let d = [0, 1, 2, 3].map(|j| pixel(i, j));
        bt(four(db, [0, 1, 2, 3].map(|j| (4 * i + j) * c), c), d);
    }
    // Bᵀ (d B) of each column j into row t of matrices j, 4 + j, 8 + j, 12 + j
    for j in 0..4 {
        let col = [0, 1, 2, 3].map(|i| &db[(4 * i + j) * c..][..c]);
        bt(four(v, [0, 1, 2, 3].map(|i| ((4 * i + j) * nt + t) * c), c), col);
    }
}

/// Output transform of tile (`img`, `ty`, `tx`), row `t` of the 16 product matrices `m`
/// (`[nt, o]` each): `Y = Aᵀ M A` with `Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]]`, then `ep`,
/// into the tile's pixels of `out` that are inside the output. `tmp` holds at least `9 * o`
/// elements.
#[allow(clippy::too_many_arguments)]
fn output_tile<T: Float>(
    g: &Geom,
    o: usize,
    m: &[T],
    t: usize,
    nt: usize,
    img: usize,
    ty: usize,
    tx: usize,
    ep: Epilogue<T>,
    tmp: &mut [T],
    out: OutPtr<T>,
) {
    let mk = |k: usize| &m[(k * nt + t) * o..][..o];
    let (s, y) = tmp.split_at_mut(8 * o);
    let y = &mut y[..o];
    // M A for each row i: s[2i] (output column 0) and s[2i + 1] (column 1)
    for i in 0..4 {
        let (s0, s1) = s[2 * i * o..(2 * i + 2) * o].split_at_mut(o);
        add3(s0, mk(4 * i), mk(4 * i + 1), mk(4 * i + 2));
        sub3(s1, mk(4 * i + 1), mk(4 * i + 2), mk(4 * i + 3));
    }
    let sv = |i: usize, j: usize| &s[(2 * i + j) * o..][..o];
    for dy in 0..2 {
        let oy = 2 * ty + dy;
        if oy >= g.oh {
            break;
        }
        for dx in 0..2 {
            let ox = 2 * tx + dx;
            if ox >= g.ow {
                break;
            }
            if dy == 0 {
                add3(y, sv(0, dx), sv(1, dx), sv(2, dx));
            } else {
                sub3(y, sv(1, dx), sv(2, dx), sv(3, dx));
            }
            ep.apply(y, 0);
            // SAFETY: pixel (img, oy, ox) is inside the output and belongs to this tile only
            let dst = unsafe { std::slice::from_raw_parts_mut(out.0.add(((img * g.oh + oy) * g.ow + ox) * o), o) };
            dst.iter_mut().zip(y.iter()).for_each(|(d, &v)| {
                d.write(v);
            });
        }
    }
}
