//! Fallible allocation of tensor buffers. A size that comes from input (a shape fed at
//! run time, a `Fill` or `Tile` argument, a file header) is multiplied with checked
//! arithmetic, and memory that cannot be had is `ResourceExhausted` (TensorFlow's "OOM
//! when allocating tensor"), never an aborted process.

use super::DType;
use crate::error::{Code, Error, Result};
use std::any::TypeId;

/// `ResourceExhausted` for `n` elements of `dtype` that cannot be allocated, with the
/// size in bytes (`elem_bytes` each) when it fits in a `usize`.
pub fn oom_error(dtype: DType, n: usize, elem_bytes: usize) -> Error {
    let bytes = match n.checked_mul(elem_bytes) {
        Some(b) => format!("{b} bytes"),
        None => format!("more than {} bytes", usize::MAX),
    };
    Error::new(Code::ResourceExhausted, format!("OOM when allocating a {dtype} tensor of {n} elements ({bytes})"))
}

/// An empty vector with room for `n` elements, for a tensor of `dtype`. A large float32
/// buffer comes from the pool of buffers that dropped tensors left (`tensor/pool.rs`)
/// when one fits; it may have room for up to a quarter more.
/// Errors: `ResourceExhausted` naming the dtype, element count and bytes when the memory
/// cannot be had (or the byte size overflows).
pub fn try_with_capacity<T: 'static>(n: usize, dtype: DType) -> Result<Vec<T>> {
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        if let Some(v) = super::pool::take(n) {
            let mut v = std::mem::ManuallyDrop::new(v);
            // SAFETY: `T` is `f32` (same type id), so this is the same vector, retyped
            return Ok(unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<T>(), v.len(), v.capacity()) });
        }
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| oom_error(dtype, n, std::mem::size_of::<T>()))?;
    Ok(v)
}

/// `n` copies of `value`, for a tensor of `dtype`. Errors: as [`try_with_capacity`].
pub fn try_filled<T: Clone + 'static>(value: T, n: usize, dtype: DType) -> Result<Vec<T>> {
    let mut v = try_with_capacity(n, dtype)?;
    v.resize(n, value);
    Ok(v)
}

/// The items of `iter` (of known length) collected into a vector allocated up front,
/// for a tensor of `dtype`. Errors: as [`try_with_capacity`].
pub fn try_collect<T: 'static>(iter: impl ExactSizeIterator<Item = T>, dtype: DType) -> Result<Vec<T>> {
    let mut v = try_with_capacity(iter.len(), dtype)?;
    v.extend(iter);
    Ok(v)
}

/// Checks that `n` elements of `dtype` can be allocated, before a kernel allocates them
/// in another way. Errors: as [`try_with_capacity`].
pub fn check_alloc(dtype: DType, n: usize) -> Result<()> {
    let elem = dtype.size().unwrap_or(std::mem::size_of::<Vec<u8>>());
    let bytes = n.checked_mul(elem).filter(|&b| b <= isize::MAX as usize).ok_or_else(|| oom_error(dtype, n, elem))?;
    Vec::<u8>::new().try_reserve_exact(bytes).map_err(|_| oom_error(dtype, n, elem))
}

/// The product of `shape`. Errors: `InvalidArgument` naming the shape when it overflows
/// `usize` (no memory could hold it).
pub fn checked_num_elements(shape: &[usize]) -> Result<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(|| {
        Error::invalid_argument(format!("shape {} has more elements than fit in memory", super::fmt_dims(shape)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        let e = try_with_capacity::<f32>(1 << 60, DType::Float).unwrap_err();
        assert_eq!(e.code, Code::ResourceExhausted);
        assert_eq!(
            e.message,
            "OOM when allocating a float32 tensor of 1152921504606846976 elements (4611686018427387904 bytes)"
        );
        let e = try_filled(0u8, usize::MAX, DType::UInt8).unwrap_err();
        assert_eq!(
            e.message,
            format!("OOM when allocating a uint8 tensor of {} elements ({} bytes)", usize::MAX, usize::MAX)
        );
        let e = check_alloc(DType::Double, usize::MAX / 2).unwrap_err();
        assert!(e.message.ends_with(&format!("(more than {} bytes)", usize::MAX)), "{e}");
        assert_eq!(try_filled(7i32, 3, DType::Int32).unwrap(), vec![7, 7, 7]);
        assert_eq!(try_collect([1u8, 2].into_iter(), DType::UInt8).unwrap().capacity(), 2);
        let e = checked_num_elements(&[usize::MAX, 2]).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert_eq!(e.message, format!("shape [{}, 2] has more elements than fit in memory", usize::MAX));
    }
}
