//! `tensorgraph freeze --meta M --ckpt PREFIX --outputs a,b -o frozen.pb`: imports a meta
//! graph, restores the checkpoint through its saver and writes the frozen GraphDef
//! (`tf.compat.v1.graph_util.convert_variables_to_constants`), binary or, for `-o *.pbtxt`,
//! text.

use crate::inspect::resolve_checkpoint;
use crate::model_info::load_model;
use std::path::{Path, PathBuf};
use tensorgraph::io::graph_def::{freeze, write_graph_def, write_graph_def_text};
use tensorgraph::{Graph, Session};

/// Arguments of `tensorgraph freeze`.
pub struct FreezeArgs {
    /// The `.meta` file.
    pub meta: PathBuf,
    /// The checkpoint (prefix or directory with a `checkpoint` state file).
    pub ckpt: PathBuf,
    /// Output node names.
    pub outputs: Vec<String>,
    /// The frozen GraphDef to write (`.pbtxt`/`.pbtext`/`.txt`: text format).
    pub output: PathBuf,
}

fn is_text(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref(),
        Some("pbtxt" | "pbtext" | "txt")
    )
}

/// Runs `tensorgraph freeze`. Errors: a message naming the file or node.
pub fn run(args: &FreezeArgs) -> Result<(), String> {
    let outputs: Vec<&str> = args.outputs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    if outputs.is_empty() {
        return Err("--outputs: give at least one output node name (e.g. --outputs probs)".into());
    }
    let graph = Graph::new();
    let loaded = load_model(&graph, &args.meta)?;
    let sess = Session::new(&graph).map_err(|e| e.to_string())?;
    let (prefix, _) = resolve_checkpoint(&args.ckpt)?;
    match &loaded.saver {
        Some(saver) => saver.restore(&sess, &prefix).map_err(|e| e.to_string())?,
        None => eprintln!("freeze: {} has no variables; nothing restored", args.meta.display()),
    }
    let frozen = freeze(&graph, &sess, &outputs).map_err(|e| format!("freezing {}: {e}", args.meta.display()))?;
    if is_text(&args.output) {
        write_graph_def_text(&frozen, &args.output).map_err(|e| e.to_string())?;
    } else {
        write_graph_def(&frozen, &args.output).map_err(|e| e.to_string())?;
    }
    let consts = frozen.node.iter().filter(|n| n.op == "Const").count();
    eprintln!(
        "froze {} into {}: {} nodes ({} Const)",
        args.meta.display(),
        args.output.display(),
        frozen.node.len(),
        consts
    );
    Ok(())
}
