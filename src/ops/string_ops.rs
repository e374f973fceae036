//! String ops (TensorFlow's `string_ops`): `StaticRegexFullMatch`, which TensorFlow 2's
//! checkpoint functions (`_traced_save` of every `tf.saved_model.save` output) use to test
//! whether a file prefix is an `s3://` path. `AsString` and `StringToNumber` are in
//! [`convert`], `StringLength` and `Substr` in [`substr`].

pub mod convert;
pub mod substr;

use super::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&StaticRegexFullMatch];

/// One element of a supported pattern.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    /// A byte that matches itself.
    Byte(u8),
    /// `.`: any byte but a newline (RE2's default).
    Any,
    /// `.*`: any run of bytes without a newline.
    AnyRun,
}

/// `pattern` as pieces, for the regular expressions made of literal characters (`\`
/// escapes one), `.`, `.*` and the anchors `^` at the start and `$` at the end (a full
/// match is anchored anyway). Errors: `Unimplemented` naming the pattern for anything else
/// (classes, alternation, groups, other repetitions).
fn parse(pattern: &[u8]) -> Result<Vec<Piece>> {
    let unsupported = || {
        Error::unimplemented(format!(
            "StaticRegexFullMatch pattern '{}' uses regular-expression syntax tensorgraph does not implement (it supports literal characters, '.', '.*', '^' and '$')",
            String::from_utf8_lossy(pattern)
        ))
    };
    let mut p = pattern;
    if let [b'^', rest @ ..] = p {
        p = rest;
    }
    if let [rest @ .., b'$'] = p {
        if !rest.ends_with(b"\\") {
            p = rest;
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let piece = match p[i] {
            b'\\' => {
                i += 1;
                match p.get(i) {
                    Some(&c) if !c.is_ascii_alphanumeric() => Piece::Byte(c),
                    _ => return Err(unsupported()),
                }
            }
            b'.' if p.get(i + 1) == Some(&b'*') => {
                i += 1;
                Piece::AnyRun
            }
            b'.' => Piece::Any,
            b'[' | b']' | b'(' | b')' | b'|' | b'*' | b'+' | b'?' | b'{' | b'}' | b'^' | b'$' => {
                return Err(unsupported())
            }
            c => Piece::Byte(c),
        };
        out.push(piece);
        i += 1;
    }
    Ok(out)
}

/// True when `pieces` match all of `s`.
fn full_match(pieces: &[Piece], s: &[u8]) -> bool {
    match pieces.split_first() {
        None => s.is_empty(),
        Some((Piece::Byte(b), rest)) => s.first() == Some(b) && full_match(rest, &s[1..]),
        Some((Piece::Any, rest)) => s.first().is_some_and(|&c| c != b'\n') && full_match(rest, &s[1..]),
        Some((Piece::AnyRun, rest)) => {
            let run = s.iter().position(|&c| c == b'\n').unwrap_or(s.len());
            (0..=run).any(|k| full_match(rest, &s[k..]))
        }
    }
}

/// `StaticRegexFullMatch(input)` (attr `pattern`): for each string of `input`, whether the
/// regular expression `pattern` matches all of it; a bool tensor of `input`'s shape. The
/// patterns supported are those made of literal characters, `.`, `.*`, `^` and `$`
/// (TensorFlow's own use, `^s3://.*`); another pattern is `Unimplemented` when a session
/// prepares the node. No gradient.
pub struct StaticRegexFullMatch;
impl RegisteredOp for StaticRegexFullMatch {
    fn op_type(&self) -> &'static str {
        "StaticRegexFullMatch"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_dtype(0, &[DType::String])?;
        Ok(vec![(DType::Bool, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let pattern = match node.attr("pattern")? {
            AttrValue::String(s) => s.clone(),
            other => return Err(Error::invalid_argument(format!("attr 'pattern' should be a string, got {other:?}"))),
        };
        Ok(Box::new(RegexKernel { pieces: parse(&pattern)? }))
    }
}

struct RegexKernel {
    pieces: Vec<Piece>,
}

impl Kernel for RegexKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let Storage::Str(v) = x.storage() else {
            return Err(Error::invalid_argument(format!("StaticRegexFullMatch takes strings, not {}", x.dtype())));
        };
        let out: Vec<bool> = v.iter().map(|s| full_match(&self.pieces, s)).collect();
        Ok(vec![Tensor::new(x.shape(), out)?])
    }
}

/// `tf.strings.regex_full_match(input, pattern)` with a constant pattern (op
/// `StaticRegexFullMatch`, default name `StaticRegexFullMatch`): a bool tensor of
/// `input`'s shape. Patterns as [`StaticRegexFullMatch`].
pub fn static_regex_full_match(s: &Scope, input: &Output, pattern: &str) -> Result<Output> {
    s.op("StaticRegexFullMatch", "StaticRegexFullMatch").input(input).attr("pattern", pattern).build_output()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_re2_full_matches() {
        let m = |p: &str, s: &str| full_match(&parse(p.as_bytes()).unwrap(), s.as_bytes());
        assert!(m("^s3://.*", "s3://bucket/model"));
        assert!(!m("^s3://.*", "/tmp/s3://x"));
        assert!(!m("^s3://.*", "s3://a\nb"));
        assert!(m("a.c", "abc") && !m("a.c", "ac") && m("a\\.c$", "a.c") && !m("a\\.c", "abc"));
        assert!(m(".*x.*", "yyxyy") && !m(".*x.*", "yyy"));
        for bad in ["a|b", "[ab]", "a+", "(a)", "\\d"] {
            assert_eq!(parse(bad.as_bytes()).unwrap_err().code, crate::Code::Unimplemented, "{bad}");
        }
    }
}
