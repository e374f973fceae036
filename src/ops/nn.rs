//! Neural-network ops (TensorFlow's `nn_ops`): BiasAdd/BiasAddGrad, the activations Relu,
//! Sigmoid, Tanh with their gradient ops, Softmax and LogSoftmax over the last axis, and
//! the fused losses SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits.
//! More activations (Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign) are in
//! [`activations`], fused batch normalization in [`batch_norm`] and [`batch_norm_grad`], `InTopK` in
//! [`in_top_k`](mod@in_top_k), local response normalization in [`lrn`](mod@lrn), CTC loss in
//! [`ctc`](mod@ctc), its greedy decoder in [`ctc_greedy`] and its beam search decoder in
//! [`ctc_beam`].

pub mod accidental_hits;
pub mod activations;
pub mod batch_norm;
pub mod batch_norm_grad;
pub mod ctc;
pub mod ctc_beam;
pub mod ctc_greedy;
pub mod in_top_k;
pub mod lrn;

pub use activations::{elu, leaky_relu, relu6, selu, silu, softplus, softsign, swish};
pub use batch_norm::{fused_batch_norm, FusedBatchNormOptions, FusedBatchNormVersion};
pub use batch_norm_grad::fused_batch_norm_grad;
pub use ctc::{ctc_loss, CtcLossOptions};
pub use ctc_beam::ctc_beam_search_decoder;
pub use ctc_greedy::ctc_greedy_decoder;
pub use in_top_k::{in_top_k, in_top_k_v2, InTopK};
pub use lrn::{lrn, lrn_grad, LrnOptions, LRN};

use super::array::{cast, expand_dims, int_values, ones_like, reshape_to, scalar_like, shape, zeros_like};
use super::kernels::{parallel, Float, Num};
use super::math::{add, binary_op, grad_of_quadratic_grad, mul, neg, reduce_sum, sub, unary_op, BinaryOp, UnaryOp};
use super::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &BiasAdd,
    &BiasAddGrad,
    &RELU,
    &RELU_GRAD,
    &SIGMOID,
    &SIGMOID_GRAD,
    &TANH,
    &TANH_GRAD,
    &Softmax::SOFTMAX,
    &Softmax::LOG_SOFTMAX,
    &SoftmaxCrossEntropyWithLogits,
    &SparseSoftmaxCrossEntropyWithLogits,
];

const FLOATS: &[DType] = &[DType::Float, DType::Double];

// ---------------------------------------------------------------- BiasAdd

/// True for `data_format = "NCHW"` (channels at dimension 1), false for `"NHWC"` or no
/// attr (channels last). Errors: `InvalidArgument` for any other value.
fn is_nchw(node: &Node) -> Result<bool> {
    match node.attrs.get("data_format") {
        None => Ok(false),
        Some(AttrValue::String(s)) if s == b"NHWC" => Ok(false),
        Some(AttrValue::String(s)) if s == b"NCHW" => Ok(true),
        Some(v) => Err(Error::invalid_argument(format!("Invalid data_format {v:?}: expected \"NHWC\" or \"NCHW\""))),
    }
}

/// The channel dimension of a value of rank `rank`, after checking the rank is at least
/// 2 (NHWC) or 3 (NCHW).
fn channel_dim(nchw: bool, rank: usize, what: &str) -> Result<usize> {
    let min = if nchw { 3 } else { 2 };
    if rank < min {
        return Err(Error::invalid_argument(format!(
            "Shape must be at least rank {min} but is rank {rank} for {what}"
        )));
    }
    Ok(if nchw { 1 } else { rank - 1 })
}

/// `BiasAdd(value, bias)`: adds the 1-d `bias` along the channel dimension of `value`
/// (last for `data_format = "NHWC"`, 1 for `"NCHW"`); float32, float64, int32, int64, int8,
/// int16, uint8, uint16 (integers wrap). Gradient `(g, BiasAddGrad(g))`.
pub struct BiasAdd;
impl RegisteredOp for BiasAdd {
    fn op_type(&self) -> &'static str {
        "BiasAdd"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let nchw = is_nchw(ctx.node)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, crate::ops::kernels::NUMBERS_AND_SMALL_INTS)?;
        let (v, b) = (ctx.shape(0), ctx.shape(1));
        let what = format!("value {v} (bias {b})");
        if let Some(r) = b.rank().filter(|&r| r != 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 1 but is rank {r} for bias {b} (value {v})"
            )));
        }
        let Some(dims) = v.dims() else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        let cd = channel_dim(nchw, dims.len(), &what)?;
        let mut out = dims.to_vec();
        match (out[cd], b.dim(0)) {
            (Some(x), Some(y)) if x != y => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {x} and {y} for BiasAdd with input shapes: {v}, {b}"
                )))
            }
            (None, y) => out[cd] = y,
            _ => {}
        }
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(BiasAddKernel { nchw: is_nchw(node)? }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let g = ctx.grad(0)?;
        let gb = bias_add_grad(ctx.scope, &g, ctx.node.attr("data_format").ok().cloned())?;
        Ok(vec![Some(g), Some(gb)])
    }
}

/// The `BiasAdd` kernel, with `data_format` read once (`nchw`: channels at dimension 1).
struct BiasAddKernel {
    nchw: bool,
}
impl Kernel for BiasAddKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, b) = (ctx.input(0), ctx.input(1));
        let cd = channel_dim(self.nchw, x.rank(), &format!("value {}", fmt_dims(x.shape())))?;
        if b.rank() != 1 || b.shape()[0] != x.shape()[cd] || b.dtype() != x.dtype() {
            return Err(Error::invalid_argument(format!(
                "Must provide as many biases as the channel dimension of the input tensor: {} {} vs. {} {}",
                b.dtype(),
                fmt_dims(b.shape()),
                x.dtype(),
                fmt_dims(x.shape())
            )));
        }
        let inner: usize = x.shape()[cd + 1..].iter().product();
        let b = b.clone();
        // the input's buffer is written in place when nothing else holds it
        let x = std::mem::replace(&mut ctx.inputs[0], Tensor::zeros(DType::Float, &[0]));
        let out = crate::dispatch_numeric!(x.dtype(), "BiasAdd", small_ints, T => bias_add_into::<T>(x, b.as_slice::<T>()?, inner)?);
        Ok(vec![out])
    }
}

/// `x + bias` with `bias` along the channel dimension, `inner` elements apart (1 for
/// NHWC, `H * W` for NCHW): in `x`'s buffer when it is the only holder, else in a new one.
fn bias_add_into<T: Num>(mut x: Tensor, bias: &[T], inner: usize) -> Result<Tensor> {
    // adds the bias to `out`, the elements from flat index `at` on: one bias value per run
    // of `inner` elements, the runs of a row cycling over the bias
    let add = |at: usize, out: &mut [T]| {
        let c = bias.len();
        if c == 0 || inner == 0 {
            return;
        }
        if inner == 1 {
            // rows of channels: one vectorisable line per row
            let mut j = at % c;
            let mut rest = out;
            while !rest.is_empty() {
                let n = (c - j).min(rest.len());
                let (line, tail) = rest.split_at_mut(n);
                line.iter_mut().zip(&bias[j..j + n]).for_each(|(y, &b)| *y = y.add_wrapping(b));
                rest = tail;
                j = 0;
            }
        } else {
            for (i, y) in out.iter_mut().enumerate() {
                *y = y.add_wrapping(bias[((at + i) / inner) % c]);
            }
        }
    };
    if let Some(xs) = x.unique_mut_slice::<T>() {
        parallel::fill(xs, add);
        return Ok(x);
    }
    let mut out = x.as_slice::<T>()?.to_vec();
    parallel::fill(&mut out, add);
    Tensor::new(x.shape(), out)
}

fn bias_add_grad(s: &Scope, g: &Output, data_format: Option<AttrValue>) -> Result<Output> {
    let mut b = s.op("BiasAddGrad", "BiasAddGrad").input(g).attr("T", g.dtype());
    if let Some(f) = data_format {
        b = b.attr("data_format", f);
    }
    b.build_output()
}

/// `BiasAddGrad(out_backprop)`: the sum of `out_backprop` over every dimension but the
/// channel one (attr `data_format` as [`BiasAdd`]); output `[channels]`.
pub struct BiasAddGrad;
impl RegisteredOp for BiasAddGrad {
    fn op_type(&self) -> &'static str {
        "BiasAddGrad"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let nchw = is_nchw(ctx.node)?;
        let t = ctx.check_dtype(0, crate::ops::kernels::NUMBERS_AND_SMALL_INTS)?;
        let x = ctx.shape(0);
        let c = match x.rank() {
            Some(r) => x.dim(channel_dim(nchw, r, &format!("out_backprop {x}"))?),
            None => None,
        };
        Ok(vec![(t, Shape::partial(&[c]))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(BiasAddGradKernel { nchw: is_nchw(node)? }))
    }
    // TensorFlow's _BiasAddGradGrad: the incoming [C] gradient broadcast back over out_backprop
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, g) = (&ctx.inputs[0], ctx.grad(0)?);
        let g = if is_nchw(ctx.node)? {
            let r = x.shape().rank().ok_or_else(|| {
                Error::unimplemented(format!("gradient of {} (NCHW) needs the input rank", ctx.node.name))
            })?;
            let mut dims = vec![1i64; r - 1];
            dims[0] = -1;
            reshape_to(s, &g, &dims)?
        } else {
            g
        };
        Ok(vec![Some(mul(s, &ones_like(s, x)?, &g)?)])
    }
}

/// The `BiasAddGrad` kernel, with `data_format` read once (`nchw`: channels at dimension 1).
struct BiasAddGradKernel {
    nchw: bool,
}
impl Kernel for BiasAddGradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let cd = channel_dim(self.nchw, x.rank(), &format!("out_backprop {}", fmt_dims(x.shape())))?;
        let (c, inner) = (x.shape()[cd], x.shape()[cd + 1..].iter().product::<usize>());
        let out = crate::dispatch_numeric!(x.dtype(), "BiasAddGrad", small_ints, T => {
            let mut acc = vec![T::ZERO; c];
            for (i, &v) in x.as_slice::<T>()?.iter().enumerate() {
                let j = (i / inner) % c;
                acc[j] = acc[j].add_wrapping(v);
            }
            Tensor::new(&[c], acc)?
        });
        Ok(vec![out])
    }
}

/// `tf.nn.bias_add(value, bias)`: op `BiasAdd` (attrs `T`, `data_format = "NHWC"`),
/// default name `BiasAdd`. `value` is `[..., C]` of rank >= 2, `bias` is `[C]` of the same
/// dtype (float32, float64, int32, int64); output shape and dtype are `value`'s.
/// Errors: `InvalidArgument` at build time naming both shapes when `bias` is not rank 1
/// or its size is not `value`'s last dimension, or when dtypes differ.
pub fn bias_add(s: &Scope, value: &Output, bias: &Output) -> Result<Output> {
    bias_add_with_format(s, value, bias, "NHWC")
}

/// `tf.nn.bias_add(value, bias, data_format)`: as [`bias_add`], with `data_format`
/// `"NHWC"` (channels last) or `"NCHW"` (channels at dimension 1, `value` of rank >= 3).
/// Errors: as [`bias_add`], and `InvalidArgument` for another `data_format`.
pub fn bias_add_with_format(s: &Scope, value: &Output, bias: &Output, data_format: &str) -> Result<Output> {
    s.op("BiasAdd", "BiasAdd")
        .input(value)
        .input(bias)
        .attr("T", value.dtype())
        .attr("data_format", data_format)
        .build_output()
}

// ---------------------------------------------------------------- activations

/// `Relu`: `max(x, 0)` (float32, float64, int32, int64; NaN stays NaN). Gradient `ReluGrad(g, y)`.
pub static RELU: UnaryOp =
    UnaryOp::new("Relu", crate::unary_fns!(float: |x| if x < 0.0 { 0.0 } else { x }, int: |x| x.max(0)), |c| {
        Ok(vec![Some(binary_op(c.scope, "ReluGrad", "ReluGrad", &c.grad(0)?, &c.outputs[0])?)])
    });

/// `ReluGrad(gradients, features)`: `gradients` where `features > 0`, else 0 (float32,
/// float64, int32, int64; inputs of one shape).
pub static RELU_GRAD: BinaryOp = BinaryOp::same_shape(
    "ReluGrad",
    crate::binary_fns!(float: |g, x| if x > 0.0 { g } else { 0.0 }, int: |g, x| if x > 0 { g } else { 0 }),
    // TensorFlow's _ReluGradGrad: (ReluGrad(grad, features), zeros_like(features))
    |c| {
        let (s, x) = (c.scope, &c.inputs[1]);
        Ok(vec![Some(binary_op(s, "ReluGrad", "ReluGrad", &c.grad(0)?, x)?), Some(zeros_like(s, x)?)])
    },
);

/// `Sigmoid`: `1 / (1 + e^-x)` (float32, float64). Gradient `SigmoidGrad(y, g)`.
pub static SIGMOID: UnaryOp = UnaryOp::new("Sigmoid", crate::unary_fns!(float: |x| 1.0 / (1.0 + (-x).exp())), |c| {
    Ok(vec![Some(binary_op(c.scope, "SigmoidGrad", "SigmoidGrad", &c.outputs[0], &c.grad(0)?)?)])
});

/// `SigmoidGrad(y, dy)`: `dy * y * (1 - y)` (float32, float64; inputs of one shape).
pub static SIGMOID_GRAD: BinaryOp =
    BinaryOp::same_shape("SigmoidGrad", crate::binary_fns!(float: |y, dy| dy * y * (1.0 - y)), |c| {
        // TensorFlow's _SigmoidGradGrad: (g*dy - 2*g*dy*y, SigmoidGrad(y, g))
        let s = c.scope;
        let (y, dy, g) = (&c.inputs[0], &c.inputs[1], c.grad(0)?);
        let gb = mul(s, &g, dy)?;
        let two = scalar_like(s, 2.0, y.dtype())?;
        let ga = sub(s, &gb, &mul(s, &mul(s, &two, &gb)?, y)?)?;
        Ok(vec![Some(ga), Some(binary_op(s, "SigmoidGrad", "SigmoidGrad", y, &g)?)])
    });

/// `Tanh`: the hyperbolic tangent (float32, float64). Gradient `TanhGrad(y, g)`.
pub static TANH: UnaryOp = UnaryOp::new("Tanh", crate::unary_fns!(float: |x| x.tanh()), |c| {
    Ok(vec![Some(binary_op(c.scope, "TanhGrad", "TanhGrad", &c.outputs[0], &c.grad(0)?)?)])
});

/// `TanhGrad(y, dy)`: `dy * (1 - y^2)` (float32, float64; inputs of one shape). Gradient:
/// TensorFlow's `_TanhGradGrad`.
pub static TANH_GRAD: BinaryOp =
    BinaryOp::same_shape("TanhGrad", crate::binary_fns!(float: |y, dy| dy * (1.0 - y * y)), |c| {
        grad_of_quadratic_grad(c, "TanhGrad")
    });

/// `tf.nn.relu(features)`: op `Relu`, default name `Relu`; `max(features, 0)` with
/// `features`' dtype (float32, float64, int32, int64) and shape. Other dtypes are
/// `InvalidArgument` at build time.
pub fn relu(s: &Scope, features: &Output) -> Result<Output> {
    unary_op(s, "Relu", "Relu", features)
}

/// `tf.sigmoid(x)`: op `Sigmoid`, default name `Sigmoid`; float32/float64 only
/// (else `InvalidArgument` at build time), shape of `x`.
pub fn sigmoid(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Sigmoid", "Sigmoid", x)
}

/// `tf.tanh(x)`: op `Tanh`, default name `Tanh`; float32/float64 only, shape of `x`.
pub fn tanh(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Tanh", "Tanh", x)
}

// ---------------------------------------------------------------- softmax

/// The largest value of a row (`-inf` for an empty row).
fn row_max<T: Float>(row: &[T]) -> T {
    row.iter().fold(T::MIN, |a, &b| if b > a { b } else { a })
}

/// Per row of length `n`: the shift `max` and `sum(exp(x - max))`.
fn row_stats<T: Float>(row: &[T]) -> (T, T) {
    let m = row_max(row);
    (m, row.iter().fold(T::ZERO, |a, &v| a + (v - m).exp()))
}

fn softmax_kernel<T: Float>(x: &Tensor, log: bool) -> Result<Tensor> {
    let n = x.shape().last().copied().unwrap_or(1).max(1);
    let mut out = Vec::with_capacity(x.num_elements());
    for row in x.as_slice::<T>()?.chunks(n) {
        let (m, sum) = row_stats(row);
        if log {
            let l = sum.ln();
            out.extend(row.iter().map(|&v| v - m - l));
        } else {
            out.extend(row.iter().map(|&v| (v - m).exp() / sum));
        }
    }
    Tensor::new(x.shape(), out)
}

/// `Softmax` and `LogSoftmax` over the last axis of a rank >= 1 float tensor, computed
/// with the row maximum subtracted (stable for large logits).
pub struct Softmax {
    op_type: &'static str,
    log: bool,
}
impl Softmax {
    const SOFTMAX: Softmax = Softmax { op_type: "Softmax", log: false };
    const LOG_SOFTMAX: Softmax = Softmax { op_type: "LogSoftmax", log: true };
}
impl RegisteredOp for Softmax {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, FLOATS)?;
        if ctx.shape(0).rank() == Some(0) {
            return Err(Error::invalid_argument("Shape must be at least rank 1 but is rank 0 for logits []"));
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        let f: fn(&mut KernelCtx) -> Result<Vec<Tensor>> =
            if self.log { |ctx| softmax_compute(ctx, true) } else { |ctx| softmax_compute(ctx, false) };
        Ok(Box::new(FnKernel(f)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (y, g) = (&ctx.outputs[0], ctx.grad(0)?);
        let out = if self.log {
            // g - sum(g, -1, keepdims) * exp(y)
            let sm = super::math::exp(s, y)?;
            sub(s, &g, &mul(s, &reduce_sum(s, &g, Some(&[-1]), true)?, &sm)?)?
        } else {
            // (g - sum(g * y, -1, keepdims)) * y
            let sum = reduce_sum(s, &mul(s, &g, y)?, Some(&[-1]), true)?;
            mul(s, &sub(s, &g, &sum)?, y)?
        };
        Ok(vec![Some(out)])
    }
}

/// The `Softmax` (`log` false) and `LogSoftmax` kernel.
fn softmax_compute(ctx: &mut KernelCtx, log: bool) -> Result<Vec<Tensor>> {
    let x = ctx.input(0);
    if x.rank() == 0 {
        return Err(Error::invalid_argument("logits must have at least one dimension, got a scalar"));
    }
    Ok(vec![crate::dispatch_float!(x.dtype(), ctx.op_type(), T => softmax_kernel::<T>(x, log)?)])
}

/// `tf.nn.softmax(logits)`: op `Softmax`, default name `Softmax`; `exp(x) / sum(exp(x))`
/// over the last axis. `logits` is float32/float64 of rank >= 1 (else `InvalidArgument`
/// at build time); output has its dtype and shape.
pub fn softmax(s: &Scope, logits: &Output) -> Result<Output> {
    unary_op(s, "Softmax", "Softmax", logits)
}

/// `tf.nn.log_softmax(logits)`: op `LogSoftmax`, default name `LogSoftmax`;
/// `x - log(sum(exp(x)))` over the last axis. Dtypes, shapes and errors as [`softmax`].
pub fn log_softmax(s: &Scope, logits: &Output) -> Result<Output> {
    unary_op(s, "LogSoftmax", "LogSoftmax", logits)
}

// ---------------------------------------------------------------- cross entropy

/// Errors unless a known rank equals `want`.
fn check_rank(sh: &Shape, want: usize, what: &str, both: &str) -> Result<()> {
    match sh.rank() {
        Some(r) if r != want => {
            Err(Error::invalid_argument(format!("{what} must be {want}-D, but is rank {r} ({both})")))
        }
        _ => Ok(()),
    }
}

/// `SoftmaxCrossEntropyWithLogits(features, labels)`: for `[batch, classes]` logits and
/// label distributions, output 0 `loss [batch] = -sum(labels * log_softmax(features))` and
/// output 1 `backprop [batch, classes] = softmax(features) - labels`.
pub struct SoftmaxCrossEntropyWithLogits;
impl RegisteredOp for SoftmaxCrossEntropyWithLogits {
    fn op_type(&self) -> &'static str {
        "SoftmaxCrossEntropyWithLogits"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, FLOATS)?;
        let (f, l) = (ctx.shape(0), ctx.shape(1));
        let both = format!("logits_size={f} labels_size={l}");
        check_rank(f, 2, "logits", &both)?;
        check_rank(l, 2, "labels", &both)?;
        let m = f
            .merge(l)
            .ok_or_else(|| Error::invalid_argument(format!("logits and labels must be same size: {both}")))?;
        let m = if m.rank().is_some() { m } else { Shape::partial(&[None, None]) };
        Ok(vec![(t, Shape::partial(&[m.dim(0)])), (t, m)])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(softmax_xent_kernel)))
    }
    // TensorFlow's _SoftmaxCrossEntropyWithLogitsGrad. As there, the labels gradient does
    // not include what flows into the backprop output.
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        softmax_xent_grad(ctx)
    }
}

/// The `SoftmaxCrossEntropyWithLogits` kernel: (loss, backprop) per row.
fn softmax_xent_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (x, l) = (ctx.input(0), ctx.input(1));
    if x.rank() != 2 || x.shape() != l.shape() {
        return Err(Error::invalid_argument(format!(
            "logits and labels must be 2-D and the same size: logits_size={} labels_size={}",
            fmt_dims(x.shape()),
            fmt_dims(l.shape())
        )));
    }
    let (b, c) = (x.shape()[0], x.shape()[1]);
    let (loss, bp) = crate::dispatch_float!(x.dtype(), "SoftmaxCrossEntropyWithLogits", T => {
        let mut loss = vec![T::ZERO; b];
        let mut bp = Vec::with_capacity(b * c);
        let rows = x.as_slice::<T>()?.chunks(c.max(1)).zip(l.as_slice::<T>()?.chunks(c.max(1)));
        for (i, (row, lab)) in rows.enumerate() {
            let (m, sum) = row_stats(row);
            let lse = sum.ln();
            loss[i] = row.iter().zip(lab).fold(T::ZERO, |a, (&v, &p)| a + p * (lse - (v - m)));
            bp.extend(row.iter().zip(lab).map(|(&v, &p)| (v - m).exp() / sum - p));
        }
        (Tensor::new(&[b], loss)?, Tensor::new(&[b, c], bp)?)
    });
    Ok(vec![loss, bp])
}

fn softmax_xent_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let logits = &ctx.inputs[0];
    let gl = ctx.grad(0)?;
    let mut gx = mul(s, &expand_dims(s, &gl, -1)?, &ctx.outputs[1])?;
    if let Some(gg) = &ctx.grads[1] {
        let sm = softmax(s, logits)?;
        let dot = reduce_sum(s, &mul(s, gg, &sm)?, Some(&[-1]), true)?;
        gx = add(s, &gx, &mul(s, &sub(s, gg, &dot)?, &sm)?)?;
    }
    let glab = mul(s, &expand_dims(s, &gl, -1)?, &neg(s, &log_softmax(s, logits)?)?)?;
    Ok(vec![Some(gx), Some(glab)])
}

/// `SparseSoftmaxCrossEntropyWithLogits(features, labels)`: `features [batch, classes]`,
/// int32/int64 `labels [batch]` (attr `Tlabels`) holding class indices; output 0
/// `loss [batch]`, output 1 `backprop [batch, classes]`. A label outside `[0, classes)` is
/// `InvalidArgument` naming it. Gradient for `features` only.
pub struct SparseSoftmaxCrossEntropyWithLogits;
impl RegisteredOp for SparseSoftmaxCrossEntropyWithLogits {
    fn op_type(&self) -> &'static str {
        "SparseSoftmaxCrossEntropyWithLogits"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, FLOATS)?;
        ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        let (f, l) = (ctx.shape(0), ctx.shape(1));
        let both = format!("logits shape {f}, labels shape {l}");
        check_rank(f, 2, "logits", &both)?;
        check_rank(l, 1, "labels", &both)?;
        let batch = match (f.dim(0), l.dim(0)) {
            (Some(x), Some(y)) if x != y => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {x} and {y}: logits and labels must have the same first dimension ({both})"
                )))
            }
            (x, y) => x.or(y),
        };
        Ok(vec![(t, Shape::partial(&[batch])), (t, Shape::partial(&[batch, f.dim(1)]))])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(sparse_softmax_xent_kernel)))
    }
    // TensorFlow's _SparseSoftmaxCrossEntropyWithLogitsGrad (its PreventGradient on the
    // backprop output is not reproduced).
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let g = expand_dims(s, &ctx.grad(0)?, -1)?;
        Ok(vec![Some(mul(s, &g, &ctx.outputs[1])?), None])
    }
}

/// The `SparseSoftmaxCrossEntropyWithLogits` kernel: (loss, backprop) per row, the
/// labels checked to lie in `[0, classes)`.
fn sparse_softmax_xent_kernel(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (x, l) = (ctx.input(0), ctx.input(1));
    if x.rank() != 2 || l.rank() != 1 || l.shape()[0] != x.shape()[0] {
        return Err(Error::invalid_argument(format!(
            "logits must be 2-D and labels 1-D with the same first dimension: logits shape {}, labels shape {}",
            fmt_dims(x.shape()),
            fmt_dims(l.shape())
        )));
    }
    let (b, c) = (x.shape()[0], x.shape()[1]);
    let labels = int_values(l)?;
    if let Some(&bad) = labels.iter().find(|&&v| v < 0 || v >= c as i64) {
        let all: Vec<String> = labels.iter().map(|v| v.to_string()).collect();
        return Err(Error::invalid_argument(format!(
            "Received a label value of {bad} which is outside the valid range of [0, {c}).  Label values: {}",
            all.join(" ")
        )));
    }
    let (loss, bp) = crate::dispatch_float!(x.dtype(), "SparseSoftmaxCrossEntropyWithLogits", T => {
        let mut loss = vec![T::ZERO; b];
        let mut bp = Vec::with_capacity(b * c);
        for (i, row) in x.as_slice::<T>()?.chunks(c.max(1)).enumerate() {
            let (m, sum) = row_stats(row);
            let k = labels[i] as usize;
            loss[i] = sum.ln() - (row[k] - m);
            bp.extend(row.iter().enumerate().map(|(j, &v)| {
                let p = (v - m).exp() / sum;
                if j == k { p - T::ONE } else { p }
            }));
        }
        (Tensor::new(&[b], loss)?, Tensor::new(&[b, c], bp)?)
    });
    Ok(vec![loss, bp])
}

/// `tf.nn.softmax_cross_entropy_with_logits_v2(labels, logits)` on rank-2 inputs: op
/// `SoftmaxCrossEntropyWithLogits` named as TensorFlow's name scope,
/// `softmax_cross_entropy_with_logits` (then `_1`, ...). `logits` and `labels` are
/// `[batch, classes]` float32/float64 (`labels` is cast to `logits`' dtype when they
/// differ); returns the loss `[batch]` (output 0; output 1 is the backprop). Gradients flow
/// to both. Errors: `InvalidArgument` at build time naming both shapes when either is not
/// rank 2 or the shapes differ.
pub fn softmax_cross_entropy_with_logits(s: &Scope, labels: &Output, logits: &Output) -> Result<Output> {
    let base = s.unique_op_name("softmax_cross_entropy_with_logits");
    let labels = if labels.dtype() != logits.dtype() {
        cast(&s.name_scope(&format!("{base}/")), labels, logits.dtype())?
    } else {
        labels.clone()
    };
    s.named(&format!("{base}/"))
        .op("SoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits")
        .input(logits)
        .input(&labels)
        .attr("T", logits.dtype())
        .build_output()
}

/// `tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)` on rank-2 logits: op
/// `SparseSoftmaxCrossEntropyWithLogits` (attrs `T`, `Tlabels`) in TensorFlow's name scope,
/// `SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits` (beside the
/// `Shape` of the labels TensorFlow also adds there). `logits [batch, classes]` float32/
/// float64, `labels [batch]` int32/int64; returns the loss `[batch]`. Errors:
/// `InvalidArgument` at build time for wrong ranks, dtypes or batch sizes (naming both
/// shapes), and when run for a label outside `[0, classes)`.
pub fn sparse_softmax_cross_entropy_with_logits(s: &Scope, labels: &Output, logits: &Output) -> Result<Output> {
    let base = s.unique_op_name("SparseSoftmaxCrossEntropyWithLogits");
    let inner = s.name_scope(&format!("{base}/"));
    shape(&inner, labels)?;
    inner
        .op("SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits")
        .input(logits)
        .input(labels)
        .attr("T", logits.dtype())
        .attr("Tlabels", labels.dtype())
        .build_output()
}
