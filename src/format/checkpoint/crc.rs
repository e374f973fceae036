//! Low-level encodings shared by the bundle files: masked CRC-32C, and LEB128 varints
//! through `prost::encoding` (formats.md §0.1–§0.3).

/// The constant TensorFlow adds when masking a crc (`crc32c::kMaskDelta`).
const MASK_DELTA: u32 = 0xA282_EAD8;

/// Masks a CRC-32C as TensorFlow stores it (`crc32c::Mask`: rotate right by 15, add a constant).
/// Used for SSTable block trailers, `BundleEntryProto.crc32c` and string-tensor length checksums.
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// Inverts [`mask_crc`] (`crc32c::Unmask`).
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// Appends `v` as an unsigned LEB128 varint (protobuf's encoding, from `prost`).
pub(crate) fn put_varint(out: &mut Vec<u8>, v: u64) {
    prost::encoding::encode_varint(v, out);
}

/// Decodes a varint of at most 64 bits at `*pos`, advancing `*pos`. `None` when the buffer ends
/// inside the varint or the value does not fit 64 bits.
pub(crate) fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut rest = buf.get(*pos..)?;
    let v = prost::encoding::decode_varint(&mut rest).ok()?;
    *pos = buf.len() - rest.len();
    Some(v)
}

/// Reads a little-endian `u32` at `pos`, `None` when out of bounds.
pub(crate) fn get_u32(buf: &[u8], pos: usize) -> Option<u32> {
    let b = buf.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_matches_tf() {
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(mask_crc(0), 0xA282_EAD8);
        assert_eq!(mask_crc(0xdd54_c4ab), 0x2bda_a581);
        assert_eq!(unmask_crc(mask_crc(0x1234_5678)), 0x1234_5678);
    }

    #[test]
    fn varints() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut p = 0;
            assert_eq!(get_varint(&b, &mut p), Some(v));
            assert_eq!(p, b.len());
            let mut p = 0;
            assert_eq!(get_varint(&b[..b.len() - 1], &mut p), None);
        }
        let mut p = 0;
        assert_eq!(get_varint(&[0xff; 11], &mut p), None);
    }
}
