//! `trace`: where one message went. From the target's inbox: when it was
//! sent, by whom, to which list, and whether it was claimed or canceled;
//! from the target's transcript: the event where it entered the model's
//! context and how that turn ended; otherwise why it has not arrived.

use crate::error::{Error, Result};
use crate::inbox::Inbox;
use crate::inbox::history::{History, Standing};
use crate::support::clock::rfc3339;
use crate::tree::Corpus;
use dsh_store::LogError;
use dsh_store::log::{Ending, From};
use dsh_store::{SessionRecord, StoreError};
use serde_json::{Value, json};

/// Where a message stands, all things considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// In the transcript, in a turn that completed or is still running.
    Delivered,
    /// In the transcript, but the turn that carried it did not complete.
    TurnFailed(String),
    /// Claimed, yet no transcript event holds it.
    ClaimedNotRecorded,
    Pending {
        ahead: usize,
        live: bool,
    },
    Parked,
    Canceled,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Delivered => "delivered",
            Verdict::TurnFailed(_) => "turn-failed",
            Verdict::ClaimedNotRecorded => "claimed-not-recorded",
            Verdict::Pending { .. } => "pending",
            Verdict::Parked => "parked",
            Verdict::Canceled => "canceled",
        }
    }

    fn why(&self) -> String {
        match self {
            Verdict::Delivered => "it entered the model's context".into(),
            Verdict::TurnFailed(how) => {
                format!("it entered the model's context, but the turn that carried it ended {how}")
            }
            Verdict::ClaimedNotRecorded => "a step boundary claimed it, but no transcript event holds it: the claiming process stopped before recording it (a rerun delivers it again) or recorded it elsewhere".into(),
            Verdict::Pending { ahead, live } => format!(
                "it waits in the inbox with {ahead} message(s) ahead of it; {}",
                if *live {
                    "a resident process holds the agent and claims it at a step boundary"
                } else {
                    "no process holds the agent live: it is delivered when `serve` or DSH runs the agent"
                }
            ),
            Verdict::Parked => "an interrupt parked the inbox after it was sent: nothing is claimed until the next message arrives".into(),
            Verdict::Canceled => "it was canceled before delivery".into(),
        }
    }
}

/// The transcript event that carried a message.
#[derive(Debug, Clone)]
pub struct Carried {
    pub seq: u64,
    pub time: i64,
    pub turn: u64,
    pub ending: Option<Ending>,
}

#[derive(Debug, Clone)]
pub struct Trace {
    pub id: String,
    pub target_id: String,
    pub target_name: String,
    pub history: History,
    pub carried: Option<Carried>,
    pub verdict: Verdict,
}

/// The transcript event that carried message `id` (by its own id, or the
/// one a bridge delivery to a cold child carried). A message a crashed turn
/// held and a rerun carried again is reported where it last ran to an end
/// that counts: the newest carrier whose turn completed or still runs, else
/// the newest. One streaming pass over the log holding only the carriers
/// and the turns they ran in: memory follows the carriers, not the log.
fn find_carrier(path: &std::path::Path, id: &str) -> Result<Option<Carried>, LogError> {
    use dsh_store::format::safe_int_value;
    let mut carriers: Vec<(Carried, usize)> = Vec::new();
    // The turn/start events seen, the number of the latest, and for the
    // numbers a carrier ran in, the latest start of each (a turn/end of
    // number n ends the latest turn n).
    let mut starts = 0usize;
    let mut number = 0u64;
    let mut latest: std::collections::HashMap<u64, usize> = Default::default();
    dsh_store::log::for_each_event(path, |ev| {
        let seq = safe_int_value(ev.get("seq")).unwrap_or(0).max(0) as u64;
        let data = &ev["data"];
        let turn_of = |d: &Value| safe_int_value(d.get("turn")).unwrap_or(0).max(0) as u64;
        match ev["type"].as_str().unwrap_or("") {
            "turn/start" => {
                starts += 1;
                number = turn_of(data);
                if let Some(at) = latest.get_mut(&number) {
                    *at = starts;
                }
            }
            "turn/end" => {
                let n = turn_of(data);
                if let Some(at) = latest.get(&n) {
                    let ending = Ending::of(&data["reason"]);
                    for (c, _) in carriers.iter_mut().filter(|(_, s)| s == at) {
                        c.ending = Some(ending.clone());
                    }
                }
            }
            "user/message" => {
                let carries = data["id"].as_str() == Some(id)
                    || data["source"]["dshAgentsMessageId"].as_str() == Some(id);
                if carries {
                    let time = safe_int_value(ev.get("time")).unwrap_or(0);
                    // Before any turn/start the message has no turn of its own.
                    let turn = if starts == 0 { turn_of(data) } else { number };
                    latest.entry(number).or_insert(starts);
                    carriers.push((
                        Carried {
                            seq,
                            time,
                            turn,
                            ending: None,
                        },
                        starts,
                    ));
                }
            }
            _ => {}
        }
    })?;
    let counts = |c: &Carried| matches!(c.ending, None | Some(Ending::Completed));
    let best = carriers
        .iter()
        .rposition(|(c, _)| counts(c))
        .or(carriers.len().checked_sub(1));
    Ok(best
        .and_then(|b| carriers.into_iter().nth(b))
        .map(|(c, _)| c))
}

/// Trace message `id` in the inbox and log of session `target`.
pub fn trace(corpus: &Corpus, target: usize, id: &str) -> Result<Trace> {
    let rec: &SessionRecord = &corpus.record(target);
    let inbox = Inbox::new(&rec.dir());
    let history = inbox.history(id)?;
    let fold = inbox.read()?;
    let carried = find_carrier(&rec.log(), id).map_err(|reason| {
        Error::Store(StoreError::Log {
            path: rec.log(),
            reason,
        })
    })?;
    let standing = history.standing(&fold);
    let verdict = match (&carried, standing) {
        (Some(c), _) => match &c.ending {
            None | Some(Ending::Completed) => Verdict::Delivered,
            Some(Ending::Aborted(by)) => Verdict::TurnFailed(format!("aborted by {by}")),
            Some(Ending::Error(m)) => Verdict::TurnFailed(format!("in an error: {m}")),
            Some(other) => Verdict::TurnFailed(other.word().to_string()),
        },
        (None, Standing::Unknown) => {
            return Err(Error::usage(format!(
                "no message \"{id}\" in the inbox or the transcript of \"{}\"",
                rec.header.id()
            )));
        }
        (None, Standing::Claimed) => Verdict::ClaimedNotRecorded,
        (None, Standing::Canceled) => Verdict::Canceled,
        (None, Standing::Parked) => Verdict::Parked,
        (None, Standing::Pending { ahead }) => Verdict::Pending {
            ahead,
            live: corpus.live(target).is_live(),
        },
    };
    let target_name = corpus.root_of(target).map_or_else(
        |_| rec.header.id().to_string(),
        |r| corpus.v2_name(r, target),
    );
    Ok(Trace {
        id: id.to_string(),
        target_id: rec.header.id().to_string(),
        target_name,
        history,
        carried,
        verdict,
    })
}

fn sender(source: &Value) -> String {
    let from = From::of(source);
    match from.sender() {
        Some(s) => format!("{} {s}", from.kind()),
        None => from.kind().to_string(),
    }
}

impl Trace {
    pub fn render(&self) -> String {
        let mut out = vec![format!(
            "message {} to {} ({})",
            self.id, self.target_name, self.target_id
        )];
        match &self.history.message {
            Some(m) => out.push(format!(
                "  sent       {}  from {} · {}",
                rfc3339(m.time),
                sender(&m.source),
                m.target.as_str()
            )),
            None => out.push("  sent       (the inbox record was compacted away)".into()),
        }
        // The steps in the order they happened: `serve` and the bridge both
        // write a claim only once the transcript holds the message (a tie
        // keeps that order).
        let mut steps: Vec<(i64, String)> = Vec::new();
        if let Some(c) = &self.carried {
            let ending = c
                .ending
                .as_ref()
                .map_or("still running".to_string(), |e| e.word().to_string());
            let line = format!(
                "  in context {}  seq {} · turn {} ({ending})",
                rfc3339(c.time),
                c.seq,
                c.turn
            );
            steps.push((c.time, line));
        }
        if let Some(t) = self.history.claimed {
            steps.push((t, format!("  claimed    {}", rfc3339(t))));
        }
        if let Some(t) = self.history.canceled {
            steps.push((t, format!("  canceled   {}", rfc3339(t))));
        }
        steps.sort_by_key(|(t, _)| *t);
        out.extend(steps.into_iter().map(|(_, line)| line));
        out.push(format!("{}: {}", self.verdict.word(), self.verdict.why()));
        out.join("\n")
    }

    pub fn json(&self) -> Value {
        let m = self.history.message.as_ref();
        json!({
            "id": self.id,
            "target": {"id": self.target_id, "name": self.target_name},
            "sent": m.map(|m| json!({
                "time": rfc3339(m.time),
                "list": m.target.as_str(),
                "from": From::of(&m.source).kind(),
                "sender": From::of(&m.source).sender(),
            })),
            "claimed": self.history.claimed.map(rfc3339),
            "canceled": self.history.canceled.map(rfc3339),
            "transcript": self.carried.as_ref().map(|c| json!({
                "seq": c.seq,
                "time": rfc3339(c.time),
                "turn": c.turn,
                "ending": c.ending.as_ref().map(Ending::word),
            })),
            "status": self.verdict.word(),
            "why": self.verdict.why(),
        })
    }
}

/// The one session whose inbox holds message `id` (every inbox searched),
/// or the sessions that do when that is not one (none, or several).
pub fn inbox_holding(store: &dsh_store::Store, id: &str) -> Result<usize, Vec<usize>> {
    let dirs: Vec<std::path::PathBuf> = store.sessions.iter().map(|s| s.dir()).collect();
    // The byte search only narrows: a message whose text holds the id
    // mentions it too. A hit counts when a record names the id as its own
    // (the message, or a claim or cancel of it).
    let hits: Vec<usize> = crate::inbox::locate::inboxes_mentioning(&dirs, id)
        .into_iter()
        .filter(|i| {
            crate::inbox::Inbox::new(&dirs[*i])
                .history(id)
                .is_ok_and(|h| h.message.is_some() || h.claimed.is_some() || h.canceled.is_some())
        })
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        other => Err(other.to_vec()),
    }
}
