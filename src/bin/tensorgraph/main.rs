//! The `tensorgraph` command line.

mod dataset;
mod demo;
mod diff;
mod forecaster;
mod inspect;

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

Exit status: 0 on success; 1, with the message on stderr, when the checkpoint is missing
or damaged or a tensor cannot be read."#;

/// Extra `--help` text of `tensorgraph diff`.
const DIFF_HELP: &str = r#"The largest absolute difference is taken over elements (complex: the modulus of the
difference); NaN equals NaN at the same position, 0.0 equals -0.0, and NaN against a
number makes it nan.

JSON output (--json): {"a", "b", "only_in_a", "only_in_b", "mismatched", "common":
[{"name", "dtype", "shape", "equal", "num_different", "max_abs_diff"}], "identical"};
max_abs_diff is null for strings, "NaN"/"Infinity" when not finite.

Exit status: 0 whether or not the checkpoints differ (read the summary line, or
"identical" in JSON); 1, with the message on stderr, on any error (missing or damaged
checkpoint, unreadable tensor)."#;

/// TensorFlow 1.x graph mode in pure Rust.
#[derive(Parser)]
#[command(name = "tensorgraph", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train a 2-hidden-layer MLP with Adam on iris (or --data CSV), save a TensorFlow
    /// checkpoint, restore it into a fresh graph and forecast.
    Demo {
        /// Directory for the checkpoint, model.json and forecast.json.
        #[arg(long, default_value = "demo-model")]
        out: PathBuf,
        /// A CSV of numeric feature columns with the class in the last column (default: iris).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Training steps (full-batch Adam).
        #[arg(long, default_value_t = 400)]
        steps: usize,
        /// Seed for the data split and the weight initializers.
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
    /// List the tensors of a checkpoint (name, dtype, shape; sorted by name), like
    /// tf.train.list_variables.
    ///
    /// CKPT is a checkpoint prefix (DIR/model.ckpt for DIR/model.ckpt.index and
    /// DIR/model.ckpt.data-*), a directory whose `checkpoint` state file names the latest
    /// checkpoint (as tf.train.latest_checkpoint; the prefix found is printed on stderr in text
    /// mode), or the .index / .data-* file itself. Partitioned variables are listed once with
    /// their full shape; object-based TF2 checkpoints list their keys
    /// (`model/layer/.ATTRIBUTES/VARIABLE_VALUE`, `_CHECKPOINTABLE_OBJECT_GRAPH`).
    #[command(after_help = INSPECT_HELP)]
    Inspect {
        /// Checkpoint prefix, directory with a `checkpoint` state file, or .index file.
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { out, data, steps, seed } => demo::run(&demo::DemoArgs { out, data, steps, seed }),
        Command::Inspect { ckpt, values, json } => inspect::run(&inspect::InspectArgs { ckpt, values, json }),
        Command::Diff { a, b, json } => diff::run(&diff::DiffArgs { a, b, json }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
