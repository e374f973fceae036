//! [`Tensor::summarize_value`]: a tensor's values as TensorFlow's `Tensor::SummarizeValue`
//! writes them in `Assert` and `Print` messages (`[[1 2][3...]...]`).

use super::{Storage, Tensor};

/// `v` as C's `printf("%.*g", precision, v)`: `precision` significant digits, fixed notation
/// for decimal exponents in `[-4, precision)`, else `1e+20`; trailing zeros dropped.
fn format_g(v: f64, precision: usize) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        trim(&format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, v))
    }
}

/// A float32 as TensorFlow's `FloatToBuffer` (`StrAppend` of a float): `%.6g`, or `%.9g`
/// when six digits do not read back as the same float.
fn format_f32(v: f32) -> String {
    let short = format_g(f64::from(v), 6);
    if v.is_finite() && short.parse::<f32>().ok() != Some(v) {
        return format_g(f64::from(v), 9);
    }
    short
}

/// A float64 as TensorFlow's `DoubleToBuffer`: `%.15g`, or `%.17g` when fifteen digits do
/// not read back as the same double.
fn format_f64(v: f64) -> String {
    let short = format_g(v, 15);
    if v.is_finite() && short.parse::<f64>().ok() != Some(v) {
        return format_g(v, 17);
    }
    short
}

/// Bytes as TensorFlow's `absl::Utf8SafeCEscape`: `\n`, `\r`, `\t`, `\"`, `\'`, `\\` and
/// other control bytes as octal escapes; bytes of 0x80 and above kept (shown as UTF-8 where
/// they are, else replaced).
fn escape(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x20..=0x7e | 0x80..=0xff => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Element `i` of `s` as TensorFlow's `PrintOneElement` (v1) writes it: bool as `1`/`0`,
/// 16-bit floats widened to float, complex as `(re,im)`.
fn element(s: &Storage, i: usize) -> String {
    match s {
        Storage::F32(v) => format_f32(v[i]),
        Storage::F64(v) => format_f64(v[i]),
        Storage::F16(v) => format_f32(v[i].to_f32()),
        Storage::BF16(v) => format_f32(v[i].to_f32()),
        Storage::I32(v) => v[i].to_string(),
        Storage::I64(v) => v[i].to_string(),
        Storage::I8(v) => v[i].to_string(),
        Storage::I16(v) => v[i].to_string(),
        Storage::U8(v) => v[i].to_string(),
        Storage::U16(v) => v[i].to_string(),
        Storage::U32(v) => v[i].to_string(),
        Storage::U64(v) => v[i].to_string(),
        Storage::QI8(v) => v[i].0.to_string(),
        Storage::QU8(v) => v[i].0.to_string(),
        Storage::QI16(v) => v[i].0.to_string(),
        Storage::QU16(v) => v[i].0.to_string(),
        Storage::QI32(v) => v[i].0.to_string(),
        Storage::Bool(v) => u8::from(v[i]).to_string(),
        Storage::C64(v) => format!("({},{})", format_f32(v[i][0]), format_f32(v[i][1])),
        Storage::C128(v) => format!("({},{})", format_f64(v[i][0]), format_f64(v[i][1])),
        Storage::Str(v) => escape(&v[i]),
        Storage::Variant(v) => format!("<{}>", v[i].type_name()),
    }
}

impl Tensor {
    /// The first `max_entries` values (all of them when negative) as TensorFlow's
    /// `Tensor::SummarizeValue(max_entries)` writes them, what `Assert` and `Print` show:
    /// values separated by spaces, each dimension but a scalar's in brackets, `...` where
    /// values were left out. A `[2, 2]` tensor `[[1.5, 2], [3, 4]]` with 3 entries is
    /// `[1.5 2][3...]...`; a vector `[0, 1, 2, 3, 4]` with 3 is `0 1 2...`; a scalar `7` is
    /// `7`. Floats print as C's `%g` with the digits that read back exactly (`1.23456776`,
    /// `1e+20`), bools as `1`/`0`, strings C-escaped.
    pub fn summarize_value(&self, max_entries: i64) -> String {
        let n = self.num_elements();
        let limit = if max_entries < 0 { n } else { n.min(max_entries as usize) };
        let s = self.storage();
        let mut out = String::new();
        if self.rank() == 0 {
            for i in 0..limit {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(&element(s, i));
            }
        } else {
            let mut next = 0usize;
            one_dim(0, self.shape(), limit, s, &mut next, &mut out);
        }
        if n > limit {
            out.push_str("...");
        }
        out
    }
}

/// TensorFlow's `PrintOneDim`: dimension `d` of `shape` from element `*next` on, stopping at
/// `limit` elements.
fn one_dim(d: usize, shape: &[usize], limit: usize, s: &Storage, next: &mut usize, out: &mut String) {
    if *next >= limit {
        return;
    }
    if d == shape.len() - 1 {
        for i in 0..shape[d] {
            if *next >= limit {
                if d != 0 {
                    out.push_str("...");
                }
                return;
            }
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&element(s, *next));
            *next += 1;
        }
        return;
    }
    for _ in 0..shape[d] {
        let opened = *next < limit;
        if opened {
            out.push('[');
        }
        one_dim(d + 1, shape, limit, s, next, out);
        if *next < limit || opened {
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_g() {
        assert_eq!(format_f32(1.234_567_8), "1.23456776");
        assert_eq!(format_f32(0.1), "0.1");
        assert_eq!(format_f32(1e-5), "1e-05");
        assert_eq!(format_f32(1_234_567.0), "1234567");
        assert_eq!(format_f32(1e20), "1e+20");
        assert_eq!(format_f32(-0.0), "-0");
        assert_eq!(format_f32(f32::NAN), "nan");
        assert_eq!(format_f64(1.234_567_8), "1.2345678");
        assert_eq!(format_f64(0.1), "0.1");
        assert_eq!(format_f64(1e20), "1e+20");
        assert_eq!(format_f32(100000.0), "100000");
        assert_eq!(format_f32(1_000_000.0), "1e+06");
        assert_eq!(format_f64(0.0001), "0.0001");
    }
}
