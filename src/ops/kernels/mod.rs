//! Numeric helpers shared by the CPU kernels: broadcasting element-wise maps,
//! reductions and matrix products.

mod batch_matmul;
mod broadcast;
mod epilogue;
mod matmul;
mod num;
pub mod parallel;
mod reduce;
mod scratch;

pub use batch_matmul::batch_matmul;
pub use broadcast::{
    broadcast_binary, broadcast_binary_into, broadcast_indices, broadcast_shape, unary_map, unary_map_into,
};
pub(crate) use epilogue::read_fused_ops;
pub use epilogue::{Activation, Epilogue};
pub use matmul::matmul;
pub(crate) use matmul::{gemm, gemm_uninit, matmul_fused, Dims, Gemm};
pub use num::{Float, Num};
pub use reduce::{normalize_axes, normalize_distinct_axes, reduce, reduced_shape};
pub(crate) use scratch::with_scratch;

/// Dispatches `$body` over the numeric dtypes float32, float64, int32 and int64, binding
/// the element type to `$t`; other dtypes give `InvalidArgument` naming `$what`.
macro_rules! dispatch_numeric {
    ($dtype:expr, $what:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::Float => {
                type $t = f32;
                $body
            }
            $crate::tensor::DType::Double => {
                type $t = f64;
                $body
            }
            $crate::tensor::DType::Int32 => {
                type $t = i32;
                $body
            }
            $crate::tensor::DType::Int64 => {
                type $t = i64;
                $body
            }
            other => {
                return Err($crate::error::Error::invalid_argument(format!("{} has no kernel for dtype {other}", $what)))
            }
        }
    };
}
pub(crate) use dispatch_numeric;

/// As [`dispatch_numeric!`] for float32 and float64 only.
macro_rules! dispatch_float {
    ($dtype:expr, $what:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::Float => {
                type $t = f32;
                $body
            }
            $crate::tensor::DType::Double => {
                type $t = f64;
                $body
            }
            other => {
                return Err($crate::error::Error::invalid_argument(format!("{} has no kernel for dtype {other}", $what)))
            }
        }
    };
}
pub(crate) use dispatch_float;
