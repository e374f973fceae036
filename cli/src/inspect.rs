//! `tensorgraph inspect CKPT [--values] [--json]`: lists the tensors of a checkpoint, like
//! `tf.train.list_variables` / `inspect_checkpoint`, optionally with their values.
//!
//! Also holds what `diff` shares with it: resolving a checkpoint argument (a prefix, a
//! directory with a `checkpoint` state file, or a `.index` / `.data-*` file name), value
//! formatting and writing to stdout without panicking on a closed pipe.

use crate::output::write_stdout;
use half::{bf16, f16};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::{
    find_latest_checkpoint, index_path, resolve_checkpoint_prefix, CheckpointReader, LatestCheckpoint,
};
use tensorgraph::io::model_file::{checkpoint_prefix, detect, ModelFileKind, SAVED_MODEL_HINT};
use tensorgraph::tensor::{fmt_dims, Storage};
use tensorgraph::{DType, Tensor};

/// Tensors with at most this many elements are printed in full by `--values`.
pub const FULL_VALUES: usize = 12;
/// How many leading values `--values` prints for a larger tensor.
pub const HEAD_VALUES: usize = 6;
/// Strings longer than this many bytes are cut in text output (JSON keeps them whole).
pub const STRING_BYTES: usize = 48;

/// Arguments of `tensorgraph inspect`.
pub struct InspectArgs {
    /// A checkpoint prefix, or a directory whose `checkpoint` state file names the latest one.
    pub ckpt: PathBuf,
    /// Also print values (abbreviated in text, complete in JSON).
    pub values: bool,
    /// Print JSON instead of text.
    pub json: bool,
}

/// An opened checkpoint and how it was found.
pub struct Opened {
    /// The reader of the checkpoint.
    pub reader: CheckpointReader,
    /// The prefix that was opened.
    pub prefix: PathBuf,
    /// True when the argument was a directory resolved through its state file.
    pub from_dir: bool,
}

/// Resolves a checkpoint argument to a prefix with the library's one resolution
/// ([`resolve_checkpoint_prefix`], as `CheckpointReader`, `Saver::restore` and
/// `init_from_checkpoint` take paths): a directory, or its `checkpoint` state file, goes
/// through that state file (`tf.train.latest_checkpoint`; a note on stderr when a stale
/// path was replaced); `X.index` or `X.data-NNNNN-of-NNNNN` becomes `X`; anything else is
/// taken as a prefix. Here, where a `.meta` is a model, one given as a checkpoint is
/// refused naming its prefix, and a SavedModel directory or another kind of file is named.
/// Returns the prefix and whether it came from a directory. Errors: a message saying what
/// is missing.
pub fn resolve_checkpoint(path: &Path) -> Result<(PathBuf, bool), String> {
    if path.as_os_str().is_empty() {
        return Err("empty checkpoint path".into());
    }
    let state_file = path.is_file() && path.file_name().is_some_and(|n| n == "checkpoint");
    let dir =
        if state_file { path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")) } else { path };
    if dir.is_dir() && !index_path(path).exists() {
        if matches!(detect(dir), Ok(ModelFileKind::SavedModel)) {
            return Err(format!(
                "InvalidArgument: {} is a SavedModel, not a checkpoint directory; {SAVED_MODEL_HINT}",
                dir.display()
            ));
        }
        if let Ok(Some(LatestCheckpoint { note: Some(note), .. })) = find_latest_checkpoint(dir) {
            eprintln!("note: {note}");
        }
        return resolve_checkpoint_prefix(path).map(|p| (p, true)).map_err(|e| e.to_string());
    }
    if !index_path(path).exists() && path.is_file() {
        if let Some(stem) = path.to_str().and_then(|p| p.strip_suffix(".meta")) {
            if index_path(Path::new(stem)).exists() {
                return Err(format!(
                    "{} is the model (a MetaGraphDef), not the checkpoint; the checkpoint prefix is {stem}",
                    path.display()
                ));
            }
        }
        // a file that is no checkpoint (a V1 checkpoint file is read as given)
        let checkpoint = |k: ModelFileKind| k.is_checkpoint() || k == ModelFileKind::V1Checkpoint;
        if checkpoint_prefix(path).is_none() {
            if let Some(kind) = crate::model_file::other_kind(path, checkpoint) {
                return Err(format!(
                    "InvalidArgument: {} is {}, not a checkpoint; {}",
                    path.display(),
                    kind.describe(),
                    crate::model_file::reads_it(path, kind)
                ));
            }
        }
    }
    resolve_checkpoint_prefix(path).map(|p| (p, false)).map_err(|e| e.to_string())
}

/// Resolves `path` (see [`resolve_checkpoint`]) and opens the checkpoint.
/// Errors: the resolution error or the reader's error, as a message.
pub fn open_checkpoint(path: &Path) -> Result<Opened, String> {
    let (prefix, from_dir) = resolve_checkpoint(path)?;
    let reader = CheckpointReader::open(&prefix).map_err(|e| e.to_string())?;
    Ok(Opened { reader, prefix, from_dir })
}

/// `{name, dtype, shape}` as JSON.
pub fn entry_json(name: &str, dtype: DType, shape: &[usize]) -> Value {
    json!({ "name": name, "dtype": dtype.name(), "shape": shape })
}

/// A float as JSON: a number when finite, else `"NaN"`, `"Infinity"` or `"-Infinity"`.
pub fn float_json(x: f64) -> Value {
    if x.is_nan() {
        Value::from("NaN")
    } else if x.is_infinite() {
        Value::from(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        Value::from(x)
    }
}

/// A byte string as JSON: a string when it is UTF-8, else `{"hex": "..."}`.
pub fn bytes_json(b: &[u8]) -> Value {
    match std::str::from_utf8(b) {
        Ok(s) => Value::from(s),
        Err(_) => json!({ "hex": hex(b) }),
    }
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The flat elements of `t` as JSON values (see [`float_json`], [`bytes_json`]; complex
/// numbers as `[re, im]`).
fn flat_json(t: &Tensor) -> Vec<Value> {
    match t.storage() {
        Storage::F32(v) => v.iter().map(|&x| float_json(x as f64)).collect(),
        Storage::F64(v) => v.iter().map(|&x| float_json(x)).collect(),
        Storage::F16(v) => v.iter().map(|x| float_json(x.to_f64())).collect(),
        Storage::BF16(v) => v.iter().map(|x| float_json(x.to_f64())).collect(),
        Storage::I8(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::I16(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::I32(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::I64(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::U8(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::U16(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::U32(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::U64(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::Bool(v) => v.iter().map(|&x| Value::from(x)).collect(),
        Storage::C64(v) => v.iter().map(|c| json!([float_json(c[0] as f64), float_json(c[1] as f64)])).collect(),
        Storage::C128(v) => v.iter().map(|c| json!([float_json(c[0]), float_json(c[1])])).collect(),
        Storage::Str(v) => v.iter().map(|s| bytes_json(s)).collect(),
        Storage::QI8(v) => v.iter().map(|x| Value::from(x.0)).collect(),
        Storage::QU8(v) => v.iter().map(|x| Value::from(x.0)).collect(),
        Storage::QI16(v) => v.iter().map(|x| Value::from(x.0)).collect(),
        Storage::QU16(v) => v.iter().map(|x| Value::from(x.0)).collect(),
        Storage::QI32(v) => v.iter().map(|x| Value::from(x.0)).collect(),
        Storage::Variant(v) => v.iter().map(|x| Value::from(x.type_name())).collect(),
    }
}

/// Nests `flat` (row-major) by `shape`; a 0-d tensor is its single value.
fn nest<T: Clone>(flat: &[T], shape: &[usize], wrap: &impl Fn(Vec<T>) -> T) -> T {
    match shape.split_first() {
        None => flat[0].clone(),
        Some((&d, rest)) => {
            let inner: usize = rest.iter().product();
            wrap((0..d).map(|i| nest(&flat[i * inner..(i + 1) * inner], rest, wrap)).collect())
        }
    }
}

/// The values of `t` as JSON nested by its shape (like numpy's `tolist()`).
pub fn tensor_json(t: &Tensor) -> Value {
    let flat = flat_json(t);
    if flat.is_empty() && t.shape().is_empty() {
        return Value::Null;
    }
    if flat.is_empty() {
        // shapes with a zero dimension: nest empty lists up to the first zero dimension
        let lead: Vec<usize> = t.shape().iter().copied().take_while(|&d| d != 0).collect();
        let n: usize = lead.iter().product();
        let empties = vec![Value::Array(Vec::new()); n];
        return nest(&empties, &lead, &|v| Value::Array(v));
    }
    nest(&flat, t.shape(), &|v| Value::Array(v))
}

fn fmt_f32(x: f32) -> String {
    format!("{x:?}")
}

/// `(re+imj)` like numpy; `f` formats one part.
fn fmt_complex(re: f64, im: f64, f: impl Fn(f64) -> String) -> String {
    let sign = if im.is_sign_negative() && !im.is_nan() { '-' } else { '+' };
    format!("({}{sign}{}j)", f(re), f(im.abs()))
}

fn fmt_bytes(b: &[u8]) -> String {
    let cut = &b[..b.len().min(STRING_BYTES)];
    let mut s = format!("\"{}\"", cut.escape_ascii());
    if b.len() > STRING_BYTES {
        s.push_str(&format!("...({} bytes)", b.len()));
    }
    s
}

/// The flat elements of `t` formatted for text output.
fn flat_text(t: &Tensor, limit: usize) -> Vec<String> {
    fn take<T>(v: &[T], limit: usize, f: impl Fn(&T) -> String) -> Vec<String> {
        v.iter().take(limit).map(f).collect()
    }
    match t.storage() {
        Storage::F32(v) => take(v, limit, |&x| fmt_f32(x)),
        Storage::F64(v) => take(v, limit, |x| format!("{x:?}")),
        Storage::F16(v) => take(v, limit, |x: &f16| fmt_f32(x.to_f32())),
        Storage::BF16(v) => take(v, limit, |x: &bf16| fmt_f32(x.to_f32())),
        Storage::I8(v) => take(v, limit, |x| x.to_string()),
        Storage::I16(v) => take(v, limit, |x| x.to_string()),
        Storage::I32(v) => take(v, limit, |x| x.to_string()),
        Storage::I64(v) => take(v, limit, |x| x.to_string()),
        Storage::U8(v) => take(v, limit, |x| x.to_string()),
        Storage::U16(v) => take(v, limit, |x| x.to_string()),
        Storage::U32(v) => take(v, limit, |x| x.to_string()),
        Storage::U64(v) => take(v, limit, |x| x.to_string()),
        Storage::Bool(v) => take(v, limit, |x| x.to_string()),
        Storage::C64(v) => take(v, limit, |c| fmt_complex(c[0] as f64, c[1] as f64, |x| fmt_f32(x as f32))),
        Storage::C128(v) => take(v, limit, |c| fmt_complex(c[0], c[1], |x| format!("{x:?}"))),
        Storage::Str(v) => take(v, limit, |s| fmt_bytes(s)),
        Storage::QI8(v) => take(v, limit, |x| x.0.to_string()),
        Storage::QU8(v) => take(v, limit, |x| x.0.to_string()),
        Storage::QI16(v) => take(v, limit, |x| x.0.to_string()),
        Storage::QU16(v) => take(v, limit, |x| x.0.to_string()),
        Storage::QI32(v) => take(v, limit, |x| x.0.to_string()),
        Storage::Variant(v) => take(v, limit, |x| x.type_name().to_string()),
    }
}

/// A statistic of a tensor of `dtype` for text output: as float32 for the 16/32-bit float
/// types, as an integer for integer types when exact, else as float64.
fn fmt_stat(x: f64, dtype: DType) -> String {
    match dtype {
        DType::Float | DType::Half | DType::BFloat16 => fmt_f32(x as f32),
        DType::Double => format!("{x:?}"),
        _ if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 => format!("{}", x as i64),
        _ => format!("{x:?}"),
    }
}

/// `min=.. max=.. mean=..` of a numeric tensor (NaNs are counted, and left out of min/max);
/// `None` for strings, complex numbers and empty tensors.
pub fn stats_text(t: &Tensor) -> Option<String> {
    let v = t.to_f64_vec().ok()?;
    if v.is_empty() {
        return None;
    }
    let nans = v.iter().filter(|x| x.is_nan()).count();
    let (mut lo, mut hi, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
    for &x in v.iter().filter(|x| !x.is_nan()) {
        lo = lo.min(x);
        hi = hi.max(x);
        sum += x;
    }
    let mut s = if nans == v.len() {
        String::from("all NaN")
    } else {
        let mean = sum / (v.len() - nans) as f64;
        let d = t.dtype();
        let mean = if matches!(d, DType::Double) { format!("{mean:?}") } else { fmt_f32(mean as f32) };
        format!("min={} max={} mean={mean}", fmt_stat(lo, d), fmt_stat(hi, d))
    };
    if nans > 0 && nans < v.len() {
        s.push_str(&format!(" nan={nans}"));
    }
    Some(s)
}

/// One line of values for text output: the whole tensor nested by shape when it has at most
/// [`FULL_VALUES`] elements, else the first [`HEAD_VALUES`] values, the count and the stats.
pub fn values_text(t: &Tensor) -> String {
    let n = t.num_elements();
    if n <= FULL_VALUES {
        if n == 0 {
            return format!("[] (empty, shape {})", fmt_dims(t.shape()));
        }
        let flat = flat_text(t, n);
        return nest(&flat, t.shape(), &|v| format!("[{}]", v.join(", ")));
    }
    let head = flat_text(t, HEAD_VALUES);
    let mut s = format!("[{}, ...] ({n} values)", head.join(", "));
    if let Some(st) = stats_text(t) {
        s.push_str("  ");
        s.push_str(&st);
    }
    s
}

/// Text lines `name  dtype  shape`, names padded to a common width.
/// Shapes are padded too, so that text appended to the lines lines up.
pub fn listing_lines(entries: &[(String, DType, Vec<usize>)]) -> Vec<String> {
    let w = entries.iter().map(|e| e.0.chars().count()).max().unwrap_or(0).min(64);
    let shapes: Vec<String> = entries.iter().map(|e| fmt_dims(&e.2)).collect();
    let sw = shapes.iter().map(|s| s.len()).max().unwrap_or(0).min(32);
    entries.iter().zip(shapes).map(|((n, d, _), s)| format!("{n:<w$}  {:<10} {s:<sw$}", d.name())).collect()
}

/// The error for entries of `reader` that cannot be decoded (none: `Ok`), naming each with its
/// problem; `inspect` and `diff` list them and then fail with it.
pub fn undecodable_error(reader: &CheckpointReader, which: &str) -> Result<(), String> {
    let problems = reader.problems();
    if problems.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = problems.iter().map(|p| format!("{} ({})", p.name, p.problem)).collect();
    Err(format!(
        "{which}{} entr{} of checkpoint {} cannot be decoded: {}",
        problems.len(),
        if problems.len() == 1 { "y" } else { "ies" },
        reader.prefix().display(),
        list.join("; ")
    ))
}

/// Runs `tensorgraph inspect`. Errors: a message for stderr (missing or damaged checkpoint,
/// unreadable tensor, entries that cannot be decoded: those are listed first, with their
/// problem).
pub fn run(args: &InspectArgs) -> Result<(), String> {
    if crate::model_file::is_model_path(&args.ckpt) {
        if args.values {
            eprintln!("note: --values applies to checkpoints; a model file is summarized without values");
        }
        return crate::model_info::inspect(&args.ckpt, args.json);
    }
    let opened = open_checkpoint(&args.ckpt)?;
    if opened.from_dir && !args.json {
        eprintln!("checkpoint: {}", opened.prefix.display());
    }
    let entries = opened.reader.list();
    let read = |name: &str| opened.reader.read(name).map_err(|e| e.to_string());
    let out = if args.json {
        let mut items = Vec::with_capacity(entries.len());
        for (n, d, s) in &entries {
            let mut v = entry_json(n, *d, s);
            if args.values {
                v["values"] = tensor_json(&read(n)?);
            }
            items.push(v);
        }
        for p in opened.reader.problems() {
            items.push(json!({"name": p.name, "problem": p.problem}));
        }
        let mut text = serde_json::to_string_pretty(&Value::Array(items)).map_err(|e| e.to_string())?;
        text.push('\n');
        text
    } else {
        let mut text = String::new();
        for ((n, _, _), line) in entries.iter().zip(listing_lines(&entries)) {
            text.push_str(line.trim_end());
            text.push('\n');
            if args.values {
                text.push_str("    ");
                text.push_str(&values_text(&read(n)?));
                text.push('\n');
            }
        }
        for p in opened.reader.problems() {
            text.push_str(&format!("{}  cannot be decoded: {}\n", p.name, p.problem));
        }
        text
    };
    write_stdout(&out)?;
    undecodable_error(&opened.reader, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let t = Tensor::new(&[2, 2], vec![1f32, -0.5, f32::NAN, 3.0]).unwrap();
        assert_eq!(values_text(&t), "[[1.0, -0.5], [NaN, 3.0]]");
        assert_eq!(tensor_json(&t), json!([[1.0, -0.5], ["NaN", 3.0]]));
        let big = Tensor::new(&[20], (0..20i32).collect()).unwrap();
        assert_eq!(values_text(&big), "[0, 1, 2, 3, 4, 5, ...] (20 values)  min=0 max=19 mean=9.5");
        assert_eq!(tensor_json(&Tensor::scalar(7i64)), json!(7));
        assert_eq!(tensor_json(&Tensor::zeros(DType::Float, &[2, 0])), json!([[], []]));
        assert_eq!(tensor_json(&Tensor::zeros(DType::Float, &[0, 3])), json!([]));
    }
}
