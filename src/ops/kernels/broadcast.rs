//! NumPy-style broadcasting for element-wise ops (as TensorFlow's `BCast`).

use super::parallel;
use crate::error::{Error, Result};
use crate::tensor::{checked_num_elements, fmt_dims, try_with_capacity, Element, Tensor};
use std::mem::MaybeUninit;

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

/// A vector of `len` elements, each written by `fill(start, piece)` for the consecutive
/// pieces of the output it is given (split over the intra-op pool when large); `fill` must
/// write every element of its piece. Errors: `ResourceExhausted` when `len` elements
/// cannot be allocated.
fn build<U: Element>(len: usize, fill: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync + Send) -> Result<Vec<U>> {
    let mut v = try_with_capacity::<U>(len, U::DTYPE)?;
    parallel::fill(&mut v.spare_capacity_mut()[..len], fill);
    // SAFETY: `parallel::fill` gave every element to `fill`, which wrote it.
    unsafe { v.set_len(len) };
    Ok(v)
}

/// Applies `f` element-wise to `a` and `b` with broadcasting (large outputs are split
/// over the intra-op pool).
/// Errors: `InvalidArgument` for dtypes other than `T` or incompatible shapes.
pub fn broadcast_binary<T: Element, U: Element>(
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> U + Sync + Send,
) -> Result<Tensor> {
    let (xa, xb) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    if a.shape() == b.shape() {
        let v = build(xa.len(), |at, out: &mut [MaybeUninit<U>]| {
            for ((o, &x), &y) in out.iter_mut().zip(&xa[at..]).zip(&xb[at..]) {
                o.write(f(x, y));
            }
        })?;
        return Tensor::new(a.shape(), v);
    }
    if xb.len() == 1 && b.rank() <= a.rank() {
        let y = xb[0];
        let v = build(xa.len(), |at, out: &mut [MaybeUninit<U>]| {
            for (o, &x) in out.iter_mut().zip(&xa[at..]) {
                o.write(f(x, y));
            }
        })?;
        return Tensor::new(a.shape(), v);
    }
    if xa.len() == 1 && a.rank() <= b.rank() {
        let x = xa[0];
        let v = build(xb.len(), |at, out: &mut [MaybeUninit<U>]| {
            for (o, &y) in out.iter_mut().zip(&xb[at..]) {
                o.write(f(x, y));
            }
        })?;
        return Tensor::new(b.shape(), v);
    }
    let out = broadcast_shape(a.shape(), b.shape())?;
    // b is a suffix of a (a bias over rows): b repeats every xb.len() elements
    if a.shape() == out.as_slice() && b.rank() <= a.rank() && a.shape()[a.rank() - b.rank()..] == *b.shape() {
        let m = xb.len().max(1);
        let v = build(xa.len(), |at, out: &mut [MaybeUninit<U>]| {
            let mut j = at % m;
            for (o, &x) in out.iter_mut().zip(&xa[at..]) {
                o.write(f(x, xb[j]));
                j += 1;
                if j == m {
                    j = 0;
                }
            }
        })?;
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

/// Applies `f` to every element (large tensors are split over the intra-op pool).
/// Errors: `InvalidArgument` when the dtype is not `T`'s.
pub fn unary_map<T: Element, U: Element>(x: &Tensor, f: impl Fn(T) -> U + Sync + Send) -> Result<Tensor> {
    let xs = x.as_slice::<T>()?;
    let v = build(xs.len(), |at, out: &mut [MaybeUninit<U>]| {
        for (o, &v) in out.iter_mut().zip(&xs[at..]) {
            o.write(f(v));
        }
    })?;
    Tensor::new(x.shape(), v)
}
/// [`unary_map`] of an element function keeping the dtype, written into `x`'s buffer when
/// `x` is its only holder ([`Tensor::unique_mut_slice`]), else into a new one.
/// Errors: `InvalidArgument` when the dtype is not `T`'s.
pub fn unary_map_into<T: Element>(mut x: Tensor, f: impl Fn(T) -> T + Sync + Send) -> Result<Tensor> {
    if let Some(xs) = x.unique_mut_slice::<T>() {
        parallel::fill(xs, |_, piece| piece.iter_mut().for_each(|v| *v = f(*v)));
        return Ok(x);
    }
    unary_map::<T, T>(&x, f)
}

/// [`broadcast_binary`] of an element function keeping the dtype, written in place into
/// the buffer of an input that has the output's shape and no other holder
/// ([`Tensor::unique_mut_slice`]): `a` (or `b`) of one shape, `a` with a scalar `b` (or
/// the reverse), `a` with a `b` whose shape is a suffix of its shape (a bias over rows). Other
/// cases, and shared buffers, write a new buffer.
/// Errors: `InvalidArgument` for dtypes other than `T` or incompatible shapes.
pub fn broadcast_binary_into<T: Element>(
    mut a: Tensor,
    mut b: Tensor,
    f: impl Fn(T, T) -> T + Sync + Send,
) -> Result<Tensor> {
    let same = a.shape() == b.shape();
    let b_scalar = b.num_elements() == 1 && b.rank() <= a.rank();
    let b_suffix = b.rank() <= a.rank() && b.shape() == &a.shape()[a.rank() - b.rank()..];
    let a_scalar = a.num_elements() == 1 && a.rank() <= b.rank();
    if same || b_scalar || b_suffix {
        let xb = b.as_slice::<T>()?;
        if let Some(xa) = a.unique_mut_slice::<T>() {
            let m = xb.len();
            parallel::fill(xa, |at, piece| {
                if same {
                    piece.iter_mut().zip(&xb[at..]).for_each(|(x, &y)| *x = f(*x, y));
                } else if m == 1 {
                    let y = xb[0];
                    piece.iter_mut().for_each(|x| *x = f(*x, y));
                } else if m > 0 {
                    // b repeats every m elements
                    let mut j = at % m;
                    for x in piece.iter_mut() {
                        *x = f(*x, xb[j]);
                        j += 1;
                        if j == m {
                            j = 0;
                        }
                    }
                }
            });
            return Ok(a);
        }
    }
    if same || a_scalar {
        let xa = a.as_slice::<T>()?;
        if let Some(xb) = b.unique_mut_slice::<T>() {
            parallel::fill(xb, |at, piece| {
                if same {
                    piece.iter_mut().zip(&xa[at..]).for_each(|(y, &x)| *y = f(x, *y));
                } else {
                    let x = xa[0];
                    piece.iter_mut().for_each(|y| *y = f(x, *y));
                }
            });
            return Ok(b);
        }
    }
    broadcast_binary::<T, T>(&a, &b, f)
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
