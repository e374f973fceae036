//! A V1 checkpoint (TensorSliceReader's single table file) from the input: open, list, read.
//! Each input is read as it is and with its blocks' checksums recomputed
//! (`common::with_table_checksums`), so that mutated entries reach the SavedTensorSlices
//! decoder.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::format::checkpoint::TensorSliceReader;

fn read_v1(data: &[u8]) {
    let path = common::put("v1.ckpt", data);
    if let Ok(reader) = TensorSliceReader::open(&path.display().to_string()) {
        for (name, dtype, _) in reader.list() {
            let _ = reader.read(&name, dtype);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    read_v1(data);
    read_v1(&common::with_table_checksums(data));
});
