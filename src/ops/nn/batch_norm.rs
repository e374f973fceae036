//! Fused batch normalization (TensorFlow's `nn_ops`): `FusedBatchNorm`, `FusedBatchNormV2`,
//! `FusedBatchNormV3`, as TensorFlow's CPU kernels compute them. Their gradient ops
//! (`FusedBatchNormGrad`, `V2`, `V3`) are in [`batch_norm_grad`](super::batch_norm_grad).
//!
//! The channel dimension is last (`data_format` `NHWC`, `NDHWC`) or dimension 1 (`NCHW`,
//! `NCDHW`; the 5-d formats are V3's). `x` and `y` have dtype `T` (float32; V2/V3 also
//! float16 and bfloat16), the per-channel vectors dtype `U` (float32; V3 also bfloat16).
//! Kernels compute each element in f64 and round once into `T`/`U`. The float32 forward
//! kernel (`T` and `U` float32, the form every real model uses) reads and writes float32
//! directly, in place in `x`'s buffer when the kernel holds the only reference to it; its
//! per-channel sums go over fixed blocks of rows on the intra-op pool, added in block order,
//! so results do not depend on the thread count.
//!
//! Outputs of the forward ops, per `is_training`:
//! - inference: `y = (x - mean) * scale / sqrt(variance + epsilon) + offset`;
//!   `batch_mean`, `batch_variance`, `reserve_space_1`, `reserve_space_2` are the `mean` and
//!   `variance` inputs;
//! - training: `y` normalizes with the batch's own mean and biased variance;
//!   `reserve_space_1`/`_2` are those, `batch_mean` is the batch mean and `batch_variance`
//!   the Bessel-corrected one (`n / (n - 1)`, 1 when `n <= 1`), or with
//!   `exponential_avg_factor` f != 1 the running averages `(1 - f) * input + f * batch`;
//! - an empty `x` gives NaN `batch_mean`/`batch_variance` and zero reserve spaces, as
//!   TensorFlow. V3's `reserve_space_3` is empty (`[0]`), as on TensorFlow's CPU.

use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Operation, Output, Scope};
use crate::ops::array::{constant, transpose};
use crate::ops::kernels::{parallel, Norm};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&FusedBatchNorm::V1, &FusedBatchNorm::V2, &FusedBatchNorm::V3];

/// Which of TensorFlow's three versions of the fused batch-norm ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusedBatchNormVersion {
    /// `FusedBatchNorm` / `FusedBatchNormGrad`: float32 only, 4-d.
    V1,
    /// `FusedBatchNormV2` / `FusedBatchNormGradV2`: attr `U` for the per-channel vectors.
    V2,
    /// `FusedBatchNormV3` / `FusedBatchNormGradV3`: a sixth forward output
    /// (`reserve_space_3`) fed to the gradient op; 5-d formats.
    V3,
}

impl FusedBatchNormVersion {
    fn forward_op(self) -> &'static str {
        match self {
            Self::V1 => "FusedBatchNorm",
            Self::V2 => "FusedBatchNormV2",
            Self::V3 => "FusedBatchNormV3",
        }
    }
    pub(super) fn grad_op(self) -> &'static str {
        match self {
            Self::V1 => "FusedBatchNormGrad",
            Self::V2 => "FusedBatchNormGradV2",
            Self::V3 => "FusedBatchNormGradV3",
        }
    }
    /// The dtypes `T` may be.
    fn t_dtypes(self) -> &'static [DType] {
        match self {
            Self::V1 => &[DType::Float],
            _ => &[DType::Float, DType::Half, DType::BFloat16],
        }
    }
    /// The dtypes `U` may be (V1 has no `U`: the vectors are float32).
    fn u_dtypes(self) -> &'static [DType] {
        match self {
            Self::V3 => &[DType::Float, DType::BFloat16],
            _ => &[DType::Float],
        }
    }
}

// ---------------------------------------------------------------- attrs and layout

/// The attrs both families share, read once.
#[derive(Clone, Copy, Debug)]
pub(super) struct BnAttrs {
    pub(super) epsilon: f64,
    pub(super) factor: f64,
    pub(super) training: bool,
    /// Channels at dimension 1 (`NCHW`, `NCDHW`) rather than last.
    pub(super) channels_first: bool,
    /// 4, or 5 for `NDHWC`/`NCDHW`.
    pub(super) rank: usize,
}

pub(super) fn read_attrs(node: &Node) -> Result<BnAttrs> {
    let format = match node.attrs.get("data_format") {
        None => b"NHWC".to_vec(),
        Some(AttrValue::String(s)) => s.clone(),
        Some(v) => return Err(Error::invalid_argument(format!("attr 'data_format' should be a string, got {v:?}"))),
    };
    let (channels_first, rank) = match &format[..] {
        b"NHWC" => (false, 4),
        b"NCHW" => (true, 4),
        b"NDHWC" => (false, 5),
        b"NCDHW" => (true, 5),
        f => {
            return Err(Error::invalid_argument(format!(
                "Invalid data format {:?}: expected NHWC, NCHW, NDHWC or NCDHW",
                String::from_utf8_lossy(f)
            )))
        }
    };
    Ok(BnAttrs {
        epsilon: node.attr_float_or("epsilon", 1e-4)? as f64,
        factor: node.attr_float_or("exponential_avg_factor", 1.0)? as f64,
        training: node.attr_bool_or("is_training", true)?,
        channels_first,
        rank,
    })
}

/// `x` viewed as `[outer, channels, inner]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    outer: usize,
    pub(super) c: usize,
    inner: usize,
}

impl Layout {
    pub(super) fn new(shape: &[usize], a: &BnAttrs, what: &str) -> Result<Layout> {
        if shape.len() != a.rank {
            return Err(Error::invalid_argument(format!(
                "{what} must be {}-dimensional, got shape {}",
                a.rank,
                fmt_dims(shape)
            )));
        }
        let cd = if a.channels_first { 1 } else { a.rank - 1 };
        Ok(Layout { outer: shape[..cd].iter().product(), c: shape[cd], inner: shape[cd + 1..].iter().product() })
    }
    /// Elements per channel.
    pub(super) fn rest(&self) -> usize {
        self.outer * self.inner
    }
    /// Calls `f(channel, flat index)` for every element, in order (no division per element).
    #[inline]
    pub(super) fn for_each(&self, mut f: impl FnMut(usize, usize)) {
        let mut i = 0;
        for _ in 0..self.outer {
            for ch in 0..self.c {
                for _ in 0..self.inner {
                    f(ch, i);
                    i += 1;
                }
            }
        }
    }
    /// Per-channel sums of `f(channel, element index)` over every element.
    pub(super) fn sums(&self, f: impl Fn(usize, usize) -> f64) -> Vec<f64> {
        let mut acc = vec![0.0; self.c];
        self.for_each(|ch, i| acc[ch] += f(ch, i));
        acc
    }
    /// `f(channel, element index)` for every element.
    pub(super) fn map(&self, f: impl Fn(usize, usize) -> f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.outer * self.c * self.inner);
        self.for_each(|ch, i| out.push(f(ch, i)));
        out
    }
}

/// Checks a per-channel vector's length at run time (TensorFlow's kernel messages).
pub(super) fn check_len<T>(v: &[T], c: usize, what: &str, prefix: &str) -> Result<()> {
    if v.len() != c {
        return Err(Error::invalid_argument(format!(
            "{prefix}{what} must have the same number of elements as the channels of x, got {} and {c}",
            v.len()
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------- shape inference

/// The input's shape as rank `rank`, or `InvalidArgument` naming every input shape.
pub(super) fn with_rank(ctx: &InferCtx, i: usize, rank: usize) -> Result<Option<Vec<Option<usize>>>> {
    match ctx.shape(i).dims() {
        None => Ok(None),
        Some(d) if d.len() == rank => Ok(Some(d.to_vec())),
        Some(d) => Err(Error::invalid_argument(format!(
            "Shape must be rank {rank} but is rank {} for input {i} with input shapes: {}",
            d.len(),
            all_shapes(ctx)
        ))),
    }
}

pub(super) fn all_shapes(ctx: &InferCtx) -> String {
    (0..ctx.inputs.len()).map(|i| ctx.shape(i).to_string()).collect::<Vec<_>>().join(", ")
}

/// Merges the channel count `c` with the length of 1-d input `i`.
pub(super) fn merge_channels(ctx: &InferCtx, c: Option<usize>, i: usize) -> Result<Option<usize>> {
    let Some(d) = with_rank(ctx, i, 1)? else { return Ok(c) };
    match (c, d[0]) {
        (Some(a), Some(b)) if a != b => Err(Error::invalid_argument(format!(
            "Dimensions must be equal, but are {a} and {b} for input {i} with input shapes: {}",
            all_shapes(ctx)
        ))),
        (a, b) => Ok(a.or(b)),
    }
}

/// Checks `T` (input 0..=1 for the gradient op, 0 for the forward op) and `U` (the
/// per-channel inputs from `first_u`); returns (T, U).
pub(super) fn infer_dtypes(
    ctx: &InferCtx,
    v: FusedBatchNormVersion,
    t_inputs: usize,
    first_u: usize,
) -> Result<(DType, DType)> {
    let t = ctx.check_dtype(0, v.t_dtypes())?;
    ctx.check_type_attr("T", 0)?;
    for i in 1..t_inputs {
        if ctx.dtype(i) != t {
            return Err(Error::invalid_argument(format!("input {i} has dtype {}, but T is {t}", ctx.dtype(i))));
        }
    }
    let u = ctx.check_dtype(first_u, v.u_dtypes())?;
    if v != FusedBatchNormVersion::V1 {
        ctx.check_type_attr("U", first_u)?;
    }
    for i in first_u + 1..ctx.inputs.len() {
        if ctx.dtype(i) != u {
            return Err(Error::invalid_argument(format!("input {i} has dtype {}, but U is {u}", ctx.dtype(i))));
        }
    }
    Ok((t, u))
}

// ---------------------------------------------------------------- forward

/// `FusedBatchNorm`/`V2`/`V3(x, scale, offset, mean, variance)`: batch normalization over
/// every dimension but the channel one, see the module docs. Attrs `T`, `U` (V2, V3),
/// `epsilon` (0.0001), `exponential_avg_factor` (1), `data_format` (NHWC), `is_training`
/// (true). Outputs `y`, `batch_mean`, `batch_variance`, `reserve_space_1`,
/// `reserve_space_2` (and V3's `reserve_space_3`). Gradient: TensorFlow's
/// `_BaseFusedBatchNormGrad` (the matching `FusedBatchNormGrad*` op; for inference in NCHW
/// through NHWC transposes), for `x`, `scale` and `offset` only.
pub struct FusedBatchNorm(FusedBatchNormVersion);
impl FusedBatchNorm {
    const V1: FusedBatchNorm = FusedBatchNorm(FusedBatchNormVersion::V1);
    const V2: FusedBatchNorm = FusedBatchNorm(FusedBatchNormVersion::V2);
    const V3: FusedBatchNorm = FusedBatchNorm(FusedBatchNormVersion::V3);
}

impl RegisteredOp for FusedBatchNorm {
    fn op_type(&self) -> &'static str {
        self.0.forward_op()
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(5)?;
        let a = read_attrs(ctx.node)?;
        let (t, u) = infer_dtypes(ctx, self.0, 1, 1)?;
        let x = with_rank(ctx, 0, a.rank)?;
        let cd = if a.channels_first { 1 } else { a.rank - 1 };
        let mut c = x.as_ref().and_then(|d| d[cd]);
        let checked = if !a.training || a.factor != 1.0 { 5 } else { 3 };
        for i in 1..5 {
            if i < checked {
                c = merge_channels(ctx, c, i)?;
            } else {
                with_rank(ctx, i, 1)?;
            }
        }
        let y = match x {
            Some(mut d) => {
                d[cd] = c;
                Shape::partial(&d)
            }
            None => ctx.shape(0).clone(),
        };
        let vec = Shape::partial(&[c]);
        let mut out = vec![(t, y), (u, vec.clone()), (u, vec.clone()), (u, vec.clone()), (u, vec)];
        if self.0 == FusedBatchNormVersion::V3 {
            out.push((u, Shape::unknown()));
        }
        Ok(out)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let a = read_attrs(node)?;
        let u = node.outputs.get(1).map_or(DType::Float, |o| o.0);
        Ok(Box::new(ForwardKernel { attrs: a, u, v3: self.0 == FusedBatchNormVersion::V3 }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        batch_norm_gradient(ctx, self.0)
    }
}

/// The prepared forward kernel: attrs read once, the dtype of the statistics.
struct ForwardKernel {
    attrs: BnAttrs,
    u: DType,
    v3: bool,
}

impl Kernel for ForwardKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let all_f32 = ctx.inputs.len() == 5 && ctx.inputs.iter().all(|t| t.dtype() == DType::Float);
        if all_f32 && self.u == DType::Float && ctx.input(0).num_elements() > 0 {
            return self.compute_f32(ctx);
        }
        let a = &self.attrs;
        let x = ctx.input(0);
        let l = Layout::new(x.shape(), a, "x")?;
        let [scale, offset, mean, var] = [1, 2, 3, 4].map(|i| ctx.input(i).to_f64_vec());
        let (scale, offset, mean, var) = (scale?, offset?, mean?, var?);
        check_len(&scale, l.c, "scale", "")?;
        check_len(&offset, l.c, "offset", "")?;
        if !a.training || a.factor != 1.0 {
            let prefix = if a.training { "When exponential_avg_factor != 1, " } else { "When is_training=false, " };
            check_len(&mean, l.c, "mean", prefix)?;
            check_len(&var, l.c, "variance", prefix)?;
        }
        let xv = x.to_f64_vec()?;
        let (y, stats) = if xv.is_empty() {
            (Vec::new(), [vec![f64::NAN; l.c], vec![f64::NAN; l.c], vec![0.0; l.c], vec![0.0; l.c]])
        } else if a.training {
            train_forward(&xv, &l, a, [&scale, &offset, &mean, &var])
        } else {
            let y = normalize(&xv, &l, &scale, &offset, &mean, &var, a.epsilon);
            (y, [mean.clone(), var.clone(), mean, var])
        };
        let mut out = vec![Tensor::from_f64(x.dtype(), x.shape(), &y)?];
        for s in &stats {
            out.push(Tensor::from_f64(self.u, &[l.c], s)?);
        }
        if self.v3 {
            out.push(Tensor::from_f64(self.u, &[0], &[])?);
        }
        Ok(out)
    }
}

impl ForwardKernel {
    /// The float32 kernel (see the module docs): same values as the general one.
    fn compute_f32(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = &self.attrs;
        let l = Layout::new(ctx.input(0).shape(), a, "x")?;
        let [scale, offset] = [1, 2].map(|i| ctx.input(i).clone());
        let (scale, offset) = (scale.as_slice::<f32>()?, offset.as_slice::<f32>()?);
        check_len(scale, l.c, "scale", "")?;
        check_len(offset, l.c, "offset", "")?;
        let (mean_in, var_in) = (ctx.input(3).clone(), ctx.input(4).clone());
        let (mean_v, var_v) = (mean_in.as_slice::<f32>()?, var_in.as_slice::<f32>()?);
        if !a.training || a.factor != 1.0 {
            let prefix = if a.training { "When exponential_avg_factor != 1, " } else { "When is_training=false, " };
            check_len(mean_v, l.c, "mean", prefix)?;
            check_len(var_v, l.c, "variance", prefix)?;
        }
        let mut y = std::mem::replace(&mut ctx.inputs[0], Tensor::zeros(DType::Float, &[0]));
        let vec = |v: Vec<f64>| -> Result<Tensor> { Tensor::new(&[l.c], v.into_iter().map(|x| x as f32).collect()) };
        let f64s = |v: &[f32]| -> Vec<f64> { v.iter().map(|&x| x as f64).collect() };
        let (scale, offset) = (f64s(scale), f64s(offset));
        let stats = if a.training {
            let xs = y.as_slice::<f32>()?;
            let n = l.rest() as f64;
            let mean: Vec<f64> = channel_sums(xs, &l, |_, v| v).iter().map(|s| s / n).collect();
            let var: Vec<f64> = channel_sums(xs, &l, |ch, v| (v - mean[ch]).powi(2)).iter().map(|s| s / n).collect();
            normalize_f32(y.as_mut_slice::<f32>()?, &l, &scale, &offset, &mean, &var, a.epsilon);
            let adjust = if l.rest() > 1 { n / (n - 1.0) } else { 1.0 };
            let f = a.factor;
            let (run_mean, run_var) = if f == 1.0 {
                (mean.clone(), var.iter().map(|v| v * adjust).collect())
            } else {
                let blend = |old: &[f32], new: &[f64], k: f64| -> Vec<f64> {
                    old.iter().zip(new).map(|(&o, v)| (1.0 - f) * o as f64 + f * k * v).collect()
                };
                (blend(mean_v, &mean, 1.0), blend(var_v, &var, adjust))
            };
            [vec(run_mean)?, vec(run_var)?, vec(mean)?, vec(var)?]
        } else {
            normalize_f32(y.as_mut_slice::<f32>()?, &l, &scale, &offset, &f64s(mean_v), &f64s(var_v), a.epsilon);
            [mean_in.clone(), var_in.clone(), mean_in.clone(), var_in.clone()]
        };
        let mut out = vec![y];
        out.extend(stats);
        if self.v3 {
            out.push(Tensor::new(&[0], Vec::<f32>::new())?);
        }
        Ok(out)
    }
}

/// Rows of `[c, inner]` per block of [`channel_sums`] (about 32K elements a block).
fn rows_per_block(l: &Layout) -> usize {
    (parallel::MIN_PARALLEL / (l.c * l.inner).max(1)).max(1)
}

/// Per-channel sums of `f(channel, x)` over float32 `x`, in f64: partial sums over fixed
/// blocks of rows (on the intra-op pool when large), added in block order.
fn channel_sums(x: &[f32], l: &Layout, f: impl Fn(usize, f64) -> f64 + Sync) -> Vec<f64> {
    let row = l.c * l.inner;
    let per = rows_per_block(l) * row;
    let block = |xs: &[f32]| -> Vec<f64> {
        let mut acc = vec![0.0; l.c];
        if l.inner == 1 {
            for r in xs.chunks(row) {
                for (ch, (a, &v)) in acc.iter_mut().zip(r).enumerate() {
                    *a += f(ch, v as f64);
                }
            }
            return acc;
        }
        for r in xs.chunks(row) {
            for (ch, part) in r.chunks(l.inner.max(1)).enumerate() {
                let mut s = 0.0;
                for &v in part {
                    s += f(ch, v as f64);
                }
                acc[ch] += s;
            }
        }
        acc
    };
    let partial: Vec<Vec<f64>> = if parallel::pieces(x.len()) > 1 {
        use rayon::prelude::*;
        parallel::install(|| x.par_chunks(per).map(block).collect())
    } else {
        x.chunks(per).map(block).collect()
    };
    let mut acc = vec![0.0; l.c];
    for p in partial {
        for (a, v) in acc.iter_mut().zip(p) {
            *a += v;
        }
    }
    acc
}

/// `y = (x - mean) * scale / sqrt(var + epsilon) + offset` per channel, in place on
/// float32 `y` ([`Norm`]'s arithmetic: float32, with `scale / sqrt(var + epsilon)` computed
/// in f64 and rounded once, as a fused convolution's epilogue computes it), split over the
/// pool by rows.
fn normalize_f32(y: &mut [f32], l: &Layout, scale: &[f64], offset: &[f64], mean: &[f64], var: &[f64], eps: f64) {
    let norm = Norm::<f32>::from_stats(scale, offset, mean, var, eps);
    let row = l.c * l.inner;
    let work = y.len();
    parallel::for_rows(y, row, work, |_, r| {
        if l.inner == 1 {
            norm.apply_row(r, 0);
        } else {
            for (ch, part) in r.chunks_mut(l.inner).enumerate() {
                norm.apply_channel(part, ch);
            }
        }
    });
}

/// `(x - mean) * scale / sqrt(var + epsilon) + offset` per channel, in float64 ([`Norm`]).
fn normalize(x: &[f64], l: &Layout, scale: &[f64], offset: &[f64], mean: &[f64], var: &[f64], eps: f64) -> Vec<f64> {
    let norm = Norm::<f64>::from_stats(scale, offset, mean, var, eps);
    let mut out = x.to_vec();
    // rows of [c, inner] (one outer index each), split over the intra-op pool
    let row = l.c * l.inner;
    parallel::for_rows(&mut out, row, x.len(), |_, o| {
        for (ch, part) in o.chunks_mut(l.inner.max(1)).enumerate() {
            norm.apply_channel(part, ch);
        }
    });
    out
}

/// Training mode: `y` from the batch statistics, and the four statistics outputs.
fn train_forward(
    x: &[f64],
    l: &Layout,
    a: &BnAttrs,
    [scale, offset, old_mean, old_var]: [&[f64]; 4],
) -> (Vec<f64>, [Vec<f64>; 4]) {
    let n = l.rest() as f64;
    let mean: Vec<f64> = l.sums(|_, i| x[i]).iter().map(|s| s / n).collect();
    let var: Vec<f64> = l.sums(|ch, i| (x[i] - mean[ch]).powi(2)).iter().map(|s| s / n).collect();
    let y = normalize(x, l, scale, offset, &mean, &var, a.epsilon);
    let adjust = if l.rest() > 1 { n / (n - 1.0) } else { 1.0 };
    let f = a.factor;
    let (run_mean, run_var) = if f == 1.0 {
        (mean.clone(), var.iter().map(|v| v * adjust).collect())
    } else {
        let blend = |old: &[f64], new: &[f64], k: f64| -> Vec<f64> {
            old.iter().zip(new).map(|(o, v)| (1.0 - f) * o + f * k * v).collect()
        };
        (blend(old_mean, &mean, 1.0), blend(old_var, &var, adjust))
    };
    (y, [run_mean, run_var, mean, var])
}

// ---------------------------------------------------------------- gradient

/// TensorFlow's `_BaseFusedBatchNormGrad`: the `FusedBatchNormGrad*` op of the forward
/// op's version; in training from the saved batch statistics (outputs 3, 4 and V3's 5),
/// in inference from the population `mean`/`variance` inputs, NCHW/NCDHW transposed to
/// channels-last around it.
fn batch_norm_gradient(ctx: &GradCtx, v: FusedBatchNormVersion) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let a = read_attrs(ctx.node)?;
    let (mut x, scale) = (ctx.inputs[0].clone(), &ctx.inputs[1]);
    let mut dy = ctx.grad(0)?;
    let mut format = ctx.node.attrs.get("data_format").cloned().unwrap_or_else(|| "NHWC".into());
    let (rs1, rs2) = if a.training {
        (ctx.outputs[3].clone(), ctx.outputs[4].clone())
    } else {
        if a.channels_first {
            let perm: &[i64] = if a.rank == 4 { &[0, 2, 3, 1] } else { &[0, 2, 3, 4, 1] };
            x = transpose(s, &x, perm)?;
            dy = transpose(s, &dy, perm)?;
            format = if a.rank == 4 { "NHWC" } else { "NDHWC" }.into();
        }
        (ctx.inputs[3].clone(), ctx.inputs[4].clone())
    };
    let mut b = s.op(v.grad_op(), v.grad_op()).input(&dy).input(&x).input(scale).input(&rs1).input(&rs2);
    if v == FusedBatchNormVersion::V3 {
        b = b.input(&ctx.outputs[5]);
    }
    b = b
        .attr("T", x.dtype())
        .attr("epsilon", a.epsilon as f32)
        .attr("data_format", format)
        .attr("is_training", a.training);
    if v != FusedBatchNormVersion::V1 {
        b = b.attr("U", scale.dtype());
    }
    let op = b.build()?;
    let mut dx = op.output(0)?;
    if !a.training && a.channels_first {
        let perm: &[i64] = if a.rank == 4 { &[0, 3, 1, 2] } else { &[0, 4, 1, 2, 3] };
        dx = transpose(s, &dx, perm)?;
    }
    Ok(vec![Some(dx), Some(op.output(1)?), Some(op.output(2)?), None, None])
}

// ---------------------------------------------------------------- builders

/// The attrs of [`fused_batch_norm`], with `tf.compat.v1.nn.fused_batch_norm`'s defaults
/// (`epsilon` 0.001, `data_format` NHWC, `is_training` true, `exponential_avg_factor` 1,
/// the V3 op).
#[derive(Clone, Debug)]
pub struct FusedBatchNormOptions {
    /// Added to the variance before its square root.
    pub epsilon: f32,
    /// `NHWC` or `NCHW` (and `NDHWC`, `NCDHW` for V3).
    pub data_format: String,
    /// Normalize with the batch's statistics (true) or the given population ones.
    pub is_training: bool,
    /// In training, the weight of the batch statistics in the running averages output
    /// (1: output the batch statistics themselves).
    pub exponential_avg_factor: f32,
    /// Which op type to build.
    pub version: FusedBatchNormVersion,
}

impl Default for FusedBatchNormOptions {
    fn default() -> Self {
        FusedBatchNormOptions {
            epsilon: 0.001,
            data_format: "NHWC".into(),
            is_training: true,
            exponential_avg_factor: 1.0,
            version: FusedBatchNormVersion::V3,
        }
    }
}

/// `tf.compat.v1.nn.fused_batch_norm(x, scale, offset, mean, variance, ...)`: op
/// `FusedBatchNormV3` (or `opts.version`'s), default name `FusedBatchNormV3`. `x` is 4-d
/// (5-d for `NDHWC`/`NCDHW`) of dtype `T`; `scale`, `offset` and, when given, `mean`,
/// `variance` are `[C]` of dtype `U`. An absent `mean`/`variance` is an empty float32
/// constant (`Const`, `Const_1`) as TensorFlow passes, allowed in training with
/// `exponential_avg_factor` 1 only. Returns the operation: output 0 `y`, 1 and 2 the
/// batch (or running) mean and variance, 3.. the reserve spaces. Errors:
/// `InvalidArgument` at build time for a missing `mean`/`variance` where one is needed,
/// wrong ranks, channel counts or dtypes (naming the shapes).
pub fn fused_batch_norm(
    s: &Scope,
    x: &Output,
    scale: &Output,
    offset: &Output,
    mean: Option<&Output>,
    variance: Option<&Output>,
    opts: &FusedBatchNormOptions,
) -> Result<Operation> {
    let needs_stats = !opts.is_training || opts.exponential_avg_factor != 1.0;
    if needs_stats && (mean.is_none() || variance.is_none()) {
        return Err(Error::invalid_argument(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or `exponential_avg_factor` != 1.0",
        ));
    }
    let empty = |s: &Scope, given: Option<&Output>| match given {
        Some(o) => Ok(o.clone()),
        None => constant(s, Tensor::new(&[0], Vec::<f32>::new())?),
    };
    let (mean, variance) = (empty(s, mean)?, empty(s, variance)?);
    let op_type = opts.version.forward_op();
    let mut b = s
        .op(op_type, op_type)
        .input(x)
        .input(scale)
        .input(offset)
        .input(&mean)
        .input(&variance)
        .attr("T", x.dtype())
        .attr("epsilon", opts.epsilon)
        .attr("exponential_avg_factor", opts.exponential_avg_factor)
        .attr("data_format", opts.data_format.as_str())
        .attr("is_training", opts.is_training);
    if opts.version != FusedBatchNormVersion::V1 {
        b = b.attr("U", scale.dtype());
    }
    b.build()
}
