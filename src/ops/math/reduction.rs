//! Reductions: Sum, Mean, Max, Prod (input 1: int32/int64 `reduction_indices`, attr
//! `keep_dims`) as one [`Reduce`] mechanism, and ArgMax (attr `output_type`). Attrs are
//! parsed and the kernel function chosen for the dtype when the session prepares the node.

use super::arithmetic::{div, mul};
use super::compare::equal;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::{cast, constant, int_values, ones_like, reshape_to, size};
use crate::ops::kernels::{normalize_axes, reduce, reduced_shape, Num};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Reduce::SUM, &Reduce::MEAN, &Reduce::MAX, &Reduce::PROD, &ArgMax];

const INTS: &[DType] = &[DType::Int32, DType::Int64];
const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Sum,
    Mean,
    Max,
    Prod,
}

/// A reduction `op(input, reduction_indices)` over constant or computed axes (negative
/// axes count from the end; attrs `T`, `Tidx`, `keep_dims`): `Sum`, `Mean`, `Max` and
/// `Prod`, for float32, float64, int32, int64. Errors: `InvalidArgument` for an axis out of
/// range, `Max` over an empty tensor, a non-bool `keep_dims` or another dtype (when the
/// session prepares the node; `Prod` refuses other dtypes at build time). Gradients: Sum,
/// Mean and Max as TensorFlow's (constant axes and a known input rank needed); none for
/// Prod (TensorFlow's needs Cumprod).
pub struct Reduce {
    op_type: &'static str,
    kind: Kind,
}

impl Reduce {
    const SUM: Reduce = Reduce { op_type: "Sum", kind: Kind::Sum };
    const MEAN: Reduce = Reduce { op_type: "Mean", kind: Kind::Mean };
    const MAX: Reduce = Reduce { op_type: "Max", kind: Kind::Max };
    const PROD: Reduce = Reduce { op_type: "Prod", kind: Kind::Prod };
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

/// A typed reduction kernel: `(input, normalized axes, keep_dims)`.
type ReduceFn = fn(&Tensor, &[usize], bool) -> Result<Tensor>;

fn sum<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    reduce::<T>(x, axes, keep, T::ZERO, |a, b| a + b)
}

fn prod<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    reduce::<T>(x, axes, keep, T::ONE, |a, b| a * b)
}

/// The largest value; NaN wins.
fn max<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    if x.num_elements() == 0 && !axes.is_empty() {
        return Err(Error::invalid_argument("Max of an empty tensor"));
    }
    reduce::<T>(x, axes, keep, T::MIN, |a, b| if b > a || b.partial_cmp(&b).is_none() { b } else { a })
}

/// The sum divided by the number of reduced elements (integers truncate).
fn mean<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    let s = reduce::<T>(x, axes, keep, T::ZERO, |a, b| a + b)?;
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let c = T::from_f64(count as f64);
    Tensor::new(s.shape(), s.as_slice::<T>()?.iter().map(|&v| v / c).collect())
}

impl RegisteredOp for Reduce {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = if self.kind == Kind::Prod {
            let t = ctx.check_dtype(0, NUMBERS)?;
            ctx.check_dtype(1, INTS)?;
            t
        } else {
            ctx.dtype(0)
        };
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        Ok(vec![(t, infer_reduced(ctx.shape(0), ctx.const_input(1), keep)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let keep_dims = node.attr_bool_or("keep_dims", false)?;
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        let f = crate::dispatch_numeric!(t, self.op_type, T => match self.kind {
            Kind::Sum => sum::<T> as ReduceFn,
            Kind::Mean => mean::<T>,
            Kind::Max => max::<T>,
            Kind::Prod => prod::<T>,
        });
        Ok(Box::new(ReduceKernel { f, keep_dims }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if self.kind == Kind::Prod {
            return Err(Error::unimplemented(format!(
                "the gradient of Prod ('{}') needs Cumprod, which tensorgraph does not have yet",
                ctx.node.name
            )));
        }
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
        let g_kept = if keep { g } else { reshape_to(s, &g, &kept)? };
        let ones = ones_like(s, x)?;
        let tiled = mul(&s.named("Tile"), &g_kept, &ones)?;
        let out = match self.kind {
            Kind::Sum | Kind::Prod => tiled,
            Kind::Mean => {
                let n_in = cast(s, &size(s, x)?, x.dtype())?;
                let n_out = cast(&s.named("Cast_1"), &size(&s.named("Size_1"), &ctx.outputs[0])?, x.dtype())?;
                let factor = div(s, &n_in, &n_out)?;
                div(&s.named("truediv_1"), &tiled, &factor)?
            }
            Kind::Max => {
                let y = &ctx.outputs[0];
                let y_kept = if keep { y.clone() } else { reshape_to(&s.named("Reshape_1"), y, &kept)? };
                let eq = equal(s, x, &y_kept)?;
                let ind = cast(s, &eq, x.dtype())?;
                let sel = reduce_sum(s, &ind, Some(&axes.iter().map(|&a| a as i32).collect::<Vec<_>>()), true)?;
                mul(s, &div(s, &ind, &sel)?, &tiled)?
            }
        };
        Ok(vec![Some(out), None])
    }
}

/// A prepared [`Reduce`]: its typed kernel function and `keep_dims`.
struct ReduceKernel {
    f: ReduceFn,
    keep_dims: bool,
}

impl Kernel for ReduceKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let axes = normalize_axes(&int_values(ctx.input(1))?, x.rank())?;
        Ok(vec![(self.f)(x, &axes, self.keep_dims)?])
    }
}

/// Builds a reduction op with constant axes (`reduction_indices`).
pub(crate) fn reduction(
    s: &Scope,
    op_type: &str,
    default: &str,
    x: &Output,
    axes: Option<&[i32]>,
    keep_dims: bool,
) -> Result<Output> {
    let axes: Vec<i32> = match axes {
        Some(a) => a.to_vec(),
        None => {
            let r = x.shape().rank().ok_or_else(|| {
                Error::invalid_argument(format!("reducing all axes of {} needs its rank to be known", x.name()))
            })?;
            (0..r as i32).collect()
        }
    };
    let (op, inner) = s.op_scope(default);
    let idx = constant(&inner.named("reduction_indices"), Tensor::vector(axes))?;
    op.op(op_type, default)
        .input(x)
        .input(&idx)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", keep_dims)
        .build_output()
}

/// `tf.reduce_sum(x, axes, keep_dims)`: op `Sum`, default name `Sum`, axes const
/// `Sum/reduction_indices`; `axes = None` reduces all dimensions (needs a known rank).
/// float32/float64/int32/int64. Errors: `InvalidArgument` for an axis out of range.
pub fn reduce_sum(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Sum", "Sum", x, axes, keep_dims)
}

/// `tf.reduce_mean(x, axes, keep_dims)`: op `Mean`, default name `Mean`; as [`reduce_sum`]
/// (integer means truncate).
pub fn reduce_mean(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Mean", "Mean", x, axes, keep_dims)
}

/// `tf.reduce_max(x, axes, keep_dims)`: op `Max`, default name `Max`; as [`reduce_sum`]
/// (NaN wins; an empty input is `InvalidArgument` when run).
pub fn reduce_max(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Max", "Max", x, axes, keep_dims)
}

/// `tf.reduce_prod(x, axes, keep_dims)`: op `Prod` (attrs `T`, `Tidx = int32`,
/// `keep_dims`), default name `Prod`, axes const `Prod/reduction_indices`; `axes = None`
/// reduces all (needs a known rank). float32/float64/int32/int64. Errors:
/// `InvalidArgument` for an axis out of range. No gradient (`Unimplemented`).
pub fn reduce_prod(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Prod", "Prod", x, axes, keep_dims)
}

/// `ArgMax(input, dimension)`: the index of the largest value along one axis (the first
/// on ties), as attr `output_type` (int32 or int64, default int64). Errors:
/// `InvalidArgument` for another `output_type` (when prepared), not exactly one axis or an
/// empty dimension (when run).
pub struct ArgMax;

/// ArgMax's `output_type` attr: int64 when absent.
fn output_type(node: &Node) -> Result<DType> {
    match node.attrs.get("output_type") {
        None => Ok(DType::Int64),
        Some(AttrValue::Type(t @ (DType::Int32 | DType::Int64))) => Ok(*t),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr output_type of '{}' (ArgMax) must be int32 or int64, got {v:?}",
            node.name
        ))),
    }
}

impl RegisteredOp for ArgMax {
    fn op_type(&self) -> &'static str {
        "ArgMax"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        Ok(vec![(output_type(ctx.node)?, infer_reduced(ctx.shape(0), ctx.const_input(1), false)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ArgMaxKernel { output: output_type(node)? }))
    }
}

/// A prepared `ArgMax`: its output dtype.
struct ArgMaxKernel {
    output: DType,
}

impl Kernel for ArgMaxKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
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
        Ok(vec![Tensor::from_f64(self.output, &reduced_shape(sh, &axes, false), &idx)?])
    }
}

/// `tf.argmax(x, axis)`: op `ArgMax` (attrs `T`, `Tidx = int32`, `output_type = int64`),
/// default name `ArgMax`, axis const `ArgMax/dimension`; int64 indices, `x`'s shape
/// without `axis`. Errors: `InvalidArgument` for an axis out of range.
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
