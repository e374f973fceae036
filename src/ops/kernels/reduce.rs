//! Reductions over axes (Sum, Mean, Max, ...).

use super::parallel;
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, Element, Tensor};

/// As [`normalize_axes`], for a reduction kernel: an axis named twice (after negative
/// axes are counted from the end) is TensorFlow's `InvalidArgument` "Invalid reduction
/// arguments: Axes contains duplicate dimension: N" (shape inference accepts it, the
/// kernel refuses it, as TensorFlow's `ReductionHelper::Simplify`).
pub fn normalize_distinct_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let mut seen = vec![false; rank];
    for &a in axes {
        let r = rank as i64;
        if rank == 0 || !(-r..r).contains(&a) {
            continue; // left to normalize_axes: its message and its rank-0 rule
        }
        let i = ((a + r) % r) as usize;
        if seen[i] {
            return Err(Error::invalid_argument(format!(
                "Invalid reduction arguments: Axes contains duplicate dimension: {i}"
            )));
        }
        seen[i] = true;
    }
    normalize_axes(axes, rank)
}

/// Turns possibly negative `axes` into sorted, unique axes below `rank` (an axis named
/// twice counts once, as TensorFlow's shape functions).
/// Errors: `InvalidArgument` for an axis out of range.
pub fn normalize_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let r = rank as i64;
        if a < -r || a >= r.max(1) && !(rank == 0 && a == 0) {
            return Err(Error::invalid_argument(format!(
                "Invalid reduction dimension ({a} for input with {rank} dimension(s)"
            )));
        }
        if rank == 0 {
            continue;
        }
        out.push(if a < 0 { (a + r) as usize } else { a as usize });
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The shape left after reducing `axes` of `shape` (kept as 1 when `keep_dims`).
pub fn reduced_shape(shape: &[usize], axes: &[usize], keep_dims: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if axes.contains(&i) { keep_dims.then_some(1) } else { Some(d) })
        .collect()
}

/// Folds the elements of `x` over `axes` with `f`, starting from `init`. Large inputs
/// reduced over their last or first axes split the output over the intra-op pool (each
/// output element still folds its inputs in order, so the result does not depend on the
/// thread count).
pub fn reduce<T: Element>(
    x: &Tensor,
    axes: &[usize],
    keep_dims: bool,
    init: T,
    f: impl Fn(T, T) -> T + Sync + Send,
) -> Result<Tensor> {
    let data = x.as_slice::<T>()?;
    let shape = x.shape();
    if axes.iter().any(|&a| a >= shape.len()) {
        return Err(Error::invalid_argument(format!("reduction axes {axes:?} out of range for {}", fmt_dims(shape))));
    }
    let out_shape = reduced_shape(shape, axes, keep_dims);
    let out_len: usize = reduced_shape(shape, axes, false).iter().product();
    let mut out = vec![init; out_len];
    // inner = product of trailing dims; fast path for reducing only the last axes
    let rank = shape.len();
    let trailing = axes.len() <= rank && axes.iter().enumerate().all(|(i, &a)| a == rank - axes.len() + i);
    if trailing {
        let inner: usize = shape[rank - axes.len()..].iter().product();
        if inner > 0 {
            // output elements split over the intra-op pool; each folds its run in order
            let per = out.len().div_ceil(parallel::pieces(data.len()) * 2).max(1);
            parallel::for_rows(&mut out, per, data.len(), |p, block| {
                for (o, chunk) in block.iter_mut().zip(data[p * per * inner..].chunks(inner)) {
                    *o = chunk.iter().fold(*o, |acc, &v| f(acc, v));
                }
            });
        }
        return Tensor::new(&out_shape, out);
    }
    // leading axes (a bias gradient: sum over the batch): fold whole rows into the output
    let leading = axes.iter().enumerate().all(|(i, &a)| a == i);
    if leading && out_len > 0 {
        // column blocks split over the intra-op pool; each folds the rows in order
        let per = out_len.div_ceil(parallel::pieces(data.len()) * 2).max(1);
        parallel::for_rows(&mut out, per, data.len(), |p, block| {
            for row in data.chunks(out_len) {
                for (o, &v) in block.iter_mut().zip(&row[p * per..]) {
                    *o = f(*o, v);
                }
            }
        });
        return Tensor::new(&out_shape, out);
    }
    // general: output strides with 0 on reduced axes
    let mut ostride = vec![0usize; rank];
    let mut s = 1;
    for i in (0..rank).rev() {
        if !axes.contains(&i) {
            ostride[i] = s;
            s *= shape[i];
        }
    }
    let mut idx = vec![0usize; rank];
    let mut o = 0usize;
    for &v in data {
        out[o] = f(out[o], v);
        for d in (0..rank).rev() {
            idx[d] += 1;
            o += ostride[d];
            if idx[d] < shape[d] {
                break;
            }
            o -= ostride[d] * shape[d];
            idx[d] = 0;
        }
    }
    Tensor::new(&out_shape, out)
}
