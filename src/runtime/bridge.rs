//! `bridge`: the companion of one DSH process (its plugin starts it), so a
//! DSH agent is a live member like a served one. It speaks one JSON object
//! per line: requests on stdin, replies and events on stdout.
//!
//! Ownership: it holds `live.lock` (and `.session-writer.lock`) for every
//! agent the DSH process holds, keeps `live.json` current, and answers a
//! "resume" only once it holds the lock, so no other writer can share the
//! log. Delivery: it watches the inboxes of the agents it holds (and of
//! their cold children, which rc.8 resumes only through their live direct
//! parent) and emits each claimable message (the DESIGN §6 claim rules);
//! the plugin's acknowledgement writes the `claim` record. A message the
//! agent's log already holds (delivered before a crash) is claimed, never
//! delivered twice. Interrupt records become interrupt events, once each.
//! When stdin closes (the DSH process died) every lock is released.

use crate::error::{Error, Result};
use crate::inbox::fold::Fold;
use crate::inbox::liveness::{LiveLock, LiveState};
use crate::inbox::record::{Message, Record};
use crate::inbox::{Inbox, Limits};
use crate::store::paths::encode_segment;
use crate::store::reader::for_each_event;
use crate::store::stamps::Stamps;
use crate::store::{Store, StoreError};
use crate::support::clock::now_ms;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How often held inboxes are looked at between requests.
const TICK: Duration = Duration::from_millis(50);
/// How often the store is rescanned for the children of held agents.
const RESCAN: Duration = Duration::from_millis(1000);

/// One request from the plugin.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Request {
    /// The DSH process holds (or is about to resume) this agent.
    Hold {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
        /// The session directory, when the plugin knows it.
        #[serde(default)]
        dir: Option<PathBuf>,
        #[serde(default)]
        status: Option<LiveState>,
    },
    /// The agent's status changed.
    Status {
        agent: String,
        status: LiveState,
        #[serde(default)]
        turn: Option<u64>,
    },
    /// The agent left the DSH process.
    Release {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
    },
    /// A delivery was accepted by rc.8: record the claim.
    Delivered {
        #[serde(default)]
        req: Option<u64>,
        agent: String,
        message: String,
    },
    /// A delivery failed: the message stays pending.
    Failed {
        agent: String,
        message: String,
        #[serde(default)]
        error: String,
    },
}

/// An agent this bridge holds for its DSH process.
struct Held {
    dir: PathBuf,
    lock: Option<LiveLock>,
    state: LiveState,
    turn: u64,
    /// The newest interrupt already handed on (or there before we held it).
    seen_interrupt: Option<String>,
    /// A cold child held only for a delivery through its parent.
    via: Option<String>,
}

pub struct Bridge {
    root: PathBuf,
    limits: Limits,
    held: HashMap<String, Held>,
    /// Emitted, not yet acknowledged: (agent, message id).
    in_flight: HashSet<(String, String)>,
    /// Failed deliveries wait before they are tried again.
    retry_after: HashMap<String, Instant>,
    /// `parent id -> (child id, session dir)`, from the last store scan.
    children: HashMap<String, Vec<(String, PathBuf)>>,
    scanned: Option<Instant>,
    /// What the last scan saw, to tell whether the next one can be skipped.
    stamps: Option<Stamps>,
    out: Box<dyn Write>,
}

fn reply(req: Option<u64>, result: std::result::Result<(), String>) -> Value {
    match result {
        Ok(()) => json!({"reply": req, "ok": true}),
        Err(e) => json!({"reply": req, "ok": false, "error": e}),
    }
}

/// Whether the log at `path` already holds message `id`: claimed into the
/// transcript, queued in DSH's own inbox, or carried in a source that names
/// it (a cold child's delivery gets a new id from rc.8).
pub fn log_holds_message(path: &Path, id: &str) -> bool {
    let mut found = false;
    let _ = for_each_event(path, |ev| {
        if found {
            return;
        }
        let data = &ev["data"];
        let names = |m: &Value| m["id"] == id || m["source"]["dshAgentsMessageId"] == id;
        found = match ev["type"].as_str() {
            Some("user/message") => names(data),
            Some("agent/inbox/spliced") => data["inserted"]
                .as_array()
                .is_some_and(|items| items.iter().any(names)),
            _ => false,
        };
    });
    found
}

impl Bridge {
    pub fn new(root: &Path, limits: Limits, out: Box<dyn Write>) -> Bridge {
        Bridge {
            root: root.to_path_buf(),
            limits,
            held: HashMap::new(),
            in_flight: HashSet::new(),
            retry_after: HashMap::new(),
            children: HashMap::new(),
            scanned: None,
            stamps: None,
            out,
        }
    }

    fn send(&mut self, v: Value) -> Result<()> {
        writeln!(self.out, "{v}")
            .and_then(|()| self.out.flush())
            .map_err(|e| Error::Store(StoreError::io("standard output", e)))
    }

    /// The session directory of `id`: `<root>/<project>/<encodeSegment(id)>`.
    fn locate(&self, id: &str) -> Option<PathBuf> {
        let seg = encode_segment(id)?;
        let projects = std::fs::read_dir(&self.root).ok()?;
        projects
            .flatten()
            .map(|p| p.path().join(&seg))
            .find(|d| d.is_dir())
    }

    fn take_lock(&self, id: &str, dir: &Path, state: LiveState) -> Result<LiveLock, String> {
        let lock = LiveLock::take(dir, id).map_err(|e| e.to_string())?;
        lock.publish(state, 0).map_err(|e| e.to_string())?;
        Ok(lock)
    }

    fn hold(
        &mut self,
        agent: &str,
        dir: Option<PathBuf>,
        status: Option<LiveState>,
    ) -> std::result::Result<(), String> {
        let state = status.unwrap_or(LiveState::Idle);
        if let Some(h) = self.held.get_mut(agent) {
            // A cold child we locked for its delivery is now resident.
            h.via = None;
            h.state = state;
            if let Some(lock) = &h.lock {
                let _ = lock.publish(state, h.turn);
            }
            return Ok(());
        }
        let dir = dir.or_else(|| self.locate(agent));
        let (dir, lock) = match dir {
            // A new session whose directory does not exist yet cannot be
            // contended: hold it, and take the lock once it appears.
            Some(d) if d.is_dir() => {
                let lock = self.take_lock(agent, &d, state)?;
                (d, Some(lock))
            }
            Some(d) => (d, None),
            None => (PathBuf::new(), None),
        };
        let seen_interrupt = Inbox::new(&dir)
            .read()
            .ok()
            .and_then(|f| f.last_interrupt_id);
        self.held.insert(
            agent.to_string(),
            Held {
                dir,
                lock,
                state,
                turn: 0,
                seen_interrupt,
                via: None,
            },
        );
        Ok(())
    }

    fn release(&mut self, agent: &str) {
        self.held.remove(agent);
        self.in_flight.retain(|(a, _)| a != agent);
    }

    fn handle(&mut self, line: &str) -> Result<()> {
        let request: Request = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(e) => {
                return self.send(
                    json!({"reply": null, "ok": false, "error": format!("bad request: {e}")}),
                );
            }
        };
        match request {
            Request::Hold {
                req,
                agent,
                dir,
                status,
            } => {
                let r = self.hold(&agent, dir, status);
                // DSH may keep the plugin's refusal to itself (rc.8 tells its
                // model only "unavailable"): say it where the operator looks.
                if let Err(e) = &r {
                    eprintln!("dsh-agents bridge: refused to hold agent {agent}: {e}");
                }
                self.send(reply(req, r))
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
                Ok(())
            }
            Request::Release { req, agent } => {
                self.release(&agent);
                match req {
                    Some(_) => self.send(reply(req, Ok(()))),
                    None => Ok(()),
                }
            }
            Request::Delivered {
                req,
                agent,
                message,
            } => {
                self.in_flight.remove(&(agent.clone(), message.clone()));
                // A crash here: DSH has the message, its claim is not written.
                crate::support::fault::fault("bridge-before-claim");
                let r = self.claim(&agent, &message).map_err(|e| e.to_string());
                match req {
                    Some(_) => self.send(reply(req, r)),
                    None => Ok(()),
                }
            }
            Request::Failed {
                agent,
                message,
                error,
            } => {
                self.in_flight.remove(&(agent.clone(), message.clone()));
                self.retry_after
                    .insert(message, Instant::now() + Duration::from_secs(2));
                // A cold child locked only for this delivery is let go.
                if self.held.get(&agent).is_some_and(|h| h.via.is_some()) {
                    self.release(&agent);
                }
                eprintln!("dsh-agents bridge: delivery to {agent} failed: {error}");
                Ok(())
            }
        }
    }

    fn dir_of(&self, agent: &str) -> Option<PathBuf> {
        self.held
            .get(agent)
            .map(|h| h.dir.clone())
            .or_else(|| self.locate(agent))
    }

    /// Record that `id` left `agent`'s inbox for DSH.
    fn claim(&self, agent: &str, id: &str) -> Result<()> {
        let dir = self
            .dir_of(agent)
            .ok_or_else(|| Error::usage(format!("no session directory for agent \"{agent}\"")))?;
        let inbox = Inbox::new(&dir);
        let mut guard = inbox.lock(self.limits.lock_timeout)?;
        let fold = inbox.read()?;
        if !fold.consumed.is_pending(id) {
            return Ok(());
        }
        inbox.record(
            &mut guard,
            &Record::Claim {
                time: now_ms(),
                ids: vec![id.to_string()],
            },
        )?;
        Ok(())
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
        let Ok(store) = Store::scan(&self.root) else {
            return;
        };
        self.stamps = before.and_then(|b| b.after_scan(&store));
        self.children.clear();
        for rec in &store.sessions {
            if let Some(parent) = rec.header.parent() {
                self.children
                    .entry(parent.to_string())
                    .or_default()
                    .push((rec.header.id.to_string(), rec.dir()));
            }
        }
    }

    /// One pass over the held agents and their cold children.
    fn tick(&mut self) -> Result<()> {
        // Locks for sessions whose directory appeared since they were held.
        let waiting: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| h.lock.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        for id in waiting {
            let dir = self.held[&id].dir.clone();
            let dir = if dir.is_dir() {
                Some(dir)
            } else {
                self.locate(&id)
            };
            if let Some(dir) = dir {
                let state = self.held[&id].state;
                match self.take_lock(&id, &dir, state) {
                    Ok(lock) => {
                        let h = self.held.get_mut(&id).expect("held");
                        h.dir = dir;
                        h.lock = Some(lock);
                    }
                    Err(e) => {
                        self.send(json!({"event": "conflict", "agent": id, "error": e}))?;
                    }
                }
            }
        }
        let resident: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| h.lock.is_some() && h.via.is_none())
            .map(|(id, _)| id.clone())
            .collect();
        for agent in &resident {
            // One read of the inbox serves both the interrupt and the delivery pass.
            let Ok(fold) = Inbox::new(&self.held[agent].dir).read() else {
                continue;
            };
            self.interrupts(agent, &fold)?;
            self.deliver(agent, None, &fold)?;
        }
        self.rescan();
        for parent in &resident {
            let kids = self.children.get(parent).cloned().unwrap_or_default();
            for (child, dir) in kids {
                if self.held.contains_key(&child) {
                    continue;
                }
                let Ok(fold) = Inbox::new(&dir).read() else {
                    continue;
                };
                if fold.claimable().is_empty() {
                    continue;
                }
                // rc.8 resumes a cold child only for its live direct parent:
                // hold the child first, so no other writer can take it.
                let Ok(lock) = self.take_lock(&child, &dir, LiveState::Idle) else {
                    continue;
                };
                self.held.insert(
                    child.clone(),
                    Held {
                        dir: dir.clone(),
                        lock: Some(lock),
                        state: LiveState::Idle,
                        turn: 0,
                        seen_interrupt: fold.last_interrupt_id.clone(),
                        via: Some(parent.clone()),
                    },
                );
                self.deliver(&child, Some(parent.clone()), &fold)?;
            }
        }
        Ok(())
    }

    fn interrupts(&mut self, agent: &str, fold: &Fold) -> Result<()> {
        let dir = self.held[agent].dir.clone();
        if fold.last_interrupt_id == self.held[agent].seen_interrupt {
            return Ok(());
        }
        let cause = interrupt_cause(&dir, fold.last_interrupt_id.as_deref());
        if let Some(h) = self.held.get_mut(agent) {
            h.seen_interrupt = fold.last_interrupt_id.clone();
        }
        self.send(json!({"event": "interrupt", "agent": agent, "cause": cause}))
    }

    /// Emit every claimable message of `agent` not already in flight; one
    /// its log already holds is claimed instead.
    fn deliver(&mut self, agent: &str, via: Option<String>, fold: &Fold) -> Result<()> {
        let dir = self.held[agent].dir.clone();
        let messages: Vec<Message> = claimable(fold, via.is_some());
        let log = log_path(&dir);
        for m in messages {
            let key = (agent.to_string(), m.id.clone());
            if self.in_flight.contains(&key)
                || self
                    .retry_after
                    .get(&m.id)
                    .is_some_and(|t| Instant::now() < *t)
            {
                continue;
            }
            if log.as_deref().is_some_and(|l| log_holds_message(l, &m.id)) {
                self.claim(agent, &m.id)?;
                continue;
            }
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
            self.in_flight.insert(key);
            self.send(json!({
                "event": "deliver",
                "agent": agent,
                "via": via,
                "target": target,
                "message": {"content": m.content, "source": source, "role": "user", "id": m.id},
            }))?;
            // A cold child gets one turn per resume.
            if via.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// Serve the plugin until stdin closes; then release everything.
    pub fn run(mut self, input: impl BufRead + Send + 'static) -> Result<()> {
        let (tx, rx) = mpsc::channel::<Option<String>>();
        std::thread::spawn(move || {
            for line in input.lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Some(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(None);
        });
        self.send(json!({"event": "ready", "pid": std::process::id()}))?;
        loop {
            match rx.recv_timeout(TICK) {
                Ok(Some(line)) if line.trim().is_empty() => {}
                Ok(Some(line)) => self.handle(&line)?,
                Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            self.tick()?;
        }
        self.held.clear();
        Ok(())
    }
}

/// What is claimable now; a cold child is woken by one next-turn at a time.
fn claimable(fold: &Fold, cold: bool) -> Vec<Message> {
    let all: Vec<Message> = fold.claimable().into_iter().cloned().collect();
    if cold {
        return all.into_iter().take(1).collect();
    }
    all
}

fn log_path(dir: &Path) -> Option<PathBuf> {
    ["session.jsonl", "session.jsonl.zstd"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

/// The abort cause of interrupt record `id`: `parent` when an agent sent it.
fn interrupt_cause(dir: &Path, id: Option<&str>) -> Value {
    let source = id.and_then(|id| Inbox::new(dir).interrupt_source(id).ok().flatten());
    json!({"kind": source.as_ref().and_then(|s| s["kind"].as_str()).unwrap_or("user")})
}
