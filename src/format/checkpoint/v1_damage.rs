//! Telling a damaged V1 checkpoint (TensorFlow's single-file tensor-slice format: one
//! SSTable whose first entry, key `""`, is the `SavedTensorSlices` meta) from other files,
//! so that a flipped byte or a cut file is reported as a damaged V1 checkpoint rather than
//! as a missing `.index` or an unknown file.

use super::bundle_proto::BundleHeaderProto;
use super::crc::get_varint;
use super::table::{read_table, TABLE_MAGIC};
use super::tensor_slices::{is_v1_checkpoint, SavedTensorSlices};
use crate::error::Error;
use prost::Message;

/// True when `bytes` start as a V1 checkpoint's first data block does: the entry of key
/// `""` (no shared or own key bytes) whose value opens with the meta field, the meta's
/// first tensor and that tensor's name (three nested length-delimited field 1 tags).
/// A V2 index's first entry is its `BundleHeaderProto`, whose first byte is an integer tag.
fn starts_like_v1(bytes: &[u8]) -> bool {
    let mut pos = 0;
    let key_lens = (get_varint(bytes, &mut pos), get_varint(bytes, &mut pos));
    if key_lens != (Some(0), Some(0)) || get_varint(bytes, &mut pos).is_none() {
        return false;
    }
    for _ in 0..3 {
        if bytes.get(pos) != Some(&0x0a) {
            return false;
        }
        pos += 1;
        if get_varint(bytes, &mut pos).is_none() {
            return false;
        }
    }
    true
}

/// What is wrong with `bytes` when they are a damaged V1 checkpoint; `None` for a readable
/// V1 checkpoint and for bytes that are not one.
///
/// Damaged V1 bytes are an SSTable (its footer's magic number at the end) that does not
/// read (a block checksum, a block, the footer's handles), or reads without the meta
/// record, and that is not a V2 checkpoint index (whose first entry is a bundle header);
/// or bytes that start as a V1 checkpoint's first block but lack the SSTable footer (a cut
/// file). The text is the SSTable reader's (`block checksum mismatch ...`).
pub fn damaged_v1_checkpoint(bytes: &[u8]) -> Option<String> {
    if is_v1_checkpoint(bytes) {
        return None;
    }
    let what = |e: Error| e.message.trim_start_matches("corrupted SSTable : ").to_string();
    let has_magic = bytes.len() >= 8 && bytes[bytes.len() - 8..] == TABLE_MAGIC.to_le_bytes();
    if !has_magic {
        return starts_like_v1(bytes).then(|| {
            format!(
                "it is {} bytes and its SSTable footer (48 bytes ending in the table's magic number) is missing or \
                 damaged (the file was cut short?)",
                bytes.len()
            )
        });
    }
    match read_table(bytes, "") {
        // a V2 index (read or damaged) is not a V1 checkpoint
        Ok(entries) => {
            let header = entries.first().filter(|(k, _)| k.is_empty()).map(|(_, v)| v.as_slice());
            if header.is_some_and(|v| BundleHeaderProto::decode(v).is_ok() && SavedTensorSlices::decode(v).is_err()) {
                return None;
            }
            let meta = header.and_then(|v| SavedTensorSlices::decode(v).ok());
            Some(match meta {
                None if header.is_none() => "its meta record (key \"\") is missing".to_string(),
                _ => "its meta record (key \"\") does not parse".to_string(),
            })
        }
        Err(_) if !starts_like_v1(bytes) && bytes.get(..4).is_some_and(|b| b[0] == 0 && b[1] == 0 && b[3] == 0x08) => {
            None
        }
        Err(e) => Some(what(e)),
    }
}

/// The `DataLoss` error for `path`, a damaged V1 checkpoint: `PATH is a damaged V1
/// checkpoint (the single-file tensor-slice format of ...): WHAT`, where `what` is
/// [`damaged_v1_checkpoint`]'s text. One text for the library and the command line.
pub fn damaged_v1_error(path: &std::path::Path, what: &str) -> Error {
    let kind = super::tensor_slices::V1_CHECKPOINT.trim_start_matches("a ");
    Error::data_loss(format!("{} is a damaged {kind}: {what}", path.display()))
}
