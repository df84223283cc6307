//! What goes wrong in the fleet, typed: the caller decides by the variant.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The store has not joined a fleet (`fleet run` joins it).
    #[error("the store {} has not joined a fleet: run `dsh-agents fleet run --host NAME --nats URL --creds FILE` for it first", .store.display())]
    NotJoined { store: PathBuf },
    /// A host name that is not a subject token.
    #[error("\"{host}\" is not a host name: use ASCII letters, digits, - and _ (at most 64)")]
    BadHost { host: String },
    /// `--addresses` names neither one address nor one a node.
    #[error("--addresses: {given} given for {nodes} node(s): give one for all, or one a node")]
    AddressCount { given: usize, nodes: usize },
    /// An address a URL and a server configuration cannot hold as written.
    #[error("--addresses: \"{address}\" is not an IPv4 address or a host name")]
    BadAddress { address: String },
    /// A file of the fleet's own could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `fleet init` was not told the hosts, and no `fleet.json` is beside
    /// the credential to say them.
    #[error("{}: not found: pass --hosts, or give the --creds that `dsh-agents fleet config --out DIR` wrote beside it", .path.display())]
    NoHosts { path: PathBuf },
    /// A file of the fleet's own holds what this build cannot read.
    #[error("{}: {why}", .path.display())]
    Corrupt { path: PathBuf, why: String },
    /// Another daemon holds this store's host (`holder`: its pid and machine).
    #[error("another fleet daemon ({holder}) already serves the store {}", .store.display())]
    DaemonRunning { store: PathBuf, holder: String },
    /// The store is already another host of its fleet.
    #[error("the store {} is host {host} of its fleet (its sends and receipts carry that name); run the daemon with --host {host}", .store.display())]
    OtherHost { store: PathBuf, host: String },
    /// The target host refused a message for good (`reason`: its words).
    #[error("host {host} refused message {id}: {reason}")]
    Refused {
        id: String,
        host: String,
        reason: String,
    },
    /// A send waited for its receipt in vain (`level`: how far it got).
    #[error(
        "message {id} for host {host} is {level} after {seconds} s, not yet {wanted}; it stays on its way (`dsh-agents fleet status` follows it)"
    )]
    WaitedInVain {
        id: String,
        host: String,
        level: &'static str,
        /// The level it was waited for.
        wanted: &'static str,
        seconds: u64,
    },
    /// Another host answered a read with an error (its words, and the
    /// exit status the read had there).
    #[error("host {host}: {message}")]
    Answered {
        host: String,
        message: String,
        code: u8,
    },
    /// A read of another host got no answer in time.
    #[error(
        "host {host} did not answer in {seconds} s: a read is answered only while its daemon runs and reaches the hub (`dsh-agents fleet status`)"
    )]
    Unanswered { host: String, seconds: u64 },
    /// The hub refused or could not be reached (`what` we asked it).
    #[error("the hub: {what}: {detail}")]
    Hub { what: &'static str, detail: String },
}

impl FleetError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> FleetError {
        FleetError::Io {
            path: path.into(),
            source,
        }
    }

    pub fn hub(what: &'static str, e: impl fmt::Display) -> FleetError {
        FleetError::Hub {
            what,
            detail: e.to_string(),
        }
    }

    /// Whether the user asked for something that cannot be (exit 2), not
    /// a failure of the files or the hub (exit 3).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            FleetError::NotJoined { .. }
                | FleetError::BadHost { .. }
                | FleetError::AddressCount { .. }
                | FleetError::BadAddress { .. }
                | FleetError::OtherHost { .. }
                | FleetError::NoHosts { .. }
                | FleetError::Refused { .. }
        )
    }
}

impl From<FleetError> for crate::error::Error {
    fn from(e: FleetError) -> Self {
        use crate::error::ErrorKind;
        let kind = match &e {
            FleetError::Answered { code: 1, .. } => ErrorKind::Tool,
            FleetError::Answered { code: 2, .. } => ErrorKind::Usage,
            _ if e.is_usage() => ErrorKind::Usage,
            _ => ErrorKind::Store,
        };
        crate::error::Error::Above {
            kind,
            error: Box::new(e),
        }
    }
}
