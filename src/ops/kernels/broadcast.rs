//! NumPy-style broadcasting for element-wise ops (as TensorFlow's `BCast`).

use crate::error::{Error, Result};
use crate::tensor::{checked_num_elements, fmt_dims, try_with_capacity, Element, Tensor};

/// The broadcast shape of `a` and `b`. Errors: `InvalidArgument` with both shapes when
/// they are incompatible.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::invalid_argument(format!("Incompatible shapes: {} vs. {}", fmt_dims(a), fmt_dims(b))));
        };
    }
    Ok(out)
}

/// Strides of `shape` (row-major) aligned to an output of rank `rank`, 0 where broadcast.
fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let rank = out.len();
    let mut strides = vec![0; rank];
    let mut s = 1;
    for i in (0..shape.len()).rev() {
        let oi = i + rank - shape.len();
        strides[oi] = if shape[i] == 1 && out[oi] != 1 { 0 } else { s };
        s *= shape[i];
    }
    strides
}

/// Applies `f` element-wise to `a` and `b` with broadcasting.
/// Errors: `InvalidArgument` for dtypes other than `T` or incompatible shapes.
pub fn broadcast_binary<T: Element, U: Element>(a: &Tensor, b: &Tensor, f: impl Fn(T, T) -> U) -> Result<Tensor> {
    let (xa, xb) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    if a.shape() == b.shape() {
        return Tensor::new(a.shape(), xa.iter().zip(xb).map(|(&x, &y)| f(x, y)).collect());
    }
    if xb.len() == 1 && b.rank() <= a.rank() {
        let y = xb[0];
        return Tensor::new(a.shape(), xa.iter().map(|&x| f(x, y)).collect());
    }
    if xa.len() == 1 && a.rank() <= b.rank() {
        let x = xa[0];
        return Tensor::new(b.shape(), xb.iter().map(|&y| f(x, y)).collect());
    }
    let out = broadcast_shape(a.shape(), b.shape())?;
    // b is a suffix of a (a bias over rows): chunked loop
    if a.shape() == out.as_slice() && b.rank() <= a.rank() && a.shape()[a.rank() - b.rank()..] == *b.shape() {
        let mut v = Vec::with_capacity(xa.len());
        for row in xa.chunks(xb.len().max(1)) {
            v.extend(row.iter().zip(xb).map(|(&x, &y)| f(x, y)));
        }
        return Tensor::new(&out, v);
    }
    let (sa, sb) = (broadcast_strides(a.shape(), &out), broadcast_strides(b.shape(), &out));
    // [n, 1] with [1, m] makes n * m elements from n + m: checked and allocated fallibly
    let total = checked_num_elements(&out)?;
    let mut v = try_with_capacity(total, U::DTYPE)?;
    let mut idx = vec![0usize; out.len()];
    let (mut ia, mut ib) = (0usize, 0usize);
    for _ in 0..total {
        v.push(f(xa[ia], xb[ib]));
        for d in (0..out.len()).rev() {
            idx[d] += 1;
            ia += sa[d];
            ib += sb[d];
            if idx[d] < out[d] {
                break;
            }
            ia -= sa[d] * out[d];
            ib -= sb[d] * out[d];
            idx[d] = 0;
        }
    }
    Tensor::new(&out, v)
}

/// Applies `f` to every element. Errors: `InvalidArgument` when the dtype is not `T`'s.
pub fn unary_map<T: Element, U: Element>(x: &Tensor, f: impl Fn(T) -> U) -> Result<Tensor> {
    Tensor::new(x.shape(), x.as_slice::<T>()?.iter().map(|&v| f(v)).collect())
}

/// For an input of `shape` broadcast to `out` (NumPy rules; `shape` no longer than `out`
/// and compatible with it), the input's flat index of every output element, row-major.
pub fn broadcast_indices(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let st = broadcast_strides(shape, out);
    let total: usize = out.iter().product();
    let mut v = Vec::with_capacity(total);
    let mut idx = vec![0usize; out.len()];
    let mut i = 0usize;
    for _ in 0..total {
        v.push(i);
        for d in (0..out.len()).rev() {
            idx[d] += 1;
            i += st[d];
            if idx[d] < out[d] {
                break;
            }
            i -= st[d] * out[d];
            idx[d] = 0;
        }
    }
    v
}
