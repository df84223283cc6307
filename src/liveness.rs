//! The liveness probe (DESIGN §6): a resident process holds `live.lock`
//! exclusively for its lifetime and keeps `live.json` current. A
//! non-blocking shared lock attempt that would block means "live". The probe
//! never creates or writes a file.

use serde::{Deserialize, Serialize};
use std::fs::{File, TryLockError};
use std::path::Path;

pub const LIVE_LOCK: &str = "live.lock";
pub const LIVE_JSON: &str = "live.json";

/// What a resident process says it is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveState {
    Idle,
    Running,
}

/// The body of `live.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LiveInfo {
    pub pid: u32,
    pub state: LiveState,
    pub since: i64,
    pub turn: u64,
}

/// The probe's answer for one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    NotLive,
    Live { state: LiveState },
}

impl Liveness {
    pub fn is_live(self) -> bool {
        matches!(self, Liveness::Live { .. })
    }
}

/// Probe the session directory `dir`.
pub fn probe(dir: &Path) -> Liveness {
    let Ok(file) = File::open(dir.join(LIVE_LOCK)) else {
        return Liveness::NotLive;
    };
    match file.try_lock_shared() {
        Ok(()) => Liveness::NotLive,
        Err(TryLockError::WouldBlock) => {
            // A holder that has not written live.json yet is between turns.
            let state = std::fs::read(dir.join(LIVE_JSON))
                .ok()
                .and_then(|b| serde_json::from_slice::<LiveInfo>(&b).ok())
                .map_or(LiveState::Idle, |i| i.state);
            Liveness::Live { state }
        }
        Err(TryLockError::Error(_)) => Liveness::NotLive,
    }
}
