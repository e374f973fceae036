//! The one error type of tensorgraph. Its kinds are TensorFlow's status codes
//! (`tensorflow/core/protobuf/error_codes.proto`), and every message names the op,
//! tensor, variable or file concerned and, where there is one, what to do about it.

pub mod suggest;

use std::fmt;
use std::sync::Arc;

/// TensorFlow's status codes, as returned in every [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The request was cancelled.
    Cancelled,
    /// An error that fits no other kind.
    Unknown,
    /// The caller passed something malformed: wrong shape, wrong dtype, bad name.
    InvalidArgument,
    /// A named thing (op, tensor, variable, file, checkpoint entry) does not exist.
    NotFound,
    /// A thing to be created exists already (for example a variable under `Reuse::No`).
    AlreadyExists,
    /// The system is not in the state the operation needs (an uninitialized variable).
    FailedPrecondition,
    /// A value lies outside its valid range (an index, a dimension).
    OutOfRange,
    /// The operation is not implemented (an op type the registry does not know).
    Unimplemented,
    /// An internal invariant broke: a bug in tensorgraph.
    Internal,
    /// Data on disk is corrupted or truncated (checksum mismatch, short file).
    DataLoss,
    /// A resource (memory, file size) would be exhausted.
    ResourceExhausted,
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// An error with a TensorFlow status [`Code`] and a message for a person.
///
/// Displayed as `Code: message`, e.g.
/// `NotFound: Tensor "add:7" does not exist: op "add" has 1 output(s)`.
///
/// An error caused by another (an I/O error from the file system) keeps it as its
/// [`std::error::Error::source`]. Two errors are equal when code and message are.
///
/// `Debug` prints the same as `Display` (`{:#?}` shows the fields), so that
/// `fn main() -> tensorgraph::Result<()>` reports a failure as `Error: NotFound: ...`
/// with its line breaks intact rather than as an escaped struct.
#[derive(Clone)]
pub struct Error {
    /// The status code, following TensorFlow's.
    pub code: Code,
    /// What went wrong, naming the thing concerned, and how to fix it.
    pub message: String,
    /// The underlying error, when there is one.
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code && self.message == other.message
    }
}
impl Eq for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.debug_struct("Error")
                .field("code", &self.code)
                .field("message", &self.message)
                .field("source", &self.source)
                .finish()
        } else {
            fmt::Display::fmt(self, f)
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl Error {
    /// Makes an error of kind `code`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), source: None }
    }
    /// An `InvalidArgument` error.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }
    /// A `NotFound` error.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }
    /// An `AlreadyExists` error.
    pub fn already_exists(message: impl Into<String>) -> Self {
        Self::new(Code::AlreadyExists, message)
    }
    /// A `FailedPrecondition` error.
    pub fn failed_precondition(message: impl Into<String>) -> Self {
        Self::new(Code::FailedPrecondition, message)
    }
    /// An `Unimplemented` error.
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Self::new(Code::Unimplemented, message)
    }
    /// An `Internal` error (a bug in tensorgraph).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::Internal, message)
    }
    /// A `DataLoss` error (corrupted or truncated data).
    pub fn data_loss(message: impl Into<String>) -> Self {
        Self::new(Code::DataLoss, message)
    }
    /// Keeps `source` as the cause of this error ([`std::error::Error::source`]).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }
    /// Prefixes the message with context, keeping the code.
    pub fn context(self, prefix: impl fmt::Display) -> Self {
        Error { message: format!("{prefix}: {}", self.message), ..self }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let code = match e.kind() {
            std::io::ErrorKind::NotFound => Code::NotFound,
            std::io::ErrorKind::UnexpectedEof => Code::DataLoss,
            std::io::ErrorKind::AlreadyExists => Code::AlreadyExists,
            std::io::ErrorKind::InvalidInput => Code::InvalidArgument,
            std::io::ErrorKind::InvalidData => Code::DataLoss,
            std::io::ErrorKind::OutOfMemory => Code::ResourceExhausted,
            _ => Code::Unknown,
        };
        Error { code, message: e.to_string(), source: Some(Arc::new(e)) }
    }
}

/// `Result` with tensorgraph's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn io_errors_keep_their_source_through_context() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = Error::from(io).context("reading model.pb");
        assert_eq!(e.code, Code::NotFound);
        assert_eq!(e.message, "reading model.pb: no such file");
        let src = e.source().expect("the io::Error is kept");
        assert_eq!(src.downcast_ref::<std::io::Error>().unwrap().kind(), std::io::ErrorKind::NotFound);
        assert!(Error::invalid_argument("x").source().is_none());
    }

    #[test]
    fn debug_prints_like_display() {
        // what `fn main() -> tensorgraph::Result<()>` prints after "Error: "
        let e = Error::already_exists("Variable v already exists, disallowed.\n\nOriginally defined at: here");
        assert_eq!(
            format!("{e:?}"),
            "AlreadyExists: Variable v already exists, disallowed.\n\nOriginally defined at: here"
        );
        assert_eq!(format!("{e:?}"), e.to_string());
        let full = format!("{e:#?}");
        assert!(full.starts_with("Error {\n    code: AlreadyExists,\n    message: \"Variable v"), "{full}");
    }
}
