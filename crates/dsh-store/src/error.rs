//! Store-layer failures: file-system faults with the path they concern,
//! the store-level problems DSH itself reports (their text is DSH's), and
//! why a session log cannot be read the way DSH reads it (`LogError`: the
//! reason a listing shows the session `unavailable`, `check` reports, and a
//! read of its transcript fails with; each variant renders rc.8's own words,
//! and callers decide by the variant, never by the text). The two wrap each
//! other, so they live together.

use crate::format::events::EventError;
use crate::format::header::RestoreRefusal;
use crate::format::limits::{MAX_FRAME, MAX_LINE};
use crate::format::surface::SurfaceError;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

// What a file we would open is, said once for the error with its path and
// once for a caller that names the path itself (`StoreError::reason`).
const SYMLINK: &str = "refusing to follow a symbolic link";
const NOT_REGULAR: &str = "not a regular file";
const IS_DIRECTORY: &str = "is a directory, not a file";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An I/O failure on a path.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file we would open is a symbolic link.
    #[error("{}: {}", .path.display(), SYMLINK)]
    Symlink { path: PathBuf },
    /// A file we would open is a directory or another non-regular file.
    #[error("{}: {}", .path.display(), NOT_REGULAR)]
    NotRegular { path: PathBuf },
    /// A file we would open is a directory.
    #[error("{}: {}", .path.display(), IS_DIRECTORY)]
    IsDirectory { path: PathBuf },
    /// A file we would write has other hard links.
    #[error("{}: has other hard links; refusing to write", .path.display())]
    HardLinked { path: PathBuf },
    /// A directory we need is something else.
    #[error("{}: not a directory", .path.display())]
    NotADirectory { path: PathBuf },
    /// A store-level problem that fails listings (DSH's words).
    #[error("{message}")]
    Fatal { path: PathBuf, message: String },
    /// A log that cannot be read or appended to.
    #[error("cannot append to {}: {reason}", .path.display())]
    Log {
        path: PathBuf,
        #[source]
        reason: LogError,
    },
    /// A log of a format generation newer than 0, which only DSH writes.
    #[error("cannot append to {}: a generation-{generation} log is written by DSH only (serve runs generation-0 sessions)", .path.display())]
    WriteGeneration { path: PathBuf, generation: u32 },
    /// Another process holds the agent live.
    #[error("agent \"{id}\" is already live: {} holds {}", .holder.map_or("another process".to_string(), |p| format!("pid {p}")), .path.display())]
    AlreadyLive {
        id: String,
        holder: Option<u32>,
        path: PathBuf,
    },
    /// A program could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    /// Encoding a frame failed.
    #[error("zstd: {reason}")]
    Encode { reason: String },
    /// Another writer (newer DSH) holds the session's writer lock.
    #[error("agent \"{id}\" is owned by another DSH process: {} is locked", .path.display())]
    WriterLocked { id: String, path: PathBuf },
    /// Bytes another process wrote appeared in a log this process writes.
    #[error("another process wrote to {} (expected {expected}, found {found}); stopping without appending, so the log stays readable", .path.display())]
    ForeignWrite {
        path: PathBuf,
        expected: String,
        found: String,
    },
    /// The store root does not exist.
    #[error("session store {} does not exist (pass --store DIR or set DSH_STORE; `spawn` writes a first session only into a directory that exists)", .path.display())]
    NoStore { path: PathBuf },
    /// The store root holds no project directory (nothing DSH wrote).
    #[error("session store {p} holds no sessions: no DSH session was ever written there (run DSH with this store, or write a first session with `dsh-agents --store {p} spawn`)", p = .path.display())]
    EmptyStore { path: PathBuf },
    /// A plan that reads only named sessions (`door::Plan::Exactly`) met
    /// one that is not an exact session id found by its path.
    #[error("session store {}: {} not found by path (as exact session ids)", .path.display(), .ids.join(", "))]
    NotLocated { path: PathBuf, ids: Vec<String> },
}

impl StoreError {
    /// What went wrong without the path, for a caller whose own words name
    /// the file (a message that says the path once).
    pub fn reason(&self) -> String {
        match self {
            StoreError::Io { source, .. } => source.to_string(),
            StoreError::Symlink { .. } => SYMLINK.into(),
            StoreError::NotRegular { .. } => NOT_REGULAR.into(),
            StoreError::IsDirectory { .. } => IS_DIRECTORY.into(),
            other => other.to_string(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }
}

/// A log DSH would not read, or could not. Cheap to clone: a command that
/// asks about one session twice gets the one answer (`ScanCache`).
#[derive(Debug, Clone, thiserror::Error)]
pub enum LogError {
    /// The log could not be opened (or is not a regular file).
    #[error("{0}")]
    Open(#[source] Arc<StoreError>),
    /// Reading it failed part-way.
    #[error("{0}")]
    Io(#[source] Arc<io::Error>),
    /// A resume point does not describe these bytes (the caller reads the
    /// whole log instead).
    #[error("scan cache does not match the log")]
    StaleCache,
    /// No complete header record.
    #[error("empty or header-less {}session log", if *.zstd { "Zstandard " } else { "" })]
    Empty { zstd: bool },
    #[error("corrupt session log: header line exceeds the 1 MiB cap")]
    HeaderTooLong,
    /// The first record is not a session header.
    #[error("corrupt session log: {0}")]
    NotHeader(&'static str),
    #[error("session header uses retired policy baseline fields")]
    RetiredHeader,
    /// A header DSH's restore path refuses.
    #[error(transparent)]
    Restore(RestoreRefusal),
    #[error(transparent)]
    Zstd(ZstdCorruption),
    /// A committed line over the line cap (1-based line number).
    #[error("corrupt session log: line {line} exceeds the {} MiB line cap", MAX_LINE >> 20)]
    LineTooLong { line: u64 },
    #[error("corrupt session log: unparsable committed event at line {line}")]
    Unparsable { line: u64 },
    /// A `null` record, which rc.8 throws on.
    #[error("corrupt session log: null record at line {line}")]
    NullRecord { line: u64 },
    #[error(
        "corrupt session log: seq gap in committed region at line {line} (expected {expected})"
    )]
    SeqGap { line: u64, expected: u64 },
    #[error("session \"{session}\": {error}")]
    Event {
        session: String,
        #[source]
        error: EventError,
    },
    #[error("session \"{session}\": {error}")]
    Surface {
        session: String,
        #[source]
        error: SurfaceError,
    },
    /// An unseeded log of `generation` holds an inherited end-seed marker.
    #[error(
        "session \"{session}\": format v{generation} unseeded Session contains an inherited end-seed marker"
    )]
    StrayEndSeed { session: String, generation: u32 },
    /// A seeded log of `generation` lacks its inherited end-seed marker.
    #[error(
        "session \"{session}\": format v{generation} seeded Session lacks an inherited end-seed marker"
    )]
    MissingEndSeed { session: String, generation: u32 },
    /// A Zstandard log whose last frame is torn, which `serve` must not
    /// append after (DSH repairs it on its next open).
    #[error("the log ends in a torn Zstandard frame; let DSH repair it first")]
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

/// A Zstandard log DSH refuses as corrupt, with the byte offset where it
/// could tell; the text is rc.8's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZstdCorruption {
    FrameTooLarge {
        at: u64,
    },
    BadMagic {
        at: u64,
    },
    ReservedBit {
        at: u64,
    },
    ReservedBlock {
        at: u64,
    },
    /// A complete frame that does not decode.
    FrameInvalid {
        at: u64,
    },
    HeaderFrameInvalid,
    HeaderNotOneLine,
    /// A complete frame ends inside a record.
    TornRecord,
}

impl std::fmt::Display for ZstdCorruption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("corrupt Zstandard session log: ")?;
        match self {
            ZstdCorruption::FrameTooLarge { at } => write!(
                f,
                "frame at byte {at} exceeds the {} MiB frame cap",
                MAX_FRAME >> 20
            ),
            ZstdCorruption::BadMagic { at } => write!(f, "invalid frame magic at byte {at}"),
            ZstdCorruption::ReservedBit { at } => {
                write!(f, "reserved frame-header bit at byte {at}")
            }
            ZstdCorruption::ReservedBlock { at } => write!(f, "reserved block type at byte {at}"),
            ZstdCorruption::FrameInvalid { at } => {
                write!(f, "frame at byte {at} failed validation")
            }
            ZstdCorruption::HeaderFrameInvalid => f.write_str("header frame failed validation"),
            ZstdCorruption::HeaderNotOneLine => {
                f.write_str("first frame is not exactly one header line")
            }
            ZstdCorruption::TornRecord => {
                f.write_str("complete frame contains a torn JSONL record")
            }
        }
    }
}

impl std::error::Error for ZstdCorruption {}
