//! Shared by the fuzz targets: a scratch directory for the parsers that read files.

use std::path::PathBuf;
use std::sync::OnceLock;

/// A directory of this process's own (under the system's temporary directory), made once
/// and reused by every execution: the targets overwrite the same file names each time.
pub fn scratch() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::var_os("TENSORGRAPH_FUZZ_TMP").map_or_else(std::env::temp_dir, PathBuf::from);
        let dir = base.join(format!("tensorgraph-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("cannot create the fuzz scratch directory");
        dir
    })
    .clone()
}

/// Writes `bytes` to `name` in the scratch directory and returns its path.
#[allow(dead_code)]
pub fn put(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("cannot create a scratch subdirectory");
    }
    std::fs::write(&path, bytes).expect("cannot write a scratch file");
    path
}

/// The seed004 fixture's files, compiled in (the targets run from any directory).
#[allow(dead_code)]
pub const SEED004_INDEX: &[u8] = include_bytes!("../../tests/fixtures/tf-2.21/seed004/model.ckpt.index");
#[allow(dead_code)]
pub const SEED004_DATA: &[u8] = include_bytes!("../../tests/fixtures/tf-2.21/seed004/model.ckpt.data-00000-of-00001");
