//! A binary MetaGraphDef (`.meta`) from the input: decode and import (graph, collections,
//! SaverDef), as `import_meta_graph` does.
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use tensorgraph::format::proto::MetaGraphDef;
use tensorgraph::io::meta_graph::ImportMetaGraphOptions;
use tensorgraph::Graph;

fuzz_target!(|data: &[u8]| {
    if let Ok(meta) = MetaGraphDef::decode(data) {
        let g = Graph::new();
        let _ = g.import_meta_graph_def(&meta, &ImportMetaGraphOptions::default(), "fuzz");
    }
});
