//! The inbox sidecar (DESIGN §6): `inbox.jsonl` holds append-only records,
//! one JSON object per line. Writers serialize on `inbox.lock` (std
//! `File::lock`, flock semantics: the lock dies with its process), repair a
//! torn tail, append one complete record, `sync_data`, then unlock. Readers
//! take no lock and read complete lines only.
//!
//! Appending never reads the whole inbox: the pending count for the
//! admission bound comes from `inbox.state`, a cache keyed by the inbox's
//! byte length and rebuilt by a full fold only when it does not match.
//! Idempotent sends (`--id`) leave a marker in `inbox.ids/` that records
//! where their record went.

use crate::codec::encode_segment;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const INBOX: &str = "inbox.jsonl";
pub const INBOX_LOCK: &str = "inbox.lock";
pub const INBOX_STATE: &str = "inbox.state";
pub const INBOX_IDS: &str = "inbox.ids";
/// Present once an external execution was interrupted: it takes no more messages.
pub const STOPPED: &str = "inbox.stopped";

/// The start of the admission error, so tools can phrase it in their own words.
pub const INBOX_FULL: &str = "the inbox is full";

/// Default admission bound: pending messages one inbox may hold.
pub const DEFAULT_MAX_PENDING: usize = 10_000;
/// Default bound on a lock wait.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Which pending list a message joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    #[serde(rename = "next-turn")]
    NextTurn,
    #[serde(rename = "next-step")]
    NextStep,
}

impl Target {
    pub fn as_str(self) -> &'static str {
        match self {
            Target::NextTurn => "next-turn",
            Target::NextStep => "next-step",
        }
    }
}

/// One inbox record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Record {
    Message {
        id: String,
        time: i64,
        target: Target,
        source: Value,
        content: Vec<Value>,
    },
    Claim {
        time: i64,
        ids: Vec<String>,
    },
    Cancel {
        time: i64,
        ids: Vec<String>,
    },
    Interrupt {
        id: String,
        time: i64,
        source: Value,
        /// An external execution's interrupt stops it for good.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        permanent: bool,
    },
    Wait {
        time: i64,
        call: String,
        ids: Vec<String>,
    },
}

/// A message as the fold sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub id: String,
    pub time: i64,
    pub target: Target,
    pub source: Value,
    pub content: Vec<Value>,
    /// Position of the record in the inbox (record index).
    #[serde(skip)]
    pub position: usize,
}

impl Message {
    /// The text blocks joined, for display.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect()
    }
}

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

/// The folded state of an inbox.
#[derive(Debug, Default, Clone)]
pub struct Fold {
    pub messages: Vec<Message>,
    pub claimed: HashSet<String>,
    pub canceled: HashSet<String>,
    /// Record index of the newest interrupt, and of the newest next-turn message.
    pub last_interrupt: Option<usize>,
    pub last_next_turn: Option<usize>,
    /// Ids each root call's waits have reported.
    pub waits: HashMap<String, HashSet<String>>,
    /// A permanent interrupt was recorded.
    pub stopped: bool,
    /// Complete lines that did not parse as records (never written by us).
    pub bad_lines: usize,
    /// Bytes of complete lines read.
    pub bytes: u64,
    pub records: usize,
}

impl Fold {
    fn apply(&mut self, record: Record) {
        let position = self.records;
        self.records += 1;
        match record {
            Record::Message {
                id,
                time,
                target,
                source,
                content,
            } => {
                if target == Target::NextTurn {
                    self.last_next_turn = Some(position);
                }
                self.messages.push(Message {
                    id,
                    time,
                    target,
                    source,
                    content,
                    position,
                });
            }
            Record::Claim { ids, .. } => self.claimed.extend(ids),
            Record::Cancel { ids, .. } => self.canceled.extend(ids),
            Record::Interrupt { permanent, .. } => {
                self.last_interrupt = Some(position);
                self.stopped |= permanent;
            }
            Record::Wait { call, ids, .. } => self.waits.entry(call).or_default().extend(ids),
        }
    }

    /// Pending = messages − claimed − canceled, in arrival order.
    pub fn pending(&self, target: Target) -> Vec<&Message> {
        self.messages
            .iter()
            .filter(|m| {
                m.target == target
                    && !self.claimed.contains(&m.id)
                    && !self.canceled.contains(&m.id)
            })
            .collect()
    }

    pub fn pending_count(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| !self.claimed.contains(&m.id) && !self.canceled.contains(&m.id))
            .count()
    }

    /// Parked: an interrupt is newer than the newest next-turn message.
    pub fn parked(&self) -> bool {
        match (self.last_interrupt, self.last_next_turn) {
            (Some(i), Some(m)) => i > m,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// What a step boundary claims: all pending next-step input, plus the
    /// oldest pending next-turn message unless the queue is parked.
    pub fn claimable(&self) -> Vec<&Message> {
        let mut out = self.pending(Target::NextStep);
        if !self.parked() {
            out.extend(self.pending(Target::NextTurn).into_iter().take(1));
        }
        out
    }

    pub fn fold_bytes(bytes: &[u8]) -> Fold {
        let mut fold = Fold::default();
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
        fold.bytes = complete as u64;
        for line in bytes[..complete].split(|b| *b == b'\n') {
            if line.is_empty() {
                continue;
            }
            match serde_json::from_slice::<Record>(line) {
                Ok(r) => fold.apply(r),
                Err(_) => fold.bad_lines += 1,
            }
        }
        fold
    }
}

/// The pending count of an inbox's bytes, reading only record ids: the
/// admission check must not materialize every message body.
pub fn count_pending(bytes: &[u8]) -> usize {
    #[derive(Deserialize)]
    struct Ids {
        #[serde(rename = "type")]
        ty: String,
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        ids: Vec<String>,
    }
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
    let mut messages = HashSet::new();
    let mut consumed = HashSet::new();
    for line in bytes[..complete]
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let Ok(r) = serde_json::from_slice::<Ids>(line) else {
            continue;
        };
        match r.ty.as_str() {
            "message" => messages.extend(r.id),
            "claim" | "cancel" => consumed.extend(r.ids),
            _ => {}
        }
    }
    messages.iter().filter(|id| !consumed.contains(*id)).count()
}

/// A message to deliver.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub target: Target,
    pub source: Value,
    pub content: Vec<Value>,
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

/// Crash-test hook: `DSH_AGENTS_FAULT=<stage>` kills the process at that
/// stage of an inbox append (`after-lock`, `mid-record`, `before-sync`), or
/// holds the lock forever (`hold-lock`), so tests can prove a writer dying
/// anywhere loses nothing acknowledged and blocks nobody.
fn fault(stage: &str) {
    if std::env::var("DSH_AGENTS_FAULT").is_ok_and(|s| s == stage) {
        if stage == "hold-lock" {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        std::process::abort();
    }
}

/// A text content block.
pub fn text_block(text: &str) -> Value {
    serde_json::json!({"type": "text", "text": text})
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A fresh, unique, time-ordered message id (UUID v7).
pub fn new_message_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// One session's inbox.
#[derive(Debug, Clone)]
pub struct Inbox {
    dir: PathBuf,
}

/// Held while writing; dropping it unlocks.
pub struct WriteGuard {
    _lock: File,
    inbox: File,
    len: u64,
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

    /// Whether an interrupt stopped this (external) agent for good.
    pub fn stopped(&self) -> bool {
        fs::symlink_metadata(self.dir.join(STOPPED)).is_ok()
    }

    /// Record an interrupt request; a permanent one also leaves the stop marker.
    pub fn interrupt(&self, source: Value, permanent: bool, limits: Limits) -> Result<String> {
        let mut guard = self.lock(limits.lock_timeout)?;
        let id = new_message_id();
        self.record(
            &mut guard,
            &Record::Interrupt {
                id: id.clone(),
                time: now_ms(),
                source,
                permanent,
            },
        )?;
        if permanent {
            let marker = self.dir.join(STOPPED);
            crate::sidecar::open(
                &marker,
                OpenOptions::new().write(true).create(true).mode(0o600),
            )?;
        }
        Ok(id)
    }

    /// Read and fold without locking; a missing inbox is empty.
    pub fn read(&self) -> Result<Fold> {
        let path = self.path();
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Fold::default()),
            Err(e) => return Err(Error::io(&path, &e)),
            Ok(m) if !m.file_type().is_file() => {
                return Err(Error::store(format!(
                    "{}: the inbox is not a regular file",
                    path.display()
                )));
            }
            Ok(_) => {}
        }
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| Error::io(&path, &e))?;
        Ok(Fold::fold_bytes(&bytes))
    }

    /// The pending count without a lock: from the cache when it matches the
    /// inbox's length, else by folding. A missing inbox holds nothing.
    pub fn pending_now(&self) -> Result<usize> {
        let len = match fs::symlink_metadata(self.path()) {
            Ok(m) => m.len(),
            Err(_) => return Ok(0),
        };
        if let Some(state) = self.read_state().filter(|s| s.size == len) {
            return Ok(state.pending);
        }
        Ok(self.read()?.pending_count())
    }

    /// Take the writer lock (bounded wait), open the inbox and repair a torn tail.
    pub fn lock(&self, timeout: Duration) -> Result<WriteGuard> {
        let lock_path = self.dir.join(INBOX_LOCK);
        let lock = crate::sidecar::open_rw(&lock_path)?;
        let deadline = Instant::now() + timeout;
        // Lock holders keep the lock for one fsync'd append (a few ms), so
        // poll finely: a coarse backoff would add its own latency to every
        // contended send and every woken waiter.
        let mut pause = Duration::from_micros(100);
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(Error::store(format!(
                            "timed out after {:.1}s waiting for the lock on {}",
                            timeout.as_secs_f64(),
                            lock_path.display()
                        )));
                    }
                    std::thread::sleep(pause.min(deadline - now));
                    pause = (pause * 2).min(Duration::from_millis(2));
                }
                Err(TryLockError::Error(e)) => return Err(Error::io(&lock_path, &e)),
            }
        }
        fault("after-lock");
        fault("hold-lock");
        let path = self.path();
        let inbox = crate::sidecar::open_rw(&path)?;
        let len = inbox.metadata().map_err(|e| Error::io(&path, &e))?.len();
        let len = repair_tail(&inbox, len).map_err(|e| Error::io(&path, &e))?;
        Ok(WriteGuard {
            _lock: lock,
            inbox,
            len,
        })
    }

    /// Append one record under `guard`; durable when this returns.
    pub fn append(&self, guard: &mut WriteGuard, record: &Record) -> Result<()> {
        let path = self.path();
        let mut line = serde_json::to_vec(record).map_err(|e| Error::store(e.to_string()))?;
        line.push(b'\n');
        if std::env::var_os("DSH_AGENTS_FAULT").is_some() {
            let half = line.len() / 2;
            let _ = guard.inbox.write_all_at(&line[..half], guard.len);
            fault("mid-record");
            let _ = guard
                .inbox
                .write_all_at(&line[half..], guard.len + half as u64);
            fault("before-sync");
        }
        let written = guard
            .inbox
            .write_all_at(&line, guard.len)
            .and_then(|()| guard.inbox.sync_data());
        if let Err(e) = written {
            // Leave no partial record behind, as DSH does on a failed append.
            let _ = guard.inbox.set_len(guard.len);
            let _ = guard.inbox.sync_data();
            return Err(Error::io(&path, &e));
        }
        guard.len += line.len() as u64;
        Ok(())
    }

    /// The pending count at the guard's length, from the cache when it
    /// matches, else by a full count (which the caller then caches).
    fn pending_count(&self, guard: &WriteGuard) -> Result<usize> {
        if let Some(state) = self.read_state()
            && state.size == guard.len
        {
            return Ok(state.pending);
        }
        let path = self.path();
        let mut bytes = Vec::new();
        File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| Error::io(&path, &e))?;
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
        let _ = crate::sidecar::replace(&self.dir.join(INBOX_STATE), &bytes, false);
    }

    /// Deliver one message: admission bound, idempotency, append, sync.
    pub fn deliver(&self, message: NewMessage, limits: Limits) -> Result<Receipt> {
        if let Some(id) = &message.id
            && id.is_empty()
        {
            return Err(Error::usage("--id: a message id cannot be empty"));
        }
        let mut guard = self.lock(limits.lock_timeout)?;
        if self.stopped() {
            return Err(Error::tool(
                "the agent was stopped permanently by an interrupt; the message was not delivered",
            ));
        }
        let marker = message
            .id
            .as_ref()
            .and_then(|id| encode_segment(id))
            .map(|seg| self.dir.join(INBOX_IDS).join(seg));
        if let (Some(id), Some(marker)) = (&message.id, &marker)
            && self.delivered_at_marker(marker, id, &guard)
        {
            return Ok(Receipt {
                message_id: id.clone(),
                duplicate: true,
            });
        }
        let pending = self.pending_count(&guard)?;
        if pending >= limits.max_pending {
            return Err(Error::tool(format!(
                "{INBOX_FULL} ({pending} pending messages, limit {})",
                limits.max_pending
            )));
        }
        let id = message.id.clone().unwrap_or_else(new_message_id);
        if let Some(marker) = &marker {
            self.write_marker(marker, guard.len)?;
        }
        let record = Record::Message {
            id: id.clone(),
            time: now_ms(),
            target: message.target,
            source: message.source,
            content: message.content,
        };
        self.append(&mut guard, &record)?;
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
    pub fn record(&self, guard: &mut WriteGuard, record: &Record) -> Result<()> {
        let before = self.pending_count(guard)?;
        self.append(guard, record)?;
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

    /// Whether the marker for `id` points at a complete record of that message.
    fn delivered_at_marker(&self, marker: &Path, id: &str, guard: &WriteGuard) -> bool {
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
        let mut line = Vec::new();
        let mut chunk = [0u8; 8192];
        let mut at = offset;
        while at < guard.len {
            let n = match guard.inbox.read_at(&mut chunk, at) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if let Some(p) = chunk[..n].iter().position(|b| *b == b'\n') {
                line.extend_from_slice(&chunk[..p]);
                return matches!(serde_json::from_slice::<Record>(&line), Ok(Record::Message { id: ref got, .. }) if got == id);
            }
            line.extend_from_slice(&chunk[..n]);
            at += n as u64;
        }
        false
    }

    fn write_marker(&self, marker: &Path, offset: u64) -> Result<()> {
        let dir = self.dir.join(INBOX_IDS);
        match fs::symlink_metadata(&dir) {
            Ok(m) if !m.file_type().is_dir() => {
                return Err(Error::store(format!("{}: not a directory", dir.display())));
            }
            Ok(_) => {}
            Err(_) => fs::create_dir(&dir).map_err(|e| Error::io(&dir, &e))?,
        }
        let bytes = serde_json::to_vec(&MarkerBody { offset }).unwrap_or_default();
        crate::sidecar::replace(marker, &bytes, true)
    }
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

/// Cut a final record without its newline; returns the new length. Reads
/// only the tail, never the whole file.
fn repair_tail(file: &File, len: u64) -> io::Result<u64> {
    if len == 0 {
        return Ok(0);
    }
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    if last[0] == b'\n' {
        return Ok(len);
    }
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    let keep = loop {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.read_exact_at(chunk, start)?;
        if let Some(p) = chunk.iter().rposition(|b| *b == b'\n') {
            break start + p as u64 + 1;
        }
        if start == 0 {
            break 0;
        }
        end = start;
    };
    file.set_len(keep)?;
    file.sync_data()?;
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_tracks_pending_and_parking() {
        let lines = [
            r#"{"type":"message","id":"a","time":1,"target":"next-turn","source":{"kind":"user"},"content":[]}"#,
            r#"{"type":"message","id":"b","time":2,"target":"next-step","source":{"kind":"user"},"content":[]}"#,
            r#"{"type":"interrupt","id":"i","time":3,"source":{"kind":"user"}}"#,
            r#"{"type":"claim","time":4,"ids":["b"]}"#,
            r#"{"type":"message","id":"c","time":5,"target":"next-turn","source":{"kind":"user"},"content":[]"#,
        ];
        let fold = Fold::fold_bytes(lines.join("\n").as_bytes());
        assert_eq!(
            fold.pending(Target::NextTurn).len(),
            1,
            "the torn last line is not read"
        );
        assert!(fold.pending(Target::NextStep).is_empty());
        assert!(fold.parked());
        assert!(fold.claimable().is_empty());
        let mut more = lines[..4].join("\n");
        more.push('\n');
        more.push_str(r#"{"type":"message","id":"c","time":5,"target":"next-turn","source":{"kind":"user"},"content":[]}"#);
        more.push('\n');
        let fold = Fold::fold_bytes(more.as_bytes());
        assert_eq!(count_pending(more.as_bytes()), fold.pending_count());
        assert!(!fold.parked(), "a newer next-turn message unparks");
        let ids: Vec<&str> = fold.claimable().iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["a"], "FIFO: the parked message runs first");
    }
}
