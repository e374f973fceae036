//! Partitioned (sliced) tensors: TensorFlow's "OrderedCode" slice keys and assembling a full
//! tensor from its slices (formats.md §1.8).

use super::bundle_proto::{HasLength, TensorSliceProto};
use crate::tensor::Storage;

fn num_increasing(out: &mut Vec<u8>, v: u64) {
    let bytes = v.to_be_bytes();
    let skip = bytes.iter().take_while(|&&b| b == 0).count();
    out.push((8 - skip) as u8);
    out.extend_from_slice(&bytes[skip..]);
}

fn ordered_string(out: &mut Vec<u8>, s: &[u8]) {
    for &c in s {
        match c {
            0x00 => out.extend_from_slice(&[0x00, 0xff]),
            0xff => out.extend_from_slice(&[0xff, 0x00]),
            _ => out.push(c),
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

fn signed_increasing(out: &mut Vec<u8>, v: i64) {
    let x = if v < 0 { !v } else { v } as u64;
    let n = (64 - x.leading_zeros() as usize) / 7 + 1;
    if n == 1 {
        out.push(0x80 ^ (v as u8));
        return;
    }
    let wide = (v as i128).to_be_bytes();
    let mut body = wide[16 - n..].to_vec();
    let (h0, h1) = match n {
        9 => (0xff, 0x80),
        10 => (0xff, 0xc0),
        _ => ((0xffu32 << (8 - n)) as u8, 0),
    };
    body[0] ^= h0;
    body[1] ^= h1;
    out.extend_from_slice(&body);
}

/// The `.index` key under which TensorFlow stores the slice `extents` of tensor `name`
/// (`checkpoint::EncodeTensorNameSlice`): each extent is `(start, length)`, with length `-1`
/// (and start 0) for a whole-dimension extent. Such keys begin with byte 0 and sort first.
pub fn slice_key(name: &[u8], extents: &[(i64, i64)]) -> Vec<u8> {
    let mut k = Vec::with_capacity(name.len() + 4 + 4 * extents.len());
    num_increasing(&mut k, 0);
    ordered_string(&mut k, name);
    num_increasing(&mut k, extents.len() as u64);
    for &(start, length) in extents {
        signed_increasing(&mut k, start);
        signed_increasing(&mut k, length);
    }
    k
}

/// A slice's extents as key pairs (`length = -1` for a whole dimension) and as concrete
/// `(start, length)` pairs.
pub(crate) type SliceExtents = (Vec<(i64, i64)>, Vec<(usize, usize)>);

/// The `(start, length)` pairs of `slice` as used in its key (`length = -1` for a whole
/// dimension), and the concrete `(start, length)` in `full_shape`. Errors describe a slice
/// that does not fit the shape.
pub(crate) fn slice_extents(slice: &TensorSliceProto, full_shape: &[usize]) -> Result<SliceExtents, String> {
    if slice.extent.len() != full_shape.len() {
        return Err(format!("slice has {} extents for a tensor of rank {}", slice.extent.len(), full_shape.len()));
    }
    let mut key = Vec::with_capacity(full_shape.len());
    let mut conc = Vec::with_capacity(full_shape.len());
    for (e, &dim) in slice.extent.iter().zip(full_shape) {
        match e.has_length {
            None => {
                key.push((0, -1));
                conc.push((0, dim));
            }
            Some(HasLength::Length(len)) => {
                let ok = e.start >= 0
                    && len >= 0
                    && (e.start as u64).checked_add(len as u64).is_some_and(|end| end <= dim as u64);
                if !ok {
                    return Err(format!("slice extent start {} length {len} does not fit dimension {dim}", e.start));
                }
                key.push((e.start, len));
                conc.push((e.start as usize, len as usize));
            }
        }
    }
    Ok((key, conc))
}

/// Flat indices in a row-major tensor of `full_shape` of the elements of the slice `extents`
/// (concrete `(start, length)` per dimension), in the slice's own row-major order.
pub(crate) fn slice_indices(full_shape: &[usize], extents: &[(usize, usize)]) -> Vec<usize> {
    let count: usize = extents.iter().map(|e| e.1).product();
    let mut out = Vec::with_capacity(count);
    if count == 0 {
        return out;
    }
    let rank = full_shape.len();
    let mut strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * full_shape[d + 1];
    }
    let mut pos = vec![0usize; rank];
    for _ in 0..count {
        out.push((0..rank).map(|d| (extents[d].0 + pos[d]) * strides[d]).sum());
        for d in (0..rank).rev() {
            pos[d] += 1;
            if pos[d] < extents[d].1 {
                break;
            }
            pos[d] = 0;
        }
    }
    out
}

/// Writes the elements of `src` to the positions `idx` of `dst` (same dtype). Returns false on
/// a dtype mismatch.
pub(crate) fn scatter(dst: &mut Storage, src: Storage, idx: &[usize]) -> bool {
    macro_rules! pairs {
        ($($var:ident),*) => {
            match (dst, src) {
                $((Storage::$var(d), Storage::$var(s)) => {
                    for (v, &i) in s.into_iter().zip(idx) {
                        d[i] = v;
                    }
                    true
                })*
                _ => false,
            }
        };
    }
    pairs!(F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(v: i64) -> Vec<u8> {
        let mut o = Vec::new();
        signed_increasing(&mut o, v);
        o
    }

    #[test]
    fn ordered_code_examples() {
        assert_eq!(enc(0), [0x80]);
        assert_eq!(enc(3), [0x83]);
        assert_eq!(enc(-1), [0x7f]);
        assert_eq!(enc(63), [0xbf]);
        assert_eq!(enc(-64), [0x40]);
        assert_eq!(enc(64), [0xc0, 0x40]);
        assert_eq!(enc(100), [0xc0, 0x64]);
        assert_eq!(enc(8192), [0xe0, 0x20, 0x00]);
        assert_eq!(enc(-0x800), [0x38, 0x00]);
        assert_eq!(enc(0x424242), [0xf0, 0x42, 0x42, 0x42]);
        assert_eq!(enc(30000), [0xe0, 0x75, 0x30]);
        assert_eq!(enc(70000), [0xe1, 0x11, 0x70]);
        assert_eq!(enc(i64::MAX).len(), 10);
        assert_eq!(enc(i64::MIN).len(), 10);
        assert_eq!(slice_key(b"part", &[(4, 3), (0, 3)]), b"\x00part\x00\x01\x01\x02\x84\x83\x80\x83");
        assert_eq!(slice_key(b"sl", &[(0, 2), (0, -1)]), b"\x00sl\x00\x01\x01\x02\x80\x82\x80\x7f");
        assert_eq!(
            slice_key(b"big_sl", &[(100, 69900), (0, -1)]),
            b"\x00big_sl\x00\x01\x01\x02\xc0\x64\xe1\x11\x0c\x80\x7f"
        );
    }

    #[test]
    fn indices() {
        assert_eq!(slice_indices(&[3, 4], &[(1, 2), (1, 2)]), vec![5, 6, 9, 10]);
        assert_eq!(slice_indices(&[], &[]), vec![0]);
    }
}
