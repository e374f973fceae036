//! Depthwise convolution (TensorFlow's `nn_ops`): `DepthwiseConv2dNative` and its gradient
//! ops `DepthwiseConv2dNativeBackpropInput` and `DepthwiseConv2dNativeBackpropFilter`.
//!
//! `input [N,H,W,C]` (or `[N,C,H,W]` with `data_format = "NCHW"`) convolved channel by
//! channel with `filter [KH,KW,C,M]`: output channel `c * M + m` is input channel `c`
//! convolved with `filter[.., .., c, m]`. Attrs `T` (float32, float64), `strides`,
//! `padding` (`SAME`, `VALID`, `EXPLICIT` with `explicit_paddings`), `data_format`,
//! `dilations`; all four-entry lists are in `data_format`'s order. The loops run in NHWC;
//! NCHW values are transposed in and out.

use super::{list_int, pick_float, shape_vec, string_attr};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::{constant, shape};
use crate::ops::kernels::Float;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&DepthwiseConv2dNative, &BackpropInput, &BackpropFilter];

const FLOATS: &[DType] = &[DType::Float, DType::Double];
const FORWARD: &str = "DepthwiseConv2dNative";
const BACKPROP_INPUT: &str = "DepthwiseConv2dNativeBackpropInput";
const BACKPROP_FILTER: &str = "DepthwiseConv2dNativeBackpropFilter";

// ---------------------------------------------------------------- attrs and geometry

/// Padding of one op: `SAME`, `VALID`, or `EXPLICIT` (top, bottom, left, right).
#[derive(Clone, Copy, Debug)]
enum Padding {
    Same,
    Valid,
    Explicit([usize; 4]),
}

/// The window attrs, parsed and checked once (by inference and when a kernel is prepared).
#[derive(Clone, Copy, Debug)]
struct Attrs {
    nchw: bool,
    strides: (usize, usize),
    dilations: (usize, usize),
    padding: Padding,
}

fn read_attrs(node: &Node) -> Result<Attrs> {
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
fn out_dim(
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
    /// Calls `f(input offset, filter offset, output offset)` for every (image, output
    /// position, filter tap) inside the input: the offsets of channel 0 in NHWC `x`,
    /// `[KH,KW,C,M]` filter and NHWC output.
    fn for_each_tap(&self, mut f: impl FnMut(usize, usize, usize)) {
        let cm = self.c * self.m;
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
    let g = Geom::new(nhwc_dims(x.shape(), a.nchw)?, f.shape(), a)?;
    let xv = nhwc_values::<T>(x, [g.n, g.h, g.w, g.c], a.nchw)?;
    let fv = f.as_slice::<T>()?;
    let (m, cm) = (g.m, g.c * g.m);
    let mut out = vec![T::ZERO; g.n * g.oh * g.ow * cm];
    g.for_each_tap(|xi, fi, o| {
        for (j, (y, &w)) in out[o..o + cm].iter_mut().zip(&fv[fi..fi + cm]).enumerate() {
            *y += xv[xi + j / m] * w;
        }
    });
    format_tensor(out, g.out_nhwc(), a.nchw)
}

fn backprop_input<T: Float>(sizes: &[usize], f: &Tensor, dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    let g = Geom::new(nhwc_dims(sizes, a.nchw)?, f.shape(), a)?;
    check_out_backprop(dy.shape(), &g, BACKPROP_INPUT)?;
    let dyv = nhwc_values::<T>(dy, g.out_nhwc(), a.nchw)?;
    let fv = f.as_slice::<T>()?;
    let (m, cm) = (g.m, g.c * g.m);
    let mut dx = vec![T::ZERO; g.n * g.h * g.w * g.c];
    g.for_each_tap(|xi, fi, o| {
        for (j, (&d, &w)) in dyv[o..o + cm].iter().zip(&fv[fi..fi + cm]).enumerate() {
            dx[xi + j / m] += d * w;
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
        for (j, (w, &d)) in df[fi..fi + cm].iter_mut().zip(&dyv[o..o + cm]).enumerate() {
            *w += xv[xi + j / m] * d;
        }
    });
    Tensor::new(&[g.kh, g.kw, g.c, g.m], df)
}

/// A depthwise kernel function for one dtype: (input 0, input 1, input 2, attrs); inputs
/// as the op's, the `sizes` one read as a shape.
type DwFn = fn(&Tensor, &Tensor, &Tensor, &Attrs) -> Result<Tensor>;

/// The prepared kernel of any of the three ops.
struct DwKernel {
    attrs: Attrs,
    run: DwFn,
}
impl Kernel for DwKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let empty = Tensor::new(&[0], Vec::<f32>::new())?;
        let third = ctx.inputs.get(2).unwrap_or(&empty);
        Ok(vec![(self.run)(ctx.input(0), ctx.input(1), third, &self.attrs)?])
    }
}

fn forward_fn<T: Float>(x: &Tensor, f: &Tensor, _: &Tensor, a: &Attrs) -> Result<Tensor> {
    if x.dtype() != f.dtype() {
        return Err(Error::invalid_argument(format!("{FORWARD} input is {} but filter is {}", x.dtype(), f.dtype())));
    }
    forward::<T>(x, f, a)
}
fn backprop_input_fn<T: Float>(sizes: &Tensor, f: &Tensor, dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    backprop_input::<T>(&shape_vec(sizes, "input_sizes")?, f, dy, a)
}
fn backprop_filter_fn<T: Float>(x: &Tensor, sizes: &Tensor, dy: &Tensor, a: &Attrs) -> Result<Tensor> {
    backprop_filter::<T>(x, &shape_vec(sizes, "filter_sizes")?, dy, a)
}

// ---------------------------------------------------------------- shape inference

/// The dims of a rank-4 shape (None when the rank is unknown); `InvalidArgument` otherwise.
fn rank4(s: &Shape, what: &str, both: &str) -> Result<Option<Vec<Option<usize>>>> {
    match s.dims() {
        None => Ok(None),
        Some(d) if d.len() == 4 => Ok(Some(d.to_vec())),
        Some(d) => Err(Error::invalid_argument(format!(
            "Shape must be rank 4 but is rank {} for {what} with input shapes: {both}",
            d.len()
        ))),
    }
}

/// Partial output dim of one spatial dimension.
fn out_dim_partial(
    input: Option<usize>,
    k: Option<usize>,
    stride: usize,
    dil: usize,
    pad: Padding,
    pads: (usize, usize),
) -> Result<Option<usize>> {
    match (input, k, pad) {
        (Some(i), Some(k), _) => Ok(Some(out_dim(i, k, stride, dil, pad, pads)?.0)),
        (Some(i), None, Padding::Same) => Ok(Some(i.div_ceil(stride))),
        _ => Ok(None),
    }
}

/// The forward op's output shape from partial input and filter shapes.
fn forward_shape(x: &Shape, f: &Shape, a: &Attrs) -> Result<Shape> {
    let both = format!("{x}, {f}");
    let xd = rank4(x, "input", &both)?.unwrap_or_else(|| vec![None; 4]);
    let fd = rank4(f, "filter", &both)?.unwrap_or_else(|| vec![None; 4]);
    let (n, h, w, c) = if a.nchw { (xd[0], xd[2], xd[3], xd[1]) } else { (xd[0], xd[1], xd[2], xd[3]) };
    if let (Some(c), Some(fc)) = (c, fd[2]) {
        if c != fc {
            return Err(Error::invalid_argument(format!(
                "Dimensions must be equal, but are {c} and {fc} for input depth and filter in_channels with input shapes: {both}"
            )));
        }
    }
    let c = c.or(fd[2]);
    let [t, b, l, r] = match a.padding {
        Padding::Explicit(p) => p,
        _ => [0; 4],
    };
    let ctx = |e: Error| e.context(format!("{FORWARD} with input shapes: {both}"));
    let oh = out_dim_partial(h, fd[0], a.strides.0, a.dilations.0, a.padding, (t, b)).map_err(ctx)?;
    let ow = out_dim_partial(w, fd[1], a.strides.1, a.dilations.1, a.padding, (l, r)).map_err(ctx)?;
    let oc = c.zip(fd[3]).map(|(c, m)| c * m);
    Ok(Shape::partial(&if a.nchw { [n, oc, oh, ow] } else { [n, oh, ow, oc] }))
}

/// Inference of the two backprop ops: the dtype of input `typed`, the shape held by input
/// `sizes` (known when it is constant).
fn infer_backprop(ctx: &InferCtx, sizes: usize, typed: usize, what: &str) -> Result<Vec<(DType, Shape)>> {
    ctx.expect_inputs(3)?;
    read_attrs(ctx.node)?;
    let t = ctx.check_dtype(typed, FLOATS)?;
    ctx.check_type_attr("T", typed)?;
    let shape = match ctx.const_input(sizes) {
        Some(v) => Shape::known(&shape_vec(&v, what)?),
        None => Shape::partial(&[None; 4]),
    };
    Ok(vec![(t, shape)])
}

// ---------------------------------------------------------------- ops

/// `array_ops.shape(x)` as TensorFlow builds it in a graph: a `Const` when `x`'s shape is
/// fully known, else a `Shape` op (int32, named `Shape`, `Shape_1`, ...).
fn shape_of(s: &Scope, x: &Output) -> Result<Output> {
    match x.shape().to_vec() {
        Some(d) => constant(&s.named("Shape"), Tensor::vector(d.iter().map(|&v| v as i32).collect::<Vec<_>>())),
        None => shape(s, x),
    }
}

/// Builds a depthwise op of type `op_type` on `inputs` with `node`'s window attrs (the
/// gradients' ops, as TensorFlow's `_DepthwiseConv2dNative*Grad` pass them on).
fn like(s: &Scope, op_type: &str, node: &Node, inputs: &[&Output]) -> Result<Output> {
    let t = inputs.iter().map(|i| i.dtype()).find(|d| d.is_floating()).unwrap_or(DType::Float);
    let mut b = s.op(op_type, op_type).attr("T", t);
    for i in inputs {
        b = b.input(i);
    }
    for name in ["strides", "padding", "explicit_paddings", "data_format", "dilations"] {
        if let Some(v) = node.attrs.get(name) {
            b = b.attr(name, v.clone());
        }
    }
    b.build_output()
}

/// `DepthwiseConv2dNative(input, filter)`: see the module docs. Output `[N, OH, OW, C*M]`
/// (NCHW: `[N, C*M, OH, OW]`). Gradient (TensorFlow's `_DepthwiseConv2dNativeGrad`):
/// `DepthwiseConv2dNativeBackpropInput(Shape(input), filter, g)` and
/// `DepthwiseConv2dNativeBackpropFilter(input, Shape(filter), g)`.
pub struct DepthwiseConv2dNative;
impl RegisteredOp for DepthwiseConv2dNative {
    fn op_type(&self) -> &'static str {
        FORWARD
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        let a = read_attrs(ctx.node)?;
        Ok(vec![(t, forward_shape(ctx.shape(0), ctx.shape(1), &a)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<DwFn>(node, forward_fn::<f32>, forward_fn::<f64>)?;
        Ok(Box::new(DwKernel { attrs: read_attrs(node)?, run }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, f, g) = (&ctx.inputs[0], &ctx.inputs[1], ctx.grad(0)?);
        let dx = like(s, BACKPROP_INPUT, ctx.node, &[&shape_of(s, x)?, f, &g])?;
        let df = like(s, BACKPROP_FILTER, ctx.node, &[x, &shape_of(s, f)?, &g])?;
        Ok(vec![Some(dx), Some(df)])
    }
}

/// `DepthwiseConv2dNativeBackpropInput(input_sizes, filter, out_backprop)`: the gradient
/// of [`DepthwiseConv2dNative`] with respect to its input, of shape `input_sizes` (int32
/// `[4]`, in `data_format` order). Gradient (TensorFlow's
/// `_DepthwiseConv2dNativeBackpropInputGrad`): none for `input_sizes`,
/// `BackpropFilter(g, Shape(filter), out_backprop)`, `DepthwiseConv2dNative(g, filter)`.
pub struct BackpropInput;
impl RegisteredOp for BackpropInput {
    fn op_type(&self) -> &'static str {
        BACKPROP_INPUT
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_backprop(ctx, 0, 1, "input_sizes")
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<DwFn>(node, backprop_input_fn::<f32>, backprop_input_fn::<f64>)?;
        Ok(Box::new(DwKernel { attrs: read_attrs(node)?, run }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (f, dy, g) = (&ctx.inputs[1], &ctx.inputs[2], ctx.grad(0)?);
        let df = like(s, BACKPROP_FILTER, ctx.node, &[&g, &shape_of(s, f)?, dy])?;
        let ddy = like(s, FORWARD, ctx.node, &[&g, f])?;
        Ok(vec![None, Some(df), Some(ddy)])
    }
}

/// `DepthwiseConv2dNativeBackpropFilter(input, filter_sizes, out_backprop)`: the gradient
/// of [`DepthwiseConv2dNative`] with respect to its filter, of shape `filter_sizes` (int32
/// `[4]`: `[KH, KW, C, M]`). Gradient (TensorFlow's
/// `_DepthwiseConv2dNativeBackpropFilterGrad`): `BackpropInput(Shape(input), g,
/// out_backprop)`, none for `filter_sizes`, `DepthwiseConv2dNative(input, g)`.
pub struct BackpropFilter;
impl RegisteredOp for BackpropFilter {
    fn op_type(&self) -> &'static str {
        BACKPROP_FILTER
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_backprop(ctx, 1, 0, "filter_sizes")
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let run = pick_float::<DwFn>(node, backprop_filter_fn::<f32>, backprop_filter_fn::<f64>)?;
        Ok(Box::new(DwKernel { attrs: read_attrs(node)?, run }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, dy, g) = (&ctx.inputs[0], &ctx.inputs[2], ctx.grad(0)?);
        let dx = like(s, BACKPROP_INPUT, ctx.node, &[&shape_of(s, x)?, &g, dy])?;
        let ddy = like(s, FORWARD, ctx.node, &[x, &g])?;
        Ok(vec![Some(dx), None, Some(ddy)])
    }
}

// ---------------------------------------------------------------- builders

/// The attrs of the depthwise builders, in `data_format` order (TensorFlow's defaults:
/// strides 1, `SAME`, NHWC, dilations 1).
#[derive(Clone, Debug)]
pub struct DepthwiseConv2dOptions {
    /// Four entries, 1 in the batch and depth positions.
    pub strides: Vec<i64>,
    /// `SAME`, `VALID` or `EXPLICIT`.
    pub padding: String,
    /// With `EXPLICIT`: (before, after) per dimension, 8 entries, 0 for batch and depth.
    pub explicit_paddings: Vec<i64>,
    /// `NHWC` or `NCHW`.
    pub data_format: String,
    /// Four entries, 1 in the batch and depth positions.
    pub dilations: Vec<i64>,
}

impl Default for DepthwiseConv2dOptions {
    fn default() -> Self {
        DepthwiseConv2dOptions {
            strides: vec![1; 4],
            padding: "SAME".into(),
            explicit_paddings: Vec::new(),
            data_format: "NHWC".into(),
            dilations: vec![1; 4],
        }
    }
}

impl DepthwiseConv2dOptions {
    /// NHWC with `strides` `[1, sh, sw, 1]` and `padding` `SAME` or `VALID`.
    pub fn new(strides: [i64; 2], padding: &str) -> Self {
        DepthwiseConv2dOptions {
            strides: vec![1, strides[0], strides[1], 1],
            padding: padding.into(),
            ..Self::default()
        }
    }
}

fn build(
    s: &Scope,
    op_type: &str,
    inputs: [&Output; 3],
    n: usize,
    t: DType,
    o: &DepthwiseConv2dOptions,
) -> Result<Output> {
    let mut b = s.op(op_type, op_type);
    for i in &inputs[..n] {
        b = b.input(i);
    }
    b.attr("T", t)
        .attr("strides", AttrValue::ListInt(o.strides.clone()))
        .attr("padding", o.padding.as_str())
        .attr("explicit_paddings", AttrValue::ListInt(o.explicit_paddings.clone()))
        .attr("data_format", o.data_format.as_str())
        .attr("dilations", AttrValue::ListInt(o.dilations.clone()))
        .build_output()
}

/// `tf.nn.depthwise_conv2d_native(input, filter, strides, padding, ...)`: op
/// `DepthwiseConv2dNative`, default name `DepthwiseConv2dNative`. `input` `[N,H,W,C]`
/// (NHWC) or `[N,C,H,W]` (NCHW) and `filter [KH,KW,C,M]`, float32/float64 of one dtype.
/// Output `[N,OH,OW,C*M]` (or NCHW). Errors: `InvalidArgument` at build time for wrong
/// ranks, a depth mismatch or a window larger than a VALID input (naming the shapes), and
/// for attrs TensorFlow refuses (with its words); `Unimplemented` for strides in the batch
/// or depth dimension.
pub fn depthwise_conv2d_native(
    s: &Scope,
    input: &Output,
    filter: &Output,
    opts: &DepthwiseConv2dOptions,
) -> Result<Output> {
    build(s, FORWARD, [input, filter, filter], 2, input.dtype(), opts)
}

/// `tf.nn.depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, ...)`:
/// op `DepthwiseConv2dNativeBackpropInput` (default name the same). `input_sizes` is an
/// int32 `[4]` tensor in `data_format` order. Errors as [`depthwise_conv2d_native`], and
/// `InvalidArgument` when run with an `out_backprop` not shaped as the forward output.
pub fn depthwise_conv2d_native_backprop_input(
    s: &Scope,
    input_sizes: &Output,
    filter: &Output,
    out_backprop: &Output,
    opts: &DepthwiseConv2dOptions,
) -> Result<Output> {
    build(s, BACKPROP_INPUT, [input_sizes, filter, out_backprop], 3, filter.dtype(), opts)
}

/// `tf.nn.depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, ...)`:
/// op `DepthwiseConv2dNativeBackpropFilter` (default name the same). `filter_sizes` is an
/// int32 `[4]` tensor `[KH, KW, C, M]`. Errors as [`depthwise_conv2d_native_backprop_input`].
pub fn depthwise_conv2d_native_backprop_filter(
    s: &Scope,
    input: &Output,
    filter_sizes: &Output,
    out_backprop: &Output,
    opts: &DepthwiseConv2dOptions,
) -> Result<Output> {
    build(s, BACKPROP_FILTER, [input, filter_sizes, out_backprop], 3, input.dtype(), opts)
}
