//! The demos' TensorBoard logs (`--out DIR/logs`): the graph, the training loss and a
//! histogram of every trainable variable per step (summary ops merged by `merge_all`, run
//! with the train op), and the held-out accuracy per step.

use std::path::{Path, PathBuf};
use tensorgraph::format::proto::{SessionLog, Summary, SummaryKind, SummaryValue};
use tensorgraph::train::summary::{self, FileWriter};
use tensorgraph::{Graph, Output, Tensor};

/// A library error as the CLI's error text.
fn err(e: tensorgraph::Error) -> String {
    e.to_string()
}

/// The summary ops of a demo's graph and the writer of its event file.
pub struct DemoLogs {
    writer: FileWriter,
    /// `merge_all` of the loss scalar and the weight histograms.
    pub merged: Output,
}

impl DemoLogs {
    /// Adds `loss` (tag `training_loss`) and each trainable variable (tag `weights/<name>`) as
    /// summaries, then opens `out/logs` with the graph and a session-log START.
    pub fn new(graph: &Graph, loss: &Output, out: &Path) -> Result<DemoLogs, String> {
        let s = graph.scope();
        summary::scalar(&s, "training_loss", loss).map_err(err)?;
        let weights = s.name_scope("weights");
        for v in graph.trainable_variables() {
            summary::histogram(&weights, &v.op_name(), v.value()).map_err(err)?;
        }
        let merged = summary::merge_all(graph).map_err(err)?.ok_or("no summaries")?;
        let writer = FileWriter::with_graph(out.join("logs"), graph).map_err(err)?;
        writer.add_session_log(SessionLog { status: SessionLog::START, ..Default::default() }, 0).map_err(err)?;
        Ok(DemoLogs { writer, merged })
    }

    /// Writes the merged summaries fetched at `step`.
    pub fn add(&self, merged: &Tensor, step: i64) -> Result<(), String> {
        self.writer.add_summary_tensor(merged, step).map_err(err)
    }

    /// Writes the held-out accuracy (tag `held_out_accuracy`) at `step`.
    pub fn accuracy(&self, accuracy: f64, step: i64) -> Result<(), String> {
        let value = SummaryValue {
            tag: "held_out_accuracy".into(),
            value: Some(SummaryKind::SimpleValue(accuracy as f32)),
            ..Default::default()
        };
        self.writer.add_summary_proto(Summary { value: vec![value] }, step).map_err(err)
    }

    /// Closes the event file and returns its path.
    pub fn close(self) -> Result<PathBuf, String> {
        let path = self.writer.path().ok_or("the event file is closed")?;
        self.writer.close().map_err(err)?;
        Ok(path)
    }
}
