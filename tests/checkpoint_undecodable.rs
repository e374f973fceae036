//! Checkpoint entries that cannot be decoded never vanish (issue 12, item 1): `open` fails
//! naming the entry (an unparsable entry, an invalid shape: TensorFlow's reader refuses
//! those too) or the entry is listed by `problems()` with what is wrong (a dtype that is not a
//! DataType, a slice spec that does not fit, a key that is not UTF-8: TensorFlow lists those
//! and fails on reading them). The damaged files are built from seed004 in the test.

#[path = "common/damaged.rs"]
mod damaged;

use damaged::{edit_entry, rename_key, seed004_index, write_index};
use tensorgraph::format::checkpoint::bundle_proto::{Extent, HasLength, TensorSliceProto};
use tensorgraph::format::checkpoint::{CheckpointReader, UndecodableEntry};
use tensorgraph::{Code, DType};

fn names(r: &CheckpointReader) -> Vec<String> {
    r.list().into_iter().map(|e| e.0).collect()
}

fn problem(name: &str, problem: &str) -> UndecodableEntry {
    UndecodableEntry { name: name.into(), problem: problem.into() }
}

#[test]
fn the_original_has_no_problems() {
    let r = CheckpointReader::open(damaged::seed004()).unwrap();
    assert_eq!(names(&r), ["v1", "v2", "v3"]);
    assert!(r.problems().is_empty());
}

#[test]
fn a_dtype_that_is_not_a_data_type_is_listed_with_its_problem() {
    // the example: v2's dtype set to 999
    let dir = tempfile::tempdir().unwrap();
    let p = edit_entry(dir.path(), "model.ckpt", "v2", |e| e.dtype = 999);
    let r = CheckpointReader::open(&p).unwrap();
    assert_eq!(names(&r), ["v1", "v3"]);
    assert_eq!(r.problems(), [problem("v2", "DataType 999 is not a TensorFlow dtype")]);
    let e = r.read("v2").unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("\"v2\"") && e.message.contains("DataType 999"), "{e}");
    assert_eq!(r.read("v3").unwrap().to_vec::<f32>().unwrap(), [3.0]);

    // DT_RESOURCE (20) is a DataType, but no checkpoint value can have it
    let p = edit_entry(dir.path(), "resource", "v1", |e| e.dtype = 20);
    let r = CheckpointReader::open(&p).unwrap();
    assert_eq!(names(&r), ["v2", "v3"]);
    assert_eq!(r.problems(), [problem("v1", "DataType 20 (resource) has no tensor values tensorgraph can read")]);
}

#[test]
fn an_invalid_shape_fails_open_naming_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let p = edit_entry(dir.path(), "neg", "v2", |e| e.shape.as_mut().unwrap().dim[0].size = -5);
    let e = CheckpointReader::open(&p).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert_eq!(
        e.message,
        format!("corrupted checkpoint index {}.index: entry \"v2\": shape has invalid dimension -5", p.display())
    );
    let p = edit_entry(dir.path(), "rank", "v3", |e| e.shape.as_mut().unwrap().unknown_rank = true);
    let e = CheckpointReader::open(&p).unwrap_err();
    assert!(e.message.ends_with("entry \"v3\": shape has unknown rank"), "{e}");
}

#[test]
fn an_unparsable_entry_fails_open_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let entries = seed004_index()
        .into_iter()
        .map(|(k, v)| if k == b"v1" { (k, vec![0x0a, 0x05, 0x01]) } else { (k, v) })
        .collect();
    let p = write_index(dir.path(), "bad", entries);
    let e = CheckpointReader::open(&p).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert!(e.message.contains("bad entry for \"v1\""), "{e}");
}

#[test]
fn a_key_that_is_not_utf8_is_listed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let p = rename_key(dir.path(), "model.ckpt", "v2", b"v\xff2");
    let r = CheckpointReader::open(&p).unwrap();
    assert_eq!(names(&r), ["v1", "v3"]);
    assert_eq!(r.problems(), [problem("v\\xff2", "the key is not UTF-8, so no name can read it")]);
    // two keys that a lossy conversion would both show as "v\u{fffd}" stay apart
    let mut entries = seed004_index();
    entries.retain(|(k, _)| k != b"v2" && k != b"v3");
    let v1 = entries.iter().find(|(k, _)| k == b"v1").unwrap().1.clone();
    entries.push((b"v\xfe".to_vec(), v1.clone()));
    entries.push((b"v\xff".to_vec(), v1));
    let r = CheckpointReader::open(write_index(dir.path(), "two", entries)).unwrap();
    let shown: Vec<&str> = r.problems().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(shown, ["v\\xfe", "v\\xff"]);
}

#[test]
fn a_slice_spec_that_does_not_fit_is_listed_with_its_problem() {
    let dir = tempfile::tempdir().unwrap();
    let slice =
        |start, len| TensorSliceProto { extent: vec![Extent { start, has_length: Some(HasLength::Length(len)) }] };
    let p = edit_entry(dir.path(), "long", "v2", |e| e.slices = vec![slice(0, 5)]);
    let r = CheckpointReader::open(&p).unwrap();
    assert_eq!(names(&r), ["v1", "v3"]);
    assert_eq!(r.problems(), [problem("v2", "slice 0: slice extent start 0 length 5 does not fit dimension 1")]);
    assert_eq!(r.read("v2").unwrap_err().code, Code::DataLoss);

    let p = edit_entry(dir.path(), "rank", "v2", |e| e.slices = vec![TensorSliceProto { extent: vec![] }]);
    let r = CheckpointReader::open(&p).unwrap();
    assert_eq!(r.problems(), [problem("v2", "slice 0: slice has 0 extents for a tensor of rank 1")]);

    // a slice that fits but whose own entry is not in the index
    let p = edit_entry(dir.path(), "missing", "v3", |e| e.slices = vec![slice(0, 1)]);
    let r = CheckpointReader::open(&p).unwrap();
    assert_eq!(names(&r), ["v1", "v2"]);
    assert_eq!(r.problems(), [problem("v3", "slice 0 [(0, 1)]: its entry is missing")]);
    assert_eq!(r.list()[0].1, DType::Float);
}

#[test]
fn a_v1_checkpoint_without_its_meta_record_is_an_error_not_an_empty_listing() {
    use tensorgraph::format::checkpoint::table::{build_table, TableOptions};
    use tensorgraph::format::checkpoint::TensorSliceReader;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.ckpt");
    let write = |entries: &[(Vec<u8>, Vec<u8>)]| {
        std::fs::write(&path, build_table(entries, TableOptions::default()).unwrap()).unwrap();
        TensorSliceReader::open(path.to_str().unwrap()).unwrap_err()
    };
    let e = write(&[(b"w".to_vec(), vec![1, 2, 3])]);
    assert_eq!(e.code, Code::DataLoss);
    assert_eq!(e.message, format!("V1 checkpoint file {} has no meta record (key \"\")", path.display()));
    let e = write(&[(Vec::new(), vec![0x0a, 0x09, 0x01])]);
    assert_eq!(e.code, Code::DataLoss);
    assert!(
        e.message.starts_with(&format!("V1 checkpoint file {}: its meta record does not parse: ", path.display())),
        "{e}"
    );
}

#[test]
fn restore_names_an_undecodable_entry_as_such_not_as_missing() {
    // seed004's v2 with dtype 999: restoring the seed004 model says v2's entry cannot be
    // decoded, instead of "not found in checkpoint"
    let dir = tempfile::tempdir().unwrap();
    let p = edit_entry(dir.path(), "model.ckpt", "v2", |e| e.dtype = 999);
    let g = tensorgraph::Graph::new();
    let s = g.scope();
    for name in ["v1", "v2", "v3"] {
        s.variable_from_value(name, tensorgraph::Tensor::new(&[1], vec![0f32]).unwrap()).unwrap();
    }
    let sess = tensorgraph::Session::new(&g).unwrap();
    let e = tensorgraph::train::Saver::new(&g).unwrap().restore(&sess, &p).unwrap_err();
    assert!(
        e.message.contains("v2: the checkpoint's entry cannot be decoded (DataType 999 is not a TensorFlow dtype)"),
        "{e}"
    );
    assert!(!e.message.contains("not found in checkpoint"), "{e}");
}
