//! A `.npy` file from the input (header, dtype, shape, data).
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::Tensor;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = Tensor::from_npy_bytes(data) {
        let _ = t.to_npy_bytes();
    }
});
