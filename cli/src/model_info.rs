//! Models on the command line: loading a model file (see [`crate::model_file`]) into a
//! graph (`run`, `freeze`), and `tensorgraph inspect MODEL`: op types with counts, the op
//! types tensorgraph does not implement, placeholders with dtype and shape, and the nodes
//! nothing consumes.

use crate::model_file::{op_counts_text, op_type_counts, read_model, unsupported_op_types, warn_unknown_ops};
use crate::output::write_stdout;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use tensorgraph::format::proto::{data_type_name, dtype_from_proto, AttrValue, AttrValueKind, GraphDef, NodeDef};
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::io::model_file::Model;
use tensorgraph::ops::array::PLACEHOLDER_SCALAR_MEANS_ANY_UNTIL;
use tensorgraph::train::Saver;
use tensorgraph::Graph;

/// What a model file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// A `GraphDef` (`.pb` binary or `.pbtxt` text).
    GraphDef,
    /// A `MetaGraphDef` (`.meta`).
    Meta,
}

/// A model loaded into a graph.
pub struct Loaded {
    /// What the file was.
    pub kind: ModelKind,
    /// The meta graph's saver (`None` for a GraphDef or a graph without variables).
    pub saver: Option<Saver>,
}

/// Loads the model file `path` (given as argument `arg`, e.g. `MODEL`) into `graph` with
/// its names unchanged, by its content (see [`read_model`]): a meta graph with
/// `Graph::import_meta_graph`'s semantics (collections and a saver), a GraphDef as
/// `tf.import_graph_def(name="")`. Nodes of op types tensorgraph does not implement are
/// kept, with a warning on stderr (see [`warn_unknown_ops`]); a run that needs one fails.
/// Errors: a message naming the file (missing, a directory, empty, damaged).
pub fn load_model(graph: &Graph, path: &Path, arg: &str) -> Result<Loaded, String> {
    let file = read_model(path, arg)?;
    let ctx = |e: tensorgraph::Error| format!("loading {}: {e}", path.display());
    let loaded = match &file.model {
        Model::Meta(meta) => {
            let origin = format!("imported from {}", path.display());
            let saver = graph.import_meta_graph_def(meta, &ImportMetaGraphOptions::default(), &origin).map_err(ctx)?;
            Loaded { kind: ModelKind::Meta, saver }
        }
        Model::Graph(gd) => {
            import_graph_def(graph, gd, &ImportGraphDefOptions::new().prefix("")).map_err(ctx)?;
            Loaded { kind: ModelKind::GraphDef, saver: None }
        }
    };
    warn_unknown_ops(graph, path);
    Ok(loaded)
}

fn dtype_name(v: &AttrValue) -> String {
    match &v.value {
        Some(AttrValueKind::Type(t)) => {
            dtype_from_proto(*t).map(|d| d.name().to_string()).unwrap_or_else(|_| data_type_name(*t))
        }
        _ => "?".into(),
    }
}

/// `[?,4]` for a shape attr (`?` unknown dimension), `<unknown>` for unknown rank.
fn shape_text(v: Option<&AttrValue>) -> (String, Value) {
    match v.and_then(|v| v.value.as_ref()) {
        Some(AttrValueKind::Shape(s)) if !s.unknown_rank => {
            let dims: Vec<String> =
                s.dim.iter().map(|d| if d.size < 0 { "?".into() } else { d.size.to_string() }).collect();
            let json: Vec<Value> =
                s.dim.iter().map(|d| if d.size < 0 { Value::Null } else { Value::from(d.size) }).collect();
            (format!("[{}]", dims.join(",")), Value::Array(json))
        }
        _ => ("<unknown>".into(), Value::Null),
    }
}

/// True for a `Placeholder` whose `shape` attr is `{}` (rank 0) in a GraphDef of producer
/// `producer` up to 21, where TensorFlow reads it as any shape
/// ([`PLACEHOLDER_SCALAR_MEANS_ANY_UNTIL`]).
fn any_shape(n: &NodeDef, producer: i32) -> bool {
    let scalar_attr = match n.attr.get("shape").and_then(|v| v.value.as_ref()) {
        Some(AttrValueKind::Shape(s)) => !s.unknown_rank && s.dim.is_empty(),
        _ => false,
    };
    n.op == "Placeholder" && producer <= PLACEHOLDER_SCALAR_MEANS_ANY_UNTIL && scalar_attr
}

fn node_name(input: &str) -> &str {
    let s = input.strip_prefix('^').unwrap_or(input);
    match s.rsplit_once(':') {
        Some((n, idx)) if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => s,
    }
}

/// Summary of a GraphDef: op type counts, placeholders, unconsumed nodes.
struct Summary<'a> {
    op_types: BTreeMap<&'a str, usize>,
    placeholders: Vec<&'a NodeDef>,
    outputs: Vec<&'a NodeDef>,
}

fn summarize(gd: &GraphDef) -> Summary<'_> {
    let op_types = op_type_counts(gd);
    let consumed: HashSet<&str> = gd.node.iter().flat_map(|n| n.input.iter().map(|i| node_name(i))).collect();
    let placeholders =
        gd.node.iter().filter(|n| matches!(n.op.as_str(), "Placeholder" | "PlaceholderWithDefault")).collect();
    let outputs = gd.node.iter().filter(|n| !consumed.contains(n.name.as_str())).collect();
    Summary { op_types, placeholders, outputs }
}

/// Runs `tensorgraph inspect MODEL` for a model file (read by its content, see
/// [`read_model`]). The summary is printed, then the model is imported into a new graph as
/// `run` and `freeze` load it ([`load_model`]'s semantics): a model that does not import
/// (names pointing to nothing, bad attrs, ...) is an error listing its problems, after the
/// summary. Errors: a message naming the file.
pub fn inspect(path: &Path, json_out: bool) -> Result<(), String> {
    let file = read_model(path, "MODEL")?;
    let gd = file.graph_def();
    let meta = match &file.model {
        Model::Meta(m) => Some(m),
        Model::Graph(_) => None,
    };
    let s = summarize(&gd);
    let unsupported = unsupported_op_types(&gd, &s.op_types);
    let format = if meta.is_some() { "MetaGraphDef" } else { "GraphDef" };
    let text_encoded = file.kind.is_text();
    let collections: Vec<String> =
        meta.as_ref().map(|m| m.collection_def.keys().cloned().collect()).unwrap_or_default();
    // a GraphDef without versions is version 0, as TensorFlow reads it
    let producer = gd.versions.as_ref().map_or(0, |v| v.producer);
    let placeholder = |n: &NodeDef| {
        let (shape, shape_json) = if any_shape(n, producer) {
            ("<unknown>".to_string(), Value::Null)
        } else {
            shape_text(n.attr.get("shape"))
        };
        let dtype = n.attr.get("dtype").map(dtype_name).unwrap_or_else(|| "?".into());
        (dtype, shape, shape_json)
    };
    let out = if json_out {
        let v = json!({
            "file": path.display().to_string(),
            "format": format,
            "encoding": if text_encoded { "text" } else { "binary" },
            "nodes": gd.node.len(),
            "op_types": s.op_types,
            "unsupported_op_types": unsupported.iter().map(|(k, c)| (k.to_string(), Value::from(*c))).collect::<serde_json::Map<_, _>>(),
            "placeholders": s.placeholders.iter().map(|n| {
                let (dtype, _, shape) = placeholder(n);
                json!({"name": n.name, "op": n.op, "dtype": dtype, "shape": shape})
            }).collect::<Vec<_>>(),
            "outputs": s.outputs.iter().map(|n| json!({"name": n.name, "op": n.op})).collect::<Vec<_>>(),
            "collections": collections,
        });
        serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
    } else {
        let encoding = if text_encoded { " (text)" } else { "" };
        let mut t = format!("{}: {format}{encoding}, {} nodes\n", path.display(), gd.node.len());
        t.push_str(&format!("op types ({}):\n", s.op_types.len()));
        let w = s.op_types.keys().map(|k| k.len()).max().unwrap_or(0);
        for (k, c) in &s.op_types {
            t.push_str(&format!("  {k:<w$}  {c}\n"));
        }
        if !unsupported.is_empty() {
            t.push_str(&format!("unsupported op types: {}\n", op_counts_text(&unsupported)));
        }
        t.push_str(&format!("placeholders ({}):\n", s.placeholders.len()));
        let w = s.placeholders.iter().map(|n| n.name.len()).max().unwrap_or(0);
        for n in &s.placeholders {
            let (dtype, shape, _) = placeholder(n);
            let note = if n.op == "PlaceholderWithDefault" {
                "  (with default)".to_string()
            } else if any_shape(n, producer) {
                format!("  (shape {{}} in a GraphDef of producer {producer} <= 21: any shape)")
            } else {
                String::new()
            };
            t.push_str(&format!("  {:<w$}  {dtype:<8} {shape}{note}\n", n.name));
        }
        t.push_str(&format!("outputs (nodes nothing consumes) ({}):\n", s.outputs.len()));
        let w = s.outputs.iter().map(|n| n.name.len()).max().unwrap_or(0);
        for n in &s.outputs {
            t.push_str(&format!("  {:<w$}  {}\n", n.name, n.op));
        }
        if !collections.is_empty() {
            t.push_str(&format!("collections: {}\n", collections.join(", ")));
        }
        t
    };
    write_stdout(&out)?;
    // what `run` and `freeze` would meet: the import's problems, all in one error
    let graph = Graph::new();
    let imported = match &file.model {
        Model::Meta(m) => graph.import_meta_graph_def(m, &ImportMetaGraphOptions::default(), "inspect").map(|_| ()),
        Model::Graph(gd) => import_graph_def(&graph, gd, &ImportGraphDefOptions::new().prefix("")).map(|_| ()),
    };
    imported.map_err(|e| format!("MODEL {} does not import ({format} summarized above): {e}", path.display()))?;
    // the summary lists unknown op types; function calls kept uninstantiated are warned of
    let gd = match &file.model {
        Model::Meta(m) => m.graph_def.as_ref(),
        Model::Graph(gd) => Some(gd),
    };
    let calls: Vec<tensorgraph::Operation> = graph
        .unknown_ops()
        .into_iter()
        .filter(|op| gd.is_some_and(|gd| tensorgraph::io::graph_def::runs_op_type(gd, &op.op_type())))
        .collect();
    if let Some(w) = tensorgraph::ops::unknown::unknown_ops_warning_for(&calls) {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(())
}
