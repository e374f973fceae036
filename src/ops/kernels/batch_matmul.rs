//! Batched matrix products with broadcast batch dimensions (TensorFlow's
//! `BatchMatMulV2`): float32/float64 through the matrix kernels of `matmul.rs` (`rten-gemm` or `matrixmultiply`), int32/int64 by a plain loop.

use super::gemm_dims::Dims;
use super::matmul::gemm;
use super::{broadcast_indices, broadcast_shape, Num};
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, DType, Tensor};

/// `a @ b` over the last two dimensions, the leading (batch) dimensions broadcast; `adj_a`
/// / `adj_b` transpose the matrices first (real dtypes: the adjoint is the transpose).
/// float32, float64, int32, int64. Errors: `InvalidArgument` for a rank below 2, batch
/// dimensions that do not broadcast, inner dimensions that differ, or another dtype.
pub fn batch_matmul(a: &Tensor, b: &Tensor, adj_a: bool, adj_b: bool) -> Result<Tensor> {
    for (i, t) in [a, b].iter().enumerate() {
        if t.rank() < 2 {
            return Err(Error::invalid_argument(format!("In[{i}] ndims must be >= 2: {}", t.rank())));
        }
    }
    let (ra, rb) = (a.rank(), b.rank());
    let (ba, bb) = (&a.shape()[..ra - 2], &b.shape()[..rb - 2]);
    let batch = broadcast_shape(ba, bb).map_err(|_| {
        Error::invalid_argument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {}",
            fmt_dims(a.shape()),
            fmt_dims(b.shape())
        ))
    })?;
    let (ar, ac) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    let (br, bc) = (b.shape()[rb - 2], b.shape()[rb - 1]);
    let (m, k) = if adj_a { (ac, ar) } else { (ar, ac) };
    let (k2, n) = if adj_b { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(Error::invalid_argument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} (adj_x={adj_a}, adj_y={adj_b})",
            fmt_dims(a.shape()),
            fmt_dims(b.shape())
        )));
    }
    let (ia, ib) = (broadcast_indices(ba, &batch), broadcast_indices(bb, &batch));
    let d = Dims {
        m,
        k,
        n,
        rsa: if adj_a { 1 } else { ac as isize },
        csa: if adj_a { ac as isize } else { 1 },
        rsb: if adj_b { 1 } else { bc as isize },
        csb: if adj_b { bc as isize } else { 1 },
    };
    let mut shape = batch;
    shape.extend([m, n]);
    let pairs: Vec<(usize, usize)> = ia.into_iter().zip(ib).map(|(i, j)| (i * ar * ac, j * br * bc)).collect();
    match a.dtype() {
        DType::Float => run::<f32>(a, b, &shape, &pairs, d, Some(gemm::<f32>)),
        DType::Double => run::<f64>(a, b, &shape, &pairs, d, Some(gemm::<f64>)),
        DType::Int32 => run::<i32>(a, b, &shape, &pairs, d, None),
        DType::Int64 => run::<i64>(a, b, &shape, &pairs, d, None),
        other => Err(Error::invalid_argument(format!("BatchMatMulV2 has no kernel for dtype {other}"))),
    }
}

/// A float product `c = a @ b` on slices ([`gemm`]).
type GemmSlices<T> = fn(Dims, &[T], &[T], &mut [T]);

/// One product per `(offset in a, offset in b)` pair, into consecutive `m * n` blocks.
fn run<T: Num>(
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    pairs: &[(usize, usize)],
    d: Dims,
    gemm: Option<GemmSlices<T>>,
) -> Result<Tensor> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    let mut c = vec![T::ZERO; pairs.len() * d.m * d.n];
    if d.m == 0 || d.n == 0 || d.k == 0 {
        return Tensor::new(shape, c);
    }
    for (out, &(oa, ob)) in c.chunks_mut(d.m * d.n).zip(pairs) {
        let (pa, pb) = (&x[oa..], &y[ob..]);
        match gemm {
            Some(gemm) => gemm(d, pa, pb, out),
            None => {
                for i in 0..d.m {
                    for j in 0..d.n {
                        let mut acc = T::ZERO;
                        for l in 0..d.k {
                            let u = pa[i * d.rsa as usize + l * d.csa as usize];
                            let v = pb[l * d.rsb as usize + j * d.csb as usize];
                            acc += u * v;
                        }
                        out[i * d.n + j] = acc;
                    }
                }
            }
        }
    }
    Tensor::new(shape, c)
}
