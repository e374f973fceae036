//! `tensorgraph events FILE_OR_DIR [--json] [--tag T]`: the events of TensorBoard event
//! files (files, steps, wall times, tags, values; a histogram as its bucket counts).

use crate::output::write_stdout;
use serde_json::{json, Value};
use std::path::PathBuf;
use tensorgraph::format::proto::{Event, EventKind, GraphDef, MetaGraphDef, SummaryKind, SummaryValue};
use tensorgraph::io::model_file::ModelFileKind;
use tensorgraph::train::summary::{event_files, EventFileReader};

/// What `events` was asked.
pub struct EventsArgs {
    pub path: PathBuf,
    pub json: bool,
    pub tag: Option<String>,
}

/// A float32 as JSON with its shortest decimal form (0.1, not 0.10000000149011612); NaN
/// and infinities as the strings "NaN", "Infinity", "-Infinity".
fn f32_json(x: f32) -> Value {
    match format!("{x}").parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => json!("NaN"),
        None => json!(if x > 0.0 { "Infinity" } else { "-Infinity" }),
    }
}

/// One summary value as JSON: tag, kind and its value.
fn value_json(v: &SummaryValue) -> Value {
    let mut o = json!({ "tag": v.tag });
    let (kind, val) = match &v.value {
        Some(SummaryKind::SimpleValue(x)) => ("scalar", f32_json(*x)),
        Some(SummaryKind::Histo(h)) => (
            "histogram",
            json!({"min": h.min, "max": h.max, "num": h.num, "sum": h.sum, "sum_squares": h.sum_squares,
                   "bucket_limit": h.bucket_limit, "bucket": h.bucket}),
        ),
        Some(SummaryKind::Image(i)) => (
            "image",
            json!({"height": i.height, "width": i.width, "colorspace": i.colorspace, "png_bytes": i.encoded_image_string.len()}),
        ),
        Some(SummaryKind::Tensor(t)) if !showable(t) => {
            // a short value list may stand for a large shape (a splat): expanding it to show
            // it would allocate up to 1 GiB, and 8 times that as numbers, from a few bytes
            ("tensor", json!({"shape": shape_of(t), "elements": elements(t), "values": "not shown"}))
        }
        Some(SummaryKind::Tensor(t)) => {
            let strings: Vec<String> = t.string_val.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect();
            match t.to_tensor().ok().and_then(|t| t.to_f64_vec().ok()) {
                Some(n) if strings.is_empty() => ("tensor", json!({"shape": shape_of(t), "values": n})),
                _ => ("tensor", json!({"shape": shape_of(t), "strings": strings})),
            }
        }
        Some(SummaryKind::Audio(a)) => ("audio", json!({"sample_rate": a.sample_rate, "frames": a.length_frames})),
        Some(SummaryKind::ObsoleteOldStyleHistogram(b)) => ("old_histogram", json!(b.len())),
        None => ("none", Value::Null),
    };
    o["kind"] = json!(kind);
    o["value"] = val;
    if let Some(p) = v.metadata.as_ref().and_then(|m| m.plugin_data.as_ref()) {
        o["plugin"] = json!(p.plugin_name);
    }
    o
}

/// The most elements of a tensor summary that are shown as values (8 MiB as f64).
const MAX_SHOWN_ELEMENTS: i64 = 1 << 20;

/// The number of elements of `t`'s shape; `None` when it overflows.
fn elements(t: &tensorgraph::format::proto::TensorProto) -> Option<i64> {
    shape_of(t).iter().try_fold(1i64, |n, &d| n.checked_mul(d.max(0)))
}

/// Whether `t`'s values are few enough to show (see [`MAX_SHOWN_ELEMENTS`]).
fn showable(t: &tensorgraph::format::proto::TensorProto) -> bool {
    elements(t).is_some_and(|n| n <= MAX_SHOWN_ELEMENTS)
}

fn shape_of(t: &tensorgraph::format::proto::TensorProto) -> Vec<i64> {
    t.tensor_shape.as_ref().map(|s| s.dim.iter().map(|d| d.size).collect()).unwrap_or_default()
}

/// The JSON objects of one event: one per summary value (those tagged `tag` when given),
/// or one for another kind of event (none when a tag is given).
fn event_json(file: &str, e: &Event, tag: Option<&str>) -> Vec<Value> {
    let base = json!({"file": file, "step": e.step, "wall_time": e.wall_time});
    let with = |mut o: Value, extra: Value| {
        for (k, v) in extra.as_object().into_iter().flatten() {
            o[k] = v.clone();
        }
        o
    };
    match &e.what {
        Some(EventKind::Summary(s)) => s
            .value
            .iter()
            .filter(|v| tag.is_none_or(|t| v.tag == t))
            .map(|v| with(base.clone(), value_json(v)))
            .collect(),
        _ if tag.is_some() => vec![],
        Some(EventKind::FileVersion(v)) => vec![with(base, json!({"kind": "file_version", "value": v}))],
        Some(EventKind::GraphDef(b)) => {
            let nodes = prost::Message::decode(b.as_slice()).map(|g: GraphDef| g.node.len());
            vec![with(base, graph_json("graph_def", b.len(), nodes))]
        }
        Some(EventKind::MetaGraphDef(b)) => {
            let nodes =
                prost::Message::decode(b.as_slice()).map(|m: MetaGraphDef| m.graph_def.map_or(0, |g| g.node.len()));
            vec![with(base, graph_json("meta_graph_def", b.len(), nodes))]
        }
        Some(EventKind::SessionLog(l)) => {
            let status = ["UNSPECIFIED", "START", "STOP", "CHECKPOINT"].get(l.status as usize).copied().unwrap_or("?");
            vec![with(
                base,
                json!({"kind": "session_log", "value": {"status": status, "msg": l.msg, "checkpoint_path": l.checkpoint_path}}),
            )]
        }
        Some(EventKind::TaggedRunMetadata(t)) => {
            vec![with(base, json!({"kind": "run_metadata", "tag": t.tag, "value": {"bytes": t.run_metadata.len()}}))]
        }
        Some(EventKind::LogMessage(m)) => vec![with(base, json!({"kind": "log_message", "value": m.message}))],
        None => vec![with(base, json!({"kind": "none"}))],
    }
}

/// A graph event as JSON: its size and node count, or, for bytes that do not decode, why
/// (`"nodes": null` and `"error"`), so a damaged graph is not shown as an empty one.
fn graph_json(kind: &str, bytes: usize, nodes: Result<usize, prost::DecodeError>) -> Value {
    match nodes {
        Ok(n) => json!({"kind": kind, "value": {"bytes": bytes, "nodes": n}}),
        Err(e) => {
            json!({"kind": kind, "value": {"bytes": bytes, "nodes": null, "error": format!("not a {}: {e}", if kind == "graph_def" { "GraphDef" } else { "MetaGraphDef" })}})
        }
    }
}

/// One line of text for an event's JSON object.
fn text_line(o: &Value) -> String {
    let head = format!("step {:>6}  {:.3}  ", o["step"].as_i64().unwrap_or(0), o["wall_time"].as_f64().unwrap_or(0.0));
    let v = &o["value"];
    let body = match o["kind"].as_str().unwrap_or("") {
        "scalar" => format!("{}  scalar  {}", o["tag"].as_str().unwrap_or(""), v),
        "histogram" => format!(
            "{}  histogram  num {} min {} max {} sum {}  bucket counts {}",
            o["tag"].as_str().unwrap_or(""),
            v["num"],
            v["min"],
            v["max"],
            v["sum"],
            v["bucket"]
        ),
        "image" => {
            format!("{}  image  {}x{}x{}", o["tag"].as_str().unwrap_or(""), v["height"], v["width"], v["colorspace"])
        }
        "tensor" => format!("{}  tensor  {}", o["tag"].as_str().unwrap_or(""), v),
        "graph_def" | "meta_graph_def" => match v["error"].as_str() {
            Some(e) => format!("{}  {} bytes, {e}", o["kind"].as_str().unwrap_or(""), v["bytes"]),
            None => format!("{}  {} nodes, {} bytes", o["kind"].as_str().unwrap_or(""), v["nodes"], v["bytes"]),
        },
        "file_version" => format!("file_version  {}", v.as_str().unwrap_or("")),
        k => format!("{k}  {}", v),
    };
    head + &body
}

/// Runs the command: every event file at `args.path`, in path order. A file that cannot be
/// read to its end (a corrupt record, a record that is not an `Event`) does not hide the
/// rest: every record before the bad one and every other file is printed first, then the
/// command fails naming each bad file and the record's byte offset (as TensorFlow's
/// `summary_iterator` yields the good records before it raises). Errors: no event files,
/// a damaged file, or a `--tag` no summary value has (naming the tags there are).
pub fn run(args: &EventsArgs) -> Result<(), String> {
    // a file that is something else (a checkpoint, a model, a SavedModel's file) is named as
    // such rather than read as a damaged event file
    let tfrecord = |k: ModelFileKind| matches!(k, ModelFileKind::EventFile | ModelFileKind::TfRecord);
    if let Some(kind) = crate::model_file::other_kind(&args.path, tfrecord) {
        return Err(format!(
            "InvalidArgument: {} is {}, not a TensorBoard event file; {}",
            args.path.display(),
            kind.describe(),
            crate::model_file::reads_it(&args.path, kind)
        ));
    }
    let files = event_files(&args.path).map_err(|e| e.to_string())?;
    if files.is_empty() {
        return Err(format!("{}: no event files (events.out.tfevents.*) in it", args.path.display()));
    }
    let mut text = String::new();
    // the tags seen, to name them when --tag matched nothing
    let (mut tags, mut matched) = (std::collections::BTreeSet::new(), false);
    // the files that could not be read to their end, reported after everything readable
    let mut errors = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let mut reader = match EventFileReader::open(&file) {
            Ok(r) => r,
            Err(e) => {
                errors.push(e.to_string());
                continue;
            }
        };
        if !args.json {
            text.push_str(&format!("{name}\n"));
        }
        for event in reader.by_ref() {
            let event = match event {
                Ok(e) => e,
                Err(e) => {
                    errors.push(e.to_string());
                    break;
                }
            };
            let rows = event_json(&name, &event, args.tag.as_deref());
            if let (Some(_), Some(EventKind::Summary(summary))) = (&args.tag, &event.what) {
                tags.extend(summary.value.iter().map(|v| v.tag.clone()));
                matched |= !rows.is_empty();
            }
            for o in rows {
                if args.json {
                    text.push_str(&o.to_string());
                } else {
                    text.push_str("  ");
                    text.push_str(&text_line(&o));
                }
                text.push('\n');
            }
        }
        if let Some(w) = reader.warning() {
            eprintln!("warning: {w}");
        }
    }
    if !errors.is_empty() {
        write_stdout(&text)?;
        return Err(match errors.len() {
            1 => errors.remove(0),
            n => format!(
                "{n} event files could not be read to their end (the records before each were printed):\n  {}",
                errors.join("\n  ")
            ),
        });
    }
    match &args.tag {
        Some(tag) if !matched => Err(format!(
            "no summary value is tagged '{tag}' in {}; its tags: {}",
            args.path.display(),
            if tags.is_empty() { "none".to_string() } else { tags.into_iter().collect::<Vec<_>>().join(", ") }
        )),
        _ => write_stdout(&text),
    }
}
