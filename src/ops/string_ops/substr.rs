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
/// bytes (UTF-8 characters) from `pos` (from the end when negative), fewer at the string's end;
/// `pos` and `len` scalars or of `input`'s shape (other broadcasts are `Unimplemented`).
/// Errors: TensorFlow's `pos <p> out of range for string b'<s>' at index <i>`. No gradient.
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
        Ok(vec![(DType::String, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SubstrKernel(utf8_unit(node)?)))
    }
}

/// The prepared `Substr`: whether it counts characters.
struct SubstrKernel(bool);

/// The byte offset of character `k` of `s` (its length past the end).
fn char_offset(s: &[u8], k: usize) -> usize {
    s.iter().enumerate().filter(|(_, &b)| b & 0xC0 != 0x80).map(|(i, _)| i).nth(k).unwrap_or(s.len())
}

impl Kernel for SubstrKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (x, pos, len) = (ctx.input(0), ctx.input(1), ctx.input(2));
        let v = strings(x)?;
        let (p, l) = (int_values(pos)?, int_values(len)?);
        for (t, what) in [(pos, "pos"), (len, "len")] {
            if !t.shape().is_empty() && t.shape() != x.shape() {
                return Err(Error::unimplemented(format!(
                    "Substr with {what} of shape {:?} and input of shape {:?}: tensorgraph supports a scalar or the input's shape",
                    t.shape(),
                    x.shape()
                )));
            }
        }
        let mut out = Vec::with_capacity(v.len());
        for (i, s) in v.iter().enumerate() {
            let (p, l) = (p[if p.len() == 1 { 0 } else { i }], l[if l.len() == 1 { 0 } else { i }]);
            let n = if self.0 { chars(s) } else { s.len() } as i64;
            if p.abs() > n {
                return Err(Error::invalid_argument(format!(
                    "pos {p} out of range for string b'{}' at index {i}",
                    String::from_utf8_lossy(s)
                )));
            }
            let start = if p < 0 { n + p } else { p } as usize;
            let end = if l < 0 { n as usize } else { (start + l as usize).min(n as usize) };
            out.push(if self.0 {
                s[char_offset(s, start)..char_offset(s, end)].to_vec()
            } else {
                s[start..end].to_vec()
            });
        }
        Ok(vec![Tensor::strings(x.shape(), out)?])
    }
}
