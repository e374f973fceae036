//! TensorFlow 1.x's arithmetic op types that TensorFlow 2.21 still registers and old graphs
//! hold: `Add` (which also concatenates strings), `Div` (C++ division per dtype), `Inv`
//! and `InvGrad` (the old names of `Reciprocal` and `ReciprocalGrad`).

use super::arithmetic::quotient_grad;
use super::binary::{binary_op, reduce_to_inputs, BinaryOp};
use super::functions::grad_of_quadratic_grad;
use super::unary::{unary_op, UnaryOp};
use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::kernels::{broadcast_shape, complex as cx};
use crate::ops::{FnKernel, GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Add, &DIV, &INV, &INV_GRAD];

/// `Add`'s numeric part: `x + y` with broadcasting (integers wrap), gradient `(g, g)` summed
/// back to the input shapes (TensorFlow's `_AddGrad`, shared with `AddV2`).
static ADD_NUMERIC: BinaryOp = BinaryOp::broadcasting(
    "Add",
    crate::binary_fns!(complex: cx::add, float: |x, y| x + y, int: |x, y| x.wrapping_add(y)),
    |c| {
        let g = c.grad(0)?;
        let (gx, gy) = reduce_to_inputs(c.scope, &c.inputs[0], &c.inputs[1], g.clone(), g)?;
        Ok(vec![Some(gx), Some(gy)])
    },
)
.dtypes_checked_when_prepared();

/// `Add(x, y)`: TensorFlow 1.x's `tf.add` (`AddV2` replaced it): `x + y` with NumPy
/// broadcasting for float32, float64, int32, int64 (integers wrap), complex64 and complex128,
/// and for strings the concatenation `x ‖ y` element by element (`DT_STRING`, as
/// TensorFlow's `Add` kernel). Other dtypes TensorFlow allows (float16, int8, ...) import, and are refused with
/// `InvalidArgument` when the session prepares the node. Errors: `InvalidArgument` naming
/// both shapes when they do not broadcast. Gradient as `AddV2`'s (none for strings).
pub struct Add;
impl RegisteredOp for Add {
    fn op_type(&self) -> &'static str {
        "Add"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ADD_NUMERIC.infer(ctx)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        if node.attr_type("T")? == DType::String {
            return Ok(Box::new(FnKernel(add_strings)));
        }
        ADD_NUMERIC.prepare(node)
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        if ctx.inputs[0].dtype() == DType::String {
            return Ok(vec![None, None]);
        }
        ADD_NUMERIC.gradient(ctx)
    }
}

/// The string kernel of `Add`: each output element is `x`'s bytes then `y`'s, broadcast.
fn add_strings(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let (a, b) = (ctx.input(0), ctx.input(1));
    let (Some(xa), Some(xb)) = (strings(a), strings(b)) else {
        return Err(Error::invalid_argument(format!("Add of strings got a {} and a {} tensor", a.dtype(), b.dtype())));
    };
    let out = broadcast_shape(a.shape(), b.shape())?;
    let rank = out.len();
    // row-major strides of each input aligned to the output, 0 along broadcast dimensions
    let strides = |shape: &[usize]| -> Vec<usize> {
        let mut st = vec![0; rank];
        let mut acc = 1;
        for i in (0..shape.len()).rev() {
            let o = i + rank - shape.len();
            st[o] = if shape[i] == 1 { 0 } else { acc };
            acc *= shape[i];
        }
        st
    };
    let (sa, sb) = (strides(a.shape()), strides(b.shape()));
    let total: usize = out.iter().product();
    let mut v = Vec::with_capacity(total);
    for flat in 0..total {
        let (mut rem, mut ia, mut ib) = (flat, 0, 0);
        for d in (0..rank).rev() {
            let i = rem % out[d];
            rem /= out[d];
            ia += i * sa[d];
            ib += i * sb[d];
        }
        let mut s = xa[ia].clone();
        s.extend_from_slice(&xb[ib]);
        v.push(s);
    }
    Ok(vec![Tensor::strings(&out, v)?])
}

/// The elements of a string tensor.
fn strings(t: &Tensor) -> Option<&[Vec<u8>]> {
    match t.storage() {
        crate::tensor::Storage::Str(v) => Some(v),
        _ => None,
    }
}

/// `Div(x, y)`: TensorFlow 1.x's `tf.div` before Python 2 division semantics moved into
/// Python: `x / y` with broadcasting. Floats divide (by 0: inf or NaN); int32 and int64
/// divide as C++ does, truncating toward zero (`-7 / 2 = -3`, `7 / -2 = -3`; `MIN / -1`
/// wraps to `MIN`), and an integer divisor holding 0 is `InvalidArgument` ("Integer division
/// by zero") when run; complex64 and complex128 divide as complex numbers. Gradient
/// (TensorFlow's `_DivGrad`): `(g / y, g * (-x / y / y))` summed back to the input shapes,
/// with `RealDiv` (and `x`, `y` conjugated when complex).
pub static DIV: BinaryOp = BinaryOp::broadcasting(
    "Div",
    crate::binary_fns!(complex: cx::div, float: |x, y| x / y, int: |x, y| x.wrapping_div(y)),
    quotient_grad,
)
.nonzero_int_divisor()
.dtypes_checked_when_prepared();

/// `Inv(x)`: `1 / x`, TensorFlow 1.x's name of `Reciprocal`; float32 and float64 (the CPU
/// kernels TensorFlow registers are the floating and complex ones; other dtypes are
/// `InvalidArgument` at build time). Gradient (TensorFlow's `_InvGrad`):
/// `ReciprocalGrad(y, g)`.
pub static INV: UnaryOp = UnaryOp::new("Inv", crate::unary_fns!(float: |x| 1.0 / x), |c| {
    Ok(vec![Some(binary_op(c.scope, "ReciprocalGrad", "ReciprocalGrad", &c.outputs[0], &c.grad(0)?)?)])
});

/// `InvGrad(y, dy)`: `-y * y * dy` (0 where `dy` is 0), the gradient of `y = Inv(x)`
/// (TensorFlow 1.x's name of `ReciprocalGrad`), rounded as TensorFlow's kernel; float32 and
/// float64, inputs of one shape. Gradient (TensorFlow's
/// `_InvGradGrad`): `(g * -2 * dy * y, ReciprocalGrad(y, g))`.
pub static INV_GRAD: BinaryOp = BinaryOp::same_shape(
    "InvGrad",
    crate::binary_fns!(float: |y, dy| if dy == 0.0 { 0.0 } else { -y * y * dy }),
    |c| grad_of_quadratic_grad(c, "ReciprocalGrad"),
);

/// `tf.raw_ops.Add(x, y)` (TensorFlow 1.x's `tf.add`): op `Add`, default name `Add`. Dtypes
/// and errors as [`Add`]; the strings of two string tensors are concatenated.
pub fn add_v1(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Add", "Add", x, y)
}

/// `tf.raw_ops.Div(x, y)` (TensorFlow 1.x's `tf.div`): op `Div`, default name `Div`; integer
/// division truncates toward zero. Dtypes and errors as [`DIV`].
pub fn div_v1(s: &Scope, x: &Output, y: &Output) -> Result<Output> {
    binary_op(s, "Div", "Div", x, y)
}

/// `tf.raw_ops.Inv(x)` (TensorFlow 1.x's `tf.inv`): op `Inv`, default name `Inv`; `1 / x`
/// for float32/float64 (`InvalidArgument` at build time for other dtypes).
pub fn inv(s: &Scope, x: &Output) -> Result<Output> {
    unary_op(s, "Inv", "Inv", x)
}
