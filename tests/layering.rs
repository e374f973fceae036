//! The library's layers (ARCHITECTURE.md): every `crate::` path in a module names a
//! module of its own layer or of a layer below. A path pointing up is a failure naming
//! the file, the line and both layers.

use std::path::{Path, PathBuf};

/// Top-level modules by layer, bottom up.
const LAYERS: &[(&str, &[&str])] = &[
    ("tensor", &["tensor", "error"]),
    ("format", &["format"]),
    ("graph", &["graph"]),
    ("ops", &["ops", "init"]),
    ("session", &["session"]),
    ("train", &["train"]),
    ("io", &["io"]),
    ("models", &["models"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_crate_path_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_str().unwrap().trim_end_matches(".rs");
        let Some(own) = layer_of(top) else { continue };
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            for (at, _) in code.match_indices("crate::") {
                let name: String =
                    code[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                let Some(target) = layer_of(&name) else { continue };
                checked += 1;
                if target > own {
                    upward.push(format!(
                        "{}:{}: the {} layer uses crate::{name} (the {} layer above it)",
                        rel.display(),
                        n + 1,
                        LAYERS[own].0,
                        LAYERS[target].0
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} crate:: paths found: is the scan reading src/?");
    assert!(upward.is_empty(), "imports pointing up a layer:\n{}", upward.join("\n"));
}
