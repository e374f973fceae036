//! Arithmetic: AddV2, Sub, Mul, RealDiv, Maximum, Minimum, FloorDiv and FloorMod (element-
//! wise with broadcasting, [`BinaryOp`] tables), Neg ([`UnaryOp`]) and AddN.

use super::binary::{binary_op, conj_if_complex, no_gradient, reduce_to_inputs, BinaryFns, BinaryOp};
use super::compare::{greater, greater_equal, less, less_equal};
use super::unary::{unary_op, UnaryOp};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::array::cast;
use crate::ops::kernels::{complex as cx, Num};
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] =
    &[&ADD, &SUB, &MUL, &REAL_DIV, &MAXIMUM, &MINIMUM, &FLOOR_DIV, &FLOOR_MOD, &NEG, &AddN];

/// `AddV2`: `x + y` (float32, float64, int32, int64, int8, int16, uint8, uint16, complex64,
/// complex128; integers wrap). Gradient `(g, g)` summed back to the input shapes.
pub static ADD: BinaryOp = BinaryOp::broadcasting(
    "AddV2",
    crate::binary_fns!(complex: cx::add, float: |x, y| x + y, int: |x, y| x.wrapping_add(y), small_ints),
    |c| broadcast_grads(c, |_, g| Ok((g.clone(), g))),
)
.dtypes_checked_when_prepared();

/// `Sub`: `x - y` (the dtypes of `AddV2`; integers wrap). Gradient `(g, -g)`.
pub static SUB: BinaryOp = BinaryOp::broadcasting(
    "Sub",
    crate::binary_fns!(complex: cx::sub, float: |x, y| x - y, int: |x, y| x.wrapping_sub(y), small_ints),
    |c| broadcast_grads(c, |s, g| Ok((g.clone(), neg(s, &g)?))),
)
.dtypes_checked_when_prepared();

/// `Mul`: `x * y` (the dtypes of `AddV2`; integers wrap). Gradient (TensorFlow's
/// `_MulGrad`) `(g * conj(y), conj(x) * g)` (`Conj` only for complex dtypes).
pub static MUL: BinaryOp = BinaryOp::broadcasting(
    "Mul",
    crate::binary_fns!(complex: cx::mul, float: |x, y| x * y, int: |x, y| x.wrapping_mul(y), small_ints),
    |c| {
        broadcast_grads(c, |s, g| {
            let (x, y) = (conj_if_complex(s, &c.inputs[0])?, conj_if_complex(s, &c.inputs[1])?);
            Ok((mul(s, &g, &y)?, mul(s, &x, &g)?))
        })
    },
)
.dtypes_checked_when_prepared();

/// `RealDiv`: `x / y` for float32, float64, complex64 and complex128 (complex by Smith's
/// algorithm). Like TensorFlow, which registers no integer kernel for it (its schema allows
/// integers), an integer `RealDiv` imports but is refused when run; [`div`] casts integers
/// to floats first, as `tf.truediv` does. Gradient (TensorFlow's `_RealDivGrad`) `(g / y,
/// g * (-x / y / y))` with `x` and `y` conjugated when complex.
pub static REAL_DIV: BinaryOp =
    BinaryOp::broadcasting("RealDiv", crate::binary_fns!(complex: cx::div, float: |x, y| x / y), quotient_grad)
        .dtypes_checked_when_prepared();

/// The gradient of `x / y` (TensorFlow's `_RealDivGrad` and `_DivGrad`): `(g / y,
/// g * (-x / y / y))` with `RealDiv`, `x` and `y` conjugated first when complex, summed
/// back to the input shapes.
pub(crate) fn quotient_grad(c: &GradCtx) -> Result<Vec<Option<Output>>> {
    broadcast_grads(c, |s, g| {
        let (x, y) = (conj_if_complex(s, &c.inputs[0])?, conj_if_complex(s, &c.inputs[1])?);
        let gx = div(s, &g, &y)?;
        let gy = mul(s, &g, &div(s, &div(s, &neg(s, &x)?, &y)?, &y)?)?;
        Ok((gx, gy))
    })
}

/// `Maximum`: the larger of `x` and `y`; NaN propagates from either side. Gradient: `g`
/// to `x` where `x >= y`, else to `y`.
pub static MAXIMUM: BinaryOp = BinaryOp::broadcasting(
    "Maximum",
    crate::binary_fns!(float: |x, y| if x.is_nan() || x >= y { x } else { y }, int: |x, y| x.max(y), small_ints),
    |c| max_min_grad(c, greater_equal, less),
)
.dtypes_checked_when_prepared();

/// `Minimum`: the smaller of `x` and `y`; NaN propagates from either side. Gradient: `g`
/// to `x` where `x <= y`, else to `y`.
pub static MINIMUM: BinaryOp = BinaryOp::broadcasting(
    "Minimum",
    crate::binary_fns!(float: |x, y| if x.is_nan() || x <= y { x } else { y }, int: |x, y| x.min(y), small_ints),
    |c| max_min_grad(c, less_equal, greater),
)
.dtypes_checked_when_prepared();

/// `FloorDiv`: `x // y` as Python, rounding toward negative infinity (the dtypes of
/// `AddV2`; an integer 0
/// divisor is `InvalidArgument`; `MIN // -1` wraps). No gradient, as in TensorFlow.
pub static FLOOR_DIV: BinaryOp = BinaryOp::broadcasting(
    "FloorDiv",
    BinaryFns {
        i8: crate::__map2!(i8 => same, |x: i8, y: i8| if y == -1 { x.wrapping_neg() } else { int_floor_div(x, y) }),
        i16: crate::__map2!(i16 => same, |x: i16, y: i16| if y == -1 { x.wrapping_neg() } else { int_floor_div(x, y) }),
        u8: crate::__map2!(u8 => same, int_floor_div),
        u16: crate::__map2!(u16 => same, int_floor_div),
        ..crate::binary_fns!(
            float: |x, y| (x / y).floor(),
            int: |x, y| if y == -1 { x.wrapping_neg() } else { int_floor_div(x, y) }
        )
    },
    no_gradient,
)
.nonzero_int_divisor();

/// `FloorMod`: `x % y` as Python, the remainder taking the sign of `y` (the dtypes of
/// `AddV2`; an integer 0
/// divisor is `InvalidArgument`; a float one gives NaN). Gradient (TensorFlow's
/// `_FloorModGrad`): `(g, -g * floor_div(x, y))`.
pub static FLOOR_MOD: BinaryOp = BinaryOp::broadcasting(
    "FloorMod",
    BinaryFns {
        i8: crate::__map2!(i8 => same, |x: i8, y: i8| if y == -1 { 0 } else { int_floor_mod(x, y) }),
        i16: crate::__map2!(i16 => same, |x: i16, y: i16| if y == -1 { 0 } else { int_floor_mod(x, y) }),
        u8: crate::__map2!(u8 => same, int_floor_mod),
        u16: crate::__map2!(u16 => same, int_floor_mod),
        ..crate::binary_fns!(
        float: |x, y| {
                    let r = x % y;
                    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                        r + y
                    } else {
                        r
                    }
                },
                int: |x, y| if y == -1 { 0 } else { int_floor_mod(x, y) }
            )
    },
    |c| {
        let (x, y) = (&c.inputs[0], &c.inputs[1]);
        broadcast_grads(c, |s, g| {
            let gy = mul(s, &g, &neg(s, &floor_div(s, x, y)?)?)?;
            Ok((g, gy))
        })
    },
)
.nonzero_int_divisor();

/// `Neg`: `-x` (float32, float64, int32, int64, int8, int16, complex64, complex128, as
/// TensorFlow's CPU kernels; integers wrap). Gradient `-g`.
pub static NEG: UnaryOp = UnaryOp::new(
    "Neg",
    crate::unary_fns!(complex: cx::neg, float: |x| -x, int: |x| x.wrapping_neg(), signed_small_ints),
    |c| Ok(vec![Some(neg(c.scope, &c.grad(0)?)?)]),
);

/// The gradients of a broadcasting op: `f(scope, g)` gives those for the broadcast
/// shape, then summed back to each input's shape.
fn broadcast_grads(
    c: &GradCtx,
    f: impl FnOnce(&Scope, Output) -> Result<(Output, Output)>,
) -> Result<Vec<Option<Output>>> {
    let s = c.scope;
    let (gx, gy) = f(s, c.grad(0)?)?;
    let (gx, gy) = reduce_to_inputs(s, &c.inputs[0], &c.inputs[1], gx, gy)?;
    Ok(vec![Some(gx), Some(gy)])
}

/// TensorFlow's `_MaximumMinimumGrad`: `g` goes to `x` where `x_selected(x, y)` holds
/// (ties to `x`), to `y` where `y_selected(x, y)` does; masks as `Cast(selector) * g`.
fn max_min_grad(
    c: &GradCtx,
    x_selected: fn(&Scope, &Output, &Output) -> Result<Output>,
    y_selected: fn(&Scope, &Output, &Output) -> Result<Output>,
) -> Result<Vec<Option<Output>>> {
    let (x, y) = (&c.inputs[0], &c.inputs[1]);
    broadcast_grads(c, |s, g| {
        let (xsel, ysel) = (x_selected(s, x, y)?, y_selected(s, x, y)?);
        let gx = mul(s, &g, &cast(s, &xsel, g.dtype())?)?;
        let gy = mul(&s.named("mul_1"), &g, &cast(&s.named("Cast_1"), &ysel, g.dtype())?)?;
        Ok((gx, gy))
    })
}

/// Integer `x % y` with the sign of `y` (`y` not 0 or -1).
fn int_floor_mod<T: Num>(x: T, y: T) -> T {
    let r = x - (x / y) * y;
    if r != T::ZERO && ((r < T::ZERO) != (y < T::ZERO)) {
        r + y
    } else {
        r
    }
}

/// Integer `x / y` rounded toward negative infinity (`y` not 0 or -1).
fn int_floor_div<T: Num>(x: T, y: T) -> T {
    let q = x / y;
    if q * y != x && ((x < T::ZERO) != (y < T::ZERO)) {
        q - T::ONE
    } else {
        q
    }
}

/// `x + y` in TensorFlow's Python: op `AddV2`, default name `add` (`tf.add` would name it
/// `Add`); NumPy broadcasting. float32, float64, int8, int16, int32, int64, uint8, uint16
/// (integers wrap), complex64, complex128; dtypes must match. Errors: `InvalidArgument` naming both shapes when they do not broadcast (at build
/// time when known, else when run); other dtypes are refused when the session runs it.
pub fn add(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "AddV2", "add", x, y)
}

/// `tf.subtract(x, y)`: op `Sub`, default name `sub`; broadcasting, dtypes and errors as [`add`].
pub fn sub(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Sub", "sub", x, y)
}

/// `tf.multiply(x, y)`: op `Mul`, default name `mul`; broadcasting, dtypes and errors as [`add`].
pub fn mul(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Mul", "mul", x, y)
}

/// `tf.truediv(x, y)` (Python's `x / y`): op `RealDiv`, default name `truediv`, with
/// broadcasting. Floats divide in their own dtype (division by 0 gives inf or NaN).
/// Integers are first cast as TensorFlow does, int8/int16/uint8/uint16 to float32 and
/// int32/int64/uint32/uint64 to float64 (ops `truediv/Cast`, `truediv/Cast_1`, then
/// `truediv`), so `[7, -7] / [2, 2]` is the float64 `[3.5, -3.5]`: TensorFlow has no
/// integer `RealDiv` kernel.
///
/// Errors: `InvalidArgument` when `x` and `y` differ in dtype (TensorFlow's "`x` and `y`
/// must have the same dtype"), for a dtype `RealDiv` does not allow (bool, string; the
/// schema's message), and naming both shapes when they do not broadcast (at build time
/// when known, else when run). Complex64 and complex128 divide as complex numbers.
pub fn div(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    let t = x.dtype();
    if y.dtype() != t {
        return Err(Error::invalid_argument(format!(
            "`x` and `y` must have the same dtype, got {t} != {} (truediv of {} and {}); cast one of them with ops::cast",
            y.dtype(),
            x.name(),
            y.name()
        )));
    }
    let Some(float) = truediv_float_dtype(t) else {
        return binary_op(s, "RealDiv", "truediv", x, y);
    };
    let (op, inner) = s.op_scope("truediv");
    let xf = cast(&inner, x, float)?;
    let yf = cast(&inner, y, float)?;
    op.op("RealDiv", "truediv").input(&xf).input(&yf).attr("T", float).build_output()
}

/// The float dtype `tf.truediv` casts an integer dtype to (`None`: divides as it is).
fn truediv_float_dtype(t: DType) -> Option<DType> {
    match t {
        DType::Int8 | DType::Int16 | DType::UInt8 | DType::UInt16 => Some(DType::Float),
        DType::Int32 | DType::Int64 | DType::UInt32 | DType::UInt64 => Some(DType::Double),
        _ => None,
    }
}

/// `tf.maximum(x, y)`: op `Maximum`, default name `Maximum`; element-wise larger value with
/// broadcasting (NaN propagates). float32, float64, int8, int16, int32, int64, uint8, uint16;
/// dtypes must match and incompatible shapes are `InvalidArgument` naming both. The
/// gradient goes to `x` where `x >= y`, else to `y`.
pub fn maximum(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Maximum", "Maximum", x, y)
}

/// `tf.minimum(x, y)`: op `Minimum`, default name `Minimum`; element-wise smaller value with
/// broadcasting (NaN propagates). float32, float64, int8, int16, int32, int64, uint8, uint16;
/// dtypes must match and incompatible shapes are `InvalidArgument` naming both. The
/// gradient goes to `x` where `x <= y`, else to `y`.
pub fn minimum(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Minimum", "Minimum", x, y)
}

/// `tf.math.floormod(x, y)` (Python's `x % y`): op `FloorMod`, default name `FloorMod`,
/// broadcasting; float32/float64/int32/int64 of one dtype. The result has the sign of `y`
/// (`-7 % 3 = 2`, `7 % -3 = -2`). Errors: `InvalidArgument` naming both shapes when they do
/// not broadcast, and when run with an integer `y` of 0 (float gives NaN).
pub fn floor_mod(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "FloorMod", "FloorMod", x, y)
}

/// `tf.math.floordiv(x, y)` (Python's `x // y`): op `FloorDiv`, default name `floordiv`,
/// broadcasting, rounding toward negative infinity. Errors as [`floor_mod`]. No gradient.
pub fn floor_div(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "FloorDiv", "floordiv", x, y)
}

/// `tf.negative(x)`: op `Neg` (`-x`), default name `Neg`. Same dtype (float32, float64,
/// int8, int16, int32, int64, complex64, complex128) and shape as `x`; other dtypes are
/// `InvalidArgument` at build time.
pub fn neg(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Neg", "Neg", x)
}

/// `AddN(inputs)`: the sum of N tensors of one dtype and shape (attrs `N`, `T`), as
/// TensorFlow adds up gradients. float32, float64, int32, int64, complex64, complex128, and TensorLists
/// (`variant`: element by element, as TensorFlow's `TensorListBinaryAdd`). Errors:
/// `InvalidArgument` for no input or shapes that differ (at build time when known).
/// Gradient: the incoming gradient to every input.
pub struct AddN;
impl RegisteredOp for AddN {
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
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.outputs.first().map(|o| o.0).unwrap_or(DType::Float);
        if t == DType::Variant {
            return Ok(Box::new(FnKernel(crate::ops::tensor_list::add_n_lists)));
        }
        if t == DType::Complex128 {
            return Ok(Box::new(FnKernel(add_n_complex::<f64>)));
        }
        if t == DType::Complex64 {
            return Ok(Box::new(FnKernel(add_n_complex::<f32>)));
        }
        let f = crate::dispatch_numeric!(t, "AddN", T => add_n_kernel::<T>);
        Ok(Box::new(FnKernel(f)))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![ctx.grads[0].clone(); ctx.inputs.len()])
    }
}

fn add_n_kernel<T: Num>(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let first = ctx.input(0);
    let mut acc = first.as_slice::<T>()?.to_vec();
    for x in &ctx.inputs[1..] {
        if x.shape() != first.shape() {
            return Err(Error::invalid_argument("AddN inputs must have one shape"));
        }
        for (a, &b) in acc.iter_mut().zip(x.as_slice::<T>()?) {
            *a += b;
        }
    }
    Ok(vec![Tensor::new(first.shape(), acc)?])
}

/// `AddN`'s kernel for complex64 (`T = f32`) and complex128 (`T = f64`).
fn add_n_complex<T: cx::Part>(ctx: &mut KernelCtx) -> Result<Vec<Tensor>>
where
    [T; 2]: crate::tensor::Element,
{
    let first = ctx.input(0);
    let mut acc = first.as_slice::<[T; 2]>()?.to_vec();
    for x in &ctx.inputs[1..] {
        if x.shape() != first.shape() {
            return Err(Error::invalid_argument("AddN inputs must have one shape"));
        }
        for (a, &b) in acc.iter_mut().zip(x.as_slice::<[T; 2]>()?) {
            *a = cx::add(*a, b);
        }
    }
    Ok(vec![Tensor::new(first.shape(), acc)?])
}

/// `tf.add_n(xs)`: op `AddN`, default name `AddN`; the sum of `xs` (one dtype and shape).
pub fn add_n(s: &Scope, xs: &[Output]) -> Result<Output> {
    let t = xs.first().map(|x| x.dtype()).unwrap_or(DType::Float);
    s.op("AddN", "AddN").inputs(xs).attr("N", xs.len() as i64).attr("T", t).build_output()
}
