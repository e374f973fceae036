#!/usr/bin/env bash
# The whole test suite: the Rust tests of the whole workspace, the library and the CLI in
# cli/ (release mode: the numeric kernels are slow in debug), and the interop suite, in
# which real TensorFlow 2.21 reads what tensorgraph writes.
# TensorFlow-written fixtures are in tests/fixtures/tf-2.21 (scripts/gen_fixtures.py rewrites them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo test --release --workspace --all-targets
# --all-targets leaves out doctests: the README (the crate's front page) and the docs' examples
cargo test --release --doc -p tensorgraph
# the rustdoc README points users to builds (src/lib.rs denies broken intra-doc links)
cargo doc --no-deps -p tensorgraph
bash interop/run.sh
