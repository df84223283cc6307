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
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Each session's row on this host as `tree --json` says it now, by key;
/// `None` when the store cannot be read.
pub fn read(store: &Path, host: &str) -> Option<BTreeMap<String, Value>> {
    let view = crate::operator::tree_watch::TreeView {
        agent: None,
        all: true,
        usage: true,
        filter: Default::default(),
        json: true,
        width: None,
        now: 0,
    };
    let trees: Value = serde_json::from_str(&view.frame(store).ok()?).ok()?;
    let mut rows = BTreeMap::new();
    for tree in trees.as_array()? {
        let root = tree["root"].clone();
        for member in tree["members"].as_array().into_iter().flatten() {
            let Some(id) = member["id"].as_str() else {
                continue;
            };
            let mut row = member.clone();
            row["root"] = root.clone();
            row["host"] = Value::from(host);
            rows.insert(row_key(host, id), row);
        }
    }
    Some(rows)
}

/// The rows when the store says it changed: blocks until a read is due.
fn next_read(
    store: PathBuf,
    host: String,
    mut watch: StoreWatch,
    mut refresh: Refresh,
) -> (Option<BTreeMap<String, Value>>, StoreWatch, Refresh) {
    while refresh.due(Instant::now()).is_none() {
        if watch.wait(TICK) {
            refresh.changed();
        }
    }
    refresh.reading();
    let started = Instant::now();
    watch.begin_all(&store);
    let rows = read(&store, &host);
    refresh.read(started, started.elapsed(), watch.complete());
    (rows, watch, refresh)
}

/// Write this host's rows to the bucket as they change.
pub async fn publish(js: &Context, host: &str, store: &Path) -> Result<(), FleetError> {
    let kv = js
        .get_key_value(ROWS_BUCKET)
        .await
        .map_err(|e| FleetError::hub("find the rows bucket (run `fleet init`)", e))?;
    let mut written: HashMap<String, Value> = HashMap::new();
    let (mut watch, mut refresh) = (StoreWatch::new(), Refresh::new());
    loop {
        let (root, name) = (store.to_path_buf(), host.to_string());
        let (rows, w, r) =
            tokio::task::spawn_blocking(move || next_read(root, name, watch, refresh))
                .await
                .map_err(|e| FleetError::hub("read the store's rows", e))?;
        (watch, refresh) = (w, r);
        let Some(rows) = rows else {
            continue;
        };
        for (key, row) in &rows {
            if written.get(key) == Some(row) {
                continue;
            }
            let mut stamped = row.clone();
            stamped["updatedAt"] = Value::from(now_ms());
            let bytes = serde_json::to_vec(&stamped).unwrap_or_default();
            kv.put(key.as_str(), bytes.into())
                .await
                .map_err(|e| FleetError::hub("write a session row", e))?;
            written.insert(key.clone(), row.clone());
        }
        let gone: Vec<String> = written
            .keys()
            .filter(|k| !rows.contains_key(*k))
            .cloned()
            .collect();
        for key in gone {
            kv.delete(key.as_str())
                .await
                .map_err(|e| FleetError::hub("delete a session row", e))?;
            written.remove(&key);
        }
    }
}

/// How long the mirror gathers row changes before it writes the files.
const GATHER: Duration = Duration::from_millis(100);

/// Keep `.fleet/rows-HOST.json` as the bucket holds each host's rows.
pub async fn mirror(js: &Context, local: &Local) -> Result<(), FleetError> {
    let kv = js
        .get_key_value(ROWS_BUCKET)
        .await
        .map_err(|e| FleetError::hub("find the rows bucket (run `fleet init`)", e))?;
    let mut entries = kv
        .watch_all()
        .await
        .map_err(|e| FleetError::hub("watch the rows bucket", e))?;
    let mut hosts: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
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
            let rows = hosts.entry(host.clone()).or_default();
            match entry.operation {
                jetstream::kv::Operation::Put => {
                    if let Ok(row) = serde_json::from_slice::<Value>(&entry.value) {
                        rows.insert(entry.key.clone(), row);
                    }
                }
                _ => {
                    rows.remove(&entry.key);
                }
            }
            if !dirty.contains(&host) {
                dirty.push(host);
            }
            match tokio::time::timeout(GATHER, entries.next()).await {
                Ok(more) => next = more,
                Err(_) => break,
            }
        }
        for host in dirty {
            let rows: Vec<&Value> = hosts
                .get(&host)
                .into_iter()
                .flat_map(|r| r.values())
                .collect();
            local.set_rows(&host, &rows)?;
        }
    }
}
