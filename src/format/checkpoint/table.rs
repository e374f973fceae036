//! The LevelDB-format SSTable used for a bundle's `.index` file (TensorFlow's copy of the
//! LevelDB table format, `tensorflow/tsl/lib/io/table*.cc`; formats.md §1.2).
//!
//! [`build_table`] reproduces TensorFlow's writer byte for byte (no compression, no filter,
//! empty metaindex block, TF's block size and restart interval by default). [`read_table`]
//! verifies every block checksum and accepts uncompressed and Snappy-compressed blocks.

use super::crc::{get_u32, get_varint, mask_crc, put_varint, unmask_crc};
use crate::error::{Error, Result};

/// The table magic number stored little-endian in the last 8 bytes of the file.
pub const TABLE_MAGIC: u64 = 0xdb47_7524_8b80_fb57;
/// Length of the table footer (two block handles padded to 40 bytes, then the magic).
pub const FOOTER_LEN: usize = 48;
/// Bytes that follow every block: compression type and masked crc.
const TRAILER_LEN: usize = 5;

/// Writer settings of the table. [`Default`] gives what TensorFlow's bundle writer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableOptions {
    /// Target size of an uncompressed data block (TF: 262144).
    pub block_size: usize,
    /// Every `restart_interval`-th entry of a data block stores its full key (TF: 16).
    pub restart_interval: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions { block_size: 262_144, restart_interval: 16 }
    }
}

/// A block being built: prefix-compressed entries, then the restart offsets and their count.
struct BlockBuilder {
    interval: usize,
    buf: Vec<u8>,
    restarts: Vec<u32>,
    last: Vec<u8>,
    counter: usize,
    entries: usize,
}

impl BlockBuilder {
    fn new(interval: usize) -> Self {
        BlockBuilder { interval, buf: Vec::new(), restarts: vec![0], last: Vec::new(), counter: 0, entries: 0 }
    }

    fn add(&mut self, key: &[u8], value: &[u8]) {
        let mut shared = 0;
        if self.counter < self.interval {
            shared = self.last.iter().zip(key).take_while(|(a, b)| a == b).count();
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
        }
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last.clear();
        self.last.extend_from_slice(key);
        self.counter += 1;
        self.entries += 1;
    }

    fn size_estimate(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    fn finish(self) -> Vec<u8> {
        let mut out = self.buf;
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        out
    }
}

/// Appends a block and its trailer to `out`; returns the encoded BlockHandle.
fn emit_block(out: &mut Vec<u8>, raw: &[u8]) -> Vec<u8> {
    let offset = out.len();
    out.extend_from_slice(raw);
    out.push(0); // compression type: none
    let crc = crc32c::crc32c_append(crc32c::crc32c(raw), &[0]);
    out.extend_from_slice(&mask_crc(crc).to_le_bytes());
    let mut handle = Vec::new();
    put_varint(&mut handle, offset as u64);
    put_varint(&mut handle, raw.len() as u64);
    handle
}

/// LevelDB's `FindShortestSeparator` for the bytewise comparator.
fn shortest_separator(a: &[u8], b: &[u8]) -> Vec<u8> {
    let i = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if i < a.len().min(b.len()) && a[i] < 0xff && a[i] + 1 < b[i] {
        let mut s = a[..i].to_vec();
        s.push(a[i] + 1);
        return s;
    }
    a.to_vec()
}

/// LevelDB's `FindShortSuccessor` for the bytewise comparator.
fn short_successor(a: &[u8]) -> Vec<u8> {
    match a.iter().position(|&c| c != 0xff) {
        Some(i) => {
            let mut s = a[..i].to_vec();
            s.push(a[i] + 1);
            s
        }
        None => a.to_vec(),
    }
}

/// Serializes `entries` (keys strictly increasing, bytewise) as an SSTable exactly as
/// TensorFlow's `table::TableBuilder` does with the bundle writer's options.
///
/// Errors: `InvalidArgument` when keys are not strictly increasing or an option is zero.
pub fn build_table(entries: &[(Vec<u8>, Vec<u8>)], options: TableOptions) -> Result<Vec<u8>> {
    if options.block_size == 0 || options.restart_interval == 0 {
        return Err(Error::invalid_argument("SSTable block_size and restart_interval must be positive"));
    }
    for w in entries.windows(2) {
        if w[0].0 >= w[1].0 {
            return Err(Error::invalid_argument(format!(
                "SSTable keys must be strictly increasing: {:?} then {:?}",
                String::from_utf8_lossy(&w[0].0),
                String::from_utf8_lossy(&w[1].0)
            )));
        }
    }
    let mut out = Vec::new();
    let mut index = BlockBuilder::new(1);
    let mut block = BlockBuilder::new(options.restart_interval);
    let mut pending: Option<Vec<u8>> = None;
    let mut last_key: &[u8] = &[];
    for (k, v) in entries {
        if block.entries > 0 && k.len() + v.len() >= 2 * options.block_size {
            let full = std::mem::replace(&mut block, BlockBuilder::new(options.restart_interval));
            pending = Some(emit_block(&mut out, &full.finish()));
        }
        if let Some(handle) = pending.take() {
            index.add(&shortest_separator(last_key, k), &handle);
        }
        block.add(k, v);
        last_key = k;
        if block.size_estimate() >= options.block_size {
            let full = std::mem::replace(&mut block, BlockBuilder::new(options.restart_interval));
            pending = Some(emit_block(&mut out, &full.finish()));
        }
    }
    if block.entries > 0 {
        pending = Some(emit_block(&mut out, &block.finish()));
    }
    let meta_handle = emit_block(&mut out, &BlockBuilder::new(options.restart_interval).finish());
    if let Some(handle) = pending {
        index.add(&short_successor(last_key), &handle);
    }
    let index_handle = emit_block(&mut out, &index.finish());
    let mut footer = meta_handle;
    footer.extend_from_slice(&index_handle);
    footer.resize(FOOTER_LEN - 8, 0);
    footer.extend_from_slice(&TABLE_MAGIC.to_le_bytes());
    out.extend_from_slice(&footer);
    Ok(out)
}

fn corrupt(file: &str, what: impl std::fmt::Display) -> Error {
    Error::data_loss(format!("corrupted SSTable {file}: {what}"))
}

/// Decodes a BlockHandle (`varint64 offset, varint64 size`).
fn decode_handle(buf: &[u8], pos: &mut usize, file: &str) -> Result<(u64, u64)> {
    let off = get_varint(buf, pos).ok_or_else(|| corrupt(file, "bad block handle"))?;
    let size = get_varint(buf, pos).ok_or_else(|| corrupt(file, "bad block handle"))?;
    Ok((off, size))
}

/// Returns the contents of the block at `handle`, checking bounds and the trailer crc and
/// decompressing a Snappy block.
fn read_block(data: &[u8], handle: (u64, u64), limit: usize, file: &str) -> Result<Vec<u8>> {
    let (off, size) = handle;
    let end = off.checked_add(size).and_then(|e| e.checked_add(TRAILER_LEN as u64));
    let end = match end {
        Some(e) if e <= limit as u64 => e as usize,
        _ => return Err(corrupt(file, format!("block at offset {off} of {size} bytes lies outside the file"))),
    };
    let (off, size) = (off as usize, size as usize);
    let contents = &data[off..off + size];
    let ctype = data[off + size];
    let stored = get_u32(data, off + size + 1).ok_or_else(|| corrupt(file, "short block trailer"))?;
    let actual = crc32c::crc32c(&data[off..off + size + 1]);
    if unmask_crc(stored) != actual {
        return Err(corrupt(file, format!("block checksum mismatch at offset {off}")));
    }
    debug_assert!(end <= data.len());
    match ctype {
        0 => Ok(contents.to_vec()),
        1 => snappy_decompress(contents).ok_or_else(|| corrupt(file, format!("bad Snappy block at offset {off}"))),
        t => Err(corrupt(file, format!("unknown block compression type {t} at offset {off}"))),
    }
}

/// Decodes the raw Snappy block format (whole block, no framing). `None` on malformed input.
fn snappy_decompress(src: &[u8]) -> Option<Vec<u8>> {
    let mut pos = 0;
    let len = usize::try_from(get_varint(src, &mut pos)?).ok()?;
    // Each input byte can expand to at most 64/3 output bytes, so this bounds the allocation.
    if len > src.len().saturating_mul(22) {
        return None;
    }
    let mut out = Vec::with_capacity(len);
    while pos < src.len() {
        let tag = src[pos];
        pos += 1;
        let (offset, length) = match tag & 3 {
            0 => {
                let mut n = usize::from(tag >> 2);
                if n >= 60 {
                    let extra = n - 59;
                    let b = src.get(pos..pos + extra)?;
                    n = b.iter().rev().fold(0usize, |acc, &x| (acc << 8) | usize::from(x));
                    pos += extra;
                }
                let n = n.checked_add(1)?;
                let lit = src.get(pos..pos.checked_add(n)?)?;
                if out.len() + n > len {
                    return None;
                }
                out.extend_from_slice(lit);
                pos += n;
                continue;
            }
            1 => {
                let b = *src.get(pos)?;
                pos += 1;
                (usize::from(tag >> 5) << 8 | usize::from(b), usize::from((tag >> 2) & 7) + 4)
            }
            2 => {
                let b = src.get(pos..pos + 2)?;
                pos += 2;
                (usize::from(u16::from_le_bytes([b[0], b[1]])), usize::from(tag >> 2) + 1)
            }
            _ => {
                let b = src.get(pos..pos + 4)?;
                pos += 4;
                (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, usize::from(tag >> 2) + 1)
            }
        };
        if offset == 0 || offset > out.len() || out.len() + length > len {
            return None;
        }
        let start = out.len() - offset;
        for i in 0..length {
            let c = out[start + i];
            out.push(c);
        }
    }
    (out.len() == len).then_some(out)
}

/// How many times its own size a table may expand to when its entries are read: prefix
/// compression stores a key as the bytes it adds to the previous one, so a block of `n`
/// tiny entries that each add a byte to a long shared prefix would otherwise spell out
/// `n²/2` key bytes. Real tables (keys of tensor names, values of a few dozen bytes) expand
/// by less than 10; 1 MiB is always allowed.
const MAX_EXPANSION: usize = 64;

/// Parses the entries of one block, counting the bytes they take against `budget`. `file`
/// names the file in errors.
fn block_entries(block: &[u8], file: &str, out: &mut Vec<(Vec<u8>, Vec<u8>)>, budget: &mut usize) -> Result<()> {
    let bad = |what: &str| corrupt(file, format!("bad block: {what}"));
    if block.len() < 4 {
        return Err(bad("shorter than its restart count"));
    }
    let num_restarts = get_u32(block, block.len() - 4).ok_or_else(|| bad("short"))? as usize;
    let restart_bytes = num_restarts.checked_mul(4).ok_or_else(|| bad("restart count"))?;
    let end = (block.len() - 4).checked_sub(restart_bytes).ok_or_else(|| bad("restart array too long"))?;
    let mut pos = 0;
    let mut key: Vec<u8> = Vec::new();
    while pos < end {
        let body = &block[..end];
        let shared = get_varint(body, &mut pos).ok_or_else(|| bad("entry header"))?;
        let non_shared = get_varint(body, &mut pos).ok_or_else(|| bad("entry header"))?;
        let vlen = get_varint(body, &mut pos).ok_or_else(|| bad("entry header"))?;
        if shared > key.len() as u64 {
            return Err(bad("shared key prefix longer than the previous key"));
        }
        let rest = (end - pos) as u64;
        if non_shared > rest || vlen > rest - non_shared {
            return Err(bad("entry runs past the end of the block"));
        }
        key.truncate(shared as usize);
        key.extend_from_slice(&body[pos..pos + non_shared as usize]);
        pos += non_shared as usize;
        *budget = budget.checked_sub(key.len() + vlen as usize).ok_or_else(|| {
            corrupt(
                file,
                format!(
                    "its entries spell out more than {MAX_EXPANSION} times the file's size (prefix-compressed keys)"
                ),
            )
        })?;
        let value = body[pos..pos + vlen as usize].to_vec();
        pos += vlen as usize;
        out.push((key.clone(), value));
    }
    Ok(())
}

/// Reads every `(key, value)` of an SSTable held in `data`, in file order, verifying every
/// block checksum and that keys are strictly increasing. `file` names the file in errors.
///
/// Everything is bounded by `data`: block handles must lie inside it, a restart array must
/// fit its block, an entry its block's data, a Snappy block expands at most as the format
/// allows, and all entries together may spell out at most 64 times `data`'s size (1 MiB
/// at least; see `MAX_EXPANSION`).
///
/// Errors: `DataLoss` naming `file` for a short file, bad magic, a checksum mismatch,
/// an unknown compression type, any malformed block, or entries beyond that bound.
pub fn read_table(data: &[u8], file: &str) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    if data.len() < FOOTER_LEN {
        return Err(corrupt(file, format!("file is {} bytes, shorter than the table footer", data.len())));
    }
    let footer_start = data.len() - FOOTER_LEN;
    let footer = &data[footer_start..];
    let magic = u64::from_le_bytes(footer[40..48].try_into().expect("8 bytes"));
    if magic != TABLE_MAGIC {
        return Err(corrupt(file, "bad magic number (not an SSTable, or truncated)"));
    }
    let handles = &footer[..40];
    let mut pos = 0;
    let meta = decode_handle(handles, &mut pos, file)?;
    let index = decode_handle(handles, &mut pos, file)?;
    let mut budget = data.len().saturating_mul(MAX_EXPANSION).max(1 << 20);
    let meta_block = read_block(data, meta, footer_start, file)?;
    let mut meta_entries = Vec::new();
    block_entries(&meta_block, file, &mut meta_entries, &mut budget)?;
    let index_block = read_block(data, index, footer_start, file)?;
    let mut handles = Vec::new();
    block_entries(&index_block, file, &mut handles, &mut budget)?;
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for (_, handle) in &handles {
        let mut p = 0;
        let h = decode_handle(handle, &mut p, file)?;
        let block = read_block(data, h, footer_start, file)?;
        let first_new = out.len();
        block_entries(&block, file, &mut out, &mut budget)?;
        let start = first_new.saturating_sub(1);
        if out[start..].windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(corrupt(file, "keys are not strictly increasing"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators() {
        assert_eq!(short_successor(b"v3"), b"w");
        assert_eq!(short_successor(b"\xff\xff"), b"\xff\xff");
        assert_eq!(shortest_separator(b"abc", b"abe"), b"abd");
        assert_eq!(shortest_separator(b"layer5x", b"layer6"), b"layer5x");
    }

    #[test]
    fn roundtrip_many_blocks() {
        let entries: Vec<(Vec<u8>, Vec<u8>)> =
            (0..500).map(|i| (format!("key{i:05}").into_bytes(), vec![i as u8; i % 37])).collect();
        for opts in [TableOptions::default(), TableOptions { block_size: 64, restart_interval: 3 }] {
            let t = build_table(&entries, opts).unwrap();
            assert_eq!(read_table(&t, "t").unwrap(), entries);
        }
        let empty = build_table(&[], TableOptions::default()).unwrap();
        assert!(read_table(&empty, "t").unwrap().is_empty());
    }

    #[test]
    fn snappy() {
        // literal "abcd", then copy offset 4 length 8 (copy-1: tag = ((8-4)<<2)|1, offset byte 4)
        let block = [12u8, 3 << 2, b'a', b'b', b'c', b'd', ((8 - 4) << 2) | 1, 4];
        assert_eq!(snappy_decompress(&block).unwrap(), b"abcdabcdabcd");
        assert!(snappy_decompress(&[12u8, 3 << 2, b'a']).is_none());
        assert!(snappy_decompress(&[0xff, 0xff, 0xff, 0xff, 0x0f]).is_none());
    }
}
