//! The `checkpoint` state file: a text-format `CheckpointState` proto naming the newest
//! checkpoint of a directory (TensorFlow's `checkpoint_management.py`; formats.md §2).

use super::fsutil::{io_error, write_atomically};
use super::index_path;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Default name of the state file inside a checkpoint directory.
pub const CHECKPOINT_STATE_FILENAME: &str = "checkpoint";

/// `tensorflow.CheckpointState`: the newest checkpoint and those not yet deleted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckpointState {
    /// Prefix of the newest checkpoint (field 1).
    pub model_checkpoint_path: String,
    /// Prefixes of the kept checkpoints, oldest first, the last being the newest (field 2).
    pub all_model_checkpoint_paths: Vec<String>,
    /// Seconds since the epoch at which each of `all_model_checkpoint_paths` was saved (field 3;
    /// written by `tf.train.CheckpointManager`, empty for `tf.train.Saver`).
    pub all_model_checkpoint_timestamps: Vec<f64>,
    /// Time of the last checkpoint kept by `keep_checkpoint_every_n_hours` (field 4; 0 = unset).
    pub last_preserved_timestamp: f64,
}

/// Python's `repr(float)`, which `text_format.MessageToString` uses for doubles.
fn python_float_repr(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Shortest round-trip digits and decimal exponent, e.g. "1.2345e3".
    let sci = format!("{:e}", v.abs());
    let (mant, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let sign = if v < 0.0 { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let s = if exp < 0 {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        } else if exp + 1 >= n {
            format!("{digits}{}.0", "0".repeat((exp + 1 - n) as usize))
        } else {
            format!("{}.{}", &digits[..(exp + 1) as usize], &digits[(exp + 1) as usize..])
        };
        format!("{sign}{s}")
    } else {
        let m = if digits.len() == 1 { digits } else { format!("{}.{}", &digits[..1], &digits[1..]) };
        let es = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{es}{:02}", exp.abs())
    }
}

/// C-escapes a string as protobuf's Python text format does (`as_utf8`: UTF-8 kept as is).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

impl CheckpointState {
    /// The text TensorFlow writes for this state (`text_format.MessageToString`): one
    /// `name: value` line per set field and per repeated element, strings quoted and escaped,
    /// doubles as Python prints them, default-valued singular fields left out.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if !self.model_checkpoint_path.is_empty() {
            out.push_str(&format!("model_checkpoint_path: \"{}\"\n", escape(&self.model_checkpoint_path)));
        }
        for p in &self.all_model_checkpoint_paths {
            out.push_str(&format!("all_model_checkpoint_paths: \"{}\"\n", escape(p)));
        }
        for t in &self.all_model_checkpoint_timestamps {
            out.push_str(&format!("all_model_checkpoint_timestamps: {}\n", python_float_repr(*t)));
        }
        if self.last_preserved_timestamp != 0.0 {
            out.push_str(&format!("last_preserved_timestamp: {}\n", python_float_repr(self.last_preserved_timestamp)));
        }
        out
    }

    /// Parses the text format of a `CheckpointState` (paths are returned as written).
    ///
    /// Errors: `InvalidArgument` for text that is not a valid `CheckpointState`.
    pub fn parse(text: &str) -> Result<CheckpointState> {
        let mut p = TextParser { s: text.as_bytes(), pos: 0 };
        let mut st = CheckpointState::default();
        while let Some(field) = p.ident()? {
            p.skip_ws();
            if p.peek() == Some(b':') {
                p.pos += 1;
            }
            match field.as_str() {
                "model_checkpoint_path" => st.model_checkpoint_path = p.string()?,
                "all_model_checkpoint_paths" => st.all_model_checkpoint_paths.push(p.string()?),
                "all_model_checkpoint_timestamps" => st.all_model_checkpoint_timestamps.push(p.number()?),
                "last_preserved_timestamp" => st.last_preserved_timestamp = p.number()?,
                other => return Err(p.error(&format!("unknown field {other:?}"))),
            }
            p.skip_ws();
            if matches!(p.peek(), Some(b';') | Some(b',')) {
                p.pos += 1;
            }
        }
        Ok(st)
    }
}

/// A minimal tokenizer for the text format of flat messages.
struct TextParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl TextParser<'_> {
    fn error(&self, what: &str) -> Error {
        let line = 1 + self.s[..self.pos.min(self.s.len())].iter().filter(|&&c| c == b'\n').count();
        Error::invalid_argument(format!("line {line}: {what}"))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == b'#' {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.pos += 1;
                }
            } else if c.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn ident(&mut self) -> Result<Option<String>> {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            self.pos += 1;
        }
        if self.pos == start {
            return match self.peek() {
                None => Ok(None),
                Some(c) => Err(self.error(&format!("expected a field name, found {:?}", c as char))),
            };
        }
        Ok(Some(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned()))
    }

    /// One or more adjacent quoted strings, unescaped and concatenated.
    fn string(&mut self) -> Result<String> {
        self.skip_ws();
        let mut bytes = Vec::new();
        let mut any = false;
        while let Some(q @ (b'"' | b'\'')) = self.peek() {
            any = true;
            self.pos += 1;
            loop {
                let c = self.peek().ok_or_else(|| self.error("unterminated string"))?;
                self.pos += 1;
                if c == q {
                    break;
                }
                if c == b'\n' {
                    return Err(self.error("newline inside a string"));
                }
                if c != b'\\' {
                    bytes.push(c);
                    continue;
                }
                let e = self.peek().ok_or_else(|| self.error("unterminated string"))?;
                self.pos += 1;
                match e {
                    b'n' => bytes.push(b'\n'),
                    b'r' => bytes.push(b'\r'),
                    b't' => bytes.push(b'\t'),
                    b'a' => bytes.push(7),
                    b'b' => bytes.push(8),
                    b'f' => bytes.push(12),
                    b'v' => bytes.push(11),
                    b'0'..=b'7' => {
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            match self.peek() {
                                Some(d @ b'0'..=b'7') => {
                                    v = v * 8 + u32::from(d - b'0');
                                    self.pos += 1;
                                }
                                _ => break,
                            }
                        }
                        bytes.push(v as u8);
                    }
                    b'x' => {
                        let mut v = 0u32;
                        let mut n = 0;
                        while n < 2 {
                            match self.peek().and_then(|d| (d as char).to_digit(16)) {
                                Some(d) => {
                                    v = v * 16 + d;
                                    self.pos += 1;
                                    n += 1;
                                }
                                None => break,
                            }
                        }
                        if n == 0 {
                            return Err(self.error("bad \\x escape"));
                        }
                        bytes.push(v as u8);
                    }
                    b'"' | b'\'' | b'\\' | b'?' => bytes.push(e),
                    other => return Err(self.error(&format!("unknown escape \\{}", other as char))),
                }
            }
            self.skip_ws();
        }
        if !any {
            return Err(self.error("expected a quoted string"));
        }
        String::from_utf8(bytes).map_err(|_| self.error("string is not valid UTF-8"))
    }

    fn number(&mut self) -> Result<f64> {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+')) {
            self.pos += 1;
        }
        let tok = String::from_utf8_lossy(&self.s[start..self.pos]).to_ascii_lowercase();
        let (neg, body) = match tok.strip_prefix('-') {
            Some(b) => (true, b.to_string()),
            None => (false, tok.clone()),
        };
        let body = body.strip_suffix('f').filter(|b| !b.is_empty() && !b.starts_with("in")).unwrap_or(&body);
        let v = match body {
            "inf" | "infinity" => f64::INFINITY,
            "nan" => f64::NAN,
            b => b.parse::<f64>().map_err(|_| self.error(&format!("expected a number, found {tok:?}")))?,
        };
        Ok(if neg { -v } else { v })
    }
}

/// The path of the state file of `dir`.
fn state_path(dir: &Path) -> PathBuf {
    dir.join(CHECKPOINT_STATE_FILENAME)
}

/// Joins a relative checkpoint path onto `dir`, as `get_checkpoint_state` does.
fn resolve(dir: &Path, p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() {
        p.to_string()
    } else {
        dir.join(path).to_string_lossy().into_owned()
    }
}

/// Reads `dir/checkpoint` like `tf.train.get_checkpoint_state(dir)`: relative paths in it are
/// joined onto `dir`. Returns `Ok(None)` when the file does not exist.
///
/// Errors: `InvalidArgument` naming the file when it does not parse or names no
/// `model_checkpoint_path`; other I/O errors naming the file.
pub fn read_checkpoint_state(dir: impl AsRef<Path>) -> Result<Option<CheckpointState>> {
    let dir = dir.as_ref();
    let path = state_path(dir);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(e, "cannot read checkpoint state", &path)),
    };
    let text = String::from_utf8(text)
        .map_err(|_| Error::invalid_argument(format!("checkpoint state {} is not UTF-8 text", path.display())))?;
    let mut st =
        CheckpointState::parse(&text).map_err(|e| e.context(format!("bad checkpoint state {}", path.display())))?;
    if st.model_checkpoint_path.is_empty() {
        return Err(Error::invalid_argument(format!(
            "Invalid checkpoint state loaded from {}: model_checkpoint_path is empty",
            path.display()
        )));
    }
    st.model_checkpoint_path = resolve(dir, &st.model_checkpoint_path);
    for p in &mut st.all_model_checkpoint_paths {
        *p = resolve(dir, p);
    }
    Ok(Some(st))
}

/// The path as written into the state file of `dir`: relative to `dir` when it lies inside it.
fn relative_to(dir: &Path, p: &str) -> String {
    if dir.as_os_str().is_empty() {
        return p.to_string();
    }
    match Path::new(p).strip_prefix(dir) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => p.to_string(),
    }
}

/// Writes `state` to `dir/checkpoint` atomically (temporary file + rename) in the text format
/// TensorFlow writes (`update_checkpoint_state`). Paths inside `dir` (absolute, or relative
/// starting with `dir`) are written relative to `dir`, as `Saver.save` does for a relative
/// save directory or with `save_relative_paths=True`; other paths are written as given.
///
/// Errors: `InvalidArgument` when `model_checkpoint_path` is empty; I/O errors naming the file.
pub fn write_checkpoint_state(dir: impl AsRef<Path>, state: &CheckpointState) -> Result<()> {
    let dir = dir.as_ref();
    if state.model_checkpoint_path.is_empty() {
        return Err(Error::invalid_argument("a checkpoint state needs a model_checkpoint_path"));
    }
    let st = CheckpointState {
        model_checkpoint_path: relative_to(dir, &state.model_checkpoint_path),
        all_model_checkpoint_paths: state.all_model_checkpoint_paths.iter().map(|p| relative_to(dir, p)).collect(),
        all_model_checkpoint_timestamps: state.all_model_checkpoint_timestamps.clone(),
        last_preserved_timestamp: state.last_preserved_timestamp,
    };
    write_atomically(&state_path(dir), st.to_text().as_bytes())
}

/// The prefix of the newest checkpoint of `dir`, like `tf.train.latest_checkpoint(dir)`:
/// the state file's `model_checkpoint_path` joined onto `dir` when relative, if that
/// checkpoint exists (`PREFIX.index`, or a V1 file named `PREFIX`). `Ok(None)` when there is
/// no state file or the checkpoint it names is gone.
///
/// Errors: as [`read_checkpoint_state`].
pub fn latest_checkpoint(dir: impl AsRef<Path>) -> Result<Option<PathBuf>> {
    let Some(st) = read_checkpoint_state(dir)? else { return Ok(None) };
    let prefix = PathBuf::from(st.model_checkpoint_path);
    if index_path(&prefix).is_file() || prefix.is_file() {
        Ok(Some(prefix))
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_python() {
        for (v, s) in [
            (1700000000.25, "1700000000.25"),
            (1700000000.0, "1700000000.0"),
            (0.5, "0.5"),
            (1e16, "1e+16"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (-2.0, "-2.0"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(python_float_repr(v), s);
        }
    }

    #[test]
    fn text_roundtrip() {
        let st = CheckpointState {
            model_checkpoint_path: "model.ckpt-2".into(),
            all_model_checkpoint_paths: vec!["model.ckpt-1".into(), "model.ckpt-2".into()],
            all_model_checkpoint_timestamps: vec![1700000000.25, 1700000100.125],
            last_preserved_timestamp: 1699999999.5,
        };
        let text = st.to_text();
        assert_eq!(
            text,
            "model_checkpoint_path: \"model.ckpt-2\"\nall_model_checkpoint_paths: \"model.ckpt-1\"\n\
             all_model_checkpoint_paths: \"model.ckpt-2\"\nall_model_checkpoint_timestamps: 1700000000.25\n\
             all_model_checkpoint_timestamps: 1700000100.125\nlast_preserved_timestamp: 1699999999.5\n"
        );
        assert_eq!(CheckpointState::parse(&text).unwrap(), st);
        let odd = CheckpointState { model_checkpoint_path: "a\"b\\c\td\n\u{e9}'\u{1}".into(), ..Default::default() };
        assert_eq!(odd.to_text(), "model_checkpoint_path: \"a\\\"b\\\\c\\td\\n\u{e9}\\'\\001\"\n");
        assert_eq!(CheckpointState::parse(&odd.to_text()).unwrap(), odd);
        assert!(CheckpointState::parse("bogus: 1").is_err());
        assert!(CheckpointState::parse("model_checkpoint_path: \"x").is_err());
    }
}
