//! `MaxPoolWithArgmax` and its gradient op `MaxPoolGradWithArgmax` (TensorFlow's
//! `tf.nn.max_pool_with_argmax`), NHWC: the window maximum and the flat index of the first
//! maximum, `(y * width + x) * channels + c` (with `include_batch_in_index`,
//! `((b * height + y) * width + x) * channels + c`), as TensorFlow's CPU kernel.

use super::{read_attrs, Attrs, Geom};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::kernels::{Num, NUMBERS_AND_SMALL_INTS};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&MaxPoolWithArgmax, &MaxPoolGradWithArgmax];

const ARGMAX: &[DType] = &[DType::Int32, DType::Int64];

/// The static output shape of a pool of `x` (TensorFlow's messages for a wrong rank).
fn infer_pooled(x: &Shape, a: &Attrs) -> Result<Shape> {
    if let Some(r) = x.rank().filter(|&r| r != 4) {
        return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} (input {x})")));
    }
    super::pool_infer(x, a, "MaxPoolWithArgmax")
}

/// `MaxPoolWithArgmax(input)` (attrs `T`, `ksize`, `strides`, `padding`, `Targmax`: int32 or
/// int64 (the default), `include_batch_in_index`): the max of each NHWC window (int8, int16,
/// int32, int64, uint8, uint16, float32, float64) and the flat index of its first maximum.
/// Outputs `output [N, OH, OW, C]` and `argmax` (`Targmax`, same shape). Errors: TensorFlow's
/// `Shape must be rank 4`; `InvalidArgument` for a window larger than a VALID input.
/// Gradient: `MaxPoolGradWithArgmax`.
pub struct MaxPoolWithArgmax;

impl RegisteredOp for MaxPoolWithArgmax {
    fn op_type(&self) -> &'static str {
        "MaxPoolWithArgmax"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        let a = read_attrs(ctx.node, true)?;
        let targ = targmax(ctx.node)?;
        let s = infer_pooled(ctx.shape(0), &a)?;
        Ok(vec![(t, s.clone()), (targ, s)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let f =
            crate::dispatch_numeric!(node.attr_type("T")?, "MaxPoolWithArgmax", small_ints, T => pool::<T> as PoolFn);
        Ok(Box::new(PoolKernel {
            attrs: read_attrs(node, true)?,
            batch: node.attr_bool_or("include_batch_in_index", false)?,
            targmax: targmax(node)?,
            f,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let g = ctx.grad(0)?;
        let mut b = ctx
            .scope
            .op("MaxPoolGradWithArgmax", "MaxPoolGradWithArgmax")
            .input(&ctx.inputs[0])
            .input(&g)
            .input(&ctx.outputs[1])
            .attr("T", g.dtype())
            .attr("Targmax", ctx.outputs[1].dtype());
        for name in ["ksize", "strides", "padding", "include_batch_in_index"] {
            if let Some(v) = ctx.node.attrs.get(name) {
                b = b.attr(name, v.clone());
            }
        }
        Ok(vec![Some(b.build_output()?)])
    }
}

fn targmax(node: &Node) -> Result<DType> {
    let t = match node.attrs.get("Targmax") {
        None => DType::Int64,
        Some(_) => node.attr_type("Targmax")?,
    };
    if !ARGMAX.contains(&t) {
        return Err(Error::invalid_argument(format!(
            "{} '{}': Targmax must be int32 or int64, got {t}",
            node.op_type, node.name
        )));
    }
    Ok(t)
}

type PoolFn = fn(&Tensor, &Geom, bool) -> Result<(Tensor, Vec<i64>)>;

/// A prepared `MaxPoolWithArgmax`.
struct PoolKernel {
    attrs: Attrs,
    batch: bool,
    targmax: DType,
    f: PoolFn,
}

impl Kernel for PoolKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = &self.attrs;
        let x = ctx.input(0);
        if x.shape().len() != 4 {
            return Err(Error::invalid_argument(format!("tensor_in must be 4-dimensional{}", fmt_dims(x.shape()))));
        }
        let g = Geom::new(x.shape(), a.ksize.0, a.ksize.1, a)?;
        let (out, idx) = (self.f)(x, &g, self.batch)?;
        let shape = out.shape().to_vec();
        let idx = match self.targmax {
            DType::Int32 => Tensor::new(&shape, idx.iter().map(|&i| i as i32).collect::<Vec<_>>())?,
            _ => Tensor::new(&shape, idx)?,
        };
        Ok(vec![out, idx])
    }
}

fn pool<T: Num>(x: &Tensor, g: &Geom, batch: bool) -> Result<(Tensor, Vec<i64>)> {
    let xv = x.as_slice::<T>()?;
    let c = g.c;
    let per_image = g.h * g.w * c;
    let n_out = g.n * g.oh * g.ow * c;
    let (mut out, mut idx) = (Vec::with_capacity(n_out), Vec::with_capacity(n_out));
    for n in 0..g.n {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                for ch in 0..c {
                    let mut best: Option<(usize, T)> = None;
                    for i in g.window(n, oy, ox).map(|s| s + ch) {
                        if best.is_none_or(|(_, b)| b < xv[i]) {
                            best = Some((i, xv[i]));
                        }
                    }
                    let (i, v) = best.map_or((-1, T::MIN), |(i, v)| (i as i64, v));
                    out.push(v);
                    idx.push(if batch || i < 0 { i } else { i - (n * per_image) as i64 });
                }
            }
        }
    }
    Ok((Tensor::new(&[g.n, g.oh, g.ow, c], out)?, idx))
}

/// `MaxPoolGradWithArgmax(input, grad, argmax)` (attrs as [`MaxPoolWithArgmax`]): each
/// element of `grad` added at its `argmax` index (per image unless `include_batch_in_index`)
/// of zeros shaped like `input`. Errors: `InvalidArgument` when `grad` or `argmax` is not
/// the pooled shape, or an index is outside the image. No gradient.
pub struct MaxPoolGradWithArgmax;

impl RegisteredOp for MaxPoolGradWithArgmax {
    fn op_type(&self) -> &'static str {
        "MaxPoolGradWithArgmax"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.check_dtype(0, NUMBERS_AND_SMALL_INTS)?;
        ctx.check_dtype(2, ARGMAX)?;
        read_attrs(ctx.node, true)?;
        if let Some(r) = ctx.shape(0).rank().filter(|&r| r != 4) {
            return Err(Error::invalid_argument(format!("Shape must be rank 4 but is rank {r} (input)")));
        }
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let f = crate::dispatch_numeric!(node.attr_type("T")?, "MaxPoolGradWithArgmax", small_ints, T => pool_grad::<T> as GradFn);
        Ok(Box::new(GradKernel {
            attrs: read_attrs(node, true)?,
            batch: node.attr_bool_or("include_batch_in_index", false)?,
            f,
        }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Err(Error::unimplemented(format!(
            "the gradient of MaxPoolGradWithArgmax ('{}') needs MaxPoolGradGradWithArgmax, which tensorgraph does not have",
            ctx.node.name
        )))
    }
}

type GradFn = fn(&Tensor, &Tensor, &[i64], bool) -> Result<Tensor>;

/// A prepared `MaxPoolGradWithArgmax`.
struct GradKernel {
    attrs: Attrs,
    batch: bool,
    f: GradFn,
}

impl Kernel for GradKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = &self.attrs;
        let (x, grad, argmax) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if x.shape().len() != 4 {
            return Err(Error::invalid_argument(format!("tensor_in must be 4-dimensional{}", fmt_dims(x.shape()))));
        }
        let g = Geom::new(x.shape(), a.ksize.0, a.ksize.1, a)?;
        let want = [g.n, g.oh, g.ow, g.c];
        if grad.shape() != want {
            return Err(Error::invalid_argument(format!(
                "Expected grad shape to be {}, but got {}",
                fmt_dims(&want),
                fmt_dims(grad.shape())
            )));
        }
        if argmax.shape() != want {
            return Err(Error::invalid_argument(format!(
                "Expected argmax shape to be {}, but got {}",
                fmt_dims(&want),
                fmt_dims(argmax.shape())
            )));
        }
        let idx: Vec<i64> = match argmax.dtype() {
            DType::Int32 => argmax.as_slice::<i32>()?.iter().map(|&i| i as i64).collect(),
            _ => argmax.as_slice::<i64>()?.to_vec(),
        };
        Ok(vec![(self.f)(x, grad, &idx, self.batch)?])
    }
}

fn pool_grad<T: Num>(x: &Tensor, grad: &Tensor, idx: &[i64], batch: bool) -> Result<Tensor> {
    let gv = grad.as_slice::<T>()?;
    let n = x.shape()[0].max(1);
    let (per_in, per_out) = (x.num_elements() / n, gv.len() / n);
    let mut out = vec![T::ZERO; x.num_elements()];
    for (i, (&g, &a)) in gv.iter().zip(idx).enumerate() {
        let j = if batch { a } else { a + ((i / per_out.max(1)) * per_in) as i64 };
        let slot = usize::try_from(j).ok().and_then(|j| out.get_mut(j)).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Received input gradient index {a} for element {i}, outside the input of {} elements",
                if batch { x.num_elements() } else { per_in }
            ))
        })?;
        *slot += g;
    }
    Tensor::new(x.shape(), out)
}

/// `tf.nn.max_pool_with_argmax(input, ksize, strides, padding, output_dtype,
/// include_batch_in_index)`: op `MaxPoolWithArgmax`, default name `MaxPoolWithArgmax`;
/// `ksize`/`strides` of 1, 2 or 4 entries; returns (output, argmax). See [`MaxPoolWithArgmax`].
pub fn max_pool_with_argmax(
    s: &Scope,
    input: &Output,
    ksize: &[i64],
    strides: &[i64],
    padding: &str,
    output_dtype: DType,
    include_batch_in_index: bool,
) -> Result<(Output, Output)> {
    let op = s
        .op("MaxPoolWithArgmax", "MaxPoolWithArgmax")
        .input(input)
        .attr("T", input.dtype())
        .attr("Targmax", output_dtype)
        .attr("ksize", AttrValue::ListInt(super::nhwc4(ksize, "ksize")?))
        .attr("strides", AttrValue::ListInt(super::nhwc4(strides, "strides")?))
        .attr("padding", padding)
        .attr("include_batch_in_index", include_batch_in_index)
        .build()?;
    Ok((op.output(0)?, op.output(1)?))
}
