//! Math ops: element-wise binary ops with broadcasting (AddV2, Sub, Mul, RealDiv,
//! Maximum, Minimum), comparisons (Equal, Greater, GreaterEqual, Less, LessEqual),
//! MatMul, AddN and the gradient helper BroadcastGradientArgs. Unary ops are in
//! `unary.rs`, reductions in `reduction.rs`.

use super::array::{cast, constant, int_values, reshape, shape};
use super::kernels::{broadcast_binary, broadcast_shape, matmul as matmul_kernel};
use super::{GradCtx, InferCtx, KernelCtx, OpDef};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn OpDef] = &[
    &Binary::ADD,
    &Binary::SUB,
    &Binary::MUL,
    &Binary::DIV,
    &Binary::MAXIMUM,
    &Binary::MINIMUM,
    &MatMul,
    &BroadcastGradientArgs,
    &AddN,
    &Equal,
    &Compare::GREATER,
    &Compare::GREATER_EQUAL,
    &Compare::LESS,
    &Compare::LESS_EQUAL,
];

/// Infers the broadcast shape of two partial shapes; `InvalidArgument` with both shapes.
pub(crate) fn broadcast_partial(a: &Shape, b: &Shape) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::unknown());
    };
    let n = da.len().max(db.len());
    (0..n)
        .map(|i| {
            let x = if i + da.len() >= n { da[i + da.len() - n] } else { Some(1) };
            let y = if i + db.len() >= n { db[i + db.len() - n] } else { Some(1) };
            Ok(match (x, y) {
                (Some(x), Some(y)) if x == y => Some(x),
                (Some(1), y) => y,
                (x, Some(1)) => x,
                (Some(x), Some(y)) => {
                    return Err(Error::invalid_argument(format!(
                        "Dimensions must be equal, but are {x} and {y} for shapes {a} and {b}"
                    )))
                }
                (None, Some(y)) => Some(y),
                (Some(x), None) => Some(x),
                (None, None) => None,
            })
        })
        .collect()
}

/// The element-wise binary ops that share broadcasting and their inference.
#[derive(Clone, Copy)]
pub struct Binary {
    op_type: &'static str,
}

impl Binary {
    const ADD: Binary = Binary { op_type: "AddV2" };
    const SUB: Binary = Binary { op_type: "Sub" };
    const MUL: Binary = Binary { op_type: "Mul" };
    const DIV: Binary = Binary { op_type: "RealDiv" };
    const MAXIMUM: Binary = Binary { op_type: "Maximum" };
    const MINIMUM: Binary = Binary { op_type: "Minimum" };
}

impl OpDef for Binary {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        Ok(vec![(t, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = crate::dispatch_numeric!(a.dtype(), self.op_type, T => match self.op_type {
            "AddV2" => broadcast_binary::<T, T>(a, b, |x, y| x + y),
            "Sub" => broadcast_binary::<T, T>(a, b, |x, y| x - y),
            "Mul" => broadcast_binary::<T, T>(a, b, |x, y| x * y),
            // NaN propagates from either side
            "Maximum" => broadcast_binary::<T, T>(a, b, |x, y| if is_nan(x) || x >= y { x } else { y }),
            "Minimum" => broadcast_binary::<T, T>(a, b, |x, y| if is_nan(x) || x <= y { x } else { y }),
            _ => {
                if !a.dtype().is_floating() && b.as_slice::<T>()?.contains(&<T as super::kernels::Num>::ZERO) {
                    return Err(Error::invalid_argument("Integer division by zero"));
                }
                broadcast_binary::<T, T>(a, b, |x, y| x / y)
            }
        })?;
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, y) = (&ctx.inputs[0], &ctx.inputs[1]);
        let g = ctx.grad(0)?;
        let (gx, gy) = match self.op_type {
            "AddV2" => (g.clone(), g),
            "Sub" => (g.clone(), neg(s, &g)?),
            "Mul" => (mul(s, &g, y)?, mul(s, x, &g)?),
            // TensorFlow's _MaximumMinimumGrad: g goes to x where the selector holds (ties
            // to x), to y elsewhere; masks as Cast(GreaterEqual/LessEqual) * g
            "Maximum" | "Minimum" => {
                let (xsel, ysel) = if self.op_type == "Maximum" {
                    (greater_equal(s, x, y)?, less(s, x, y)?)
                } else {
                    (less_equal(s, x, y)?, greater(s, x, y)?)
                };
                let gx = mul(s, &g, &cast(s, &xsel, g.dtype())?)?;
                let gy = mul(&s.named("mul_1"), &g, &cast(&s.named("Cast_1"), &ysel, g.dtype())?)?;
                (gx, gy)
            }
            _ => {
                let gx = div(s, &g, y)?;
                let gy = mul(s, &g, &div(s, &div(s, &neg(s, x)?, y)?, y)?)?;
                (gx, gy)
            }
        };
        let (gx, gy) = reduce_to_inputs(s, x, y, gx, gy)?;
        Ok(vec![Some(gx), Some(gy)])
    }
}

/// True for NaN (the only value unordered with itself).
fn is_nan<T: PartialOrd>(x: T) -> bool {
    x.partial_cmp(&x).is_none()
}

/// Sums broadcast gradients back to the shapes of `x` and `y` (TensorFlow's pattern:
/// `Shape`, `BroadcastGradientArgs`, `Sum`, `Reshape`), skipped when both shapes are
/// known and equal.
pub(crate) fn reduce_to_inputs(s: &Scope, x: &Output, y: &Output, gx: Output, gy: Output) -> Result<(Output, Output)> {
    let (sx, sy) = (x.shape(), y.shape());
    if sx.is_fully_defined() && sx == sy {
        return Ok((gx, gy));
    }
    let shx = shape(s, x)?;
    let shy = shape(&s.named("Shape_1"), y)?;
    let args = s
        .op("BroadcastGradientArgs", "BroadcastGradientArgs")
        .input(&shx)
        .input(&shy)
        .attr("T", DType::Int32)
        .build()?;
    let rx = args.output(0)?;
    let ry = args.output(1)?;
    let gx = reshape(s, &sum_over(s, &gx, &rx)?, &shx)?;
    let gy = reshape(&s.named("Reshape_1"), &sum_over(&s.named("Sum_1"), &gy, &ry)?, &shy)?;
    Ok((gx, gy))
}

fn sum_over(s: &Scope, x: &Output, axes: &Output) -> Result<Output> {
    s.op("Sum", "Sum")
        .input(x)
        .input(axes)
        .attr("T", x.dtype())
        .attr("Tidx", DType::Int32)
        .attr("keep_dims", false)
        .build_output()
}

macro_rules! binary_fn {
    ($fname:ident, $ty:expr, $default:expr, $doc:expr) => {
        #[doc = $doc]
        pub fn $fname(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
            s.op($ty, $default).input(x).input(y).attr("T", x.dtype()).build_output()
        }
    };
}
binary_fn!(add, "AddV2", "add", "`x + y` in TensorFlow's Python (`AddV2`, default name `add`; `tf.add` would name it `Add`), broadcasting; dtypes must match.");
binary_fn!(sub, "Sub", "sub", "`tf.subtract(x, y)` (`Sub`, default name `sub`), broadcasting.");
binary_fn!(mul, "Mul", "mul", "`tf.multiply(x, y)` (`Mul`, default name `mul`), broadcasting.");
binary_fn!(div, "RealDiv", "truediv", "`tf.truediv(x, y)` (`RealDiv`, default name `truediv`), broadcasting.");
binary_fn!(
    maximum,
    "Maximum",
    "Maximum",
    "`tf.maximum(x, y)`: op `Maximum`, default name `Maximum`; element-wise larger value with \
     broadcasting (NaN propagates). float32, float64, int32, int64; dtypes must match and \
     incompatible shapes are `InvalidArgument` naming both. The gradient goes to `x` where \
     `x >= y`, else to `y`."
);
binary_fn!(
    minimum,
    "Minimum",
    "Minimum",
    "`tf.minimum(x, y)`: op `Minimum`, default name `Minimum`; element-wise smaller value with \
     broadcasting (NaN propagates). float32, float64, int32, int64; dtypes must match and \
     incompatible shapes are `InvalidArgument` naming both. The gradient goes to `x` where \
     `x <= y`, else to `y`."
);
binary_fn!(
    greater,
    "Greater",
    "Greater",
    "`tf.greater(x, y)`: op `Greater`, default name `Greater`; bool `x > y` with broadcasting. \
     float32, float64, int32, int64; dtypes must match; incompatible shapes are `InvalidArgument`."
);
binary_fn!(
    greater_equal,
    "GreaterEqual",
    "GreaterEqual",
    "`tf.greater_equal(x, y)`: op `GreaterEqual`, default name `GreaterEqual`; bool `x >= y` \
     with broadcasting. float32, float64, int32, int64; dtypes must match."
);
binary_fn!(
    less,
    "Less",
    "Less",
    "`tf.less(x, y)`: op `Less`, default name `Less`; bool `x < y` with broadcasting. \
     float32, float64, int32, int64; dtypes must match."
);
binary_fn!(
    less_equal,
    "LessEqual",
    "LessEqual",
    "`tf.less_equal(x, y)`: op `LessEqual`, default name `LessEqual`; bool `x <= y` with \
     broadcasting. float32, float64, int32, int64; dtypes must match."
);

/// `MatMul`: `a @ b` for matrices, attrs `transpose_a`, `transpose_b` (float32/float64).
pub struct MatMul;
impl OpDef for MatMul {
    fn op_type(&self) -> &'static str {
        "MatMul"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        let ta = ctx.node.attr_bool_or("transpose_a", false)?;
        let tb = ctx.node.attr_bool_or("transpose_b", false)?;
        let (a, b) = (ctx.shape(0), ctx.shape(1));
        if a.rank().is_some_and(|r| r != 2) || b.rank().is_some_and(|r| r != 2) {
            return Err(Error::invalid_argument(format!("Shape must be rank 2 but is rank {a} and {b}")));
        }
        let (m, k) = if ta { (a.dim(1), a.dim(0)) } else { (a.dim(0), a.dim(1)) };
        let (k2, n) = if tb { (b.dim(1), b.dim(0)) } else { (b.dim(0), b.dim(1)) };
        if let (Some(k), Some(k2)) = (k, k2) {
            if k != k2 {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {k} and {k2} for MatMul with input shapes {a}, {b}"
                )));
            }
        }
        Ok(vec![(t, Shape::partial(&[m, n]))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let ta = ctx.node.attr_bool_or("transpose_a", false)?;
        let tb = ctx.node.attr_bool_or("transpose_b", false)?;
        Ok(vec![matmul_kernel(ctx.input(0), ctx.input(1), ta, tb)?])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let ta = ctx.node.attr_bool_or("transpose_a", false)?;
        let tb = ctx.node.attr_bool_or("transpose_b", false)?;
        let (a, b) = (&ctx.inputs[0], &ctx.inputs[1]);
        let g = ctx.grad(0)?;
        let s1 = s.named("MatMul_1");
        let mm_a = |s: &Scope, x: &Output, y: &Output, ta, tb| matmul_op(s, x, y, (ta, tb), (true, false));
        let mm_b = |s: &Scope, x: &Output, y: &Output, ta, tb| matmul_op(s, x, y, (ta, tb), (false, true));
        let (ga, gb) = match (ta, tb) {
            (false, false) => (mm_a(s, &g, b, false, true)?, mm_b(&s1, a, &g, true, false)?),
            (false, true) => (mm_a(s, &g, b, false, false)?, mm_b(&s1, &g, a, true, false)?),
            (true, false) => (mm_a(s, b, &g, false, true)?, mm_b(&s1, a, &g, false, false)?),
            (true, true) => (mm_a(s, b, &g, true, true)?, mm_b(&s1, &g, a, true, true)?),
        };
        Ok(vec![Some(ga), Some(gb)])
    }
}

/// `tf.matmul(a, b)`.
pub fn matmul(s: &Scope, a: &Output, b: &Output) -> Result<Output> {
    matmul_t(s, a, b, false, false)
}

/// `tf.matmul(a, b, transpose_a, transpose_b)`.
pub fn matmul_t(s: &Scope, a: &Output, b: &Output, transpose_a: bool, transpose_b: bool) -> Result<Output> {
    matmul_op(s, a, b, (transpose_a, transpose_b), (false, false))
}

/// A `MatMul` with its `grad_a`/`grad_b` attrs (TensorFlow 2.21 marks the products its
/// gradient makes: `grad_a` on the one computing d/da, `grad_b` on d/db).
fn matmul_op(s: &Scope, a: &Output, b: &Output, transpose: (bool, bool), grad: (bool, bool)) -> Result<Output> {
    s.op("MatMul", "MatMul")
        .input(a)
        .input(b)
        .attr("T", a.dtype())
        .attr("transpose_a", transpose.0)
        .attr("transpose_b", transpose.1)
        .attr("grad_a", grad.0)
        .attr("grad_b", grad.1)
        .build_output()
}

/// `BroadcastGradientArgs`: for shapes `s0`, `s1` (1-d int32), the axes each input was
/// broadcast along, for summing gradients back.
pub struct BroadcastGradientArgs;
impl OpDef for BroadcastGradientArgs {
    fn op_type(&self) -> &'static str {
        "BroadcastGradientArgs"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        Ok(vec![(t, Shape::partial(&[None])), (t, Shape::partial(&[None]))])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let a: Vec<usize> = int_values(ctx.input(0))?.iter().map(|&d| d.max(0) as usize).collect();
        let b: Vec<usize> = int_values(ctx.input(1))?.iter().map(|&d| d.max(0) as usize).collect();
        let out = broadcast_shape(&a, &b)?;
        let n = out.len();
        let axes = |s: &[usize]| -> Vec<i32> {
            (0..n)
                .filter(|&i| {
                    let d = if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
                    d == 1 && out[i] != 1 || i + s.len() < n
                })
                .map(|i| i as i32)
                .collect()
        };
        let dt = ctx.input(0).dtype();
        let mk = |v: Vec<i32>| -> Result<Tensor> {
            let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            Tensor::from_f64(dt, &[f.len()], &f)
        };
        Ok(vec![mk(axes(&a))?, mk(axes(&b))?])
    }
}

/// `AddN`: the sum of N tensors of one shape (attr `N`), used to add up gradients.
pub struct AddN;
impl OpDef for AddN {
    fn op_type(&self) -> &'static str {
        "AddN"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("AddN needs at least one input"));
        }
        let t = ctx.same_dtypes()?;
        let mut shape = ctx.shape(0).clone();
        for i in 1..ctx.inputs.len() {
            shape = shape.merge(ctx.shape(i)).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "AddN inputs must have one shape: {} vs {}",
                    ctx.shape(0),
                    ctx.shape(i)
                ))
            })?;
        }
        Ok(vec![(t, shape)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let mut acc = ctx.input(0).clone();
        for x in &ctx.inputs[1..] {
            if x.shape() != acc.shape() {
                return Err(Error::invalid_argument("AddN inputs must have one shape"));
            }
            acc = crate::dispatch_numeric!(acc.dtype(), "AddN", T => broadcast_binary::<T, T>(&acc, x, |a, b| a + b))?;
        }
        Ok(vec![acc])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![ctx.grads[0].clone(); ctx.inputs.len()])
    }
}

/// `tf.add_n(xs)`.
pub fn add_n(s: &Scope, xs: &[Output]) -> Result<Output> {
    let t = xs.first().map(|x| x.dtype()).unwrap_or(DType::Float);
    s.op("AddN", "AddN").inputs(xs).attr("N", xs.len() as i64).attr("T", t).build_output()
}

/// `tf.negative(x)`: op `Neg` (`-x`), default name `Neg`. Same dtype (float32, float64,
/// int32, int64) and shape as `x`; other dtypes are `InvalidArgument` at build time.
pub fn neg(s: &Scope, x: &Output) -> Result<Output> {
    s.op("Neg", "Neg").input(x).attr("T", x.dtype()).build_output()
}

/// `tf.reduce_sum(x, axes, keep_dims)`; `axes = None` reduces all dimensions
/// (needs a known rank). Op `Sum`, default name `Sum`.
pub fn reduce_sum(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    reduction(s, "Sum", "Sum", x, axes, keep_dims)
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

/// `Equal`: element-wise `x == y` with broadcasting; output bool.
pub struct Equal;
impl OpDef for Equal {
    fn op_type(&self) -> &'static str {
        "Equal"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.same_dtypes()?;
        Ok(vec![(DType::Bool, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        if a.dtype() == DType::Bool {
            return Ok(vec![broadcast_binary::<bool, bool>(a, b, |x, y| x == y)?]);
        }
        Ok(vec![crate::dispatch_numeric!(a.dtype(), "Equal", T => broadcast_binary::<T, bool>(a, b, |x, y| x == y))?])
    }
}

/// `tf.equal(x, y)` (`Equal`, bool output).
pub fn equal(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("Equal", "Equal").input(x).input(y).attr("T", x.dtype()).attr("incompatible_shape_error", true).build_output()
}

/// The ordering comparisons `Greater`, `GreaterEqual`, `Less`, `LessEqual`: element-wise
/// with broadcasting, bool output (float32, float64, int32, int64 inputs).
pub struct Compare {
    op_type: &'static str,
}

impl Compare {
    const GREATER: Compare = Compare { op_type: "Greater" };
    const GREATER_EQUAL: Compare = Compare { op_type: "GreaterEqual" };
    const LESS: Compare = Compare { op_type: "Less" };
    const LESS_EQUAL: Compare = Compare { op_type: "LessEqual" };
}

impl OpDef for Compare {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.same_dtypes()?;
        ctx.check_dtype(0, &[DType::Float, DType::Double, DType::Int32, DType::Int64])?;
        Ok(vec![(DType::Bool, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let out = crate::dispatch_numeric!(a.dtype(), self.op_type, T => match self.op_type {
            "Greater" => broadcast_binary::<T, bool>(a, b, |x, y| x > y),
            "GreaterEqual" => broadcast_binary::<T, bool>(a, b, |x, y| x >= y),
            "Less" => broadcast_binary::<T, bool>(a, b, |x, y| x < y),
            _ => broadcast_binary::<T, bool>(a, b, |x, y| x <= y),
        })?;
        Ok(vec![out])
    }
}
