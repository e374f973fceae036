//! Reductions: Sum, Mean, Max, Min, Prod, EuclideanNorm, All, Any (input 1: int32/int64
//! `reduction_indices`, attr `keep_dims`) as one [`Reduce`] mechanism, and ArgMax and
//! ArgMin (attr `output_type`). Attrs are
//! parsed and the kernel function chosen for the dtype when the session prepares the node.

use super::arithmetic::{add, div, floor_mod, mul};
use super::binary::no_kernel;
use super::compare::equal;
use super::prod_grad::{prod_grad, prod_grad_dyn};
use super::reduce_builders::reduce_sum;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::{
    broadcast_to, cast, constant, dynamic_stitch, fill, int_values, ones_like, range_dyn, reshape, reshape_to, shape,
    size,
};
use crate::ops::kernels::{complex as cx, normalize_axes, normalize_distinct_axes, reduce, reduced_shape, Num};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Element, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &Reduce::SUM,
    &Reduce::MEAN,
    &Reduce::MAX,
    &Reduce::MIN,
    &Reduce::PROD,
    &Reduce::EUCLIDEAN_NORM,
    &Reduce::ALL,
    &Reduce::ANY,
    &ArgMax,
    &ArgMin,
];

const INTS: &[DType] = &[DType::Int32, DType::Int64];
/// The dtypes `Prod` takes at build time: the numbers and complex64, complex128.
const PROD_DTYPES: &[DType] = &[
    DType::Float,
    DType::Double,
    DType::Int32,
    DType::Int64,
    DType::Int8,
    DType::Int16,
    DType::UInt8,
    DType::UInt16,
    DType::Complex64,
    DType::Complex128,
];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    EuclideanNorm,
    All,
    Any,
}

/// A reduction `op(input, reduction_indices)` over constant or computed axes, any number
/// of them (negative axes count from the end; attrs `T`, `Tidx`, `keep_dims`): `Sum`,
/// `Mean`, `Max`, `Min`, `Prod` and `EuclideanNorm` (`sqrt(sum(x^2))`; integers square and
/// sum wrapping, then the root truncates, as TensorFlow's) for float32, float64, int8,
/// int16, int32, int64, uint8, uint16 (a small-integer `Mean` sums without wrapping, as
/// TensorFlow), and `Sum`, `Mean`, `Prod` for complex64 and complex128; `All` and `Any`
/// (no `T`) for bool. Errors: `InvalidArgument` for an axis out of range, an axis named
/// twice (when run, TensorFlow's "Axes contains duplicate dimension"; the shape function
/// counts it once, as TensorFlow's), `Max` over an
/// empty tensor (`Min` gives the dtype's largest value, as TensorFlow), a non-bool
/// `keep_dims` or another dtype (when the session prepares the node; `Prod`, `All` and
/// `Any` refuse other dtypes at build time). Gradients: Sum, Mean, Max, Min and Prod as
/// TensorFlow's, also for an unknown rank or computed axes (through `DynamicStitch`;
/// Prod's with `Cumprod`, `ListDiff` and `InvertPermutation`; EuclideanNorm's, as
/// TensorFlow's `_EuclideanNormGrad`, `x / (y / g)` with `y` and `g` reshaped to the
/// input's rank); none for All and Any.
pub struct Reduce {
    op_type: &'static str,
    kind: Kind,
}

impl Reduce {
    const SUM: Reduce = Reduce { op_type: "Sum", kind: Kind::Sum };
    const MEAN: Reduce = Reduce { op_type: "Mean", kind: Kind::Mean };
    const MAX: Reduce = Reduce { op_type: "Max", kind: Kind::Max };
    const MIN: Reduce = Reduce { op_type: "Min", kind: Kind::Min };
    const PROD: Reduce = Reduce { op_type: "Prod", kind: Kind::Prod };
    const EUCLIDEAN_NORM: Reduce = Reduce { op_type: "EuclideanNorm", kind: Kind::EuclideanNorm };
    const ALL: Reduce = Reduce { op_type: "All", kind: Kind::All };
    const ANY: Reduce = Reduce { op_type: "Any", kind: Kind::Any };
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
    reduce::<T>(x, axes, keep, T::ZERO, T::add_wrapping)
}

fn prod<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    reduce::<T>(x, axes, keep, T::ONE, T::mul_wrapping)
}

/// `sqrt(sum(x^2))` over the axes (integers: wrapping squares and sum, truncated root).
fn euclidean_norm<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    let sq = Tensor::new(x.shape(), x.as_slice::<T>()?.iter().map(|&v| v.mul_wrapping(v)).collect())?;
    let s = reduce::<T>(&sq, axes, keep, T::ZERO, T::add_wrapping)?;
    Tensor::new(s.shape(), s.as_slice::<T>()?.iter().map(|&v| T::from_f64(v.to_f64().sqrt())).collect())
}

/// The largest value; NaN wins.
fn max<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    if x.num_elements() == 0 && !axes.is_empty() {
        return Err(Error::invalid_argument("Max of an empty tensor"));
    }
    reduce::<T>(x, axes, keep, T::MIN, |a, b| if b > a || b.partial_cmp(&b).is_none() { b } else { a })
}

/// The smallest value; NaN wins; the dtype's largest value over nothing.
fn min<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    reduce::<T>(x, axes, keep, T::MAX, |a, b| if b < a || b.partial_cmp(&b).is_none() { b } else { a })
}

/// `Sum`, `Mean` and `Prod` of complex64 and complex128 (TensorFlow's CPU kernels have no
/// other complex reduction). Errors: `InvalidArgument` for the other kinds.
fn complex_fn(kind: Kind, t: DType, op_type: &str) -> Result<ReduceFn> {
    fn pick<T: cx::Part>(kind: Kind) -> Option<ReduceFn>
    where
        [T; 2]: Element,
    {
        match kind {
            Kind::Sum => Some(|x, axes, keep| reduce::<[T; 2]>(x, axes, keep, [T::ZERO; 2], cx::add)),
            Kind::Prod => Some(|x, axes, keep| reduce::<[T; 2]>(x, axes, keep, [T::ONE, T::ZERO], cx::mul)),
            Kind::Mean => Some(|x, axes, keep| {
                let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
                let s = reduce::<[T; 2]>(x, axes, keep, [T::ZERO; 2], cx::add)?;
                let c = T::from_f64(count as f64);
                Tensor::new(s.shape(), s.as_slice::<[T; 2]>()?.iter().map(|v| [v[0] / c, v[1] / c]).collect())
            }),
            _ => None,
        }
    }
    let f = if t == DType::Complex128 { pick::<f64>(kind) } else { pick::<f32>(kind) };
    f.ok_or_else(|| no_kernel(op_type, t))
}

/// Logical and (`All`) over the axes; true over nothing.
fn all(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    reduce::<bool>(x, axes, keep, true, |a, b| a && b)
}

/// Logical or (`Any`) over the axes; false over nothing.
fn any(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    reduce::<bool>(x, axes, keep, false, |a, b| a || b)
}

/// The sum divided by the number of reduced elements (integers truncate). The small
/// integers (int8, int16, uint8, uint16) sum without wrapping, as TensorFlow's (the mean
/// of uint8 `[200, 200, 3]` is 134).
fn mean<T: Num>(x: &Tensor, axes: &[usize], keep: bool) -> Result<Tensor> {
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    if T::SMALL_INT {
        let wide = Tensor::new(x.shape(), x.as_slice::<T>()?.iter().map(|v| v.to_f64() as i64).collect())?;
        let s = reduce::<i64>(&wide, axes, keep, 0, |a, b| a + b)?;
        let c = count.max(1) as i64;
        return Tensor::new(s.shape(), s.as_slice::<i64>()?.iter().map(|&v| T::from_f64((v / c) as f64)).collect());
    }
    let s = reduce::<T>(x, axes, keep, T::ZERO, T::add_wrapping)?;
    let c = T::from_f64(count as f64);
    Tensor::new(s.shape(), s.as_slice::<T>()?.iter().map(|&v| v / c).collect())
}

impl RegisteredOp for Reduce {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = match self.kind {
            Kind::Prod => {
                let t = ctx.check_dtype(0, PROD_DTYPES)?;
                ctx.check_dtype(1, INTS)?;
                t
            }
            Kind::All | Kind::Any => {
                let t = ctx.check_dtype(0, &[DType::Bool])?;
                ctx.check_dtype(1, INTS)?;
                t
            }
            _ => ctx.dtype(0),
        };
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        Ok(vec![(t, infer_reduced(ctx.shape(0), ctx.const_input(1), keep)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let keep_dims = node.attr_bool_or("keep_dims", false)?;
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        let f = match self.kind {
            Kind::All => all as ReduceFn,
            Kind::Any => any,
            kind if t.is_complex() => complex_fn(kind, t, self.op_type)?,
            kind => crate::dispatch_numeric!(t, self.op_type, small_ints, T => match kind {
                Kind::Sum => sum::<T> as ReduceFn,
                Kind::Mean => mean::<T>,
                Kind::Max => max::<T>,
                Kind::Min => min::<T>,
                Kind::EuclideanNorm => euclidean_norm::<T>,
                _ => prod::<T>,
            }),
        };
        Ok(Box::new(ReduceKernel { f, keep_dims }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if matches!(self.kind, Kind::All | Kind::Any) {
            return Ok(vec![None, None]);
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
        let statically = match (xs.dims(), &axes_const) {
            (Some(d), Some(_)) => d.iter().filter(|x| x.is_none()).count() <= 1,
            _ => false,
        };
        if !statically {
            return self.dynamic_gradient(ctx, &g);
        }
        let (Some(dims), Some(axes)) = (xs.dims(), axes_const) else {
            return Err(Error::internal(format!("gradient of {}: static shapes vanished", ctx.node.name)));
        };
        let axes = normalize_axes(&int_values(&axes)?, dims.len())?;
        let kept: Vec<i64> = dims
            .iter()
            .enumerate()
            .map(|(i, d)| if axes.contains(&i) { 1 } else { d.map(|d| d as i64).unwrap_or(-1) })
            .collect();
        let g_kept = if keep { g } else { reshape_to(s, &g, &kept)? };
        if self.kind == Kind::Prod {
            return Ok(vec![Some(prod_grad(s, x, &g_kept, &axes, dims.len())?), None]);
        }
        if self.kind == Kind::EuclideanNorm {
            let y = &ctx.outputs[0];
            let y_kept = if keep { y.clone() } else { reshape_to(&s.named("Reshape_1"), y, &kept)? };
            return Ok(vec![Some(div(s, x, &div(s, &y_kept, &g_kept)?)?), None]);
        }
        let ones = ones_like(s, x)?;
        let tiled = mul(&s.named("Tile"), &g_kept, &ones)?;
        let out = match self.kind {
            Kind::Sum | Kind::Prod | Kind::EuclideanNorm | Kind::All | Kind::Any => tiled,
            Kind::Mean => mean_grad(ctx, &tiled)?,
            Kind::Max | Kind::Min => {
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

/// `Mean`'s gradient from the broadcast gradient `tiled`: divided by the ratio of the
/// input's size to the output's (TensorFlow's `_MeanGrad`, its `Size`/`Cast`/`truediv` names).
fn mean_grad(ctx: &GradCtx, tiled: &Output) -> Result<Output> {
    let (s, x) = (ctx.scope, &ctx.inputs[0]);
    let n_in = cast(s, &size(s, x)?, x.dtype())?;
    let n_out = cast(&s.named("Cast_1"), &size(&s.named("Size_1"), &ctx.outputs[0])?, x.dtype())?;
    let factor = div(s, &n_in, &n_out)?;
    div(&s.named("truediv_1"), tiled, &factor)
}

impl Reduce {
    /// The gradient when the input's rank or the axes are known only when the graph runs
    /// (TensorFlow's `_SumGrad` general path: the gradient reshaped to
    /// [`reduced_shape_dyn`] and broadcast to `Shape(x)`; `_MeanGrad` divides by the
    /// sizes' ratio, `_MinOrMaxGrad` spreads over the tied extremes, `_ProdGrad` permutes
    /// through `ListDiff` and `InvertPermutation`).
    fn dynamic_gradient(&self, ctx: &GradCtx, g: &Output) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let x = &ctx.inputs[0];
        let axes = &ctx.inputs[1];
        let x_shape = shape(s, x)?;
        if self.kind == Kind::Prod {
            let keep = ctx.node.attr_bool_or("keep_dims", false)?;
            let g = if keep { g.clone() } else { reshape(s, g, &reduced_shape_dyn(s, &x_shape, axes)?)? };
            return Ok(vec![Some(prod_grad_dyn(s, x, &x_shape, &g, axes)?), None]);
        }
        let kept = reduced_shape_dyn(s, &x_shape, axes)?;
        let g_kept = reshape(s, g, &kept)?;
        if self.kind == Kind::EuclideanNorm {
            let y_kept = reshape(&s.named("Reshape_1"), &ctx.outputs[0], &kept)?;
            return Ok(vec![Some(div(s, x, &div(s, &y_kept, &g_kept)?)?), None]);
        }
        let tiled = broadcast_to(s, &g_kept, &x_shape)?;
        let out = match self.kind {
            Kind::Mean => mean_grad(ctx, &tiled)?,
            Kind::Max | Kind::Min => {
                let y_kept = reshape(&s.named("Reshape_1"), &ctx.outputs[0], &kept)?;
                let eq = equal(s, x, &y_kept)?;
                let ind = cast(s, &eq, x.dtype())?;
                let sel = s
                    .op("Sum", "Sum")
                    .input(&ind)
                    .input(axes)
                    .attr("T", x.dtype())
                    .attr("Tidx", axes.dtype())
                    .attr("keep_dims", true)
                    .build_output()?;
                mul(s, &div(s, &ind, &sel)?, &tiled)?
            }
            _ => tiled,
        };
        Ok(vec![Some(out), None])
    }
}

/// TensorFlow's `math_ops.reduced_shape` for shapes known when the graph runs: the input's
/// shape `input_shape` (int32 vector) with 1 on the reduced `axes` (int32/int64, a scalar
/// or a vector, negative counting from the end), as
/// `DynamicStitch([Range(0, rank, 1), (axes + rank) % rank], [input_shape, Fill(Shape(axes), 1)])`.
pub(super) fn reduced_shape_dyn(s: &Scope, input_shape: &Output, axes: &Output) -> Result<Output> {
    let axes = if axes.dtype() == DType::Int32 { axes.clone() } else { cast(s, axes, DType::Int32)? };
    let rank = size(s, input_shape)?;
    let axes = floor_mod(s, &add(s, &axes, &rank)?, &rank)?;
    let axes_shape = shape(s, &axes)?;
    let one = constant(&s.named("ones/Const"), Tensor::scalar(1i32))?;
    let ones = fill(&s.named("ones"), &axes_shape, &one)?;
    let start = constant(&s.named("range/start"), Tensor::scalar(0i32))?;
    let delta = constant(&s.named("range/delta"), Tensor::scalar(1i32))?;
    let all = range_dyn(s, &start, &rank, &delta)?;
    dynamic_stitch(s, &[all, axes], &[input_shape.clone(), ones])
}

/// A prepared [`Reduce`]: its typed kernel function and `keep_dims`.
struct ReduceKernel {
    f: ReduceFn,
    keep_dims: bool,
}

impl Kernel for ReduceKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let axes = normalize_distinct_axes(&int_values(ctx.input(1))?, x.rank())?;
        Ok(vec![(self.f)(x, &axes, self.keep_dims)?])
    }
}

/// `ArgMax(input, dimension)`: the index of the largest value along one axis (the first
/// on ties), as attr `output_type` (int32 or int64, default int64). Errors:
/// `InvalidArgument` for another `output_type` (when prepared), not exactly one axis or an
/// empty dimension (when run).
pub struct ArgMax;

/// `ArgMin(input, dimension)`: the index of the smallest value along one axis (the first
/// on ties); as [`ArgMax`].
pub struct ArgMin;

/// ArgMax's `output_type` attr: int64 when absent.
fn output_type(node: &Node) -> Result<DType> {
    match node.attrs.get("output_type") {
        None => Ok(DType::Int64),
        Some(AttrValue::Type(t @ (DType::Int32 | DType::Int64))) => Ok(*t),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr output_type of '{}' ({}) must be int32 or int64, got {v:?}",
            node.name, node.op_type
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
        Ok(Box::new(ArgMaxKernel { output: output_type(node)?, min: false }))
    }
}

impl RegisteredOp for ArgMin {
    fn op_type(&self) -> &'static str {
        "ArgMin"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ArgMax.infer(ctx)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ArgMaxKernel { output: output_type(node)?, min: true }))
    }
}

/// A prepared `ArgMax` / `ArgMin` (`min`): its output dtype.
struct ArgMaxKernel {
    output: DType,
    min: bool,
}

impl Kernel for ArgMaxKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let axes = normalize_axes(&int_values(ctx.input(1))?, x.rank())?;
        let [axis] = axes[..] else {
            return Err(Error::invalid_argument(format!("{} takes exactly one axis", ctx.op_type())));
        };
        let v = x.to_f64_vec()?;
        let sh = x.shape();
        let (outer, n, inner) =
            (sh[..axis].iter().product::<usize>(), sh[axis], sh[axis + 1..].iter().product::<usize>());
        if n == 0 {
            return Err(Error::invalid_argument(format!("{} of an empty dimension", ctx.op_type())));
        }
        let mut idx = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            for i in 0..inner {
                let mut best = 0;
                for j in 1..n {
                    let (a, b) = (v[(o * n + j) * inner + i], v[(o * n + best) * inner + i]);
                    if (self.min && a < b) || (!self.min && a > b) {
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
    arg_reduce(s, "ArgMax", x, axis)
}

/// `tf.argmin(x, axis)`: op `ArgMin` (attrs `T`, `Tidx = int32`, `output_type = int64`),
/// default name `ArgMin`, axis const `ArgMin/dimension`; as [`argmax`].
pub fn argmin(s: &Scope, x: &Output, axis: i32) -> Result<Output> {
    arg_reduce(s, "ArgMin", x, axis)
}

/// `op_type` (`ArgMax` or `ArgMin`) of `x` over `axis`, named `op_type` with its axis const
/// `<op_type>/dimension`, int64 indices.
fn arg_reduce(s: &Scope, op_type: &str, x: &Output, axis: i32) -> Result<Output> {
    let (op, inner) = s.op_scope(op_type);
    let dim = constant(&inner.named("dimension"), Tensor::scalar(axis))?;
    op.op(op_type, op_type)
        .input(x)
        .input(&dim)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("output_type", DType::Int64)
        .build_output()
}
