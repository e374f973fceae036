//! `Dilation2D` (TensorFlow's `tf.nn.dilation2d`, grayscale morphological dilation) and its
//! gradient ops `Dilation2DBackpropInput` and `Dilation2DBackpropFilter`, NHWC, with
//! `strides`, `rates` and SAME/VALID padding, as TensorFlow's CPU kernels
//! (`dilation_ops.cc`): the gradient flows to the first maximum of each window.

use super::list_int;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::kernels::{Num, NUMBERS_AND_SMALL_INTS};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&Dilation2D::FORWARD, &Dilation2D::INPUT, &Dilation2D::FILTER];

/// The (rows, cols) of a 4-entry window attr `name` that must be 1 in the batch and depth
/// dimensions. Errors: TensorFlow's messages (`<Op> requires the <name> attribute to contain
/// 4 values, but got: ...`, `Current implementation does not yet support <name> in the batch
/// and depth dimensions.`).
pub(super) fn spatial4(node: &Node, name: &str) -> Result<(usize, usize)> {
    let v = list_int(node, name)?.unwrap_or_default();
    if v.len() != 4 {
        return Err(Error::invalid_argument(format!(
            "{} requires the {name} attribute to contain 4 values, but got: {}",
            node.op_type,
            v.len()
        )));
    }
    if v[0] != 1 || v[3] != 1 {
        return Err(Error::invalid_argument(format!(
            "Current implementation does not yet support {name} in the batch and depth dimensions. ({} '{}')",
            node.op_type, node.name
        )));
    }
    if v[1] < 1 || v[2] < 1 {
        return Err(Error::invalid_argument(format!(
            "{} '{}': {name} must be positive, got {v:?}",
            node.op_type, node.name
        )));
    }
    Ok((v[1] as usize, v[2] as usize))
}

/// `padding`: true for SAME, false for VALID.
pub(super) fn same_padding(node: &Node) -> Result<bool> {
    match node.attrs.get("padding") {
        Some(AttrValue::String(s)) if s == b"SAME" => Ok(true),
        Some(AttrValue::String(s)) if s == b"VALID" => Ok(false),
        v => Err(Error::invalid_argument(format!(
            "{} '{}': padding must be SAME or VALID, got {v:?}",
            node.op_type, node.name
        ))),
    }
}

/// Output size and padding before of one axis (TensorFlow's `GetWindowedOutputSize` of the
/// effective window size `k`). Errors: TensorFlow's `Computed output size would be negative`.
pub(super) fn windowed(input: usize, k: usize, stride: usize, same: bool) -> Result<(usize, usize)> {
    if same {
        let out = input.div_ceil(stride);
        let total = ((out.max(1) - 1) * stride + k).saturating_sub(input);
        return Ok((out, total / 2));
    }
    let out = (input as i64 - k as i64 + stride as i64) / stride as i64;
    if out < 0 {
        return Err(Error::invalid_argument(format!(
            "Computed output size would be negative: {out} [input_size: {input}, effective_filter_size: {k}, stride: {stride}]"
        )));
    }
    Ok((out as usize, 0))
}

/// The window attrs of a dilation op.
#[derive(Clone, Copy)]
struct Win {
    strides: (usize, usize),
    rates: (usize, usize),
    same: bool,
}

impl Win {
    fn of(node: &Node) -> Result<Win> {
        Ok(Win { strides: spatial4(node, "strides")?, rates: spatial4(node, "rates")?, same: same_padding(node)? })
    }
}

/// The geometry of one dilation: input `[n, h, w, d]`, filter `[fh, fw]`, output `[oh, ow]`,
/// padding before.
struct Geo {
    n: usize,
    h: usize,
    w: usize,
    d: usize,
    fh: usize,
    fw: usize,
    oh: usize,
    ow: usize,
    pt: usize,
    pl: usize,
    win: Win,
}

impl Geo {
    /// Errors: TensorFlow's kernel messages (`input must be 4-dimensional`, `filter must be
    /// 3-dimensional: `, `input and filter must have the same depth: `).
    fn new(input: &[usize], filter: &[usize], win: Win) -> Result<Geo> {
        let [n, h, w, d] = *input else {
            return Err(Error::invalid_argument(format!("input must be 4-dimensional{}", fmt_dims(input))));
        };
        let [fh, fw, fd] = *filter else {
            return Err(Error::invalid_argument(format!("filter must be 3-dimensional: {}", fmt_dims(filter))));
        };
        if d != fd {
            return Err(Error::invalid_argument(format!("input and filter must have the same depth: {d} vs {fd}")));
        }
        let (oh, pt) = windowed(h, fh + (fh.max(1) - 1) * (win.rates.0 - 1), win.strides.0, win.same)?;
        let (ow, pl) = windowed(w, fw + (fw.max(1) - 1) * (win.rates.1 - 1), win.strides.1, win.same)?;
        Ok(Geo { n, h, w, d, fh, fw, oh, ow, pt, pl, win })
    }
    /// The value and (input offset, filter offset) of the first maximum of `input + filter`
    /// over the window of output (`b`, `oy`, `ox`) at depth `k`.
    fn best<T: Num>(&self, x: &[T], f: &[T], b: usize, oy: usize, ox: usize, k: usize) -> (T, Option<(usize, usize)>) {
        let (mut v, mut at) = (T::MIN, None);
        let hb = (oy * self.win.strides.0) as i64 - self.pt as i64;
        let wb = (ox * self.win.strides.1) as i64 - self.pl as i64;
        for i in 0..self.fh {
            let y = hb + (i * self.win.rates.0) as i64;
            if y < 0 || y >= self.h as i64 {
                continue;
            }
            for j in 0..self.fw {
                let xx = wb + (j * self.win.rates.1) as i64;
                if xx < 0 || xx >= self.w as i64 {
                    continue;
                }
                let xi = ((b * self.h + y as usize) * self.w + xx as usize) * self.d + k;
                let fi = (i * self.fw + j) * self.d + k;
                let s = x[xi].add_wrapping(f[fi]);
                if s > v {
                    v = s;
                    at = Some((xi, fi));
                }
            }
        }
        (v, at)
    }
    /// The input offset TensorFlow routes the gradient to when no tap exceeds the lowest value.
    fn default_input(&self, b: usize, oy: usize, ox: usize, k: usize) -> usize {
        let hb = ((oy * self.win.strides.0) as i64 - self.pt as i64).max(0) as usize;
        let wb = ((ox * self.win.strides.1) as i64 - self.pl as i64).max(0) as usize;
        ((b * self.h + hb) * self.w + wb) * self.d + k
    }
}

/// `Dilation2D(input, filter)` (attrs `T`, `strides`, `rates`, `padding`): the max over each
/// window of `input [N, H, W, D] + filter [FH, FW, D]` with the filter taps `rates` apart;
/// output `[N, OH, OW, D]`. int8, int16, int32, int64, uint8, uint16, float32, float64.
/// `Dilation2DBackpropInput(input, filter, out_backprop)` and
/// `Dilation2DBackpropFilter(input, filter, out_backprop)`: each element of `out_backprop`
/// added to the input pixel (filter tap) of its window's first maximum; outputs shaped like
/// `input` (`filter`). Errors: TensorFlow's shape-function messages (`Dimensions must be
/// equal`, `Computed output size would be negative`) and kernel messages. Gradient of
/// `Dilation2D`: the two backprop ops.
pub struct Dilation2D {
    op_type: &'static str,
    /// 0: the forward op, 1: backprop input, 2: backprop filter.
    which: u8,
}

impl Dilation2D {
    const FORWARD: Dilation2D = Dilation2D { op_type: "Dilation2D", which: 0 };
    const INPUT: Dilation2D = Dilation2D { op_type: "Dilation2DBackpropInput", which: 1 };
    const FILTER: Dilation2D = Dilation2D { op_type: "Dilation2DBackpropFilter", which: 2 };
}

fn rank_is(s: &Shape, r: usize, what: &str) -> Result<()> {
    match s.rank() {
        Some(k) if k != r => {
            Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {k} ({what} {s})")))
        }
        _ => Ok(()),
    }
}

impl RegisteredOp for Dilation2D {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(if self.which == 0 { 2 } else { 3 })?;
        let t = ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        let win = Win::of(ctx.node)?;
        let (x, f) = (ctx.shape(0), ctx.shape(1));
        rank_is(x, 4, "input")?;
        rank_is(f, 3, "filter")?;
        if let (Some(a), Some(b)) = (x.dim(3), f.dim(2)) {
            if a != b {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {a} and {b} (input {x}, filter {f})"
                )));
            }
        }
        match self.which {
            1 => return Ok(vec![(t, x.clone())]),
            2 => return Ok(vec![(t, f.clone())]),
            _ => {}
        }
        let axis = |i: Option<usize>, k: Option<usize>, stride: usize, rate: usize| -> Result<Option<usize>> {
            match (i, k) {
                (Some(i), Some(k)) => Ok(Some(windowed(i, k + (k.max(1) - 1) * (rate - 1), stride, win.same)?.0)),
                (Some(i), None) if win.same => Ok(Some(i.div_ceil(stride))),
                _ => Ok(None),
            }
        };
        let oh = axis(x.dim(1), f.dim(0), win.strides.0, win.rates.0)?;
        let ow = axis(x.dim(2), f.dim(1), win.strides.1, win.rates.1)?;
        Ok(vec![(t, Shape::partial(&[x.dim(0), oh, ow, x.dim(3).or(f.dim(2))]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f = match self.which {
            0 => crate::dispatch_numeric!(t, self.op_type, small_ints, T => forward::<T> as DilFn),
            1 => crate::dispatch_numeric!(t, self.op_type, small_ints, T => backprop::<T, false> as DilFn),
            _ => crate::dispatch_numeric!(t, self.op_type, small_ints, T => backprop::<T, true> as DilFn),
        };
        Ok(Box::new(DilKernel { win: Win::of(node)?, backprop: self.which != 0, f }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if self.which != 0 {
            return Ok(vec![None; 3]);
        }
        let g = ctx.grad(0)?;
        let mut out = Vec::new();
        for op in ["Dilation2DBackpropInput", "Dilation2DBackpropFilter"] {
            let mut b = ctx.scope.op(op, op).input(&ctx.inputs[0]).input(&ctx.inputs[1]).input(&g).attr("T", g.dtype());
            for name in ["strides", "rates", "padding"] {
                if let Some(v) = ctx.node.attrs.get(name) {
                    b = b.attr(name, v.clone());
                }
            }
            out.push(Some(b.build_output()?));
        }
        Ok(out)
    }
}

type DilFn = fn(&Tensor, &Tensor, Option<&Tensor>, &Geo) -> Result<Tensor>;

/// A prepared dilation op.
struct DilKernel {
    win: Win,
    backprop: bool,
    f: DilFn,
}

impl Kernel for DilKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, f) = (ctx.input(0), ctx.input(1));
        let g = Geo::new(x.shape(), f.shape(), self.win)?;
        let dy = if self.backprop {
            let dy = ctx.input(2);
            if dy.shape() != [g.n, g.oh, g.ow, g.d] {
                return Err(Error::invalid_argument(format!(
                    "out_backprop has incompatible size. (got {}, the output is {})",
                    fmt_dims(dy.shape()),
                    fmt_dims(&[g.n, g.oh, g.ow, g.d])
                )));
            }
            Some(dy)
        } else {
            None
        };
        Ok(vec![(self.f)(x, f, dy, &g)?])
    }
}

fn forward<T: Num>(x: &Tensor, f: &Tensor, _: Option<&Tensor>, g: &Geo) -> Result<Tensor> {
    let (xv, fv) = (x.as_slice::<T>()?, f.as_slice::<T>()?);
    let mut out = Vec::with_capacity(g.n * g.oh * g.ow * g.d);
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                for k in 0..g.d {
                    out.push(g.best(xv, fv, b, oy, ox, k).0);
                }
            }
        }
    }
    Tensor::new(&[g.n, g.oh, g.ow, g.d], out)
}

fn backprop<T: Num, const FILTER: bool>(x: &Tensor, f: &Tensor, dy: Option<&Tensor>, g: &Geo) -> Result<Tensor> {
    let (xv, fv) = (x.as_slice::<T>()?, f.as_slice::<T>()?);
    let dv = dy.map(|d| d.as_slice::<T>()).transpose()?.unwrap_or(&[]);
    let mut out = vec![T::ZERO; if FILTER { fv.len() } else { xv.len() }];
    let mut i = 0;
    for b in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                for k in 0..g.d {
                    let (xi, fi) = g.best(xv, fv, b, oy, ox, k).1.unwrap_or((g.default_input(b, oy, ox, k), k));
                    out[if FILTER { fi } else { xi }] += dv[i];
                    i += 1;
                }
            }
        }
    }
    Tensor::new(if FILTER { f.shape() } else { x.shape() }, out)
}

/// `tf.compat.v1.nn.dilation2d(input, filter, strides, rates, padding)`: op `Dilation2D`,
/// default name `Dilation2D`; `strides` and `rates` of 4 entries. See [`Dilation2D`].
pub fn dilation2d(
    s: &Scope,
    input: &Output,
    filter: &Output,
    strides: [i64; 4],
    rates: [i64; 4],
    padding: &str,
) -> Result<Output> {
    s.op("Dilation2D", "Dilation2D")
        .input(input)
        .input(filter)
        .attr("T", input.dtype())
        .attr("strides", AttrValue::ListInt(strides.to_vec()))
        .attr("rates", AttrValue::ListInt(rates.to_vec()))
        .attr("padding", padding)
        .build_output()
}
