//! Depthwise convolution (TensorFlow's `nn_ops`): `DepthwiseConv2dNative` and its gradient
//! ops `DepthwiseConv2dNativeBackpropInput` and `DepthwiseConv2dNativeBackpropFilter`.
//!
//! `input [N,H,W,C]` (or `[N,C,H,W]` with `data_format = "NCHW"`) convolved channel by
//! channel with `filter [KH,KW,C,M]`: output channel `c * M + m` is input channel `c`
//! convolved with `filter[.., .., c, m]`. Attrs `T` (float32, float64), `strides`,
//! `padding` (`SAME`, `VALID`, `EXPLICIT` with `explicit_paddings`), `data_format`,
//! `dilations`; all four-entry lists are in `data_format`'s order. The loops run in NHWC;
//! NCHW values are transposed in and out (the loops: `depthwise_kernels.rs`).

use super::depthwise_kernels::{
    backprop_filter_fn, backprop_input_fn, forward_fn, out_dim, read_attrs, Attrs, DwFn, DwKernel, Padding,
    BACKPROP_FILTER, BACKPROP_INPUT, FORWARD,
};
use super::{pick_float, shape_vec};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::{constant, shape};
use crate::ops::{GradCtx, InferCtx, Kernel, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&DepthwiseConv2dNative, &BackpropInput, &BackpropFilter];

const FLOATS: &[DType] = &[DType::Float, DType::Double];

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
pub(super) fn forward_shape(x: &Shape, f: &Shape, a: &Attrs) -> Result<Shape> {
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
