//! Store-layer failures: file-system faults with the path they concern, and
//! the store-level problems DSH itself reports (their text is DSH's).

use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum StoreError {
    /// An I/O failure on a path.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file we would open is a symbolic link.
    Symlink { path: PathBuf },
    /// A file we would open is a directory or another non-regular file.
    NotRegular { path: PathBuf },
    /// A file we would open is a directory.
    IsDirectory { path: PathBuf },
    /// A file we would write has other hard links.
    HardLinked { path: PathBuf },
    /// A directory we need is something else.
    NotADirectory { path: PathBuf },
    /// A store-level problem that fails listings (DSH's words).
    Fatal { path: PathBuf, message: String },
    /// A log that cannot be read or appended to.
    Log {
        path: PathBuf,
        reason: super::log_error::LogError,
    },
    /// A log of a format generation newer than 0, which only DSH writes.
    WriteGeneration { path: PathBuf, generation: u32 },
    /// Another process holds the agent live.
    AlreadyLive {
        id: String,
        holder: Option<u32>,
        path: PathBuf,
    },
    /// A program could not be started.
    Spawn {
        program: String,
        source: std::io::Error,
    },
    /// Encoding a frame failed.
    Encode { reason: String },
    /// Another writer (newer DSH) holds the session's writer lock.
    WriterLocked { id: String, path: PathBuf },
    /// Bytes another process wrote appeared in a log this process writes.
    ForeignWrite {
        path: PathBuf,
        expected: String,
        found: String,
    },
    /// The store root does not exist.
    NoStore { path: PathBuf },
    /// The store root holds no project directory (nothing DSH wrote).
    EmptyStore { path: PathBuf },
}

impl StoreError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            StoreError::Symlink { path } => {
                write!(f, "{}: refusing to follow a symbolic link", path.display())
            }
            StoreError::NotRegular { path } => {
                write!(f, "{}: not a regular file", path.display())
            }
            StoreError::IsDirectory { path } => {
                write!(f, "{}: is a directory, not a file", path.display())
            }
            StoreError::HardLinked { path } => write!(
                f,
                "{}: has other hard links; refusing to write",
                path.display()
            ),
            StoreError::NotADirectory { path } => write!(f, "{}: not a directory", path.display()),
            StoreError::Fatal { message, .. } => f.write_str(message),
            StoreError::Log { path, reason } => {
                write!(f, "cannot append to {}: {reason}", path.display())
            }
            StoreError::WriteGeneration { path, generation } => write!(
                f,
                "cannot append to {}: a generation-{generation} log is written by DSH only (serve runs generation-0 sessions)",
                path.display()
            ),
            StoreError::AlreadyLive { id, holder, path } => {
                let holder = holder.map_or("another process".to_string(), |p| format!("pid {p}"));
                write!(
                    f,
                    "agent \"{id}\" is already live: {holder} holds {}",
                    path.display()
                )
            }
            StoreError::Spawn { program, source } => write!(f, "cannot run {program}: {source}"),
            StoreError::Encode { reason } => write!(f, "zstd: {reason}"),
            StoreError::WriterLocked { id, path } => write!(
                f,
                "agent \"{id}\" is owned by another DSH process: {} is locked",
                path.display()
            ),
            StoreError::ForeignWrite {
                path,
                expected,
                found,
            } => write!(
                f,
                "another process wrote to {} (expected {expected}, found {found}); stopping without appending, so the log stays readable",
                path.display()
            ),
            StoreError::NoStore { path } => write!(
                f,
                "session store {} does not exist (pass --store DIR or set DSH_STORE; `spawn` writes a first session only into a directory that exists)",
                path.display()
            ),
            StoreError::EmptyStore { path } => write!(
                f,
                "session store {} holds no sessions: no DSH session was ever written there (run DSH with this store, or write a first session with `dsh-agents --store {} spawn`)",
                path.display(),
                path.display()
            ),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Log { reason, .. } => Some(reason),
            _ => None,
        }
    }
}
