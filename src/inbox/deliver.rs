//! One session's inbox as writers and readers use it: unlocked reads,
//! delivery (admission bound, ids unique across the inbox, idempotent
//! `--id`, append), non-message records, and interrupt requests.
//!
//! Appending need not count the whole inbox: the pending count for the
//! admission bound comes from `inbox.state`, which is believed only while
//! it describes the inbox exactly (same file, same length, same last 4 KiB);
//! otherwise the inbox is counted again. It can skip work, never change an
//! answer a count would give.

use super::compact;
use super::error::DeliveryError;
use super::fold::{Fold, FoldPoint, count_pending};
use super::framing::{Framing, InterruptCause};
use super::handing;
use super::history::{History, Standing};
use super::id_list::IdList;
use super::lock::{self, INBOX, WriteGuard};
use super::record::{InboxLine, Message, Record, Target, for_each_line, parse};
use crate::support::clock::{new_message_id, now_ms};
use dsh_store::StoreError;
use dsh_store::files::{Dir, read_capped, read_small, tail_hash};
use dsh_store::format::MAX_LINE;
use dsh_store::log::{InLog, LogMessages, log_in};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const INBOX_STATE: &str = "inbox.state";
/// Where a fold of a large inbox may resume (a cache: it only skips work).
pub const INBOX_FOLD: &str = "inbox.fold";
/// The consumed-id list an `inbox.fold` point stands on: appended as the
/// fold moves on, so a point stays small and is read without parsing.
pub const INBOX_CONSUMED: &str = "inbox.consumed";
const FOLD_FORMAT: u32 = 4;
/// Inboxes smaller than this are folded from the start every time.
const FOLD_MIN_BYTES: u64 = 256 * 1024;
/// The largest fold point or consumed-id list read.
const FOLD_MAX_BYTES: u64 = 64 << 20;
/// A fold point is rewritten once the fold moved on this much.
const FOLD_STEP_BYTES: u64 = 64 * 1024;

/// `inbox.fold`: a fold point and the file it describes.
#[derive(Serialize, Deserialize)]
struct SavedFold {
    format: u32,
    ino: u64,
    /// `tail_hash` of the bytes before the point.
    tail: u64,
    /// `tail_hash` of the point's consumed-id list in `inbox.consumed`.
    consumed_tail: u64,
    point: FoldPoint,
}
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
    /// The fold point this handle's last read ended at, with its consumed
    /// list, so a process that reads the same inbox again and again (`serve`
    /// at every turn boundary) resumes from memory instead of parsing
    /// `inbox.fold`. Believed only while the inbox is the same file with the
    /// same bytes before the point.
    memo: std::sync::Arc<std::sync::Mutex<Option<Memo>>>,
}

#[derive(Debug)]
struct Memo {
    ino: u64,
    tail: u64,
    point: FoldPoint,
}

/// The pending-count cache and what it must match.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
struct State {
    ino: u64,
    size: u64,
    tail: u64,
    pending: usize,
}

/// How an id is already used in an inbox.
enum IdUse {
    Unused,
    /// A message record with this id: its inbox record index (`None`: a
    /// consumed keyed message compaction moved to the archive) and body.
    Message {
        index: Option<usize>,
        target: Target,
        source: Value,
        content: Vec<Value>,
    },
    /// Another record (claim, cancel, interrupt, wait) names it.
    Other {
        index: usize,
    },
}

/// How `id` is used by the records `reader` holds (only lines that mention
/// it are parsed).
fn find_id_in(reader: impl std::io::BufRead, id: &str) -> std::io::Result<IdUse> {
    let needle = serde_json::to_string(id).unwrap_or_default().into_bytes();
    let mut found = IdUse::Unused;
    let mut index = 0usize;
    for_each_line(reader, |line| {
        let InboxLine::Line(l) = line else { return };
        let at = index;
        let mentions = l.windows(needle.len()).any(|w| w == needle.as_slice());
        if !mentions {
            if parse::<serde::de::IgnoredAny>(l).is_some() {
                index += 1;
            }
            return;
        }
        let Some(record) = parse::<Value>(l) else {
            return;
        };
        index += 1;
        if !matches!(found, IdUse::Unused) {
            return;
        }
        found = match record {
            Record::Message {
                id: got,
                target,
                source,
                content,
                ..
            } if got == id => IdUse::Message {
                index: Some(at),
                target,
                source,
                content,
            },
            Record::Message { .. } => IdUse::Unused,
            Record::Interrupt { id: got, .. } if got == id => IdUse::Other { index: at },
            Record::Claim { ids, .. } | Record::Cancel { ids, .. } | Record::Wait { ids, .. }
                if ids.iter().any(|i| i == id) =>
            {
                IdUse::Other { index: at }
            }
            _ => IdUse::Unused,
        };
    })?;
    Ok(found)
}

impl Inbox {
    pub fn new(session_dir: &Path) -> Inbox {
        Inbox {
            dir: session_dir.to_path_buf(),
            memo: Default::default(),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(INBOX)
    }

    /// The inbox lock; what a writer killed mid-replace of a file written
    /// only under it left behind is removed first.
    pub fn lock(&self, timeout: Duration) -> Result<WriteGuard, DeliveryError> {
        let guard = lock::lock(&self.dir, timeout)?;
        guard.dir.remove_leftovers(&[INBOX_STATE, handing::HANDING]);
        Ok(guard)
    }

    /// Whether an interrupt stopped this (external) agent for good.
    pub fn stopped(&self) -> bool {
        Dir::session(&self.dir).is_ok_and(|d| d.exists(STOPPED))
    }

    /// Most sessions never got a message: one `statx` says so, where
    /// opening the session directory safely and failing to open the inbox
    /// in it takes eight calls (`tree` and `check` ask of every session).
    /// Anything found, a link included, is opened the safe way.
    fn surely_absent(&self) -> bool {
        std::fs::symlink_metadata(self.path())
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    }

    fn open_read(&self) -> Result<Option<File>, StoreError> {
        Dir::session(&self.dir)?.open_read(INBOX)
    }

    /// Read and fold without locking; a missing inbox is empty. A large
    /// inbox resumes from `inbox.fold` when it still describes the inbox
    /// (same file, its folded prefix's last 4 KiB unchanged), so a read
    /// costs what the inbox gained since.
    pub fn read(&self) -> Result<Fold, StoreError> {
        self.read_as(false)
    }

    /// `read`, with the bodies of only what a claim can take (all
    /// next-step input, the oldest next-turn message): what a turn boundary
    /// needs, at a cost that does not grow with the queue behind it.
    pub fn read_claimable(&self) -> Result<Fold, StoreError> {
        self.read_as(true)
    }

    fn read_as(&self, claimable_only: bool) -> Result<Fold, StoreError> {
        if self.surely_absent() {
            return Ok(Fold::default());
        }
        let Some(file) = self.open_read()? else {
            return Ok(Fold::default());
        };
        let io = |e| StoreError::io(self.path(), e);
        let meta = file.metadata().map_err(io)?;
        let remembered = self.memo.lock().ok().and_then(|m| {
            m.as_ref()
                .filter(|m| {
                    m.ino == meta.ino()
                        && m.point.offset <= meta.len()
                        && tail_hash(&file, m.point.offset) == Some(m.tail)
                })
                .map(|m| m.point.clone())
        });
        let from_memory = remembered.is_some();
        let saved = match remembered {
            Some(point) => Some(SavedFold {
                format: FOLD_FORMAT,
                ino: meta.ino(),
                tail: 0,
                consumed_tail: 0,
                point,
            }),
            None => self.saved_fold(&file, &meta),
        };
        let base_tail = saved.as_ref().map(|s| s.consumed_tail);
        let from = saved.as_ref().map_or(0, |s| s.point.offset);
        let base_list = saved
            .as_ref()
            .map(|s| s.point.consumed_bytes().to_vec())
            .unwrap_or_default();
        let resumed = saved
            .and_then(|s| Fold::resume_as(BufReader::new(&file), s.point, claimable_only).ok());
        let (fold, next, base_list) = match resumed {
            Some((f, n)) => (f, n, base_list),
            None => {
                let (f, n) =
                    Fold::resume_as(BufReader::new(&file), FoldPoint::default(), claimable_only)
                        .map_err(io)?;
                (f, n, Vec::new())
            }
        };
        self.remember(&file, &meta, next.as_ref(), base_list);
        // A point resumed from memory has no on-disk list to extend.
        let next = next.filter(|_| !from_memory);
        // Only large inboxes get a fold point, and only once it moved on
        // enough to be worth a write.
        if let Some(next) = next
            && next.offset >= FOLD_MIN_BYTES
            && next.offset >= from + FOLD_STEP_BYTES
            && let Some(tail) = tail_hash(&file, next.offset)
        {
            self.save_fold(&meta, tail, base_tail, next);
        }
        Ok(fold)
    }

    /// Keep `next` (whose list is `base_list` plus what it appends) as the
    /// point this handle's next read resumes from.
    fn remember(
        &self,
        file: &File,
        meta: &std::fs::Metadata,
        next: Option<&FoldPoint>,
        mut base_list: Vec<u8>,
    ) {
        let memo = next.and_then(|next| {
            base_list.extend_from_slice(next.appended());
            let point = next.clone().with_consumed(IdList::from_bytes(base_list)?)?;
            Some(Memo {
                ino: meta.ino(),
                tail: tail_hash(file, point.offset)?,
                point,
            })
        });
        if let Ok(mut m) = self.memo.lock() {
            *m = memo;
        }
    }

    /// The saved fold point, with its consumed-id list, when both still
    /// describe this inbox. Read under a shared lock on the list, which a
    /// writer holds exclusively while it appends and replaces the point, so
    /// the two are always of one save.
    fn saved_fold(&self, file: &File, meta: &std::fs::Metadata) -> Option<SavedFold> {
        let dir = Dir::session(&self.dir).ok()?;
        let list_file = dir.open_read(INBOX_CONSUMED).ok()?;
        // A writer holds it for a moment; one that holds it longer (not one
        // of ours) only costs this read its shortcut, never a wait.
        if let Some(f) = &list_file {
            f.try_lock_shared().ok()?;
        }
        let saved = read_capped(&self.dir.join(INBOX_FOLD), FOLD_MAX_BYTES)
            .and_then(|b| serde_json::from_slice::<SavedFold>(&b).ok())
            .filter(|s| {
                s.format == FOLD_FORMAT
                    && s.ino == meta.ino()
                    && s.point.offset <= meta.len()
                    && tail_hash(file, s.point.offset) == Some(s.tail)
            })?;
        let len = saved.point.consumed_len();
        let list = if len == 0 {
            IdList::default()
        } else {
            let f = list_file.as_ref()?;
            if len > FOLD_MAX_BYTES
                || f.metadata().ok()?.len() < len
                || tail_hash(f, len) != Some(saved.consumed_tail)
            {
                return None;
            }
            let mut bytes = vec![0; usize::try_from(len).ok()?];
            f.read_exact_at(&mut bytes, 0).ok()?;
            IdList::from_bytes(bytes)?
        };
        let point = saved.point.with_consumed(list)?;
        Some(SavedFold { point, ..saved })
    }

    /// Save `next`, whose consumed-id list is the list the fold resumed
    /// from (the first `base` bytes of `inbox.consumed`, whose tail hash
    /// was `base_tail`; none after a fold from the start) plus what it
    /// appends. Best effort (a cache): a writer that finds the list busy,
    /// or no longer the one it read, leaves the point as it is.
    fn save_fold(
        &self,
        meta: &std::fs::Metadata,
        tail: u64,
        base_tail: Option<u64>,
        next: FoldPoint,
    ) {
        let save = || -> Option<()> {
            let base = next.consumed_len() - next.appended().len() as u64;
            let dir = Dir::session(&self.dir).ok()?;
            let list = dir.open_rw(INBOX_CONSUMED).ok()?;
            list.try_lock().ok()?;
            if base > 0 && (base_tail.is_none() || tail_hash(&list, base) != base_tail) {
                return None;
            }
            list.set_len(base).ok()?;
            list.write_all_at(next.appended(), base).ok()?;
            let saved = SavedFold {
                format: FOLD_FORMAT,
                ino: meta.ino(),
                tail,
                consumed_tail: tail_hash(&list, next.consumed_len())?,
                point: next,
            };
            dir.replace(INBOX_FOLD, &serde_json::to_vec(&saved).ok()?, false)
                .ok()
        };
        let _ = save();
    }

    /// What the inbox records about one message id (unlocked read).
    /// The message ids this inbox holds that start with `prefix`.
    pub fn ids_with_prefix(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let Some(file) = self.open_read()? else {
            return Ok(Vec::new());
        };
        super::history::ids_with_prefix(BufReader::new(file), prefix)
            .map_err(|e| StoreError::io(self.path(), e))
    }

    pub fn history(&self, id: &str) -> Result<History, StoreError> {
        let Some(file) = self.open_read()? else {
            return Ok(History::default());
        };
        History::read(BufReader::new(file), id).map_err(|e| StoreError::io(self.path(), e))
    }

    /// Whether an interrupt other than `baseline` was recorded since `at`
    /// (the inbox's inode and a length it had; moved on to what was read):
    /// `Some(permanent)` when one was. Only the new bytes are read; an inbox
    /// compacted meanwhile (another inode) is read whole, where compaction
    /// kept the newest interrupt as it was.
    pub fn interrupted_since(
        &self,
        at: &mut Option<(u64, u64)>,
        baseline: Option<&str>,
    ) -> Result<Option<bool>, StoreError> {
        let Some(file) = self.open_read()? else {
            return Ok(None);
        };
        let io = |e| StoreError::io(self.path(), e);
        let meta = file.metadata().map_err(io)?;
        let from = match *at {
            Some((ino, len)) if ino == meta.ino() && len <= meta.len() => len,
            _ => {
                let fold = self.read_claimable()?;
                *at = Some((meta.ino(), meta.len()));
                return Ok((fold.last_interrupt_id.is_some()
                    && fold.last_interrupt_id.as_deref() != baseline)
                    .then_some(fold.stopped));
            }
        };
        let mut f = &file;
        f.seek(SeekFrom::Start(from)).map_err(io)?;
        let mut reader = BufReader::new(f).take_until(meta.len() - from);
        let mut found: Option<bool> = None;
        let read = super::record::for_each_line_at(&mut reader, from, |line, _| {
            if let InboxLine::Line(l) = line
                && let Some(Record::Interrupt { id, permanent, .. }) =
                    parse::<serde::de::IgnoredAny>(l)
                && Some(id.as_str()) != baseline
            {
                found = Some(found.unwrap_or(false) | permanent);
            }
        })
        .map_err(io)?;
        *at = Some((meta.ino(), from + read));
        Ok(found)
    }

    /// The `source` of interrupt record `id` (unlocked read).
    pub fn interrupt_source(&self, id: &str) -> Result<Option<Value>, StoreError> {
        let Some(file) = self.open_read()? else {
            return Ok(None);
        };
        let mut found = None;
        for_each_line(BufReader::new(file), |line| {
            if let InboxLine::Line(l) = line
                && let Some(Record::Interrupt {
                    id: rid, source, ..
                }) = parse::<Value>(l)
                && rid == id
            {
                found = Some(source);
            }
        })
        .map_err(|e| StoreError::io(self.path(), e))?;
        Ok(found)
    }

    /// The pending count without a lock: from the cache when it matches the
    /// inbox, else by counting. A missing inbox holds nothing.
    pub fn pending_now(&self) -> Result<usize, StoreError> {
        if self.surely_absent() {
            return Ok(0);
        }
        let Some(file) = self.open_read()? else {
            return Ok(0);
        };
        self.count(&file)
    }

    /// The pending messages still waiting for their agent: `pending_now`
    /// less those a live bridge has handed to DSH (DSH's own inbox or the
    /// model has them; they are counted there, not twice).
    pub fn waiting_now(&self) -> Result<usize, StoreError> {
        let pending = self.pending_now()?;
        if pending == 0 {
            return Ok(0);
        }
        Ok(pending.saturating_sub(handing::live(&self.dir).len()))
    }

    /// The pending count of `file` (the inbox), from the cache when valid.
    fn count(&self, file: &File) -> Result<usize, StoreError> {
        let path = self.path();
        let meta = file.metadata().map_err(|e| StoreError::io(&path, e))?;
        let key = (meta.ino(), meta.len());
        if let Some(state) = self.read_state()
            && (state.ino, state.size) == key
            && tail_hash(file, key.1) == Some(state.tail)
        {
            return Ok(state.pending);
        }
        let mut f = file.try_clone().map_err(|e| StoreError::io(&path, e))?;
        f.seek(SeekFrom::Start(0))
            .map_err(|e| StoreError::io(&path, e))?;
        count_pending(BufReader::new(f).take_until(key.1)).map_err(|e| StoreError::io(&path, e))
    }

    fn read_state(&self) -> Option<State> {
        serde_json::from_slice(&read_small(&self.dir.join(INBOX_STATE))?).ok()
    }

    /// Replace the cache atomically; it is only a cache, so failure is harmless.
    fn write_state(&self, guard: &WriteGuard, pending: usize) {
        let (Ok(meta), Some(tail)) = (guard.inbox.metadata(), tail_hash(&guard.inbox, guard.len))
        else {
            return;
        };
        let state = State {
            ino: meta.ino(),
            size: guard.len,
            tail,
            pending,
        };
        let bytes = serde_json::to_vec(&state).unwrap_or_default();
        let _ = guard.dir.replace(INBOX_STATE, &bytes, false);
    }

    /// How `id` is used in the inbox under `guard`, reading only the lines
    /// that mention it; a keyed message compaction moved out of the inbox is
    /// found in its archive.
    fn find_id(&self, guard: &WriteGuard, id: &str) -> Result<IdUse, StoreError> {
        // The archive holds the oldest records: a message there came before
        // the claim the inbox may still keep for it.
        if let Some(archive) = super::keyed_archive::reader(guard)? {
            let archived = find_id_in(archive, id)
                .map_err(|e| StoreError::io(guard.dir.join(super::keyed_archive::ARCHIVE), e))?;
            if let IdUse::Message {
                target,
                source,
                content,
                ..
            } = archived
            {
                return Ok(IdUse::Message {
                    index: None,
                    target,
                    source,
                    content,
                });
            }
        }
        find_id_in(guard.reader()?, id).map_err(|e| StoreError::io(self.path(), e))
    }

    /// Deliver one message: admission bound, id uniqueness, append, sync.
    pub fn deliver(&self, message: NewMessage, limits: Limits) -> Result<Receipt, DeliveryError> {
        let source = message.framing.source();
        let content = message.framing.content(message.text);
        // A refusal leaves the store as it was: what can be refused before
        // an inbox exists is refused before the lock would create one.
        if std::fs::symlink_metadata(self.dir.join(INBOX)).is_err() {
            if std::fs::symlink_metadata(self.dir.join(STOPPED)).is_ok() {
                return Err(DeliveryError::Stopped);
            }
            if limits.max_pending == 0 {
                return Err(DeliveryError::InboxFull {
                    pending: 0,
                    limit: 0,
                });
            }
        }
        let mut guard = self.lock(limits.lock_timeout)?;
        if guard.dir.exists(STOPPED) {
            return Err(DeliveryError::Stopped);
        }
        if let Some(id) = &message.id {
            // A new id (the usual case) is told from the key index, and
            // a miss is checked against the keyed archive (compaction's
            // record, which a lying index must not overrule); anything
            // else reads the inbox.
            let used = if super::key_index::surely_absent(&guard, id)
                && !super::keyed_archive::may_hold(&guard, id)?
            {
                IdUse::Unused
            } else {
                self.find_id(&guard, id)?
            };
            match used {
                IdUse::Unused => {}
                IdUse::Message {
                    index,
                    target,
                    source: s,
                    content: c,
                } => {
                    if target == message.target && s == source && c == content {
                        return Ok(Receipt {
                            message_id: id.clone(),
                            duplicate: true,
                        });
                    }
                    return Err(DeliveryError::IdReused {
                        id: id.clone(),
                        record: index.map(|i| i + 1),
                    });
                }
                IdUse::Other { index } => {
                    return Err(DeliveryError::IdTaken {
                        id: id.clone(),
                        record: index + 1,
                    });
                }
            }
        }
        let pending = self.count(&guard.inbox)?;
        if pending >= limits.max_pending {
            return Err(DeliveryError::InboxFull {
                pending,
                limit: limits.max_pending,
            });
        }
        let record = Record::Message {
            id: message.id.clone().unwrap_or_else(new_message_id),
            time: now_ms(),
            target: message.target,
            source,
            content,
            keyed: message.id.is_some(),
        };
        let size = serde_json::to_vec(&record).map_or(0, |v| v.len());
        if size >= MAX_LINE {
            return Err(DeliveryError::TooLarge {
                bytes: size,
                limit: MAX_LINE,
            });
        }
        super::key_index::append(&mut guard, &record)?;
        self.write_state(&guard, pending + 1);
        let Record::Message { id, .. } = record else {
            unreachable!("built as a message above")
        };
        Ok(Receipt {
            message_id: id,
            duplicate: false,
        })
    }

    /// Append a non-message record (claim, cancel, interrupt, wait), keeping
    /// the pending cache in step; after a claim or cancel, compact the inbox
    /// when consumed history dominates it.
    pub fn record(&self, guard: &mut WriteGuard, record: &Record) -> Result<(), StoreError> {
        let before = self.count(&guard.inbox)?;
        super::key_index::append(guard, record)?;
        let consumed = match record {
            Record::Claim { ids, .. } | Record::Cancel { ids, .. } => ids.len(),
            _ => 0,
        };
        let pending = before.saturating_sub(consumed);
        if consumed > 0 && compact::maybe_compact(guard, pending)? {
            let pending = self.count(&guard.inbox)?;
            self.write_state(guard, pending);
            return Ok(());
        }
        self.write_state(guard, pending);
        Ok(())
    }

    /// Withdraw a pending message before delivery: a `cancel` record under
    /// the lock frees its admission room. A claimed, canceled or unknown id
    /// is an error and writes nothing.
    pub fn cancel(&self, id: &str, limits: Limits) -> Result<Message, DeliveryError> {
        // No inbox holds no message: refused without creating one.
        if std::fs::symlink_metadata(self.dir.join(INBOX)).is_err() {
            return Err(DeliveryError::UnknownMessage { id: id.to_string() });
        }
        let mut guard = self.lock(limits.lock_timeout)?;
        let history = self.history(id)?;
        let fold = self.read()?;
        match history.standing(&fold) {
            Standing::Unknown => {
                return Err(DeliveryError::UnknownMessage { id: id.to_string() });
            }
            Standing::Claimed | Standing::Canceled => {
                return Err(DeliveryError::NotPending {
                    id: id.to_string(),
                    claimed: history.claimed.is_some(),
                });
            }
            Standing::Pending { .. } | Standing::Parked => {}
        }
        if self.being_delivered(id) {
            return Err(DeliveryError::BeingDelivered { id: id.to_string() });
        }
        self.record(
            &mut guard,
            &Record::Cancel {
                time: now_ms(),
                ids: vec![id.to_string()],
            },
        )?;
        Ok(history.message.expect("a pending message has its record"))
    }

    /// Whether pending message `id` was handed to DSH: a live bridge lists
    /// it in `inbox.handing`, or the agent's log holds it (in the
    /// transcript, queued in DSH's own inbox, or taken into a step not yet
    /// written). One the log shows dropped unrun can still be withdrawn.
    /// Read under the inbox lock, which a bridge takes before it hands a
    /// message on.
    fn being_delivered(&self, id: &str) -> bool {
        let listed = handing::live(&self.dir).iter().any(|h| h == id);
        listed
            || log_in(&self.dir)
                .and_then(|log| LogMessages::read(&log).ok())
                .is_some_and(|m| !matches!(m.state(id), InLog::Absent | InLog::Dropped { .. }))
    }

    /// Record an interrupt request; a permanent one also leaves the stop marker.
    pub fn interrupt(
        &self,
        cause: &InterruptCause,
        permanent: bool,
        limits: Limits,
    ) -> Result<String, DeliveryError> {
        let id = new_message_id();
        self.interrupt_once(&id, cause, permanent, limits)?;
        Ok(id)
    }

    /// Record interrupt request `id` unless this inbox already holds it
    /// (looked for under the lock): an interrupt that comes again — a
    /// fleet mail handed out twice — is applied once. True when written.
    pub fn interrupt_once(
        &self,
        id: &str,
        cause: &InterruptCause,
        permanent: bool,
        limits: Limits,
    ) -> Result<bool, DeliveryError> {
        let mut guard = self.lock(limits.lock_timeout)?;
        if self.interrupt_source(id)?.is_some() {
            return Ok(false);
        }
        let id = id.to_string();
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
            guard.dir.open_rw(STOPPED)?;
        }
        Ok(true)
    }
}

/// Read no further than a length fixed under the lock.
trait TakeUntil: Sized {
    fn take_until(self, len: u64) -> std::io::Take<Self>;
}

impl<R: std::io::Read> TakeUntil for R {
    fn take_until(self, len: u64) -> std::io::Take<Self> {
        self.take(len)
    }
}
