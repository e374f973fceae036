//! `tensorgraph freeze --meta M --ckpt PREFIX --outputs a,b -o frozen.pb`: imports a meta
//! graph, restores the checkpoint through its saver and writes the frozen GraphDef
//! (`tf.compat.v1.graph_util.convert_variables_to_constants`), binary or, for `-o *.pbtxt`,
//! text.

use crate::inspect::resolve_checkpoint;
use crate::model_info::{load_model, ModelKind};
use std::path::PathBuf;
use tensorgraph::io::graph_def::{freeze, write_graph_def, write_graph_def_text};
use tensorgraph::io::model_file::ModelFileKind;
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

/// Runs `tensorgraph freeze`. Errors: a message naming the file or node.
pub fn run(args: &FreezeArgs) -> Result<(), String> {
    let outputs: Vec<&str> = args.outputs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
    if outputs.is_empty() {
        return Err("--outputs: give at least one output node name (e.g. --outputs probs)".into());
    }
    let out_format = ModelFileKind::by_extension(&args.output);
    if args.output.is_dir() {
        return Err(format!(
            "InvalidArgument: -o {} is a directory; give the file to write, such as {}",
            args.output.display(),
            args.output.join("frozen.pb").display()
        ));
    }
    if out_format.is_some_and(ModelFileKind::is_meta) {
        return Err(format!(
            "InvalidArgument: -o {}: a frozen graph is a GraphDef; name it .pb (binary) or .pbtxt (text), not .meta",
            args.output.display()
        ));
    }
    let graph = Graph::new();
    let loaded = load_model(&graph, &args.meta, "--meta")?;
    let sess = Session::new(&graph).map_err(|e| e.to_string())?;
    let (prefix, _) = resolve_checkpoint(&args.ckpt)?;
    match &loaded.saver {
        Some(saver) => saver.restore(&sess, &prefix).map_err(|e| e.to_string())?,
        None if loaded.kind == ModelKind::GraphDef
            && graph.operations().iter().any(|o| matches!(o.op_type().as_str(), "Variable" | "VariableV2" | "VarHandleOp")) =>
        {
            return Err(format!(
                "--meta {} is a GraphDef, which holds no saver to restore --ckpt with; pass the .meta file the checkpoint was saved with",
                args.meta.display()
            ))
        }
        None => eprintln!("freeze: {} has no variables; nothing restored", args.meta.display()),
    }
    let frozen = freeze(&graph, &sess, &outputs).map_err(|e| format!("freezing {}: {e}", args.meta.display()))?;
    if out_format == Some(ModelFileKind::TextGraphDef) {
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
