//! The loops of depthwise convolution (the ops are in `depthwise.rs`):
//! the window attrs parsed and checked once, the NHWC geometry (strides, dilations,
//! SAME/VALID/EXPLICIT padding), the NCHW transposes, and the forward, input-backprop and
//! filter-backprop kernels for float32 and float64.

use super::depthwise_row::{forward_row, Row};
use super::{list_int, shape_vec, string_attr};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::ops::kernels::{parallel, Epilogue, Float};
use crate::ops::{Kernel, KernelCtx};
use crate::tensor::{checked_num_elements, fmt_dims, try_with_capacity, Tensor};
use std::borrow::Cow;
use std::mem::MaybeUninit;

pub(super) const FORWARD: &str = "DepthwiseConv2dNative";
pub(super) const BACKPROP_INPUT: &str = "DepthwiseConv2dNativeBackpropInput";
pub(super) const BACKPROP_FILTER: &str = "DepthwiseConv2dNativeBackpropFilter";

// ---------------------------------------------------------------- attrs and geometry

/// Padding of one op: `SAME`, `VALID`, or `EXPLICIT` (top, bottom, left, right).
#[derive(Clone, Copy, Debug)]
pub(super) enum Padding {
    Same,
    Valid,
    Explicit([usize; 4]),
}

/// The window attrs, parsed and checked once (by inference and when a kernel is prepared).
#[derive(Clone, Copy, Debug)]
pub(super) struct Attrs {
    pub(super) nchw: bool,
    pub(super) strides: (usize, usize),
    pub(super) dilations: (usize, usize),
    pub(super) padding: Padding,
}

pub(super) fn read_attrs(node: &Node) -> Result<Attrs> {
    let bad = |msg: String| Error::invalid_argument(format!("{} '{}': {msg}", node.op_type, node.name));
    let nchw = match string_attr(node, "data_format", "NHWC")?.as_str() {
        "NHWC" => false,
        "NCHW" => true,
        f => return Err(bad(format!("data_format must be NHWC or NCHW, got {f:?}"))),
    };
    // (batch, height, width, depth) positions of data_format
    let (hi, wi, ci) = if nchw { (2, 3, 1) } else { (1, 2, 3) };
    let four = |name: &str, what: &str, v: Vec<i64>| -> Result<(usize, usize)> {
        if v.len() != 4 {
            return Err(bad(format!(
                "DepthwiseConv2D requires the {what} attribute to contain 4 values, but got: {}",
                v.len()
            )));
        }
        if v[0] != 1 || v[ci] != 1 {
            let msg = format!("Current implementation does not yet support {name} in the batch and depth dimensions.");
            return Err(if name == "strides" { Error::unimplemented(msg) } else { bad(msg) });
        }
        if v[hi] < 1 || v[wi] < 1 {
            return Err(bad(format!("{name} must be positive, got {v:?}")));
        }
        Ok((v[hi] as usize, v[wi] as usize))
    };
    let strides = list_int(node, "strides")?.ok_or_else(|| bad("has no attr 'strides'".into()))?;
    let strides = four("strides", "stride", strides)?;
    let dilations = four("dilations", "dilation", list_int(node, "dilations")?.unwrap_or_else(|| vec![1; 4]))?;
    let explicit = list_int(node, "explicit_paddings")?.unwrap_or_default();
    let padding = match string_attr(node, "padding", "")?.as_str() {
        "SAME" | "VALID" if !explicit.is_empty() => {
            return Err(
                bad("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT".into()),
            )
        }
        "SAME" => Padding::Same,
        "VALID" => Padding::Valid,
        "EXPLICIT" => {
            if explicit.len() != 8 {
                return Err(bad(format!(
                    "explicit_paddings attribute must contain 8 values, but got: {}",
                    explicit.len()
                )));
            }
            if explicit[0] != 0 || explicit[1] != 0 || explicit[2 * ci] != 0 || explicit[2 * ci + 1] != 0 {
                return Err(bad("Nonzero explicit padding in the batch or depth dimensions is not supported".into()));
            }
            if explicit.iter().any(|&p| p < 0) {
                return Err(bad(format!("All elements of explicit_paddings must be nonnegative, got {explicit:?}")));
            }
            let p = |i: usize| explicit[i] as usize;
            Padding::Explicit([p(2 * hi), p(2 * hi + 1), p(2 * wi), p(2 * wi + 1)])
        }
        p => return Err(bad(format!("padding must be SAME, VALID or EXPLICIT, got {p:?}"))),
    };
    Ok(Attrs { nchw, strides, dilations, padding })
}

/// Output size and padding before for one spatial dimension (TensorFlow's
/// `GetWindowedOutputSizeVerbose` with dilation): `pads` are the explicit (before, after).
pub(super) fn out_dim(
    input: usize,
    k: usize,
    stride: usize,
    dilation: usize,
    pad: Padding,
    pads: (usize, usize),
) -> Result<(usize, usize)> {
    let eff = (k.max(1) - 1) * dilation + 1;
    match pad {
        Padding::Same => {
            let out = input.div_ceil(stride);
            let total = ((out.max(1) - 1) * stride + eff).saturating_sub(input);
            Ok((out, total / 2))
        }
        Padding::Valid | Padding::Explicit(_) => {
            let padded = input + pads.0 + pads.1;
            if padded < eff {
                return Err(Error::invalid_argument(format!(
                    "Negative dimension size caused by subtracting {eff} from {padded}"
                )));
            }
            Ok(((padded - eff) / stride + 1, pads.0))
        }
    }
}

/// The NHWC geometry of one depthwise convolution.
#[derive(Clone, Copy, Debug)]
struct Geom {
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    m: usize,
    kh: usize,
    kw: usize,
    a: Attrs,
    oh: usize,
    ow: usize,
    pt: usize,
    pl: usize,
}

impl Geom {
    /// From the input's NHWC dims and the filter's `[KH,KW,C,M]`.
    fn new(input: [usize; 4], filter: &[usize], a: &Attrs) -> Result<Geom> {
        let [n, h, w, c] = input;
        let [kh, kw, fc, m] = *filter else {
            return Err(Error::invalid_argument(format!("filter must be 4-dimensional: {}", fmt_dims(filter))));
        };
        if fc != c {
            return Err(Error::invalid_argument(format!(
                "input and filter must have the same depth: {c} vs {fc} (input {}, filter {})",
                fmt_dims(&input),
                fmt_dims(filter)
            )));
        }
        let [t, b, l, r] = match a.padding {
            Padding::Explicit(p) => p,
            _ => [0; 4],
        };
        let (oh, pt) = out_dim(h, kh, a.strides.0, a.dilations.0, a.padding, (t, b))?;
        let (ow, pl) = out_dim(w, kw, a.strides.1, a.dilations.1, a.padding, (l, r))?;
        Ok(Geom { n, h, w, c, m, kh, kw, a: *a, oh, ow, pt, pl })
    }
    /// Input row of output row `oy` at filter row `ky`, when inside the input.
    #[inline]
    fn iy(&self, oy: usize, ky: usize) -> Option<usize> {
        (oy * self.a.strides.0 + ky * self.a.dilations.0).checked_sub(self.pt).filter(|&y| y < self.h)
    }
    #[inline]
    fn ix(&self, ox: usize, kx: usize) -> Option<usize> {
        (ox * self.a.strides.1 + kx * self.a.dilations.1).checked_sub(self.pl).filter(|&x| x < self.w)
    }
    /// The output columns whose `kw` taps are all inside the input (no padding).
    fn interior_columns(&self) -> std::ops::Range<usize> {
        let (s, d) = (self.a.strides.1.max(1), self.a.dilations.1);
        let first = self.pl.div_ceil(s);
        // the last tap of column ox is at ox * s + (kw - 1) * d - pl, which must be < w
        let end = match (self.w + self.pl).checked_sub((self.kw.max(1) - 1) * d + 1) {
            Some(last) => (last / s + 1).min(self.ow),
            None => 0,
        };
        first.min(end)..end
    }
    /// Calls `f(input offset, filter offset, output offset)` for every (image, output
    /// position, filter tap) inside the input: the offsets of channel 0 in NHWC `x`,
    /// `[KH,KW,C,M]` filter and NHWC output.
    fn for_each_tap(&self, mut f: impl FnMut(usize, usize, usize)) {
        let cm = self.c * self.m;
        if cm == 0 {
            return; // no channels: nothing to add (and no chunks of size 0 to take)
        }
        for n in 0..self.n {
            for oy in 0..self.oh {
                for ox in 0..self.ow {
                    let o = ((n * self.oh + oy) * self.ow + ox) * cm;
                    for ky in 0..self.kh {
                        let Some(iy) = self.iy(oy, ky) else { continue };
                        for kx in 0..self.kw {
                            let Some(ix) = self.ix(ox, kx) else { continue };
                            f(((n * self.h + iy) * self.w + ix) * self.c, (ky * self.kw + kx) * cm, o);
                        }
                    }
                }
            }
        }
    }
    fn out_nhwc(&self) -> [usize; 4] {
        [self.n, self.oh, self.ow, self.c * self.m]
    }
}

// ---------------------------------------------------------------- layout

/// The NHWC dims of a 4-d shape in `data_format` order.
fn nhwc_dims(d: &[usize], nchw: bool) -> Result<[usize; 4]> {
    let [a, b, c, e] = *d else {
        return Err(Error::invalid_argument(format!("input must be 4-dimensional, got {}", fmt_dims(d))));
    };
    Ok(if nchw { [a, c, e, b] } else { [a, b, c, e] })
}

/// The dims of an NHWC shape in `data_format` order.
fn format_dims([n, h, w, c]: [usize; 4], nchw: bool) -> Vec<usize> {
    if nchw {
        vec![n, c, h, w]
    } else {
        vec![n, h, w, c]
    }
}

/// `v` (NCHW `[n, c, h, w]`) in NHWC order.
fn to_nhwc<T: Copy>(v: &[T], [n, h, w, c]: [usize; 4]) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    for b in 0..n {
        for p in 0..h * w {
            out.extend((0..c).map(|ch| v[(b * c + ch) * h * w + p]));
        }
    }
    out
}

/// `v` (NHWC `[n, h, w, c]`) in NCHW order.
fn to_nchw<T: Copy>(v: &[T], [n, h, w, c]: [usize; 4]) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    for b in 0..n {
        for ch in 0..c {
            out.extend((0..h * w).map(|p| v[(b * h * w + p) * c + ch]));
        }
    }
    out
}

/// The elements of a tensor of `data_format` layout with NHWC dims `dims`, in NHWC order.
fn nhwc_values<T: Float>(t: &Tensor, dims: [usize; 4], nchw: bool) -> Result<Vec<T>> {
    let v = t.as_slice::<T>()?;
    Ok(if nchw { to_nhwc(v, dims) } else { v.to_vec() })
}

/// A tensor of `data_format` layout from NHWC values with NHWC dims `dims`.
fn format_tensor<T: Float>(v: Vec<T>, dims: [usize; 4], nchw: bool) -> Result<Tensor> {
    let v = if nchw { to_nchw(&v, dims) } else { v };
    Tensor::new(&format_dims(dims, nchw), v)
}

// ---------------------------------------------------------------- kernels

/// Checks `out_backprop`'s shape (in `data_format` order) against the geometry.
fn check_out_backprop(dy: &[usize], g: &Geom, what: &str) -> Result<()> {
    let want = format_dims(g.out_nhwc(), g.a.nchw);
    if dy != want.as_slice() {
        return Err(Error::invalid_argument(format!(
            "{what}: out_backprop has shape {} but the convolution's output is {}",
            fmt_dims(dy),
            fmt_dims(&want)
        )));
    }
    Ok(())
}

fn forward<T: Float>(x: &Tensor, f: &Tensor, a: &Attrs) -> Result<Tensor> {
    forward_with::<T>(x, f, a, Epilogue::none())
}

/// The depthwise convolution of [`forward`] followed by `ep` (the bias per output channel,
/// then the activation), applied to each output pixel as soon as its channels are summed
/// (`_FusedDepthwiseConv2dNative`): the values are those of the convolution followed by
/// `BiasAdd` and the activation.
pub(super) fn forward_with<T: Float>(x: &Tensor, f: &Tensor, a: &Attrs, ep: Epilogue<T>) -> Result<Tensor> {
    let g = Geom::new(nhwc_dims(x.shape(), a.nchw)?, f.shape(), a)?;
    let xv: Cow<[T]> = if a.nchw {
        Cow::Owned(to_nhwc(x.as_slice::<T>()?, [g.n, g.h, g.w, g.c]))
    } else {
        Cow::Borrowed(x.as_slice::<T>()?)
    };
    let fv = f.as_slice::<T>()?;
    let (m, cm) = (g.m, g.c * g.m);
    if let Some(b) = ep.bias {
        if b.len() != cm {
            return Err(Error::invalid_argument(format!(
                "bias must be 1-D with the filter's {cm} output channels, got {} values",
                b.len()
            )));
        }
    }
    if let Some(n) = ep.norm {
        if n.channels() != cm {
            return Err(Error::invalid_argument(format!(
                "the batch norm must have the filter's {cm} output channels, got {}",
                n.channels()
            )));
        }
    }
    let len = checked_num_elements(&g.out_nhwc())?;
    let mut out = try_with_capacity::<T>(len, x.dtype())?;
    if cm == 0 {
        out.resize(len, T::ZERO);
        return format_tensor(out, g.out_nhwc(), a.nchw);
    }
    // one piece per output row (image, oy), split over the intra-op pool; each output
    // position adds its taps in the same order as a serial loop. A row of a multiplier of
    // 1 is written, not read, by `forward_row`; another is cleared by the thread that
    // computes it, just before (in cache, and in parallel)
    let work = len * g.kh * g.kw;
    let interior = g.interior_columns();
    parallel::for_rows(&mut out.spare_capacity_mut()[..len], g.ow * cm, work, |r, row| {
        let (n, oy) = (r / g.oh, r % g.oh);
        // the taps inside the input of this output row: (input row offset, filter row offset)
        let rows: Vec<(usize, usize)> =
            (0..g.kh).filter_map(|ky| g.iy(oy, ky).map(|iy| ((n * g.h + iy) * g.w, ky * g.kw))).collect();
        if m == 1 {
            // the common depthwise multiplier: blocks of channels summed in registers
            let r = Row {
                x: &xv,
                f: fv,
                cm,
                kw: g.kw,
                rows: &rows,
                ix: |ox, kx| g.ix(ox, kx),
                interior: interior.clone(),
                step: g.a.strides.1 * cm,
            };
            forward_row(&r, row, ep);
            return;
        }
        let row = zeroed(row);
        for (ox, ys) in row.chunks_exact_mut(cm).enumerate() {
            let taps = rows.iter().flat_map(move |&(xr, fr)| {
                (0..g.kw).filter_map(move |kx| g.ix(ox, kx).map(|ix| ((xr + ix) * g.c, (fr + kx) * cm)))
            });
            for (xi, fi) in taps {
                let rows = ys.chunks_exact_mut(m).zip(fv[fi..fi + cm].chunks_exact(m));
                for ((ys, ws), &x) in rows.zip(&xv[xi..xi + g.c]) {
                    for (y, &w) in ys.iter_mut().zip(ws) {
                        *y += x * w;
                    }
                }
            }
            ep.apply(ys, 0);
        }
    });
    // SAFETY: `for_rows` gave every row of the first `len` elements to the closure, which
    // initialized all of it (`forward_row`, or `zeroed` first thing)
    unsafe { out.set_len(len) };
    format_tensor(out, g.out_nhwc(), a.nchw)
}

/// `row` filled with zeros, as the initialized slice it now is.
fn zeroed<T: Float>(row: &mut [MaybeUninit<T>]) -> &mut [T] {
    for v in row.iter_mut() {
        v.write(T::ZERO);
    }
    // SAFETY: every element was just written; `MaybeUninit<T>` has `T`'s layout
    unsafe { &mut *(row as *mut [MaybeUninit<T>] as *mut [T]) }
}

fn backprop_input<T: Float>(sizes: &[usize], f: &Tensor, dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    let g = Geom::new(nhwc_dims(sizes, a.nchw)?, f.shape(), a)?;
    check_out_backprop(dy.shape(), &g, BACKPROP_INPUT)?;
    let dyv = nhwc_values::<T>(dy, g.out_nhwc(), a.nchw)?;
    let fv = f.as_slice::<T>()?;
    let (m, cm) = (g.m, g.c * g.m);
    let mut dx = vec![T::ZERO; g.n * g.h * g.w * g.c];
    g.for_each_tap(|xi, fi, o| {
        let rows = dyv[o..o + cm].chunks_exact(m).zip(fv[fi..fi + cm].chunks_exact(m));
        for ((ds, ws), x) in rows.zip(&mut dx[xi..xi + g.c]) {
            for (&d, &w) in ds.iter().zip(ws) {
                *x += d * w;
            }
        }
    });
    format_tensor(dx, [g.n, g.h, g.w, g.c], a.nchw)
}

fn backprop_filter<T: Float>(x: &Tensor, sizes: &[usize], dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    let g = Geom::new(nhwc_dims(x.shape(), a.nchw)?, sizes, a)?;
    check_out_backprop(dy.shape(), &g, BACKPROP_FILTER)?;
    let xv = nhwc_values::<T>(x, [g.n, g.h, g.w, g.c], a.nchw)?;
    let dyv = nhwc_values::<T>(dy, g.out_nhwc(), a.nchw)?;
    let (m, cm) = (g.m, g.c * g.m);
    let mut df = vec![T::ZERO; g.kh * g.kw * cm];
    g.for_each_tap(|xi, fi, o| {
        let rows = df[fi..fi + cm].chunks_exact_mut(m).zip(dyv[o..o + cm].chunks_exact(m));
        for ((ws, ds), &x) in rows.zip(&xv[xi..xi + g.c]) {
            for (w, &d) in ws.iter_mut().zip(ds) {
                *w += x * d;
            }
        }
    });
    Tensor::new(&[g.kh, g.kw, g.c, g.m], df)
}

/// A depthwise kernel function for one dtype: (input 0, input 1, input 2, attrs); inputs
/// as the op's, the `sizes` one read as a shape.
pub(super) type DwFn = fn(&Tensor, &Tensor, &Tensor, &Attrs) -> Result<Tensor>;

/// The prepared kernel of any of the three ops.
pub(super) struct DwKernel {
    pub(super) attrs: Attrs,
    pub(super) run: DwFn,
}
impl Kernel for DwKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let empty = Tensor::new(&[0], Vec::<f32>::new())?;
        let third = ctx.inputs.get(2).unwrap_or(&empty);
        Ok(vec![(self.run)(ctx.input(0), ctx.input(1), third, &self.attrs)?])
    }
}

pub(super) fn forward_fn<T: Float>(x: &Tensor, f: &Tensor, _: &Tensor, a: &Attrs) -> Result<Tensor> {
    if x.dtype() != f.dtype() {
        return Err(Error::invalid_argument(format!("{FORWARD} input is {} but filter is {}", x.dtype(), f.dtype())));
    }
    forward::<T>(x, f, a)
}
pub(super) fn backprop_input_fn<T: Float>(sizes: &Tensor, f: &Tensor, dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    backprop_input::<T>(&shape_vec(sizes, "input_sizes")?, f, dy, a)
}
pub(super) fn backprop_filter_fn<T: Float>(x: &Tensor, sizes: &Tensor, dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    backprop_filter::<T>(x, &shape_vec(sizes, "filter_sizes")?, dy, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The multiplier-1 row loop (interior columns' taps moved on, channels in blocks of
    /// 32, 16 and a tail) against the plain sum over each output's taps in the same order:
    /// bitwise equal, for strides, dilations, paddings and widths with and without interior
    /// columns.
    #[test]
    fn multiplier_one_rows_equal_the_plain_sum() {
        let paddings = [Padding::Same, Padding::Valid, Padding::Explicit([1, 0, 2, 1])];
        for (c, w, k, stride, dil) in
            [(1, 5, 3, 1, 1), (17, 7, 3, 2, 1), (48, 6, 3, 1, 2), (53, 9, 5, 2, 1), (32, 2, 3, 1, 1), (70, 4, 1, 1, 1)]
        {
            for padding in paddings {
                let (n, h) = (2, 5);
                let x: Vec<f32> = (0..n * h * w * c).map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0).collect();
                let f: Vec<f32> = (0..k * k * c).map(|i| ((i * 13 % 29) as f32 - 14.0) / 5.0).collect();
                let a = Attrs { nchw: false, strides: (stride, stride), dilations: (dil, dil), padding };
                let xt = Tensor::new(&[n, h, w, c], x.clone()).unwrap();
                let ft = Tensor::new(&[k, k, c, 1], f.clone()).unwrap();
                let Ok(g) = Geom::new([n, h, w, c], &[k, k, c, 1], &a) else { continue };
                let got = forward::<f32>(&xt, &ft, &a).unwrap();
                let got = got.as_slice::<f32>().unwrap();
                let mut want = Vec::new();
                for b in 0..n {
                    for oy in 0..g.oh {
                        for ox in 0..g.ow {
                            for ch in 0..c {
                                let mut acc = 0.0f32;
                                for ky in 0..k {
                                    for kx in 0..k {
                                        if let (Some(iy), Some(ix)) = (g.iy(oy, ky), g.ix(ox, kx)) {
                                            acc += x[((b * h + iy) * w + ix) * c + ch] * f[(ky * k + kx) * c + ch];
                                        }
                                    }
                                }
                                want.push(acc);
                            }
                        }
                    }
                }
                let case = format!("c {c} w {w} k {k} stride {stride} dilation {dil} {padding:?}");
                assert_eq!(got.len(), want.len(), "{case}");
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g.to_bits(), w.to_bits(), "{case}: element {i}: {g} vs {w}");
                }
            }
        }
    }
}
