//! numpy's `.npy` files (`np.save` / `np.load`, format versions 1.0, 2.0 and 3.0) as
//! tensors: [`Tensor::read_npy`], [`Tensor::write_npy`] and their in-memory forms
//! [`Tensor::from_npy_bytes`], [`Tensor::to_npy_bytes`].
//!
//! Every TensorFlow dtype numpy has reads and writes: bool, int8 to int64, uint8 to
//! uint64, float16, float32, float64, complex64, complex128, and strings (numpy's
//! fixed-width bytes `|S<n>`, whose trailing NUL bytes numpy drops; unicode `<U<n>` is read
//! too, as UTF-8). bfloat16 has no numpy dtype (`ml_dtypes` stores it as raw `V2` bytes),
//! so it is neither read nor written. Files may be little- or big-endian and in C or
//! Fortran order (transposed into the row-major order of a [`Tensor`]); files are written
//! little-endian in C order.
//!
//! A file's sizes are checked against its bytes before anything is allocated: a header or
//! data longer than the file is `DataLoss`, never a huge allocation; a header longer than
//! numpy's own limit (`max_header_size`, 10000 bytes) is refused as `np.load` refuses it.
//! The header (a Python dict literal) is parsed with `py_literal` and its dtype string with
//! `npyz`, and written by `npyz`.

use crate::error::{Code, Error, Result};
use crate::format::atomic_file::{io_error, write_atomically};
use crate::tensor::{checked_num_elements, fmt_dims, try_collect, try_with_capacity, DType, Storage, Tensor};
use half::f16;
use npyz::{Endianness, TypeChar, TypeStr, WriterBuilder};
use py_literal::Value;
use std::path::Path;

/// The first bytes of every `.npy` file.
const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// numpy's `max_header_size` (`np.load` refuses longer headers unless the file is trusted).
const MAX_HEADER_LEN: usize = 10_000;

/// How deeply brackets may nest in a header (a plain dtype's header nests 2 deep, a
/// structured dtype's 4 or more).
const MAX_HEADER_NESTING: usize = 8;

impl Tensor {
    /// Reads a `.npy` file (`np.load`): its dtype, shape and values (see the
    /// [module docs](crate::format::npy) for the dtypes and layouts read).
    ///
    /// Errors, naming the file: `NotFound` when it does not exist; `InvalidArgument` when
    /// it is not a `.npy` file or its header is malformed; `Unimplemented` for a numpy
    /// dtype TensorFlow lacks (object, datetime, structured, float128, raw bytes such as
    /// `ml_dtypes`' bfloat16); `DataLoss` when the file is shorter than its header says;
    /// `ResourceExhausted` when the memory for the values cannot be had.
    pub fn read_npy(path: impl AsRef<Path>) -> Result<Tensor> {
        use std::io::Read;
        let path = path.as_ref();
        let context = || format!("reading {} as a .npy file", path.display());
        // the kind of file first (stat does not block on a named pipe, open does)
        let meta = std::fs::metadata(path).map_err(|e| io_error(e, "cannot read", path))?;
        // (a directory is named by the read below, as a file system error)
        if !meta.is_file() && !meta.is_dir() {
            return Err(Error::invalid_argument("not a regular file (a device, pipe or socket)").context(context()));
        }
        let mut file = std::fs::File::open(path).map_err(|e| io_error(e, "cannot read", path))?;
        // the magic decides whether the rest is read at all
        let mut bytes = Vec::with_capacity(MAGIC.len());
        (&mut file).take(MAGIC.len() as u64).read_to_end(&mut bytes).map_err(|e| io_error(e, "cannot read", path))?;
        if bytes != MAGIC {
            return Tensor::from_npy_bytes(&bytes).map_err(|e| e.context(context()));
        }
        file.read_to_end(&mut bytes).map_err(|e| io_error(e, "cannot read", path))?;
        Tensor::from_npy_bytes(&bytes).map_err(|e| e.context(context()))
    }

    /// Writes this tensor as a `.npy` file (`np.save`), little-endian in C order, through a
    /// temporary file renamed into place. Strings are written as `|S<longest>`.
    ///
    /// Errors: `Unimplemented` for bfloat16 (numpy has no such dtype: convert to float32
    /// with [`Tensor::convert`] first); the file system's, naming the file.
    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes = self.to_npy_bytes().map_err(|e| e.context(format!("cannot write {}", path.display())))?;
        write_atomically(path, &bytes)
    }

    /// The tensor an in-memory `.npy` file holds. Errors: as [`Tensor::read_npy`], without
    /// the file name.
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<Tensor> {
        let (header, data) = split_header(bytes)?;
        let h = parse_header(header)?;
        let n = checked_num_elements(&h.shape)?;
        let item = h.elem.size;
        let need = n.checked_mul(item).ok_or_else(|| {
            Error::invalid_argument(format!(
                "shape {} of {} has more bytes than fit in memory",
                fmt_dims(&h.shape),
                h.descr
            ))
        })?;
        if data.len() < need {
            return Err(Error::data_loss(format!(
                "shape {} of '{}' needs {need} bytes of data, the file holds {} (truncated?)",
                fmt_dims(&h.shape),
                h.descr,
                data.len()
            )));
        }
        let storage = decode(&data[..need], n, &h.elem)?;
        let storage = if h.fortran_order { fortran_to_c(&storage, &h.shape)? } else { storage };
        Tensor::from_storage(&h.shape, storage)
    }

    /// This tensor as the bytes of a `.npy` file (see [`Tensor::write_npy`]).
    /// Errors: `Unimplemented` for bfloat16; `ResourceExhausted` when the memory cannot be had.
    pub fn to_npy_bytes(&self) -> Result<Vec<u8>> {
        let (descr, item) = npy_dtype(self)?;
        let type_str: TypeStr =
            descr.parse().map_err(|e| Error::internal(format!("npy dtype '{descr}' does not parse: {e}")))?;
        let shape: Vec<u64> = self.shape().iter().map(|&d| d as u64).collect();
        let data_len = self
            .num_elements()
            .checked_mul(item)
            .ok_or_else(|| crate::tensor::oom_error(self.dtype(), self.num_elements(), item))?;
        let mut out = try_with_capacity::<u8>(data_len.saturating_add(128), DType::UInt8)?;
        npyz::WriteOptions::new_header_only()
            .dtype(npyz::DType::Plain(type_str))
            .shape(&shape)
            .writer(&mut out)
            .write_header_only()
            .map_err(|e| Error::internal(format!("writing a .npy header: {e}")))?;
        encode(self.storage(), item, &mut out);
        Ok(out)
    }
}

/// The element type of a file: what TensorFlow dtype it becomes and how its bytes read.
struct Elem {
    dtype: DType,
    /// Bytes per element.
    size: usize,
    big_endian: bool,
    /// `U`: UTF-32 code units (else `S`: bytes), for strings.
    unicode: bool,
}

struct Header {
    descr: String,
    elem: Elem,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Checks the magic, version and header length against `bytes`; returns the header text
/// and the data after it.
fn split_header(bytes: &[u8]) -> Result<(&str, &[u8])> {
    if bytes.len() < 8 || &bytes[..6] != MAGIC {
        return Err(Error::invalid_argument(
            "not a .npy file: it does not start with numpy's magic \\x93NUMPY (np.save writes .npy files)",
        ));
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (len_bytes, utf8) = match (major, minor) {
        (1, 0) => (2, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => {
            return Err(Error::unimplemented(format!(
                ".npy format version {major}.{minor} is not one numpy writes (1.0, 2.0 or 3.0)"
            )))
        }
    };
    let start = 8 + len_bytes;
    let len_field = bytes.get(8..start).ok_or_else(|| Error::data_loss(".npy file ends inside its header length"))?;
    let header_len = len_field.iter().rev().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let available = bytes.len() - start;
    if header_len > available {
        return Err(Error::data_loss(format!(
            "the .npy header claims {header_len} bytes but only {available} follow (truncated or not a .npy file)"
        )));
    }
    if header_len > MAX_HEADER_LEN {
        return Err(Error::invalid_argument(format!(
            "the .npy header is {header_len} bytes, more than numpy's max_header_size ({MAX_HEADER_LEN}); np.load refuses it too unless told to trust the file"
        )));
    }
    let raw = &bytes[start..start + header_len];
    let text = std::str::from_utf8(raw).ok().filter(|t| utf8 || t.is_ascii()).ok_or_else(|| {
        Error::invalid_argument(format!("the .npy header is not {} text", if utf8 { "UTF-8" } else { "ASCII" }))
    })?;
    Ok((text, &bytes[start + header_len..]))
}

/// Checks the brackets of a header outside its string literals before the Python literal
/// parser sees it: they must balance and nest at most [`MAX_HEADER_NESTING`] deep (the
/// parser recurses into brackets, and backtracks exponentially on unclosed ones).
fn check_brackets(text: &str) -> std::result::Result<(), String> {
    let mut open: Vec<char> = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => {
                open.push(c);
                if open.len() > MAX_HEADER_NESTING {
                    return Err(format!("nests brackets more than {MAX_HEADER_NESTING} deep"));
                }
            }
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open.pop() != Some(want) {
                    return Err(format!("has an unmatched '{c}'"));
                }
            }
            _ => {}
        }
    }
    match (quote, open.last()) {
        (Some(q), _) => Err(format!("has an unclosed string ({q})")),
        (None, Some(c)) => Err(format!("has an unclosed '{c}'")),
        (None, None) => Ok(()),
    }
}

/// Parses the header dict: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
fn parse_header(text: &str) -> Result<Header> {
    let bad = |what: String| Error::invalid_argument(format!("the .npy header {what}: {}", text.trim_end()));
    check_brackets(text).map_err(bad)?;
    let value: Value = text.trim_end().parse().map_err(|e| bad(format!("is not a Python literal ({e})")))?;
    let Value::Dict(entries) = value else {
        return Err(bad("is not a dict".into()));
    };
    let get = |key: &str| {
        entries
            .iter()
            .find(|(k, _)| k.as_string().is_some_and(|k| k == key))
            .map(|(_, v)| v)
            .ok_or_else(|| bad(format!("has no '{key}'")))
    };
    let descr = match get("descr")? {
        Value::String(s) => s.clone(),
        other => {
            return Err(Error::unimplemented(format!(
                "the .npy file holds a structured array (dtype {other}), which has no TensorFlow dtype; save each field as its own array"
            )))
        }
    };
    let fortran_order = match get("fortran_order")? {
        Value::Boolean(b) => *b,
        other => return Err(bad(format!("has fortran_order {other}, not True or False"))),
    };
    let dims = match get("shape")? {
        Value::Tuple(d) | Value::List(d) => d,
        other => return Err(bad(format!("has shape {other}, not a tuple"))),
    };
    let shape = dims
        .iter()
        .map(|d| match d {
            Value::Integer(i) => usize::try_from(i).ok(),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| bad("has a shape entry that is not a non-negative integer of this machine's size".into()))?;
    let elem = element_type(&descr)?;
    Ok(Header { descr, elem, fortran_order, shape })
}

/// The TensorFlow dtype of numpy dtype string `descr` (`<f4`, `>i8`, `|b1`, `|S5`, `<U3`).
fn element_type(descr: &str) -> Result<Elem> {
    let ts: TypeStr = descr
        .parse()
        .map_err(|e| Error::invalid_argument(format!("the .npy dtype '{descr}' is not a numpy dtype string ({e})")))?;
    let size = ts.num_bytes().ok_or_else(|| {
        Error::unimplemented(format!(
            "the .npy dtype '{descr}' has no fixed size (an object array, pickled by numpy); save the array with a numeric, bool or bytes dtype"
        ))
    })?;
    let no_tf =
        |what: &str| Err(Error::unimplemented(format!("the .npy dtype '{descr}' ({what}) has no TensorFlow dtype")));
    let dtype = match (ts.type_char(), size) {
        (TypeChar::Bool, 1) => DType::Bool,
        (TypeChar::Int, 1) => DType::Int8,
        (TypeChar::Int, 2) => DType::Int16,
        (TypeChar::Int, 4) => DType::Int32,
        (TypeChar::Int, 8) => DType::Int64,
        (TypeChar::Uint, 1) => DType::UInt8,
        (TypeChar::Uint, 2) => DType::UInt16,
        (TypeChar::Uint, 4) => DType::UInt32,
        (TypeChar::Uint, 8) => DType::UInt64,
        (TypeChar::Float, 2) => DType::Half,
        (TypeChar::Float, 4) => DType::Float,
        (TypeChar::Float, 8) => DType::Double,
        (TypeChar::Complex, 8) => DType::Complex64,
        (TypeChar::Complex, 16) => DType::Complex128,
        (TypeChar::ByteStr | TypeChar::UnicodeStr, _) => DType::String,
        (TypeChar::Float, _) => return no_tf("extended-precision float"),
        (TypeChar::Complex, _) => return no_tf("extended-precision complex"),
        (TypeChar::TimeDelta | TypeChar::DateTime, _) => return no_tf("a date or time"),
        (TypeChar::RawData, _) => return no_tf(
            "raw bytes; numpy has no bfloat16, and ml_dtypes' bfloat16 is saved as 2 raw bytes: save float32 instead",
        ),
        _ => return no_tf("unsupported"),
    };
    Ok(Elem {
        dtype,
        size,
        big_endian: ts.endianness() == Endianness::Big,
        unicode: ts.type_char() == TypeChar::UnicodeStr,
    })
}

/// The `n` elements of `data` (exactly `n * elem.size` bytes) as storage.
fn decode(data: &[u8], n: usize, elem: &Elem) -> Result<Storage> {
    let dtype = elem.dtype;
    macro_rules! num {
        ($t:ty, $var:ident) => {{
            const W: usize = std::mem::size_of::<$t>();
            let read = if elem.big_endian { <$t>::from_be_bytes } else { <$t>::from_le_bytes };
            Storage::$var(try_collect(data.chunks_exact(W).map(|c| read(c.try_into().expect("chunks of W"))), dtype)?)
        }};
    }
    macro_rules! half {
        ($t:ty, $var:ident) => {{
            let read = if elem.big_endian { u16::from_be_bytes } else { u16::from_le_bytes };
            Storage::$var(try_collect(data.chunks_exact(2).map(|c| <$t>::from_bits(read([c[0], c[1]]))), dtype)?)
        }};
    }
    macro_rules! complex {
        ($t:ty, $var:ident) => {{
            const W: usize = std::mem::size_of::<$t>();
            let read = if elem.big_endian { <$t>::from_be_bytes } else { <$t>::from_le_bytes };
            let part = |c: &[u8]| read(c.try_into().expect("chunks of W"));
            Storage::$var(try_collect(data.chunks_exact(2 * W).map(|c| [part(&c[..W]), part(&c[W..])]), dtype)?)
        }};
    }
    Ok(match dtype {
        DType::Bool => Storage::Bool(try_collect(data.iter().map(|&b| b != 0), dtype)?),
        DType::Int8 => num!(i8, I8),
        DType::Int16 => num!(i16, I16),
        DType::Int32 => num!(i32, I32),
        DType::Int64 => num!(i64, I64),
        DType::UInt8 => Storage::U8(try_collect(data.iter().copied(), dtype)?),
        DType::UInt16 => num!(u16, U16),
        DType::UInt32 => num!(u32, U32),
        DType::UInt64 => num!(u64, U64),
        DType::Half => half!(f16, F16),
        DType::Float => num!(f32, F32),
        DType::Double => num!(f64, F64),
        DType::Complex64 => complex!(f32, C64),
        DType::Complex128 => complex!(f64, C128),
        DType::String => {
            let mut out = try_with_capacity::<Vec<u8>>(n, dtype)?;
            if elem.size == 0 {
                out.resize(n, Vec::new());
            } else {
                for c in data.chunks_exact(elem.size) {
                    out.push(if elem.unicode { utf32_to_utf8(c, elem.big_endian)? } else { trim_nuls(c).to_vec() });
                }
            }
            Storage::Str(out)
        }
        other => return Err(Error::internal(format!("no .npy decoding for {other}"))),
    })
}

/// `c` without its trailing NUL bytes (numpy pads fixed-width strings with them).
fn trim_nuls(c: &[u8]) -> &[u8] {
    let end = c.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    &c[..end]
}

/// A numpy unicode (`U`) element: UTF-32 code points, NUL-padded, as UTF-8 bytes.
fn utf32_to_utf8(c: &[u8], big_endian: bool) -> Result<Vec<u8>> {
    let read = if big_endian { u32::from_be_bytes } else { u32::from_le_bytes };
    let mut s = String::new();
    for unit in c.chunks_exact(4).map(|u| read([u[0], u[1], u[2], u[3]])) {
        s.push(char::from_u32(unit).ok_or_else(|| {
            Error::invalid_argument(format!("the .npy unicode string holds {unit:#x}, which is not a character"))
        })?);
    }
    Ok(s.trim_end_matches('\0').as_bytes().to_vec())
}

/// Fortran-order values (first index fastest) of `shape` in row-major order.
fn fortran_to_c(s: &Storage, shape: &[usize]) -> Result<Storage> {
    if shape.iter().filter(|&&d| d > 1).count() < 2 {
        return Ok(s.clone()); // one axis of more than one element: both orders agree
    }
    // Fortran strides: 1, d0, d0*d1, ... (they fit: their product is the element count)
    let mut strides = vec![1usize; shape.len()];
    for k in 1..shape.len() {
        strides[k] = strides[k - 1] * shape[k - 1];
    }
    let n = s.len();
    let mut idx = try_with_capacity::<usize>(n, DType::Int64)?;
    let mut pos = vec![0usize; shape.len()];
    let mut offset = 0usize;
    for _ in 0..n {
        idx.push(offset);
        // the next row-major index: the last axis moves fastest
        for k in (0..shape.len()).rev() {
            pos[k] += 1;
            offset += strides[k];
            if pos[k] < shape[k] {
                break;
            }
            offset -= strides[k] * shape[k];
            pos[k] = 0;
        }
    }
    s.try_gather(&idx)
}

/// The little-endian numpy dtype string of `t` and its bytes per element. numpy has no
/// quantized dtypes: a qint8 ... qint32 tensor is written as its plain integers (`|i1` ...
/// `<i4`), which a feed of the quantized placeholder converts back.
fn npy_dtype(t: &Tensor) -> Result<(String, usize)> {
    let fixed = |d: &str, n: usize| Ok((d.to_string(), n));
    match t.storage() {
        Storage::Bool(_) => fixed("|b1", 1),
        Storage::I8(_) => fixed("|i1", 1),
        Storage::I16(_) => fixed("<i2", 2),
        Storage::I32(_) => fixed("<i4", 4),
        Storage::I64(_) => fixed("<i8", 8),
        Storage::U8(_) => fixed("|u1", 1),
        Storage::U16(_) => fixed("<u2", 2),
        Storage::U32(_) => fixed("<u4", 4),
        Storage::U64(_) => fixed("<u8", 8),
        Storage::F16(_) => fixed("<f2", 2),
        Storage::F32(_) => fixed("<f4", 4),
        Storage::F64(_) => fixed("<f8", 8),
        Storage::C64(_) => fixed("<c8", 8),
        Storage::C128(_) => fixed("<c16", 16),
        Storage::QI8(_) => fixed("|i1", 1),
        Storage::QU8(_) => fixed("|u1", 1),
        Storage::QI16(_) => fixed("<i2", 2),
        Storage::QU16(_) => fixed("<u2", 2),
        Storage::QI32(_) => fixed("<i4", 4),
        Storage::Str(v) => {
            // numpy has no zero-width bytes dtype for arrays: at least 1
            let width = v.iter().map(Vec::len).max().unwrap_or(0).max(1);
            Ok((format!("|S{width}"), width))
        }
        Storage::Variant(_) => Err(Error::new(
            Code::Unimplemented,
            "a variant tensor (TensorList) has no .npy form; stack the list into a plain tensor first (TensorListStack)",
        )),
        Storage::BF16(_) => Err(Error::new(
            Code::Unimplemented,
            "numpy has no bfloat16 dtype, so a bfloat16 tensor has no .npy form; convert it to float32 first (tensor.convert(DType::Float), exact)",
        )),
    }
}

/// Appends the values of `s` little-endian (strings NUL-padded to `item` bytes).
fn encode(s: &Storage, item: usize, out: &mut Vec<u8>) {
    macro_rules! le {
        ($v:expr) => {
            for x in $v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
    }
    match s {
        Storage::Bool(v) => out.extend(v.iter().map(|&b| u8::from(b))),
        Storage::I8(v) => le!(v),
        Storage::I16(v) => le!(v),
        Storage::I32(v) => le!(v),
        Storage::I64(v) => le!(v),
        Storage::U8(v) => out.extend_from_slice(v),
        Storage::U16(v) => le!(v),
        Storage::U32(v) => le!(v),
        Storage::U64(v) => le!(v),
        Storage::F16(v) => le!(v.iter().map(|x| x.to_bits())),
        Storage::BF16(v) => le!(v.iter().map(|x| x.to_bits())),
        Storage::F32(v) => le!(v),
        Storage::F64(v) => le!(v),
        Storage::C64(v) => le!(v.iter().flatten()),
        Storage::C128(v) => le!(v.iter().flatten()),
        Storage::QI8(v) => le!(v.iter().map(|x| x.0)),
        Storage::QU8(v) => out.extend(v.iter().map(|x| x.0)),
        Storage::QI16(v) => le!(v.iter().map(|x| x.0)),
        Storage::QU16(v) => le!(v.iter().map(|x| x.0)),
        Storage::QI32(v) => le!(v.iter().map(|x| x.0)),
        Storage::Str(v) => {
            for x in v {
                out.extend_from_slice(x);
                out.resize(out.len() + (item - x.len()), 0);
            }
        }
        // refused by `npy_dtype` first
        Storage::Variant(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_order_is_transposed_into_row_major() {
        // [[0, 1, 2], [3, 4, 5]] stored column by column: 0 3 1 4 2 5
        let f = Storage::I32(vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(fortran_to_c(&f, &[2, 3]).unwrap(), Storage::I32(vec![0, 1, 2, 3, 4, 5]));
        // rank 3: element (i, j, k) of shape [2, 2, 2] sits at i + 2j + 4k
        let f = Storage::I32((0..8).collect());
        assert_eq!(fortran_to_c(&f, &[2, 2, 2]).unwrap(), Storage::I32(vec![0, 4, 2, 6, 1, 5, 3, 7]));
        assert_eq!(fortran_to_c(&f, &[1, 8, 1]).unwrap(), f);
    }

    #[test]
    fn strings_lose_padding_and_unicode_becomes_utf8() {
        assert_eq!(trim_nuls(b"ab\0\0"), b"ab");
        assert_eq!(trim_nuls(b"\0\0"), b"");
        let e_acute = [0xe9, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(utf32_to_utf8(&e_acute, false).unwrap(), "é".as_bytes());
        assert_eq!(utf32_to_utf8(&[0, 0, 0, 0x41], true).unwrap(), b"A");
        assert_eq!(utf32_to_utf8(&[0, 0, 0x11, 0], false).unwrap_err().code, Code::InvalidArgument);
    }
}
