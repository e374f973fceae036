//! `io::model_file`: every form a model path can take is recognised by content (the
//! TensorFlow 2.21 fixtures, renamed and re-encoded), the readers built on it
//! (`read_graph_def_any`, `read_meta_graph`, `Graph::import_meta_graph`) read every model
//! encoding, and a file of the wrong form is named, with what reads it.

mod common;
use common::fixtures;
use std::path::{Path, PathBuf};
use tensorgraph::format::proto::text::meta_graph_def_to_text;
use tensorgraph::io::graph_def::{read_graph_def, read_graph_def_any, write_graph_def_text};
use tensorgraph::io::meta_graph::read_meta_graph;
use tensorgraph::io::model_file::{checkpoint_form, detect, read_model_file, Model, ModelFileKind as K};
use tensorgraph::{Code, Error, Graph};

fn seed004() -> PathBuf {
    fixtures().join("seed004")
}

/// Copies `from` to `dir/name`.
fn copy(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(from, &to).unwrap();
    to
}

/// Writes `bytes` to `dir/name`.
fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let to = dir.join(name);
    std::fs::write(&to, bytes).unwrap();
    to
}

/// Asserts `e` has `code` and a message that starts with `path` and contains `needle`.
fn named(e: &Error, code: Code, path: &Path, needle: &str) {
    assert_eq!(e.code, code, "{e}");
    assert!(e.message.starts_with(&path.display().to_string()), "{e}");
    assert!(e.message.contains(needle), "want {needle:?} in {e}");
}

#[test]
fn every_model_encoding_is_recognised_by_content() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let frozen = seed004().join("frozen.pb");
    let meta_path = seed004().join("model.ckpt.meta");
    let gd = read_graph_def(&frozen).unwrap();
    let meta = read_meta_graph(&meta_path).unwrap();
    let text_gd = d.join("t.pbtxt");
    write_graph_def_text(&gd, &text_gd).unwrap();
    let text_meta = write(d, "text.meta", meta_graph_def_to_text(&meta).unwrap());
    // by their own names, and renamed to nothing or to another format
    // (path, what it holds, whether its extension agrees)
    let cases: Vec<(PathBuf, K, bool)> = vec![
        (frozen.clone(), K::GraphDef, true),
        (copy(&frozen, d, "frozen"), K::GraphDef, true),
        (copy(&frozen, d, "frozen.pbtxt"), K::GraphDef, false),
        (copy(&frozen, d, "frozen.meta"), K::GraphDef, false),
        (text_gd.clone(), K::TextGraphDef, true),
        (copy(&text_gd, d, "graph"), K::TextGraphDef, true),
        (copy(&text_gd, d, "graph.pb"), K::TextGraphDef, false),
        (meta_path.clone(), K::MetaGraph, true),
        (copy(&meta_path, d, "m.pb"), K::MetaGraph, false),
        (copy(&meta_path, d, "m"), K::MetaGraph, true),
        (text_meta.clone(), K::TextMetaGraph, true),
        (copy(&text_meta, d, "meta.pbtxt"), K::TextMetaGraph, false),
    ];
    for (path, kind, agrees) in &cases {
        assert_eq!(detect(path).unwrap(), *kind, "{}", path.display());
        let file = read_model_file(path).unwrap();
        assert_eq!(file.kind, *kind, "{}", path.display());
        assert_eq!(&file.path, path);
        assert_eq!(file.extension_agrees(), *agrees, "{}", path.display());
        match &file.model {
            Model::Graph(g) => {
                assert!(kind.is_graph_def());
                assert_eq!(g, &gd);
                assert_eq!(read_graph_def_any(path).unwrap(), gd, "{}", path.display());
            }
            Model::Meta(m) => {
                assert!(kind.is_meta());
                assert_eq!(**m, meta);
                assert_eq!(read_meta_graph(path).unwrap(), meta, "{}", path.display());
                assert_eq!(file.graph_def().node.len(), 29);
            }
        }
    }
    // import_meta_graph reads a text meta graph, and one named .pb
    for path in [&text_meta, &cases[8].0] {
        let g = Graph::new();
        let saver = g.import_meta_graph(path, &Default::default()).unwrap().unwrap();
        assert_eq!(saver.variables().len(), 3, "{}", path.display());
    }
}

#[test]
fn checkpoints_and_saved_models_are_recognised() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let seed = seed004();
    let cases = [
        (seed.clone(), K::CheckpointDir),
        (seed.join("model.ckpt"), K::CheckpointPrefix),
        (seed.join("model.ckpt.index"), K::CheckpointIndex),
        (seed.join("model.ckpt.data-00000-of-00001"), K::CheckpointData),
        (seed.join("checkpoint"), K::CheckpointState),
    ];
    for (path, kind) in &cases {
        assert_eq!(detect(path).unwrap(), *kind, "{}", path.display());
        assert_eq!(checkpoint_form(path), Some(*kind), "{}", path.display());
        assert!(kind.is_checkpoint() && !kind.is_model());
    }
    // by content when renamed: the index by its table footer, the state file by its fields
    assert_eq!(detect(copy(&seed.join("model.ckpt.index"), d, "idxfile")).unwrap(), K::CheckpointIndex);
    assert_eq!(detect(copy(&seed.join("checkpoint"), d, "state.txt")).unwrap(), K::CheckpointState);
    assert_eq!(checkpoint_form(d.join("idxfile")), None, "by name only");
    // a SavedModel directory, its saved_model.pb, and a text SavedModel
    let sm = d.join("saved");
    std::fs::create_dir(&sm).unwrap();
    let pb = write(&sm, "saved_model.pb", [0x08, 0x01]);
    assert_eq!(detect(&sm).unwrap(), K::SavedModel);
    assert_eq!(detect(&pb).unwrap(), K::SavedModel);
    assert_eq!(
        detect(write(d, "sm.pbtxt", "saved_model_schema_version: 1\nmeta_graphs { }\n")).unwrap(),
        K::SavedModel
    );
    // checkpoint_prefix by name
    use tensorgraph::io::model_file::checkpoint_prefix;
    assert_eq!(checkpoint_prefix(seed.join("model.ckpt.index")), Some(seed.join("model.ckpt")));
    assert_eq!(checkpoint_prefix(seed.join("model.ckpt.data-00000-of-00001")), Some(seed.join("model.ckpt")));
    assert_eq!(checkpoint_prefix(seed.join("model.ckpt.meta")), None);
}

#[test]
fn the_wrong_form_is_named_with_what_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let seed = seed004();
    // a meta graph read as a GraphDef, binary and text, whatever its name
    let meta_pb = copy(&seed.join("model.ckpt.meta"), d, "model.pb");
    let e = read_graph_def_any(&meta_pb).unwrap_err();
    named(&e, Code::InvalidArgument, &meta_pb, "is a MetaGraphDef (.meta): import it with Graph::import_meta_graph");
    let meta = read_meta_graph(seed.join("model.ckpt.meta")).unwrap();
    let text_meta = write(d, "t.pbtxt", meta_graph_def_to_text(&meta).unwrap());
    let e = read_graph_def_any(&text_meta).unwrap_err();
    named(
        &e,
        Code::InvalidArgument,
        &text_meta,
        "is a text MetaGraphDef (.meta): import it with Graph::import_meta_graph",
    );
    // a GraphDef read as a meta graph
    let frozen = seed.join("frozen.pb");
    let e = read_meta_graph(&frozen).unwrap_err();
    named(
        &e,
        Code::InvalidArgument,
        &frozen,
        "is a binary GraphDef, not a MetaGraphDef: read it with read_graph_def_any",
    );
    let e = Graph::new().import_meta_graph(fixtures().join("scopes/graph.pbtxt"), &Default::default()).unwrap_err();
    assert!(e.message.contains("is a text GraphDef, not a MetaGraphDef"), "{e}");
    // checkpoints given as a model, each part named
    for (path, what) in [
        (seed.join("model.ckpt.index"), "is a checkpoint index (a .index file), not a model"),
        (copy(&seed.join("model.ckpt.index"), d, "idxfile"), "is a checkpoint index (a .index file), not a model"),
        (seed.join("model.ckpt.data-00000-of-00001"), "is a checkpoint data file"),
        (seed.join("checkpoint"), "is a checkpoint state file"),
        (seed.clone(), "is a checkpoint directory, not a model"),
    ] {
        for e in [
            read_model_file(&path).unwrap_err(),
            read_graph_def_any(&path).unwrap_err(),
            read_meta_graph(&path).unwrap_err(),
        ] {
            named(&e, Code::InvalidArgument, &path, what);
            assert!(e.message.contains("Saver::restore"), "{e}");
        }
    }
    let prefix = seed.join("model.ckpt");
    let e = Graph::new().import_meta_graph(&prefix, &Default::default()).unwrap_err();
    named(&e, Code::InvalidArgument, &prefix, "is a checkpoint prefix, not a model; its meta graph is ");
    assert!(e.message.contains("model.ckpt.meta"), "{e}");
    // a SavedModel is recognised, and sent to the SavedModel loader
    let sm = d.join("saved");
    std::fs::create_dir(&sm).unwrap();
    write(&sm, "saved_model.pb", [0x08, 0x01]);
    let e = read_model_file(&sm).unwrap_err();
    named(&e, Code::InvalidArgument, &sm, "is a SavedModel, not a model file; load its directory");
    // the strict binary reader's hint names the form too
    let e = read_graph_def(seed.join("model.ckpt.index")).unwrap_err();
    assert!(e.message.contains("is a checkpoint index"), "{e}");
}

#[test]
fn directories_missing_empty_and_damaged_files_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let e = detect(d).unwrap_err();
    named(&e, Code::InvalidArgument, d, "is a directory, not a model file; give a .pb, .pbtxt or .meta file");
    let missing = d.join("missing.pb");
    for e in [
        detect(&missing).unwrap_err(),
        read_graph_def_any(&missing).unwrap_err(),
        read_meta_graph(&missing).unwrap_err(),
    ] {
        named(&e, Code::NotFound, &missing, "does not exist");
    }
    for name in ["e.pb", "e.pbtxt", "e.meta", "empty"] {
        let p = write(d, name, b"");
        for e in [detect(&p).unwrap_err(), read_graph_def_any(&p).unwrap_err(), read_meta_graph(&p).unwrap_err()] {
            named(&e, Code::InvalidArgument, &p, "is empty (0 bytes)");
        }
    }
    let blank = write(d, "blank.pbtxt", "\n  # nothing here\n\n");
    named(&detect(&blank).unwrap_err(), Code::InvalidArgument, &blank, "is empty (only whitespace and comments)");
    // truncated binary files: printable bytes are not text; a frozen graph and a meta graph cut short
    let trunc = write(d, "trunc.pb", [0x0a, 0x3b, 0x0a]);
    let e = read_graph_def_any(&trunc).unwrap_err();
    named(&e, Code::DataLoss, &trunc, "is damaged (truncated?) or not a model file: it reads as neither a GraphDef nor a MetaGraphDef (cannot parse a GraphDef");
    let bytes = std::fs::read(fixtures().join("mlp/frozen.pb")).unwrap();
    let half = write(d, "half.pb", &bytes[..bytes.len() / 2]);
    named(&detect(&half).unwrap_err(), Code::DataLoss, &half, "is damaged (truncated?)");
    let meta = std::fs::read(seed004().join("model.ckpt.meta")).unwrap();
    let cut = write(d, "cut.meta", &meta[..meta.len() - 7]);
    let e = read_meta_graph(&cut).unwrap_err();
    named(&e, Code::DataLoss, &cut, "cannot parse a MetaGraphDef");
    named(&e, Code::DataLoss, &cut, "its fields are laid out as a MetaGraphDef's, but it does not decode as one");
    // a cut GraphDef named .meta given to import_meta_graph: said to be a GraphDef (its
    // nodes are repeated field 1), with the GraphDef's decoding error and what reads it,
    // not the MetaGraphDef decoder's complaint about MetaInfoDef.tensorflow_version
    let cut_gd = write(d, "frozen.meta", &bytes[..bytes.len() - 10]);
    let e = Graph::new().import_meta_graph(&cut_gd, &Default::default()).unwrap_err();
    assert_eq!(
        e.message,
        format!(
            "{} is damaged (truncated?) or not a model file: its fields are laid out as a binary GraphDef's, but it does not decode as one (cannot parse a GraphDef: failed to decode Protobuf message: GraphDef.node: buffer underflow); a GraphDef is read with read_graph_def_any and added to a graph with import_graph_def (not import_meta_graph)",
            cut_gd.display()
        )
    );
    assert_eq!(e.code, Code::DataLoss);
    // text that does not parse: line and column
    let bad = write(d, "bad", "node { name: 1 }\n");
    let e = detect(&bad).unwrap_err();
    named(&e, Code::InvalidArgument, &bad, ": not a valid text GraphDef: text format parse error at line 1, column 14");
    let bad_meta = write(d, "bad.meta", "meta_info_def { nope: 1 }\n");
    named(
        &read_meta_graph(&bad_meta).unwrap_err(),
        Code::InvalidArgument,
        &bad_meta,
        ": not a valid text MetaGraphDef: ",
    );
}

#[test]
fn json_npy_and_event_files_are_named_not_called_damaged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let events = fixtures().join("events/events.out.tfevents.1796006312.vm");
    let json = write(dir, "forecast.json", "\n{\"probabilities\": [[0.5, 0.5]]}\n");
    let json_list = write(dir, "list.pb", "[1, 2]");
    let npy = copy(&fixtures().join("mlp/inputs.npy"), dir, "inputs.npy");
    // a TFRecord file that is not an event file: one record of 3 bytes, with its checksums
    let mut record = 3u64.to_le_bytes().to_vec();
    let crc = |b: &[u8]| tensorgraph::format::checkpoint::mask_crc(crc32c::crc32c(b)).to_le_bytes();
    record.extend(crc(&3u64.to_le_bytes()));
    record.extend(b"abc");
    record.extend(crc(b"abc"));
    let tfrecord = write(dir, "data.tfrecord", &record);
    let cases = [
        (&json, K::Json, "a JSON file"),
        (&json_list, K::Json, "a JSON file"),
        (&npy, K::Npy, "a NumPy array file (.npy)"),
        (&events, K::EventFile, "a TensorBoard event file (tf.summary.FileWriter)"),
        (&tfrecord, K::TfRecord, "a TFRecord file"),
    ];
    for (path, kind, what) in cases {
        assert_eq!(detect(path).unwrap(), kind, "{}", path.display());
        assert!(!kind.is_model() && !kind.is_checkpoint());
        let e = read_model_file(path).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "InvalidArgument: {} is {what}, not a model; give the model's .meta, .pb or .pbtxt file",
                path.display()
            )
        );
        let e = read_graph_def_any(path).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
        assert!(e.message.contains(what), "{e}");
    }
    // text that merely starts with a bracket is not JSON, and a damaged record length is no TFRecord
    let half = write(dir, "half.json", "{\"a\": 1");
    assert_eq!(detect(&half).unwrap_err().code, Code::DataLoss);
    record[8] ^= 1;
    let bad = write(dir, "bad.tfrecord", &record);
    assert_eq!(detect(&bad).unwrap_err().code, Code::DataLoss);
}

#[test]
fn devices_oversized_binary_files_and_text_with_bad_utf8_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // a device is refused before it is read (reading /dev/zero would never end)
    #[cfg(unix)]
    {
        let zero = Path::new("/dev/zero");
        for e in [detect(zero).unwrap_err(), read_graph_def(zero).unwrap_err()] {
            assert_eq!(e.code, Code::InvalidArgument, "{e}");
            assert_eq!(e.message, "reading /dev/zero: not a regular file (a device, pipe or socket)");
        }
    }
    // a sparse 3 GiB file of zeros: more than a binary protocol buffer can hold, refused
    // from its size and first bytes without reading the rest
    let big = d.join("big.pb");
    std::fs::File::create(&big).unwrap().set_len(3 << 30).unwrap();
    for e in [detect(&big).unwrap_err(), read_graph_def(&big).unwrap_err(), read_meta_graph(&big).unwrap_err()] {
        assert_eq!(e.code, Code::DataLoss, "{e}");
        assert_eq!(
            e.message,
            format!(
                "reading {}: 3221225472 bytes, more than the 2 GiB a binary GraphDef or MetaGraphDef can hold (protobuf's limit), and not text: not a model file",
                big.display()
            )
        );
    }
    // a text GraphDef with one invalid UTF-8 sequence (0xc3 0x28) is damaged text, with
    // where the bad byte is; not a damaged binary file
    let mut text = Vec::new();
    let graph = read_graph_def(fixtures().join("mlp/frozen.pb")).unwrap();
    let path = d.join("good.pbtxt");
    write_graph_def_text(&graph, &path).unwrap();
    text.extend(std::fs::read(&path).unwrap());
    let line2 = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    text.splice(line2 + 2..line2 + 2, [0xc3, 0x28]);
    // invalid UTF-8 in a comment on the first line (a Latin-1 export note)
    let mut latin1 = b"# Mod\xe8le export\xe9\n".to_vec();
    latin1.extend(std::fs::read(&path).unwrap());
    let bad = write(d, "latin1.pbtxt", &latin1);
    named(
        &detect(&bad).unwrap_err(),
        Code::InvalidArgument,
        &bad,
        ": not a valid text GraphDef: invalid UTF-8 at byte 5 (line 1, column 6): byte 0xe8",
    );
    // a named pipe is refused before it is opened (opening one blocks)
    #[cfg(unix)]
    {
        let fifo = d.join("fifo.pb");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let e = detect(&fifo).unwrap_err();
        assert_eq!(e.message, format!("reading {}: not a regular file (a device, pipe or socket)", fifo.display()));
    }
    for name in ["bad_utf8.pbtxt", "bad_utf8.pb"] {
        let bad = write(d, name, &text);
        for e in [detect(&bad).unwrap_err(), read_graph_def_any(&bad).unwrap_err()] {
            named(
                &e,
                Code::InvalidArgument,
                &bad,
                &format!(
                    ": not a valid text GraphDef: invalid UTF-8 at byte {} (line 2, column 3): byte 0xc3; text-format files are UTF-8",
                    line2 + 2
                ),
            );
        }
    }
}
