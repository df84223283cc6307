//! Liveness (DESIGN §6): a resident process holds `live.lock` exclusively
//! for its lifetime and keeps `live.json` current. A non-blocking shared
//! lock attempt that would block means "live". The probe never creates or
//! writes a file.

use crate::store::{StoreError, sidecar};
use crate::support::clock::now_ms;
use serde::{Deserialize, Serialize};
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

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

    /// Live and mid-turn.
    pub fn is_working(self) -> bool {
        self == Liveness::Live {
            state: LiveState::Running,
        }
    }
}

fn read_info(dir: &Path) -> Option<LiveInfo> {
    std::fs::read(dir.join(LIVE_JSON))
        .ok()
        .and_then(|b| serde_json::from_slice::<LiveInfo>(&b).ok())
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
            let state = read_info(dir).map_or(LiveState::Idle, |i| i.state);
            Liveness::Live { state }
        }
        Err(TryLockError::Error(_)) => Liveness::NotLive,
    }
}

/// `live.lock` held exclusively; dropping it removes `live.json` and unlocks.
pub struct LiveLock {
    file: File,
    dir: PathBuf,
}

impl LiveLock {
    /// Take the lock, failing (naming the holder's pid when known) when
    /// another process holds it.
    pub fn take(dir: &Path, id: &str) -> Result<LiveLock, StoreError> {
        let path = dir.join(LIVE_LOCK);
        let file = sidecar::open_rw(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(LiveLock {
                file,
                dir: dir.to_path_buf(),
            }),
            Err(TryLockError::WouldBlock) => Err(StoreError::AlreadyLive {
                id: id.to_string(),
                holder: read_info(dir).map(|i| i.pid),
                path,
            }),
            Err(TryLockError::Error(e)) => Err(StoreError::io(path, e)),
        }
    }

    /// Replace `live.json` atomically.
    pub fn publish(&self, state: LiveState, turn: u64) -> Result<(), StoreError> {
        let info = LiveInfo {
            pid: std::process::id(),
            state,
            since: now_ms(),
            turn,
        };
        sidecar::replace(
            &self.dir.join(LIVE_JSON),
            &serde_json::to_vec(&info).unwrap_or_default(),
            false,
        )
    }
}

impl Drop for LiveLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.dir.join(LIVE_JSON));
        // Unlock explicitly rather than by closing: a handler being forked
        // at this moment shares the descriptor until its exec.
        let _ = self.file.unlock();
    }
}
