//! How the CLI reads model files: one decision of model file vs checkpoint for `inspect`,
//! `run`, `freeze` and `diff`; files read by their content when the extension is missing or
//! wrong (with a note); directories, empty and damaged files; op types tensorgraph does not
//! implement. Messages and exit codes are asserted exactly.

mod common;
use common::cli::{fails_with, freeze_args, ok, s, tg};
use common::fixtures;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tensorgraph::Code;

fn seed004() -> PathBuf {
    fixtures().join("seed004")
}

/// Freezes seed004 into `out` (text for .txt / .pbtxt).
fn freeze_seed004(out: &Path) {
    ok(&freeze_args(&seed004(), "add_1", out));
}

/// `run MODEL [--ckpt seed004] --fetch add_1:0 --json` gives seed004's 6.0; returns stderr.
fn runs_seed004(model: &Path, ckpt: bool) -> String {
    let mut args = vec!["run".to_string(), s(model), "--fetch".into(), "add_1:0".into(), "--json".into()];
    if ckpt {
        args.extend(["--ckpt".to_string(), s(&seed004())]);
    }
    let o = ok(&args);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v[0]["values"], serde_json::json!([6.0]), "{}", s(model));
    o.stderr
}

const SEED004_FROZEN_SUMMARY: &str = "8 nodes
op types (3):
  AddV2     2
  Const     3
  Identity  3
placeholders (0):
outputs (nodes nothing consumes) (1):
  add_1  AddV2
";

#[test]
fn text_and_extensionless_models_are_models_for_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    // freeze -o t.txt writes text, which inspect and run both read
    let txt = tmp.path().join("t.txt");
    freeze_seed004(&txt);
    assert!(std::fs::read_to_string(&txt).unwrap().starts_with("node {\n"));
    let o = ok(&["inspect", &s(&txt)]);
    assert_eq!(o.stdout, format!("{}: GraphDef (text), {SEED004_FROZEN_SUMMARY}", s(&txt)));
    assert_eq!(o.stderr, "");
    assert_eq!(runs_seed004(&txt, false), "");
    // files without an extension, binary and text: read by content, without a note
    let bin = tmp.path().join("frozen");
    std::fs::copy(seed004().join("frozen.pb"), &bin).unwrap();
    let text = tmp.path().join("graph");
    std::fs::copy(&txt, &text).unwrap();
    for (file, kind) in [(&bin, "GraphDef"), (&text, "GraphDef (text)")] {
        let o = ok(&["inspect", &s(file)]);
        assert_eq!(o.stdout, format!("{}: {kind}, {SEED004_FROZEN_SUMMARY}", s(file)));
        assert_eq!(o.stderr, "");
        assert_eq!(runs_seed004(file, false), "");
        fails_with(
            &["diff", &s(file), &s(&seed004())],
            &format!(
                "A: {} is a model file; diff compares checkpoints (give their prefixes or directories). `tensorgraph inspect {}` summarizes a model.",
                s(file),
                s(file)
            ),
        );
    }
    let v: Value = serde_json::from_str(&ok(&["inspect", &s(&text), "--json"]).stdout).unwrap();
    assert_eq!((v["format"].as_str(), v["encoding"].as_str()), (Some("GraphDef"), Some("text")));
    // checkpoints are still checkpoints: prefix, directory, .index, and the state file
    let listing = "v1  float32    [1]\nv2  float32    [1]\nv3  float32    [1]\n";
    for ckpt in ["model.ckpt", "model.ckpt.index", "model.ckpt.data-00000-of-00001", "checkpoint", ""] {
        assert_eq!(ok(&["inspect", &s(&seed004().join(ckpt))]).stdout, listing, "{ckpt}");
    }
}

#[test]
fn a_directory_as_model_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = s(tmp.path());
    let want = |arg: &str| {
        format!(
            "InvalidArgument: {arg} {dir} is a directory, not a model file; give a .pb, .pbtxt or .meta file (a checkpoint directory goes to --ckpt)"
        )
    };
    fails_with(&["run", &dir, "--fetch", "a:0"], &want("MODEL"));
    let seed = s(&seed004());
    // a checkpoint directory runs its latest checkpoint's .meta, restored from it
    assert_eq!(ok(&["run", &seed, "--fetch", "add_1:0"]).stdout, "add_1:0  float32  [1]\n  [6.0]\n");
    let out = s(&tmp.path().join("f.pb"));
    fails_with(&["freeze", "--meta", &dir, "--ckpt", &seed, "--outputs", "add_1", "-o", &out], &want("--meta"));
    // freeze's output: a directory, or a .meta name
    let meta = s(&seed004().join("model.ckpt.meta"));
    fails_with(
        &["freeze", "--meta", &meta, "--ckpt", &seed, "--outputs", "add_1", "-o", &dir],
        &format!(
            "InvalidArgument: -o {dir} is a directory; give the file to write, such as {}",
            s(&tmp.path().join("frozen.pb"))
        ),
    );
    let bad_out = s(&tmp.path().join("f.meta"));
    fails_with(
        &["freeze", "--meta", &meta, "--ckpt", &seed, "--outputs", "add_1", "-o", &bad_out],
        &format!("InvalidArgument: -o {bad_out}: a frozen graph is a GraphDef; name it .pb (binary) or .pbtxt (text), not .meta"),
    );
    assert!(!tmp.path().join("f.meta").exists());
}

#[test]
fn a_misnamed_model_is_read_by_content_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let note = |p: &Path, holds: &str, ext: &str| format!("note: {} holds {holds}; reading it as {ext}\n", s(p));
    // a .meta renamed .pb: a meta graph, restored from the checkpoint
    let meta_pb = tmp.path().join("m.pb");
    std::fs::copy(seed004().join("model.ckpt.meta"), &meta_pb).unwrap();
    let o = ok(&["inspect", &s(&meta_pb)]);
    assert_eq!(o.stderr, note(&meta_pb, "a MetaGraphDef", ".meta"));
    assert!(o.stdout.starts_with(&format!("{}: MetaGraphDef, 29 nodes\n", s(&meta_pb))), "{}", o.stdout);
    assert_eq!(runs_seed004(&meta_pb, true), note(&meta_pb, "a MetaGraphDef", ".meta"));
    // text renamed .pb
    let text_pb = tmp.path().join("t.pb");
    freeze_seed004(&tmp.path().join("t.pbtxt"));
    std::fs::rename(tmp.path().join("t.pbtxt"), &text_pb).unwrap();
    let o = ok(&["inspect", &s(&text_pb)]);
    assert_eq!(o.stderr, note(&text_pb, "a text GraphDef", ".pbtxt"));
    assert_eq!(o.stdout, format!("{}: GraphDef (text), {SEED004_FROZEN_SUMMARY}", s(&text_pb)));
    assert_eq!(runs_seed004(&text_pb, false), note(&text_pb, "a text GraphDef", ".pbtxt"));
    // binary renamed .pbtxt
    let bin_txt = tmp.path().join("b.pbtxt");
    std::fs::copy(seed004().join("frozen.pb"), &bin_txt).unwrap();
    assert_eq!(runs_seed004(&bin_txt, false), note(&bin_txt, "a binary GraphDef", ".pb"));
    // a GraphDef renamed .meta (point 5): read as .pb; --ckpt then says it is a GraphDef
    let gd_meta = tmp.path().join("g.meta");
    std::fs::copy(seed004().join("frozen.pb"), &gd_meta).unwrap();
    let o = ok(&["inspect", &s(&gd_meta)]);
    assert_eq!(o.stderr, note(&gd_meta, "a binary GraphDef", ".pb"));
    assert_eq!(o.stdout, format!("{}: GraphDef, {SEED004_FROZEN_SUMMARY}", s(&gd_meta)));
    assert_eq!(runs_seed004(&gd_meta, false), note(&gd_meta, "a binary GraphDef", ".pb"));
    let o = tg(&["run", &s(&gd_meta), "--ckpt", &s(&seed004()), "--fetch", "add_1:0"]);
    assert_eq!(o.code, Some(1));
    assert_eq!(
        o.stderr,
        format!(
            "{}error: --ckpt needs a .meta model: {} is a GraphDef, which holds no saver (freeze it or pass its .meta)\n",
            note(&gd_meta, "a binary GraphDef", ".pb"),
            s(&gd_meta)
        )
    );
    // a text meta graph (as_text=True) is a .meta: no note; in a .pbtxt it gets one
    let meta = tensorgraph::io::meta_graph::read_meta_graph(seed004().join("model.ckpt.meta")).unwrap();
    let text = tensorgraph::format::proto::text::meta_graph_def_to_text(&meta).unwrap();
    let text_meta = tmp.path().join("text.meta");
    std::fs::write(&text_meta, &text).unwrap();
    assert_eq!(runs_seed004(&text_meta, true), "");
    let o = ok(&["inspect", &s(&text_meta), "--json"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!((v["format"].as_str(), v["encoding"].as_str()), (Some("MetaGraphDef"), Some("text")));
    let meta_txt = tmp.path().join("meta.pbtxt");
    std::fs::write(&meta_txt, &text).unwrap();
    assert_eq!(runs_seed004(&meta_txt, true), note(&meta_txt, "a text MetaGraphDef", ".meta"));
    // freeze --meta reads by content too
    let out = tmp.path().join("out.pb");
    let o = ok(&["freeze", "--meta", &s(&meta_pb), "--ckpt", &s(&seed004()), "--outputs", "add_1", "-o", &s(&out)]);
    assert!(o.stderr.starts_with(&note(&meta_pb, "a MetaGraphDef", ".meta")), "{}", o.stderr);
    assert_eq!(runs_seed004(&out, false), "");
}

#[test]
fn damaged_files_are_data_loss_not_text() {
    let tmp = tempfile::tempdir().unwrap();
    // a truncated binary GraphDef whose bytes happen to be printable ("\n;\n")
    let trunc = tmp.path().join("trunc.pb");
    std::fs::write(&trunc, [0x0a, 0x3b, 0x0a]).unwrap();
    let want = format!(
        "DataLoss: MODEL {} is damaged (truncated?) or not a model file: it reads as neither a GraphDef nor a MetaGraphDef (cannot parse a GraphDef: failed to decode Protobuf message: GraphDef.node: buffer underflow)",
        s(&trunc)
    );
    fails_with(&["inspect", &s(&trunc)], &want);
    fails_with(&["run", &s(&trunc), "--fetch", "a:0"], &want);
    // the library's hint says damaged, not text
    let e = tensorgraph::io::graph_def::read_graph_def(&trunc).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert!(!e.message.contains("looks like text") && e.message.contains("damaged (truncated?)"), "{e}");
    assert_eq!(tensorgraph::io::graph_def::read_graph_def_any(&trunc).unwrap_err().code, Code::DataLoss);
    // a real frozen graph cut in half
    let bytes = std::fs::read(fixtures().join("mlp/frozen.pb")).unwrap();
    let half = tmp.path().join("half.pb");
    std::fs::write(&half, &bytes[..bytes.len() / 2]).unwrap();
    let o = tg(&["inspect", &s(&half)]);
    assert_eq!(o.code, Some(1));
    let prefix = format!("error: DataLoss: MODEL {} is damaged (truncated?) or not a model file: ", s(&half));
    assert!(o.stderr.starts_with(&prefix), "{}", o.stderr);
    // a damaged meta graph names the meta graph decoder
    let meta = std::fs::read(seed004().join("model.ckpt.meta")).unwrap();
    let cut = tmp.path().join("cut.meta");
    std::fs::write(&cut, &meta[..meta.len() - 7]).unwrap();
    let o = tg(&["run", &s(&cut), "--fetch", "a:0"]);
    assert_eq!(o.code, Some(1));
    let prefix = format!("error: DataLoss: MODEL {} is damaged (truncated?) or not a model file: ", s(&cut));
    assert!(o.stderr.starts_with(&prefix) && o.stderr.contains("cannot parse a MetaGraphDef"), "{}", o.stderr);
    // text that does not parse names the line and column
    let bad_text = tmp.path().join("bad.pb");
    std::fs::write(&bad_text, "node { name: 1 }\n").unwrap();
    let o = tg(&["inspect", &s(&bad_text)]);
    assert_eq!(o.code, Some(1));
    let prefix = format!(
        "error: InvalidArgument: MODEL {}: not a valid text GraphDef: text format parse error at line 1, column 14",
        s(&bad_text)
    );
    assert!(o.stderr.starts_with(&prefix), "{}", o.stderr);
    // what counts as text
    use tensorgraph::io::graph_def::text_format_first_field as first;
    assert_eq!(first(b"\n;\n"), None);
    assert_eq!(first(b"node {\n}"), Some("node"));
    assert_eq!(first(b"# written by hand\n  versions{ producer: 1 }"), Some("versions"));
    assert_eq!(first(b"meta_info_def: {}"), Some("meta_info_def"));
    assert_eq!(first(b" \n# only a comment\n"), Some(""));
    assert_eq!(first(b"node\x01 {"), None);
    assert_eq!(first(b"1node {"), None);
    assert_eq!(first(&[0x0a, 0x05, 0x0a, 0x01, 0x61]), None);
}

#[test]
fn empty_model_files_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["e.pb", "e.pbtxt", "e.meta", "e.txt", "empty"] {
        let p = tmp.path().join(name);
        std::fs::write(&p, b"").unwrap();
        let want = format!("InvalidArgument: MODEL {} is empty (0 bytes)", s(&p));
        fails_with(&["inspect", &s(&p)], &want);
        fails_with(&["inspect", &s(&p), "--json"], &want);
        fails_with(&["run", &s(&p), "--fetch", "a:0"], &want);
    }
    let blank = tmp.path().join("blank.pbtxt");
    std::fs::write(&blank, "\n  # nothing here\n\n").unwrap();
    fails_with(
        &["inspect", &s(&blank)],
        &format!("InvalidArgument: MODEL {} is empty (only whitespace and comments)", s(&blank)),
    );
    let empty_meta = tmp.path().join("e.meta");
    fails_with(
        &["freeze", "--meta", &s(&empty_meta), "--ckpt", &s(&seed004()), "--outputs", "a", "-o", "/tmp/never.pb"],
        &format!("InvalidArgument: --meta {} is empty (0 bytes)", s(&empty_meta)),
    );
    // the library keeps protobuf's reading of no bytes: an empty GraphDef
    assert!(tensorgraph::io::graph_def::read_graph_def(tmp.path().join("e.pb")).unwrap().node.is_empty());
}

const CONTROL_FLOW: &str = r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "s" op: "Switch" input: "x" input: "p" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s2" op: "Switch" input: "x" input: "p" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m" op: "Merge" input: "s" input: "s2:1" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
"#;

const CALL: &str = r#"node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "c" op: "StatefulPartitionedCall" input: "x" }
"#;

#[test]
fn unsupported_op_types_come_with_advice() {
    let tmp = tempfile::tempdir().unwrap();
    let cf = tmp.path().join("cond.pbtxt");
    std::fs::write(&cf, CONTROL_FLOW).unwrap();
    let call = tmp.path().join("call.pbtxt");
    std::fs::write(&call, CALL).unwrap();
    // a function call without its function is kept on loading, with a warning naming what
    // is missing, and a run that needs it fails with that
    let why =
        "node 'c' (StatefulPartitionedCall) has no function attr 'f' (a NameAttrList naming a function of the library)";
    let warning = format!(
        "warning: {}: 1 function call(s) cannot be instantiated: 'c' ({why}); they were kept, and only a run that needs one of them fails\n",
        s(&call)
    );
    let o = tg(&["run", &s(&call), "--fetch", "c:0"]);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert_eq!(
        o.stderr,
        format!(
            "{warning}error: running {}: InvalidArgument: the run needs node 'c', a function call kept uninstantiated on import: {why}; feed or fetch around it\n",
            s(&call)
        )
    );
    // TF1 control flow (Switch, Merge) is supported: inspect lists no unsupported op types
    let o = ok(&["inspect", &s(&cf)]);
    assert!(o.stdout.contains("  Switch       2\n") && !o.stdout.contains("unsupported"), "{}", o.stdout);
    // function calls are instantiated on import: inspect does not call them unsupported; this
    // call has no function, so the summary comes with the import's warning, as run's above
    let o = tg(&["inspect", &s(&call)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("  StatefulPartitionedCall  1\n") && !o.stdout.contains("unsupported"), "{}", o.stdout);
    assert_eq!(o.stderr, warning);
    let v: Value = serde_json::from_str(&ok(&["inspect", &s(&cf), "--json"]).stdout).unwrap();
    assert_eq!(v["unsupported_op_types"], serde_json::json!({}));
    // a model tensorgraph runs has none
    let o = ok(&["inspect", &s(&fixtures().join("mlp/frozen.pb"))]);
    assert!(!o.stdout.contains("unsupported"), "{}", o.stdout);
    let v: Value =
        serde_json::from_str(&ok(&["inspect", &s(&fixtures().join("mlp/model.ckpt.meta")), "--json"]).stdout).unwrap();
    assert_eq!(v["unsupported_op_types"], serde_json::json!({}));
}

#[test]
fn a_meta_file_given_as_the_checkpoint_and_a_graph_def_given_to_freeze_are_named() {
    let dir = seed004();
    let meta = s(&dir.join("model.ckpt.meta"));
    let prefix = s(&dir.join("model.ckpt"));
    fails_with(
        &["run", &meta, "--ckpt", &meta, "--fetch", "add_1:0"],
        &format!("{meta} is the model (a MetaGraphDef), not the checkpoint; the checkpoint prefix is {prefix}"),
    );
    // a GraphDef with variables cannot be restored without its saver
    let scopes = s(&fixtures().join("scopes/graph.pbtxt"));
    let tmp = tempfile::tempdir().unwrap();
    let out = s(&tmp.path().join("f.pb"));
    fails_with(
        &["freeze", "--meta", &scopes, "--ckpt", &prefix, "--outputs", "vs/w/read", "-o", &out],
        &format!("--meta {scopes} is a GraphDef, which holds no saver to restore --ckpt with; pass the .meta file the checkpoint was saved with"),
    );
}

#[test]
fn a_checkpoint_index_without_its_extension_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idxfile");
    std::fs::copy(seed004().join("model.ckpt.index"), &idx).unwrap();
    fails_with(
        &["run", &s(&idx), "--fetch", "a:0"],
        &format!(
            "InvalidArgument: MODEL {} is a checkpoint index (a .index file), not a model; pass its checkpoint prefix to --ckpt or to inspect",
            s(&idx)
        ),
    );
}

#[test]
fn freeze_with_an_unknown_output_names_the_closest_nodes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("f.pb");
    let meta = s(&seed004().join("model.ckpt.meta"));
    // a typo: the node within an edit distance of a third of the name
    fails_with(
        &freeze_args(&seed004(), "add_2", &out),
        &format!("freezing {meta}: NotFound: Output node 'add_2' is not in the graph. Did you mean 'add_1'?"),
    );
    // several as close, in order; a tensor name is looked up by its node
    fails_with(
        &freeze_args(&seed004(), "add_1,v:0", &out),
        &format!(
            "freezing {meta}: NotFound: Output node 'v:0' is not in the graph. Did you mean one of 'v1', 'v2', 'v3'?"
        ),
    );
    // nothing close: no suggestion
    fails_with(
        &freeze_args(&seed004(), "logits", &out),
        &format!("freezing {meta}: NotFound: Output node 'logits' is not in the graph."),
    );
    assert!(!out.exists());
}

/// A meta graph that does not import (a colocation target, a control input, a collection
/// entry and the SaverDef's restore op that point to nothing: `all.meta` of the new-user
/// pass) is summarized, then fails listing every problem the import meets, as `run` would.
#[test]
fn a_model_that_does_not_import_is_summarized_then_its_problems_are_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let meta = tmp.path().join("all.meta");
    std::fs::write(
        &meta,
        r#"graph_def {
             node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
             node { name: "a" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } }
                    attr { key: "_class" value { list { s: "loc:@ghost1" } } } }
             node { name: "b" op: "Identity" input: "x" input: "^ghost4" attr { key: "T" value { type: DT_FLOAT } } }
           }
           collection_def { key: "my_ops" value { node_list { value: "missing_a" } } }
           saver_def { restore_op_name: "save/nope_restore" }"#,
    )
    .unwrap();
    let o = tg(&["inspect", &s(&meta)]);
    assert_eq!(o.code, Some(1), "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stdout.starts_with(&format!("{}: MetaGraphDef (text), 3 nodes\n", s(&meta))), "{}", o.stdout);
    assert!(o.stdout.ends_with("collections: my_ops\n"), "{}", o.stdout);
    assert_eq!(
        o.stderr,
        format!(
            "error: MODEL {} does not import (MetaGraphDef summarized above): InvalidArgument: 4 references in the \
             meta graph point to nothing in its graph: Node 'a' expects to be colocated with unknown node 'ghost1'; \
             Node 'b': Unknown input node '^ghost4'; collection 'my_ops': The name 'missing_a' \
             refers to an Operation not in the graph.; SaverDef restore_op_name 'save/nope_restore': The name \
             'save/nope_restore' refers to an Operation not in the graph.\n",
            s(&meta)
        )
    );
    // a model that imports still exits 0
    ok(&["inspect", &s(&fixtures().join("mlp/model.ckpt.meta"))]);
}
