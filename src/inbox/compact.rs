//! Compaction: when consumed history dominates an inbox, rewrite it under
//! its lock, atomically (a temporary file renamed over it), keeping what
//! answers still depend on: pending messages (consumed messages that carry
//! a caller-chosen id move to `inbox.keyed.jsonl` first, so a retried send
//! stays a duplicate), the ids of the newest claim (a `serve`
//! killed mid-turn reruns that claim's input from its log, and must still
//! find it claimed), wait records reduced to still-pending ids,
//! and the newest interrupt where it stands (so its id, which a bridge or
//! `serve` compares, and whether it parks the queue never change), plus a
//! permanent one that stopped the agent. Readers holding the old file keep
//! reading a complete inbox.

use super::lock::{INBOX, WriteGuard};
use super::record::{InboxLine, Record, for_each_line, parse};
use crate::support::clock::now_ms;
use dsh_store::StoreError;
use serde::de::IgnoredAny;
use std::collections::{HashMap, HashSet};
use std::io::{BufWriter, Write};

/// Where the last survey that did not compact left off: (inode, length,
/// pending messages then).
pub const SURVEYED: &str = "inbox.surveyed";

/// Inboxes smaller than this are left alone.
pub const COMPACT_MIN_BYTES: u64 = 256 * 1024;

#[derive(Default)]
struct Survey {
    claimed: HashSet<String>,
    canceled: HashSet<String>,
    /// Message lines: (id, keyed, bytes), in order.
    messages: Vec<(String, bool, u64)>,
    last_interrupt: Option<usize>,
    last_message: Option<usize>,
    /// The ids of the newest claim record.
    last_claim: HashSet<String>,
    permanent: bool,
    records: usize,
}

/// Compact the inbox under `guard` when it is large and mostly consumed
/// history; returns whether it did.
/// `pending`: the messages still pending after the record just appended.
pub fn maybe_compact(guard: &mut WriteGuard, pending_now: usize) -> Result<bool, StoreError> {
    if guard.len < COMPACT_MIN_BYTES {
        return Ok(false);
    }
    // A survey that found too little history is not repeated until the
    // inbox grew by a quarter or half of what was pending then has been
    // consumed (a queue drained after a burst): compaction changes no
    // answer, so waiting for it is safe, and a claim stays O(new bytes).
    use std::os::unix::fs::MetadataExt;
    let ino = guard.inbox.metadata().map(|m| m.ino()).unwrap_or(0);
    let surveyed = dsh_store::files::read_small(&guard.dir.join(SURVEYED))
        .and_then(|b| serde_json::from_slice::<(u64, u64, usize)>(&b).ok());
    if let Some((at_ino, at_len, at_pending)) = surveyed
        && at_ino == ino
        && guard.len < at_len + at_len / 4
        && pending_now > at_pending / 2
    {
        return Ok(false);
    }
    let path = guard.dir.join(INBOX);
    let io = |e| StoreError::io(&path, e);
    let mut s = Survey::default();
    for_each_line(guard.reader()?, |line| {
        let InboxLine::Line(l) = line else { return };
        let Some(r) = parse::<IgnoredAny>(l) else {
            return;
        };
        let at = s.records;
        s.records += 1;
        match r {
            Record::Message { id, keyed, .. } => {
                s.last_message = Some(at);
                s.messages.push((id, keyed, l.len() as u64 + 1));
            }
            Record::Claim { ids, .. } => {
                s.last_claim = ids.iter().cloned().collect();
                s.claimed.extend(ids);
            }
            Record::Cancel { ids, .. } => s.canceled.extend(ids),
            Record::Interrupt { permanent, .. } => {
                s.last_interrupt = Some(at);
                s.permanent |= permanent;
            }
            Record::Wait { .. } => {}
        }
    })
    .map_err(io)?;
    let pending = |id: &str| !s.claimed.contains(id) && !s.canceled.contains(id);
    // Consumed keyed messages leave for the archive (`keyed_archive`).
    let kept = |id: &str, _keyed: bool| pending(id);
    let live: u64 = s
        .messages
        .iter()
        .filter(|(id, keyed, _)| kept(id, *keyed))
        .map(|(_, _, n)| n)
        .sum();
    // Compact only when at least three quarters of the bytes are history.
    if live.saturating_mul(4) > guard.len {
        let note = serde_json::to_vec(&(ino, guard.len, pending_now)).unwrap_or_default();
        let _ = guard.dir.replace(SURVEYED, &note, false);
        return Ok(false);
    }
    let parked = match (s.last_interrupt, s.last_message) {
        (Some(i), Some(m)) => i > m,
        (Some(_), None) => true,
        _ => false,
    };
    let (file, tmp) = guard.dir.temp_file(INBOX)?;
    let mut out = BufWriter::new(file);
    let mut written: std::io::Result<()> = Ok(());
    let mut put = |line: &[u8], out: &mut BufWriter<std::fs::File>| {
        if written.is_ok() {
            written = out.write_all(line).and_then(|()| out.write_all(b"\n"));
        }
    };
    let mut archived: Vec<Vec<u8>> = Vec::new();
    let mut kept_claimed = Vec::new();
    let mut kept_canceled = Vec::new();
    let mut waits: HashMap<String, Vec<String>> = HashMap::new();
    let mut permanent_line: Option<Vec<u8>> = None;
    // The newest interrupt, waiting to be written just before the next kept
    // message (it does not park) or at the end (it parks).
    let mut newest_interrupt: Option<Vec<u8>> = None;
    let mut at = 0usize;
    for_each_line(guard.reader()?, |line| {
        let InboxLine::Line(l) = line else { return };
        let Some(r) = parse::<IgnoredAny>(l) else {
            return;
        };
        let index = at;
        at += 1;
        match r {
            Record::Message { id, keyed, .. } => {
                // A message after a non-parking newest interrupt keeps it
                // non-parking: the newest message is kept for that when no
                // other message after the interrupt is.
                let anchor = newest_interrupt.is_some() && Some(index) == s.last_message;
                if kept(&id, keyed) || anchor {
                    if let Some(i) = newest_interrupt.take() {
                        put(&i, &mut out);
                    }
                    put(l, &mut out);
                    if !pending(&id) {
                        if s.claimed.contains(&id) {
                            kept_claimed.push(id);
                        } else {
                            kept_canceled.push(id);
                        }
                    }
                } else if keyed {
                    archived.push(l.to_vec());
                }
            }
            Record::Wait { call, ids, .. } => {
                let still: Vec<String> = ids.into_iter().filter(|i| pending(i)).collect();
                if !still.is_empty() {
                    waits.entry(call).or_default().extend(still);
                }
            }
            Record::Interrupt { permanent, .. } => {
                if permanent {
                    permanent_line = Some(l.to_vec());
                }
                if Some(index) == s.last_interrupt {
                    newest_interrupt = Some(l.to_vec());
                }
            }
            Record::Claim { .. } | Record::Cancel { .. } => {}
        }
    })
    .map_err(io)?;
    let time = now_ms();
    let mut tail: Vec<Record> = Vec::new();
    let already: HashSet<&String> = kept_claimed.iter().collect();
    let mut newest_claim: Vec<String> = s
        .last_claim
        .iter()
        .filter(|id| !already.contains(id))
        .cloned()
        .collect();
    newest_claim.sort();
    if !newest_claim.is_empty() {
        tail.push(Record::Claim {
            time,
            ids: newest_claim,
        });
    }
    if !kept_claimed.is_empty() {
        tail.push(Record::Claim {
            time,
            ids: kept_claimed,
        });
    }
    if !kept_canceled.is_empty() {
        tail.push(Record::Cancel {
            time,
            ids: kept_canceled,
        });
    }
    let mut calls: Vec<_> = waits.into_iter().collect();
    calls.sort();
    for (call, mut ids) in calls {
        ids.sort();
        ids.dedup();
        tail.push(Record::Wait { time, call, ids });
    }
    for record in &tail {
        put(&serde_json::to_vec(record).unwrap_or_default(), &mut out);
    }
    // What stays newer than every message goes last: a permanent interrupt
    // (the agent stopped) unless it is the newest, then the newest if it parks.
    if s.permanent
        && let Some(line) = &permanent_line
        && Some(line) != newest_interrupt.as_ref()
    {
        put(line, &mut out);
    }
    if parked && let Some(line) = &newest_interrupt {
        put(line, &mut out);
    }
    written.map_err(io)?;
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    // The keyed history is durable in the archive before the inbox that no
    // longer holds it replaces the one that does.
    super::keyed_archive::append(guard, &archived)?;
    guard.dir.commit_temp(file, &tmp, INBOX)?;
    guard.inbox = guard.dir.open_rw(INBOX)?;
    guard.len = guard.inbox.metadata().map_err(io)?.len();
    Ok(true)
}
