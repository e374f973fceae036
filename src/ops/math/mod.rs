//! Math ops (TensorFlow's `math_ops`), one mechanism per shape of op:
//!
//! - [`binary`] holds the element-wise two-input mechanism ([`BinaryOp`]: broadcasting or
//!   same-shape, dtype dispatch, output dtype rule) and the broadcast-gradient helpers;
//! - [`arithmetic`] holds AddV2, Sub, Mul, RealDiv, Maximum, Minimum, FloorDiv, FloorMod, Neg, AddN;
//! - [`compare`] holds Greater, GreaterEqual, Less, LessEqual (bool output);
//! - [`equality`] holds Equal and NotEqual on every dtype; [`logical`] LogicalAnd,
//!   LogicalOr, LogicalNot; [`select`] SelectV2;
//! - [`rounding`] holds Abs, Sign, Floor, Ceil, Round, Rint; [`pow_diff`] Pow,
//!   SquaredDifference, DivNoNan; [`cumulative`] Cumsum, Cumprod; [`cumulative_logsumexp`](mod@cumulative_logsumexp) CumulativeLogsumexp; [`cross`](mod@cross) Cross; [`clip`] ClipByValue,
//!   L2Loss; [`top_k`](mod@top_k) TopKV2;
//! - [`unary`] holds the element-wise one-input mechanism ([`UnaryOp`]);
//! - [`functions`] holds Square, Sqrt, Rsqrt, Exp, Log, Reciprocal and their gradient helpers
//!   SqrtGrad, RsqrtGrad, ReciprocalGrad;
//! - [`special`] holds Erf, Erfc, Erfinv, Ndtri; [`elementary`] Log1p, Expm1, Sin, Cos, Tan;
//!   [`trig`] Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh; [`gamma`] Lgamma,
//!   Digamma, Polygamma, Zeta; [`xlogy`](mod@xlogy) Xdivy, Xlogy, Xlog1py; [`truncate`] TruncateDiv,
//!   TruncateMod; [`approx_equal`] ApproximateEqual; [`segment_reduce`](mod@segment_reduce) SegmentSum,
//!   SegmentMean, SegmentMax, SegmentMin, SegmentProd; [`unsorted_segment`]
//!   UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd; [`float_class`] IsFinite, IsNan, IsInf;
//! - [`reduction`] holds Sum, Mean, Max, Min, Prod, EuclideanNorm, All, Any, ArgMax and ArgMin (their
//!   builders `reduce_*` in `reduce_builders`);
//! - [`matmul`](mod@matmul) holds MatMul; [`batch_matmul`](mod@batch_matmul)
//!   BatchMatMulV2; [`einsum`](mod@einsum) Einsum.
//! - TensorFlow 1.x's forms: [`legacy`] holds Add (numbers and strings), Div, Inv, InvGrad;
//!   [`select_v1`](mod@select_v1) holds Select; [`batch_matmul_v1`](mod@batch_matmul_v1) holds
//!   BatchMatMul.
//!
//! The activations of `nn.rs` (Relu, Sigmoid, Tanh and their gradient ops) are tables of
//! the same [`UnaryOp`] and [`BinaryOp`].

pub mod approx_equal;
pub mod arithmetic;
pub mod batch_matmul;
pub mod batch_matmul_v1;
pub mod binary;
pub mod bincount;
pub mod cholesky;
pub mod clip;
pub mod compare;
pub mod complex;
pub mod cross;
pub mod cumulative;
pub mod cumulative_logsumexp;
pub mod einsum;
pub mod elementary;
pub mod equality;
pub mod float_class;
pub mod functions;
pub mod fused_matmul;
pub mod gamma;
pub mod legacy;
pub mod linalg;
pub mod logical;
pub mod matmul;
pub mod matrix_solve;
pub mod pow_diff;
mod prod_grad;
pub mod qr;
mod reduce_builders;
pub mod reduction;
pub mod rounding;
pub mod segment_reduce;
pub mod select;
pub mod select_v1;
pub mod sparse_matmul;
pub mod sparse_segment;
pub mod special;
pub mod svd;
pub mod top_k;
pub mod triangular_solve;
pub mod trig;
pub mod truncate;
pub mod unary;
pub mod unsorted_segment;
pub mod xlogy;

use super::{GradCtx, RegisteredOp};
use crate::error::Result;
use crate::graph::Output;

pub use approx_equal::approximate_equal;
pub use arithmetic::{add, add_n, div, floor_div, floor_mod, maximum, minimum, mul, neg, sub};
pub use batch_matmul::batch_matmul;
pub use batch_matmul_v1::batch_matmul_v1;
pub use binary::{BinaryFns, BinaryOp};
pub use cholesky::{cholesky, cholesky_grad};
pub use clip::{clip_by_value, l2_loss};
pub use compare::{equal, greater, greater_equal, less, less_equal};
pub use complex::{angle, complex, complex_abs, conj, imag, real};
pub use cross::cross;
pub use cumulative::{cumprod, cumprod_dyn, cumsum, cumsum_dyn};
pub use cumulative_logsumexp::{cumulative_logsumexp, cumulative_logsumexp_dyn};
pub use einsum::einsum;
pub use elementary::{cos, expm1, log1p, sin, tan};
pub use equality::not_equal;
pub use float_class::{is_finite, is_inf, is_nan};
pub use functions::{exp, log, reciprocal, rsqrt, sqrt, square};
pub use gamma::{digamma, lgamma, polygamma, zeta};
pub use legacy::{add_v1, div_v1, inv};
pub use linalg::{log_matrix_determinant, matrix_determinant, matrix_inverse};
pub use logical::{logical_and, logical_not, logical_or};
pub use matmul::{matmul, matmul_t};
pub use matrix_solve::matrix_solve;
pub use pow_diff::{div_no_nan, pow, squared_difference};
pub use qr::qr;
pub use reduce_builders::{
    reduce_all, reduce_any, reduce_euclidean_norm, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum,
};
pub use reduction::{argmax, argmin};
pub use rounding::{abs, ceil, floor, rint, round, sign};
pub use segment_reduce::segment_reduce;
pub use select::where_v2;
pub use select_v1::select_v1;
pub use sparse_matmul::sparse_tensor_dense_mat_mul;
pub use sparse_segment::{sparse_segment, sparse_segment_grad};
pub use special::{erf, erfc, erfinv, ndtri};
pub use svd::svd;
pub use top_k::top_k;
pub use triangular_solve::matrix_triangular_solve;
pub use trig::{acos, acosh, asin, asinh, atan, atan2, atanh, cosh, sinh};
pub use truncate::{truncate_div, truncate_mod};
pub use unary::{UnaryFns, UnaryOp};
pub use unsorted_segment::unsorted_segment_reduce;
pub use xlogy::{xdivy, xlog1py, xlogy};

pub(crate) use binary::binary_op;
pub(crate) use functions::grad_of_quadratic_grad;
pub(crate) use unary::unary_op;

/// A gradient function: the gradients of an op's inputs from its [`GradCtx`].
pub(crate) type GradFn = fn(&GradCtx) -> Result<Vec<Option<Output>>>;

/// Every math op definition, for the registry.
pub(super) fn defs() -> impl Iterator<Item = &'static &'static dyn RegisteredOp> {
    [
        arithmetic::DEFS,
        compare::DEFS,
        functions::DEFS,
        special::DEFS,
        elementary::DEFS,
        float_class::DEFS,
        reduction::DEFS,
        matmul::DEFS,
        fused_matmul::DEFS,
        binary::DEFS,
        equality::DEFS,
        linalg::DEFS,
        cholesky::DEFS,
        triangular_solve::DEFS,
        matrix_solve::DEFS,
        qr::DEFS,
        svd::DEFS,
        sparse_matmul::DEFS,
        sparse_segment::DEFS,
        logical::DEFS,
        select::DEFS,
        rounding::DEFS,
        pow_diff::DEFS,
        batch_matmul::DEFS,
        einsum::DEFS,
        cumulative::DEFS,
        cross::DEFS,
        cumulative_logsumexp::DEFS,
        clip::DEFS,
        top_k::DEFS,
        legacy::DEFS,
        select_v1::DEFS,
        batch_matmul_v1::DEFS,
        trig::DEFS,
        gamma::DEFS,
        xlogy::DEFS,
        truncate::DEFS,
        approx_equal::DEFS,
        segment_reduce::DEFS,
        unsorted_segment::DEFS,
        complex::DEFS,
    ]
    .into_iter()
    .flatten()
}
