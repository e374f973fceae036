//! `FileWriter` tried the way users break it (issue 11's new-user pass): a log directory that
//! is a file or lies under one, two writers writing at the same time into one directory
//! from two threads, and a summary of tens of megabytes; each reads back whole.

use prost::Message;
use tensorgraph::format::proto::{Event, EventKind, Summary, SummaryKind, SummaryValue, TensorProto};
use tensorgraph::train::summary::{event_files, EventFileReader, FileWriter};
use tensorgraph::{Code, DType, Tensor};

fn read_all(path: &std::path::Path) -> Vec<Event> {
    let mut r = EventFileReader::open(path).unwrap();
    let events: Vec<Event> = r.by_ref().map(|e| e.unwrap()).collect();
    assert_eq!(r.warning(), None);
    events
}

fn scalar(tag: &str, v: f32) -> Summary {
    Summary {
        value: vec![SummaryValue { tag: tag.into(), value: Some(SummaryKind::SimpleValue(v)), ..Default::default() }],
    }
}

#[test]
fn a_log_directory_that_is_a_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("logs");
    std::fs::write(&file, b"not a directory").unwrap();
    let e = FileWriter::new(&file).err().unwrap();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert_eq!(
        e.message,
        format!("cannot write events to the log directory {}: it is a file, not a directory; FileWriter takes a directory (created if missing) and writes a new events.out.tfevents.* file in it", file.display())
    );
    // a directory below a file (the file system says only "Not a directory")
    let below = file.join("run1");
    let e = FileWriter::new(&below).err().unwrap();
    assert_eq!(e.code, Code::FailedPrecondition);
    assert_eq!(
        e.message,
        format!("cannot write events to the log directory {}: {} is a file, not a directory; FileWriter takes a directory (created if missing) and writes a new events.out.tfevents.* file in it", below.display(), file.display())
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

#[test]
fn two_writers_writing_at_once_into_one_directory_keep_every_event() {
    let dir = tempfile::tempdir().unwrap();
    let threads: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|tag| {
            let d = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let w = FileWriter::new(&d).unwrap();
                for step in 0..2000 {
                    w.add_summary_proto(scalar(tag, step as f32), step).unwrap();
                }
                w.path().unwrap()
            })
        })
        .collect();
    let paths: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_ne!(paths[0], paths[1]);
    assert_eq!(event_files(dir.path()).unwrap().len(), 2);
    for (path, tag) in paths.iter().zip(["a", "b"]) {
        let events = read_all(path);
        assert_eq!(events.len(), 2001);
        for (i, e) in events[1..].iter().enumerate() {
            assert_eq!((e.step, &e.what), (i as i64, &Some(EventKind::Summary(scalar(tag, i as f32)))));
        }
    }
}

#[test]
fn a_summary_of_tens_of_megabytes_is_written_and_read_back_whole() {
    // a 4M-element float tensor summary (16 MiB of values), three times
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<f32> = (0..(4 << 20)).map(|i| i as f32 * 0.5).collect();
    let t = Tensor::new(&[4 << 20], values).unwrap();
    let proto = TensorProto::from_tensor(&t);
    let big = Summary {
        value: vec![SummaryValue {
            tag: "big".into(),
            value: Some(SummaryKind::Tensor(Box::new(proto))),
            ..Default::default()
        }],
    };
    let w = FileWriter::new(dir.path()).unwrap();
    for step in 0..3 {
        w.add_summary(&big.encode_to_vec(), step).unwrap();
    }
    w.close().unwrap();
    let events = read_all(&event_files(dir.path()).unwrap()[0]);
    assert_eq!(events.len(), 4);
    for (i, e) in events[1..].iter().enumerate() {
        assert_eq!(e.step, i as i64);
        let Some(EventKind::Summary(s)) = &e.what else { panic!("not a summary: {e:?}") };
        assert_eq!(s, &big);
        let Some(SummaryKind::Tensor(p)) = &s.value[0].value else { panic!() };
        let back = p.to_tensor().unwrap();
        assert_eq!((back.dtype(), back.shape()), (DType::Float, &[4usize << 20][..]));
        assert_eq!(back.as_slice::<f32>().unwrap()[(4 << 20) - 1], ((4 << 20) - 1) as f32 * 0.5);
    }
}
