//! The crate's error: one variant per layer, each carrying that layer's
//! typed error. `Error::kind` is the one place that decides which exit code
//! (contract §8) a failure gets; `ErrorKind` → `ExitCode` is the one table.

use crate::inbox::DeliveryError;
use crate::tree::{ResolveError, TreeError};
use dsh_store::StoreError;
use std::fmt;
use std::process::ExitCode;

/// What kind of failure this is; it decides the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// An errored tool result (exit 1): the text is what the model would see.
    Tool,
    /// A usage error: bad argument values the parser could not catch (exit 2).
    Usage,
    /// The store or the file system failed us (exit 3).
    Store,
}

impl From<ErrorKind> for ExitCode {
    fn from(kind: ErrorKind) -> ExitCode {
        ExitCode::from(match kind {
            ErrorKind::Tool => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Store => 3,
        })
    }
}

#[derive(Debug)]
pub enum Error {
    /// An errored tool result, already in the contract's words.
    Tool(String),
    /// A usage error raised by the command line layer (it may name flags).
    Usage(String),
    /// A session name or id did not resolve.
    Resolve(ResolveError),
    /// A session named by a flag (`--as`, `--to`) did not resolve: the
    /// typed error, and the flag it came from.
    Flag {
        flag: &'static str,
        error: ResolveError,
    },
    /// The tree's shape is broken (a `parentSession` cycle).
    Tree(TreeError),
    /// A delivery to an inbox failed.
    Delivery(DeliveryError),
    /// The store or the file system failed.
    Store(StoreError),
    /// A layer that stands above this file (the fleet) failed: its own
    /// typed error, with the kind that layer decided (it converts into
    /// this, so no arrow runs from here up to it).
    Above {
        kind: ErrorKind,
        error: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Tool(_) => ErrorKind::Tool,
            Error::Usage(_) | Error::Resolve(_) | Error::Flag { .. } => ErrorKind::Usage,
            Error::Tree(_) | Error::Store(_) => ErrorKind::Store,
            Error::Delivery(e) => delivery_kind(e),
            Error::Above { kind, .. } => *kind,
        }
    }

    pub fn tool(message: impl Into<String>) -> Self {
        Error::Tool(message.into())
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }
}

/// The exit kind of a delivery failure: the agent's own state refuses it
/// (a tool result), the request was wrong (usage), or the store failed.
fn delivery_kind(e: &DeliveryError) -> ErrorKind {
    match e {
        DeliveryError::InboxFull { .. } | DeliveryError::Stopped => ErrorKind::Tool,
        DeliveryError::IdReused { .. }
        | DeliveryError::IdTaken { .. }
        | DeliveryError::TooLarge { .. }
        | DeliveryError::UnknownMessage { .. }
        | DeliveryError::NotPending { .. }
        | DeliveryError::BeingDelivered { .. } => ErrorKind::Usage,
        DeliveryError::LockTimeout { .. } | DeliveryError::Store(_) => ErrorKind::Store,
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error::Store(e)
    }
}

impl From<ResolveError> for Error {
    fn from(e: ResolveError) -> Self {
        Error::Resolve(e)
    }
}

impl From<TreeError> for Error {
    fn from(e: TreeError) -> Self {
        Error::Tree(e)
    }
}

impl From<DeliveryError> for Error {
    fn from(e: DeliveryError) -> Self {
        match e {
            DeliveryError::Store(s) => Error::Store(s),
            other => Error::Delivery(other),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tool(m) | Error::Usage(m) => f.write_str(m),
            Error::Resolve(e) => e.fmt(f),
            Error::Flag {
                flag,
                error: ResolveError::NoRoot { store },
            } => write!(
                f,
                "no tree root in store {}; pass {flag} AGENT",
                store.display()
            ),
            Error::Flag {
                flag,
                error: ResolveError::SeveralRoots { roots },
            } => write!(
                f,
                "the store holds {} tree roots; pass {flag} AGENT (one of: {})",
                roots.len(),
                roots.join(", ")
            ),
            Error::Flag { flag, error } => write!(f, "{flag}: {error}"),
            Error::Tree(e) => e.fmt(f),
            Error::Delivery(e) => e.fmt(f),
            Error::Store(e) => e.fmt(f),
            Error::Above { error, .. } => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Tool(_) | Error::Usage(_) => None,
            Error::Resolve(e) | Error::Flag { error: e, .. } => Some(e),
            Error::Tree(e) => Some(e),
            Error::Delivery(e) => Some(e),
            Error::Store(e) => Some(e),
            Error::Above { error, .. } => Some(error.as_ref()),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_layer_has_one_exit_kind() {
        let cases: Vec<(Error, ErrorKind)> = vec![
            (Error::tool("x"), ErrorKind::Tool),
            (Error::usage("x"), ErrorKind::Usage),
            (
                ResolveError::NotFound {
                    text: "x".into(),
                    store: "/s".into(),
                    suggestions: Vec::new(),
                }
                .into(),
                ErrorKind::Usage,
            ),
            (
                TreeError::ParentCycle {
                    ids: vec!["a".into(), "b".into()],
                }
                .into(),
                ErrorKind::Store,
            ),
            (
                DeliveryError::InboxFull {
                    pending: 3,
                    limit: 3,
                }
                .into(),
                ErrorKind::Tool,
            ),
            (DeliveryError::Stopped.into(), ErrorKind::Tool),
            (
                DeliveryError::LockTimeout {
                    path: "/s/inbox.lock".into(),
                    timeout: Duration::from_secs(1),
                }
                .into(),
                ErrorKind::Store,
            ),
        ];
        for (err, kind) in cases {
            assert_eq!(err.kind(), kind, "{err}");
        }
    }

    /// A flag's resolve error keeps its type (for `source()`), names the
    /// flag, and is a usage error.
    #[test]
    fn a_flag_error_names_its_flag_and_keeps_its_source() {
        use std::error::Error as _;
        let cases: Vec<(ResolveError, &str)> = vec![
            (
                ResolveError::NotFound {
                    text: "x".into(),
                    store: "/s".into(),
                    suggestions: Vec::new(),
                },
                "--as: no session \"x\"",
            ),
            (
                ResolveError::NoRoot { store: "/s".into() },
                "no tree root in store /s; pass --as AGENT",
            ),
            (
                ResolveError::SeveralRoots {
                    roots: vec!["a".into(), "b".into()],
                },
                "the store holds 2 tree roots; pass --as AGENT (one of: a, b)",
            ),
        ];
        for (error, starts) in cases {
            let inner = error.to_string();
            let e = Error::Flag {
                flag: "--as",
                error,
            };
            assert_eq!(e.kind(), ErrorKind::Usage);
            assert!(e.to_string().starts_with(starts), "{e}");
            assert_eq!(e.source().map(|s| s.to_string()), Some(inner));
        }
        assert!(Error::usage("x").source().is_none());
    }
}
