//! Shared test helpers of the CLI's tests: the library's helpers (`tests/common` at the
//! repository root: fixtures, tolerances) and running the binary ([`cli`]).
#![allow(dead_code, unused_imports)]

#[path = "../../../tests/common/mod.rs"]
mod shared;

pub mod cli;

pub use shared::*;
