//! `FileWriter` tried the way users break it (issue 11's new-user pass): a log directory that
//! is a file or lies under one, two writers writing at the same time into one directory
//! from two threads, a summary of tens of megabytes, threads adding while another closes,
//! reopens or flushes, a writer shared by many threads dropped without `close`; each reads
//! back whole.

use prost::Message;
use tensorgraph::format::proto::{Event, EventKind, Summary, SummaryKind, SummaryValue, TensorProto};
use tensorgraph::train::summary::{event_files, EventFileReader, FileWriter, FileWriterOptions};
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

/// Every event of every file under `dir` but the file-version records, as (tag, step).
fn all_summaries(dir: &std::path::Path) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for f in event_files(dir).unwrap() {
        for e in read_all(&f) {
            if let Some(EventKind::Summary(s)) = &e.what {
                out.push((s.value[0].tag.clone(), e.step));
            }
        }
    }
    out.sort();
    out
}

/// Threads adding while another closes and reopens the writer: an `add_*` that returns `Ok`
/// has its event in a file, one that comes too late is `FailedPrecondition` (closed), and
/// none is lost between the two (a call that got the writer before `close` and queued after
/// its last write used to return `Ok` for an event never written).
#[test]
fn adding_while_another_thread_closes_and_reopens_loses_no_accepted_event() {
    for round in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let opts = FileWriterOptions { max_queue: 1 + round % 4, flush_secs: 1e6, ..Default::default() };
        let w = FileWriter::with_options(dir.path(), opts).unwrap();
        let accepted = std::thread::scope(|s| {
            let adders: Vec<_> = (0..3)
                .map(|t| {
                    let w = &w;
                    s.spawn(move || {
                        let mut accepted = Vec::new();
                        for step in 0..3000 {
                            match w.add_summary_proto(scalar(&format!("t{t}"), 0.0), step) {
                                Ok(()) => accepted.push((format!("t{t}"), step)),
                                Err(e) => {
                                    assert_eq!(e.code, Code::FailedPrecondition, "{e}");
                                    assert!(e.message.ends_with("is closed; reopen() it to write again"), "{e}");
                                }
                            }
                        }
                        accepted
                    })
                })
                .collect();
            for _ in 0..10 {
                w.close().unwrap();
                w.reopen().unwrap();
            }
            adders.into_iter().flat_map(|a| a.join().unwrap()).collect::<Vec<_>>()
        });
        w.close().unwrap();
        let mut accepted = accepted;
        accepted.sort();
        let written = all_summaries(dir.path());
        assert_eq!(written.len(), accepted.len(), "round {round}: events accepted but not written");
        assert_eq!(written, accepted, "round {round}");
    }
}

/// A thread's `flush` returns once that thread's events are in the file, while other
/// threads keep adding (with a one-event queue, every add writes).
#[test]
fn flush_on_one_thread_while_others_add_has_that_threads_events_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let w = FileWriter::with_options(dir.path(), FileWriterOptions { max_queue: 1, ..Default::default() }).unwrap();
    let path = w.path().unwrap();
    std::thread::scope(|s| {
        for t in 0..2 {
            let w = &w;
            s.spawn(move || {
                for step in 0..3000 {
                    w.add_summary_proto(scalar(&format!("busy{t}"), 0.0), step).unwrap();
                }
            });
        }
        for step in 0..50 {
            w.add_summary_proto(scalar("flushed", step as f32), step).unwrap();
            w.flush().unwrap();
            // the file may end inside a record another thread is writing; every complete
            // record before it reads
            let mut r = EventFileReader::open(&path).unwrap();
            let last = r
                .by_ref()
                .map(|e| e.unwrap())
                .filter_map(|e| match e.what {
                    Some(EventKind::Summary(s)) if s.value[0].tag == "flushed" => Some(e.step),
                    _ => None,
                })
                .last();
            assert_eq!(last, Some(step), "flush returned before event {step} was in the file");
        }
    });
    w.close().unwrap();
    let written = all_summaries(dir.path());
    assert_eq!(written.len(), 2 * 3000 + 50);
}

/// Events added from many threads through a tiny queue, with the writer dropped without
/// `close` right after: every event of every thread is in the file, each thread's in order.
#[test]
fn a_writer_shared_by_many_threads_and_dropped_without_close_keeps_every_event_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let w = FileWriter::with_options(dir.path(), FileWriterOptions { max_queue: 2, ..Default::default() }).unwrap();
    let path = w.path().unwrap();
    std::thread::scope(|s| {
        for t in 0..8 {
            let w = &w;
            s.spawn(move || {
                for step in 0..500 {
                    w.add_summary_proto(scalar(&format!("t{t}"), step as f32), step).unwrap();
                }
            });
        }
    });
    drop(w);
    let mut next = [0i64; 8];
    let events = read_all(&path);
    assert_eq!(events.len(), 1 + 8 * 500);
    for e in &events[1..] {
        let Some(EventKind::Summary(s)) = &e.what else { panic!("not a summary: {e:?}") };
        let t: usize = s.value[0].tag[1..].parse().unwrap();
        assert_eq!((e.step, s.value[0].value.clone()), (next[t], Some(SummaryKind::SimpleValue(next[t] as f32))));
        next[t] += 1;
    }
}

#[test]
fn an_empty_log_directory_a_bad_flush_secs_and_bytes_that_are_not_run_metadata_are_refused() {
    let e = FileWriter::new("").err().unwrap();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "FileWriter got an empty log directory; pass the directory to write the event file into (\".\" for the working directory)"
    );
    let dir = tempfile::tempdir().unwrap();
    for (secs, shown) in [(f64::NAN, "NaN"), (-1.0, "-1")] {
        let options = FileWriterOptions { flush_secs: secs, ..Default::default() };
        let e = FileWriter::with_options(dir.path(), options).err().unwrap();
        assert_eq!(e.code, Code::InvalidArgument);
        assert_eq!(e.message, format!("FileWriter's flush_secs must be a number of seconds >= 0, got {shown}"));
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a refused writer makes no file");
    let w = FileWriter::new(dir.path()).unwrap();
    let e = w.add_run_metadata(b"\xff\xff", "step1", 1).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with("add_run_metadata got 2 bytes that are not a serialized RunMetadata: "),
        "{}",
        e.message
    );
    w.add_run_metadata(&[], "step1", 1).unwrap();
    w.close().unwrap();
}
