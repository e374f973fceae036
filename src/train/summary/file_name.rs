//! Event file names: TensorFlow's `events.out.tfevents.<seconds>.<hostname>`, plus
//! `.<pid>.<n>` so that two writers never share a file (two runs started in the same second
//! in one directory, in one process or two, each get their own; TensorFlow 1.x's writer
//! would give them one name and the second run's file would replace the first's).

use std::sync::atomic::{AtomicU64, Ordering};

/// Writers opened by this process so far (the `<n>` of the file name).
static OPENED: AtomicU64 = AtomicU64::new(0);

/// This machine's host name (Linux: `/proc/sys/kernel/hostname`; else `$HOSTNAME` or
/// `$COMPUTERNAME`), `localhost` when none is found; characters other than letters, digits,
/// `-`, `_` and `.` become `_`, so the name is one file-name component.
pub fn hostname() -> String {
    let found = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string());
    found.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

/// The next event file name for a writer created at `seconds` (since the epoch):
/// `events.out.tfevents.<seconds, 10 digits>.<hostname>.<pid>.<n><suffix>`. The caller
/// creates it with `create_new` and asks again should it exist.
pub fn next_event_file_name(seconds: u64, suffix: &str) -> String {
    let n = OPENED.fetch_add(1, Ordering::SeqCst);
    format!("events.out.tfevents.{seconds:010}.{}.{}.{n}{suffix}", hostname(), std::process::id())
}

/// Whether `name` is an event file's name (TensorBoard's test: it contains `tfevents`).
pub fn is_event_file_name(name: &str) -> bool {
    name.contains("tfevents")
}
