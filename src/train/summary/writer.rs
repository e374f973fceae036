//! [`FileWriter`]: TensorFlow's `tf.compat.v1.summary.FileWriter`. Events go through a
//! bounded queue to a background thread that frames them as TFRecords and appends them to
//! the event file; `flush`, `close` and `Drop` write everything queued.

use super::file_name::next_event_file_name;
use crate::error::{Error, Result};
use crate::format::proto::{
    Event, EventKind, GraphDef, MetaGraphDef, SessionLog, SourceMetadata, Summary, TaggedRunMetadata,
    EVENT_FILE_VERSION,
};
use crate::format::tfrecord::encode_record;
use crate::tensor::{Storage, Tensor};
use prost::Message;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long the queue must stay empty before buffered events are written to the file.
const IDLE_WRITE: Duration = Duration::from_millis(2);

/// The `source_metadata.writer` of the first record, as TensorFlow's event writer.
const WRITER_NAME: &str = "tensorflow.core.util.events_writer";

/// Options of a [`FileWriter`] (`tf.compat.v1.summary.FileWriter`'s keyword arguments).
#[derive(Clone, Debug)]
pub struct FileWriterOptions {
    /// Events the queue holds before `add_*` waits for the writer thread (`max_queue`,
    /// default 10; 0 is taken as 1).
    pub max_queue: usize,
    /// Longest time, in seconds, that written events stay in the writer's buffer while
    /// events keep arriving (`flush_secs`, default 120). Buffered events are also written
    /// as soon as the queue has been empty for 2 ms, and on `flush`, `close` and drop.
    pub flush_secs: f64,
    /// Appended to the file name (`filename_suffix`, default empty).
    pub filename_suffix: String,
}

impl Default for FileWriterOptions {
    fn default() -> Self {
        FileWriterOptions { max_queue: 10, flush_secs: 120.0, filename_suffix: String::new() }
    }
}

/// What the writer thread is asked to do.
enum Msg {
    Event(Box<Event>),
    Flush(mpsc::Sender<()>),
}

/// The queue between the `add_*` callers and the writer thread.
#[derive(Default)]
struct Queue {
    /// Messages not yet taken by the writer thread, in order.
    items: Vec<Msg>,
    /// How many of `items` are events (bounded by `max_queue`).
    events: usize,
    /// Set by `close`: the thread writes what is queued and stops.
    closed: bool,
    /// Cleared when the writer thread ends, so that callers waiting for room return.
    alive: bool,
}

/// The queue and its two wake-ups: `work` for the writer thread, `room` for callers
/// waiting on a full queue. The thread takes every queued message at once, so a busy
/// caller and the thread meet once per batch rather than once per event.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    work: Condvar,
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `msg`, waiting while `max_queue` events are queued. `false` when the thread
    /// has stopped.
    fn push(&self, msg: Msg, max_queue: usize) -> bool {
        let mut q = self.lock();
        let is_event = matches!(msg, Msg::Event(_));
        while is_event && q.events >= max_queue && q.alive {
            q = self.room.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        if !q.alive {
            return false;
        }
        let was_empty = q.items.is_empty();
        q.items.push(msg);
        q.events += usize::from(is_event);
        drop(q);
        if was_empty {
            self.work.notify_one();
        }
        true
    }

    /// The writer thread's wait: every queued message and whether the writer is closed;
    /// an empty batch when `idle` passed with nothing queued.
    fn take(&self, idle: Option<Duration>) -> (Vec<Msg>, bool) {
        let mut q = self.lock();
        while q.items.is_empty() && !q.closed {
            match idle {
                None => q = self.work.wait(q).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let (g, t) = self.work.wait_timeout(q, d).unwrap_or_else(|e| e.into_inner());
                    q = g;
                    if t.timed_out() && q.items.is_empty() {
                        break;
                    }
                }
            }
        }
        let batch = std::mem::take(&mut q.items);
        q.events = 0;
        let closed = q.closed;
        drop(q);
        self.room.notify_all();
        (batch, closed)
    }

    /// Marks the thread stopped and wakes every caller waiting for room.
    fn stopped(&self) {
        self.lock().alive = false;
        self.room.notify_all();
    }
}

/// Marks the writer thread stopped when dropped (see [`Shared::stopped`]).
struct StoppedOnDrop(Arc<Shared>);

impl Drop for StoppedOnDrop {
    fn drop(&mut self) {
        self.0.stopped();
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
/// `add_*` method queues an event (bounded by `max_queue`; it waits only when the queue is
/// full) for a background thread that appends it as a TFRecord. `flush` returns once
/// everything queued is in the file; `close`, and dropping the writer, do the same and stop
/// the thread, so no event is lost when the writer goes out of scope or `main` returns.
/// `FileWriter::with_graph` and `add_graph` (defined with the graph export, `io`) write the
/// graph and meta graph. [`FileWriter::add_run_metadata`] writes the `RunMetadata` step
/// statistics a traced `Session::run_with_options` returns.
///
/// Errors of the writer thread (a full disk) are returned by the next `add_*`, `flush` or
/// `close`.
pub struct FileWriter {
    logdir: PathBuf,
    options: FileWriterOptions,
    worker: Mutex<Option<Worker>>,
    error: Arc<Mutex<Option<Error>>>,
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
    pub fn with_options(logdir: impl AsRef<Path>, options: FileWriterOptions) -> Result<FileWriter> {
        let logdir = logdir.as_ref().to_path_buf();
        let error = Arc::new(Mutex::new(None));
        let worker = start(&logdir, &options, &error)?;
        Ok(FileWriter { logdir, options, worker: Mutex::new(Some(worker)), error })
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

    /// The writer thread's error, once.
    fn take_error(&self) -> Result<()> {
        match self.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Queues `event` as it is (`FileWriter.add_event`). Errors: `FailedPrecondition` after
    /// `close` (until `reopen`); a write error of the writer thread.
    pub fn add_event(&self, event: Event) -> Result<()> {
        self.take_error()?;
        let shared = match self.lock().as_ref() {
            Some(w) => w.shared.clone(),
            None => {
                return Err(Error::failed_precondition(format!(
                    "the FileWriter of {} is closed; reopen() it to write again",
                    self.logdir.display()
                )))
            }
        };
        if shared.push(Msg::Event(Box::new(event)), self.options.max_queue.max(1)) {
            Ok(())
        } else {
            Err(self.thread_gone())
        }
    }

    fn thread_gone(&self) -> Error {
        let e = self.take_error().err();
        e.unwrap_or_else(|| Error::internal(format!("the event writer thread of {} stopped", self.logdir.display())))
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
    pub fn add_run_metadata(&self, run_metadata: &[u8], tag: &str, step: i64) -> Result<()> {
        let t = TaggedRunMetadata { tag: tag.to_string(), run_metadata: run_metadata.to_vec() };
        self.add(EventKind::TaggedRunMetadata(t), step)
    }

    /// Writes every queued event to the file and syncs it (`flush()`); returns when done.
    /// Errors: a write error of the writer thread. A closed writer has nothing to flush.
    pub fn flush(&self) -> Result<()> {
        self.take_error()?;
        let Some(shared) = self.lock().as_ref().map(|w| w.shared.clone()) else { return Ok(()) };
        let (ack, done) = mpsc::channel();
        if !shared.push(Msg::Flush(ack), usize::MAX) {
            return Err(self.thread_gone());
        }
        done.recv().map_err(|_| self.thread_gone())?;
        self.take_error()
    }

    /// Writes everything queued, closes the file and stops the thread (`close()`); later
    /// `add_*` calls fail until [`FileWriter::reopen`]. Closing twice is a no-op.
    pub fn close(&self) -> Result<()> {
        let worker = self.lock().take();
        if let Some(w) = worker {
            w.shared.lock().closed = true;
            w.shared.work.notify_one();
            if w.thread.join().is_err() {
                return Err(Error::internal("the event writer thread panicked"));
            }
        }
        self.take_error()
    }

    /// Starts a new event file in the same directory after [`FileWriter::close`]
    /// (`reopen()`); a no-op while open.
    pub fn reopen(&self) -> Result<()> {
        let mut guard = self.lock();
        if guard.is_none() {
            *guard = Some(start(&self.logdir, &self.options, &self.error)?);
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
fn start(logdir: &Path, options: &FileWriterOptions, error: &Arc<Mutex<Option<Error>>>) -> Result<Worker> {
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
    let shared = Arc::new(Shared::default());
    shared.lock().alive = true;
    let flush_every = Duration::from_secs_f64(options.flush_secs.clamp(0.0, 1e9));
    let (error, thread_path, thread_shared) = (error.clone(), path.clone(), shared.clone());
    let thread = std::thread::Builder::new()
        .name("tensorgraph-events".into())
        .spawn(move || {
            // dropped when the loop returns or panics, so no caller waits on a dead thread
            let _stopped = StoppedOnDrop(thread_shared.clone());
            write_loop(&thread_shared, out, &thread_path, flush_every, &error);
        })
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

/// The writer thread: appends each event as a TFRecord; writes the buffer to the file when
/// the queue has been idle for [`IDLE_WRITE`], when `flush_every` has passed, on a flush
/// request (also syncing) and when the writer is closed or dropped.
fn write_loop(
    shared: &Shared,
    mut out: BufWriter<File>,
    path: &Path,
    flush_every: Duration,
    error: &Mutex<Option<Error>>,
) {
    let mut failed = false;
    let mut record = |r: std::io::Result<()>| {
        if let Err(e) = r {
            if !failed {
                *error.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(crate::format::atomic_file::io_error(e, "cannot write", path));
            }
            failed = true;
        }
    };
    let mut dirty = false;
    let mut last_write = Instant::now();
    loop {
        let (batch, closed) = shared.take(dirty.then_some(IDLE_WRITE));
        if batch.is_empty() && !closed {
            // the queue stayed idle: write what is buffered
            record(out.flush());
            (dirty, last_write) = (false, Instant::now());
            continue;
        }
        for msg in batch {
            match msg {
                Msg::Event(e) => {
                    record(out.write_all(&encode_record(&e.encode_to_vec())));
                    dirty = true;
                }
                Msg::Flush(ack) => {
                    record(out.flush().and_then(|_| out.get_ref().sync_data()));
                    (dirty, last_write) = (false, Instant::now());
                    let _ = ack.send(());
                }
            }
        }
        if closed {
            record(out.flush().and_then(|_| out.get_ref().sync_data()));
            return;
        }
        if dirty && last_write.elapsed() >= flush_every {
            record(out.flush());
            (dirty, last_write) = (false, Instant::now());
        }
    }
}
