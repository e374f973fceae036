//! The `checkpoint` state file (a text-format CheckpointState) from the input.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::format::checkpoint::{latest_checkpoint, read_checkpoint_state};

fuzz_target!(|data: &[u8]| {
    common::put("state/checkpoint", data);
    let dir = common::scratch().join("state");
    let _ = read_checkpoint_state(&dir);
    let _ = latest_checkpoint(&dir);
});
