//! The one error type of tensorgraph. Its kinds are TensorFlow's status codes
//! (`tensorflow/core/protobuf/error_codes.proto`), and every message names the op,
//! tensor, variable or file concerned and, where there is one, what to do about it.

use std::fmt;

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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// The status code, following TensorFlow's.
    pub code: Code,
    /// What went wrong, naming the thing concerned, and how to fix it.
    pub message: String,
}

impl Error {
    /// Makes an error of kind `code`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error { code, message: message.into() }
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
    /// Prefixes the message with context, keeping the code.
    pub fn context(self, prefix: impl fmt::Display) -> Self {
        Error { code: self.code, message: format!("{prefix}: {}", self.message) }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let code = match e.kind() {
            std::io::ErrorKind::NotFound => Code::NotFound,
            std::io::ErrorKind::UnexpectedEof => Code::DataLoss,
            std::io::ErrorKind::AlreadyExists => Code::AlreadyExists,
            _ => Code::Unknown,
        };
        Error::new(code, e.to_string())
    }
}

/// `Result` with tensorgraph's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
