//! The fleet's one tree: each host's daemon writes its own session rows to
//! the hub's rows bucket — a `tree --json` member with its tree's root, its
//! host and when it was written — only when a row changed (read when the
//! store says it changed, on the live views' schedule), and deletes the
//! rows of sessions gone; and it mirrors every host's rows into
//! `.fleet/rows-HOST.json` files, which `tree --fleet` reads (no command but the
//! daemon speaks NATS).
//!
//! Invariant: a row in the bucket is what `tree --json` said of the session
//! on its host when it was last written; a store that cannot be read
//! leaves the rows as they were, never deletes them.

use super::error::FleetError;
use super::local::Local;
use super::mail::{ROWS_BUCKET, row_key};
use crate::operator::store_watch::StoreWatch;
use crate::support::clock::now_ms;
use crate::support::refresh::{Refresh, TICK};
use async_nats::jetstream::{self, context::Context};
use futures_util::StreamExt;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

/// Each session's row on this host as `tree --json` says it now, handed to
/// `each` with its key a row at a time; `false` when the store cannot be
/// read (what was handed over before is still true of the store).
pub fn read_each(store: &Path, host: &str, each: &mut dyn FnMut(String, Value)) -> bool {
    let view = crate::operator::tree_watch::TreeView {
        agent: None,
        all: true,
        usage: true,
        filter: Default::default(),
        json: true,
        width: None,
        now: 0,
    };
    view.members(store, &mut |root, mut row| {
        let Some(key) = row["id"].as_str().map(|id| row_key(host, id)) else {
            return;
        };
        row["root"] = Value::from(root);
        row["host"] = Value::from(host);
        each(key, row);
    })
    .is_ok()
}

/// Every row of this host at once, by key; `None` when the store cannot be
/// read (for the commands that show this host's rows beside the others').
pub fn read(store: &Path, host: &str) -> Option<BTreeMap<String, Value>> {
    let mut rows = BTreeMap::new();
    read_each(store, host, &mut |key, row| {
        rows.insert(key, row);
    })
    .then_some(rows)
}

/// What the bucket is told.
enum Change {
    /// A row's bytes, stamped with when they were written.
    Put(String, Vec<u8>),
    Delete(String),
}

/// A row as it was last handed to the bucket: its bytes' hash, and the
/// read that last saw its session.
struct Written {
    hash: u64,
    seen: u64,
}

fn hash_of(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = std::hash::DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// Read the store whenever it says it changed and hand each row that
/// differs from the one last handed over (and each session gone) to `tx`,
/// a row at a time: at 100,000 sessions what is held is a hash a row, not
/// the rows. Ends when the receiving side is gone.
fn read_changes(store: &Path, host: &str, tx: &tokio::sync::mpsc::Sender<Change>) {
    let mut written: HashMap<String, Written> = HashMap::new();
    let (mut watch, mut refresh) = (StoreWatch::new(), Refresh::new());
    let mut reads: u64 = 0;
    loop {
        while refresh.due(Instant::now()).is_none() {
            if tx.is_closed() {
                return;
            }
            if watch.wait(TICK) {
                refresh.changed();
            }
        }
        refresh.reading();
        let started = Instant::now();
        watch.begin_all(store);
        reads = reads.saturating_add(1);
        let mut open = true;
        let read = read_each(store, host, &mut |key, row| {
            let hash = hash_of(&serde_json::to_vec(&row).unwrap_or_default());
            match written.get_mut(&key) {
                Some(w) if w.hash == hash => w.seen = reads,
                _ => {
                    let mut stamped = row;
                    stamped["updatedAt"] = Value::from(now_ms());
                    let bytes = serde_json::to_vec(&stamped).unwrap_or_default();
                    open = open && tx.blocking_send(Change::Put(key.clone(), bytes)).is_ok();
                    written.insert(key, Written { hash, seen: reads });
                }
            }
        });
        refresh.read(started, started.elapsed(), watch.complete());
        if read {
            // A store that could not be read leaves its rows as they were.
            let gone: Vec<String> = written
                .iter()
                .filter(|(_, w)| w.seen != reads)
                .map(|(k, _)| k.clone())
                .collect();
            for key in gone {
                written.remove(&key);
                open = open && tx.blocking_send(Change::Delete(key)).is_ok();
            }
        }
        if !open {
            return;
        }
    }
}

/// The most changes written to the bucket before their answers are awaited.
const WRITE_BATCH: usize = 64;

/// Write this host's rows to the bucket as they change: a thread reads
/// the store, this writes a batch of changes at a time, all sent before
/// any answer is awaited. A failed write ends it (the daemon starts it
/// again, which writes every row anew).
pub async fn publish(js: &Context, host: &str, store: &Path) -> Result<(), FleetError> {
    let kv = js
        .get_key_value(ROWS_BUCKET)
        .await
        .map_err(|e| FleetError::hub("find the rows bucket (run `fleet init`)", e))?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Change>(4 * WRITE_BATCH);
    let (root, name) = (store.to_path_buf(), host.to_string());
    std::thread::spawn(move || read_changes(&root, &name, &tx));
    let mut batch: Vec<Change> = Vec::with_capacity(WRITE_BATCH);
    let mut carried: Option<Change> = None;
    loop {
        let first = match carried.take() {
            Some(c) => c,
            None => rx
                .recv()
                .await
                .ok_or_else(|| FleetError::hub("read the store's rows", "the reader ended"))?,
        };
        batch.push(first);
        // A key twice in one batch would race itself: the second waits.
        let mut keys: std::collections::HashSet<String> =
            batch.iter().map(|c| key_of(c).to_string()).collect();
        while batch.len() < WRITE_BATCH {
            let Ok(next) = rx.try_recv() else {
                break;
            };
            if !keys.insert(key_of(&next).to_string()) {
                carried = Some(next);
                break;
            }
            batch.push(next);
        }
        let writes = batch.drain(..).map(|change| {
            let kv = &kv;
            async move {
                match change {
                    Change::Put(key, bytes) => kv
                        .put(key.as_str(), bytes.into())
                        .await
                        .map(|_| ())
                        .map_err(|e| FleetError::hub("write a session row", e)),
                    Change::Delete(key) => kv
                        .delete(key.as_str())
                        .await
                        .map_err(|e| FleetError::hub("delete a session row", e)),
                }
            }
        });
        futures_util::future::try_join_all(writes).await?;
    }
}

fn key_of(change: &Change) -> &str {
    match change {
        Change::Put(key, _) | Change::Delete(key) => key,
    }
}

/// How long the mirror gathers row changes before it writes the files.
const GATHER: Duration = Duration::from_millis(100);

/// Keep `.fleet/rows-HOST.json` as the bucket holds each other host's rows
/// (this host's, `me`'s, are its store: every view reads them there).
pub async fn mirror(js: &Context, local: &Local, me: &str) -> Result<(), FleetError> {
    let kv = js
        .get_key_value(ROWS_BUCKET)
        .await
        .map_err(|e| FleetError::hub("find the rows bucket (run `fleet init`)", e))?;
    // Every row the bucket holds first, then each change: `watch_all` starts
    // at the changes only, so a daemon started (or restarted) after a host
    // wrote its rows would mirror only the rows that changed since, and
    // rewrite that host's file with them.
    let mut entries = kv
        .watch_with_history(">")
        .await
        .map_err(|e| FleetError::hub("watch the rows bucket", e))?;
    // Each host's rows as the bucket holds them: their bytes, checked to be
    // JSON, not parsed values (a host of 100,000 rows is its bytes here).
    let mut hosts: BTreeMap<String, BTreeMap<String, Vec<u8>>> = BTreeMap::new();
    loop {
        let mut dirty: Vec<String> = Vec::new();
        // One entry, then every one that follows within GATHER.
        let mut next = entries.next().await;
        loop {
            let Some(entry) = next else {
                return Err(FleetError::hub("watch the rows bucket", "the watch ended"));
            };
            let entry = entry.map_err(|e| FleetError::hub("watch the rows bucket", e))?;
            let host = entry.key.split('.').next().unwrap_or("").to_string();
            if host != me {
                let rows = hosts.entry(host.clone()).or_default();
                match entry.operation {
                    jetstream::kv::Operation::Put => {
                        if serde_json::from_slice::<serde::de::IgnoredAny>(&entry.value).is_ok() {
                            rows.insert(entry.key.clone(), entry.value.to_vec());
                        }
                    }
                    _ => {
                        rows.remove(&entry.key);
                    }
                }
                if !dirty.contains(&host) {
                    dirty.push(host);
                }
            }
            match tokio::time::timeout(GATHER, entries.next()).await {
                Ok(more) => next = more,
                Err(_) => break,
            }
        }
        for host in dirty {
            let rows: Vec<&[u8]> = hosts
                .get(&host)
                .into_iter()
                .flat_map(|r| r.values().map(Vec::as_slice))
                .collect();
            local.set_rows(&host, &rows)?;
        }
    }
}
