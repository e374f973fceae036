//! Numeric helpers shared by the CPU kernels: broadcasting element-wise maps,
//! reductions and matrix products.

mod batch_matmul;
mod broadcast;
pub mod complex;
mod epilogue;
mod gemm_dims;
mod gemm_rten;
mod matmul;
mod num;
pub mod parallel;
mod reduce;
mod scratch;
pub mod special_fns;

pub use batch_matmul::batch_matmul;
pub use broadcast::{
    broadcast_binary, broadcast_binary_into, broadcast_indices, broadcast_shape, unary_map, unary_map_into,
};
pub(crate) use epilogue::read_fused_ops;
pub use epilogue::{Activation, Epilogue, EpilogueArgs, FusedArgs, Norm};
pub(crate) use gemm_dims::Dims;
pub(crate) use gemm_rten::{PackedB, PackedWeights};
pub use matmul::matmul;
pub(crate) use matmul::{gemm, gemm_uninit_packed, matmul_fused, matmul_packed, Gemm};
pub use num::{Float, Num};
pub use reduce::{normalize_axes, normalize_distinct_axes, reduce, reduced_shape};
pub(crate) use scratch::with_scratch;

/// Dispatches `$body` over the numeric dtypes float32, float64, int32 and int64, binding
/// the element type to `$t`; other dtypes give `InvalidArgument` naming `$what`. With
/// `small_ints` before `$t`, also int8, int16, uint8 and uint16 (for the ops TensorFlow's
/// CPU kernels register them for: resizes, reductions, cumulative sums, top-k).
macro_rules! dispatch_numeric {
    ($dtype:expr, $what:expr, small_ints, $t:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::Int8 => {
                type $t = i8;
                $body
            }
            $crate::tensor::DType::Int16 => {
                type $t = i16;
                $body
            }
            $crate::tensor::DType::UInt8 => {
                type $t = u8;
                $body
            }
            $crate::tensor::DType::UInt16 => {
                type $t = u16;
                $body
            }
            other => $crate::dispatch_numeric!(other, $what, $t => $body),
        }
    };
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

/// The dtypes [`dispatch_numeric!`] with `small_ints` takes.
pub(crate) const NUMBERS_AND_SMALL_INTS: &[crate::tensor::DType] = &[
    crate::tensor::DType::Float,
    crate::tensor::DType::Double,
    crate::tensor::DType::Int32,
    crate::tensor::DType::Int64,
    crate::tensor::DType::Int8,
    crate::tensor::DType::Int16,
    crate::tensor::DType::UInt8,
    crate::tensor::DType::UInt16,
];

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
