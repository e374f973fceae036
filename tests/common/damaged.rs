//! Damaged copies of the seed004 checkpoint, made in the test with the project's own table
//! code (so every block checksum is right and only the edited entry is wrong). Included with
//! `#[path]` by the library's and the CLI's tests; fixture data is never edited on disk.
#![allow(dead_code)]

use prost::Message;
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::bundle_proto::BundleEntryProto;
use tensorgraph::format::checkpoint::table::{build_table, read_table, TableOptions};

/// The seed004 checkpoint prefix (`v1`, `v2`, `v3`: float32 `[1]` each, values 1, 2, 3).
pub fn seed004() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|p| p.join("tests/fixtures").is_dir())
        .unwrap()
        .join("tests/fixtures/tf-2.21/seed004/model.ckpt")
}

/// The key/value pairs of seed004's `.index` (the header first, under key `""`).
pub fn seed004_index() -> Vec<(Vec<u8>, Vec<u8>)> {
    let bytes = std::fs::read(format!("{}.index", seed004().display())).unwrap();
    read_table(&bytes, "seed004").unwrap()
}

/// Writes `dir/name.index` from `entries` (sorted by key, as a table must be) and copies
/// seed004's data file beside it; returns the prefix `dir/name`.
pub fn write_index(dir: &Path, name: &str, mut entries: Vec<(Vec<u8>, Vec<u8>)>) -> PathBuf {
    entries.sort();
    let table = build_table(&entries, TableOptions::default()).unwrap();
    std::fs::write(dir.join(format!("{name}.index")), table).unwrap();
    let data = format!("{}.data-00000-of-00001", seed004().display());
    std::fs::copy(data, dir.join(format!("{name}.data-00000-of-00001"))).unwrap();
    dir.join(name)
}

/// seed004 with `edit` applied to the decoded entry of `key`, written as `dir/name`.
pub fn edit_entry(dir: &Path, name: &str, key: &str, edit: impl Fn(&mut BundleEntryProto)) -> PathBuf {
    let entries = seed004_index()
        .into_iter()
        .map(|(k, v)| {
            if k != key.as_bytes() {
                return (k, v);
            }
            let mut e = BundleEntryProto::decode(v.as_slice()).unwrap();
            edit(&mut e);
            (k, e.encode_to_vec())
        })
        .collect();
    write_index(dir, name, entries)
}

/// seed004 with the key `from` renamed to the bytes `to`.
pub fn rename_key(dir: &Path, name: &str, from: &str, to: &[u8]) -> PathBuf {
    let entries = seed004_index()
        .into_iter()
        .map(|(k, v)| if k == from.as_bytes() { (to.to_vec(), v) } else { (k, v) })
        .collect();
    write_index(dir, name, entries)
}
