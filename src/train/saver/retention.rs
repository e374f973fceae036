//! Which checkpoints a [`super::Saver`] keeps: `max_to_keep`, `keep_checkpoint_every_n_hours`
//! and the deletion of the files of the checkpoints it lets go.

use crate::format::checkpoint::{index_path, meta_graph_path};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, as Python's `time.time()`.
pub(super) fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// The checkpoints a saver manages (`Saver._last_checkpoints`), oldest first, with the time
/// each was saved, and the time of the last checkpoint kept for good by
/// `keep_checkpoint_every_n_hours`.
#[derive(Debug, Clone)]
pub(super) struct History {
    pub last: Vec<(PathBuf, f64)>,
    pub last_preserved: f64,
}

/// What recording a new checkpoint decided.
#[derive(Debug, Default)]
pub(super) struct Decision {
    /// Checkpoints to delete (after the state file no longer names them).
    pub delete: Vec<PathBuf>,
    /// Checkpoints dropped from the list but kept on disk by `keep_checkpoint_every_n_hours`.
    pub preserved: Vec<PathBuf>,
}

impl History {
    pub(super) fn new(created: f64) -> History {
        History { last: Vec::new(), last_preserved: created }
    }

    /// Records checkpoint `path` saved at `time` (replacing an earlier save to the same path)
    /// and lets the oldest go while more than `max_to_keep` remain (0 = keep every file, list
    /// none but the newest, as TensorFlow). A checkpoint let go is kept on disk when it was
    /// saved at least `keep_hours` after the last one kept that way (which it then becomes).
    pub(super) fn record(&mut self, path: PathBuf, time: f64, max_to_keep: usize, keep_hours: Option<f64>) -> Decision {
        let mut d = Decision::default();
        if max_to_keep == 0 {
            return d;
        }
        self.last.retain(|(p, _)| *p != path);
        self.last.push((path, time));
        while self.last.len() > max_to_keep {
            let (old, t) = self.last.remove(0);
            match keep_hours {
                Some(h) if t - h * 3600.0 >= self.last_preserved => {
                    self.last_preserved = t;
                    d.preserved.push(old);
                }
                _ => d.delete.push(old),
            }
        }
        d
    }
}

/// True for `<name>.data-NNNNN-of-MMMMM` data-file names of the checkpoint file name `name`.
fn is_data_file_of(file: &str, name: &str) -> bool {
    let Some(rest) = file.strip_prefix(name).and_then(|r| r.strip_prefix(".data-")) else { return false };
    let b = rest.as_bytes();
    b.len() == 14 && b[5..9] == *b"-of-" && b[..5].iter().chain(&b[9..]).all(u8::is_ascii_digit)
}

/// Deletes the files of checkpoint `prefix` (best effort, as TensorFlow's
/// `remove_checkpoint`): the index first, so the checkpoint stops existing before its data
/// goes, then every data file `prefix.data-?????-of-?????`, then `prefix.meta`.
pub(super) fn delete_checkpoint_files(prefix: &Path) {
    let _ = std::fs::remove_file(index_path(prefix));
    if let Some(name) = prefix.file_name().and_then(|n| n.to_str()) {
        let dir = match prefix.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                if e.file_name().to_str().is_some_and(|f| is_data_file_of(f, name)) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
    let _ = std::fs::remove_file(meta_graph_path(prefix));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_file_names() {
        assert!(is_data_file_of("m-1.data-00000-of-00001", "m-1"));
        assert!(is_data_file_of("m-1.data-00002-of-00003", "m-1"));
        assert!(!is_data_file_of("m-10.data-00000-of-00001", "m-1"));
        assert!(!is_data_file_of("m-1.data-00000-of-00001.tempstate0123", "m-1"));
        assert!(!is_data_file_of("m-1.index", "m-1"));
    }

    #[test]
    fn keeps_every_n_hours() {
        let h = 3600.0;
        let mut hist = History::new(0.0);
        let mut deleted = Vec::new();
        let mut kept = Vec::new();
        for (i, t) in [1.0, 1.5, 2.5, 3.0, 3.2, 4.0].iter().enumerate() {
            let d = hist.record(PathBuf::from(format!("c{i}")), t * h, 2, Some(1.0));
            deleted.extend(d.delete);
            kept.extend(d.preserved);
        }
        // c0 (1h after the start) is kept, c1 (0.5h after c0) deleted, c2 (1.5h after c0)
        // kept, c3 (0.5h after c2) deleted; c4, c5 remain listed.
        assert_eq!(kept, [PathBuf::from("c0"), PathBuf::from("c2")]);
        assert_eq!(deleted, [PathBuf::from("c1"), PathBuf::from("c3")]);
        assert_eq!(hist.last.iter().map(|p| p.0.clone()).collect::<Vec<_>>(), [PathBuf::from("c4"), "c5".into()]);
        assert_eq!(hist.last_preserved, 2.5 * h);
    }
}
