//! Why a session log cannot be read the way DSH reads it: the reason a
//! listing shows the session `unavailable`, `check` reports, and a read of
//! its transcript fails with. Each variant renders rc.8's own words, so the
//! text is exact; callers decide by the variant, never by the text.

use super::error::StoreError;
use super::events::EventError;
use super::header::RestoreRefusal;
use super::limits::MAX_LINE;
use super::surface::SurfaceError;
use super::zstd_frames::ZstdCorruption;
use std::io;
use std::sync::Arc;

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
