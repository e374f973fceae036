//! A text-format GraphDef (`.pbtxt`) from the input: parse, import, print again.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::format::proto::text::{graph_def_from_text, graph_def_to_text, meta_graph_def_from_text};
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::Graph;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = meta_graph_def_from_text(text);
    if let Ok(gd) = graph_def_from_text(text) {
        let _ = graph_def_to_text(&gd);
        let g = Graph::new();
        let _ = import_graph_def(&g, &gd, &ImportGraphDefOptions::new());
    }
});
