//! `bridge`: the companion of one DSH process (its plugin starts it and
//! restarts it), so a DSH agent is a live member like a served one. It
//! speaks one JSON object per line: requests on stdin, replies and events on
//! stdout (the protocol is in `bridge_protocol`).
//!
//! Ownership: it holds `live.lock` (with the writer locks) for every agent
//! the DSH process holds, keeps `live.json` current, and answers a "hold"
//! (DSH is about to resume a stored session) only once it holds the lock,
//! so no other writer can share the log. The session directory is always
//! found from the agent id inside the store, never taken from the request.
//!
//! Delivery, exactly once: a claimable message is listed in
//! `inbox.handing` (under the inbox lock, so `cancel` sees it) and emitted;
//! the plugin's `delivered` only means DSH accepted it. The claim is written
//! once the agent's log shows the message in a `user/message` (the model
//! sees it). Before anything is emitted the log is asked: a message already
//! in the transcript is claimed, one pending in DSH's own inbox is left to
//! DSH (it replays it), and only one found nowhere is handed (again). So a
//! DSH process killed at any point loses nothing and duplicates nothing.
//!
//! Deliveries go only to agents DSH has created (`created`), or through a
//! created parent to its cold child (rc.8 resumes a child only for its live
//! direct parent); a failed delivery is retried with backoff and what was
//! locked for it is let go. A store error is reported and ridden out: only
//! a closed stdin or stdout ends the bridge, which then releases every lock.

use super::bridge_protocol::{Input, MAX_REQUEST, Refusal, Request, read_requests, reply};
use super::transcript::Transcript;
use crate::error::{Error, Result};
use crate::inbox::fold::Fold;
use crate::inbox::handing;
use crate::inbox::liveness::{LiveLock, LiveState};
use crate::inbox::record::{Message, Record};
use crate::inbox::watch::{DirWatch, stamp};
use crate::inbox::{Inbox, Limits};
use crate::support::clock::now_ms;
use dsh_store::accel::Stamps;
use dsh_store::files::encode_segment;
use dsh_store::log::{InLog, LogMessages, log_in};
use dsh_store::set::Ancestry;
use dsh_store::{self as store, Plan};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// How often held inboxes are looked at when no change was notified.
const TICK: Duration = Duration::from_millis(250);
/// How often the store is rescanned for the children of held agents.
const RESCAN: Duration = Duration::from_millis(1000);
/// A failed delivery waits this long, doubled each time, up to `BACKOFF_MAX`.
const BACKOFF: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// A resident agent whose session directory has not appeared this long
/// after DSH announced it is said on DSH's stderr (a wrong store).
const MISSING: Duration = Duration::from_secs(10);

/// A file's inode, length and modification time (`watch::stamp`).
type FileStamp = (u64, u64, i64, i64);

/// An agent this bridge holds for its DSH process.
struct Held {
    /// The session directory, once it exists.
    dir: Option<PathBuf>,
    lock: Option<LiveLock>,
    state: LiveState,
    turn: u64,
    /// The newest interrupt already handed on (or there before we held it).
    seen_interrupt: Option<String>,
    /// DSH created it (it is registered and can take deliveries).
    resident: bool,
    /// A cold child held only for a delivery through this parent.
    via: Option<String>,
    /// Its inotify watch.
    watch: Option<i32>,
    /// When it was first held.
    since: Instant,
}

/// Where a message emitted for delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flight {
    /// `deliver` sent; DSH has not answered.
    Emitted,
    /// DSH accepted it (or its own inbox holds it): waiting for the log.
    Handed,
}

/// Why a message is handed to a DSH process that may have seen it: the
/// plugin hands a message to rc.8 once per process and answers a repeat
/// from its own record, unless the repeat says what makes it new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Again {
    /// No new fact: a process that took it already answers from its record.
    Plain,
    /// The last hand-off threw and the log does not show DSH took it.
    Failed,
    /// The log proves it was dropped unrun at the splice of this seq.
    Drop(u64),
}

impl Again {
    fn to_json(self) -> Value {
        match self {
            Again::Plain => Value::Null,
            Again::Failed => json!("failed"),
            Again::Drop(seq) => json!({"drop": seq}),
        }
    }
}

pub struct Bridge {
    root: PathBuf,
    limits: Limits,
    held: HashMap<String, Held>,
    /// Per agent, the messages in flight.
    flights: HashMap<String, BTreeMap<String, Flight>>,
    /// Failed deliveries: (agent, id) -> (not before, failures so far).
    retry: HashMap<(String, String), (Instant, u32)>,
    /// What each log holds, kept while the log is unchanged.
    logs: HashMap<PathBuf, (Option<FileStamp>, Arc<LogMessages>)>,
    /// `parent id -> (child id, session dir)`, from the last store scan.
    children: HashMap<String, Vec<(String, PathBuf)>>,
    child_watches: HashMap<PathBuf, i32>,
    scanned: Option<Instant>,
    /// What the last scan saw, to tell whether the next one can be skipped.
    stamps: Option<Stamps>,
    watch: Arc<DirWatch>,
    out: Box<dyn Write>,
    /// Standard output is gone: nobody hears us any more.
    closed: bool,
    /// Problems already said on stderr (each once).
    said: std::collections::HashSet<String>,
    /// Where the protocol is traced (`DSH_AGENTS_BRIDGE_TRACE`).
    trace_file: Option<std::fs::File>,
}

/// Say `what` where the person running DSH looks: the bridge's stderr is
/// DSH's own.
fn report(what: std::fmt::Arguments) {
    eprintln!("dsh-agents bridge: {what}");
}

impl Bridge {
    pub fn new(root: &Path, limits: Limits, out: Box<dyn Write>) -> Bridge {
        Bridge {
            root: root.to_path_buf(),
            limits,
            held: HashMap::new(),
            flights: HashMap::new(),
            retry: HashMap::new(),
            logs: HashMap::new(),
            children: HashMap::new(),
            child_watches: HashMap::new(),
            scanned: None,
            stamps: None,
            watch: Arc::new(DirWatch::new()),
            out,
            closed: false,
            said: std::collections::HashSet::new(),
            trace_file: std::env::var_os("DSH_AGENTS_BRIDGE_TRACE").and_then(|p| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .ok()
            }),
        }
    }

    fn send(&mut self, v: Value) {
        if self.closed {
            return;
        }
        self.trace(">", &v.to_string());
        if writeln!(self.out, "{v}")
            .and_then(|()| self.out.flush())
            .is_err()
        {
            self.closed = true;
        }
    }

    /// With `DSH_AGENTS_BRIDGE_TRACE=FILE`, every line the bridge reads
    /// (`<`) and writes (`>`) is appended to FILE with the time: what an
    /// operator needs to see why a message went where it went.
    fn trace(&mut self, way: &str, line: &str) {
        if let Some(f) = &mut self.trace_file {
            let _ = writeln!(f, "{} {} {way} {line}", now_ms(), std::process::id());
        }
    }

    /// The session directory of `id` inside the store: a real directory
    /// `<root>/<project>/<encodeSegment(id)>`, never reached through a link.
    /// A store that cannot be read is said on DSH's stderr (once for each
    /// new reason), never taken for one where the session is not yet.
    fn locate(&mut self, id: &str) -> Option<PathBuf> {
        let seg = encode_segment(id)?;
        let projects = match std::fs::read_dir(&self.root) {
            Ok(p) => p,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                self.unreadable(&self.root.clone(), &e);
                return None;
            }
        };
        let mut found = None;
        for p in projects.flatten() {
            if !p.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let d = p.path().join(&seg);
            match std::fs::symlink_metadata(&d) {
                Ok(m) if m.is_dir() => {
                    found = Some(d);
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => self.unreadable(&p.path(), &e),
            }
        }
        found
    }

    fn unreadable(&mut self, path: &Path, e: &std::io::Error) {
        let what = format!("{}: {e}", path.display());
        if self.said.insert(what.clone()) {
            report(format_args!(
                "cannot read the store at {what}: the agents of this DSH process there are not protected and get no messages"
            ));
        }
    }

    fn take_lock(id: &str, dir: &Path, state: LiveState) -> std::result::Result<LiveLock, Refusal> {
        let lock = LiveLock::take_as_bridge(dir, id).map_err(Refusal::Lock)?;
        lock.publish(state, 0).map_err(Refusal::Lock)?;
        Ok(lock)
    }

    /// Hold `agent` for the DSH process: take its lock when its directory
    /// exists (a new session's does not yet: the lock is taken when it
    /// appears). `resident`: DSH created it.
    fn hold(
        &mut self,
        agent: &str,
        status: Option<LiveState>,
        resident: bool,
    ) -> std::result::Result<(), Refusal> {
        if encode_segment(agent).is_none() {
            return Err(Refusal::NotSessionId {
                agent: agent.to_string(),
            });
        }
        if let Some(h) = self.held.get_mut(agent) {
            if resident {
                h.resident = true;
                h.via = None;
            }
            if let Some(s) = status {
                h.state = s;
            }
            if let Some(lock) = &h.lock {
                let _ = lock.publish(h.state, h.turn);
            }
            return Ok(());
        }
        let state = status.unwrap_or(LiveState::Idle);
        let dir = self.locate(agent);
        let lock = match &dir {
            Some(d) => Some(Self::take_lock(agent, d, state)?),
            None => None,
        };
        let seen_interrupt = dir
            .as_deref()
            .and_then(|d| Inbox::new(d).read().ok())
            .and_then(|f| f.last_interrupt_id);
        let watch = dir.as_deref().and_then(|d| self.watch.add(d));
        self.held.insert(
            agent.to_string(),
            Held {
                dir,
                lock,
                state,
                turn: 0,
                seen_interrupt,
                resident,
                via: None,
                watch,
                since: Instant::now(),
            },
        );
        // A list a dead bridge left describes nothing now.
        if self.held[agent].lock.is_some() {
            self.sync_handing(agent);
        }
        Ok(())
    }

    /// Let `agent` go: what its log shows delivered is claimed first; what
    /// it does not stays pending for the next holder.
    fn release(&mut self, agent: &str) {
        let locked = self.held.get(agent).is_some_and(|h| h.lock.is_some());
        if locked {
            self.confirm(agent, true);
        }
        self.flights.remove(agent);
        if locked {
            self.sync_handing(agent);
        }
        if let Some(h) = self.held.remove(agent)
            && let Some(wd) = h.watch
        {
            self.watch.remove(wd);
        }
    }

    fn handle(&mut self, request: Request) {
        match request {
            Request::Hold { req, agent } => {
                let r = self.hold(&agent, None, false);
                if let Err(e) = &r {
                    report(format_args!("refused to hold agent {agent}: {e}"));
                }
                self.send(reply(req, r));
            }
            Request::Created { req, agent, status } => {
                let r = self.hold(&agent, status, true);
                if let Err(e) = &r {
                    report(format_args!(
                        "agent {agent} is resident in DSH but not held: {e}"
                    ));
                }
                self.send(reply(req, r));
            }
            Request::Status {
                agent,
                status,
                turn,
            } => {
                if let Some(h) = self.held.get_mut(&agent) {
                    h.state = status;
                    if let Some(t) = turn {
                        h.turn = t;
                    }
                    if let Some(lock) = &h.lock {
                        let _ = lock.publish(status, h.turn);
                    }
                }
            }
            Request::Release { req, agent } => {
                self.release(&agent);
                if req.is_some() {
                    self.send(reply(req, Ok(())));
                }
            }
            Request::Delivered {
                req,
                agent,
                message,
            } => {
                let r = self.delivered(&agent, &message);
                if req.is_some() {
                    self.send(reply(req, r));
                }
            }
            Request::Failed {
                req,
                agent,
                message,
                error,
            } => {
                let r = self.failed(&agent, &message, &error);
                if req.is_some() {
                    self.send(reply(req, r));
                }
            }
        }
    }

    fn emitted(&self, agent: &str, id: &str) -> bool {
        self.flights
            .get(agent)
            .and_then(|f| f.get(id))
            .is_some_and(|f| *f == Flight::Emitted)
    }

    /// DSH accepted a delivery: the claim waits for the log.
    fn delivered(&mut self, agent: &str, id: &str) -> std::result::Result<(), Refusal> {
        if !self.emitted(agent, id) {
            return Err(Refusal::NotHanded {
                id: id.to_string(),
                agent: agent.to_string(),
            });
        }
        self.flights
            .entry(agent.to_string())
            .or_default()
            .insert(id.to_string(), Flight::Handed);
        self.retry.remove(&(agent.to_string(), id.to_string()));
        crate::support::fault::fault("bridge-before-claim");
        self.confirm(agent, false);
        Ok(())
    }

    fn failed(&mut self, agent: &str, id: &str, error: &str) -> std::result::Result<(), Refusal> {
        if !self.emitted(agent, id) {
            return Err(Refusal::NotHanded {
                id: id.to_string(),
                agent: agent.to_string(),
            });
        }
        if let Some(f) = self.flights.get_mut(agent) {
            f.remove(id);
        }
        let wait = self.backoff(agent, id);
        report(format_args!(
            "delivery of {id} to {agent} failed (retrying in {} ms): {error}",
            wait.as_millis()
        ));
        // A cold child locked only for this delivery is let go.
        if self
            .held
            .get(agent)
            .is_some_and(|h| h.via.is_some() && !h.resident)
        {
            self.release(agent);
        } else {
            self.sync_handing(agent);
        }
        Ok(())
    }

    /// What the log of the session in `dir` holds, read again only when it changed.
    fn log_messages(&mut self, dir: &Path) -> Option<Arc<LogMessages>> {
        let path = log_in(dir)?;
        let now = stamp(&path);
        if let Some((s, m)) = self.logs.get(&path)
            && now.is_some()
            && *s == now
        {
            return Some(m.clone());
        }
        match LogMessages::read(&path) {
            Ok(m) => {
                let m = Arc::new(m);
                self.logs.insert(path, (now, m.clone()));
                Some(m)
            }
            Err(e) => {
                report(format_args!("cannot read {}: {e}", path.display()));
                None
            }
        }
    }

    /// Claim every handed message of `agent` its log shows in a
    /// `user/message`. `all`: also those only emitted (the agent is leaving).
    fn confirm(&mut self, agent: &str, all: bool) {
        let Some(dir) = self.held.get(agent).and_then(|h| h.dir.clone()) else {
            return;
        };
        let ids: Vec<String> = self
            .flights
            .get(agent)
            .map(|f| {
                f.iter()
                    .filter(|(_, fl)| all || **fl == Flight::Handed)
                    .map(|(id, _)| id.clone())
                    .collect()
            })
            .unwrap_or_default();
        if ids.is_empty() {
            return;
        }
        let Some(log) = self.log_messages(&dir) else {
            return;
        };
        let done: Vec<String> = ids
            .into_iter()
            .filter(|id| log.state(id) == InLog::Transcript)
            .collect();
        if done.is_empty() {
            return;
        }
        match self.claim(agent, &dir, &done) {
            Ok(()) => {
                if let Some(f) = self.flights.get_mut(agent) {
                    for id in &done {
                        f.remove(id);
                    }
                }
            }
            Err(e) => report(format_args!("cannot record the claim for {agent}: {e}")),
        }
    }

    /// Record that `ids` reached `agent`'s transcript, and drop them from
    /// its handing list, under one inbox lock.
    fn claim(&mut self, agent: &str, dir: &Path, ids: &[String]) -> Result<()> {
        let inbox = Inbox::new(dir);
        let mut guard = inbox.lock(self.limits.lock_timeout)?;
        let fold = inbox.read()?;
        let pending: Vec<String> = ids
            .iter()
            .filter(|id| fold.consumed.is_pending(id))
            .cloned()
            .collect();
        if !pending.is_empty() {
            inbox.record(
                &mut guard,
                &Record::Claim {
                    time: now_ms(),
                    ids: pending,
                },
            )?;
        }
        for id in ids {
            self.retry.remove(&(agent.to_string(), id.clone()));
        }
        if self.held.get(agent).is_some_and(|h| h.lock.is_some()) {
            let keep: Vec<&str> = self
                .in_flight_ids(agent)
                .filter(|i| !ids.iter().any(|d| d == i))
                .collect();
            handing::write(&guard, &keep)?;
        }
        Ok(())
    }

    fn in_flight_ids<'a>(&'a self, agent: &str) -> impl Iterator<Item = &'a str> {
        self.flights
            .get(agent)
            .into_iter()
            .flat_map(|f| f.keys().map(String::as_str))
    }

    /// Rewrite `agent`'s handing list from what is in flight.
    fn sync_handing(&mut self, agent: &str) {
        let Some(dir) = self.held.get(agent).and_then(|h| h.dir.clone()) else {
            return;
        };
        let inbox = Inbox::new(&dir);
        let written = inbox
            .lock(self.limits.lock_timeout)
            .map_err(Error::from)
            .and_then(|guard| {
                let ids: Vec<&str> = self.in_flight_ids(agent).collect();
                handing::write(&guard, &ids).map_err(Error::from)
            });
        if let Err(e) = written {
            report(format_args!(
                "cannot update the handing list of {agent}: {e}"
            ));
        }
    }

    fn rescan(&mut self) {
        if self.scanned.is_some_and(|t| t.elapsed() < RESCAN) {
            return;
        }
        self.scanned = Some(Instant::now());
        // A store of many sessions costs a header read of each: scan only
        // when a session may have appeared or vanished.
        if self.stamps.as_ref().is_some_and(Stamps::unchanged) {
            return;
        }
        let before = Stamps::before_scan(&self.root);
        let Ok(store) = store::open(&self.root, Plan::Survey) else {
            return;
        };
        self.stamps = before.and_then(|b| b.after_scan(&store));
        self.children.clear();
        let s = &store.sessions;
        for i in 0..s.len() {
            if let Some(parent) = s.parent(i) {
                self.children
                    .entry(parent.to_string())
                    .or_default()
                    .push((s.id(i).to_string(), s.dir(i)));
            }
        }
    }

    /// One pass over the held agents and the cold children of resident ones.
    fn tick(&mut self) {
        self.take_waiting_locks();
        let locked: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| h.lock.is_some())
            .map(|(id, _)| id.clone())
            .collect();
        for agent in &locked {
            self.confirm(agent, false);
        }
        // A cold child held only for a delivery, with nothing left in
        // flight and never made resident by DSH, is let go: holding it
        // longer would only keep `serve` off it.
        let done: Vec<String> = self
            .held
            .iter()
            .filter(|(id, h)| {
                h.via.is_some()
                    && !h.resident
                    && self.flights.get(*id).is_none_or(BTreeMap::is_empty)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for agent in &done {
            self.release(agent);
        }
        let resident: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| h.lock.is_some() && h.resident)
            .map(|(id, _)| id.clone())
            .collect();
        for agent in &resident {
            let Some(dir) = self.held[agent].dir.clone() else {
                continue;
            };
            // One read of the inbox serves both the interrupt and the delivery pass.
            let fold = match Inbox::new(&dir).read() {
                Ok(f) => f,
                Err(e) => {
                    report(format_args!("cannot read the inbox of {agent}: {e}"));
                    continue;
                }
            };
            self.interrupts(agent, &dir, &fold);
            self.deliver(agent, &dir, None, &fold);
        }
        self.rescan();
        self.watch_children(&resident);
        for parent in &resident {
            let kids = self.children.get(parent).cloned().unwrap_or_default();
            for (child, dir) in kids {
                if self.held.contains_key(&child) {
                    continue;
                }
                self.reach_cold_child(parent, &child, &dir);
            }
        }
    }

    /// Locks for held sessions whose directory appeared since.
    fn take_waiting_locks(&mut self) {
        let waiting: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| h.lock.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        for id in waiting {
            let Some(dir) = self.locate(&id) else {
                let h = &self.held[&id];
                if h.resident
                    && h.since.elapsed() >= MISSING
                    && self.said.insert(format!("missing {id}"))
                {
                    report(format_args!(
                        "agent {id} is resident in DSH, but no session directory for it has appeared in the store {} after {} s: is the plugin's store DSH's persistence root? Until it appears, nothing protects its log and it gets no messages",
                        self.root.display(),
                        MISSING.as_secs()
                    ));
                }
                continue;
            };
            let state = self.held[&id].state;
            match Self::take_lock(&id, &dir, state) {
                Ok(lock) => {
                    let watch = self.watch.add(&dir);
                    let h = self.held.get_mut(&id).expect("held");
                    h.dir = Some(dir);
                    h.lock = Some(lock);
                    h.watch = watch;
                    self.sync_handing(&id);
                }
                Err(e) => {
                    report(format_args!(
                        "agent {id} is resident in DSH but another process holds it: {e}"
                    ));
                    self.send(json!({"event": "conflict", "agent": id, "error": e.to_string()}));
                    // Said once: the agent stays unlocked until DSH lets it go.
                    if let Some(h) = self.held.get_mut(&id) {
                        h.dir = Some(dir);
                    }
                }
            }
        }
    }

    /// Watch the directories of resident agents' children, so a message
    /// to a cold child wakes the bridge.
    fn watch_children(&mut self, resident: &[String]) {
        let dirs: Vec<PathBuf> = resident
            .iter()
            .filter_map(|p| self.children.get(p))
            .flatten()
            .map(|(_, d)| d.clone())
            .collect();
        for d in dirs {
            if !self.child_watches.contains_key(&d)
                && let Some(wd) = self.watch.add(&d)
            {
                self.child_watches.insert(d, wd);
            }
        }
    }

    /// A cold child of resident `parent` with a claimable message: rc.8
    /// resumes it only for its live direct parent, so it is held first (no
    /// other writer can take it) and the message goes through the parent.
    /// Holding its lock proves no DSH process runs it, so what its log shows
    /// taken and unwritten is lost, and what DSH's own inbox still queues
    /// for it would never run: nothing resumes a cold child but a hand-off
    /// through its parent, and a hand-off adds a copy. Those queued copies
    /// are canceled first, by the child's one writer now (this bridge), and
    /// then handed through the parent once.
    fn reach_cold_child(&mut self, parent: &str, child: &str, dir: &Path) {
        let Ok(fold) = Inbox::new(dir).read() else {
            return;
        };
        let pending: Vec<String> = fold.claimable().iter().map(|m| m.id.clone()).collect();
        let Some(first) = pending.first().cloned() else {
            return;
        };
        if self.backing_off(child, &first) {
            return;
        }
        let Some(log) = self.log_messages(dir) else {
            return;
        };
        if log.state(&first) == InLog::Transcript {
            if let Err(e) = self.claim(child, dir, std::slice::from_ref(&first)) {
                report(format_args!("cannot record the claim for {child}: {e}"));
            }
            return;
        }
        let Ok(lock) = Self::take_lock(child, dir, LiveState::Idle) else {
            return;
        };
        let watch = self.watch.add(dir);
        self.held.insert(
            child.to_string(),
            Held {
                dir: Some(dir.to_path_buf()),
                lock: Some(lock),
                state: LiveState::Idle,
                turn: 0,
                seen_interrupt: fold.last_interrupt_id.clone(),
                resident: false,
                via: Some(parent.to_string()),
                watch,
                since: Instant::now(),
            },
        );
        let queued: Vec<String> = pending
            .into_iter()
            .filter(|id| log.state(id) == InLog::DshPending)
            .collect();
        if !queued.is_empty()
            && let Err(e) = self.cancel_queued(child, &queued)
        {
            report(format_args!(
                "cannot take back the copies DSH queued for cold agent {child} (they wait until it is resumed): {e}"
            ));
            self.backoff(child, &first);
            self.release(child);
            return;
        }
        self.deliver(child, dir, Some(parent), &fold);
    }

    /// Cancel the copies of `ids` queued in the cold `child`'s own inbox, as
    /// the log's only writer while this bridge holds its lock.
    fn cancel_queued(&mut self, child: &str, ids: &[String]) -> Result<()> {
        let store = match store::open(
            &self.root,
            Plan::Exactly {
                ids: &[child],
                up: Ancestry::Whole,
                ahead: None,
            },
        ) {
            Ok(store) => Some(store),
            Err(dsh_store::StoreError::NotLocated { .. }) => None,
            Err(e) => return Err(e.into()),
        };
        let Some(rec) = store.as_ref().and_then(|s| s.get(child)) else {
            return Err(Error::Store(dsh_store::StoreError::Fatal {
                path: self.root.clone(),
                message: format!("session {child} is no longer in the store"),
            }));
        };
        let mut log = Transcript::open(&rec, |_| false)?;
        let n = log.cancel_native(ids)?;
        report(format_args!(
            "cold agent {child}: {n} message(s) DSH had queued but nothing would resume were canceled in its log and are handed again through its parent"
        ));
        Ok(())
    }

    /// Wait before the next try of `id` to `agent`, doubling each time.
    fn backoff(&mut self, agent: &str, id: &str) -> Duration {
        let key = (agent.to_string(), id.to_string());
        let failures = self.retry.get(&key).map_or(0, |r| r.1) + 1;
        let wait = BACKOFF
            .saturating_mul(1 << failures.min(16))
            .min(BACKOFF_MAX);
        self.retry.insert(key, (Instant::now() + wait, failures));
        wait
    }

    fn backing_off(&self, agent: &str, id: &str) -> bool {
        self.retry
            .get(&(agent.to_string(), id.to_string()))
            .is_some_and(|(t, _)| Instant::now() < *t)
    }

    fn interrupts(&mut self, agent: &str, dir: &Path, fold: &Fold) {
        let newest = fold.last_interrupt_id.clone();
        // An interrupt that vanished (compaction) is not a new one.
        if newest.is_none() || newest == self.held[agent].seen_interrupt {
            return;
        }
        let cause = interrupt_cause(dir, newest.as_deref());
        if let Some(h) = self.held.get_mut(agent) {
            h.seen_interrupt = newest;
        }
        self.send(json!({"event": "interrupt", "agent": agent, "cause": cause}));
    }

    /// Hand on every claimable message of `agent` not already in flight,
    /// by what its log proves (`store::log::delivered`): in the transcript →
    /// claimed; queued in DSH's own inbox → left to DSH; dropped unrun →
    /// handed again, marked with the drop so the process that dropped it
    /// runs it once more and only once; taken and not yet written → handed
    /// plainly, which the plugin answers from its own record when its
    /// process is the one that took it (a new process never did, and runs
    /// it); never seen → handed, marked as a retry after a failed hand-off.
    /// The messages to hand are listed in `inbox.handing` under the inbox
    /// lock, still pending, and only then emitted.
    fn deliver(&mut self, agent: &str, dir: &Path, via: Option<&str>, fold: &Fold) {
        let flights = self.flights.get(agent);
        let mut messages: Vec<Message> = fold
            .claimable_besides(|id| flights.is_some_and(|f| f.contains_key(id)))
            .into_iter()
            .filter(|m| !self.backing_off(agent, &m.id))
            .cloned()
            .collect();
        // A cold child takes one next turn per resume.
        if via.is_some() {
            messages.truncate(1);
        }
        if messages.is_empty() {
            return;
        }
        let log = self.log_messages(dir);
        let mut queued = false;
        let mut fresh = Vec::new();
        let mut done = Vec::new();
        for m in messages {
            let failed_before = self.retry.contains_key(&(agent.to_string(), m.id.clone()));
            let again = match log.as_ref().map_or(InLog::Absent, |l| l.state(&m.id)) {
                InLog::Transcript => {
                    done.push(m.id.clone());
                    continue;
                }
                // DSH has it (a failed hand-off that DSH took after all
                // included): the log will show it written.
                InLog::DshPending => None,
                InLog::Taken { .. } if failed_before && via.is_none() => None,
                // The last hand-off threw, and the log shows nothing of it
                // reaching DSH since: the process hands it again.
                _ if failed_before => Some(Again::Failed),
                // A cold child held by this bridge runs nowhere: what it
                // took is lost.
                InLog::Taken { seq } if via.is_some() => Some(Again::Drop(seq)),
                InLog::Taken { .. } => Some(Again::Plain),
                InLog::Dropped { seq } => Some(Again::Drop(seq)),
                InLog::Absent => Some(Again::Plain),
            };
            match again {
                None => {
                    queued = true;
                    self.retry.remove(&(agent.to_string(), m.id.clone()));
                    self.flights
                        .entry(agent.to_string())
                        .or_default()
                        .insert(m.id.clone(), Flight::Handed);
                }
                Some(again) => fresh.push((m, again)),
            }
        }
        if !done.is_empty()
            && let Err(e) = self.claim(agent, dir, &done)
        {
            report(format_args!("cannot record the claim for {agent}: {e}"));
        }
        let agains: HashMap<String, Again> =
            fresh.iter().map(|(m, a)| (m.id.clone(), *a)).collect();
        let messages: Vec<Message> = fresh.into_iter().map(|(m, _)| m).collect();
        let fresh = match self.list_handing(agent, dir, messages, queued) {
            Ok(f) => f,
            Err(e) => {
                report(format_args!("cannot hand messages to {agent}: {e}"));
                return;
            }
        };
        for m in fresh {
            let again = agains.get(&m.id).copied().unwrap_or(Again::Plain);
            // A cold child takes everything as its next turn.
            let target = if via.is_some() {
                "next-turn"
            } else {
                m.target.as_str()
            };
            let mut source = m.source.clone();
            if via.is_some() && source.is_object() {
                source["dshAgentsMessageId"] = json!(m.id);
            }
            self.send(json!({
                "event": "deliver",
                "agent": agent,
                "via": via,
                "target": target,
                "again": again.to_json(),
                "message": {"content": m.content, "source": source, "role": "user", "id": m.id},
            }));
        }
    }

    /// Under the inbox lock: keep the messages still pending (a `cancel`
    /// may have come first), mark them emitted and list them in
    /// `inbox.handing`; return them.
    fn list_handing(
        &mut self,
        agent: &str,
        dir: &Path,
        fresh: Vec<Message>,
        changed: bool,
    ) -> Result<Vec<Message>> {
        if fresh.is_empty() && !changed {
            return Ok(fresh);
        }
        crate::support::fault::fault("bridge-slow-hand");
        let inbox = Inbox::new(dir);
        let guard = inbox.lock(self.limits.lock_timeout)?;
        let fold = inbox.read()?;
        let fresh: Vec<Message> = fresh
            .into_iter()
            .filter(|m| fold.consumed.is_pending(&m.id))
            .collect();
        let flights = self.flights.entry(agent.to_string()).or_default();
        for m in &fresh {
            flights.insert(m.id.clone(), Flight::Emitted);
        }
        let ids: Vec<&str> = self.in_flight_ids(agent).collect();
        if let Err(e) = handing::write(&guard, &ids) {
            if let Some(f) = self.flights.get_mut(agent) {
                for m in &fresh {
                    f.remove(&m.id);
                }
            }
            return Err(e.into());
        }
        Ok(fresh)
    }

    /// Serve the plugin until stdin closes; then release everything.
    pub fn run(mut self, input: impl BufRead + Send + 'static) -> Result<()> {
        let (tx, rx) = mpsc::channel::<Input>();
        read_requests(input, tx.clone());
        let watch = self.watch.clone();
        std::thread::spawn(move || {
            loop {
                if watch.wait(Duration::from_secs(1)) && tx.send(Input::Wake).is_err() {
                    return;
                }
            }
        });
        self.send(json!({"event": "ready", "pid": std::process::id()}));
        while !self.closed {
            match rx.recv_timeout(TICK) {
                Ok(Input::Line(line)) if line.trim().is_empty() => {}
                Ok(Input::Line(line)) => {
                    self.trace("<", &line);
                    match serde_json::from_str::<Value>(&line) {
                        Ok(v) => {
                            // A refusal answers the request's `req` when it has one.
                            let req = v.get("req").and_then(Value::as_u64);
                            match serde_json::from_value::<Request>(v) {
                                Ok(r) => self.handle(r),
                                Err(e) => self.send(reply(req, Err(Refusal::BadRequest(e)))),
                            }
                        }
                        Err(e) => self.send(reply(None, Err(Refusal::BadRequest(e)))),
                    }
                }
                Ok(Input::TooLong) => self.send(json!({
                    "reply": null, "ok": false,
                    "error": format!("bad request: a request line is at most {MAX_REQUEST} bytes")
                })),
                Ok(Input::Wake) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Ok(Input::End) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            self.tick();
        }
        let agents: Vec<String> = self.held.keys().cloned().collect();
        for a in agents {
            self.release(&a);
        }
        Ok(())
    }
}

/// The store a bridge may serve: a readable directory whose project
/// directories can be read, or one not created yet (DSH creates it on its
/// first write). Anything else is refused, so DSH stops at boot instead of
/// running agents the bridge cannot see.
pub fn check_store(root: &Path) -> std::result::Result<(), dsh_store::StoreError> {
    use dsh_store::StoreError;
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(StoreError::io(root, e)),
    };
    if !meta.is_dir() {
        return Err(StoreError::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    for entry in std::fs::read_dir(root).map_err(|e| StoreError::io(root, e))? {
        let entry = entry.map_err(|e| StoreError::io(root, e))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let project = entry.path();
            std::fs::read_dir(&project).map_err(|e| StoreError::io(&project, e))?;
        }
    }
    Ok(())
}

/// The abort cause of interrupt record `id`: `parent` when an agent sent it.
fn interrupt_cause(dir: &Path, id: Option<&str>) -> Value {
    let source = id.and_then(|id| Inbox::new(dir).interrupt_source(id).ok().flatten());
    json!({"kind": source.as_ref().and_then(|s| s["kind"].as_str()).unwrap_or("user")})
}
