//! `AsString` (`tf.strings.as_string`: numbers to text with C's printf conversions, as
//! TensorFlow's kernel formats them) and `StringToNumber` (`tf.strings.to_number`).

use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] = &[&AsString, &StringToNumber];

const AS_STRING: &[DType] = &[
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::Float,
    DType::Double,
    DType::Bool,
];

/// `AsString(input)` (attrs `T`, `precision` = -1, `scientific`, `shortest`, `width` = -1,
/// `fill`): each element of `input` (int8, int16, int32, int64, uint8, uint16, float32, float64,
/// bool) as a string, as C's `printf` writes it with the conversion TensorFlow builds: `%d`/`%u`
/// for integers, `%f` (default precision 6), `%e` (`scientific`) or `%g` (`shortest`) for
/// floats, padded to `width` with spaces or `fill` (`0`, ` `, `-` to left-justify, `+`).
/// Errors: TensorFlow's messages (`Cannot select both scientific and shortest notation`,
/// `Fill argument not supported`, `precision not supported for datatype`). No gradient.
pub struct AsString;

/// The parsed attrs.
#[derive(Clone)]
struct Fmt {
    precision: Option<usize>,
    conv: u8,
    width: usize,
    fill: Option<u8>,
}

impl RegisteredOp for AsString {
    fn op_type(&self) -> &'static str {
        "AsString"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, AS_STRING)?;
        Ok(vec![(DType::String, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let t = node.attr_type("T")?;
        let precision = node.attr_int_or("precision", -1)?;
        let (sci, short) = (node.attr_bool_or("scientific", false)?, node.attr_bool_or("shortest", false)?);
        let width = node.attr_int_or("width", -1)?;
        let fill = match node.attrs.get("fill") {
            Some(AttrValue::String(s)) => s.clone(),
            _ => Vec::new(),
        };
        let fill = match fill.first() {
            None => None,
            Some(&c @ (b' ' | b'+' | b'-' | b'0')) => Some(c),
            Some(_) => {
                return Err(Error::invalid_argument(format!(
                    "Fill argument not supported: \"{}\"",
                    String::from_utf8_lossy(&fill)
                )))
            }
        };
        let float = matches!(t, DType::Float | DType::Double);
        if sci && short {
            return Err(Error::invalid_argument("Cannot select both scientific and shortest notation"));
        }
        if precision > -1 && !float {
            return Err(Error::invalid_argument(format!("precision not supported for datatype {t}")));
        }
        if (sci || short) && !float {
            return Err(Error::invalid_argument(format!(
                "{} notation not supported for datatype {t}",
                if sci { "scientific" } else { "shortest" }
            )));
        }
        let conv = if !float {
            b'd'
        } else if short {
            b'g'
        } else if sci {
            b'e'
        } else {
            b'f'
        };
        Ok(Box::new(Fmt {
            precision: (precision > -1).then_some(precision as usize),
            conv,
            width: width.max(0) as usize,
            fill,
        }))
    }
}

/// `%e`'s text of `v` with `p` digits after the point: `1.500e+00`.
fn c_exp(v: f64, p: usize) -> String {
    let s = format!("{v:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%g`'s text of `v` with `p` significant digits (0 means 1), trailing zeros removed.
fn c_general(v: f64, p: usize) -> String {
    let p = p.max(1);
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let e = c_exp(v, p - 1);
    let x: i32 = e[e.find('e').unwrap() + 1..].parse().unwrap_or(0);
    let s = if (x as i64) < p as i64 && x >= -4 { format!("{v:.*}", (p as i64 - 1 - x as i64) as usize) } else { e };
    let (m, exp) = match s.find('e') {
        Some(i) => (s[..i].to_string(), s[i..].to_string()),
        None => (s.clone(), String::new()),
    };
    let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.').to_string() } else { m };
    m + &exp
}

impl Fmt {
    fn float(&self, v: f64) -> String {
        if v.is_nan() {
            return "nan".into();
        }
        if v.is_infinite() {
            return if v > 0.0 { "inf".into() } else { "-inf".into() };
        }
        let p = self.precision.unwrap_or(6);
        match self.conv {
            b'e' => c_exp(v, p),
            b'g' => c_general(v, p),
            _ => format!("{v:.p$}"),
        }
    }
    /// `s` padded to the width.
    fn pad(&self, s: String) -> String {
        let s = if self.fill == Some(b'+') && !s.starts_with('-') { format!("+{s}") } else { s };
        if s.len() >= self.width {
            return s;
        }
        let n = self.width - s.len();
        match self.fill {
            Some(b'-') => s + &" ".repeat(n),
            Some(b'0') if s.bytes().all(|b| b.is_ascii_digit() || b"+-.e".contains(&b)) => {
                let sign = s.starts_with(['-', '+']) as usize;
                format!("{}{}{}", &s[..sign], "0".repeat(n), &s[sign..])
            }
            _ => " ".repeat(n) + &s,
        }
    }
}

impl Kernel for Fmt {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let out: Vec<Vec<u8>> = match x.storage() {
            Storage::Bool(v) => v.iter().map(|&b| if b { "true" } else { "false" }.as_bytes().to_vec()).collect(),
            Storage::F32(v) => v.iter().map(|&f| self.pad(self.float(f as f64)).into_bytes()).collect(),
            Storage::F64(v) => v.iter().map(|&f| self.pad(self.float(f)).into_bytes()).collect(),
            _ => x.to_f64_vec()?.iter().map(|&f| self.pad(format!("{}", f as i64)).into_bytes()).collect(),
        };
        let out = match x.storage() {
            Storage::I64(v) => v.iter().map(|&i| self.pad(i.to_string()).into_bytes()).collect(),
            _ => out,
        };
        Ok(vec![Tensor::strings(x.shape(), out)?])
    }
}

/// `StringToNumber(string_tensor)` (attr `out_type`: float32 (the default), float64, int32,
/// int64): each string parsed as a number, surrounding whitespace allowed; floats also take
/// `inf`, `nan` and hexadecimal integers (`0x10`). Errors: TensorFlow's `StringToNumberOp
/// could not correctly convert string: <s>` for text that is not a number of that type
/// (fractions and out-of-range values for integers). No gradient.
pub struct StringToNumber;

impl RegisteredOp for StringToNumber {
    fn op_type(&self) -> &'static str {
        "StringToNumber"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::String])?;
        Ok(vec![(out_type(ctx.node)?, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ToNumber(out_type(node)?)))
    }
}

fn out_type(node: &Node) -> Result<DType> {
    let t = if node.attrs.contains_key("out_type") { node.attr_type("out_type")? } else { DType::Float };
    match t {
        DType::Float | DType::Double | DType::Int32 | DType::Int64 => Ok(t),
        t => Err(Error::invalid_argument(format!("StringToNumber '{}': out_type {t} is not supported", node.name))),
    }
}

/// The prepared `StringToNumber`: its output dtype.
struct ToNumber(DType);

/// `s` as text without surrounding whitespace.
fn text(s: &[u8]) -> Option<&str> {
    std::str::from_utf8(s).map(|t| t.trim_matches(|c: char| c.is_ascii_whitespace())).ok()
}

/// A hexadecimal integer `[+-]0x...` as a float.
fn hex(s: &str) -> Option<f64> {
    let (neg, r) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let r = r.strip_prefix("0x").or_else(|| r.strip_prefix("0X"))?;
    let v = u64::from_str_radix(r, 16).ok()? as f64;
    Some(if neg { -v } else { v })
}

impl Kernel for ToNumber {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let Storage::Str(v) = x.storage() else {
            return Err(Error::invalid_argument(format!("StringToNumber takes strings, not {}", x.dtype())));
        };
        let bad = |s: &[u8]| {
            Error::invalid_argument(format!(
                "StringToNumberOp could not correctly convert string: {}",
                String::from_utf8_lossy(s)
            ))
        };
        let shape = x.shape();
        Ok(vec![match self.0 {
            DType::Int32 | DType::Int64 => {
                let vals: Vec<i64> = v
                    .iter()
                    .map(|s| text(s).and_then(|t| t.parse::<i64>().ok()).ok_or_else(|| bad(s)))
                    .collect::<Result<_>>()?;
                if self.0 == DType::Int32 {
                    let narrow: Vec<i32> = vals
                        .iter()
                        .zip(v)
                        .map(|(&i, s)| i32::try_from(i).map_err(|_| bad(s)))
                        .collect::<Result<_>>()?;
                    Tensor::new(shape, narrow)?
                } else {
                    Tensor::new(shape, vals)?
                }
            }
            DType::Double => Tensor::new(
                shape,
                v.iter()
                    .map(|s| text(s).and_then(|t| t.parse::<f64>().ok().or_else(|| hex(t))).ok_or_else(|| bad(s)))
                    .collect::<Result<Vec<f64>>>()?,
            )?,
            _ => Tensor::new(
                shape,
                v.iter()
                    .map(|s| {
                        text(s)
                            .and_then(|t| t.parse::<f32>().ok().or_else(|| hex(t).map(|h| h as f32)))
                            .ok_or_else(|| bad(s))
                    })
                    .collect::<Result<Vec<f32>>>()?,
            )?,
        }])
    }
}
