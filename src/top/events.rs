//! `dsh-agents events`: the tree's state transitions, one line each — a
//! turn started or finished, an agent became running/idle/inactive, was
//! parked or unparked, a problem appeared or cleared, an agent appeared or
//! went, a pending message waited past `--stale-after`. Following, each is
//! found by comparing two observations of the tree (`tree --json`'s
//! members, read when the store changes: only the rows of the sessions
//! the store's watch told of, when it can say which), so each transition
//! is reported once, when it is first seen; without `--follow` the turns the logs
//! record since `--since` are listed. `--exec` hands each event, as JSON,
//! to a command; a command that fails is reported and the stream goes on.

use crate::error::{Error, Result};
use crate::inbox::Target;
use crate::operator::inbox_view::InboxView;
use crate::operator::store_watch::{Changes, StoreWatch};
use crate::operator::tree_rows::Row;
use crate::support::clock::rfc3339;
use crate::support::refresh::{Due, Refresh};
use crate::top::amount::Amount;
use crate::top::data::Held;
use crate::top::follow_state;
use crate::tree::caller::resolve_agent;
use dsh_store::{self as store, Plan, StoreError};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// What one observation holds of one agent.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Observed {
    pub id: String,
    pub name: String,
    pub state: String,
    /// Its last turn's number (0: none) and whether it is still open.
    pub turn: u64,
    pub open: bool,
    /// How the last turn ended, when it has.
    pub ending: Option<String>,
    pub parked: bool,
}

/// The state words that are problems (`tree --problems`).
const PROBLEMS: [&str; 5] = [
    "corrupt",
    "unsupported",
    "unavailable",
    "unknown",
    "unresumable",
];

fn is_problem(state: &str) -> bool {
    PROBLEMS.contains(&state)
}

/// One transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Appeared,
    Gone,
    TurnStarted {
        turn: u64,
    },
    TurnFinished {
        turn: u64,
        ending: Option<String>,
    },
    Became {
        from: String,
        to: String,
    },
    Problem {
        state: String,
    },
    ProblemCleared {
        state: String,
    },
    Parked,
    Unparked,
    PendingStale {
        message: String,
        waited_ms: i64,
    },
    /// A subtree spent 80% of its budget (`watch --budget`).
    BudgetWarning {
        spent: Amount,
        limit: Amount,
    },
    /// A subtree spent its budget.
    BudgetExceeded {
        spent: Amount,
        limit: Amount,
    },
    /// An agent's turn was interrupted for the budget of `budget`'s subtree.
    BudgetInterrupted {
        turn: u64,
        budget: String,
    },
}

impl Change {
    fn kind(&self) -> &'static str {
        match self {
            Change::Appeared => "appeared",
            Change::Gone => "gone",
            Change::TurnStarted { .. } => "turn-started",
            Change::TurnFinished { .. } => "turn-finished",
            Change::Became { .. } => "became",
            Change::Problem { .. } => "problem",
            Change::ProblemCleared { .. } => "problem-cleared",
            Change::Parked => "parked",
            Change::Unparked => "unparked",
            Change::PendingStale { .. } => "pending-stale",
            Change::BudgetWarning { .. } => "budget-warning",
            Change::BudgetExceeded { .. } => "budget-exceeded",
            Change::BudgetInterrupted { .. } => "budget-interrupted",
        }
    }
}

/// A transition of one agent at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub time: i64,
    pub id: String,
    pub name: String,
    pub change: Change,
}

impl Event {
    pub fn json(&self) -> Value {
        let mut v = json!({
            "time": rfc3339(self.time), "kind": self.change.kind(),
            "agent": self.id, "name": self.name,
        });
        match &self.change {
            Change::TurnStarted { turn } => v["turn"] = json!(turn),
            Change::TurnFinished { turn, ending } => {
                v["turn"] = json!(turn);
                v["ending"] = json!(ending);
            }
            Change::Became { from, to } => {
                v["from"] = json!(from);
                v["state"] = json!(to);
            }
            Change::Problem { state } | Change::ProblemCleared { state } => {
                v["state"] = json!(state);
            }
            Change::PendingStale { message, waited_ms } => {
                v["messageId"] = json!(message);
                v["waitedMs"] = json!(waited_ms);
            }
            Change::BudgetWarning { spent, limit } | Change::BudgetExceeded { spent, limit } => {
                v["spent"] = spent.json();
                v["limit"] = limit.json();
            }
            Change::BudgetInterrupted { turn, budget } => {
                v["turn"] = json!(turn);
                v["budget"] = json!(budget);
            }
            Change::Appeared | Change::Gone | Change::Parked | Change::Unparked => {}
        }
        v
    }

    pub fn text(&self) -> String {
        let who = if self.name.is_empty() || self.name == self.id {
            self.id.clone()
        } else {
            format!("{} ({})", self.name, self.id)
        };
        let what = match &self.change {
            Change::Appeared => "appeared".to_string(),
            Change::Gone => "is gone".to_string(),
            Change::TurnStarted { turn } => format!("turn {turn} started"),
            Change::TurnFinished { turn, ending } => match ending {
                Some(e) => format!("turn {turn} finished: {e}"),
                None => format!("turn {turn} finished"),
            },
            Change::Became { from, to } => format!("became {to} (was {from})"),
            Change::Problem { state } => format!("problem: {state}"),
            Change::ProblemCleared { state } => format!("problem cleared (now {state})"),
            Change::Parked => "parked".to_string(),
            Change::Unparked => "unparked".to_string(),
            Change::PendingStale { message, waited_ms } => format!(
                "message {message} pending for {}",
                crate::support::clock::human_duration(*waited_ms)
            ),
            Change::BudgetWarning { spent, limit } => {
                format!("budget at 80%: spent {spent} of {limit}")
            }
            Change::BudgetExceeded { spent, limit } => {
                format!("budget exceeded: spent {spent} of {limit}")
            }
            Change::BudgetInterrupted { turn, budget } => {
                format!("turn {turn} interrupted: the budget of {budget} is spent")
            }
        };
        format!("{}  {who}  {what}", rfc3339(self.time))
    }
}

/// The transitions from `before` to `after` (both in tree order), at `now`.
pub fn transitions(before: &[Observed], after: &[Observed], now: i64) -> Vec<Event> {
    let mut out = Vec::new();
    // Matched by id through an index: a tree of 100,000 agents is not
    // 10^10 comparisons.
    let was: std::collections::HashMap<&str, &Observed> =
        before.iter().map(|b| (b.id.as_str(), b)).collect();
    let is: HashSet<&str> = after.iter().map(|a| a.id.as_str()).collect();
    let event = |o: &Observed, change| Event {
        time: now,
        id: o.id.clone(),
        name: o.name.clone(),
        change,
    };
    for a in after {
        let Some(&b) = was.get(a.id.as_str()) else {
            out.push(event(a, Change::Appeared));
            if a.open && a.turn > 0 {
                out.push(event(a, Change::TurnStarted { turn: a.turn }));
            }
            continue;
        };
        // Turns: the ones between the two observations, each once.
        if a.turn < b.turn {
            // A log rewritten under it: its current turn is news.
            if a.open {
                out.push(event(a, Change::TurnStarted { turn: a.turn }));
            }
        } else {
            if b.open && (a.turn > b.turn || !a.open) {
                let ending = (a.turn == b.turn).then(|| a.ending.clone()).flatten();
                out.push(event(
                    a,
                    Change::TurnFinished {
                        turn: b.turn,
                        ending,
                    },
                ));
            }
            for t in b.turn.saturating_add(1)..=a.turn {
                out.push(event(a, Change::TurnStarted { turn: t }));
                if t < a.turn || !a.open {
                    let ending = (t == a.turn).then(|| a.ending.clone()).flatten();
                    out.push(event(a, Change::TurnFinished { turn: t, ending }));
                }
            }
        }
        if a.state != b.state {
            let change = match (is_problem(&b.state), is_problem(&a.state)) {
                (_, true) => Change::Problem {
                    state: a.state.clone(),
                },
                (true, false) => Change::ProblemCleared {
                    state: a.state.clone(),
                },
                (false, false) => Change::Became {
                    from: b.state.clone(),
                    to: a.state.clone(),
                },
            };
            out.push(event(a, change));
        }
        match (b.parked, a.parked) {
            (false, true) => out.push(event(a, Change::Parked)),
            (true, false) => out.push(event(a, Change::Unparked)),
            _ => {}
        }
    }
    for b in before {
        if !is.contains(b.id.as_str()) {
            out.push(event(b, Change::Gone));
        }
    }
    out
}

/// The members of the trees (the one holding `agent`), as `tree --json`
/// shows them, with how many messages each has pending.
pub fn observe(root: &Path, agent: Option<&str>) -> Result<Vec<(Observed, u64)>> {
    Ok(observe_held(&Held::read(root, agent)?))
}

/// `observe` of rows already read.
fn observe_held(held: &Held) -> Vec<(Observed, u64)> {
    held.rows().map(|r| observed(held.store(), &r)).collect()
}

/// One row as `tree --json` shows its member, and its pending count.
fn observed(store: &store::Store, r: &Row) -> (Observed, u64) {
    let s = &store.sessions;
    let a = r.activity.as_deref();
    (
        Observed {
            id: if r.index.get() < s.len() {
                s.id(r.index.get()).to_string()
            } else {
                String::new()
            },
            name: r.name.clone(),
            state: r.state.as_str().to_string(),
            turn: a.map_or(0, |a| a.last_turn),
            open: a.is_some_and(|a| a.open_turn),
            // An open turn has no ending yet (the last is an earlier one's).
            ending: a
                .filter(|a| !a.open_turn)
                .and_then(|a| a.last_ending.as_ref())
                .map(|e| e.word().to_string()),
            parked: a.is_some_and(|a| a.native_parked),
        },
        r.pending.map_or(0, u64::from),
    )
}

/// Messages pending longer than `after_ms` at `now` in the inboxes of
/// `ids`: `(agent, message id, waited)`.
fn stale(root: &Path, ids: &[&str], after_ms: i64, now: i64) -> Result<Vec<(String, String, i64)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    // Only the sessions with pending messages (their exact ids): the ages
    // are looked at every tick, the store is not read for them.
    let store = store::open(
        root,
        Plan::Ids {
            ids,
            up: dsh_store::set::Ancestry::None,
            ahead: None,
        },
    )?;
    let mut out = Vec::new();
    for id in ids {
        let Ok(at) = resolve_agent(&store, id) else {
            continue;
        };
        let Ok(view) = InboxView::read(&store.sessions.record(at)) else {
            continue;
        };
        for t in [Target::NextStep, Target::NextTurn] {
            for m in view.fold.pending(t) {
                let waited = now.saturating_sub(m.time);
                if waited >= after_ms {
                    out.push((id.to_string(), m.id.clone(), waited));
                }
            }
        }
    }
    Ok(out)
}

/// The turns the logs record from `since` up to `until` (inclusive), in
/// time order: what happened before following starts.
pub fn history(root: &Path, agent: Option<&str>, since: i64, until: i64) -> Result<Vec<Event>> {
    let store = store::open(
        root,
        Plan::Whole {
            why: "events reads every log's turns",
        },
    )?;
    // The members `observe` shows: the tree holding `agent`, or all.
    let names: Vec<(String, String)> = observe(root, agent)?
        .into_iter()
        .map(|(o, _)| (o.id, o.name))
        .collect();
    let mut out = Vec::new();
    for (id, name) in &names {
        let Some(at) = store.index_of(id) else {
            continue;
        };
        let rec = store.sessions.record(at);
        if dsh_store::log::inspect(&rec.log()).is_err() {
            continue;
        }
        let mut push = |time: i64, change: Change| {
            if time >= since && time <= until {
                out.push(Event {
                    time,
                    id: id.clone(),
                    name: name.clone(),
                    change,
                });
            }
        };
        dsh_store::log::for_each_event(&rec.log(), |ev| {
            let time = ev["time"].as_i64().unwrap_or(0);
            let turn = ev["data"]["turn"].as_u64().unwrap_or(0);
            match ev["type"].as_str().unwrap_or("") {
                "turn/start" => push(time, Change::TurnStarted { turn }),
                "turn/end" => push(
                    time,
                    Change::TurnFinished {
                        turn,
                        ending: dsh_store::log::Ending::of(&ev["data"]["reason"])
                            .word()
                            .to_string()
                            .into(),
                    },
                ),
                _ => {}
            }
        })
        .map_err(|reason| {
            Error::Store(StoreError::Log {
                path: rec.log(),
                reason,
            })
        })?;
    }
    // (Stable: one agent's turns keep their log order at equal times.)
    out.sort_by_key(|e| e.time);
    Ok(out)
}

/// How `events` runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub agent: Option<String>,
    pub follow: bool,
    pub since: Option<i64>,
    pub stale_after_ms: Option<i64>,
    pub exec: Option<String>,
    pub json: bool,
    /// Where a follower keeps what it last saw (`follow_state`), so a
    /// restarted one goes on from there; none: it starts from what it sees.
    pub state: Option<std::path::PathBuf>,
}

/// Where events go: the output, and `--exec`'s command.
pub struct Sink<'a> {
    out: &'a mut dyn Write,
    json: bool,
    exec: Option<&'a str>,
}

impl<'a> Sink<'a> {
    pub fn new(out: &'a mut dyn Write, json: bool, exec: Option<&'a str>) -> Sink<'a> {
        Sink { out, json, exec }
    }

    /// False once the output is gone (a closed pipe).
    pub fn emit(&mut self, e: &Event) -> Result<bool> {
        let line = if self.json {
            e.json().to_string()
        } else {
            e.text()
        };
        match writeln!(self.out, "{line}").and_then(|()| self.out.flush()) {
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => return Ok(false),
            Err(err) => return Err(Error::Store(StoreError::io("standard output", err))),
            Ok(()) => {}
        }
        if let Some(cmd) = self.exec {
            run_exec(cmd, &e.json());
        }
        Ok(true)
    }
}

/// Run `cmd` with the event on its standard input; a failure is said on
/// stderr and never stops the stream.
fn run_exec(cmd: &str, event: &Value) {
    use std::process::{Command, Stdio};
    let child = Command::new("sh")
        .args(["-c", cmd])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn();
    let result = child.and_then(|mut c| {
        if let Some(mut stdin) = c.stdin.take() {
            // A command that does not read its input is not a failure.
            let _ = writeln!(stdin, "{event}");
        }
        c.wait()
    });
    let kind = event["kind"].as_str().unwrap_or("");
    let agent = event["agent"].as_str().unwrap_or("");
    match result {
        Ok(st) if st.success() => {}
        Ok(st) => eprintln!("events: --exec {cmd:?} failed ({st}) on {kind} of {agent}"),
        Err(e) => eprintln!("events: --exec {cmd:?} could not run ({e}) on {kind} of {agent}"),
    }
}

/// `events`: the history since `--since`, then (following) each
/// transition as it is seen, until Ctrl-C or a closed output.
pub fn run(root: &Path, opts: &Options, out: &mut dyn Write) -> Result<()> {
    let mut sink = Sink {
        out,
        json: opts.json,
        exec: opts.exec.as_deref(),
    };
    let agent = opts.agent.as_deref();
    // Following starts from an observation taken before the history is
    // read, so a turn is in one or the other.
    let saved = opts
        .state
        .as_deref()
        .filter(|_| opts.follow)
        .and_then(follow_state::load);
    let mut watch = StoreWatch::new();
    let mut refresh = Refresh::new();
    // The rows last read, and what the watch told since: a change to
    // shown sessions reads those rows again, anything else the store.
    let mut held: Option<Held> = None;
    let mut told = Changes::default();
    let mut seen = if opts.follow {
        // A follower that ran before goes on from what it last saw: what
        // changed since is reported at its first look.
        match &saved {
            Some(s) => Some(s.observed.clone()),
            None => {
                // The first look, watched from before it is taken.
                let start = Instant::now();
                watch.begin_all(root);
                let h = Held::read(root, agent)?;
                h.each_dir(&mut |d, pos| watch.cover_session(d, pos));
                let observed = observe_held(&h);
                held = Some(h);
                refresh.read(start, start.elapsed(), watch.complete());
                Some(observed)
            }
        }
    } else {
        None
    };
    let start = crate::support::clock::now_ms();
    if let Some(since) = opts.since {
        for e in history(root, agent, since, start)? {
            if !sink.emit(&e)? {
                return Ok(());
            }
        }
    }
    let Some(mut before) = seen.take() else {
        return Ok(());
    };
    crate::support::signals::install();
    let mut reported: HashSet<String> = saved
        .map(|s| s.reported.into_iter().collect())
        .unwrap_or_default();
    let mut keep = Keep::new(opts.state.as_deref());
    keep.save(&before, &reported);
    loop {
        let now = crate::support::clock::now_ms();
        let mut events = Vec::new();
        let mut changed = false;
        // The trees are read again when the store says something changed
        // (and rarely for safety), not at every tick.
        if let Some(due) = refresh.due(Instant::now()) {
            refresh.reading();
            let start = Instant::now();
            let told = std::mem::take(&mut told);
            let reread = match held.as_mut() {
                Some(h) if due == Due::Changed && !told.other => h.reread(&told.sessions),
                _ => None,
            };
            match (reread, held.as_ref()) {
                (Some((was, _)), Some(h)) => {
                    crate::support::debug::plan(|| {
                        format!("events: {} row(s) read again", was.len())
                    });
                    // Only the rows read again are compared.
                    let mut b = Vec::with_capacity(was.len());
                    let mut a = Vec::with_capacity(was.len());
                    for c in &was {
                        let Some((k, row)) = h.changed_row(c) else {
                            continue;
                        };
                        let (o, pending) = observed(h.store(), &row);
                        if let Some(slot) = before.get_mut(k) {
                            b.push(slot.0.clone());
                            a.push(o.clone());
                            changed |= *slot != (o.clone(), pending);
                            *slot = (o, pending);
                        }
                    }
                    events = transitions(&b, &a, now);
                }
                _ => {
                    watch.begin_all(root);
                    let h = Held::read(root, agent)?;
                    h.each_dir(&mut |d, pos| watch.cover_session(d, pos));
                    let after = observe_held(&h);
                    held = Some(h);
                    let b: Vec<Observed> = before.iter().map(|(o, _)| o.clone()).collect();
                    let a: Vec<Observed> = after.iter().map(|(o, _)| o.clone()).collect();
                    events = transitions(&b, &a, now);
                    changed |= after != before;
                    before = after;
                }
            }
            refresh.read(start, start.elapsed(), watch.complete());
        }
        // Pending messages age with the clock: their inboxes are looked at
        // every tick.
        if let Some(limit) = opts.stale_after_ms {
            let waiting: Vec<&str> = before
                .iter()
                .filter(|(_, pending)| *pending > 0)
                .map(|(o, _)| o.id.as_str())
                .collect();
            let stale = stale(root, &waiting, limit, now)?;
            // Each message once; one that is no longer pending is forgotten.
            let still: HashSet<&String> = stale.iter().map(|(_, m, _)| m).collect();
            reported.retain(|m| still.contains(m));
            for (id, message, waited) in stale {
                if reported.insert(message.clone()) {
                    let name = before
                        .iter()
                        .find(|(o, _)| o.id == id)
                        .map_or(String::new(), |(o, _)| o.name.clone());
                    events.push(Event {
                        time: now,
                        id,
                        name,
                        change: Change::PendingStale {
                            message,
                            waited_ms: waited,
                        },
                    });
                }
            }
        }
        let mut open = true;
        for e in &events {
            if !sink.emit(e)? {
                open = false;
                break;
            }
        }
        // Saved once its events are out (a closed output took the ones
        // written before it): a restart reports none of them again.
        if changed || !events.is_empty() {
            keep.save(&before, &reported);
        }
        if !open {
            return Ok(());
        }
        if crate::support::signals::view_done() {
            return Ok(());
        }
        let changes = watch.wait_changes(crate::support::refresh::TICK);
        if changes.any() {
            told.add(changes);
            refresh.changed();
        }
        if crate::support::signals::view_done() {
            return Ok(());
        }
    }
}

/// Where a follower saves what it saw (`follow_state`); a cache that
/// cannot be written is said once and costs only the resumption.
struct Keep<'a> {
    path: Option<&'a Path>,
    said: bool,
}

impl<'a> Keep<'a> {
    fn new(path: Option<&'a Path>) -> Keep<'a> {
        Keep { path, said: false }
    }

    fn save(&mut self, observed: &[(Observed, u64)], reported: &HashSet<String>) {
        let Some(path) = self.path else { return };
        let mut reported: Vec<String> = reported.iter().cloned().collect();
        reported.sort();
        let state = follow_state::FollowState::new(observed.to_vec(), reported);
        if let Err(e) = follow_state::save(path, &state)
            && !std::mem::replace(&mut self.said, true)
        {
            eprintln!(
                "events: cannot save what was seen to \"{}\": {e}; a restart will not go on from here",
                path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(id: &str, state: &str, turn: u64, open: bool) -> Observed {
        Observed {
            id: id.into(),
            name: id.into(),
            state: state.into(),
            turn,
            open,
            ending: (!open && turn > 0).then(|| "completed".to_string()),
            parked: false,
        }
    }

    fn kinds(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match &e.change {
                Change::TurnStarted { turn } => format!("{} started {turn}", e.id),
                Change::TurnFinished { turn, ending } => {
                    format!(
                        "{} finished {turn} {}",
                        e.id,
                        ending.as_deref().unwrap_or("?")
                    )
                }
                Change::Became { from, to } => format!("{} {from}->{to}", e.id),
                c => format!("{} {}", e.id, c.kind()),
            })
            .collect()
    }

    #[test]
    fn each_transition_once() {
        type Case = (
            &'static str,
            Vec<Observed>,
            Vec<Observed>,
            Vec<&'static str>,
        );
        let cases: Vec<Case> = vec![
            (
                "nothing changed",
                vec![o("a", "idle", 2, false)],
                vec![o("a", "idle", 2, false)],
                vec![],
            ),
            (
                "a turn starts",
                vec![o("a", "idle", 2, false)],
                vec![o("a", "running", 3, true)],
                vec!["a started 3", "a idle->running"],
            ),
            (
                "it finishes",
                vec![o("a", "running", 3, true)],
                vec![o("a", "idle", 3, false)],
                vec!["a finished 3 completed", "a running->idle"],
            ),
            (
                "a whole turn between looks",
                vec![o("a", "idle", 2, false)],
                vec![o("a", "idle", 3, false)],
                vec!["a started 3", "a finished 3 completed"],
            ),
            (
                "an open turn ends, two more run",
                vec![o("a", "running", 2, true)],
                vec![o("a", "running", 4, true)],
                vec![
                    "a finished 2 ?",
                    "a started 3",
                    "a finished 3 ?",
                    "a started 4",
                ],
            ),
            (
                "a problem",
                vec![o("a", "inactive", 1, false)],
                vec![o("a", "corrupt", 1, false)],
                vec!["a problem"],
            ),
            (
                "it clears",
                vec![o("a", "corrupt", 1, false)],
                vec![o("a", "inactive", 1, false)],
                vec!["a problem-cleared"],
            ),
            (
                "a new agent mid-turn",
                vec![],
                vec![o("b", "running", 1, true)],
                vec!["b appeared", "b started 1"],
            ),
            (
                "an agent goes",
                vec![o("b", "idle", 1, false)],
                vec![],
                vec!["b gone"],
            ),
            (
                "a log rewritten back",
                vec![o("a", "idle", 5, false)],
                vec![o("a", "idle", 1, false)],
                vec![],
            ),
        ];
        for (what, before, after, want) in cases {
            assert_eq!(kinds(&transitions(&before, &after, 7)), want, "{what}");
        }
        let mut parked = o("a", "idle", 1, false);
        parked.parked = true;
        assert_eq!(
            kinds(&transitions(
                &[o("a", "idle", 1, false)],
                &[parked.clone()],
                7
            )),
            ["a parked"]
        );
        assert_eq!(
            kinds(&transitions(&[parked], &[o("a", "idle", 1, false)], 7)),
            ["a unparked"]
        );
    }
}
