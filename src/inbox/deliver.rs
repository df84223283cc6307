//! One session's inbox as writers and readers use it: unlocked reads,
//! delivery (admission bound, idempotent `--id`, append), non-message
//! records, and interrupt requests.
//!
//! Appending never reads the whole inbox: the pending count for the
//! admission bound comes from `inbox.state`, a cache keyed by the inbox's
//! byte length and rebuilt by a full count only when it does not match.
//! Idempotent sends leave a marker in `inbox.ids/` that records where their
//! record went.

use super::error::DeliveryError;
use super::fold::{Fold, count_pending};
use super::framing::{Framing, InterruptCause};
use super::lock::{self, INBOX, WriteGuard};
use super::record::{Record, Target, parse};
use crate::store::paths::encode_segment;
use crate::store::{StoreError, sidecar};
use crate::support::clock::{new_message_id, now_ms};
use serde::{Deserialize, Serialize};
use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const INBOX_STATE: &str = "inbox.state";
pub const INBOX_IDS: &str = "inbox.ids";
/// Present once an external execution was interrupted: it takes no more messages.
pub const STOPPED: &str = "inbox.stopped";

/// Default admission bound: pending messages one inbox may hold.
pub const DEFAULT_MAX_PENDING: usize = 10_000;
/// Default bound on a lock wait.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Limits a writer honours.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub lock_timeout: Duration,
    pub max_pending: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            max_pending: DEFAULT_MAX_PENDING,
        }
    }
}

/// A message to deliver.
#[derive(Debug, Clone)]
pub struct NewMessage<'a> {
    pub target: Target,
    pub framing: Framing,
    pub text: &'a str,
    /// A caller-chosen id makes the send idempotent.
    pub id: Option<String>,
}

/// What a successful delivery returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub message_id: String,
    /// The id had been delivered before: nothing was written.
    pub duplicate: bool,
}

/// One session's inbox.
#[derive(Debug, Clone)]
pub struct Inbox {
    dir: PathBuf,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct State {
    size: u64,
    pending: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct MarkerBody {
    offset: u64,
}

impl Inbox {
    pub fn new(session_dir: &Path) -> Inbox {
        Inbox {
            dir: session_dir.to_path_buf(),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(INBOX)
    }

    pub fn lock(&self, timeout: Duration) -> Result<WriteGuard, DeliveryError> {
        lock::lock(&self.dir, timeout)
    }

    /// Whether an interrupt stopped this (external) agent for good.
    pub fn stopped(&self) -> bool {
        fs::symlink_metadata(self.dir.join(STOPPED)).is_ok()
    }

    /// Read and fold without locking; a missing inbox is empty.
    pub fn read(&self) -> Result<Fold, StoreError> {
        let path = self.path();
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Fold::default()),
            Err(e) => return Err(StoreError::io(path, e)),
            Ok(m) if !m.file_type().is_file() => return Err(StoreError::NotRegular { path }),
            Ok(_) => {}
        }
        let bytes = fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
        Ok(Fold::fold_bytes(&bytes))
    }

    /// The pending count without a lock: from the cache when it matches the
    /// inbox's length, else by counting. A missing inbox holds nothing.
    pub fn pending_now(&self) -> Result<usize, StoreError> {
        let len = match fs::symlink_metadata(self.path()) {
            Ok(m) => m.len(),
            Err(_) => return Ok(0),
        };
        if let Some(state) = self.read_state().filter(|s| s.size == len) {
            return Ok(state.pending);
        }
        Ok(self.read()?.pending_count())
    }

    /// The pending count at the guard's length, from the cache when it
    /// matches, else by a full count (which the caller then caches).
    fn pending_count(&self, guard: &WriteGuard) -> Result<usize, StoreError> {
        if let Some(state) = self.read_state()
            && state.size == guard.len
        {
            return Ok(state.pending);
        }
        let path = self.path();
        let bytes = fs::read(&path).map_err(|e| StoreError::io(&path, e))?;
        Ok(count_pending(&bytes))
    }

    fn read_state(&self) -> Option<State> {
        let path = self.dir.join(INBOX_STATE);
        let meta = fs::symlink_metadata(&path).ok()?;
        if !meta.file_type().is_file() || meta.len() > 4096 {
            return None;
        }
        serde_json::from_slice(&fs::read(&path).ok()?).ok()
    }

    /// Replace the cache atomically; it is only a cache, so failure is harmless.
    fn write_state(&self, state: State) {
        let bytes = serde_json::to_vec(&state).unwrap_or_default();
        let _ = sidecar::replace(&self.dir.join(INBOX_STATE), &bytes, false);
    }

    /// Deliver one message: admission bound, idempotency, append, sync.
    pub fn deliver(&self, message: NewMessage, limits: Limits) -> Result<Receipt, DeliveryError> {
        let mut guard = self.lock(limits.lock_timeout)?;
        if self.stopped() {
            return Err(DeliveryError::Stopped);
        }
        let marker = message
            .id
            .as_ref()
            .and_then(|id| encode_segment(id))
            .map(|seg| self.dir.join(INBOX_IDS).join(seg));
        if let (Some(id), Some(marker)) = (&message.id, &marker)
            && delivered_at_marker(marker, id, &guard)
        {
            return Ok(Receipt {
                message_id: id.clone(),
                duplicate: true,
            });
        }
        let pending = self.pending_count(&guard)?;
        if pending >= limits.max_pending {
            return Err(DeliveryError::InboxFull {
                pending,
                limit: limits.max_pending,
            });
        }
        let id = message.id.clone().unwrap_or_else(new_message_id);
        if let Some(marker) = &marker {
            self.write_marker(marker, guard.len)?;
        }
        let record = Record::Message {
            id: id.clone(),
            time: now_ms(),
            target: message.target,
            source: message.framing.source(),
            content: message.framing.content(message.text),
        };
        guard.append(&record)?;
        self.write_state(State {
            size: guard.len,
            pending: pending + 1,
        });
        Ok(Receipt {
            message_id: id,
            duplicate: false,
        })
    }

    /// Append a non-message record (claim, cancel, interrupt, wait), keeping
    /// the pending cache in step.
    pub fn record(&self, guard: &mut WriteGuard, record: &Record) -> Result<(), StoreError> {
        let before = self.pending_count(guard)?;
        guard.append(record)?;
        let consumed = match record {
            Record::Claim { ids, .. } | Record::Cancel { ids, .. } => ids.len(),
            _ => 0,
        };
        self.write_state(State {
            size: guard.len,
            pending: before.saturating_sub(consumed),
        });
        Ok(())
    }

    /// Record an interrupt request; a permanent one also leaves the stop marker.
    pub fn interrupt(
        &self,
        cause: &InterruptCause,
        permanent: bool,
        limits: Limits,
    ) -> Result<String, DeliveryError> {
        let mut guard = self.lock(limits.lock_timeout)?;
        let id = new_message_id();
        self.record(
            &mut guard,
            &Record::Interrupt {
                id: id.clone(),
                time: now_ms(),
                source: cause.source(),
                permanent,
            },
        )?;
        if permanent {
            sidecar::open(
                &self.dir.join(STOPPED),
                OpenOptions::new().write(true).create(true).mode(0o600),
            )?;
        }
        Ok(id)
    }

    fn write_marker(&self, marker: &Path, offset: u64) -> Result<(), StoreError> {
        let dir = self.dir.join(INBOX_IDS);
        match fs::symlink_metadata(&dir) {
            Ok(m) if !m.file_type().is_dir() => {
                return Err(StoreError::NotADirectory { path: dir });
            }
            Ok(_) => {}
            Err(_) => fs::create_dir(&dir).map_err(|e| StoreError::io(&dir, e))?,
        }
        let bytes = serde_json::to_vec(&MarkerBody { offset }).unwrap_or_default();
        sidecar::replace(marker, &bytes, true)
    }
}

/// Whether the marker for `id` points at a complete record of that message.
fn delivered_at_marker(marker: &Path, id: &str, guard: &WriteGuard) -> bool {
    let Some(offset) = fs::read(marker)
        .ok()
        .and_then(|b| serde_json::from_slice::<MarkerBody>(&b).ok())
        .map(|m| m.offset)
    else {
        return false;
    };
    if offset >= guard.len {
        return false;
    }
    guard
        .line_at(offset)
        .and_then(|line| parse::<serde::de::IgnoredAny>(&line))
        .is_some_and(|r| matches!(r, Record::Message { id: got, .. } if got == id))
}
