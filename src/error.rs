//! Typed errors for the library. Each error carries the kind that decides the
//! process exit code (DESIGN §8), so the binary never has to guess.

use std::fmt;

/// What kind of failure this is; the binary maps it to an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An errored tool result (exit 1): the text is what the model would see.
    Tool,
    /// A usage error: bad argument values the parser could not catch (exit 2).
    Usage,
    /// The store or the file system failed us (exit 3).
    Store,
}

impl ErrorKind {
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Tool => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Store => 3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn tool(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Tool,
            message: message.into(),
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Usage,
            message: message.into(),
        }
    }
    pub fn store(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Store,
            message: message.into(),
        }
    }
    /// An I/O failure on `path`, phrased the way every store error names its file.
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        Error::store(format!("{}: {}", path.display(), err))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
