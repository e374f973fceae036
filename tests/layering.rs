//! The library's layers (ARCHITECTURE.md): every `crate::` path in a module names a
//! module of its own layer or of a layer below (a path pointing up is a failure naming
//! the file, the line and both layers), and no two source files import each other,
//! directly or around a loop.

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

/// The module path of a source file: `src/ops/array/pad.rs` is `ops::array::pad`,
/// `src/ops/math/mod.rs` is `ops::math`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_str().unwrap().to_string()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The file modules `file` refers to through `crate::`, `super::` and `self::` paths
/// (one level of `{a, b::c}` groups expanded), other than its own ancestors and
/// descendants (a parent declares and re-exports its children). A path through a
/// parent's re-export (`crate::ops::reduce_sum`) counts as a path to the parent only.
fn references(src: &Path, file: &Path, modules: &[Vec<String>]) -> Vec<Vec<String>> {
    let own = module_of(src, file);
    let text = std::fs::read_to_string(file).unwrap();
    let code: String = text.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n");
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let head = ["crate::", "self::", "super::"].into_iter().find(|h| rest.starts_with(h));
        let starts_word =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':');
        let (Some(head), true) = (head, starts_word) else {
            at += rest.chars().next().unwrap().len_utf8();
            continue;
        };
        let mut base: Vec<String> = match head {
            "crate::" => Vec::new(),
            "self::" => own.clone(),
            _ => own[..own.len().saturating_sub(1)].to_vec(),
        };
        let mut tail = &rest[head.len()..];
        while let Some(t) = tail.strip_prefix("super::") {
            base.pop();
            tail = t;
        }
        let path: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || "_:{}, ".contains(*c)).collect();
        let (prefix, items) = match path.find('{') {
            Some(open) => (&path[..open], path[open + 1..].split('}').next().unwrap().split(',').collect::<Vec<_>>()),
            None => (path.split_whitespace().next().unwrap_or(""), vec![""]),
        };
        for item in items {
            let item = item.trim().split(" as ").next().unwrap();
            let full = format!("{prefix}{item}");
            let mut target: Vec<String> = base.clone();
            target.extend(full.split("::").filter(|p| !p.is_empty() && *p != "self").map(|p| p.trim().to_string()));
            while !target.is_empty() && !modules.contains(&target) {
                target.pop();
            }
            let related = target.starts_with(&own) || own.starts_with(&target);
            if !target.is_empty() && !related && !found.contains(&target) {
                found.push(target);
            }
        }
        at += head.len();
    }
    found
}

#[test]
fn no_two_source_files_import_each_other_even_indirectly() {
    for (dir, min_refs) in [("src", 200), ("cli/src", 10)] {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let modules: Vec<Vec<String>> = files.iter().map(|f| module_of(&src, f)).collect();
        let edges: Vec<Vec<usize>> = files
            .iter()
            .map(|f| {
                references(&src, f, &modules).iter().map(|t| modules.iter().position(|m| m == t).unwrap()).collect()
            })
            .collect();
        // a cycle shows as a node reachable from one of its own successors
        for start in 0..files.len() {
            let mut seen = vec![false; files.len()];
            let mut stack: Vec<(usize, Vec<usize>)> = edges[start].iter().map(|&n| (n, vec![start, n])).collect();
            while let Some((n, path)) = stack.pop() {
                if n == start {
                    let names: Vec<String> = path.iter().map(|&i| modules[i].join("::")).collect();
                    panic!("{dir}: modules importing each other: {}", names.join(" -> "));
                }
                if std::mem::replace(&mut seen[n], true) {
                    continue;
                }
                for &m in &edges[n] {
                    let mut p = path.clone();
                    p.push(m);
                    stack.push((m, p));
                }
            }
        }
        let refs: usize = edges.iter().map(Vec::len).sum();
        assert!(refs >= min_refs, "{dir}: only {refs} references found: is the scan working?");
    }
}
