//! Flat-index helpers shared by the data-movement kernels of `ops/array/`: axis
//! normalization, scalar arguments, row-major strides and the index products and block
//! interleaving the kernels gather with. They work for every dtype (bool and string
//! included).

use super::index_tensor;
use super::int_values;
use crate::error::{Error, Result};
use crate::tensor::{fmt_dims, DType, Storage, Tensor};

/// Normalizes `axis` (negative counts from the end) against `rank` (an axis in
/// `[-rank, rank)`). Errors: `InvalidArgument` naming `what`, the axis and the range.
pub(super) fn norm_axis(axis: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::invalid_argument(format!(
            "{what}: Expected axis in the range [{}, {r}), but got {axis}",
            -r
        )));
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// The single integer of a scalar (or one-element) int32/int64 tensor.
pub(super) fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    let v = int_values(t)?;
    match v[..] {
        [x] if t.rank() <= 1 => Ok(x),
        _ => Err(Error::invalid_argument(format!(
            "{what} must be a scalar, got a tensor of shape {}",
            fmt_dims(t.shape())
        ))),
    }
}

/// Row-major strides of `shape`.
pub(super) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Flat indices of the cartesian product of per-dimension offsets: output element
/// `(i0, i1, ...)` reads input element `per_dim[0][i0] + per_dim[1][i1] + ...`.
pub(super) fn product_indices(per_dim: &[Vec<usize>]) -> Vec<usize> {
    let mut out = vec![0usize];
    for d in per_dim {
        let mut next = Vec::with_capacity(out.len() * d.len());
        for &b in &out {
            next.extend(d.iter().map(|&o| b + o));
        }
        out = next;
    }
    out
}

/// Concatenates `parts` (same dtype) block-wise: for each of `outer` rows, `chunks[i]`
/// elements of part `i` in turn.
pub(super) fn interleave(parts: &[&Storage], outer: usize, chunks: &[usize]) -> Result<Storage> {
    let total: usize = chunks.iter().sum::<usize>() * outer;
    macro_rules! go {
        ($($v:ident),*) => {
            match parts[0] {
                $(Storage::$v(_) => {
                    let mut slices = Vec::with_capacity(parts.len());
                    for p in parts {
                        match p {
                            Storage::$v(x) => slices.push(x),
                            other => {
                                return Err(Error::invalid_argument(format!(
                                    "all values must have one dtype: {} vs {}",
                                    parts[0].dtype(),
                                    other.dtype()
                                )))
                            }
                        }
                    }
                    let mut out = Vec::with_capacity(total);
                    for o in 0..outer {
                        for (s, &c) in slices.iter().zip(chunks) {
                            out.extend_from_slice(&s[o * c..(o + 1) * c]);
                        }
                    }
                    Storage::$v(out)
                })*
            }
        };
    }
    Ok(go!(
        F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str, QI8, QU8, QI16, QU16, QI32,
        Variant
    ))
}

/// A 1-d int tensor of `dtype` (int32 or int64) holding `v`.
pub(super) fn int_tensor(dtype: DType, v: &[i64]) -> Result<Tensor> {
    index_tensor(&[v.len()], v, dtype)
}
