//! Math ops (TensorFlow's `math_ops`), one mechanism per shape of op:
//!
//! - [`binary`] holds the element-wise two-input mechanism ([`BinaryOp`]: broadcasting or
//!   same-shape, dtype dispatch, output dtype rule) and the broadcast-gradient helpers;
//! - [`arithmetic`] holds AddV2, Sub, Mul, RealDiv, Maximum, Minimum, FloorDiv, FloorMod, Neg, AddN;
//! - [`compare`] holds Equal, Greater, GreaterEqual, Less, LessEqual (bool output);
//! - [`unary`] holds the element-wise one-input mechanism ([`UnaryOp`]);
//! - [`functions`] holds Square, Sqrt, Rsqrt, Exp, Log, Reciprocal and their gradient helpers
//!   SqrtGrad, RsqrtGrad, ReciprocalGrad;
//! - [`reduction`] holds Sum, Mean, Max, Prod and ArgMax;
//! - [`matmul`](mod@matmul) holds MatMul;
//! - TensorFlow 1.x's forms: [`legacy`] holds Add (numbers and strings), Div, Inv, InvGrad;
//!   [`select_v1`] holds Select; [`batch_matmul_v1`] holds BatchMatMul.
//!
//! The activations of `nn.rs` (Relu, Sigmoid, Tanh and their gradient ops) are tables of
//! the same [`UnaryOp`] and [`BinaryOp`].

pub mod arithmetic;
pub mod batch_matmul_v1;
pub mod binary;
pub mod compare;
pub mod functions;
pub mod legacy;
pub mod matmul;
pub mod reduction;
pub mod select_v1;
pub mod unary;

use super::{GradCtx, RegisteredOp};
use crate::error::Result;
use crate::graph::Output;

pub use arithmetic::{add, add_n, div, floor_div, floor_mod, maximum, minimum, mul, neg, sub};
pub use batch_matmul_v1::batch_matmul;
pub use binary::{BinaryFns, BinaryOp};
pub use compare::{equal, greater, greater_equal, less, less_equal};
pub use functions::{exp, log, reciprocal, rsqrt, sqrt, square};
pub use legacy::{add_v1, div_v1, inv};
pub use matmul::{matmul, matmul_t};
pub use reduction::{argmax, reduce_max, reduce_mean, reduce_prod, reduce_sum};
pub use select_v1::select_v1;
pub use unary::{UnaryFns, UnaryOp};

pub(crate) use binary::binary_op;
pub(crate) use functions::grad_of_quadratic_grad;
pub(crate) use unary::unary_op;

/// A gradient function: the gradients of an op's inputs from its [`GradCtx`].
pub(crate) type GradFn = fn(&GradCtx) -> Result<Vec<Option<Output>>>;

/// Every math op definition, for the registry.
pub(super) fn defs() -> impl Iterator<Item = &'static &'static dyn RegisteredOp> {
    arithmetic::DEFS
        .iter()
        .chain(compare::DEFS)
        .chain(functions::DEFS)
        .chain(reduction::DEFS)
        .chain(matmul::DEFS)
        .chain(binary::DEFS)
        .chain(legacy::DEFS)
        .chain(select_v1::DEFS)
        .chain(batch_matmul_v1::DEFS)
}
