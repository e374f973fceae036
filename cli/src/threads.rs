//! `--threads N` of `run` and `demo`: the session's intra-op and inter-op threads.

use tensorgraph::SessionOptions;

/// The session options of `--threads N` (`None`: TensorFlow's defaults, one thread per
/// core). Errors: the message for a count too large for a `ConfigProto`.
pub(crate) fn session_options(threads: Option<usize>) -> Result<SessionOptions, String> {
    threads.map_or(Ok(SessionOptions::default()), |n| SessionOptions::with_threads(n).map_err(|e| e.to_string()))
}
