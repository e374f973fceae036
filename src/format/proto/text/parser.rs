//! The tokenizer and parser of the text format: Python protobuf's `text_format.Merge`
//! (and C++ `TextFormat::Parser`) for the messages of [`schema`](super::schema).

use super::dynamic::{Msg, Val, MAX_DEPTH};
use super::schema::{Card, Field, MessageDesc, Type};
use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`: field names, enum values, `true`, `inf`, `nan`.
    Ident(String),
    /// A number as written (`-1.5e-05`, `0x1f`, `1f`, `-inf`).
    Number(String),
    /// A string literal with its escapes resolved.
    Str(Vec<u8>),
    /// Punctuation: `{ } < > [ ] : , ;`.
    Sym(u8),
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("identifier `{s}`"),
            Tok::Number(s) => format!("number `{s}`"),
            Tok::Str(_) => "a string".into(),
            Tok::Sym(c) => format!("`{}`", *c as char),
            Tok::Eof => "the end of the input".into(),
        }
    }
}

struct Token {
    tok: Tok,
    line: usize,
    col: usize,
}

fn error_at(line: usize, col: usize, msg: impl std::fmt::Display) -> Error {
    Error::invalid_argument(format!("text format parse error at line {line}, column {col}: {msg}"))
}

/// Splits `text` into tokens, skipping whitespace and `#` comments.
fn tokenize(text: &str) -> Result<Vec<Token>> {
    let src = text.as_bytes();
    let mut toks = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, 0usize);
    // Columns count characters (not bytes), from 1. They are counted on from the last
    // position asked for, so a long line costs linear time (counting from the line's start
    // at every byte made a single-line file of n bytes take n²/2 steps).
    let (mut seen, mut seen_col) = (0usize, 1usize);
    let mut col_of = |i: usize, line_start: usize| {
        if seen < line_start {
            (seen, seen_col) = (line_start, 1);
        }
        seen_col += text[seen..i].chars().count();
        seen = i;
        seen_col
    };
    while i < src.len() {
        let c = src[i];
        let col = col_of(i, line_start);
        match c {
            b'\n' => {
                i += 1;
                line += 1;
                line_start = i;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b'#' => {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let start = i;
                while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                    i += 1;
                }
                toks.push(Token { tok: Tok::Ident(text[start..i].to_string()), line, col });
            }
            b'0'..=b'9' | b'-' | b'+' | b'.' => {
                if c == b'.' && !src.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    return Err(error_at(line, col, "unexpected character `.`"));
                }
                let start = i;
                i += 1;
                while i < src.len() && (src[i].is_ascii_alphanumeric() || matches!(src[i], b'_' | b'.' | b'+' | b'-')) {
                    i += 1;
                }
                toks.push(Token { tok: Tok::Number(text[start..i].to_string()), line, col });
            }
            b'"' | b'\'' => {
                let (bytes, end) = unescape_string(text, i, line, line_start)?;
                i = end;
                toks.push(Token { tok: Tok::Str(bytes), line, col });
            }
            b'{' | b'}' | b'<' | b'>' | b'[' | b']' | b':' | b',' | b';' => {
                i += 1;
                toks.push(Token { tok: Tok::Sym(c), line, col });
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(error_at(line, col, format!("unexpected character {ch:?}")));
            }
        }
    }
    let col = col_of(src.len(), line_start);
    toks.push(Token { tok: Tok::Eof, line, col });
    Ok(toks)
}

/// Reads the string literal opening at `start`: returns its bytes and the index after
/// the closing quote. Escapes: `\n \r \t \a \b \f \v \\ \' \" \?`, octal `\0`..`\377`,
/// hex `\xH`/`\xHH`, `\uHHHH`, `\UHHHHHHHH` (as UTF-8).
fn unescape_string(text: &str, start: usize, line: usize, line_start: usize) -> Result<(Vec<u8>, usize)> {
    let src = text.as_bytes();
    let quote = src[start];
    let mut out = Vec::new();
    let mut i = start + 1;
    let err = |i: usize, msg: &str| error_at(line, text[line_start..i.min(src.len())].chars().count() + 1, msg);
    loop {
        let Some(&c) = src.get(i) else { return Err(err(start, "string literal is not terminated")) };
        match c {
            b'\n' => return Err(err(start, "string literal is not terminated before the end of the line")),
            _ if c == quote => return Ok((out, i + 1)),
            b'\\' => {
                let Some(&e) = src.get(i + 1) else { return Err(err(i, "string literal is not terminated")) };
                i += 2;
                match e {
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'a' => out.push(0x07),
                    b'b' => out.push(0x08),
                    b'f' => out.push(0x0c),
                    b'v' => out.push(0x0b),
                    b'\\' | b'\'' | b'"' | b'?' => out.push(e),
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        let mut n = 1;
                        while n < 3 && src.get(i).is_some_and(|d| (b'0'..=b'7').contains(d)) {
                            v = v * 8 + u32::from(src[i] - b'0');
                            i += 1;
                            n += 1;
                        }
                        let b = u8::try_from(v).map_err(|_| err(i - n - 1, "octal escape is above \\377"))?;
                        out.push(b);
                    }
                    b'x' | b'X' => {
                        let hex = hex_run(src, i, 2);
                        if hex == 0 {
                            return Err(err(i - 2, "\\x must be followed by a hex digit"));
                        }
                        out.push(u8::from_str_radix(&text[i..i + hex], 16).unwrap_or(0));
                        i += hex;
                    }
                    b'u' | b'U' => {
                        let want = if e == b'u' { 4 } else { 8 };
                        if hex_run(src, i, want) != want {
                            return Err(err(i - 2, &format!("\\{} must be followed by {want} hex digits", e as char)));
                        }
                        let cp = u32::from_str_radix(&text[i..i + want], 16).unwrap_or(u32::MAX);
                        let ch =
                            char::from_u32(cp).ok_or_else(|| err(i - 2, "escape is not a Unicode scalar value"))?;
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        i += want;
                    }
                    _ => {
                        let ch = text[i - 1..].chars().next().unwrap_or('?');
                        return Err(err(i - 2, &format!("invalid escape sequence \\{ch}")));
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// The number of hex digits (at most `max`) at `src[i..]`.
fn hex_run(src: &[u8], i: usize, max: usize) -> usize {
    src[i.min(src.len())..].iter().take(max).take_while(|b| b.is_ascii_hexdigit()).count()
}

/// An integer as Python's `text_format` reads it: optional sign, then decimal, `0x` hex
/// or C octal (`017`).
fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        if !body.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return None;
        }
        u128::from_str_radix(&body[1..], 8).ok()?
    } else {
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        body.parse::<u128>().ok()?
    };
    let v = i128::try_from(mag).ok()?;
    Some(if neg { -v } else { v })
}

/// A float as Python's `text_format.ParseFloat` reads it: any Python float literal
/// (`1`, `1.0`, `.5`, `1e-05`), `inf`/`infinity`/`nan` in any case with an optional sign,
/// and an optional `f`/`F` suffix.
fn parse_float(s: &str) -> Option<f64> {
    let ok = |t: &str| {
        let body = t.trim_start_matches(['-', '+']);
        // Rust also accepts these forms; keep to what Python accepts.
        let words = ["inf", "infinity", "nan"];
        let numeric = body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
            && body.bytes().any(|b| b.is_ascii_digit());
        (numeric || words.iter().any(|w| body.eq_ignore_ascii_case(w))) && t.len() - body.len() <= 1
    };
    if ok(s) {
        if let Ok(v) = s.parse::<f64>() {
            return Some(v);
        }
    }
    let t = s.strip_suffix(['f', 'F'])?;
    if ok(t) {
        t.parse::<f64>().ok()
    } else {
        None
    }
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn next(&mut self) -> &Token {
        let i = self.pos.min(self.toks.len() - 1);
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        &self.toks[i]
    }

    fn peek_sym(&self, c: u8) -> bool {
        self.peek().tok == Tok::Sym(c)
    }

    fn error(&self, t: &Token, msg: impl std::fmt::Display) -> Error {
        error_at(t.line, t.col, msg)
    }

    fn expected(&self, what: &str) -> Error {
        let t = self.peek();
        self.error(t, format!("expected {what}, found {}", t.tok.describe()))
    }

    fn expect_sym(&mut self, c: u8) -> Result<()> {
        if self.peek_sym(c) {
            self.next();
            Ok(())
        } else {
            Err(self.expected(&format!("`{}`", c as char)))
        }
    }

    /// The fields of a message up to `close` (or the end of the input at the top level).
    fn message(&mut self, desc: &'static MessageDesc, close: Option<u8>, depth: usize) -> Result<Msg> {
        if depth > MAX_DEPTH {
            return Err(self.error(self.peek(), format!("messages nested deeper than {MAX_DEPTH} levels")));
        }
        let mut msg = Msg::default();
        loop {
            match (&self.peek().tok, close) {
                (Tok::Eof, None) => return Ok(msg),
                (Tok::Sym(c), Some(want)) if *c == want => {
                    self.next();
                    return Ok(msg);
                }
                (Tok::Ident(name), _) => {
                    let (name, line, col) = (name.clone(), self.peek().line, self.peek().col);
                    self.next();
                    self.field(desc, &mut msg, &name, (line, col), depth)?
                }
                (Tok::Sym(b'['), _) => {
                    return Err(
                        self.error(self.peek(), "extensions and expanded Any messages (`[...]`) are not supported")
                    )
                }
                (_, Some(c)) => return Err(self.expected(&format!("a field name of {} or `{}`", desc.name, c as char))),
                (_, None) => return Err(self.expected(&format!("a field name of {}", desc.name))),
            }
        }
    }

    /// One field after its name (`name` at `line`, `col`): `: value`, `: [values]`,
    /// `{ fields }`, `[{ fields }, ...]`, with an optional `;` or `,` after it.
    fn field(
        &mut self,
        desc: &'static MessageDesc,
        msg: &mut Msg,
        name: &str,
        (line, col): (usize, usize),
        depth: usize,
    ) -> Result<()> {
        let f = desc.field_named(name).ok_or_else(|| {
            error_at(line, col, format!("message type \"{}\" has no field named \"{name}\"", desc.name))
        })?;
        match f.ty {
            Type::Opaque(what) => {
                return Err(Error::unimplemented(format!(
                    "text format parse error at line {line}, column {col}: the text format of {what} (field `{name}`) is not implemented"
                )))
            }
            Type::Message(sub) => {
                if self.peek_sym(b':') {
                    self.next();
                }
                if self.peek_sym(b'[') && f.card == Card::Repeated {
                    self.list(|p| {
                        let m = p.message_block(sub, depth)?;
                        msg.set(f, Val::Msg(m));
                        Ok(())
                    })?;
                } else {
                    let m = self.message_block(sub, depth)?;
                    msg.set(f, Val::Msg(m));
                }
            }
            _ => {
                self.expect_sym(b':')?;
                if self.peek_sym(b'[') {
                    if f.card != Card::Repeated {
                        return Err(self.error(self.peek(), format!("field `{name}` is not repeated; `[...]` lists need a repeated field")));
                    }
                    self.list(|p| {
                        let v = p.scalar(f)?;
                        msg.set(f, v);
                        Ok(())
                    })?;
                } else {
                    let v = self.scalar(f)?;
                    msg.set(f, v);
                }
            }
        }
        if self.peek_sym(b';') || self.peek_sym(b',') {
            self.next();
        }
        Ok(())
    }

    /// `[ item, item, ... ]` (possibly empty).
    fn list(&mut self, mut item: impl FnMut(&mut Parser) -> Result<()>) -> Result<()> {
        self.expect_sym(b'[')?;
        if self.peek_sym(b']') {
            self.next();
            return Ok(());
        }
        loop {
            item(self)?;
            if self.peek_sym(b',') {
                self.next();
            } else if self.peek_sym(b']') {
                self.next();
                return Ok(());
            } else {
                return Err(self.expected("`,` or `]`"));
            }
        }
    }

    /// `{ fields }` or `< fields >`.
    fn message_block(&mut self, sub: &'static MessageDesc, depth: usize) -> Result<Msg> {
        let close = match self.peek().tok {
            Tok::Sym(b'{') => b'}',
            Tok::Sym(b'<') => b'>',
            _ => return Err(self.expected(&format!("`{{` to open a {} message", sub.name))),
        };
        self.next();
        self.message(sub, Some(close), depth + 1)
    }

    fn scalar(&mut self, f: &'static Field) -> Result<Val> {
        let t = self.next();
        let (line, col, tok) = (t.line, t.col, t.tok.clone());
        let bad = |what: &str| {
            error_at(line, col, format!("expected {what} for field `{}`, found {}", f.name, tok.describe()))
        };
        let int = |lo: i128, hi: i128, what: &str| -> Result<i128> {
            match &tok {
                Tok::Number(s) => parse_int(s).filter(|v| (lo..=hi).contains(v)).ok_or_else(|| bad(what)),
                _ => Err(bad(what)),
            }
        };
        Ok(match f.ty {
            Type::Int32 => Val::Int(int(i32::MIN.into(), i32::MAX.into(), "an int32")? as i64),
            Type::Int64 => Val::Int(int(i64::MIN.into(), i64::MAX.into(), "an int64")? as i64),
            Type::UInt32 => Val::UInt(int(0, u32::MAX.into(), "a uint32")? as u64),
            Type::UInt64 | Type::Fixed64 => Val::UInt(int(0, u64::MAX.into(), "a uint64")? as u64),
            Type::Bool => match &tok {
                Tok::Ident(s) if matches!(s.as_str(), "true" | "True" | "t") => Val::Bool(true),
                Tok::Ident(s) if matches!(s.as_str(), "false" | "False" | "f") => Val::Bool(false),
                Tok::Number(s) if s == "1" => Val::Bool(true),
                Tok::Number(s) if s == "0" => Val::Bool(false),
                _ => return Err(bad("`true` or `false`")),
            },
            Type::Float | Type::Double => {
                let v = match &tok {
                    Tok::Number(s) | Tok::Ident(s) => parse_float(s).ok_or_else(|| bad("a number"))?,
                    _ => return Err(bad("a number")),
                };
                if matches!(f.ty, Type::Float) {
                    Val::F32(v as f32)
                } else {
                    Val::F64(v)
                }
            }
            Type::Enum(e) => {
                match &tok {
                    Tok::Ident(s) => Val::Enum(e.number(s).ok_or_else(|| {
                        error_at(line, col, format!("unknown enum value `{s}` for field `{}`", f.name))
                    })?),
                    Tok::Number(_) => Val::Enum(int(i32::MIN.into(), i32::MAX.into(), "an enum value")? as i32),
                    _ => return Err(bad("an enum value name or number")),
                }
            }
            Type::String | Type::Bytes => {
                let Tok::Str(mut bytes) = tok.clone() else { return Err(bad("a string")) };
                // Adjacent literals concatenate: "ab" "cd".
                while let Tok::Str(more) = &self.peek().tok {
                    bytes.extend_from_slice(more);
                    self.next();
                }
                if matches!(f.ty, Type::String) && std::str::from_utf8(&bytes).is_err() {
                    return Err(error_at(line, col, format!("string field `{}` is not valid UTF-8", f.name)));
                }
                Val::Bytes(bytes)
            }
            Type::Message(_) | Type::Opaque(_) => return Err(bad("a message")),
        })
    }
}

/// Parses the text form of a message of type `desc`.
/// Errors: `InvalidArgument` naming the line, column and what was expected;
/// `Unimplemented` for fields whose message type is not described.
pub(crate) fn parse(text: &str, desc: &'static MessageDesc) -> Result<Msg> {
    let toks = tokenize(text)?;
    let mut p = Parser { toks, pos: 0 };
    p.message(desc, None, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_int("-12"), Some(-12));
        assert_eq!(parse_int("0x1f"), Some(31));
        assert_eq!(parse_int("017"), Some(15));
        assert_eq!(parse_int("08"), None);
        assert_eq!(parse_int("1.0"), None);
        assert_eq!(parse_float("1e-05"), Some(1e-5));
        assert_eq!(parse_float("1.5f"), Some(1.5));
        assert_eq!(parse_float("-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("Infinity"), Some(f64::INFINITY));
        assert!(parse_float("nanf").is_some_and(f64::is_nan));
        assert_eq!(parse_float("1e"), None);
        assert_eq!(parse_float("--1"), None);
        assert_eq!(parse_float("f"), None);
    }

    #[test]
    fn strings() {
        let (b, end) = unescape_string(r#""a\"\'\\\n\000\377\x41\x4\u00e9\?" rest"#, 0, 1, 0).unwrap();
        assert_eq!(b, b"a\"'\\\n\x00\xffA\x04\xc3\xa9?");
        assert_eq!(end, 34);
        assert!(unescape_string(r#""\400""#, 0, 1, 0).is_err());
        assert!(unescape_string("\"abc", 0, 1, 0).is_err());
        assert!(unescape_string("\"ab\ncd\"", 0, 1, 0).is_err());
        assert!(unescape_string(r#""\q""#, 0, 1, 0).is_err());
    }
}
