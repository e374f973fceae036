//! Reductions: Sum, Mean, Max (input 1: int32 `reduction_indices`, attr `keep_dims`) and ArgMax.

use super::array::{cast, constant, int_values, size};
use super::kernels::{normalize_axes, reduce, reduced_shape, Num};
use super::math::{div, mul, reduction};
use super::{GradCtx, InferCtx, KernelCtx, OpDef};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn OpDef] = &[&Reduce::SUM, &Reduce::MEAN, &Reduce::MAX, &ArgMax];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Sum,
    Mean,
    Max,
}

/// Sum, Mean and Max over constant or computed axes.
pub struct Reduce {
    op_type: &'static str,
    kind: Kind,
}

impl Reduce {
    const SUM: Reduce = Reduce { op_type: "Sum", kind: Kind::Sum };
    const MEAN: Reduce = Reduce { op_type: "Mean", kind: Kind::Mean };
    const MAX: Reduce = Reduce { op_type: "Max", kind: Kind::Max };
}

/// The partial output shape of reducing `x` over constant `axes`.
pub(crate) fn infer_reduced(x: &Shape, axes: Option<Tensor>, keep: bool) -> Result<Shape> {
    let (Some(dims), Some(axes)) = (x.dims(), axes) else {
        return Ok(Shape::unknown());
    };
    let axes = normalize_axes(&int_values(&axes)?, dims.len())?;
    let out: Vec<Option<usize>> = dims
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if axes.contains(&i) { keep.then_some(Some(1)) } else { Some(d) })
        .collect();
    Ok(Shape::partial(&out))
}

impl OpDef for Reduce {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        Ok(vec![(ctx.dtype(0), infer_reduced(ctx.shape(0), ctx.const_input(1), keep)?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        let axes = normalize_axes(&int_values(ctx.input(1))?, x.rank())?;
        let out = crate::dispatch_numeric!(x.dtype(), self.op_type, T => match self.kind {
            Kind::Sum => reduce::<T>(x, &axes, keep, T::ZERO, |a, b| a + b)?,
            Kind::Max => {
                if x.num_elements() == 0 && !axes.is_empty() {
                    return Err(Error::invalid_argument("Max of an empty tensor"));
                }
                reduce::<T>(x, &axes, keep, T::MIN, |a, b| if b > a || b.partial_cmp(&b).is_none() { b } else { a })?
            }
            Kind::Mean => {
                let s = reduce::<T>(x, &axes, keep, T::ZERO, |a, b| a + b)?;
                let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
                let c = T::from_f64(count as f64);
                Tensor::new(s.shape(), s.as_slice::<T>()?.iter().map(|&v| v / c).collect())?
            }
        });
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let x = &ctx.inputs[0];
        let g = ctx.grad(0)?;
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        // the gradient reshaped to the input's rank, 1 on reduced axes
        let xs = x.shape();
        let axes_const = {
            let n = ctx.scope.graph().node(ctx.inputs[1].op().id());
            (n.op_type == "Const").then(|| n.attr_tensor("value").ok().cloned()).flatten()
        };
        let (Some(dims), Some(axes)) = (xs.dims(), axes_const) else {
            return Err(Error::unimplemented(format!(
                "gradient of {} needs the input rank and constant reduction axes",
                ctx.node.name
            )));
        };
        let axes = normalize_axes(&int_values(&axes)?, dims.len())?;
        let kept: Vec<i64> = dims
            .iter()
            .enumerate()
            .map(|(i, d)| if axes.contains(&i) { 1 } else { d.map(|d| d as i64).unwrap_or(-1) })
            .collect();
        if kept.iter().filter(|&&d| d == -1).count() > 1 {
            return Err(Error::unimplemented(format!(
                "gradient of {} with more than one unknown dimension in {}",
                ctx.node.name, xs
            )));
        }
        let g_kept = if keep { g } else { super::array::reshape_to(s, &g, &kept)? };
        let ones = super::array::ones_like(s, x)?;
        let tiled = mul(&s.named("Tile"), &g_kept, &ones)?;
        let out = match self.kind {
            Kind::Sum => tiled,
            Kind::Mean => {
                let n_in = cast(s, &size(s, x)?, x.dtype())?;
                let n_out = cast(&s.named("Cast_1"), &size(&s.named("Size_1"), &ctx.outputs[0])?, x.dtype())?;
                let factor = div(s, &n_in, &n_out)?;
                div(&s.named("truediv_1"), &tiled, &factor)?
            }
            Kind::Max => {
                let y = &ctx.outputs[0];
                let y_kept = if keep { y.clone() } else { super::array::reshape_to(&s.named("Reshape_1"), y, &kept)? };
                let eq = super::math::equal(s, x, &y_kept)?;
                let ind = cast(s, &eq, x.dtype())?;
                let sel =
                    super::math::reduce_sum(s, &ind, Some(&axes.iter().map(|&a| a as i32).collect::<Vec<_>>()), true)?;
                mul(s, &div(s, &ind, &sel)?, &tiled)?
            }
        };
        Ok(vec![Some(out), None])
    }
}

/// `tf.reduce_mean(x, axes, keep_dims)` (`Mean`); `axes = None` reduces all.
pub fn reduce_mean(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Mean", "Mean", x, axes, keep_dims)
}

/// `tf.reduce_max(x, axes, keep_dims)` (`Max`); `axes = None` reduces all.
pub fn reduce_max(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Max", "Max", x, axes, keep_dims)
}

/// `ArgMax`: index of the largest value along axis (input 1), int64 (attr `output_type`).
pub struct ArgMax;
impl OpDef for ArgMax {
    fn op_type(&self) -> &'static str {
        "ArgMax"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let out = ctx.node.attr_type("output_type").unwrap_or(DType::Int64);
        Ok(vec![(out, infer_reduced(ctx.shape(0), ctx.const_input(1), false)?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let axes = normalize_axes(&int_values(ctx.input(1))?, x.rank())?;
        let [axis] = axes[..] else {
            return Err(Error::invalid_argument("ArgMax takes exactly one axis"));
        };
        let v = x.to_f64_vec()?;
        let sh = x.shape();
        let (outer, n, inner) =
            (sh[..axis].iter().product::<usize>(), sh[axis], sh[axis + 1..].iter().product::<usize>());
        if n == 0 {
            return Err(Error::invalid_argument("ArgMax of an empty dimension"));
        }
        let mut idx = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            for i in 0..inner {
                let mut best = 0;
                for j in 1..n {
                    if v[(o * n + j) * inner + i] > v[(o * n + best) * inner + i] {
                        best = j;
                    }
                }
                idx.push(best as f64);
            }
        }
        let out = ctx.node.attr_type("output_type").unwrap_or(DType::Int64);
        Ok(vec![Tensor::from_f64(out, &reduced_shape(sh, &axes, false), &idx)?])
    }
}

/// `tf.argmax(x, axis)` (int64).
pub fn argmax(s: &Scope, x: &Output, axis: i32) -> Result<Output> {
    let (op, inner) = s.op_scope("ArgMax");
    let dim = constant(&inner.named("dimension"), Tensor::scalar(axis))?;
    op.op("ArgMax", "ArgMax")
        .input(x)
        .input(&dim)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("output_type", DType::Int64)
        .build_output()
}
