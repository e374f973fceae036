//! A checkpoint's `.index` (LevelDB table of BundleEntryProtos) from the input, the data
//! file from seed004: open, list, and read every entry. Each input is read as it is and with
//! its blocks' checksums recomputed (`common::with_table_checksums`), so that mutated entries
//! reach the BundleEntryProto decoder and the reader's checks.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::format::checkpoint::table::read_table;
use tensorgraph::format::checkpoint::CheckpointReader;

fn read_index(data: &[u8]) {
    let _ = read_table(data, "fuzz.index");
    common::put("ckpt.data-00000-of-00001", common::SEED004_DATA);
    common::put("ckpt.index", data);
    if let Ok(reader) = CheckpointReader::open(common::scratch().join("ckpt")) {
        for (name, _, _) in reader.list() {
            let _ = reader.read(&name);
        }
        let _ = reader.problems();
    }
}

fuzz_target!(|data: &[u8]| {
    read_index(data);
    read_index(&common::with_table_checksums(data));
});
