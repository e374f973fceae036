//! A binary GraphDef from the input: decode, import into a new graph, export again.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use tensorgraph::format::proto::GraphDef;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::Graph;

fuzz_target!(|data: &[u8]| {
    if let Ok(gd) = GraphDef::decode(data) {
        let g = Graph::new();
        if import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).is_ok() {
            let _ = g.to_graph_def();
        }
    }
});
