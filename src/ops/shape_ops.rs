//! What remains of the former shape-ops file: `Prod` (TensorFlow's `math_ops.reduce_prod`)
//! and `FloorMod`/`FloorDiv`, with their builders. The shape-manipulating ops moved to
//! `ops/array/` (one file per op family).

use super::array::int_values;
use super::kernels::{broadcast_binary, normalize_axes, reduce, Num};
use super::math::{broadcast_partial, mul, neg, reduce_to_inputs};
use super::{GradCtx, InferCtx, KernelCtx, OpDef};
use crate::error::{Error, Result};
use crate::graph::{Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn OpDef] = &[&Prod, &FloorBinary::MOD, &FloorBinary::DIV];

const INTS: &[DType] = &[DType::Int32, DType::Int64];
const NUMBERS: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

// ---------------------------------------------------------------- Prod

/// `Prod(input, reduction_indices)`: product over axes (attrs `T`, `Tidx`, `keep_dims`),
/// float32, float64, int32, int64. No gradient (TensorFlow's needs Cumprod).
pub struct Prod;
impl OpDef for Prod {
    fn op_type(&self) -> &'static str {
        "Prod"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, NUMBERS)?;
        ctx.check_dtype(1, INTS)?;
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        Ok(vec![(t, super::reduction::infer_reduced(ctx.shape(0), ctx.const_input(1), keep)?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let keep = ctx.node.attr_bool_or("keep_dims", false)?;
        let axes = normalize_axes(&int_values(ctx.input(1))?, x.rank())?;
        let out = crate::dispatch_numeric!(x.dtype(), "Prod", T => reduce::<T>(x, &axes, keep, T::ONE, |a, b| a * b)?);
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Err(Error::unimplemented(format!(
            "the gradient of Prod ('{}') needs Cumprod, which tensorgraph does not have yet",
            ctx.node.name
        )))
    }
}

/// `tf.reduce_prod(x, axes, keep_dims)`: op `Prod` (attrs `T`, `Tidx = int32`,
/// `keep_dims`), default name `Prod`, axes const `Prod/reduction_indices`; `axes = None`
/// reduces all (needs a known rank). float32/float64/int32/int64. Errors:
/// `InvalidArgument` for an axis out of range. No gradient (`Unimplemented`).
pub fn reduce_prod(s: &Scope, x: &Output, axes: Option<&[i32]>, keep_dims: bool) -> Result<Output> {
    super::math::reduction(s, "Prod", "Prod", x, axes, keep_dims)
}

// ---------------------------------------------------------------- FloorMod / FloorDiv

/// `FloorMod(x, y)` and `FloorDiv(x, y)` with broadcasting, as Python's `%` and `//`:
/// the remainder has the sign of `y`; integer division by zero is `InvalidArgument`.
pub struct FloorBinary {
    op_type: &'static str,
}
impl FloorBinary {
    const MOD: FloorBinary = FloorBinary { op_type: "FloorMod" };
    const DIV: FloorBinary = FloorBinary { op_type: "FloorDiv" };
}

fn int_floor_mod<T: Num>(x: T, y: T) -> T {
    let r = x - (x / y) * y;
    if r != T::ZERO && ((r < T::ZERO) != (y < T::ZERO)) {
        r + y
    } else {
        r
    }
}
fn int_floor_div<T: Num>(x: T, y: T) -> T {
    let q = x / y;
    if q * y != x && ((x < T::ZERO) != (y < T::ZERO)) {
        q - T::ONE
    } else {
        q
    }
}

impl OpDef for FloorBinary {
    fn op_type(&self) -> &'static str {
        self.op_type
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.same_dtypes()?;
        ctx.check_dtype(0, NUMBERS)?;
        Ok(vec![(t, broadcast_partial(ctx.shape(0), ctx.shape(1))?)])
    }
    fn compute(&self, ctx: &KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let m = self.op_type == "FloorMod";
        let out = match a.dtype() {
            DType::Float if m => broadcast_binary::<f32, f32>(a, b, |x, y| {
                let r = x % y;
                if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                    r + y
                } else {
                    r
                }
            })?,
            DType::Double if m => broadcast_binary::<f64, f64>(a, b, |x, y| {
                let r = x % y;
                if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                    r + y
                } else {
                    r
                }
            })?,
            DType::Float => broadcast_binary::<f32, f32>(a, b, |x, y| (x / y).floor())?,
            DType::Double => broadcast_binary::<f64, f64>(a, b, |x, y| (x / y).floor())?,
            DType::Int32 | DType::Int64 => {
                if b.to_f64_vec()?.contains(&0.0) {
                    return Err(Error::invalid_argument(format!(
                        "Integer division by zero in {} of {} by {}",
                        self.op_type,
                        fmt_dims(a.shape()),
                        fmt_dims(b.shape())
                    )));
                }
                if a.dtype() == DType::Int32 {
                    if m {
                        broadcast_binary::<i32, i32>(a, b, |x, y| if y == -1 { 0 } else { int_floor_mod(x, y) })?
                    } else {
                        broadcast_binary::<i32, i32>(a, b, |x, y| {
                            if y == -1 {
                                x.wrapping_neg()
                            } else {
                                int_floor_div(x, y)
                            }
                        })?
                    }
                } else if m {
                    broadcast_binary::<i64, i64>(a, b, |x, y| if y == -1 { 0 } else { int_floor_mod(x, y) })?
                } else {
                    broadcast_binary::<i64, i64>(
                        a,
                        b,
                        |x, y| if y == -1 { x.wrapping_neg() } else { int_floor_div(x, y) },
                    )?
                }
            }
            other => return Err(Error::invalid_argument(format!("{} has no kernel for dtype {other}", self.op_type))),
        };
        Ok(vec![out])
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let s = ctx.scope;
        let (x, y) = (&ctx.inputs[0], &ctx.inputs[1]);
        if self.op_type == "FloorDiv" {
            // TensorFlow: FloorDiv has no gradient
            return Ok(vec![None, None]);
        }
        // TensorFlow's _FloorModGrad: (g, -g * floor_div(x, y)), reduced to the input shapes
        let g = ctx.grad(0)?;
        let gy = mul(s, &g, &neg(s, &floor_div(s, x, y)?)?)?;
        let (gx, gy) = reduce_to_inputs(s, x, y, g, gy)?;
        Ok(vec![Some(gx), Some(gy)])
    }
}

/// `tf.math.floormod(x, y)` (Python's `x % y`): op `FloorMod`, default name `FloorMod`,
/// broadcasting; float32/float64/int32/int64 of one dtype. The result has the sign of `y`
/// (`-7 % 3 = 2`, `7 % -3 = -2`). Errors: `InvalidArgument` naming both shapes when they do
/// not broadcast, and when run with an integer `y` of 0 (float gives NaN).
pub fn floor_mod(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("FloorMod", "FloorMod").input(x).input(y).attr("T", x.dtype()).build_output()
}

/// `tf.math.floordiv(x, y)` (Python's `x // y`): op `FloorDiv`, default name `floordiv`,
/// broadcasting, rounding toward negative infinity. Errors as [`floor_mod`]. No gradient.
pub fn floor_div(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    s.op("FloorDiv", "floordiv").input(x).input(y).attr("T", x.dtype()).build_output()
}
