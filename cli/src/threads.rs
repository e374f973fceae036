//! `--threads N` of `run` and `demo`: the session's intra-op and inter-op threads.

use tensorgraph::SessionOptions;

/// The session options of `--threads N` (`None`: TensorFlow's defaults, one thread per
/// core). Errors: the message for a count too large for a `ConfigProto`.
pub(crate) fn session_options(threads: Option<usize>) -> Result<SessionOptions, String> {
    threads.map_or(Ok(SessionOptions::default()), |n| SessionOptions::with_threads(n).map_err(|e| e.to_string()))
}

/// Parses `--threads N`: a whole number, 0 for one thread per core. Errors: the message
/// for anything else (`-1`, `+2`, `2.5`, `abc`, a number too large for the machine).
pub(crate) fn parse_count(s: &str) -> Result<usize, String> {
    let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits
        .then(|| s.parse().ok())
        .flatten()
        .ok_or_else(|| format!("expected a thread count: 0 (one per core) or 1 to {}", tensorgraph::MAX_THREADS))
}
