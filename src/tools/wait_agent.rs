//! `wait_agent` (seed 001): wait for the caller's own next-step inbox. It
//! returns at once when a pending next-step id was not yet reported under
//! the same root call, else blocks until one arrives or the timeout passes.
//! Next-turn input and status changes never end it; it consumes nothing.

use super::{Context, Outcome};
use crate::error::{Error, Result};
use crate::inbox::record::Record;
use crate::inbox::watch::{Watcher, stamp};
use crate::inbox::{Inbox, Limits, Target};
use crate::support::clock::now_ms;
use crate::support::signals;
use std::path::Path;
use std::time::{Duration, Instant};

pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
pub const MIN_TIMEOUT_MS: u64 = 10_000;
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// Validate `timeout_ms` as the tool runtime would.
pub fn check_timeout(value: Option<&serde_json::Value>) -> Result<u64> {
    let Some(v) = value else {
        return Ok(DEFAULT_TIMEOUT_MS);
    };
    let int = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| f as u64)
    });
    match (v.is_number(), int) {
        (true, Some(n)) if (MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&n) => Ok(n),
        (true, _) if v.as_f64().is_some_and(|f| f.fract() == 0.0) => Err(range_error()),
        _ => Err(Error::tool(
            "invalid arguments: \"timeout_ms\" must be an integer",
        )),
    }
}

fn range_error() -> Error {
    Error::tool(format!(
        "invalid arguments: \"timeout_ms\" must be an integer from {MIN_TIMEOUT_MS} through {MAX_TIMEOUT_MS}"
    ))
}

/// The tool: wait on the caller's own inbox.
pub fn wait_agent(
    cx: &Context,
    timeout_ms: u64,
    call: Option<&str>,
    poll: bool,
) -> Result<Outcome> {
    let dir = &cx.corpus.record(cx.caller_index()?).dir();
    signals::install();
    let timed_out = wait(dir, timeout_ms, call, poll, cx.limits)?;
    Ok(Outcome::Waited { timed_out })
}

/// Wait on the inbox in `session_dir`; `Ok(true)` is a timeout.
fn wait(
    session_dir: &Path,
    timeout_ms: u64,
    call: Option<&str>,
    poll: bool,
    limits: Limits,
) -> Result<bool> {
    if !(MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&timeout_ms) {
        return Err(range_error());
    }
    let deadline = Instant::now() + Duration::from_millis(timeout_ms);
    let inbox = Inbox::new(session_dir);
    // Input already there is reported without subscribing: an inotify
    // instance costs a kernel grace period when the process exits.
    if report_new(&inbox, call, limits)? {
        return Ok(false);
    }
    // Subscribe, then check again: nothing that arrives in between can be
    // missed.
    let watcher = Watcher::new(session_dir, poll);
    let mut seen = None;
    loop {
        let now = stamp(&inbox.path());
        if now != seen || now.is_none() {
            seen = now;
            if report_new(&inbox, call, limits)? {
                return Ok(false);
            }
        }
        if signals::stop_requested() {
            return Err(Error::tool("wait_agent was cancelled"));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(true);
        }
        watcher.wait(deadline - now);
    }
}

/// Whether next-step input holds an id not yet reported under `call`; if so
/// (and a call is named) record what this wait reported. With a call, the
/// decision is made again under the inbox lock with the record: two waits
/// of one call that race never both report the same id.
fn report_new(inbox: &Inbox, call: Option<&str>, limits: Limits) -> Result<bool> {
    let fresh = |fold: &crate::inbox::fold::Fold| -> Vec<String> {
        let reported = call.and_then(|c| fold.waits.get(c));
        // A wait record holds only what dedupe needs: the ids newly reported.
        fold.pending(Target::NextStep)
            .into_iter()
            .map(|m| m.id.clone())
            .filter(|id| reported.is_none_or(|r| !r.contains(id)))
            .collect()
    };
    // An unlocked look first: most wakes find nothing new.
    if fresh(&inbox.read()?).is_empty() {
        return Ok(false);
    }
    let Some(call) = call else {
        return Ok(true);
    };
    let mut guard = inbox.lock(limits.lock_timeout)?;
    let ids = fresh(&inbox.read()?);
    if ids.is_empty() {
        return Ok(false);
    }
    inbox.record(
        &mut guard,
        &Record::Wait {
            time: now_ms(),
            call: call.to_string(),
            ids,
        },
    )?;
    Ok(true)
}
