//! `tensorgraph freeze [--meta M] --ckpt PREFIX --outputs a,b -o frozen.pb`: imports a meta
//! graph (by default the checkpoint's `PREFIX.meta`), restores the checkpoint through its
//! saver and writes the frozen GraphDef
//! (`tf.compat.v1.graph_util.convert_variables_to_constants`): binary for `-o *.pb`, text for
//! `-o *.pbtxt`, either for another name only with `--binary` or `--as-text`. It never writes
//! over its inputs or a file of another kind without `--force`.

use crate::guard::{check_output, Input, Writes};
use crate::inspect::resolve_checkpoint;
use crate::model_info::{load_model, ModelKind};
use crate::restore::{restore, RestoreFlags};
use std::path::{Path, PathBuf};
use tensorgraph::format::checkpoint::meta_graph_path;
use tensorgraph::io::graph_def::{freeze, write_graph_def, write_graph_def_text};
use tensorgraph::io::model_file::ModelFileKind;
use tensorgraph::{Graph, Session};

/// Arguments of `tensorgraph freeze`.
pub struct FreezeArgs {
    /// The `.meta` file (`None`: the checkpoint's `PREFIX.meta`).
    pub meta: Option<PathBuf>,
    /// The checkpoint (prefix or directory with a `checkpoint` state file).
    pub ckpt: PathBuf,
    /// Output node names.
    pub outputs: Vec<String>,
    /// The frozen GraphDef to write.
    pub output: PathBuf,
    /// Write the text format whatever the name (`--as-text`).
    pub as_text: bool,
    /// Write the binary format whatever the name (`--binary`).
    pub binary: bool,
    /// Replace `output` even when it is an input or a file of another kind.
    pub force: bool,
    /// How to restore (`--trainable-only`, `--map`).
    pub restore: RestoreFlags,
}

/// Whether `-o` gets the text format: `--as-text` / `--binary`, else by its extension
/// (`.pb`/`.graphdef` binary, `.pbtxt`/`.pbtext`/`.txt` text). Errors: a `.meta` name, or a
/// name that says neither.
fn text_output(args: &FreezeArgs) -> Result<bool, String> {
    let out = args.output.display();
    match ModelFileKind::by_extension(&args.output) {
        Some(k) if k.is_meta() => Err(format!(
            "InvalidArgument: -o {out}: a frozen graph is a GraphDef; name it .pb (binary) or .pbtxt (text), not .meta"
        )),
        _ if args.as_text => Ok(true),
        _ if args.binary => Ok(false),
        Some(ModelFileKind::TextGraphDef) => Ok(true),
        Some(_) => Ok(false),
        None => Err(format!(
            "InvalidArgument: -o {out}: the name does not say binary or text; name it .pb (binary GraphDef) or .pbtxt (text), or pass --binary or --as-text"
        )),
    }
}

/// The meta graph to load: `--meta`, else the checkpoint's `PREFIX.meta`.
fn meta_path(args: &FreezeArgs, prefix: &Path) -> Result<PathBuf, String> {
    if let Some(m) = &args.meta {
        return Ok(m.clone());
    }
    let meta = meta_graph_path(prefix);
    if meta.is_file() {
        Ok(meta)
    } else {
        Err(format!(
            "NotFound: no --meta given, and the checkpoint {} has no meta graph beside it ({} does not exist); pass --meta with the .meta file it was saved with",
            prefix.display(),
            meta.display()
        ))
    }
}

/// Runs `tensorgraph freeze`. Errors: a message naming the file or node.
pub fn run(args: &FreezeArgs) -> Result<(), String> {
    let outputs: Vec<&str> = args.outputs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    if outputs.is_empty() {
        return Err("--outputs: give at least one output node name (e.g. --outputs probs)".into());
    }
    if args.output.is_dir() {
        return Err(format!(
            "InvalidArgument: -o {} is a directory; give the file to write, such as {}",
            args.output.display(),
            args.output.join("frozen.pb").display()
        ));
    }
    let (prefix, _) = resolve_checkpoint(&args.ckpt)?;
    let meta = meta_path(args, &prefix)?;
    let inputs = [Input::new("--meta", &meta), Input::new("--ckpt", &prefix)];
    check_output("-o", &args.output, Writes::GraphDef, &inputs, args.force)?;
    let as_text = text_output(args)?;
    let graph = Graph::new();
    let loaded = load_model(&graph, &meta, "--meta")?;
    let sess = Session::new(&graph).map_err(|e| e.to_string())?;
    match &loaded.saver {
        Some(saver) => restore(&sess, saver, &prefix, &args.restore)?,
        None if loaded.kind == ModelKind::GraphDef
            && graph.operations().iter().any(|o| matches!(o.op_type().as_str(), "Variable" | "VariableV2" | "VarHandleOp")) =>
        {
            return Err(format!(
                "--meta {} is a GraphDef, which holds no saver to restore --ckpt with; pass the .meta file the checkpoint was saved with",
                meta.display()
            ))
        }
        None => eprintln!("freeze: {} has no variables; nothing restored", meta.display()),
    }
    let frozen = freeze(&graph, &sess, &outputs).map_err(|e| format!("freezing {}: {e}", meta.display()))?;
    if as_text {
        write_graph_def_text(&frozen, &args.output).map_err(|e| e.to_string())?;
    } else {
        write_graph_def(&frozen, &args.output).map_err(|e| e.to_string())?;
    }
    let consts = frozen.node.iter().filter(|n| n.op == "Const").count();
    eprintln!(
        "froze {} into {}: {} nodes ({} Const)",
        meta.display(),
        args.output.display(),
        frozen.node.len(),
        consts
    );
    Ok(())
}
