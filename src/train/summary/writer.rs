//! [`FileWriter`]: TensorFlow's `tf.compat.v1.summary.FileWriter`. Events go into a bounded
//! queue; a background thread, or the caller whose event fills the queue, frames them as
//! TFRecords and appends them to the event file; `flush`, `close` and `Drop` write
//! everything queued.

use super::file_name::next_event_file_name;
use crate::error::{Error, Result};
use crate::format::proto::{
    Event, EventKind, GraphDef, MetaGraphDef, RunMetadata, SessionLog, SourceMetadata, Summary, TaggedRunMetadata,
    EVENT_FILE_VERSION,
};
use crate::format::tfrecord::encode_record;
use crate::tensor::{Storage, Tensor};
use prost::Message;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long the writer thread naps once events are queued or buffered; after a nap in which
/// no event came, the buffer is written to the file.
const IDLE_WRITE: Duration = Duration::from_millis(2);

/// The `source_metadata.writer` of the first record, as TensorFlow's event writer.
const WRITER_NAME: &str = "tensorflow.core.util.events_writer";

/// Options of a [`FileWriter`] (`tf.compat.v1.summary.FileWriter`'s keyword arguments).
#[derive(Clone, Debug)]
pub struct FileWriterOptions {
    /// Events the queue holds before an `add_*` call writes them itself (`max_queue`,
    /// default 10; 0 is taken as 1). No call waits for the writer thread.
    pub max_queue: usize,
    /// Longest time, in seconds, that written events stay in the writer's buffer while
    /// events keep arriving (`flush_secs`, default 120). Buffered events are also written
    /// once 2 ms pass without a new event, and on `flush`, `close` and drop.
    pub flush_secs: f64,
    /// Appended to the file name (`filename_suffix`, default empty).
    pub filename_suffix: String,
}

impl Default for FileWriterOptions {
    fn default() -> Self {
        FileWriterOptions { max_queue: 10, flush_secs: 120.0, filename_suffix: String::new() }
    }
}

/// The events callers queued and the writer thread's state, under one lock.
#[derive(Default)]
struct Queue {
    /// Events not yet written, in order (at most `max_queue`).
    events: Vec<Event>,
    /// The sink holds records not yet written to the file.
    dirty: bool,
    /// Set by `close`: the thread stops.
    closed: bool,
    /// Set while the thread sleeps with nothing queued or buffered; whoever queues or
    /// buffers something then wakes it. While it naps with records buffered, nobody wakes it.
    asleep: bool,
}

/// The event file and its buffer. Whoever holds it writes: the writer thread when the queue
/// has waited a while, a caller whose event filled the queue (TensorFlow's "forces a flush"),
/// `flush` and `close`.
struct Sink {
    out: BufWriter<File>,
    path: PathBuf,
    /// The first write error, returned by every later call (TensorFlow's writer re-raises it).
    error: Option<Error>,
    /// When the buffer was last written to the file.
    last_write: Instant,
}

impl Sink {
    /// Records a write error; later writes are skipped.
    fn check(&mut self, r: std::io::Result<()>) {
        if let (Err(e), None) = (r, &self.error) {
            self.error = Some(crate::format::atomic_file::io_error(e, "cannot write", &self.path));
        }
    }

    /// Appends `events` as TFRecords to the buffer.
    fn append(&mut self, events: Vec<Event>) {
        for e in events {
            if self.error.is_none() {
                let r = self.out.write_all(&encode_record(&e.encode_to_vec()));
                self.check(r);
            }
        }
    }

    /// Writes the buffer to the file, and with `sync` to the disk.
    fn write_out(&mut self, sync: bool) {
        if self.error.is_none() {
            let r = self.out.flush().and_then(|_| if sync { self.out.get_ref().sync_data() } else { Ok(()) });
            self.check(r);
        }
        self.last_write = Instant::now();
    }

    fn result(&self) -> Result<()> {
        self.error.clone().map_or(Ok(()), Err)
    }
}

/// What callers and the writer thread share. Locks are taken sink first, then queue.
struct Shared {
    queue: Mutex<Queue>,
    work: Condvar,
    sink: Mutex<Sink>,
    /// Set once the sink has an error, so that `push` returns it without taking the sink.
    failed: AtomicBool,
}

fn relock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Queues `event`; the caller whose event fills the queue writes it to the buffer
    /// itself, so no caller ever waits for the thread. Errors: the first write error;
    /// `closed()` once `close` has begun (its last write would not see the event).
    fn push(&self, event: Event, max_queue: usize, closed: impl FnOnce() -> Error) -> Result<()> {
        if self.failed.load(Ordering::Relaxed) {
            return relock(&self.sink).result();
        }
        let mut q = relock(&self.queue);
        if q.closed {
            return Err(closed());
        }
        q.events.push(event);
        let full = q.events.len() >= max_queue;
        self.wake_if_asleep(&mut q);
        drop(q);
        if full {
            self.drain(None)
        } else {
            Ok(())
        }
    }

    fn wake_if_asleep(&self, q: &mut Queue) {
        if q.asleep {
            q.asleep = false;
            self.work.notify_one();
        }
    }

    /// Appends every queued event to the buffer; with `Some(sync)` also writes the buffer
    /// to the file (and the disk). Returns the first write error.
    fn drain(&self, write_out: Option<bool>) -> Result<()> {
        let mut sink = relock(&self.sink);
        let mut q = relock(&self.queue);
        let events = std::mem::take(&mut q.events);
        q.dirty |= !events.is_empty();
        if write_out.is_some() {
            q.dirty = false;
        } else {
            self.wake_if_asleep(&mut q);
        }
        drop(q);
        sink.append(events);
        if let Some(sync) = write_out {
            sink.write_out(sync);
        }
        self.failed.store(sink.error.is_some(), Ordering::Relaxed);
        sink.result()
    }
}

/// A running writer thread and its file.
struct Worker {
    shared: Arc<Shared>,
    thread: JoinHandle<()>,
    path: PathBuf,
}

/// Writes TensorBoard event files: `tf.compat.v1.summary.FileWriter(logdir)`.
///
/// The file, `LOGDIR/events.out.tfevents.<seconds>.<host>.<pid>.<n>`, is new for every
/// writer (so two writers never share one) and starts with the `brain.Event:2` record. Every
/// `add_*` method queues an event for a background thread that appends it as a TFRecord;
/// the call whose event fills the queue (`max_queue`) appends the queue itself, so no call
/// waits for the thread (100,000 scalar events take about 0.1 s). `flush` returns once
/// everything queued is in the file; `close`, and dropping the writer, do the same and stop
/// the thread, so no event is lost when the writer goes out of scope or `main` returns.
/// `FileWriter::with_graph` and `add_graph` (defined with the graph export, `io`) write the
/// graph and meta graph. [`FileWriter::add_run_metadata`] writes the `RunMetadata` step
/// statistics a traced `Session::run_with_options` returns.
///
/// The first error writing the file (a full disk) is returned by every later `add_*`,
/// `flush` and `close`, naming the file; events after it are not written.
pub struct FileWriter {
    logdir: PathBuf,
    options: FileWriterOptions,
    worker: Mutex<Option<Worker>>,
}

/// Seconds since the epoch, as an event's `wall_time`.
pub fn wall_time() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

impl FileWriter {
    /// A writer with the default options (`max_queue` 10, `flush_secs` 120) into `logdir`,
    /// created with its parents when missing. Errors: `FailedPrecondition` when `logdir` or
    /// a directory above it is a file, naming it; else the file system's, naming the path.
    pub fn new(logdir: impl AsRef<Path>) -> Result<FileWriter> {
        FileWriter::with_options(logdir, FileWriterOptions::default())
    }

    /// A writer with `options` into `logdir` (see [`FileWriter::new`]).
    /// Errors: those of [`FileWriter::new`]; `InvalidArgument` for an empty `logdir` (nothing
    /// is written into the working directory) or a `flush_secs` that is negative or NaN.
    pub fn with_options(logdir: impl AsRef<Path>, options: FileWriterOptions) -> Result<FileWriter> {
        let logdir = logdir.as_ref().to_path_buf();
        if logdir.as_os_str().is_empty() {
            return Err(Error::invalid_argument(
                "FileWriter got an empty log directory; pass the directory to write the event file into (\".\" for the working directory)",
            ));
        }
        if options.flush_secs.is_nan() || options.flush_secs < 0.0 {
            return Err(Error::invalid_argument(format!(
                "FileWriter's flush_secs must be a number of seconds >= 0, got {}",
                options.flush_secs
            )));
        }
        let worker = start(&logdir, &options)?;
        Ok(FileWriter { logdir, options, worker: Mutex::new(Some(worker)) })
    }

    /// The log directory.
    pub fn logdir(&self) -> &Path {
        &self.logdir
    }

    /// The event file being written (`None` once closed).
    pub fn path(&self) -> Option<PathBuf> {
        self.lock().as_ref().map(|w| w.path.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Worker>> {
        self.worker.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `FailedPrecondition`: the writer is closed.
    fn closed_error(&self) -> Error {
        Error::failed_precondition(format!(
            "the FileWriter of {} is closed; reopen() it to write again",
            self.logdir.display()
        ))
    }

    /// The shared state of the open writer. Errors: `FailedPrecondition` after `close`.
    fn shared(&self) -> Result<Arc<Shared>> {
        let shared = self.lock().as_ref().map(|w| w.shared.clone());
        shared.ok_or_else(|| self.closed_error())
    }

    /// Queues `event` as it is (`FileWriter.add_event`). Errors: `FailedPrecondition` after
    /// `close` (until `reopen`), also for a call that races with `close` on another thread
    /// and comes too late for its last write (an event is either written or refused, never
    /// lost); the first error writing the file, from then on.
    pub fn add_event(&self, event: Event) -> Result<()> {
        self.shared()?.push(event, self.options.max_queue.max(1), || self.closed_error())
    }

    /// Queues an event of `what` at `step`, stamped now.
    fn add(&self, what: EventKind, step: i64) -> Result<()> {
        self.add_event(Event { wall_time: wall_time(), step, what: Some(what), source_metadata: None })
    }

    /// `add_summary(summary, global_step)`: the serialized `Summary` a summary op (or
    /// `merge_all`) returned, at `step`. Errors: `InvalidArgument` when the bytes are not a
    /// `Summary`; those of [`FileWriter::add_event`].
    pub fn add_summary(&self, summary: &[u8], step: i64) -> Result<()> {
        let s = Summary::decode(summary).map_err(|e| {
            Error::invalid_argument(format!(
                "add_summary got {} bytes that are not a serialized Summary: {e}",
                summary.len()
            ))
        })?;
        self.add(EventKind::Summary(s), step)
    }

    /// [`FileWriter::add_summary`] of a summary op's fetched output (a string scalar).
    /// Errors: `InvalidArgument` for another tensor.
    pub fn add_summary_tensor(&self, summary: &Tensor, step: i64) -> Result<()> {
        match summary.storage() {
            Storage::Str(v) if v.len() == 1 => self.add_summary(&v[0], step),
            _ => Err(Error::invalid_argument(format!(
                "add_summary_tensor needs the string scalar a summary op outputs, got a {} tensor of shape {:?}",
                summary.dtype(),
                summary.shape()
            ))),
        }
    }

    /// [`FileWriter::add_summary`] of a `Summary` message.
    pub fn add_summary_proto(&self, summary: Summary, step: i64) -> Result<()> {
        self.add(EventKind::Summary(summary), step)
    }

    /// `add_session_log(SessionLog(status=...), step)`: [`SessionLog::START`] when a run
    /// (re)starts (TensorBoard then drops the events of later steps written before),
    /// [`SessionLog::STOP`], [`SessionLog::CHECKPOINT`].
    pub fn add_session_log(&self, log: SessionLog, step: i64) -> Result<()> {
        self.add(EventKind::SessionLog(log), step)
    }

    /// `add_graph` of a `GraphDef` (step 0, as TensorFlow). For a [`crate::Graph`], use
    /// `add_graph`.
    pub fn add_graph_def(&self, graph_def: &GraphDef) -> Result<()> {
        self.add(EventKind::GraphDef(graph_def.encode_to_vec()), 0)
    }

    /// `add_meta_graph(meta_graph_def)` (step 0).
    pub fn add_meta_graph_def(&self, meta_graph_def: &MetaGraphDef) -> Result<()> {
        self.add(EventKind::MetaGraphDef(meta_graph_def.encode_to_vec()), 0)
    }

    /// `add_run_metadata(run_metadata, tag, step)`: a serialized `RunMetadata` under `tag`.
    /// The step statistics come from `Session::run_with_options` with `trace_level: FullTrace`.
    /// Errors: `InvalidArgument` when the bytes are not a serialized `RunMetadata`; those of
    /// [`FileWriter::add_event`].
    pub fn add_run_metadata(&self, run_metadata: &[u8], tag: &str, step: i64) -> Result<()> {
        RunMetadata::decode(run_metadata).map_err(|e| {
            Error::invalid_argument(format!(
                "add_run_metadata got {} bytes that are not a serialized RunMetadata: {e}",
                run_metadata.len()
            ))
        })?;
        let t = TaggedRunMetadata { tag: tag.to_string(), run_metadata: run_metadata.to_vec() };
        self.add(EventKind::TaggedRunMetadata(t), step)
    }

    /// Writes every queued event to the file and syncs it (`flush()`); returns when done.
    /// Errors: the first error writing the file. A closed writer has nothing to flush.
    pub fn flush(&self) -> Result<()> {
        // the writer's lock is not held while the file is synced: other threads keep adding
        let shared = self.lock().as_ref().map(|w| w.shared.clone());
        match shared {
            Some(shared) => shared.drain(Some(true)),
            None => Ok(()),
        }
    }

    /// Writes everything queued, closes the file and stops the thread (`close()`); later
    /// `add_*` calls fail until [`FileWriter::reopen`]. Closing twice is a no-op. Errors: the
    /// first error writing the file.
    pub fn close(&self) -> Result<()> {
        let Some(w) = self.lock().take() else { return Ok(()) };
        relock(&w.shared.queue).closed = true;
        w.shared.work.notify_one();
        let joined = w.thread.join();
        w.shared.drain(Some(true))?;
        joined.map_err(|_| Error::internal("the event writer thread panicked"))
    }

    /// Starts a new event file in the same directory after [`FileWriter::close`]
    /// (`reopen()`); a no-op while open.
    pub fn reopen(&self) -> Result<()> {
        let mut guard = self.lock();
        if guard.is_none() {
            *guard = Some(start(&self.logdir, &self.options)?);
        }
        Ok(())
    }
}

impl Drop for FileWriter {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            eprintln!("warning: closing the event file in {}: {e}", self.logdir.display());
        }
    }
}

/// Creates `logdir` and a new event file in it, writes the file-version record, and starts
/// the writer thread.
fn start(logdir: &Path, options: &FileWriterOptions) -> Result<Worker> {
    let io = |e: std::io::Error, p: &Path| crate::format::atomic_file::io_error(e, "cannot write", p);
    check_logdir(logdir)?;
    std::fs::create_dir_all(logdir).map_err(|e| io(e, logdir))?;
    let now = wall_time();
    let (path, file) = create_unique(logdir, now as u64, &options.filename_suffix)?;
    let first = Event {
        wall_time: now.floor(),
        step: 0,
        what: Some(EventKind::FileVersion(EVENT_FILE_VERSION.to_string())),
        source_metadata: Some(SourceMetadata { writer: WRITER_NAME.to_string() }),
    };
    let mut out = BufWriter::with_capacity(1 << 16, file);
    out.write_all(&encode_record(&first.encode_to_vec())).and_then(|_| out.flush()).map_err(|e| io(e, &path))?;
    let sink = Sink { out, path: path.clone(), error: None, last_write: Instant::now() };
    let shared = Arc::new(Shared {
        queue: Mutex::default(),
        work: Condvar::new(),
        sink: Mutex::new(sink),
        failed: AtomicBool::new(false),
    });
    let flush_every = Duration::from_secs_f64(options.flush_secs.clamp(0.0, 1e9));
    let thread_shared = shared.clone();
    let thread = std::thread::Builder::new()
        .name("tensorgraph-events".into())
        .spawn(move || write_loop(&thread_shared, flush_every))
        .map_err(|e| Error::internal(format!("cannot start the event writer thread: {e}")))?;
    Ok(Worker { shared, thread, path })
}

/// `FailedPrecondition` when `logdir`, or a directory above it, is a file (the file
/// system's words, "File exists" or "Not a directory", do not say which path is wrong).
fn check_logdir(logdir: &Path) -> Result<()> {
    for p in logdir.ancestors().filter(|p| !p.as_os_str().is_empty()) {
        if p.exists() && !p.is_dir() {
            let what = if p == logdir { "it is a file".to_string() } else { format!("{} is a file", p.display()) };
            return Err(Error::failed_precondition(format!(
                "cannot write events to the log directory {}: {what}, not a directory; FileWriter takes a directory (created if missing) and writes a new events.out.tfevents.* file in it",
                logdir.display()
            )));
        }
    }
    Ok(())
}

/// Creates a new event file in `logdir` whose name no other writer has.
fn create_unique(logdir: &Path, seconds: u64, suffix: &str) -> Result<(PathBuf, File)> {
    loop {
        let path = logdir.join(next_event_file_name(seconds, suffix));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(crate::format::atomic_file::io_error(e, "cannot write", &path)),
        }
    }
}

/// The writer thread. It sleeps while nothing is queued or buffered; once something is, it
/// naps [`IDLE_WRITE`] at a time (callers do not wake it then), appends what was queued
/// meanwhile, and writes the buffer to the file after a nap in which nothing came or once
/// `flush_every` has passed. It stops when the writer is closed; `close` writes the rest.
fn write_loop(shared: &Shared, flush_every: Duration) {
    loop {
        let mut q = relock(&shared.queue);
        if q.events.is_empty() && !q.dirty {
            q.asleep = true;
            while q.asleep && !q.closed {
                q = shared.work.wait(q).unwrap_or_else(|e| e.into_inner());
            }
            q.asleep = false;
        } else {
            let deadline = Instant::now() + IDLE_WRITE;
            while let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|_| !q.closed) {
                q = shared.work.wait_timeout(q, left).unwrap_or_else(|e| e.into_inner()).0;
            }
        }
        if q.closed {
            return;
        }
        let idle = q.events.is_empty();
        drop(q);
        let due = relock(&shared.sink).last_write.elapsed() >= flush_every;
        // errors stay in the sink for the callers
        let _ = shared.drain((idle || due).then_some(false));
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A sink on `/dev/full`: every write fails with "No space left on device".
    fn full_disk() -> Shared {
        let file = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let sink = Sink {
            out: BufWriter::with_capacity(64, file),
            path: "/dev/full".into(),
            error: None,
            last_write: Instant::now(),
        };
        Shared { queue: Mutex::default(), work: Condvar::new(), sink: Mutex::new(sink), failed: AtomicBool::new(false) }
    }

    fn closed() -> Error {
        Error::failed_precondition("closed")
    }

    fn event(step: i64) -> Event {
        Event { wall_time: 0.0, step, what: Some(EventKind::FileVersion("x".repeat(100))), source_metadata: None }
    }

    #[test]
    fn the_first_write_error_is_returned_by_every_later_call() {
        let shared = full_disk();
        shared.push(event(0), 10, closed).unwrap();
        let e = shared.drain(Some(true)).unwrap_err();
        assert!(e.message.contains("/dev/full"), "{}", e.message);
        for step in 1..4 {
            let again = shared.push(event(step), 10, closed).unwrap_err();
            assert_eq!((again.code, &again.message), (e.code, &e.message));
        }
        assert!(relock(&shared.queue).events.is_empty(), "events queued after the error");
    }

    #[test]
    fn the_call_that_fills_the_queue_writes_it() {
        let shared = full_disk();
        shared.push(event(0), 2, closed).unwrap();
        assert_eq!(relock(&shared.queue).events.len(), 1);
        // the second event fills the queue: this call appends both and meets the full disk
        assert!(shared.push(event(1), 2, closed).is_err());
        assert!(relock(&shared.queue).events.is_empty());
    }
}
