//! SavedModel directories on the command line: `tensorgraph inspect DIR` lists each meta
//! graph's tag set and signatures (as `saved_model_cli show --all`, concise), and
//! `tensorgraph run DIR --signature KEY --input KEY=FILE.npy [--tag TAG]` runs a signature
//! and prints its outputs by key.

use crate::guard::{check_output, Input, Writes};
use crate::inspect::{tensor_json, values_text};
use crate::output::write_stdout;
use crate::run::{read_npy, sanitize, write_npy, RunArgs};
use serde_json::{json, Value};
use std::path::Path;
use tensorgraph::format::proto::{RunOptions, TraceLevel};
use tensorgraph::io::saved_model::{
    read_saved_model, SavedModelBundle, Signature, TensorSpec, DEFAULT_SERVING_SIGNATURE_DEF_KEY, SERVING,
};
use tensorgraph::tensor::fmt_dims;
use tensorgraph::Tensor;

/// True when `path` is a SavedModel: a directory holding `saved_model.pb` or
/// `saved_model.pbtxt`, or one of those files.
pub fn is_saved_model(path: &Path) -> bool {
    let names = ["saved_model.pb", "saved_model.pbtxt"];
    if path.is_dir() {
        return names.iter().any(|n| path.join(n).is_file());
    }
    path.is_file() && path.file_name().and_then(|n| n.to_str()).is_some_and(|n| names.contains(&n))
}

fn spec_json(s: &TensorSpec) -> Value {
    let shape = s.shape.dims().map(|d| d.iter().map(|x| x.map_or(-1, |v| v as i64)).collect::<Vec<i64>>());
    json!({ "key": s.key, "name": s.name, "dtype": s.dtype_name, "shape": shape })
}

fn signature_json(s: &Signature) -> Value {
    json!({
        "key": s.key,
        "method_name": s.method_name,
        "inputs": s.inputs.iter().map(spec_json).collect::<Vec<_>>(),
        "outputs": s.outputs.iter().map(spec_json).collect::<Vec<_>>(),
    })
}

/// `tensorgraph inspect DIR` for a SavedModel. Text: one `MetaGraphDef with tag-set: {...}`
/// block per meta graph, each signature indented under it; JSON: `{"saved_model", "meta_graphs":
/// [{"tags", "signatures": [{"key", "method_name", "inputs", "outputs"}]}]}`.
pub fn inspect(path: &Path, as_json: bool) -> Result<(), String> {
    let model = read_saved_model(path).map_err(|e| e.to_string())?;
    let mut metas = Vec::new();
    let mut text = format!("SavedModel {}\n", path.display());
    for meta in &model.meta_graphs {
        let tags = meta.meta_info_def.as_ref().map(|m| m.tags.clone()).unwrap_or_default();
        let sigs: Vec<Signature> = meta.signature_def.iter().map(|(k, d)| Signature::from_def(k, d)).collect();
        let quoted: Vec<String> = tags.iter().map(|t| format!("\"{t}\"")).collect();
        text.push_str(&format!("MetaGraphDef with tag-set: {{{}}}\n", quoted.join(", ")));
        if sigs.is_empty() {
            text.push_str("  (no signatures)\n");
        }
        for s in &sigs {
            for line in s.to_string().lines() {
                text.push_str(&format!("  {line}\n"));
            }
        }
        metas.push(json!({ "tags": tags, "signatures": sigs.iter().map(signature_json).collect::<Vec<_>>() }));
    }
    if as_json {
        let v = json!({ "saved_model": path.display().to_string(), "meta_graphs": metas });
        text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n";
    }
    write_stdout(&text)
}

/// `tensorgraph run DIR`: loads the meta graph of `--tag`s (default `serve`), runs
/// `--signature` (default `serving_default`) with each `--input KEY=FILE.npy`, and prints
/// the outputs `--output` names (all by default) by key; `--out DIR` writes `DIR/<key>.npy`.
pub fn run(args: &RunArgs) -> Result<(), String> {
    if !args.feeds.is_empty() || !args.fetches.is_empty() || args.ckpt.is_some() {
        return Err(format!(
            "{} is a SavedModel: give its signature's inputs and outputs by key (--input KEY=FILE.npy, --output KEY) instead of --feed/--fetch, and no --ckpt (its variables/ are restored); tensorgraph inspect {} lists them",
            args.model.display(),
            args.model.display()
        ));
    }
    let tags: Vec<&str> =
        if args.tags.is_empty() { vec![SERVING] } else { args.tags.iter().map(String::as_str).collect() };
    let key = args.signature.as_deref().unwrap_or(DEFAULT_SERVING_SIGNATURE_DEF_KEY);
    let options = crate::run::session_options(args)?;
    let model = SavedModelBundle::load_with_options(&args.model, &tags, &options).map_err(|e| e.to_string())?;
    let mut inputs: Vec<(&str, Tensor)> = Vec::with_capacity(args.inputs.len());
    for spec in &args.inputs {
        let Some((k, file)) = spec.split_once('=') else {
            return Err(format!("--input {spec}: expected KEY=FILE.npy"));
        };
        inputs.push((k, read_npy(Path::new(file)).map_err(|e| format!("--input {k}: {e}"))?));
    }
    let outputs: Vec<&str> = args.outputs.iter().map(String::as_str).collect();
    // check the keys (and --out) before running
    let sig = model.signature(key).map_err(|e| e.to_string())?;
    let wanted: Vec<&TensorSpec> = if outputs.is_empty() {
        sig.outputs.iter().collect()
    } else {
        outputs.iter().filter_map(|k| sig.output(k)).collect()
    };
    if let Some(dir) = &args.out {
        let mut files = vec![Input::new("MODEL", args.model.join("saved_model.pb"))];
        files.extend(
            args.inputs.iter().filter_map(|f| f.split_once('=')).map(|(n, p)| Input::new(format!("--input {n}"), p)),
        );
        for s in &wanted {
            check_output("--out", &dir.join(format!("{}.npy", sanitize(&s.key))), Writes::Npy, &files, args.force)?;
        }
    }
    let trace = RunOptions {
        trace_level: if args.profile { TraceLevel::FullTrace } else { TraceLevel::NoTrace } as i32,
        timeout_in_ms: 0,
    };
    let (values, metadata) = model
        .run_signature_with_options(key, &inputs, &outputs, &trace)
        .map_err(|e| format!("running signature '{key}' of {}: {e}", args.model.display()))?;
    if args.profile {
        eprint!("{}", crate::profile::profile_text(&metadata, crate::profile::TOP));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut text = String::new();
    let mut items = Vec::new();
    for (k, t) in &values {
        let name = sig.output(k).map(|s| s.name.clone()).unwrap_or_default();
        let file = match &args.out {
            Some(dir) => {
                let p = dir.join(format!("{}.npy", sanitize(k)));
                write_npy(&p, t)?;
                Some(p)
            }
            None => None,
        };
        if args.json {
            let mut v = json!({ "key": k, "name": name, "dtype": t.dtype().name(), "shape": t.shape() });
            v["values"] = tensor_json(t);
            if let Some(p) = &file {
                v["file"] = Value::from(p.display().to_string());
            }
            items.push(v);
        } else {
            text.push_str(&format!("{k} ({name})  {}  {}", t.dtype(), fmt_dims(t.shape())));
            if let Some(p) = &file {
                text.push_str(&format!("  -> {}", p.display()));
            }
            text.push('\n');
            text.push_str(&format!("  {}\n", values_text(t)));
        }
    }
    if args.json {
        text = serde_json::to_string_pretty(&Value::Array(items)).map_err(|e| e.to_string())? + "\n";
    }
    write_stdout(&text)
}
