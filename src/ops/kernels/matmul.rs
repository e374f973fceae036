//! Matrix products through the `matrixmultiply` crate (f32, f64).

use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, DType, Tensor};

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
    match a.dtype() {
        DType::Float => {
            let (x, y) = (a.as_slice::<f32>()?, b.as_slice::<f32>()?);
            let mut c = vec![0f32; m * n];
            if m > 0 && n > 0 && k > 0 {
                // SAFETY: the slices hold m*k, k*n and m*n elements laid out with these strides.
                unsafe {
                    matrixmultiply::sgemm(
                        m,
                        k,
                        n,
                        1.0,
                        x.as_ptr(),
                        rsa,
                        csa,
                        y.as_ptr(),
                        rsb,
                        csb,
                        0.0,
                        c.as_mut_ptr(),
                        n as isize,
                        1,
                    )
                };
            }
            Tensor::new(&[m, n], c)
        }
        DType::Double => {
            let (x, y) = (a.as_slice::<f64>()?, b.as_slice::<f64>()?);
            let mut c = vec![0f64; m * n];
            if m > 0 && n > 0 && k > 0 {
                // SAFETY: as above.
                unsafe {
                    matrixmultiply::dgemm(
                        m,
                        k,
                        n,
                        1.0,
                        x.as_ptr(),
                        rsa,
                        csa,
                        y.as_ptr(),
                        rsb,
                        csb,
                        0.0,
                        c.as_mut_ptr(),
                        n as isize,
                        1,
                    )
                };
            }
            Tensor::new(&[m, n], c)
        }
        other => Err(Error::invalid_argument(format!("MatMul has no kernel for dtype {other}"))),
    }
}
