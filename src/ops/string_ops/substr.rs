//! `StringLength` (`tf.strings.length`) and `Substr` (`tf.strings.substr`), in bytes or
//! UTF-8 characters.

use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node};
use crate::ops::array::int_values;
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&StringLength, &Substr];

/// The `unit` attr: true for `"UTF8_CHAR"`, false for `"BYTE"` (the default).
fn utf8_unit(node: &Node) -> Result<bool> {
    match node.attrs.get("unit") {
        None => Ok(false),
        Some(AttrValue::String(s)) if s == b"BYTE" => Ok(false),
        Some(AttrValue::String(s)) if s == b"UTF8_CHAR" => Ok(true),
        Some(v) => Err(Error::invalid_argument(format!(
            "{} '{}': unit must be BYTE or UTF8_CHAR, got {v:?}",
            node.op_type, node.name
        ))),
    }
}

fn strings(t: &Tensor) -> Result<&[Vec<u8>]> {
    match t.storage() {
        Storage::Str(v) => Ok(v),
        _ => Err(Error::invalid_argument(format!("expected a string tensor, got {}", t.dtype()))),
    }
}

/// Characters of UTF-8 text: the bytes that do not continue a character.
fn chars(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// `StringLength(input)` (attr `unit`: `"BYTE"` or `"UTF8_CHAR"`): the length of each string
/// in bytes or UTF-8 characters; int32 of `input`'s shape. No gradient.
pub struct StringLength;

impl RegisteredOp for StringLength {
    fn op_type(&self) -> &'static str {
        "StringLength"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::String])?;
        Ok(vec![(DType::Int32, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(Length(utf8_unit(node)?)))
    }
}

/// The prepared `StringLength`: whether it counts characters.
struct Length(bool);

impl Kernel for Length {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let out: Vec<i32> = strings(x)?.iter().map(|s| if self.0 { chars(s) } else { s.len() } as i32).collect();
        Ok(vec![Tensor::new(x.shape(), out)?])
    }
}

/// `Substr(input, pos, len)` (attrs `T`: int32 or int64; `unit`): for each string, `len`
/// bytes (UTF-8 characters) from `pos` (from the end when negative), fewer at the string's
/// end; `pos` and `len` of one shape, a scalar, `input`'s shape, or broadcast against
/// `input` to a result of rank 1 or 2 (TensorFlow 2.21's kernel: higher ranks are
/// `Unimplemented`). A negative `len` takes the rest of the string in bytes, nothing in
/// characters (and with a negative `pos`, as TensorFlow's UTF-8 walk, may fail). Errors
/// (TensorFlow's, `InvalidArgument`): `pos and len should have the same shape, got: ..`,
/// `Incompatible shapes: .. vs. ..`, `pos <p> out of range for string b'<s>' at index <i>`
/// (`at index (i, j)` broadcast to rank 2; `for string at index <i>` in UTF-8 characters).
/// No gradient.
pub struct Substr;

impl RegisteredOp for Substr {
    fn op_type(&self) -> &'static str {
        "Substr"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, &[DType::String])?;
        ctx.check_dtype(1, &[DType::Int32, DType::Int64])?;
        ctx.check_dtype(2, &[DType::Int32, DType::Int64])?;
        let (p, l) = (ctx.shape(1), ctx.shape(2));
        if let (Some(pd), Some(ld)) = (p.dims(), l.dims()) {
            if pd.len() != ld.len() {
                return Err(Error::invalid_argument(format!(
                    "Shape must be rank {} but is rank {}",
                    ld.len(),
                    pd.len()
                )));
            }
            if pd.iter().zip(ld).any(|(a, b)| a != b) {
                return Err(Error::invalid_argument(format!(
                    "pos and len shapes must match: {} vs. {}",
                    debug_shape(p),
                    debug_shape(l)
                )));
            }
        }
        Ok(vec![(DType::String, broadcast(ctx.shape(0), p)?)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SubstrKernel(utf8_unit(node)?)))
    }
}

/// A partial shape as TensorFlow's shape functions print it: `[2,?]`.
fn debug_shape(s: &Shape) -> String {
    match s.dims() {
        None => "?".into(),
        Some(d) => format!(
            "[{}]",
            d.iter().map(|x| x.map_or("?".to_string(), |v| v.to_string())).collect::<Vec<_>>().join(",")
        ),
    }
}

/// The static broadcast of `input` and `pos` (TensorFlow's `BroadcastBinaryOpShapeFn`).
fn broadcast(a: &Shape, b: &Shape) -> Result<Shape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::unknown());
    };
    let n = da.len().max(db.len());
    let at = |d: &[Option<usize>], i: usize| if i + d.len() >= n { d[i + d.len() - n] } else { Some(1) };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(match (at(da, i), at(db, i)) {
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(1), y) => y,
            (x, Some(1)) => x,
            (Some(x), Some(y)) => {
                return Err(Error::invalid_argument(format!(
                    "Dimensions must be equal, but are {x} and {y} for shapes {} and {}",
                    debug_shape(a),
                    debug_shape(b)
                )))
            }
            (x, y) => x.or(y),
        });
    }
    Ok(Shape::partial(&out))
}

/// `[2,3]`, as TensorFlow's `TensorShape::DebugString`.
fn dims_string(d: &[usize]) -> String {
    format!("[{}]", d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

/// The prepared `Substr`: whether it counts characters.
struct SubstrKernel(bool);

fn is_trail(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// TensorFlow's `ForwardNUTF8CharPositions`: moves `pos` over `n` characters; false when
/// the string ends first.
fn forward_chars(s: &[u8], n: i64, pos: &mut usize) -> bool {
    let mut counted = 0i64;
    while counted < n && *pos < s.len() {
        *pos += 1;
        while *pos < s.len() && is_trail(s[*pos]) {
            *pos += 1;
        }
        counted += 1;
    }
    counted == n
}

/// TensorFlow's `BackNUTF8CharPositions`: moves `pos` back over `n` characters.
fn back_chars(s: &[u8], n: i64, pos: &mut usize) -> bool {
    let mut counted = 0i64;
    while counted < n && *pos > 0 {
        *pos -= 1;
        while is_trail(s[*pos]) && *pos > 0 {
            *pos -= 1;
        }
        counted += 1;
    }
    counted == n
}

/// The substring of `s` TensorFlow's kernel takes for `pos` and `len`; `None` when `pos`
/// is out of range.
fn substr_of(s: &[u8], pos: i64, len: i64, utf8: bool) -> Option<&[u8]> {
    let (start, end) = if !utf8 {
        let p = if pos < 0 { s.len() as i64 + pos } else { pos };
        if p < 0 || p > s.len() as i64 {
            return None;
        }
        let p = p as usize;
        (p, if len < 0 { s.len() } else { p.saturating_add(len as usize).min(s.len()) })
    } else if pos >= 0 {
        let mut p = 0;
        if !forward_chars(s, pos, &mut p) {
            return None;
        }
        let mut e = p;
        forward_chars(s, len, &mut e);
        (p, e)
    } else {
        let mut e = s.len();
        let skip = (-pos).saturating_sub(len).max(0);
        if !back_chars(s, skip, &mut e) {
            return None;
        }
        let mut p = e;
        if !back_chars(s, -pos - skip, &mut p) {
            return None;
        }
        (p, e)
    };
    Some(&s[start..end.max(start)])
}

impl Kernel for SubstrKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, pos, len) = (ctx.input(0), ctx.input(1), ctx.input(2));
        if pos.shape() != len.shape() {
            return Err(Error::invalid_argument(format!(
                "pos and len should have the same shape, got: {} vs. {}",
                dims_string(pos.shape()),
                dims_string(len.shape())
            )));
        }
        for (t, what) in [(pos, "pos"), (len, "len")] {
            if t.num_elements() == 0 {
                return Err(Error::invalid_argument(format!(
                    "received empty tensor {what}_tensor: Tensor<type: {} shape: {} values: >",
                    t.dtype(),
                    dims_string(t.shape())
                )));
            }
        }
        let v = strings(x)?;
        let (p, l) = (int_values(pos)?, int_values(len)?);
        let utf8 = self.0;
        // TensorFlow names the row only, in UTF-8 characters.
        let fail = |p: i64, s: &[u8], row: usize, at: String| {
            Error::invalid_argument(if utf8 {
                format!("pos {p} out of range for string at index {row}")
            } else {
                format!("pos {p} out of range for string b'{}' at index {at}", String::from_utf8_lossy(s))
            })
        };
        if pos.shape().is_empty() || pos.shape() == x.shape() {
            let mut out = Vec::with_capacity(v.len());
            for (i, s) in v.iter().enumerate() {
                let k = if p.len() == 1 && pos.shape().is_empty() { 0 } else { i };
                out.push(substr_of(s, p[k], l[k], utf8).ok_or_else(|| fail(p[k], s, i, i.to_string()))?.to_vec());
            }
            return Ok(vec![Tensor::strings(x.shape(), out)?]);
        }
        let shape = crate::ops::kernels::broadcast_shape(x.shape(), pos.shape()).map_err(|_| {
            Error::invalid_argument(format!(
                "Incompatible shapes: {} vs. {}",
                dims_string(x.shape()),
                dims_string(pos.shape())
            ))
        })?;
        let n = shape.len();
        if n == 0 || n > 2 {
            return Err(Error::unimplemented(format!("Substr broadcast not implemented for {n} dimensions")));
        }
        // Both operands as rank n, dims of 1 broadcast.
        let padded =
            |d: &[usize]| -> Vec<usize> { std::iter::repeat_n(1, n - d.len()).chain(d.iter().copied()).collect() };
        let (xs, ps) = (padded(x.shape()), padded(pos.shape()));
        let flat =
            |d: &[usize], at: &[usize]| at.iter().zip(d).fold(0, |acc, (&i, &k)| acc * k + if k > 1 { i } else { 0 });
        let total: usize = shape.iter().product();
        let mut out = Vec::with_capacity(total);
        for f in 0..total {
            let at: Vec<usize> = if n == 1 { vec![f] } else { vec![f / shape[1], f % shape[1]] };
            let s = &v[flat(&xs, &at)];
            let k = flat(&ps, &at);
            let idx = if n == 1 { at[0].to_string() } else { format!("({}, {})", at[0], at[1]) };
            out.push(substr_of(s, p[k], l[k], utf8).ok_or_else(|| fail(p[k], s, at[0], idx))?.to_vec());
        }
        Ok(vec![Tensor::strings(&shape, out)?])
    }
}
