//! A SavedModel's `saved_model.pb` from the input: read it (schema version, tags) and import
//! each meta graph. (Loading also runs the init op and restores variables; the graphs of a
//! fuzzed model are not run, so that a loop in one cannot hang the fuzzer.)
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::io::saved_model::read_saved_model;
use tensorgraph::Graph;

fuzz_target!(|data: &[u8]| {
    common::put("sm/saved_model.pb", data);
    if let Ok(model) = read_saved_model(common::scratch().join("sm")) {
        for meta in &model.meta_graphs {
            let g = Graph::new();
            let _ = g.import_meta_graph_def(meta, &ImportMetaGraphOptions::default(), "fuzz");
        }
    }
});
