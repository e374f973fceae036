//! `ClipByValue` (`tf.clip_by_value`) and `L2Loss` (`tf.nn.l2_loss`), with TensorFlow's
//! gradients.

use super::arithmetic::mul;
use super::binary::sum_over;
use super::compare::{greater, less};
use super::logical::logical_or;
use super::select::where_v2;
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::{constant, fill, reshape, shape};
use crate::ops::kernels::Num;
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ClipByValue, &L2Loss];

const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

/// `ClipByValue(t, clip_value_min, clip_value_max)`: `max(min(t, max), min)` element-wise
/// (so a min above the max gives the min everywhere, as TensorFlow's). The bounds are
/// scalars or shaped like `t`. float32, float64, int32, int64 of one dtype; the output
/// has `t`'s shape. Errors: `InvalidArgument` when run with bounds of another shape
/// (TensorFlow's `clip_value_min and clip_value_max must be either of the same shape as
/// input, or a scalar`). Gradient (TensorFlow's `_clip_by_value_grad`): `g` to `t` where
/// it is within the bounds, to a bound where `t` passes it, summed to the bound's shape.
pub struct ClipByValue;
impl RegisteredOp for ClipByValue {
    fn op_type(&self) -> &'static str {
        "ClipByValue"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, NUMBERS)?;
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f = crate::dispatch_numeric!(t, "ClipByValue", T => clip::<T> as ClipFn);
        Ok(Box::new(ClipKernel(f)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, y, z) = (&ctx.inputs[0], &ctx.inputs[1], &ctx.inputs[2]);
        let g = ctx.grad(0)?;
        let sx = shape(s, x)?;
        let sy = shape(&s.named("Shape_1"), y)?;
        let sz = shape(&s.named("Shape_2"), z)?;
        let gshape = shape(&s.named("Shape_3"), &g)?;
        let (zop, zinner) = s.op_scope("zeros");
        let zero = constant(&zinner.named("Const"), Tensor::from_f64(g.dtype(), &[], &[0.0])?)?;
        let zeros = fill(&zop, &gshape, &zero)?;
        let xymask = less(s, x, y)?;
        let xzmask = greater(s, x, z)?;
        let args = |a: &Output, b: &Output| -> Result<Output> {
            let op = s.op("BroadcastGradientArgs", "BroadcastGradientArgs").input(a).input(b);
            op.attr("T", DType::Int32).build()?.output(1)
        };
        let ry = args(&sx, &sy)?;
        let rz = args(&sx, &sz)?;
        let xgrad = where_v2(s, &logical_or(s, &xymask, &xzmask)?, &zeros, &g)?;
        let ygrad = where_v2(s, &xymask, &g, &zeros)?;
        let zgrad = where_v2(s, &xzmask, &g, &zeros)?;
        let gy = reshape(s, &sum_over(s, &ygrad, &ry)?, &sy)?;
        let gz = reshape(&s.named("Reshape_1"), &sum_over(&s.named("Sum_1"), &zgrad, &rz)?, &sz)?;
        Ok(vec![Some(xgrad), Some(gy), Some(gz)])
    }
}

type ClipFn = fn(&Tensor, &Tensor, &Tensor) -> Result<Tensor>;

/// A prepared `ClipByValue`: its typed kernel.
struct ClipKernel(ClipFn);

impl Kernel for ClipKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (t, lo, hi) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let fits = |b: &Tensor| b.rank() == 0 || b.shape() == t.shape();
        if !fits(lo) || !fits(hi) {
            return Err(Error::invalid_argument(format!(
                "clip_value_min and clip_value_max must be either of the same shape as input, or a scalar. input shape: {} clip_value_min shape: {} clip_value_max shape: {}",
                fmt_dims(t.shape()),
                fmt_dims(lo.shape()),
                fmt_dims(hi.shape())
            )));
        }
        Ok(vec![(self.0)(t, lo, hi)?])
    }
}

fn clip<T: Num>(t: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<Tensor> {
    let (v, l, h) = (t.as_slice::<T>()?, lo.as_slice::<T>()?, hi.as_slice::<T>()?);
    let at = |b: &[T], i: usize| if b.len() == 1 { b[0] } else { b[i] };
    let out = v
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let (l, h) = (at(l, i), at(h, i));
            let x = if h < x { h } else { x };
            if x < l {
                l
            } else {
                x
            }
        })
        .collect();
    Tensor::new(t.shape(), out)
}

/// `tf.clip_by_value(t, clip_value_min, clip_value_max)` with tensor bounds: op
/// `ClipByValue`, default name `clip_by_value`. As [`ClipByValue`].
pub fn clip_by_value(s: &Scope, t: &Output, min: &Output, max: &Output) -> Result<Output> {
    s.op("ClipByValue", "clip_by_value").input(t).input(min).input(max).attr("T", t.dtype()).build_output()
}

/// `L2Loss(t)`: `sum(t^2) / 2`, a 0-d tensor (float32, float64). Gradient
/// (`_L2LossGrad`): `t * g`.
pub struct L2Loss;
impl RegisteredOp for L2Loss {
    fn op_type(&self) -> &'static str {
        "L2Loss"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        let t = ctx.check_dtype(0, &[DType::Float, DType::Double])?;
        ctx.check_type_attr("T", 0)?;
        Ok(vec![(t, Shape::scalar())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let f =
            crate::dispatch_float!(t, "L2Loss", T => l2_loss_kernel::<T> as fn(&mut KernelCtx) -> Result<Vec<Tensor>>);
        Ok(Box::new(crate::ops::FnKernel(f)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![Some(mul(ctx.scope, &ctx.inputs[0], &ctx.grad(0)?)?)])
    }
}

fn l2_loss_kernel<T: Num>(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let v = ctx.input(0).as_slice::<T>()?;
    let half = T::from_f64(0.5);
    Ok(vec![Tensor::scalar(v.iter().fold(T::ZERO, |a, &x| a + x * x * half))])
}

/// `tf.nn.l2_loss(t)`: op `L2Loss`, default name `L2Loss`; `sum(t^2) / 2` as a 0-d
/// tensor. float32/float64.
pub fn l2_loss(s: &Scope, t: &Output) -> Result<Output> {
    s.op("L2Loss", "L2Loss").input(t).attr("T", t.dtype()).build_output()
}
