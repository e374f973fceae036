//! The `tensorgraph` command line.

mod dataset;
mod demo;
mod demo_cnn;
mod demo_logs;
mod diff;
mod events;
mod freeze;
mod guard;
mod inspect;
mod model_file;
mod model_info;
mod output;
mod profile;
mod restore;
mod run;
mod saved_model;
mod threads;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Extra `--help` text of `tensorgraph inspect`.
const INSPECT_HELP: &str = r#"Text output: one line `NAME  DTYPE  [SHAPE]` per tensor; with --values a second,
indented line holds the values: the whole tensor nested by shape when it has at most 12
elements, else the first 6 values, the count and min/max/mean (numeric dtypes). Strings
print escaped, cut at 48 bytes.

JSON output (--json): an array of {"name", "dtype", "shape"[, "values"]}. Values are
complete and nested by shape (a 0-d tensor is its value); NaN and infinities are the
strings "NaN", "Infinity", "-Infinity"; complex numbers are [re, im]; strings are JSON
strings when UTF-8, else {"hex": "..."}.

Exit status: 0 on success; 1, with the message on stderr, when the checkpoint or model file
is missing, empty or damaged, or a tensor cannot be read; an entry that cannot be decoded
(bad dtype or slice spec, a key that is not UTF-8) is listed with its problem, then exit 1."#;

/// Extra `--help` text of `tensorgraph run`.
const RUN_HELP: &str = r#"MODEL is a frozen GraphDef (.pb binary, .pbtxt or .txt text) imported with its names
unchanged, or a .meta file imported with tf.train.import_meta_graph's semantics; --ckpt then
restores the variables through the meta graph's saver (a prefix, or a directory with a
`checkpoint` state file). MODEL may also be a checkpoint (prefix, directory, .index or
.data-* file) with its meta graph PREFIX.meta beside it, as Saver.save writes it: that meta
graph is run, restored from the checkpoint (`tensorgraph run demo-model/model.ckpt ...`).
A file is read by its content: one without a model extension, or whose extension names
another format, is loaded as what it holds (with a note on stderr). Op types tensorgraph
does not implement are listed, with advice, before anything runs.

Restoring: --trainable-only restores only the trainable variables (a checkpoint saved
without the optimizer's slots); --map CKPT_NAME=GRAPH_NAME restores graph variable
GRAPH_NAME from checkpoint name CKPT_NAME (repeatable; old_scope/=new_scope/ maps a scope).

--feed NAME=FILE.npy feeds a tensor (NAME or NAME:0) from a .npy file (any dtype numpy and
TensorFlow share, C or Fortran order, either byte order; float64 feeds float32 and int64
feeds int32 when the values fit). --fetch NAME:0 fetches a tensor; a bare op name fetches its
output 0, or runs the op when it has none (e.g. a train op).

Text output: per fetch `NAME  DTYPE  [SHAPE]`, then the values (in full up to 12 elements,
else the first 6 and min/max/mean). --json prints an array of {"name", "dtype", "shape",
"values"[, "file"]}. --out DIR writes each fetch to DIR/<name with / and : as _>.npy
(probs:0 -> DIR/probs_0.npy); an existing file there is replaced only when it is a .npy
file and not an input of the command (a --feed file), unless --force is given.

A SavedModel directory (holding saved_model.pb or .pbtxt, with variables/) runs by
signature: `tensorgraph run DIR --signature serving_default --input x=x.npy` loads the
meta graph tagged --tag (default serve; repeat for a tag set), restores its variables, runs
its init op, and prints each output by key (`KEY (TENSOR)  DTYPE  [SHAPE]`), or those
--output names; --out DIR writes DIR/<key>.npy. `tensorgraph inspect DIR` lists the keys.

Exit status: 0 on success; 1, with the message on stderr, when the model, a feed file or a
tensor name is bad, or the run fails."#;

/// Extra `--help` text of `tensorgraph freeze`.
const FREEZE_HELP: &str = r#"The format of -o follows its name, as TensorFlow users name these files: .pb (or
.graphdef) is a binary GraphDef, .pbtxt (or .pbtext, .txt) the protobuf text format
(tf.io.write_graph(as_text=True)). Any other name is an error unless --binary or --as-text
says which; .meta is refused (a frozen graph is not a meta graph).

-o never replaces an input of the command (the --meta file, the checkpoint's files) or an
existing file that is not a GraphDef (a checkpoint's .index, a .meta, a JSON file) unless
--force is given; an existing GraphDef is replaced.

Exit status: 0 on success; 1, with the message on stderr, when a file, a node or the
restore is bad."#;

/// Extra `--help` text of `tensorgraph diff`.
const DIFF_HELP: &str = r#"The largest absolute difference is taken over elements (complex: the modulus of the
difference); NaN equals NaN at the same position, 0.0 equals -0.0, and NaN against a
number makes it nan.

JSON output (--json): {"a", "b", "only_in_a", "only_in_b", "mismatched", "common":
[{"name", "dtype", "shape", "equal", "num_different", "max_abs_diff"}], "undecodable_in_a",
"undecodable_in_b": [{"name", "problem"}], "identical"};
max_abs_diff is null for strings, "NaN"/"Infinity" when not finite.

Exit status: 0 whether or not the checkpoints differ (read the summary line, or
"identical" in JSON); 1, with the message on stderr, on any error (missing or damaged
checkpoint, unreadable tensor, entries that cannot be decoded: listed first)."#;

/// Extra `--help` text of `tensorgraph events`.
const EVENTS_HELP: &str = r#"Text output: per file its path, then one line per event: step, wall time, and what it
holds (`TAG  scalar  VALUE`, `TAG  histogram  num .. min .. max .. sum ..  bucket counts
[...]`, `TAG  image  HxWxC`, `TAG  tensor  {...}`, `graph_def  N nodes, B bytes`,
`file_version  brain.Event:2`, `session_log  {...}`).

JSON output (--json): one object a line (JSON Lines): {"file", "step", "wall_time", "kind",
"value"[, "tag"][, "plugin"]}, one per summary value; kind is scalar, histogram (value: min,
max, num, sum, sum_squares, bucket_limit, bucket), image (height, width, colorspace,
png_bytes), tensor (shape and values or strings), graph_def / meta_graph_def (bytes, nodes),
file_version, session_log, run_metadata.

--tag T keeps the summary values tagged T (and leaves out the other events).

A file whose last record is incomplete (a writer killed mid-write) prints every complete
record and a warning on stderr. Exit status: 0 on success; 1, with the message on stderr,
when the path is missing, holds no event file, or a record is corrupt (the message names
the file and the record's byte offset)."#;

/// TensorFlow 1.x graph mode in pure Rust.
#[derive(Parser)]
#[command(name = "tensorgraph", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train a 2-hidden-layer MLP with Adam on iris (or --data CSV), or with --model cnn a
    /// CNN with batch normalization on 8x8 handwritten digits; save a TensorFlow checkpoint,
    /// restore it into a fresh graph and forecast.
    Demo {
        /// The model: mlp (iris or --data) or cnn (the digits shipped in the binary).
        #[arg(long, value_enum, default_value = "mlp")]
        model: demo::DemoModel,
        /// Directory for the checkpoint (model.ckpt.index, .data-*, .meta, `checkpoint`), the
        /// frozen model.pb, model.json, inputs.npy, forecast.json, and the TensorBoard event
        /// file in logs/ (tensorboard --logdir DIR/logs).
        #[arg(long, default_value = "demo-model")]
        out: PathBuf,
        /// A CSV of numeric feature columns with the class in the last column (default: iris).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Training steps [default: 400 full-batch steps for mlp, 300 steps of 64 images for cnn].
        #[arg(long)]
        steps: Option<usize>,
        /// Seed for the data split and the weight initializers.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Threads of the session: both ConfigProto's intra_op_parallelism_threads (threads
        /// one op splits its work over) and inter_op_parallelism_threads (ops run at once);
        /// 0 = one per core, the default.
        #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = threads::parse_count)]
        threads: Option<usize>,
        /// Replace files in --out that are not what the demo writes there, or the --data file.
        #[arg(long)]
        force: bool,
    },
    /// List the tensors of a checkpoint (name, dtype, shape; sorted by name), like
    /// tf.train.list_variables; or summarize a model (.pb, .pbtxt, .meta); or list a
    /// SavedModel directory's tag sets and signatures (saved_model_cli show --all).
    ///
    /// For a model file: op types with counts (and those tensorgraph does not implement),
    /// placeholders with dtype and shape, and the nodes nothing consumes (likely outputs);
    /// --json prints them as one object. A model file is one named .pb, .pbtxt, .txt or
    /// .meta, or any other existing file that is not a checkpoint; it is read by its content.
    ///
    /// CKPT is a checkpoint prefix (DIR/model.ckpt for DIR/model.ckpt.index and
    /// DIR/model.ckpt.data-*), a directory whose `checkpoint` state file names the latest
    /// checkpoint (as tf.train.latest_checkpoint; the prefix found is printed on stderr in text
    /// mode), or the .index / .data-* file itself. Partitioned variables are listed once with
    /// their full shape; object-based TF2 checkpoints list their keys
    /// (`model/layer/.ATTRIBUTES/VARIABLE_VALUE`, `_CHECKPOINTABLE_OBJECT_GRAPH`).
    #[command(after_help = INSPECT_HELP)]
    Inspect {
        /// Checkpoint prefix, directory with a `checkpoint` state file, or .index file; or a
        /// model file (.pb, .pbtxt, .txt, .meta, or another file that is not a checkpoint).
        ckpt: PathBuf,
        /// Also print the values (abbreviated in text output, complete in JSON).
        #[arg(long)]
        values: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Compare two checkpoints: names only in A, only in B, dtype or shape differences, and for
    /// each common tensor of equal dtype and shape the largest absolute difference (numeric
    /// dtypes) or whether they are equal (strings).
    ///
    /// A and B are checkpoint prefixes or directories, as for `inspect`.
    #[command(after_help = DIFF_HELP)]
    Diff {
        /// The first checkpoint (prefix or directory).
        a: PathBuf,
        /// The second checkpoint (prefix or directory).
        b: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a model once: feed .npy files, fetch tensors, print them or write .npy files.
    #[command(after_help = RUN_HELP)]
    Run(run::RunArgs),
    /// Print the events of TensorBoard event files: a file, or every events.out.tfevents.*
    /// file under a directory (a log directory and its runs).
    #[command(after_help = EVENTS_HELP)]
    Events {
        /// An event file, or a directory searched for event files (recursively).
        path: PathBuf,
        /// Print JSON Lines instead of text.
        #[arg(long)]
        json: bool,
        /// Only the summary values with this tag.
        #[arg(long)]
        tag: Option<String>,
    },
    /// Freeze a model: import a .meta, restore a checkpoint, turn the variables the outputs
    /// need into constants (tf.compat.v1.graph_util.convert_variables_to_constants), and
    /// write the pruned GraphDef (binary for -o *.pb, text for -o *.pbtxt / *.txt).
    #[command(after_help = FREEZE_HELP)]
    Freeze {
        /// The .meta file (default: the checkpoint's PREFIX.meta).
        #[arg(long)]
        meta: Option<PathBuf>,
        /// The checkpoint: prefix or directory with a `checkpoint` state file.
        #[arg(long)]
        ckpt: PathBuf,
        /// Output node names, comma-separated (probs,loss).
        #[arg(long, value_delimiter = ',', required = true)]
        outputs: Vec<String>,
        /// The frozen GraphDef to write (.pb binary; .pbtxt or .txt text).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write the protobuf text format, whatever the name of -o.
        #[arg(long, conflicts_with = "binary")]
        as_text: bool,
        /// Write the binary format, whatever the name of -o.
        #[arg(long)]
        binary: bool,
        /// Replace -o even when it is an input or a file of another kind.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        restore: restore::RestoreFlags,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { out, model, data, steps, seed, threads, force } => {
            let args = demo::DemoArgs { out, data, steps, seed, threads, force };
            match model {
                demo::DemoModel::Mlp => demo::run(&args, steps.unwrap_or(demo::DEFAULT_STEPS)),
                demo::DemoModel::Cnn => demo_cnn::run(&args, steps.unwrap_or(demo_cnn::DEFAULT_STEPS)),
            }
        }
        Command::Inspect { ckpt, json, .. } if saved_model::is_saved_model(&ckpt) => saved_model::inspect(&ckpt, json),
        Command::Inspect { ckpt, values, json } => inspect::run(&inspect::InspectArgs { ckpt, values, json }),
        Command::Diff { a, b, json } => diff::run(&diff::DiffArgs { a, b, json }),
        Command::Run(args) => {
            if saved_model::is_saved_model(&args.model) {
                saved_model::run(&args)
            } else {
                run::run(&args)
            }
        }
        Command::Events { path, json, tag } => events::run(&events::EventsArgs { path, json, tag }),
        Command::Freeze { meta, ckpt, outputs, output, as_text, binary, force, restore } => {
            freeze::run(&freeze::FreezeArgs { meta, ckpt, outputs, output, as_text, binary, force, restore })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
