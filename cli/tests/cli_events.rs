//! `tensorgraph events`: TensorFlow's event file (text, --json, --tag), a directory of runs,
//! a truncated file (complete records and a warning), a corrupt one (its records before the
//! bad one and the other files printed, then exit 1 naming the file and offset) and a path
//! without event files.

mod common;
use common::cli::{fails, ok, s, tg};
use serde_json::Value;

fn fixture_file() -> std::path::PathBuf {
    common::fixtures().join("events/events.out.tfevents.1796006312.vm")
}

#[test]
fn text_lists_every_event_of_tensorflows_file() {
    let f = fixture_file();
    let o = ok(&["events", &s(&f)]);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0], s(&f));
    assert_eq!(lines[1], "  step      0  1796006312.000  file_version  brain.Event:2");
    assert!(lines[2].ends_with("graph_def  10 nodes, 963 bytes"), "{}", lines[2]);
    assert!(lines[3].ends_with("meta_graph_def  10 nodes, 1776 bytes"), "{}", lines[3]);
    assert!(lines[5].starts_with("  step      1  ") && lines[5].ends_with("  loss  scalar  0.5"), "{}", lines[5]);
    assert!(
        lines[7].contains("  weights  histogram  num 16.0 min -1.0 max 2.0 sum 8.0  bucket counts [0.0,1.0,0.0,1.0,"),
        "{}",
        lines[7]
    );
    assert!(o.stderr.is_empty());
}

#[test]
fn json_and_tag_give_the_values() {
    let f = fixture_file();
    let o = ok(&["events", &s(&f), "--json", "--tag", "loss"]);
    let rows: Vec<Value> = o.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let got: Vec<(i64, f64)> =
        rows.iter().map(|r| (r["step"].as_i64().unwrap(), r["value"].as_f64().unwrap())).collect();
    assert_eq!(got, [(0, 1.0), (1, 0.5), (2, 0.25)]);
    assert!(rows.iter().all(|r| r["kind"] == "scalar" && r["tag"] == "loss" && r["file"] == s(&f)));
    let o = ok(&["events", &s(fixture_file().parent().unwrap()), "--json", "--tag", "weights"]);
    let h: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(h["kind"], "histogram");
    assert_eq!(h["value"]["num"], 16.0);
    assert_eq!(h["value"]["bucket"].as_array().unwrap().len(), 31);
    let o = ok(&["events", &s(&f), "--json"]);
    let kinds: Vec<String> = o
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["file_version", "graph_def", "meta_graph_def", "scalar", "scalar", "scalar", "histogram"]);
}

#[test]
fn a_tag_no_value_has_fails_naming_the_tags_there_are() {
    let f = fixture_file();
    fails(
        &["events", &s(&f), "--tag", "los"],
        &format!("no summary value is tagged 'los' in {}; its tags: loss, weights", s(&f)),
    );
}

#[test]
fn a_truncated_file_prints_its_complete_records_and_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture_file()).unwrap();
    let cut = dir.path().join("events.out.tfevents.1.cut");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let o = ok(&["events", &s(&cut), "--json"]);
    assert_eq!(o.stdout.lines().count(), 6);
    assert_eq!(
        o.stderr,
        format!(
            "warning: {}: the last record, at byte 2997, is incomplete (492 of 592 bytes): the writer stopped mid-write; the records before it were read\n",
            s(&cut)
        )
    );
}

#[test]
fn a_corrupt_file_and_a_path_without_events_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(fixture_file()).unwrap();
    bytes[3000] ^= 1;
    let bad = dir.path().join("events.out.tfevents.1.bad");
    std::fs::write(&bad, &bytes).unwrap();
    // the 6 records before the bad one are printed, then the error (exit 1)
    let o = tg(&["events", &s(&bad), "--json"]);
    assert_eq!(o.code, Some(1), "stderr: {}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 6, "{}", o.stdout);
    assert_eq!(
        o.stderr,
        format!(
            "error: DataLoss: {}: corrupt record at byte 2997: the checksum of its length does not match; the file was damaged after it was written\n",
            s(&bad)
        )
    );
    let empty = tempfile::tempdir().unwrap();
    fails(&["events", &s(empty.path())], "no event files");
    fails(&["events", "/nonexistent/logs"], "/nonexistent/logs");
}

/// A corrupt record in the middle of one file hides neither the records before it nor the
/// other files of the directory: all are printed, then each damaged file is an error naming
/// the file and the record's byte offset (TensorFlow's `summary_iterator` yields the good
/// records before it raises).
#[test]
fn a_corrupt_record_hides_neither_the_records_before_it_nor_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let good_bytes = std::fs::read(fixture_file()).unwrap();
    let good = dir.path().join("events.out.tfevents.0.good");
    std::fs::write(&good, &good_bytes).unwrap();
    // the third record (the meta graph, at byte 1069) has a byte of its data flipped
    let mut bytes = good_bytes.clone();
    bytes[1069 + 12 + 5] ^= 1;
    let bad = dir.path().join("events.out.tfevents.1.bad");
    std::fs::write(&bad, &bytes).unwrap();
    // a second damaged file: its length's checksum
    let mut bytes = good_bytes.clone();
    bytes[2913 + 9] ^= 1;
    let bad2 = dir.path().join("events.out.tfevents.2.bad");
    std::fs::write(&bad2, &bytes).unwrap();

    let o = tg(&["events", &s(&bad)]);
    assert_eq!(o.code, Some(1), "stderr: {}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", o.stdout);
    assert_eq!(lines[0], s(&bad));
    assert_eq!(lines[1], "  step      0  1796006312.000  file_version  brain.Event:2");
    assert!(lines[2].ends_with("graph_def  10 nodes, 963 bytes"), "{}", lines[2]);
    assert_eq!(
        o.stderr,
        format!(
            "error: DataLoss: {}: corrupt record at byte 1069: the checksum of its data does not match; the file was damaged after it was written\n",
            s(&bad)
        )
    );

    let o = tg(&["events", &s(dir.path()), "--json"]);
    assert_eq!(o.code, Some(1), "stderr: {}", o.stderr);
    let files: Vec<String> = o
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> =
        [(&good, 7), (&bad, 2), (&bad2, 4)].iter().flat_map(|(f, n)| std::iter::repeat_n(s(f), *n)).collect();
    assert_eq!(files, want);
    assert_eq!(
        o.stderr,
        format!(
            "error: 2 event files could not be read to their end (the records before each were printed):\n  \
             DataLoss: {}: corrupt record at byte 1069: the checksum of its data does not match; the file was damaged after it was written\n  \
             DataLoss: {}: corrupt record at byte 2913: the checksum of its length does not match; the file was damaged after it was written\n",
            s(&bad),
            s(&bad2)
        )
    );
}

/// Found by the `event_file` fuzz target (FUZZING.md): a 42-byte event file whose tensor
/// summary is one bool for a shape of 2^30 made `events` expand it (1 GiB) and then convert
/// it to numbers (an 8 GiB allocation). Large tensors are shown by shape and element count.
#[test]
fn a_tensor_summary_too_large_to_show_is_shown_by_its_shape() {
    let f = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/fuzz/event_bool_splat_1gib.tfevents");
    let o = ok(&["events", &s(&f), "--json"]);
    let row: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(row["kind"], "tensor");
    assert_eq!(row["tag"], "t");
    assert_eq!(row["step"], 1);
    assert_eq!(row["value"], serde_json::json!({"shape": [1073741824], "elements": 1073741824, "values": "not shown"}));
}

/// A graph event whose bytes are not a GraphDef is shown as such, not as a graph of no nodes.
#[test]
fn a_graph_event_that_does_not_decode_says_so() {
    use tensorgraph::format::proto::{Event, EventKind};
    use tensorgraph::train::summary::FileWriter;
    let dir = tempfile::tempdir().unwrap();
    let w = FileWriter::new(dir.path()).unwrap();
    w.add_event(Event {
        wall_time: 1.0,
        step: 0,
        what: Some(EventKind::GraphDef(vec![0xff, 0xff])),
        source_metadata: None,
    })
    .unwrap();
    w.close().unwrap();
    let o = ok(&["events", &s(dir.path())]);
    let line = o.stdout.lines().find(|l| l.contains("graph_def")).unwrap();
    assert!(line.contains("graph_def  2 bytes, not a GraphDef: "), "{line}");
    let o = ok(&["events", &s(dir.path()), "--json"]);
    let row: Value =
        o.stdout.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|r| r["kind"] == "graph_def").unwrap();
    assert_eq!(row["value"]["nodes"], Value::Null);
    assert!(row["value"]["error"].as_str().unwrap().starts_with("not a GraphDef: "), "{row}");
}
