//! Matrix products through the `matrixmultiply` crate (f32, f64).

use super::Num;
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, try_filled, DType, Tensor};

/// `a @ b` for rank-2 float32/float64 tensors, with TensorFlow's `transpose_a` and
/// `transpose_b`. Errors: `InvalidArgument` for other ranks/dtypes or mismatched inner
/// dimensions (naming both shapes).
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    if a.rank() != 2 || b.rank() != 2 {
        return Err(Error::invalid_argument(format!(
            "In[0] and In[1] must be matrices: {} and {}",
            fmt_dims(a.shape()),
            fmt_dims(b.shape())
        )));
    }
    let (ar, ac) = (a.shape()[0], a.shape()[1]);
    let (br, bc) = (b.shape()[0], b.shape()[1]);
    let (m, k) = if transpose_a { (ac, ar) } else { (ar, ac) };
    let (k2, n) = if transpose_b { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(Error::invalid_argument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} (transpose_a={transpose_a}, transpose_b={transpose_b})",
            fmt_dims(a.shape()),
            fmt_dims(b.shape())
        )));
    }
    // (row stride, column stride) of the logical operand
    let (rsa, csa) = if transpose_a { (1, ac as isize) } else { (ac as isize, 1) };
    let (rsb, csb) = if transpose_b { (1, bc as isize) } else { (bc as isize, 1) };
    let dims = Dims { m, k, n, rsa, csa, rsb, csb };
    match a.dtype() {
        DType::Float => gemm::<f32>(a, b, dims, matrixmultiply::sgemm),
        DType::Double => gemm::<f64>(a, b, dims, matrixmultiply::dgemm),
        other => Err(Error::invalid_argument(format!("MatMul has no kernel for dtype {other}"))),
    }
}

/// Sizes and (row, column) strides of a product `[m, k] @ [k, n]`.
#[derive(Clone, Copy)]
struct Dims {
    m: usize,
    k: usize,
    n: usize,
    rsa: isize,
    csa: isize,
    rsb: isize,
    csb: isize,
}

/// The signature of `matrixmultiply::sgemm` / `dgemm`.
type Gemm<T> =
    unsafe fn(usize, usize, usize, T, *const T, isize, isize, *const T, isize, isize, T, *mut T, isize, isize);

fn gemm<T: Num>(a: &Tensor, b: &Tensor, d: Dims, kernel: Gemm<T>) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    // [m, 0] @ [0, n] is m * n zeros from two empty inputs: checked and allocated fallibly
    let len = d.m.checked_mul(d.n).ok_or_else(|| {
        Error::invalid_argument(format!("MatMul output [{}, {}] has more elements than fit in memory", d.m, d.n))
    })?;
    let mut c = try_filled(T::ZERO, len, a.dtype())?;
    if d.m > 0 && d.n > 0 && d.k > 0 {
        // SAFETY: the slices hold m*k, k*n and m*n elements laid out with these strides.
        unsafe {
            kernel(
                d.m,
                d.k,
                d.n,
                T::ONE,
                x.as_ptr(),
                d.rsa,
                d.csa,
                y.as_ptr(),
                d.rsb,
                d.csb,
                T::ZERO,
                c.as_mut_ptr(),
                d.n as isize,
                1,
            )
        };
    }
    Tensor::new(&[d.m, d.n], c)
}
