//! Store-layer failures: file-system faults with the path they concern,
//! the store-level problems DSH itself reports (their text is DSH's), and
//! why a session log cannot be read the way DSH reads it (`LogError`: the
//! reason a listing shows the session `unavailable`, `check` reports, and a
//! read of its transcript fails with; each variant renders rc.8's own words,
//! and callers decide by the variant, never by the text). The two wrap each
//! other, so they live together.

use super::events::EventError;
use super::header::RestoreRefusal;
use super::limits::MAX_LINE;
use super::surface::SurfaceError;
use super::zstd_frames::ZstdCorruption;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

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
    Log { path: PathBuf, reason: LogError },
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
    /// A plan that reads only named sessions (`door::Plan::Exactly`) met
    /// one that is not an exact session id found by its path.
    NotLocated { path: PathBuf, ids: Vec<String> },
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
            StoreError::NotLocated { path, ids } => write!(
                f,
                "session store {}: {} not found by path (as exact session ids)",
                path.display(),
                ids.join(", ")
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

/// A log DSH would not read, or could not. Cheap to clone: a command that
/// asks about one session twice gets the one answer (`ScanCache`).
#[derive(Debug, Clone)]
pub enum LogError {
    /// The log could not be opened (or is not a regular file).
    Open(Arc<StoreError>),
    /// Reading it failed part-way.
    Io(Arc<io::Error>),
    /// A resume point does not describe these bytes (the caller reads the
    /// whole log instead).
    StaleCache,
    /// No complete header record.
    Empty {
        zstd: bool,
    },
    HeaderTooLong,
    /// The first record is not a session header.
    NotHeader(&'static str),
    RetiredHeader,
    /// A header DSH's restore path refuses.
    Restore(RestoreRefusal),
    Zstd(ZstdCorruption),
    /// A committed line over the line cap (1-based line number).
    LineTooLong {
        line: u64,
    },
    Unparsable {
        line: u64,
    },
    /// A `null` record, which rc.8 throws on.
    NullRecord {
        line: u64,
    },
    SeqGap {
        line: u64,
        expected: u64,
    },
    Event {
        session: String,
        error: EventError,
    },
    Surface {
        session: String,
        error: SurfaceError,
    },
    /// An unseeded log of `generation` holds an inherited end-seed marker.
    StrayEndSeed {
        session: String,
        generation: u32,
    },
    /// A seeded log of `generation` lacks its inherited end-seed marker.
    MissingEndSeed {
        session: String,
        generation: u32,
    },
    /// A Zstandard log whose last frame is torn, which `serve` must not
    /// append after (DSH repairs it on its next open).
    TornZstdTail,
}

impl LogError {
    pub fn io(e: io::Error) -> LogError {
        LogError::Io(Arc::new(e))
    }
}

impl From<StoreError> for LogError {
    fn from(e: StoreError) -> LogError {
        LogError::Open(Arc::new(e))
    }
}

impl From<io::Error> for LogError {
    fn from(e: io::Error) -> LogError {
        LogError::io(e)
    }
}

impl From<ZstdCorruption> for LogError {
    fn from(c: ZstdCorruption) -> LogError {
        LogError::Zstd(c)
    }
}

impl From<RestoreRefusal> for LogError {
    fn from(r: RestoreRefusal) -> LogError {
        LogError::Restore(r)
    }
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogError::Open(e) => write!(f, "{e}"),
            LogError::Io(e) => write!(f, "{e}"),
            LogError::StaleCache => f.write_str("scan cache does not match the log"),
            LogError::Empty { zstd: false } => f.write_str("empty or header-less session log"),
            LogError::Empty { zstd: true } => {
                f.write_str("empty or header-less Zstandard session log")
            }
            LogError::HeaderTooLong => {
                f.write_str("corrupt session log: header line exceeds the 1 MiB cap")
            }
            LogError::NotHeader(why) => write!(f, "corrupt session log: {why}"),
            LogError::RetiredHeader => {
                f.write_str("session header uses retired policy baseline fields")
            }
            LogError::Restore(r) => write!(f, "{r}"),
            LogError::Zstd(c) => write!(f, "{c}"),
            LogError::LineTooLong { line } => write!(
                f,
                "corrupt session log: line {line} exceeds the {} MiB line cap",
                MAX_LINE >> 20
            ),
            LogError::Unparsable { line } => write!(
                f,
                "corrupt session log: unparsable committed event at line {line}"
            ),
            LogError::NullRecord { line } => {
                write!(f, "corrupt session log: null record at line {line}")
            }
            LogError::SeqGap { line, expected } => write!(
                f,
                "corrupt session log: seq gap in committed region at line {line} (expected {expected})"
            ),
            LogError::Event { session, error } => write!(f, "session \"{session}\": {error}"),
            LogError::Surface { session, error } => write!(f, "session \"{session}\": {error}"),
            LogError::StrayEndSeed {
                session,
                generation,
            } => write!(
                f,
                "session \"{session}\": format v{generation} unseeded Session contains an inherited end-seed marker"
            ),
            LogError::MissingEndSeed {
                session,
                generation,
            } => write!(
                f,
                "session \"{session}\": format v{generation} seeded Session lacks an inherited end-seed marker"
            ),
            LogError::TornZstdTail => {
                f.write_str("the log ends in a torn Zstandard frame; let DSH repair it first")
            }
        }
    }
}

impl std::error::Error for LogError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LogError::Open(e) => Some(&**e),
            LogError::Io(e) => Some(&**e),
            _ => None,
        }
    }
}
