//! A checkpoint's data file from the input, the `.index` from seed004: read every tensor.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::format::checkpoint::CheckpointReader;

fuzz_target!(|data: &[u8]| {
    common::put("ckpt.index", common::SEED004_INDEX);
    common::put("ckpt.data-00000-of-00001", data);
    let reader = CheckpointReader::open(common::scratch().join("ckpt")).expect("seed004's index opens");
    for (name, _, _) in reader.list() {
        let _ = reader.read(&name);
    }
});
