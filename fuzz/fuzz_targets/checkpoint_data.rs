//! A checkpoint's data file from the input, read through two fixture indexes: seed004's (three
//! float tensors) and dtypes' (every dtype, strings among them). Before each read the
//! indexes' entries get the checksums of the input's bytes (the `crc32c` of each
//! BundleEntryProto, then the table blocks' trailers), and each string tensor's length
//! checksum in the input is recomputed, so that mutated data reaches the decoders instead of
//! stopping at a checksum mismatch (as `checkpoint_index` and `event_file` recompute theirs).
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use std::sync::OnceLock;
use tensorgraph::format::checkpoint::bundle_proto::BundleEntryProto;
use tensorgraph::format::checkpoint::table::read_table;
use tensorgraph::format::checkpoint::{mask_crc, CheckpointReader};

const DTYPES_INDEX: &[u8] = include_bytes!("../../tests/fixtures/tf-2.21/dtypes/model.ckpt.index");

/// `DT_STRING`: its stored bytes hold their own length checksum, and the entry's checksum
/// covers the lengths as TensorFlow feeds them, not the varints stored.
const DT_STRING: i32 = 7;

/// One entry of a fixture index: where its `crc32c` field lies in the index file and which
/// bytes of the data file it covers.
struct Entry {
    crc_at: usize,
    dtype: i32,
    elements: u64,
    offset: usize,
    size: usize,
}

/// A fixture index and its entries.
struct Index {
    name: &'static str,
    bytes: &'static [u8],
    entries: Vec<Entry>,
}

fn indexes() -> &'static [Index] {
    static INDEXES: OnceLock<Vec<Index>> = OnceLock::new();
    INDEXES.get_or_init(|| {
        [("seed004", common::SEED004_INDEX), ("dtypes", DTYPES_INDEX)]
            .into_iter()
            .map(|(name, bytes)| Index { name, bytes, entries: entries(bytes) })
            .collect()
    })
}

/// The entries of a fixture index with a checksum to rewrite (not the header, not the
/// slices' full-tensor entries).
fn entries(index: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    for (key, value) in read_table(index, "fixture.index").expect("a fixture index reads") {
        if key.is_empty() {
            continue; // the BundleHeaderProto
        }
        let entry = BundleEntryProto::decode(value.as_slice()).expect("a fixture entry decodes");
        if !entry.slices.is_empty() {
            continue;
        }
        // values are stored whole in the block (only keys are prefix-compressed)
        let at = index.windows(value.len()).position(|w| w == value.as_slice()).expect("the entry is in the index");
        let Some(field) = crc_field(&value) else { continue };
        let elements = entry.shape.map_or(1, |s| s.dim.iter().map(|d| d.size.max(0) as u64).product());
        out.push(Entry {
            crc_at: at + field,
            dtype: entry.dtype,
            elements,
            offset: entry.offset as usize,
            size: entry.size as usize,
        });
    }
    assert!(!out.is_empty(), "a fixture index without entries");
    out
}

/// The position of field 6 (`fixed32 crc32c`) in an encoded BundleEntryProto.
fn crc_field(value: &[u8]) -> Option<usize> {
    let mut pos = 0;
    while pos < value.len() {
        let tag = common::varint(value, &mut pos)?;
        match tag & 7 {
            0 => {
                common::varint(value, &mut pos)?;
            }
            1 => pos += 8,
            2 => pos += common::varint(value, &mut pos)? as usize,
            5 if tag >> 3 == 6 => return Some(pos),
            5 => pos += 4,
            _ => return None,
        }
    }
    None
}

/// The masked checksum TensorFlow records for the `elements` strings stored in
/// `data[offset..offset + size]`, after rewriting their length checksum; `None` when the
/// lengths do not parse (the reader reports that).
fn string_crc(data: &mut [u8], e: &Entry) -> Option<u32> {
    let bytes = data.get_mut(e.offset..e.offset.checked_add(e.size)?)?;
    let mut pos = 0;
    let mut crc = 0u32;
    for _ in 0..e.elements {
        let len = common::varint(bytes, &mut pos)?;
        crc = match u32::try_from(len) {
            Ok(l) => crc32c::crc32c_append(crc, &l.to_le_bytes()),
            Err(_) => crc32c::crc32c_append(crc, &len.to_le_bytes()),
        };
    }
    let lengths = bytes.get_mut(pos..pos + 4)?;
    lengths.copy_from_slice(&mask_crc(crc).to_le_bytes());
    Some(mask_crc(crc32c::crc32c_append(crc, &bytes[pos..])))
}

/// Reads every tensor of `index` with `data` as its data file, the checksums made to match.
fn read_with(index: &Index, data: &[u8]) {
    let mut data = data.to_vec();
    let mut bytes = index.bytes.to_vec();
    for e in &index.entries {
        let crc = if e.dtype == DT_STRING {
            string_crc(&mut data, e)
        } else {
            e.offset.checked_add(e.size).and_then(|end| data.get(e.offset..end)).map(|b| mask_crc(crc32c::crc32c(b)))
        };
        if let Some(crc) = crc {
            bytes[e.crc_at..e.crc_at + 4].copy_from_slice(&crc.to_le_bytes());
        }
    }
    common::put(&format!("{}.index", index.name), &common::with_table_checksums(&bytes));
    common::put(&format!("{}.data-00000-of-00001", index.name), &data);
    let reader = CheckpointReader::open(common::scratch().join(index.name)).expect("a fixture index opens");
    for (name, _, _) in reader.list() {
        let _ = reader.read(&name);
    }
}

fuzz_target!(|data: &[u8]| {
    for index in indexes() {
        read_with(index, data);
    }
});
