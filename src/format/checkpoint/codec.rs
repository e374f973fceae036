//! Tensor <-> data-file bytes (formats.md §1.6 numeric tensors, §1.7 string tensors).

use super::crc::{get_u32, get_varint, mask_crc, put_varint, unmask_crc};
use crate::tensor::{DType, QInt16, QInt32, QInt8, QUInt16, QUInt8, Storage};
use half::{bf16, f16};

/// The bytes TensorFlow stores for `storage` and their masked crc32c (the entry's `crc32c`).
pub(crate) fn encode_storage(storage: &Storage) -> (Vec<u8>, u32) {
    macro_rules! le {
        ($v:expr, $w:expr, |$x:ident| $bytes:expr) => {{
            let mut out = Vec::with_capacity($v.len() * $w);
            for $x in $v.iter() {
                out.extend_from_slice(&$bytes);
            }
            out
        }};
    }
    let bytes = match storage {
        Storage::F32(v) => le!(v, 4, |x| x.to_le_bytes()),
        Storage::F64(v) => le!(v, 8, |x| x.to_le_bytes()),
        Storage::I32(v) => le!(v, 4, |x| x.to_le_bytes()),
        Storage::I64(v) => le!(v, 8, |x| x.to_le_bytes()),
        Storage::Bool(v) => v.iter().map(|&b| u8::from(b)).collect(),
        Storage::I8(v) => v.iter().map(|&x| x as u8).collect(),
        Storage::I16(v) => le!(v, 2, |x| x.to_le_bytes()),
        Storage::U8(v) => v.clone(),
        Storage::U16(v) => le!(v, 2, |x| x.to_le_bytes()),
        Storage::U32(v) => le!(v, 4, |x| x.to_le_bytes()),
        Storage::U64(v) => le!(v, 8, |x| x.to_le_bytes()),
        Storage::F16(v) => le!(v, 2, |x| x.to_bits().to_le_bytes()),
        Storage::BF16(v) => le!(v, 2, |x| x.to_bits().to_le_bytes()),
        Storage::C64(v) => {
            let mut out = Vec::with_capacity(v.len() * 8);
            for [re, im] in v.iter() {
                out.extend_from_slice(&re.to_le_bytes());
                out.extend_from_slice(&im.to_le_bytes());
            }
            out
        }
        Storage::C128(v) => {
            let mut out = Vec::with_capacity(v.len() * 16);
            for [re, im] in v.iter() {
                out.extend_from_slice(&re.to_le_bytes());
                out.extend_from_slice(&im.to_le_bytes());
            }
            out
        }
        Storage::QI8(v) => v.iter().map(|x| x.0 as u8).collect(),
        Storage::QU8(v) => v.iter().map(|x| x.0).collect(),
        Storage::QI16(v) => le!(v, 2, |x| x.0.to_le_bytes()),
        Storage::QU16(v) => le!(v, 2, |x| x.0.to_le_bytes()),
        Storage::QI32(v) => le!(v, 4, |x| x.0.to_le_bytes()),
        Storage::Str(v) => return encode_strings(v),
        // refused before: `append` checks the dtype (variant values are never serialized)
        Storage::Variant(_) => Vec::new(),
    };
    let crc = mask_crc(crc32c::crc32c(&bytes));
    (bytes, crc)
}

/// Extends `crc` with a string length as TF feeds it: uint32 LE, or uint64 LE when larger.
fn crc_length(crc: u32, len: u64) -> u32 {
    match u32::try_from(len) {
        Ok(l) => crc32c::crc32c_append(crc, &l.to_le_bytes()),
        Err(_) => crc32c::crc32c_append(crc, &len.to_le_bytes()),
    }
}

/// Varint lengths, masked length checksum, then the bytes; with the entry crc (masked).
fn encode_strings(v: &[Vec<u8>]) -> (Vec<u8>, u32) {
    let total: usize = v.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(v.len() * 2 + 4 + total);
    let mut crc = 0u32;
    for s in v {
        put_varint(&mut out, s.len() as u64);
        crc = crc_length(crc, s.len() as u64);
    }
    let lc = mask_crc(crc).to_le_bytes();
    out.extend_from_slice(&lc);
    crc = crc32c::crc32c_append(crc, &lc);
    for s in v {
        out.extend_from_slice(s);
        crc = crc32c::crc32c_append(crc, s);
    }
    (out, mask_crc(crc))
}

/// Decodes `n` fixed-size elements of `dtype`; `bytes.len()` must be `n * dtype.size()`.
pub(crate) fn decode_fixed(dtype: DType, bytes: &[u8]) -> Storage {
    macro_rules! le {
        ($t:ty, $w:expr) => {
            bytes.chunks_exact($w).map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk"))).collect()
        };
    }
    match dtype {
        DType::Float => Storage::F32(le!(f32, 4)),
        DType::Double => Storage::F64(le!(f64, 8)),
        DType::Int32 => Storage::I32(le!(i32, 4)),
        DType::Int64 => Storage::I64(le!(i64, 8)),
        DType::Bool => Storage::Bool(bytes.iter().map(|&b| b != 0).collect()),
        DType::Int8 => Storage::I8(bytes.iter().map(|&b| b as i8).collect()),
        DType::Int16 => Storage::I16(le!(i16, 2)),
        DType::UInt8 => Storage::U8(bytes.to_vec()),
        DType::UInt16 => Storage::U16(le!(u16, 2)),
        DType::UInt32 => Storage::U32(le!(u32, 4)),
        DType::UInt64 => Storage::U64(le!(u64, 8)),
        DType::QInt8 => Storage::QI8(bytes.iter().map(|&b| QInt8(b as i8)).collect()),
        DType::QUInt8 => Storage::QU8(bytes.iter().map(|&b| QUInt8(b)).collect()),
        DType::QInt16 => {
            Storage::QI16(bytes.chunks_exact(2).map(|c| QInt16(i16::from_le_bytes([c[0], c[1]]))).collect())
        }
        DType::QUInt16 => {
            Storage::QU16(bytes.chunks_exact(2).map(|c| QUInt16(u16::from_le_bytes([c[0], c[1]]))).collect())
        }
        DType::QInt32 => {
            Storage::QI32(bytes.chunks_exact(4).map(|c| QInt32(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect())
        }
        DType::Half => {
            Storage::F16(bytes.chunks_exact(2).map(|c| f16::from_bits(u16::from_le_bytes([c[0], c[1]]))).collect())
        }
        DType::BFloat16 => {
            Storage::BF16(bytes.chunks_exact(2).map(|c| bf16::from_bits(u16::from_le_bytes([c[0], c[1]]))).collect())
        }
        DType::Complex64 => Storage::C64(
            bytes
                .chunks_exact(8)
                .map(|c| {
                    [
                        f32::from_le_bytes(c[..4].try_into().expect("4")),
                        f32::from_le_bytes(c[4..].try_into().expect("4")),
                    ]
                })
                .collect(),
        ),
        DType::Complex128 => Storage::C128(
            bytes
                .chunks_exact(16)
                .map(|c| {
                    [
                        f64::from_le_bytes(c[..8].try_into().expect("8")),
                        f64::from_le_bytes(c[8..].try_into().expect("8")),
                    ]
                })
                .collect(),
        ),
        // not fixed-size (the reader rejects resource entries before decoding)
        DType::String | DType::Resource | DType::Variant => Storage::Str(Vec::new()),
    }
}

/// Decodes a string tensor of `n` elements stored in exactly `bytes`. Returns the strings and
/// the crc32c TensorFlow computes over them (unmasked), or a description of what is malformed.
pub(crate) fn decode_strings(n: usize, bytes: &[u8]) -> Result<(Vec<Vec<u8>>, u32), String> {
    // Every element needs at least one length byte: this bounds the allocations by the file.
    if n > bytes.len() {
        return Err(format!("{n} strings cannot fit in {} bytes", bytes.len()));
    }
    let mut pos = 0;
    let mut lengths = Vec::with_capacity(n);
    let mut crc = 0u32;
    for i in 0..n {
        let len = get_varint(bytes, &mut pos).ok_or_else(|| format!("bad length of string element {i}"))?;
        crc = crc_length(crc, len);
        lengths.push(len);
    }
    let stored = get_u32(bytes, pos).ok_or("missing string length checksum")?;
    if unmask_crc(stored) != crc {
        return Err("string length checksum does not match".to_string());
    }
    crc = crc32c::crc32c_append(crc, &bytes[pos..pos + 4]);
    pos += 4;
    let mut out = Vec::with_capacity(n);
    for (i, &len) in lengths.iter().enumerate() {
        let rest = (bytes.len() - pos) as u64;
        if len > rest {
            return Err(format!("string element {i} of {len} bytes runs past the stored data"));
        }
        let s = &bytes[pos..pos + len as usize];
        crc = crc32c::crc32c_append(crc, s);
        out.push(s.to_vec());
        pos += len as usize;
    }
    if pos != bytes.len() {
        return Err(format!("{} stray bytes after the strings", bytes.len() - pos));
    }
    Ok((out, crc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_example_from_formats_md() {
        let (bytes, crc) = encode_strings(&[b"on-cpu0".to_vec()]);
        assert_eq!(bytes[..5], [0x07, 0xa7, 0x8d, 0x9d, 0x88]);
        assert_eq!(&bytes[5..], b"on-cpu0");
        assert_eq!(crc, 0x54c5_6abd);
        let (v, c) = decode_strings(1, &bytes).unwrap();
        assert_eq!(v, vec![b"on-cpu0".to_vec()]);
        assert_eq!(mask_crc(c), crc);
        let (empty, _) = encode_strings(&[]);
        assert_eq!(empty, [0xd8, 0xea, 0x82, 0xa2]);
    }

    #[test]
    fn float_example() {
        let (b, crc) = encode_storage(&Storage::F32(vec![1.0]));
        assert_eq!(b, [0, 0, 0x80, 0x3f]);
        assert_eq!(crc, 0x2bda_a581);
    }
}
