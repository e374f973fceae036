//! Shared by the fuzz targets (every target has `mod common;`): the allocation limit, and a
//! scratch directory for the parsers that read files.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The largest single allocation a parser may make: 2 GiB (FUZZING.md).
pub const ALLOCATION_LIMIT: usize = 2 << 30;

/// The system allocator, aborting on any single allocation over [`ALLOCATION_LIMIT`].
///
/// libFuzzer's `-malloc_limit_mb` needs the sanitizers' malloc hooks, which a build with
/// `--sanitizer none` does not have. This wrapper holds the same limit without them: the
/// abort (SIGABRT) is a crash libFuzzer reports, with the input saved under `artifacts/`.
/// A fallible allocation (`try_reserve`) over the limit aborts too: no parser may ask for
/// more than 2 GiB at once, whether or not it would handle the refusal.
pub struct LimitedAllocator;

/// Writes the report without allocating (the allocator cannot call itself).
#[cold]
fn over_limit(size: usize) -> ! {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = size;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(b"==fuzz== allocation of ");
    let _ = err.write_all(&buf[i..]);
    let _ = err.write_all(b" bytes exceeds the 2 GiB limit (fuzz/fuzz_targets/common.rs); aborting\n");
    std::process::abort()
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the wrapper only aborts before forwarding.
unsafe impl GlobalAlloc for LimitedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_LIMIT {
            over_limit(layout.size());
        }
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_LIMIT {
            over_limit(layout.size());
        }
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > ALLOCATION_LIMIT {
            over_limit(new_size);
        }
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: LimitedAllocator = LimitedAllocator;

/// A directory of this process's own (under the system's temporary directory), made once
/// and reused by every execution: the targets overwrite the same file names each time.
#[allow(dead_code)]
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

/// A LevelDB table (a checkpoint `.index`, a V1 checkpoint) with the checksums of its
/// metaindex, index and data blocks recomputed, so that mutations of the entries reach the
/// decoders behind the table instead of stopping at a checksum mismatch. Blocks are found as
/// the reader finds them (footer, then the index block's handles); whatever does not parse is
/// left as it is.
#[allow(dead_code)]
pub fn with_table_checksums(data: &[u8]) -> Vec<u8> {
    const FOOTER: usize = 48;
    let mut out = data.to_vec();
    if out.len() < FOOTER {
        return out;
    }
    let footer = out[out.len() - FOOTER..].to_vec();
    let mut pos = 0;
    let handles = [
        (varint(&footer, &mut pos), varint(&footer, &mut pos)),
        (varint(&footer, &mut pos), varint(&footer, &mut pos)),
    ];
    for (i, handle) in handles.into_iter().enumerate() {
        let (Some(off), Some(size)) = handle else { return out };
        let Some(block) = fix_block(&mut out, off, size) else { continue };
        if i == 1 {
            // the index block: each value is the handle of a data block
            for value in block_values(&block) {
                let mut p = 0;
                if let (Some(o), Some(s)) = (varint(&value, &mut p), varint(&value, &mut p)) {
                    fix_block(&mut out, o, s);
                }
            }
        }
    }
    out
}

/// Recomputes the trailer checksum of the block at `off` (`size` bytes, then a type byte and
/// the masked CRC-32C of block and type); returns the block when it is uncompressed.
fn fix_block(data: &mut [u8], off: u64, size: u64) -> Option<Vec<u8>> {
    let off = usize::try_from(off).ok()?;
    let size = usize::try_from(size).ok()?;
    let end = off.checked_add(size)?.checked_add(5)?;
    if end > data.len() {
        return None;
    }
    let crc = crc32c::crc32c(&data[off..off + size + 1]);
    let masked = ((crc >> 15) | (crc << 17)).wrapping_add(0xa282_ead8);
    data[off + size + 1..end].copy_from_slice(&masked.to_le_bytes());
    (data[off + size] == 0).then(|| data[off..off + size].to_vec())
}

/// The values of a table block's entries (shared, unshared and value lengths, key suffix,
/// value; the restart array at the end), as far as they parse.
fn block_values(block: &[u8]) -> Vec<Vec<u8>> {
    let mut values = Vec::new();
    if block.len() < 4 {
        return values;
    }
    let restarts = u32::from_le_bytes(block[block.len() - 4..].try_into().expect("4 bytes")) as usize;
    let Some(end) = restarts.checked_mul(4).and_then(|r| block.len().checked_sub(r + 4)) else { return values };
    let mut pos = 0;
    while pos < end {
        let (Some(_shared), Some(unshared), Some(len)) =
            (varint(block, &mut pos), varint(block, &mut pos), varint(block, &mut pos))
        else {
            break;
        };
        let start = pos.saturating_add(unshared as usize);
        let stop = start.saturating_add(len as usize);
        if stop > end {
            break;
        }
        values.push(block[start..stop].to_vec());
        pos = stop;
    }
    values
}

/// A little-endian base-128 varint at `pos` (advanced past it).
pub fn varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}
