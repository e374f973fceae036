//! The `tensorgraph` command line.

mod dataset;
mod demo;
mod forecaster;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { out, data, steps, seed } => demo::run(&demo::DemoArgs { out, data, steps, seed }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
