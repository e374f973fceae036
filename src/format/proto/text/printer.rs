//! The text printer: Python protobuf's `text_format.MessageToString` (what
//! `tf.io.write_graph(..., as_text=True)` writes), byte for byte.

use super::dynamic::{is_default, sorted_map_entries, Msg, Val};
use super::schema::{Card, Field, MessageDesc, Type};
use crate::error::{Error, Result};
use std::cmp::Ordering;
use std::fmt::Write;

/// Prints the fields of `msg` at `indent` spaces: in field-number order, proto3 defaults
/// of implicit-presence fields left out, map entries sorted by key.
/// Errors: `Unimplemented` for a set field whose message type is not described.
pub(crate) fn print_message(msg: &Msg, desc: &MessageDesc, indent: usize, out: &mut String) -> Result<()> {
    for f in desc.fields {
        let vals: Vec<&Val> = msg.values(f.number).collect();
        if vals.is_empty() {
            continue;
        }
        match (f.card, f.ty) {
            (Card::Repeated, Type::Message(entry)) if entry.map_entry => {
                for e in sorted_map_entries(vals, entry, python_key_order) {
                    print_field(f, e, indent, out)?;
                }
            }
            (Card::Implicit, _) => {
                if let Some(v) = vals.last().filter(|v| !is_default(v)) {
                    print_field(f, v, indent, out)?;
                }
            }
            _ => {
                for v in vals {
                    print_field(f, v, indent, out)?;
                }
            }
        }
    }
    Ok(())
}

/// Python's `sorted()` on map keys: code-point order for strings (= UTF-8 byte order),
/// numeric for integers.
fn python_key_order(a: &Val, b: &Val) -> Ordering {
    match (a, b) {
        (Val::Bytes(x), Val::Bytes(y)) => x.cmp(y),
        (Val::Int(x), Val::Int(y)) => x.cmp(y),
        (Val::UInt(x), Val::UInt(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

fn print_field(f: &Field, v: &Val, indent: usize, out: &mut String) -> Result<()> {
    out.extend(std::iter::repeat_n(' ', indent));
    out.push_str(f.name);
    match (f.ty, v) {
        (Type::Message(sub), Val::Msg(m)) => {
            out.push_str(" {\n");
            print_message(m, sub, indent + 2, out)?;
            out.extend(std::iter::repeat_n(' ', indent));
            out.push('}');
        }
        (Type::Opaque(name), _) => {
            return Err(Error::unimplemented(format!(
                "the text format of {name} (field `{}`) is not implemented",
                f.name
            )))
        }
        (ty, v) => {
            out.push_str(": ");
            print_scalar(ty, v, out);
        }
    }
    out.push('\n');
    Ok(())
}

fn print_scalar(ty: Type, v: &Val, out: &mut String) {
    match v {
        Val::Int(x) => {
            let _ = write!(out, "{x}");
        }
        Val::UInt(x) => {
            let _ = write!(out, "{x}");
        }
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::F32(x) => out.push_str(&format_float(*x)),
        Val::F64(x) => out.push_str(&format_double(*x)),
        Val::Bytes(b) => {
            out.push('"');
            c_escape(b, out);
            out.push('"');
        }
        Val::Enum(e) => match ty {
            Type::Enum(d) => match d.name(*e) {
                Some(n) => out.push_str(&n),
                None => {
                    let _ = write!(out, "{e}");
                }
            },
            _ => {
                let _ = write!(out, "{e}");
            }
        },
        Val::Msg(_) => {}
    }
}

/// Python protobuf's `text_encoding.CEscape(b, as_utf8=False)`: `\n \r \t \" \' \\`,
/// three-digit octal escapes for the other bytes below 32 and from 127, the rest as is.
pub(crate) fn c_escape(bytes: &[u8], out: &mut String) {
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            32..=126 => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
}

/// A `float` field as Python's `text_format` writes it: `str(ToShortestFloat(v))`, i.e.
/// the `'%.{p}g'` form with the fewest digits `p >= 6` that reads back as the same
/// float, then printed as Python's `repr` of that double (`1.0`, `1.7320508`, `1e-05`,
/// `inf`, `nan`).
pub fn format_float(v: f32) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    for p in 6..=17 {
        let rounded: f64 = format!("{:.*e}", p - 1, f64::from(v)).parse().unwrap_or(f64::NAN);
        if (rounded as f32).to_bits() == v.to_bits() {
            return format_double(rounded);
        }
    }
    format_double(f64::from(v))
}

/// A `double` field as Python writes it: `repr(v)` (shortest round-trip digits, fixed
/// notation for exponents -4..=15, else `1e-05` / `1e+16`; `inf`, `-inf`, `nan`).
pub fn format_double(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.7320508e0", "1e-5".
    let s = format!("{v:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp + 1; // value = 0.DIGITS * 10^decpt
    let n = digits.len() as i32;
    let body = if decpt > -4 && decpt <= 16 {
        if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            format!("{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
        }
    } else {
        let rest = if n > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        let e = decpt - 1;
        format!("{}{}e{}{:02}", &digits[..1], rest, if e < 0 { '-' } else { '+' }, e.abs())
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python_writes_them() {
        let cases: [(f32, &str); 12] = [
            (1.0, "1.0"),
            (1.7320508, "1.7320508"),
            (-1.2247449, "-1.2247449"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (10000.0, "10000.0"),
            (1e16, "1e+16"),
            (-0.0, "-0.0"),
            (f32::INFINITY, "inf"),
            (f32::MAX, "3.4028235e+38"),
            (0.9, "0.9"),
        ];
        for (v, want) in cases {
            assert_eq!(format_float(v), want, "{v:e}");
        }
        assert_eq!(format_float(f32::NAN), "nan");
        assert_eq!(format_double(0.1), "0.1");
        assert_eq!(format_double(1e15), "1000000000000000.0");
        assert_eq!(format_double(123.456e-10), "1.23456e-08");
        assert_eq!(format_double(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn escapes_as_python_writes_them() {
        let mut s = String::new();
        c_escape(b"a\"'\\\n\r\t\x00\x7f\x80\xff?", &mut s);
        assert_eq!(s, r#"a\"\'\\\n\r\t\000\177\200\377?"#);
    }
}
