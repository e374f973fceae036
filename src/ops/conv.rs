//! Convolution and pooling (TensorFlow's `nn_ops`), NHWC only: Conv2D with its gradient
//! ops Conv2DBackpropInput and Conv2DBackpropFilter, MaxPool/MaxPoolGrad and
//! AvgPool/AvgPoolGrad. Conv2D runs as a matrix product: straight on the NHWC input for a
//! 1x1 stride-1 convolution, as Winograd F(2x2,3x3) for a 3x3 stride-1 one with enough
//! channels (`conv/winograd.rs`), else on the patch matrix (im2col, made in parallel, a
//! cache-sized run of output lines at a time, into one buffer sized once per run of the
//! kernel); pooling splits output rows over the intra-op
//! pool.
//!
//! Convolutions take `dilations` and `padding = "EXPLICIT"` (`explicit_paddings`) as
//! TensorFlow does. Not supported (errors `Unimplemented` naming the op):
//! `data_format = "NCHW"`, dilations or strides in the batch or depth dimension, grouped
//! convolutions.
//!
//! Depthwise convolution (NHWC and NCHW, dilations, explicit padding) is in [`depthwise`].
//!
//! Each op's kernel is prepared once per node: the window attrs (`strides`, `padding`,
//! `data_format`, `dilations`, `ksize`) parsed and checked into one `Attrs`, and the kernel
//! function chosen for the node's dtype; a run only reads tensors.

use super::array::int_values;
use super::kernels::{
    gemm, gemm_uninit_packed, matmul as matmul_kernel, parallel, with_scratch, Dims, Epilogue, Float, Gemm, Num,
    PackedWeights,
};
use super::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::tensor::{checked_num_elements, fmt_dims, try_filled, try_with_capacity, DType, Shape, Tensor};

pub mod argmax_pool;
pub mod depthwise;
mod depthwise_kernels;
mod depthwise_row;
pub mod dilation;
mod fused;
mod fused_depthwise;
pub mod patches;
mod patches_grad;
mod winograd;

pub use argmax_pool::max_pool_with_argmax;
pub use depthwise::{
    depthwise_conv2d_native, depthwise_conv2d_native_backprop_filter, depthwise_conv2d_native_backprop_input,
    DepthwiseConv2dOptions,
};
pub use dilation::dilation2d;
pub use patches::extract_image_patches;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &Conv2D,
    &Conv2DBackpropInput,
    &Conv2DBackpropFilter,
    &Pool::MAX,
    &Pool::AVG,
    &MaxPoolGrad,
    &AvgPoolGrad,
    &fused::FusedConv2D,
    &fused_depthwise::FusedDepthwiseConv2dNative,
];

const FLOATS: &[DType] = &[DType::Float, DType::Double];
const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

// ---------------------------------------------------------------- attrs and geometry

fn list_int(node: &Node, name: &str) -> Result<Option<Vec<i64>>> {
    match node.attrs.get(name) {
        None => Ok(None),
        Some(AttrValue::ListInt(v)) => Ok(Some(v.clone())),
        // an imported empty `list {}` does not tell its element type
        Some(AttrValue::ListString(v)) if v.is_empty() => Ok(Some(Vec::new())),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr '{name}' of op '{}' ({}) should be a list of ints, got {v:?}",
            node.name, node.op_type
        ))),
    }
}

fn string_attr(node: &Node, name: &str, default: &str) -> Result<String> {
    match node.attrs.get(name) {
        None => Ok(default.to_string()),
        Some(AttrValue::String(s)) => Ok(String::from_utf8_lossy(s).into_owned()),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr '{name}' of op '{}' ({}) should be a string, got {v:?}",
            node.name, node.op_type
        ))),
    }
}

/// The dtype a node's kernel runs on: that of its (first) output, which inference set
/// from the input the op dispatches on.
fn node_dtype(node: &Node) -> DType {
    node.outputs.first().map_or(DType::Float, |o| o.0)
}

/// `InvalidArgument` naming the node, its `T` attr and the dtypes its kernel accepts.
fn unsupported_dtype(node: &Node, t: DType, accepted: &str) -> Error {
    Error::invalid_argument(format!(
        "{} '{}': attr T = {t} is not supported; this kernel accepts {accepted}",
        node.op_type, node.name
    ))
}

/// Checks a fused convolution's inputs (`op`: its type): the input, the filter, and the
/// `args.count()` arguments of its fusion, all of the input's dtype.
/// Errors: `InvalidArgument` naming the count or the dtypes.
fn check_fused_inputs(op: &str, inputs: &[Tensor], args: super::kernels::FusedArgs) -> Result<()> {
    let want = 2 + args.count();
    if inputs.len() != want {
        return Err(Error::invalid_argument(format!("expects {want} inputs, got {}", inputs.len())));
    }
    let (x, f) = (&inputs[0], &inputs[1]);
    if let Some(a) = inputs[2..].iter().find(|a| a.dtype() != x.dtype()).or((x.dtype() != f.dtype()).then_some(f)) {
        return Err(Error::invalid_argument(format!(
            "{op} input is {}, filter {}, an argument {}",
            x.dtype(),
            f.dtype(),
            a.dtype()
        )));
    }
    Ok(())
}

/// `f32` or `f64` by the node's dtype (see [`node_dtype`]).
fn pick_float<F>(node: &Node, f32: F, f64: F) -> Result<F> {
    match node_dtype(node) {
        DType::Float => Ok(f32),
        DType::Double => Ok(f64),
        t => Err(unsupported_dtype(node, t, "float32, float64")),
    }
}

/// One of `[f32, f64, i32, i64]` by the node's dtype (see [`node_dtype`]).
fn pick_numeric<F>(node: &Node, [f32, f64, i32, i64]: [F; 4]) -> Result<F> {
    match node_dtype(node) {
        DType::Float => Ok(f32),
        DType::Double => Ok(f64),
        DType::Int32 => Ok(i32),
        DType::Int64 => Ok(i64),
        t => Err(unsupported_dtype(node, t, "float32, float64, int32, int64")),
    }
}

/// The window attrs shared by the convolution and pooling ops, parsed and checked once
/// (by inference, and when a kernel is prepared).
#[derive(Clone, Copy, Debug)]
struct Attrs {
    /// (kernel h, kernel w) for pooling (`ksize`); unused for Conv2D.
    ksize: (usize, usize),
    strides: (usize, usize),
    same: bool,
    /// (h, w) dilation rates of the window (`dilations`; 1 for pooling).
    dilations: (usize, usize),
    /// `padding = EXPLICIT`: (top, bottom, left, right) from `explicit_paddings`.
    explicit: Option<[usize; 4]>,
}

/// Reads `strides`, `padding`, `data_format`, `dilations` (and `ksize` when `pool`).
fn read_attrs(node: &Node, pool: bool) -> Result<Attrs> {
    let fmt = string_attr(node, "data_format", "NHWC")?;
    if fmt != "NHWC" {
        return Err(Error::unimplemented(format!(
            "{} '{}' with data_format {fmt}: tensorgraph supports NHWC only (transpose NCHW inputs to NHWC first)",
            node.op_type, node.name
        )));
    }
    let padding = string_attr(node, "padding", "")?;
    let mut explicit = None;
    let same = match padding.as_str() {
        "SAME" => true,
        "VALID" => false,
        "EXPLICIT" => {
            let p = list_int(node, "explicit_paddings")?.unwrap_or_default();
            if p.len() != 8 || p.iter().any(|&x| x < 0) || p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0 {
                return Err(Error::invalid_argument(format!(
                    "{} '{}': explicit_paddings must be 8 non-negative values, 0 for the batch and depth dimensions (NHWC), got {p:?}",
                    node.op_type, node.name
                )));
            }
            explicit = Some([p[2] as usize, p[3] as usize, p[4] as usize, p[5] as usize]);
            false
        }
        p => {
            return Err(Error::invalid_argument(format!(
                "{} '{}': padding must be SAME, VALID or EXPLICIT, got {p:?}",
                node.op_type, node.name
            )))
        }
    };
    let four = |name: &str, v: Option<Vec<i64>>| -> Result<Option<(usize, usize)>> {
        let Some(v) = v else { return Ok(None) };
        if v.len() != 4 || v.iter().any(|&x| x < 1) {
            return Err(Error::invalid_argument(format!(
                "{} '{}': {name} must have 4 positive entries, got {v:?}",
                node.op_type, node.name
            )));
        }
        if v[0] != 1 || v[3] != 1 {
            return Err(Error::unimplemented(format!(
                "{} '{}': {name} {v:?} in the batch or depth dimension is not supported (must be 1)",
                node.op_type, node.name
            )));
        }
        Ok(Some((v[1] as usize, v[2] as usize)))
    };
    let strides = four("strides", list_int(node, "strides")?)?.ok_or_else(|| {
        Error::invalid_argument(format!("op '{}' ({}) has no attr 'strides'", node.name, node.op_type))
    })?;
    let dilations = four("dilations", list_int(node, "dilations")?)?.unwrap_or((1, 1));
    let ksize = if pool {
        four("ksize", list_int(node, "ksize")?)?.ok_or_else(|| {
            Error::invalid_argument(format!("op '{}' ({}) has no attr 'ksize'", node.name, node.op_type))
        })?
    } else {
        (1, 1)
    };
    Ok(Attrs { ksize, strides, same, dilations, explicit })
}

/// Output size and padding before, for one spatial dimension of `a` (`dim` 0: height, 1:
/// width) with a window of `k` taps, dilated (TensorFlow's `GetWindowedOutputSizeVerbose`).
fn out_dim_of(input: usize, k: usize, a: &Attrs, dim: usize) -> Result<(usize, usize)> {
    let (stride, rate) = if dim == 0 { (a.strides.0, a.dilations.0) } else { (a.strides.1, a.dilations.1) };
    let k = (k.max(1) - 1) * rate + 1;
    match a.explicit {
        Some(p) => {
            let (before, after) = (p[2 * dim], p[2 * dim + 1]);
            Ok((out_dim(input + before + after, k, stride, false)?.0, before))
        }
        None => out_dim(input, k, stride, a.same),
    }
}

/// Output size and padding before, for one spatial dimension (TensorFlow's
/// `GetWindowedOutputSize`). Errors: `InvalidArgument` when VALID and the window is larger
/// than the input.
fn out_dim(input: usize, k: usize, stride: usize, same: bool) -> Result<(usize, usize)> {
    if same {
        let out = input.div_ceil(stride);
        let total = ((out.max(1) - 1) * stride + k).saturating_sub(input);
        Ok((out, total / 2))
    } else if input < k {
        Err(Error::invalid_argument(format!(
            "Computed output size would be negative: {} [input_size: {input}, effective_filter_size: {k}, stride: {stride}]",
            (input as i64 - k as i64 + stride as i64) / stride as i64 - (input < k) as i64
        )))
    } else {
        Ok(((input - k) / stride + 1, 0))
    }
}

/// Geometry of one NHWC window op.
#[derive(Clone, Copy, Debug)]
struct Geom {
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    kh: usize,
    kw: usize,
    sh: usize,
    sw: usize,
    /// Dilation rates (1 for pooling).
    dh: usize,
    dw: usize,
    oh: usize,
    ow: usize,
    pt: usize,
    pl: usize,
}

impl Geom {
    fn new(input: &[usize], kh: usize, kw: usize, a: &Attrs) -> Result<Geom> {
        let [n, h, w, c] = *input else {
            return Err(Error::invalid_argument(format!("input must be 4-dimensional, got {}", fmt_dims(input))));
        };
        // Conv2DBackpropInput's input_sizes is a tensor: its product must fit
        checked_num_elements(input)?;
        let (sh, sw) = a.strides;
        let (dh, dw) = a.dilations;
        let (oh, pt) = out_dim_of(h, kh, a, 0)?;
        let (ow, pl) = out_dim_of(w, kw, a, 1)?;
        Ok(Geom { n, h, w, c, kh, kw, sh, sw, dh, dw, oh, ow, pt, pl })
    }
    /// Input row/column of output `o` at window offset `k` (dilated), when inside the input.
    #[inline]
    fn iy(&self, oy: usize, ky: usize) -> Option<usize> {
        (oy * self.sh + ky * self.dh).checked_sub(self.pt).filter(|&y| y < self.h)
    }
    #[inline]
    fn ix(&self, ox: usize, kx: usize) -> Option<usize> {
        (ox * self.sw + kx * self.dw).checked_sub(self.pl).filter(|&x| x < self.w)
    }
    /// The window rows `ky` of output row `oy` that fall inside the input (those with
    /// [`Geom::iy`] `Some`): pooling loops over these, so a window far larger than the
    /// input (a huge `ksize` with SAME padding) costs only the input's size.
    fn ky_range(&self, oy: usize) -> std::ops::Range<usize> {
        window_range(oy * self.sh, self.pt, self.h, self.kh)
    }
    /// The window columns `kx` of output column `ox` inside the input (see [`Geom::ky_range`]).
    fn kx_range(&self, ox: usize) -> std::ops::Range<usize> {
        window_range(ox * self.sw, self.pl, self.w, self.kw)
    }
    /// The offsets in an NHWC input of the first channel of each pixel of the window of
    /// output (`n`, `oy`, `ox`) inside the input, row by row: what pooling loops over.
    fn window(&self, n: usize, oy: usize, ox: usize) -> impl Iterator<Item = usize> + '_ {
        self.ky_range(oy).filter_map(move |ky| self.iy(oy, ky)).flat_map(move |iy| {
            self.kx_range(ox)
                .filter_map(move |kx| self.ix(ox, kx))
                .map(move |ix| ((n * self.h + iy) * self.w + ix) * self.c)
        })
    }
}

/// The `k` in `0..size` with `start + k - pad` in `0..input`.
fn window_range(start: usize, pad: usize, input: usize, size: usize) -> std::ops::Range<usize> {
    let lo = pad.saturating_sub(start).min(size);
    let hi = (input + pad).saturating_sub(start).min(size).max(lo);
    lo..hi
}

/// Partial output dim of a window op from a partial input dim (`dim` 0: height, 1: width).
fn out_dim_partial(input: Option<usize>, k: Option<usize>, a: &Attrs, dim: usize) -> Result<Option<usize>> {
    let stride = if dim == 0 { a.strides.0 } else { a.strides.1 };
    match (input, k) {
        (Some(i), Some(k)) => Ok(Some(out_dim_of(i, k, a, dim)?.0)),
        (Some(i), None) if a.same => Ok(Some(i.div_ceil(stride))),
        _ => Ok(None),
    }
}

fn check_rank4(s: &Shape, what: &str) -> Result<Option<Vec<Option<usize>>>> {
    match s.dims() {
        None => Ok(None),
        Some(d) if d.len() == 4 => Ok(Some(d.to_vec())),
        Some(d) => Err(Error::invalid_argument(format!("{what} must be 4-dimensional, but is rank {} ({s})", d.len()))),
    }
}

fn shape_vec(t: &Tensor, what: &str) -> Result<Vec<usize>> {
    let v = int_values(t)?;
    if v.len() != 4 || v.iter().any(|&d| d < 0) {
        return Err(Error::invalid_argument(format!("{what} must be 4 non-negative sizes, got {v:?}")));
    }
    Ok(v.iter().map(|&d| d as usize).collect())
}

// ---------------------------------------------------------------- im2col

/// The patches `[ow, kh*kw*c]` of output row `oy` of image `img` into `out` (zeros outside
/// the input); `out` holds exactly `ow * kh * kw * c` elements. Without column dilation the
/// `kw` pixels of one window row are adjacent in the input, so the part of that row inside
/// the input is one copy of up to `kw * c` elements (a 7x7 window on 3 channels: 21 values
/// per copy, not 3).
fn im2col_row<T: Num>(x: &[T], g: &Geom, img: usize, oy: usize, out: &mut [T]) {
    let c = g.c;
    let base = img * g.h * g.w * c;
    let span = g.kw * c;
    if out.is_empty() {
        return;
    }
    for (ox, patch) in out.chunks_exact_mut(g.kh * span).enumerate() {
        for (ky, dst) in patch.chunks_exact_mut(span).enumerate() {
            let Some(iy) = g.iy(oy, ky) else {
                dst.fill(T::ZERO);
                continue;
            };
            if g.dw == 1 {
                let kx = g.kx_range(ox);
                dst[..kx.start * c].fill(T::ZERO);
                if let Some(ix) = g.ix(ox, kx.start).filter(|_| !kx.is_empty()) {
                    let s = base + (iy * g.w + ix) * c;
                    dst[kx.start * c..kx.end * c].copy_from_slice(&x[s..s + kx.len() * c]);
                }
                dst[kx.end * c..].fill(T::ZERO);
                continue;
            }
            for (kx, d) in dst.chunks_exact_mut(c).enumerate() {
                match g.ix(ox, kx) {
                    Some(ix) => {
                        let s = base + (iy * g.w + ix) * c;
                        d.copy_from_slice(&x[s..s + c]);
                    }
                    None => d.fill(T::ZERO),
                }
            }
        }
    }
}

/// The patch matrix `[lines * ow, kh*kw*c]` of the output lines `line0..line0 + lines`
/// (line `l` is output row `l % oh` of image `l / oh`; `lines` is `cols`' length over
/// `ow * kh*kw*c`) into `cols`, lines split over the intra-op pool.
fn im2col<T: Num>(x: &[T], g: &Geom, line0: usize, cols: &mut [T]) {
    let row = g.ow * g.kh * g.kw * g.c;
    parallel::for_rows(cols, row, cols.len(), |r, out| {
        let line = line0 + r;
        im2col_row(x, g, line / g.oh, line % g.oh, out)
    });
}

/// Adds patch gradients `cols` (`[oh*ow, kh*kw*c]` for image `img`) back into `dx`.
fn col2im<T: Num>(cols: &[T], g: &Geom, img: usize, dx: &mut [T]) {
    let c = g.c;
    let base = img * g.h * g.w * c;
    let mut p = 0;
    for oy in 0..g.oh {
        for ox in 0..g.ow {
            for ky in 0..g.kh {
                let iy = g.iy(oy, ky);
                for kx in 0..g.kw {
                    if let (Some(iy), Some(ix)) = (iy, g.ix(ox, kx)) {
                        let s = base + (iy * g.w + ix) * c;
                        for (d, &v) in dx[s..s + c].iter_mut().zip(&cols[p..p + c]) {
                            *d += v;
                        }
                    }
                    p += c;
                }
            }
        }
    }
}

/// Images per im2col batch of the gradients: keeps the patch matrix near 8M elements.
fn images_per_chunk(g: &Geom) -> usize {
    let per = (g.oh * g.ow * g.kh * g.kw * g.c).max(1);
    (8_000_000 / per).clamp(1, g.n.max(1))
}

/// Output lines (rows of `ow` pixels, across images) per patch matrix of the forward
/// convolution: about `elems` elements.
fn lines_per_chunk(g: &Geom, elems: usize) -> usize {
    let per = (g.ow * g.kh * g.kw * g.c).max(1);
    (elems / per).clamp(1, (g.n * g.oh).max(1))
}

/// Elements of one forward patch matrix when the filter's packed form is kept (a `Const`
/// filter): 1 MiB of float32, so that the product reads the patches back from cache rather
/// than memory. On ResNet50's 7x7 stem at batch 8, one thread, chunks of 8M elements (whole
/// images) ran in 37-40 ms, 1M in 30-31 ms, 256K in 27-30 ms, 64K in 29-32 ms.
const PATCH_ELEMS: usize = 1 << 18;

/// Elements of one forward patch matrix when the product packs the filter itself (a fed or
/// variable filter) on every call: larger, so that packing is paid over more rows.
const UNPACKED_PATCH_ELEMS: usize = 8_000_000;

/// `Dims` of `[rows, k] @ [k, o]`, both row-major.
fn dims(rows: usize, k: usize, o: usize) -> Dims {
    Dims { m: rows, k, n: o, rsa: k as isize, csa: 1, rsb: o as isize, csb: 1 }
}

/// True for a 1x1 stride-1 window without padding: the NHWC input is the patch matrix.
fn is_pointwise(g: &Geom) -> bool {
    g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h && g.ow == g.w
}

fn conv_forward<T: Float + Gemm>(
    x: &Tensor,
    f: &Tensor,
    g: &Geom,
    o: usize,
    weights: Option<&ConvWeights>,
) -> Result<Tensor> {
    conv_forward_with::<T>(x, f, g, o, Epilogue::none(), weights)
}

/// What a convolution kernel keeps of a `Const` filter across runs: its packed form for the
/// im2col product (float32), and its Winograd transform.
#[derive(Default)]
struct ConvWeights {
    packed: PackedWeights,
    winograd: winograd::WinogradWeights,
}

/// The convolution of [`conv_forward`] with `ep`'s bias and activation applied by the
/// product as it writes each block of the output (`_FusedConv2D`). A 3x3 stride-1 window
/// with enough channels runs as Winograd F(2x2, 3x3) (`conv/winograd.rs`), other windows
/// as a product on the patch matrix. With `weights` (the filter is a `Const`), the filter's
/// packed form or Winograd transform is kept there for the next runs.
fn conv_forward_with<T: Float + Gemm>(
    x: &Tensor,
    f: &Tensor,
    g: &Geom,
    o: usize,
    ep: Epilogue<T>,
    weights: Option<&ConvWeights>,
) -> Result<Tensor> {
    let (xv, fv) = (x.as_slice::<T>()?, f.as_slice::<T>()?);
    let k = g.kh * g.kw * g.c;
    let rows = g.oh * g.ow;
    let len = checked_num_elements(&[g.n, g.oh, g.ow, o])?;
    let shape = [g.n, g.oh, g.ow, o];
    if len == 0 {
        // nothing to compute: no filter packed or transformed for a batch of none
        return Tensor::new(&shape, Vec::<T>::new());
    }
    // written by the product (beta = 0), never read before
    let mut out = try_with_capacity::<T>(len, x.dtype())?;
    let slots = &mut out.spare_capacity_mut()[..len];
    // a product of one row (one output pixel) reads the filter as it is
    let packed = || weights.filter(|_| g.n * rows > 1).and_then(|w| w.packed.get(f, k, o));
    if winograd::applies(g, o) {
        winograd::conv(xv, f, g, o, ep, weights.map(|w| &w.winograd), slots)?;
    } else if is_pointwise(g) {
        let packed = packed();
        let packed = packed.as_deref();
        gemm_uninit_packed(dims(g.n * rows, k, o), xv, fv, packed, slots, ep);
    } else {
        let packed = packed();
        let packed = packed.as_deref();
        let elems = if packed.is_some() { PATCH_ELEMS } else { UNPACKED_PATCH_ELEMS };
        let (lines, per) = (g.n * g.oh, lines_per_chunk(g, elems));
        with_scratch::<T, ()>(per * g.ow * k, |cols| {
            let mut line = 0;
            while line < lines {
                let end = (line + per).min(lines);
                let cols = &mut cols[..(end - line) * g.ow * k];
                im2col(xv, g, line, cols);
                let out = &mut slots[line * g.ow * o..end * g.ow * o];
                gemm_uninit_packed(dims((end - line) * g.ow, k, o), cols, fv, packed, out, ep);
                line = end;
            }
        })?;
    }
    // SAFETY: the products (or the Winograd tiles) wrote all `len` elements (every
    // image's rows, all `o` columns)
    unsafe { out.set_len(len) };
    Tensor::new(&shape, out)
}

fn conv_backprop_input<T: Float>(f: &Tensor, dy: &Tensor, g: &Geom, o: usize) -> Result<Tensor> {
    let k = g.kh * g.kw * g.c;
    let fm = f.reshape(&[k, o])?;
    let rows = g.oh * g.ow;
    let mut dx = try_filled(T::ZERO, g.n * g.h * g.w * g.c, dy.dtype())?;
    let dyv = dy.as_slice::<T>()?;
    let chunk = images_per_chunk(g);
    let mut img = 0;
    while img < g.n {
        let end = (img + chunk).min(g.n);
        let d = Tensor::new(&[(end - img) * rows, o], dyv[img * rows * o..end * rows * o].to_vec())?;
        let cols = matmul_kernel(&d, &fm, false, true)?;
        let cv = cols.as_slice::<T>()?;
        for i in img..end {
            col2im(&cv[(i - img) * rows * k..(i - img + 1) * rows * k], g, i, &mut dx);
        }
        img = end;
    }
    Tensor::new(&[g.n, g.h, g.w, g.c], dx)
}

fn conv_backprop_filter<T: Float + Gemm>(x: &Tensor, dy: &Tensor, g: &Geom, o: usize) -> Result<Tensor> {
    let xv = x.as_slice::<T>()?;
    let k = g.kh * g.kw * g.c;
    let rows = g.oh * g.ow;
    let dyv = dy.as_slice::<T>()?;
    let mut acc = vec![T::ZERO; k * o];
    let mut part = vec![T::ZERO; k * o];
    let chunk = images_per_chunk(g);
    let pointwise = is_pointwise(g);
    let mut cols = if pointwise { Vec::new() } else { try_filled(T::ZERO, chunk.min(g.n) * rows * k, x.dtype())? };
    let mut img = 0;
    while img < g.n {
        let end = (img + chunk).min(g.n);
        let r = (end - img) * rows;
        let pm: &[T] = if pointwise {
            &xv[img * rows * k..end * rows * k]
        } else {
            im2col(xv, g, img * g.oh, &mut cols[..r * k]);
            &cols[..r * k]
        };
        // patches^T @ dy: [k, r] @ [r, o]
        let d = Dims { m: k, k: r, n: o, rsa: 1, csa: k as isize, rsb: o as isize, csb: 1 };
        gemm(d, pm, &dyv[img * rows * o..end * rows * o], &mut part);
        for (a, &v) in acc.iter_mut().zip(&part) {
            *a += v;
        }
        img = end;
    }
    Tensor::new(&[g.kh, g.kw, g.c, o], acc)
}

// ---------------------------------------------------------------- Conv2D

/// Checks input `[N,H,W,C]` against filter `[KH,KW,C,O]` and returns the geometry and O.
fn conv_geom(input: &[usize], filter: &[usize], a: &Attrs) -> Result<(Geom, usize)> {
    if input.len() != 4 || filter.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "input and filter must be 4-dimensional: input {}, filter {}",
            fmt_dims(input),
            fmt_dims(filter)
        )));
    }
    if input[3] != filter[2] {
        return Err(Error::invalid_argument(format!(
            "input depth must equal filter in_depth: {} vs {} (input {}, filter {}; grouped convolution is not supported)",
            input[3],
            filter[2],
            fmt_dims(input),
            fmt_dims(filter)
        )));
    }
    Ok((Geom::new(input, filter[0], filter[1], a)?, filter[3]))
}

/// Partial output shape of Conv2D.
fn conv_infer(x: &Shape, f: &Shape, a: &Attrs) -> Result<Shape> {
    let xd = check_rank4(x, "input")?;
    let fd = check_rank4(f, "filter")?;
    if let (Some(xd), Some(fd)) = (&xd, &fd) {
        if let (Some(c), Some(fc)) = (xd[3], fd[2]) {
            if c != fc {
                return Err(Error::invalid_argument(format!(
                    "Depth of input ({c}) must equal the filter's in_depth ({fc}) for input {x} and filter {f}"
                )));
            }
        }
    }
    let xd = xd.unwrap_or_else(|| vec![None; 4]);
    let fd = fd.unwrap_or_else(|| vec![None; 4]);
    let oh =
        out_dim_partial(xd[1], fd[0], a, 0).map_err(|e| e.context(format!("Conv2D of input {x} with filter {f}")))?;
    let ow =
        out_dim_partial(xd[2], fd[1], a, 1).map_err(|e| e.context(format!("Conv2D of input {x} with filter {f}")))?;
    Ok(Shape::partial(&[xd[0], oh, ow, fd[3]]))
}

/// `Conv2D(input, filter)`: 2-D convolution (cross-correlation) of an NHWC `input
/// [N,H,W,C]` with `filter [KH,KW,C,O]`; attrs `T`, `strides`, `padding` (SAME, VALID, or
/// EXPLICIT with `explicit_paddings` `[0, 0, top, bottom, left, right, 0, 0]`),
/// `data_format` (NHWC), `dilations` (`[1, dh, dw, 1]`: the window's taps `dh` rows and
/// `dw` columns apart). float32/float64.
pub struct Conv2D;
impl RegisteredOp for Conv2D {
    fn op_type(&self) -> &'static str {
        "Conv2D"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        let a = read_attrs(ctx.node, false)?;
        Ok(vec![(t, conv_infer(ctx.shape(0), ctx.shape(1), &a)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<ForwardFn>(node, conv_forward::<f32>, conv_forward::<f64>)?;
        Ok(Box::new(Conv2DKernel { attrs: read_attrs(node, false)?, run, weights: ConvWeights::default() }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, f) = (&ctx.inputs[0], &ctx.inputs[1]);
        let g = ctx.grad(0)?;
        let xs = super::array::shape(s, x)?;
        let fs = super::array::shape(&s.named("Shape_1"), f)?;
        let dx = conv_op(s, "Conv2DBackpropInput", ctx.node, &[&xs, f, &g])?;
        let df = conv_op(s, "Conv2DBackpropFilter", ctx.node, &[x, &fs, &g])?;
        Ok(vec![Some(dx), Some(df)])
    }
}

/// A convolution kernel function for one dtype: (first operand, second operand, geometry,
/// output channels) to the result. Conv2D: (input, filter); Conv2DBackpropInput: (filter,
/// out_backprop); Conv2DBackpropFilter: (input, out_backprop).
type ConvFn = fn(&Tensor, &Tensor, &Geom, usize) -> Result<Tensor>;

/// `Conv2D`'s kernel function for one dtype: (input, filter, geometry, output channels,
/// what is kept of a `Const` filter) to the result.
type ForwardFn = fn(&Tensor, &Tensor, &Geom, usize, Option<&ConvWeights>) -> Result<Tensor>;

/// The prepared `Conv2D` kernel: its window attrs, the kernel of its dtype, and what it
/// keeps of a constant filter (see [`ConvWeights`]).
struct Conv2DKernel {
    attrs: Attrs,
    run: ForwardFn,
    weights: ConvWeights,
}
impl Kernel for Conv2DKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, f) = (ctx.input(0), ctx.input(1));
        let (g, o) = conv_geom(x.shape(), f.shape(), &self.attrs)?;
        if x.dtype() != f.dtype() {
            return Err(Error::invalid_argument(format!("Conv2D input is {} but filter is {}", x.dtype(), f.dtype())));
        }
        Ok(vec![(self.run)(x, f, &g, o, const_filter(ctx, &self.weights))?])
    }
}

/// `weights` when the filter (input 1) comes from a `Const` node (its packed form or
/// transform may then be kept across runs), else `None`.
fn const_filter<'a>(ctx: &KernelCtx, weights: &'a ConvWeights) -> Option<&'a ConvWeights> {
    ctx.is_const_input(1).then_some(weights)
}

/// The prepared `Conv2DBackpropInput` kernel.
struct BackpropInputKernel {
    attrs: Attrs,
    run: ConvFn,
}
impl Kernel for BackpropInputKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let xs = shape_vec(ctx.input(0), "input_sizes")?;
        let (f, dy) = (ctx.input(1), ctx.input(2));
        let (g, o) = conv_geom(&xs, f.shape(), &self.attrs)?;
        check_out_backprop(dy.shape(), &g, o, "Conv2DBackpropInput")?;
        Ok(vec![(self.run)(f, dy, &g, o)?])
    }
}

/// The prepared `Conv2DBackpropFilter` kernel.
struct BackpropFilterKernel {
    attrs: Attrs,
    run: ConvFn,
}
impl Kernel for BackpropFilterKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let fs = shape_vec(ctx.input(1), "filter_sizes")?;
        let (x, dy) = (ctx.input(0), ctx.input(2));
        let (g, o) = conv_geom(x.shape(), &fs, &self.attrs)?;
        check_out_backprop(dy.shape(), &g, o, "Conv2DBackpropFilter")?;
        Ok(vec![(self.run)(x, dy, &g, o)?])
    }
}

/// Builds a conv-family op with `node`'s window attrs.
fn conv_op(s: &Scope, op_type: &str, node: &Node, inputs: &[&Output]) -> Result<Output> {
    let t = inputs.iter().map(|i| i.dtype()).find(|d| d.is_floating()).unwrap_or(DType::Float);
    let mut b = s.op(op_type, op_type).attr("T", t);
    for i in inputs {
        b = b.input(i);
    }
    for name in ["strides", "padding", "data_format", "dilations", "use_cudnn_on_gpu", "explicit_paddings"] {
        if let Some(v) = node.attrs.get(name) {
            b = b.attr(name, v.clone());
        }
    }
    b.build_output()
}

/// `Conv2DBackpropInput(input_sizes, filter, out_backprop)`: the gradient of Conv2D with
/// respect to its input, of shape `input_sizes` (int32 `[4]`). Attrs as [`Conv2D`].
pub struct Conv2DBackpropInput;
impl RegisteredOp for Conv2DBackpropInput {
    fn op_type(&self) -> &'static str {
        "Conv2DBackpropInput"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_backprop(ctx, 0, 1, "input_sizes")
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<ConvFn>(node, conv_backprop_input::<f32>, conv_backprop_input::<f64>)?;
        Ok(Box::new(BackpropInputKernel { attrs: read_attrs(node, false)?, run }))
    }
    // TensorFlow's _Conv2DBackpropInputGrad
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (f, dy) = (&ctx.inputs[1], &ctx.inputs[2]);
        let g = ctx.grad(0)?;
        let fs = super::array::shape(s, f)?;
        let df = conv_op(s, "Conv2DBackpropFilter", ctx.node, &[&g, &fs, dy])?;
        let ddy = conv_op(s, "Conv2D", ctx.node, &[&g, f])?;
        Ok(vec![None, Some(df), Some(ddy)])
    }
}

/// Inference of the two Conv2D backprop ops: the output has the dtype of input `typed`
/// and the shape held by input `sizes` (known when it is constant).
fn infer_backprop(ctx: &InferCtx, sizes: usize, typed: usize, what: &str) -> Result<Vec<(DType, Shape)>> {
    ctx.expect_inputs(3)?;
    read_attrs(ctx.node, false)?;
    let t = ctx.check_dtype(typed, FLOATS)?;
    let shape = match ctx.const_input(sizes) {
        Some(v) => Shape::known(&shape_vec(&v, what)?),
        None => Shape::partial(&[None; 4]),
    };
    Ok(vec![(t, shape)])
}

fn check_out_backprop(dy: &[usize], g: &Geom, o: usize, what: &str) -> Result<()> {
    let want = [g.n, g.oh, g.ow, o];
    if dy != want {
        return Err(Error::invalid_argument(format!(
            "{what}: out_backprop has shape {} but the convolution's output is {}",
            fmt_dims(dy),
            fmt_dims(&want)
        )));
    }
    Ok(())
}

/// `Conv2DBackpropFilter(input, filter_sizes, out_backprop)`: the gradient of Conv2D with
/// respect to its filter, of shape `filter_sizes` (int32 `[4]`). Attrs as [`Conv2D`].
pub struct Conv2DBackpropFilter;
impl RegisteredOp for Conv2DBackpropFilter {
    fn op_type(&self) -> &'static str {
        "Conv2DBackpropFilter"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_backprop(ctx, 1, 0, "filter_sizes")
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<ConvFn>(node, conv_backprop_filter::<f32>, conv_backprop_filter::<f64>)?;
        Ok(Box::new(BackpropFilterKernel { attrs: read_attrs(node, false)?, run }))
    }
    // TensorFlow's _Conv2DBackpropFilterGrad
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, dy) = (&ctx.inputs[0], &ctx.inputs[2]);
        let g = ctx.grad(0)?;
        let xs = super::array::shape(s, x)?;
        let dx = conv_op(s, "Conv2DBackpropInput", ctx.node, &[&xs, &g, dy])?;
        let ddy = conv_op(s, "Conv2D", ctx.node, &[x, &g])?;
        Ok(vec![Some(dx), None, Some(ddy)])
    }
}

/// Expands TF2-style `strides`/`ksize` (1, 2 or 4 entries) to the 4-entry NHWC form.
fn nhwc4(v: &[i64], what: &str) -> Result<Vec<i64>> {
    match *v {
        [a] => Ok(vec![1, a, a, 1]),
        [a, b] => Ok(vec![1, a, b, 1]),
        [_, _, _, _] => Ok(v.to_vec()),
        _ => Err(Error::invalid_argument(format!("{what} should have 1, 2 or 4 entries, got {v:?}"))),
    }
}

/// `tf.nn.conv2d(input, filters, strides, padding)` in NHWC: op `Conv2D` (attrs `T`,
/// `strides`, `padding`, `data_format = "NHWC"`, `dilations = [1,1,1,1]`,
/// `use_cudnn_on_gpu`, `explicit_paddings = []`), default name `Conv2D`. `input [N,H,W,C]`
/// and `filters [KH,KW,C,O]` float32/float64 of one dtype; `strides` has 1, 2 or 4 entries
/// (4: `[1, sh, sw, 1]`); `padding` `"SAME"` (output `ceil(H/sh)`) or `"VALID"` (output
/// `(H-KH)/sh + 1`). Output `[N, OH, OW, O]`. Errors: `InvalidArgument` at build time
/// naming both shapes for a depth mismatch, a wrong rank or a window larger than a VALID
/// input; `InvalidArgument` for `"EXPLICIT"` (this builder sets no `explicit_paddings`:
/// build the op with them). Gradients: Conv2DBackpropInput/Filter.
pub fn conv2d(s: &Scope, input: &Output, filters: &Output, strides: &[i64], padding: &str) -> Result<Output> {
    s.op("Conv2D", "Conv2D")
        .input(input)
        .input(filters)
        .attr("T", input.dtype())
        .attr("strides", AttrValue::ListInt(nhwc4(strides, "strides")?))
        .attr("use_cudnn_on_gpu", true)
        .attr("padding", padding)
        .attr("explicit_paddings", AttrValue::ListInt(vec![]))
        .attr("data_format", "NHWC")
        .attr("dilations", AttrValue::ListInt(vec![1, 1, 1, 1]))
        .build_output()
}

/// `tf.compat.v1.nn.conv2d_backprop_input(input_sizes, filter, out_backprop, strides,
/// padding)`: op `Conv2DBackpropInput`, default name `Conv2DBackpropInput`; attrs as
/// [`conv2d`]. `input_sizes` is an int32 `[4]` tensor. Errors: `InvalidArgument` when run
/// with an `out_backprop` not shaped as the forward output.
pub fn conv2d_backprop_input(
    s: &Scope,
    input_sizes: &Output,
    filter: &Output,
    out_backprop: &Output,
    strides: &[i64],
    padding: &str,
) -> Result<Output> {
    conv2d_backprop(s, "Conv2DBackpropInput", [input_sizes, filter, out_backprop], filter.dtype(), strides, padding)
}

/// `tf.nn.conv2d_transpose(input, filters, output_shape, strides, padding)` in NHWC: the
/// transposed convolution, op `Conv2DBackpropInput` named `conv2d_transpose` (then
/// `conv2d_transpose_1`, ...) with `output_shape` as the int32 constant
/// `conv2d_transpose/input_sizes`. `input [N,H,W,O]` and `filters [KH,KW,C,O]`
/// float32/float64; `output_shape` `[N, OH, OW, C]` is the shape of the Conv2D input whose
/// output has `input`'s shape (with `strides` and `padding`). Errors: `InvalidArgument`
/// when run with an `input` not shaped as Conv2D's output for `output_shape`. Gradient
/// (TensorFlow's `_Conv2DBackpropInputGrad`): `Conv2DBackpropFilter` for `filters`,
/// `Conv2D` for `input`.
pub fn conv2d_transpose(
    s: &Scope,
    input: &Output,
    filters: &Output,
    output_shape: &[i64],
    strides: &[i64],
    padding: &str,
) -> Result<Output> {
    let (op, inner) = s.op_scope("conv2d_transpose");
    let sizes: Vec<i32> = output_shape.iter().map(|&d| d as i32).collect();
    let sizes = super::array::constant(&inner.named("input_sizes"), Tensor::vector(sizes))?;
    conv2d_backprop(&op, "Conv2DBackpropInput", [&sizes, filters, input], filters.dtype(), strides, padding)
}

/// `tf.compat.v1.nn.conv2d_backprop_filter(input, filter_sizes, out_backprop, strides,
/// padding)`: op `Conv2DBackpropFilter`, default name `Conv2DBackpropFilter`; attrs as
/// [`conv2d`]. `filter_sizes` is an int32 `[4]` tensor. Errors as [`conv2d_backprop_input`].
pub fn conv2d_backprop_filter(
    s: &Scope,
    input: &Output,
    filter_sizes: &Output,
    out_backprop: &Output,
    strides: &[i64],
    padding: &str,
) -> Result<Output> {
    conv2d_backprop(s, "Conv2DBackpropFilter", [input, filter_sizes, out_backprop], input.dtype(), strides, padding)
}

/// A `Conv2DBackpropInput`/`Conv2DBackpropFilter` op of type (and default name) `op_type`
/// on `inputs`, with the NHWC attrs both share.
fn conv2d_backprop(
    s: &Scope,
    op_type: &str,
    inputs: [&Output; 3],
    dtype: DType,
    strides: &[i64],
    padding: &str,
) -> Result<Output> {
    let mut op = s.op(op_type, op_type);
    for i in inputs {
        op = op.input(i);
    }
    op.attr("T", dtype)
        .attr("strides", AttrValue::ListInt(nhwc4(strides, "strides")?))
        .attr("padding", padding)
        .attr("data_format", "NHWC")
        .attr("dilations", AttrValue::ListInt(vec![1, 1, 1, 1]))
        .build_output()
}

// ---------------------------------------------------------------- pooling

/// `MaxPool` and `AvgPool` over NHWC windows (attrs `T`, `ksize`, `strides`, `padding`,
/// `data_format`). MaxPool: float32/float64/int32/int64, padding ignored; AvgPool:
/// float32/float64, the mean over the window's elements inside the input (SAME padding
/// divides by the count of valid elements, as TensorFlow).
pub struct Pool {
    op_type: &'static str,
    max: bool,
}
impl Pool {
    const MAX: Pool = Pool { op_type: "MaxPool", max: true };
    const AVG: Pool = Pool { op_type: "AvgPool", max: false };
}

fn pool_infer(x: &Shape, a: &Attrs, what: &str) -> Result<Shape> {
    let Some(d) = check_rank4(x, "input")? else {
        return Ok(Shape::partial(&[None; 4]));
    };
    let ctx = |e: Error| e.context(format!("{what} of input {x} with ksize {:?}", a.ksize));
    let oh = out_dim_partial(d[1], Some(a.ksize.0), a, 0).map_err(ctx)?;
    let ow = out_dim_partial(d[2], Some(a.ksize.1), a, 1).map_err(ctx)?;
    Ok(Shape::partial(&[d[0], oh, ow, d[3]]))
}

fn max_pool_kernel<T: Num>(x: &Tensor, g: &Geom) -> Result<Tensor> {
    let xv = x.as_slice::<T>()?;
    let c = g.c;
    let mut out = try_filled(T::MIN, checked_num_elements(&[g.n, g.oh, g.ow, c])?, x.dtype())?;
    // one piece per output row (n, oy); the work is the windows read
    let work = out.len() * g.kh * g.kw;
    parallel::for_rows(&mut out, g.ow * c, work, |r, row| {
        let (n, oy) = (r / g.oh, r % g.oh);
        for (ox, acc) in row.chunks_mut(c.max(1)).enumerate() {
            for s in g.window(n, oy, ox) {
                for (a, &v) in acc.iter_mut().zip(&xv[s..s + c]) {
                    // NaN propagates; a select rather than a branch, so the line vectorises
                    #[allow(clippy::eq_op)]
                    let take = v > *a || v != v;
                    *a = if take { v } else { *a };
                }
            }
        }
    });
    Tensor::new(&[g.n, g.oh, g.ow, c], out)
}

/// The number of window elements inside the input for output (oy, ox).
fn window_count(g: &Geom, oy: usize, ox: usize) -> usize {
    let rows = g.ky_range(oy).len();
    let cols = g.kx_range(ox).len();
    rows * cols
}

fn avg_pool_kernel<T: Float>(x: &Tensor, g: &Geom) -> Result<Tensor> {
    let xv = x.as_slice::<T>()?;
    let c = g.c;
    let mut out = try_filled(T::ZERO, checked_num_elements(&[g.n, g.oh, g.ow, c])?, x.dtype())?;
    let work = out.len() * g.kh * g.kw;
    parallel::for_rows(&mut out, g.ow * c, work, |r, row| {
        let (n, oy) = (r / g.oh, r % g.oh);
        for (ox, acc) in row.chunks_mut(c.max(1)).enumerate() {
            for s in g.window(n, oy, ox) {
                for (a, &v) in acc.iter_mut().zip(&xv[s..s + c]) {
                    *a += v;
                }
            }
            let cnt = T::from_f64(window_count(g, oy, ox).max(1) as f64);
            acc.iter_mut().for_each(|a| *a = *a / cnt);
        }
    });
    Tensor::new(&[g.n, g.oh, g.ow, c], out)
}

impl RegisteredOp for Pool {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, if self.max { NUMBERS } else { FLOATS })?;
        let a = read_attrs(ctx.node, true)?;
        Ok(vec![(t, pool_infer(ctx.shape(0), &a, self.op_type)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = if self.max {
            let fns: [PoolFn; 4] =
                [max_pool_kernel::<f32>, max_pool_kernel::<f64>, max_pool_kernel::<i32>, max_pool_kernel::<i64>];
            pick_numeric(node, fns)?
        } else {
            pick_float::<PoolFn>(node, avg_pool_kernel::<f32>, avg_pool_kernel::<f64>)?
        };
        Ok(Box::new(PoolKernel { attrs: read_attrs(node, true)?, run }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = ctx.grad(0)?;
        let x = &ctx.inputs[0];
        let mut b = if self.max {
            s.op("MaxPoolGrad", "MaxPoolGrad").input(x).input(&ctx.outputs[0]).input(&g)
        } else {
            let xs = super::array::shape(s, x)?;
            s.op("AvgPoolGrad", "AvgPoolGrad").input(&xs).input(&g)
        };
        b = b.attr("T", g.dtype());
        for name in ["ksize", "strides", "padding", "data_format"] {
            if let Some(v) = ctx.node.attrs.get(name) {
                b = b.attr(name, v.clone());
            }
        }
        Ok(vec![Some(b.build_output()?)])
    }
}

/// A pooling kernel function for one dtype: (input, geometry) to the pooled output.
type PoolFn = fn(&Tensor, &Geom) -> Result<Tensor>;

/// The prepared `MaxPool`/`AvgPool` kernel: its window attrs and the kernel of its dtype.
struct PoolKernel {
    attrs: Attrs,
    run: PoolFn,
}
impl Kernel for PoolKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = &self.attrs;
        let x = ctx.input(0);
        let g = Geom::new(x.shape(), a.ksize.0, a.ksize.1, a)?;
        Ok(vec![(self.run)(x, &g)?])
    }
}

fn pool_op(s: &Scope, op_type: &str, value: &Output, ksize: &[i64], strides: &[i64], padding: &str) -> Result<Output> {
    s.op(op_type, op_type)
        .input(value)
        .attr("T", value.dtype())
        .attr("ksize", AttrValue::ListInt(nhwc4(ksize, "ksize")?))
        .attr("strides", AttrValue::ListInt(nhwc4(strides, "strides")?))
        .attr("padding", padding)
        .attr("data_format", "NHWC")
        .build_output()
}

/// `tf.nn.max_pool(value, ksize, strides, padding)` in NHWC: op `MaxPool` (attrs `T`,
/// `ksize`, `strides`, `padding`, `data_format = "NHWC"`), default name `MaxPool`.
/// `value [N,H,W,C]` float32/float64/int32/int64; `ksize`/`strides` 1, 2 or 4 entries;
/// `padding` SAME (padding never wins the max) or VALID. Output `[N, OH, OW, C]`. Errors:
/// `InvalidArgument` for a wrong rank or a window larger than a VALID input (naming the
/// shape). Gradient: `MaxPoolGrad` (to the first maximum of each window).
pub fn max_pool(s: &Scope, value: &Output, ksize: &[i64], strides: &[i64], padding: &str) -> Result<Output> {
    pool_op(s, "MaxPool", value, ksize, strides, padding)
}

/// `tf.nn.avg_pool(value, ksize, strides, padding)` in NHWC: op `AvgPool`, default name
/// `AvgPool`; as [`max_pool`] but float32/float64 and the mean over the window (with SAME
/// padding, over the elements inside the input only). Gradient: `AvgPoolGrad`.
pub fn avg_pool(s: &Scope, value: &Output, ksize: &[i64], strides: &[i64], padding: &str) -> Result<Output> {
    pool_op(s, "AvgPool", value, ksize, strides, padding)
}

/// `MaxPoolGrad` for one dtype: `dy` routed to the first maximum in `x` of each window.
fn max_pool_grad<T: Num>(x: &Tensor, dy: &Tensor, g: &Geom) -> Result<Tensor> {
    let (xv, dv) = (x.as_slice::<T>()?, dy.as_slice::<T>()?);
    let c = g.c;
    let mut dx = vec![T::ZERO; xv.len()];
    for n in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                for ch in 0..c {
                    let mut best: Option<(usize, T)> = None;
                    for i in g.window(n, oy, ox).map(|s| s + ch) {
                        if best.is_none_or(|(_, b)| xv[i] > b) {
                            best = Some((i, xv[i]));
                        }
                    }
                    if let Some((i, _)) = best {
                        dx[i] += dv[((n * g.oh + oy) * g.ow + ox) * c + ch];
                    }
                }
            }
        }
    }
    Tensor::new(x.shape(), dx)
}

/// `AvgPoolGrad` for one dtype: `dy` spread evenly over each window's elements inside
/// the input (of the shape `g` describes; `x` is unused).
fn avg_pool_grad<T: Float>(_: &Tensor, dy: &Tensor, g: &Geom) -> Result<Tensor> {
    let dv = dy.as_slice::<T>()?;
    let c = g.c;
    let mut dx = vec![T::ZERO; g.n * g.h * g.w * c];
    for n in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let cnt = T::from_f64(window_count(g, oy, ox).max(1) as f64);
                let o = ((n * g.oh + oy) * g.ow + ox) * c;
                for s in g.window(n, oy, ox) {
                    for ch in 0..c {
                        dx[s + ch] += dv[o + ch] / cnt;
                    }
                }
            }
        }
    }
    Tensor::new(&[g.n, g.h, g.w, g.c], dx)
}

/// A pooling-gradient kernel function for one dtype: (`orig_input` for MaxPoolGrad, an
/// empty tensor for AvgPoolGrad; the incoming gradient; geometry) to the input's gradient.
type PoolGradFn = fn(&Tensor, &Tensor, &Geom) -> Result<Tensor>;

/// The prepared `MaxPoolGrad`/`AvgPoolGrad` kernel: window attrs and the kernel of its dtype.
struct PoolGradKernel {
    attrs: Attrs,
    max: bool,
    run: PoolGradFn,
}
impl Kernel for PoolGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = &self.attrs;
        if self.max {
            let (x, dy) = (ctx.input(0), ctx.input(2));
            let g = Geom::new(x.shape(), a.ksize.0, a.ksize.1, a)?;
            check_out_backprop(dy.shape(), &g, g.c, "MaxPoolGrad")?;
            Ok(vec![(self.run)(x, dy, &g)?])
        } else {
            let xs = shape_vec(ctx.input(0), "orig_input_shape")?;
            let dy = ctx.input(1);
            let g = Geom::new(&xs, a.ksize.0, a.ksize.1, a)?;
            check_out_backprop(dy.shape(), &g, g.c, "AvgPoolGrad")?;
            Ok(vec![(self.run)(ctx.input(0), dy, &g)?])
        }
    }
}

/// `MaxPoolGrad(orig_input, orig_output, grad)`: routes each window's gradient to the
/// first maximum of the window in `orig_input`. Attrs as [`Pool`].
pub struct MaxPoolGrad;
impl RegisteredOp for MaxPoolGrad {
    fn op_type(&self) -> &'static str {
        "MaxPoolGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        read_attrs(ctx.node, true)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let fns: [PoolGradFn; 4] =
            [max_pool_grad::<f32>, max_pool_grad::<f64>, max_pool_grad::<i32>, max_pool_grad::<i64>];
        Ok(Box::new(PoolGradKernel { attrs: read_attrs(node, true)?, max: true, run: pick_numeric(node, fns)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Err(Error::unimplemented(format!(
            "the gradient of MaxPoolGrad ('{}') needs MaxPoolGradGrad, which tensorgraph does not have",
            ctx.node.name
        )))
    }
}

/// `AvgPoolGrad(orig_input_shape, grad)`: spreads each window's gradient evenly over the
/// window's elements inside the input. Attrs as [`Pool`].
pub struct AvgPoolGrad;
impl RegisteredOp for AvgPoolGrad {
    fn op_type(&self) -> &'static str {
        "AvgPoolGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        read_attrs(ctx.node, true)?;
        let t = ctx.check_dtype(1, FLOATS)?;
        let shape = match ctx.const_input(0) {
            Some(v) => Shape::known(&shape_vec(&v, "orig_input_shape")?),
            None => Shape::partial(&[None; 4]),
        };
        Ok(vec![(t, shape)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<PoolGradFn>(node, avg_pool_grad::<f32>, avg_pool_grad::<f64>)?;
        Ok(Box::new(PoolGradKernel { attrs: read_attrs(node, true)?, max: false, run }))
    }
    // TensorFlow's _AvgPoolGradGrad: AvgPool of the incoming gradient
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let g = ctx.grad(0)?;
        let mut b = ctx.scope.op("AvgPool", "AvgPool").input(&g).attr("T", g.dtype());
        for name in ["ksize", "strides", "padding", "data_format"] {
            if let Some(v) = ctx.node.attrs.get(name) {
                b = b.attr(name, v.clone());
            }
        }
        Ok(vec![None, Some(b.build_output()?)])
    }
}
