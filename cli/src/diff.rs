//! `tensorgraph diff A B [--json]`: compares two checkpoints tensor by tensor: names only in
//! one of them, dtype or shape differences, and for common tensors of equal dtype and shape
//! the largest absolute difference (numbers) or whether they are equal (strings).

use crate::inspect::{entry_json, float_json, listing_lines, open_checkpoint, undecodable_error};
use crate::output::write_stdout;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use tensorgraph::tensor::{fmt_dims, Storage};
use tensorgraph::{DType, Tensor};

/// Arguments of `tensorgraph diff`.
pub struct DiffArgs {
    /// The first checkpoint (prefix or directory).
    pub a: PathBuf,
    /// The second checkpoint (prefix or directory).
    pub b: PathBuf,
    /// Print JSON instead of text.
    pub json: bool,
}

/// How two tensors of one dtype and shape compare.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Elements that differ (NaN equals NaN at the same position; 0.0 equals -0.0).
    pub num_different: usize,
    /// The largest absolute difference (complex: modulus of the difference); NaN when one
    /// side has NaN where the other has a number; `None` for strings.
    pub max_abs_diff: Option<f64>,
}

fn fold_diffs(it: impl Iterator<Item = Option<f64>>) -> Comparison {
    // each item: None = equal, Some(d) = differs by d
    let mut num_different = 0;
    let mut max = 0.0f64;
    for d in it.flatten() {
        num_different += 1;
        if d.is_nan() || max.is_nan() {
            max = f64::NAN;
        } else {
            max = max.max(d);
        }
    }
    Comparison { num_different, max_abs_diff: Some(max) }
}

fn float_diff(a: f64, b: f64) -> Option<f64> {
    if a == b || (a.is_nan() && b.is_nan()) {
        None
    } else {
        Some((a - b).abs())
    }
}

fn int_diff(a: i128, b: i128) -> Option<f64> {
    (a != b).then(|| (a - b).unsigned_abs() as f64)
}

fn complex_diff(a: [f64; 2], b: [f64; 2]) -> Option<f64> {
    if float_diff(a[0], b[0]).is_none() && float_diff(a[1], b[1]).is_none() {
        None
    } else {
        Some((a[0] - b[0]).hypot(a[1] - b[1]))
    }
}

/// Compares two tensors of the same dtype and shape. `None` when the dtypes differ.
pub fn compare(a: &Tensor, b: &Tensor) -> Option<Comparison> {
    if a.dtype().is_quantized() && a.dtype() == b.dtype() {
        // quantized values compare as their integers
        let plain = |t: &Tensor| Tensor::from_storage(t.shape(), t.storage().plain().into_owned()).ok();
        return compare(&plain(a)?, &plain(b)?);
    }
    macro_rules! ints {
        ($x:expr, $y:expr) => {
            fold_diffs($x.iter().zip($y.iter()).map(|(&p, &q)| int_diff(p as i128, q as i128)))
        };
    }
    Some(match (a.storage(), b.storage()) {
        (Storage::F32(x), Storage::F32(y)) => {
            fold_diffs(x.iter().zip(y).map(|(&p, &q)| float_diff(p as f64, q as f64)))
        }
        (Storage::F64(x), Storage::F64(y)) => fold_diffs(x.iter().zip(y).map(|(&p, &q)| float_diff(p, q))),
        (Storage::F16(x), Storage::F16(y)) => {
            fold_diffs(x.iter().zip(y).map(|(p, q)| float_diff(p.to_f64(), q.to_f64())))
        }
        (Storage::BF16(x), Storage::BF16(y)) => {
            fold_diffs(x.iter().zip(y).map(|(p, q)| float_diff(p.to_f64(), q.to_f64())))
        }
        (Storage::I8(x), Storage::I8(y)) => ints!(x, y),
        (Storage::I16(x), Storage::I16(y)) => ints!(x, y),
        (Storage::I32(x), Storage::I32(y)) => ints!(x, y),
        (Storage::I64(x), Storage::I64(y)) => ints!(x, y),
        (Storage::U8(x), Storage::U8(y)) => ints!(x, y),
        (Storage::U16(x), Storage::U16(y)) => ints!(x, y),
        (Storage::U32(x), Storage::U32(y)) => ints!(x, y),
        (Storage::U64(x), Storage::U64(y)) => ints!(x, y),
        (Storage::Bool(x), Storage::Bool(y)) => ints!(x, y),
        (Storage::C64(x), Storage::C64(y)) => fold_diffs(
            x.iter().zip(y).map(|(p, q)| complex_diff([p[0] as f64, p[1] as f64], [q[0] as f64, q[1] as f64])),
        ),
        (Storage::C128(x), Storage::C128(y)) => fold_diffs(x.iter().zip(y).map(|(&p, &q)| complex_diff(p, q))),
        (Storage::Str(x), Storage::Str(y)) => {
            Comparison { num_different: x.iter().zip(y).filter(|(p, q)| p != q).count(), max_abs_diff: None }
        }
        _ => return None,
    })
}

/// The difference as text: `0`, `1.5e-7`, `nan`, `inf`.
fn fmt_diff(d: f64) -> String {
    if d == 0.0 {
        "0".into()
    } else if d.is_nan() {
        "nan".into()
    } else {
        format!("{d:?}")
    }
}

/// Runs `tensorgraph diff`. Exit status stays 0 whether or not the checkpoints differ.
/// Errors: a message for stderr (a missing or damaged checkpoint, an unreadable tensor,
/// entries of either checkpoint that cannot be decoded: those are listed first, in their own
/// section, and are never reported as "only in" the other).
pub fn run(args: &DiffArgs) -> Result<(), String> {
    for (which, p) in [("A", &args.a), ("B", &args.b)] {
        if crate::model_file::is_model_path(p) {
            // named for what it is: a GraphDef, a SavedModel's file, an event file; a file
            // that is none (a damaged V1 checkpoint, a damaged model) by what is wrong with it
            let kind = tensorgraph::io::model_file::detect(p).map_err(|e| format!("{which}: {e}"))?;
            let what = if kind.is_model() { "a model file" } else { kind.describe() };
            let advice = crate::model_file::reads_it(p, kind);
            return Err(format!(
                "{which}: {} is {what}; diff compares checkpoints (give their prefixes or directories). {advice}.",
                p.display(),
            ));
        }
    }
    let a = open_checkpoint(&args.a).map_err(|e| format!("A: {e}"))?;
    let b = open_checkpoint(&args.b).map_err(|e| format!("B: {e}"))?;
    let la: BTreeMap<String, (DType, Vec<usize>)> = a.reader.list().into_iter().map(|(n, d, s)| (n, (d, s))).collect();
    let lb: BTreeMap<String, (DType, Vec<usize>)> = b.reader.list().into_iter().map(|(n, d, s)| (n, (d, s))).collect();
    let undecodable = |r: &tensorgraph::format::checkpoint::CheckpointReader| -> Vec<(String, String)> {
        r.problems().iter().map(|p| (p.name.clone(), p.problem.clone())).collect()
    };
    let (bad_a, bad_b) = (undecodable(&a.reader), undecodable(&b.reader));
    // a name the other side has but cannot decode is reported there, not as "only in" this side
    let only = |x: &BTreeMap<String, (DType, Vec<usize>)>,
                y: &BTreeMap<String, (DType, Vec<usize>)>,
                bad_y: &[(String, String)]| {
        x.iter()
            .filter(|(n, _)| !y.contains_key(*n) && !bad_y.iter().any(|b| &b.0 == *n))
            .map(|(n, (d, s))| (n.clone(), *d, s.clone()))
            .collect::<Vec<_>>()
    };
    let only_a = only(&la, &lb, &bad_b);
    let only_b = only(&lb, &la, &bad_a);
    let mut mismatched = Vec::new();
    let mut common = Vec::new();
    for (name, (da, sa)) in &la {
        let Some((db, sb)) = lb.get(name) else { continue };
        if da != db || sa != sb {
            mismatched.push((name.clone(), (*da, sa.clone()), (*db, sb.clone())));
            continue;
        }
        let ta = a.reader.read(name).map_err(|e| format!("A: {e}"))?;
        let tb = b.reader.read(name).map_err(|e| format!("B: {e}"))?;
        let cmp = compare(&ta, &tb)
            .ok_or_else(|| format!("tensor {name}: dtypes {} and {} differ", ta.dtype(), tb.dtype()))?;
        common.push((name.clone(), *da, sa.clone(), cmp));
    }
    let num_differ = common.iter().filter(|c| c.3.num_different > 0).count();
    let identical = only_a.is_empty()
        && only_b.is_empty()
        && mismatched.is_empty()
        && num_differ == 0
        && bad_a.is_empty()
        && bad_b.is_empty();

    let out = if args.json {
        let list = |v: &[(String, DType, Vec<usize>)]| -> Vec<Value> {
            v.iter().map(|(n, d, s)| entry_json(n, *d, s)).collect()
        };
        let doc = json!({
            "a": a.prefix.display().to_string(),
            "b": b.prefix.display().to_string(),
            "only_in_a": list(&only_a),
            "only_in_b": list(&only_b),
            "mismatched": mismatched.iter().map(|(n, (da, sa), (db, sb))| json!({
                "name": n,
                "a": {"dtype": da.name(), "shape": sa},
                "b": {"dtype": db.name(), "shape": sb},
            })).collect::<Vec<_>>(),
            "common": common.iter().map(|(n, d, s, c)| json!({
                "name": n,
                "dtype": d.name(),
                "shape": s,
                "equal": c.num_different == 0,
                "num_different": c.num_different,
                "max_abs_diff": c.max_abs_diff.map(float_json).unwrap_or(Value::Null),
            })).collect::<Vec<_>>(),
            "undecodable_in_a": bad_a.iter().map(|(n, p)| json!({"name": n, "problem": p})).collect::<Vec<_>>(),
            "undecodable_in_b": bad_b.iter().map(|(n, p)| json!({"name": n, "problem": p})).collect::<Vec<_>>(),
            "identical": identical,
        });
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        text.push('\n');
        text
    } else {
        let mut t = format!("A: {}\nB: {}\n", a.prefix.display(), b.prefix.display());
        let section = |t: &mut String, title: &str, lines: Vec<String>| {
            t.push_str(&format!("{title} ({}){}\n", lines.len(), if lines.is_empty() { "" } else { ":" }));
            for l in lines {
                t.push_str("  ");
                t.push_str(l.trim_end());
                t.push('\n');
            }
        };
        for (which, bad) in [("A", &bad_a), ("B", &bad_b)] {
            if !bad.is_empty() {
                section(
                    &mut t,
                    &format!("cannot be decoded in {which}"),
                    bad.iter().map(|(n, p)| format!("{n}: {p}")).collect(),
                );
            }
        }
        section(&mut t, "only in A", listing_lines(&only_a));
        section(&mut t, "only in B", listing_lines(&only_b));
        section(
            &mut t,
            "dtype or shape differs",
            mismatched
                .iter()
                .map(|(n, (da, sa), (db, sb))| format!("{n}: A {da} {}, B {db} {}", fmt_dims(sa), fmt_dims(sb)))
                .collect(),
        );
        let entries: Vec<(String, DType, Vec<usize>)> =
            common.iter().map(|(n, d, s, _)| (n.clone(), *d, s.clone())).collect();
        let lines = listing_lines(&entries)
            .into_iter()
            .zip(&common)
            .map(|(l, (_, _, s, c))| {
                let n: usize = s.iter().product();
                let what = match c.max_abs_diff {
                    Some(d) => format!("max abs diff {}", fmt_diff(d)),
                    None if c.num_different == 0 => "equal".to_string(),
                    None => "not equal".to_string(),
                };
                let count = if c.num_different > 0 {
                    format!(" ({} of {n} elements differ)", c.num_different)
                } else {
                    String::new()
                };
                format!("{l}  {what}{count}")
            })
            .collect();
        section(&mut t, "common", lines);
        t.push_str(&format!(
            "summary: {} only in A, {} only in B, {} dtype/shape difference(s), {num_differ} of {} common tensor(s) differ{}\n",
            only_a.len(),
            only_b.len(),
            mismatched.len(),
            common.len(),
            if identical { "; identical" } else { "" }
        ));
        t
    };
    write_stdout(&out)?;
    undecodable_error(&a.reader, "A: ")?;
    undecodable_error(&b.reader, "B: ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons() {
        let a = Tensor::new(&[3], vec![1f32, f32::NAN, 0.0]).unwrap();
        let b = Tensor::new(&[3], vec![1.5f32, f32::NAN, -0.0]).unwrap();
        assert_eq!(compare(&a, &b), Some(Comparison { num_different: 1, max_abs_diff: Some(0.5) }));
        let c = Tensor::new(&[3], vec![1f32, 2.0, 0.0]).unwrap();
        assert!(compare(&a, &c).unwrap().max_abs_diff.unwrap().is_nan());
        let x = Tensor::new(&[2], vec![i64::MIN, 0]).unwrap();
        let y = Tensor::new(&[2], vec![i64::MAX, 0]).unwrap();
        assert_eq!(compare(&x, &y).unwrap().max_abs_diff, Some(u64::MAX as f64));
        let s = Tensor::strings(&[2], vec![b"a".to_vec(), b"b".to_vec()]).unwrap();
        let t = Tensor::strings(&[2], vec![b"a".to_vec(), b"c".to_vec()]).unwrap();
        assert_eq!(compare(&s, &t), Some(Comparison { num_different: 1, max_abs_diff: None }));
        assert_eq!(compare(&a, &x), None);
    }
}
