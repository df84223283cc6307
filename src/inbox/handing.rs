//! `inbox.handing`: the ids a bridge has handed (or is about to hand) to
//! DSH for this agent and not yet seen in the agent's log as delivered. The
//! holder of the agent's `live.lock` rewrites it under the inbox lock, so
//! `cancel`, which reads it under the same lock, never withdraws a message
//! DSH may already be running. The list means something only while its
//! writer holds `live.lock`: a dead bridge's list is stale, and the next
//! holder rewrites it.

use super::lock::WriteGuard;
use dsh_store::StoreError;
use dsh_store::files::{Dir, read_capped};
use std::path::Path;

pub const HANDING: &str = "inbox.handing";

/// The list is small (messages in flight); a larger file is not ours.
const CAP: u64 = 16 << 20;

/// Replace the list (an empty list removes the file).
pub fn write(guard: &WriteGuard, ids: &[&str]) -> Result<(), StoreError> {
    write_in(&guard.dir, ids)
}

fn write_in(dir: &Dir, ids: &[&str]) -> Result<(), StoreError> {
    if ids.is_empty() {
        dir.remove(HANDING);
        return Ok(());
    }
    let bytes = serde_json::to_vec(ids).unwrap_or_default();
    dir.replace(HANDING, &bytes, false)
}

/// The ids listed in the session directory `dir` (none when unreadable).
pub fn read(dir: &Path) -> Vec<String> {
    read_capped(&dir.join(HANDING), CAP)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The ids listed while a bridge holds the agent (a dead bridge's list is
/// stale, and so is one `serve` found when it took the agent: none).
pub fn live(dir: &Path) -> Vec<String> {
    if !super::liveness::held_by_bridge(dir) {
        return Vec::new();
    }
    read(dir)
}
