//! `tensorgraph run MODEL [--ckpt PREFIX] --feed NAME=FILE.npy ... --fetch NAME:0 ...
//! [--out DIR] [--json]`: loads a model (a frozen `.pb`, a `.pbtxt`, or a `.meta` restored
//! from a checkpoint; a checkpoint given as MODEL runs its `PREFIX.meta` restored from it),
//! feeds `.npy` files, runs the fetches once and prints them or writes them as `.npy` files
//! (read and written by the library's `Tensor::read_npy` / `write_npy`).

use crate::guard::{check_output, Input, Writes};
use crate::inspect::{entry_json, resolve_checkpoint, tensor_json, values_text};
use crate::model_info::{load_model, ModelKind};
use crate::output::write_stdout;
use crate::restore::{restore, RestoreFlags};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::meta_graph_path;
use tensorgraph::format::proto::{RunOptions, TraceLevel};
use tensorgraph::io::model_file::{checkpoint_form, detect, ModelFileKind};
use tensorgraph::tensor::fmt_dims;
use tensorgraph::{Code, DType, Graph, Operation, Output, Session, SessionOptions, Tensor};

/// Arguments of `tensorgraph run` (their doc comments are its `--help`).
#[derive(clap::Args)]
pub struct RunArgs {
    /// The model: a frozen .pb / .pbtxt GraphDef, a .meta meta graph (read by content), or
    /// a checkpoint prefix or directory with its PREFIX.meta beside it.
    pub model: PathBuf,
    /// Checkpoint to restore into a .meta model (prefix or directory).
    #[arg(long)]
    pub ckpt: Option<PathBuf>,
    /// NAME=FILE.npy: feed tensor NAME (or NAME:0) from a .npy file; repeatable.
    #[arg(long = "feed", value_name = "NAME=FILE.npy")]
    pub feeds: Vec<String>,
    /// Tensor to fetch (NAME:0); repeatable.
    #[arg(long = "fetch", value_name = "NAME:0")]
    pub fetches: Vec<String>,
    /// SavedModel: the signature to run (default serving_default).
    #[arg(long)]
    pub signature: Option<String>,
    /// SavedModel: a tag of the meta graph to load (default serve); repeatable for a tag set.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// SavedModel: KEY=FILE.npy feeds the signature's input KEY; repeatable.
    #[arg(long = "input", value_name = "KEY=FILE.npy")]
    pub inputs: Vec<String>,
    /// SavedModel: an output key to print (default: every output); repeatable.
    #[arg(long = "output", value_name = "KEY")]
    pub outputs: Vec<String>,
    /// Write each fetched tensor to DIR/<sanitized name>.npy.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Threads of the session: both ConfigProto's intra_op_parallelism_threads (threads one
    /// op splits its work over) and inter_op_parallelism_threads (ops run at once); 0 = one
    /// per core, the default.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::threads::parse_count)]
    pub threads: Option<usize>,
    /// Run the graph's ops as written: no constant folding, fusion, Identity removal or
    /// common subexpression elimination (TensorFlow's RewriterConfig
    /// disable_meta_optimizer), to compare with the optimised run.
    #[arg(long)]
    pub no_graph_optimization: bool,
    /// Replace files under --out even when they are inputs or not .npy files.
    #[arg(long)]
    pub force: bool,
    /// Trace the run (TensorFlow's RunOptions FULL_TRACE) and print, on stderr, the
    /// nodes and op types that took longest and the most memory the run's tensors held
    /// between nodes (constants and variables not counted).
    #[arg(long)]
    pub profile: bool,
    #[command(flatten)]
    pub restore: RestoreFlags,
}

/// The session options of `--threads` and `--no-graph-optimization`. Errors: the
/// message for a thread count too large.
pub(crate) fn session_options(args: &RunArgs) -> Result<SessionOptions, String> {
    let options = crate::threads::session_options(args.threads)?;
    Ok(if args.no_graph_optimization { options.without_graph_optimization() } else { options })
}

/// Reads a `.npy` file as a tensor ([`Tensor::read_npy`]). Errors: the library's message,
/// naming the file.
pub fn read_npy(path: &Path) -> Result<Tensor, String> {
    Tensor::read_npy(path).map_err(|e| e.to_string())
}

/// Writes `t` as a `.npy` file ([`Tensor::write_npy`]); bfloat16 as float32 (numpy has no
/// bfloat16). Errors: the library's message, naming the file.
pub fn write_npy(path: &Path, t: &Tensor) -> Result<(), String> {
    let t = if t.dtype() == DType::BFloat16 { t.convert(DType::Float).map_err(|e| e.to_string())? } else { t.clone() };
    t.write_npy(path).map_err(|e| e.to_string())
}

/// `probs:0` → `probs_0`, `output/logits:0` → `output_logits_0`: a file name for a tensor.
pub fn sanitize(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

/// A fetch: a tensor, or an op run for its effects.
enum Fetch {
    Tensor(Output),
    Target(Operation),
}

fn resolve_fetch(graph: &Graph, model: &Path, name: &str) -> Result<Fetch, String> {
    let err = |e: tensorgraph::Error| format!("{}: --fetch {name}: {} (in {})", e.code, e.message, model.display());
    if name.contains(':') {
        return graph.tensor_by_name(name).map(Fetch::Tensor).map_err(err);
    }
    let op = graph.operation_by_name(name).map_err(err)?;
    if op.num_outputs() == 0 {
        Ok(Fetch::Target(op))
    } else {
        op.output(0).map(Fetch::Tensor).map_err(err)
    }
}

/// The model file and checkpoint to run: MODEL and `--ckpt`, or, for a MODEL that is a
/// checkpoint (prefix, directory, `.index`, `.data-*`, state file or V1 file), its `PREFIX.meta`
/// restored from it (`--ckpt` still wins). Errors: a checkpoint without a `.meta` beside it.
fn model_and_checkpoint(args: &RunArgs) -> Result<(PathBuf, Option<PathBuf>), String> {
    let kind = match checkpoint_form(&args.model) {
        Some(kind) => kind,
        // a V1 checkpoint file (`model.ckpt-1000`, with `model.ckpt-1000.meta` beside it)
        None if matches!(detect(&args.model), Ok(ModelFileKind::V1Checkpoint)) => ModelFileKind::V1Checkpoint,
        None => return Ok((args.model.clone(), args.ckpt.clone())),
    };
    let (prefix, _) = resolve_checkpoint(&args.model)?;
    let meta = meta_graph_path(&prefix);
    if !meta.is_file() {
        return Err(format!(
            "InvalidArgument: MODEL {} is {}, and its meta graph {} does not exist; give the model's .meta, .pb or .pbtxt file, and the checkpoint to --ckpt",
            args.model.display(),
            kind.describe(),
            meta.display()
        ));
    }
    Ok((meta, Some(args.ckpt.clone().unwrap_or(prefix))))
}

fn resolve_feed(graph: &Graph, model: &Path, spec: &str) -> Result<(Output, Tensor), String> {
    let Some((name, file)) = spec.split_once('=') else {
        return Err(format!("InvalidArgument: --feed {spec}: expected NAME=FILE.npy"));
    };
    let tensor_name = if name.contains(':') { name.to_string() } else { format!("{name}:0") };
    let out = graph
        .tensor_by_name(&tensor_name)
        .map_err(|e| format!("{}: --feed {name}: {} (in {})", e.code, e.message, model.display()))?;
    let value = read_npy(Path::new(file)).map_err(|e| format!("--feed {name}: {e}"))?;
    Ok((out, value))
}

/// Runs `tensorgraph run`. Errors: a message for stderr naming the file, tensor or op.
pub fn run(args: &RunArgs) -> Result<(), String> {
    if args.signature.is_some() || !args.tags.is_empty() || !args.inputs.is_empty() || !args.outputs.is_empty() {
        return Err(format!(
            "--signature, --tag, --input and --output apply to SavedModel directories; {} is not one (it has no saved_model.pb): give tensors by name with --feed NAME=FILE.npy and --fetch NAME:0",
            args.model.display()
        ));
    }
    if args.fetches.is_empty() {
        return Err("nothing to run: give at least one --fetch NAME:0".into());
    }
    if let Some(dir) = args.out.as_deref().filter(|d| d.exists() && !d.is_dir()) {
        return Err(format!(
            "InvalidArgument: --out {} is a file; --out takes a directory (created if missing), where each fetch is written as NAME_0.npy",
            dir.display()
        ));
    }
    let (model, ckpt) = model_and_checkpoint(args)?;
    let graph = Graph::new();
    let loaded = load_model(&graph, &model, "MODEL")?;
    let sess = Session::with_options(&graph, &session_options(args)?).map_err(|e| e.to_string())?;
    match (&ckpt, loaded.kind, &loaded.saver) {
        (None, _, _) => {}
        (Some(c), ModelKind::Meta, Some(saver)) => {
            let (prefix, _) = resolve_checkpoint(c)?;
            restore(&sess, saver, &prefix, &args.restore)?;
        }
        (Some(_), ModelKind::Meta, None) => {
            return Err(format!("--ckpt: the meta graph {} has no variables to restore", model.display()))
        }
        (Some(_), ModelKind::GraphDef, _) => {
            return Err(format!(
                "--ckpt needs a .meta model: {} is a GraphDef, which holds no saver (freeze it or pass its .meta)",
                model.display()
            ))
        }
    }
    let feeds: Vec<(Output, Tensor)> =
        args.feeds.iter().map(|f| resolve_feed(&graph, &model, f)).collect::<Result<_, _>>()?;
    let fetches: Vec<(String, Fetch)> = args
        .fetches
        .iter()
        .map(|f| resolve_fetch(&graph, &model, f).map(|r| (f.clone(), r)))
        .collect::<Result<_, _>>()?;
    if let Some(dir) = &args.out {
        let mut inputs = vec![Input::new("MODEL", &model)];
        inputs.extend(
            args.feeds.iter().filter_map(|f| f.split_once('=')).map(|(n, p)| Input::new(format!("--feed {n}"), p)),
        );
        if let Some(c) = &ckpt {
            inputs.push(Input::new("--ckpt", resolve_checkpoint(c)?.0));
        }
        for (_, f) in &fetches {
            if let Fetch::Tensor(o) = f {
                check_output(
                    "--out",
                    &dir.join(format!("{}.npy", sanitize(&o.name()))),
                    Writes::Npy,
                    &inputs,
                    args.force,
                )?;
            }
        }
    }
    let tensors: Vec<&Output> =
        fetches.iter().filter_map(|(_, f)| if let Fetch::Tensor(o) = f { Some(o) } else { None }).collect();
    let targets: Vec<&Operation> =
        fetches.iter().filter_map(|(_, f)| if let Fetch::Target(o) = f { Some(o) } else { None }).collect();
    let feed_refs: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
    let trace = RunOptions {
        trace_level: if args.profile { TraceLevel::FullTrace } else { TraceLevel::NoTrace } as i32,
        timeout_in_ms: 0,
    };
    let (values, metadata) = sess.run_with_options(&trace, &feed_refs, &tensors, &targets).map_err(|e| {
        if e.code == Code::FailedPrecondition && loaded.kind == ModelKind::Meta && ckpt.is_none() {
            // the library's advice (run the initializer) is for code: a command line run
            // of a .meta gets its variables from a checkpoint
            let msg = e.to_string();
            let cut = msg.find(" Run the initializer first").map_or(msg.as_str(), |i| &msg[..i]);
            return format!(
                "running {}: {cut} Pass --ckpt PREFIX to restore the variables from a checkpoint (or give the checkpoint prefix as MODEL: its .meta beside it is used)",
                model.display()
            );
        }
        if e.code == Code::FailedPrecondition && loaded.kind == ModelKind::GraphDef {
            // a GraphDef (a TF1 training graph) has no saver and no values: each `run` is a
            // new session, so "run the initializer first" cannot be followed here
            let msg = e.to_string();
            if let Some(i) = msg.find(" Run the initializer first") {
                let var = msg.split("uninitialized value ").nth(1).and_then(|r| r.split('.').next()).unwrap_or("NAME");
                return format!(
                    "running {}: {} A GraphDef holds no variable values and each run is a new session: feed them (--feed {var}=FILE.npy), or run the model's .meta with --ckpt PREFIX, or a frozen graph",
                    model.display(),
                    &msg[..i]
                );
            }
        }
        format!("running {}: {e}", model.display())
    })?;
    if args.profile {
        eprint!("{}", crate::profile::profile_text(&metadata, crate::profile::TOP));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the --out directory {}: {e}", dir.display()))?;
    }
    let mut values = values.into_iter();
    let mut text = String::new();
    let mut items = Vec::new();
    for (name, f) in &fetches {
        let Fetch::Tensor(o) = f else {
            if args.json {
                items.push(json!({ "name": name, "ran": true }));
            } else {
                text.push_str(&format!("{name}  (op run)\n"));
            }
            continue;
        };
        let t = values.next().ok_or("internal error: missing fetch value")?;
        let file = match &args.out {
            Some(dir) => {
                let p = dir.join(format!("{}.npy", sanitize(&o.name())));
                write_npy(&p, &t)?;
                Some(p)
            }
            None => None,
        };
        if args.json {
            let mut v: Value = entry_json(&o.name(), t.dtype(), t.shape());
            v["values"] = tensor_json(&t);
            if let Some(p) = &file {
                v["file"] = Value::from(p.display().to_string());
            }
            items.push(v);
        } else {
            text.push_str(&format!("{}  {}  {}", o.name(), t.dtype(), fmt_dims(t.shape())));
            if let Some(p) = &file {
                text.push_str(&format!("  -> {}", p.display()));
            }
            text.push('\n');
            text.push_str(&format!("  {}\n", values_text(&t)));
        }
    }
    if args.json {
        let s = serde_json::to_string_pretty(&Value::Array(items)).map_err(|e| e.to_string())?;
        text = s + "\n";
    }
    write_stdout(&text)?;
    std::io::stdout().flush().ok();
    Ok(())
}
