//! A V1 checkpoint (TensorSliceReader's single table file) from the input: open, list, read.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::format::checkpoint::TensorSliceReader;

fuzz_target!(|data: &[u8]| {
    let path = common::put("v1.ckpt", data);
    if let Ok(reader) = TensorSliceReader::open(&path.display().to_string()) {
        for (name, dtype, _) in reader.list() {
            let _ = reader.read(&name, dtype);
        }
    }
});
