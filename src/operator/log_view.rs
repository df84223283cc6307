//! `log`: an agent's transcript for people (or as JSON lines), in the order
//! its events were written: turn starts, what the model saw, turn endings.
//! `--follow` prints new events as they are committed until the session
//! settles. A whole log is streamed (`store::log::conversation_stream`), so its
//! memory does not grow with the log; `--last` and `--follow` fold what
//! they show.

use crate::error::{Error, Result};
use crate::inbox::{Inbox, watch};
use crate::support::clock::{human_duration, rfc3339};
use crate::support::signals;
use crate::tree::Corpus;
use dsh_store::accel::ScanCache;
use dsh_store::log::{Conversation, Ending, Entry, From, Item, Turn};
use dsh_store::log::{Shown, stream_conversation};
use dsh_store::{SessionRecord, StoreError};
use serde_json::{Value, json};
use std::io::Write;
use std::time::Duration;

/// Longest tool result or message shown in full without `--full`.
pub const CUT_LINES: usize = 12;
pub const CUT_CHARS: usize = 1200;

#[derive(Debug, Clone, Copy, Default)]
pub struct LogOptions {
    pub last: Option<usize>,
    pub reasoning: bool,
    pub full: bool,
    pub json: bool,
    pub follow: bool,
    pub poll: bool,
}

/// Who the session is, for the first line.
#[derive(Debug, Clone, Default)]
pub struct Title {
    pub name: String,
    pub mode: String,
    pub label: String,
    pub parent: Option<String>,
}

impl Title {
    fn line(&self, id: &str) -> String {
        let mut s = format!("session {id}");
        if self.name != id {
            s.push_str(&format!(" · {}", self.name));
        }
        if !self.mode.is_empty() {
            s.push_str(&format!(" · {}", self.mode));
        }
        if let Some(p) = &self.parent {
            s.push_str(&format!(" · child of {p}"));
        }
        if !self.label.is_empty() {
            s.push_str(&format!(" · {}", self.label.replace('\n', " ")));
        }
        s
    }
}

/// One printable event of the log, in seq order.
enum Line<'a> {
    Start(&'a Turn),
    Entry(&'a Entry),
    End(&'a Turn),
}

impl Line<'_> {
    fn seq(&self) -> u64 {
        match self {
            Line::Start(t) => t.start_seq,
            Line::Entry(e) => e.seq,
            Line::End(t) => t.end.as_ref().map_or(u64::MAX, |e| e.0),
        }
    }
}

fn lines(c: &Conversation, from_seq: u64) -> Vec<Line<'_>> {
    let mut out: Vec<Line> = Vec::new();
    for t in &c.turns {
        out.push(Line::Start(t));
        if t.end.is_some() {
            out.push(Line::End(t));
        }
    }
    out.extend(c.entries.iter().map(Line::Entry));
    out.retain(|l| l.seq() >= from_seq);
    out.sort_by_key(Line::seq);
    out
}

/// The first seq shown under `--last N`.
fn first_seq(c: &Conversation, last: Option<usize>) -> u64 {
    match last {
        // (`--last 0` is refused by the CLI; here it would show everything.)
        Some(n) if n > 0 && n < c.turns.len() => c.turns[c.turns.len() - n].start_seq,
        Some(_) | None => 0,
    }
}

fn indent(text: &str, pad: &str) -> String {
    text.lines().collect::<Vec<_>>().join(&format!("\n{pad}"))
}

/// A long text cut to its head, with a marker saying what was left out.
fn cut(text: &str, full: bool) -> String {
    let lines = text.lines().count();
    if full || (lines <= CUT_LINES && text.chars().count() <= CUT_CHARS) {
        return text.to_string();
    }
    let mut head: String = text.lines().take(CUT_LINES).collect::<Vec<_>>().join("\n");
    if head.chars().count() > CUT_CHARS {
        head = head.chars().take(CUT_CHARS).collect();
    }
    let left = text.chars().count() - head.chars().count();
    format!("{head}\n… cut: {left} more characters ({lines} lines in all); --full shows all")
}

fn from_text(from: &From) -> String {
    match from {
        From::User => "user".into(),
        From::Agent(s) => format!("agent message (from {s})"),
        From::Parent(s) => format!("parent (from {s})"),
        From::SubagentReport(s) => format!("subagent report (from {s})"),
        From::SubagentSettled => "subagent settled notice".into(),
        From::RuntimeContext => "runtime context".into(),
        From::Compaction => "compaction summary".into(),
        From::Other(k) => k.clone(),
    }
}

/// What started a turn, as its first line says it: the first message of
/// the turn that is not runtime context.
fn trigger_of(e: &Entry) -> Option<String> {
    match &e.item {
        Item::User { from, .. } if *from != From::RuntimeContext => Some(from_text(from)),
        _ => None,
    }
}

/// The trigger of turn `t` in a whole conversation.
fn trigger_in(c: &Conversation, t: &Turn) -> String {
    let end = t.end.as_ref().map_or(u64::MAX, |e| e.0);
    // Entries are in log order: start at the turn's, never walk every
    // earlier turn's (a whole log would cost turns × entries).
    let from = c.entries.partition_point(|e| e.seq <= t.start_seq);
    c.entries[from..]
        .iter()
        .take_while(|e| e.seq < end)
        .find_map(trigger_of)
        .unwrap_or_else(|| NO_INPUT.into())
}

const NO_INPUT: &str = "no input";

fn render_start(t: &Turn, trigger: &str) -> String {
    format!(
        "── turn {} · {} · from {trigger}",
        t.number,
        rfc3339(t.started)
    )
}

fn render_line(line: &Line, trigger: &dyn Fn(&Turn) -> String, opts: LogOptions) -> String {
    match line {
        Line::Start(t) => render_start(t, &trigger(t)),
        Line::End(t) => {
            let (_, time, ending) = t.end.as_ref().expect("only ended turns");
            format!(
                "── turn {} {} after {}",
                t.number,
                ending.describe(),
                human_duration(time - t.started)
            )
        }
        Line::Entry(e) => {
            let replaced = match (e.replaced, e.shadowed) {
                (0, false) => String::new(),
                (0, true) => " [compacted later]".to_string(),
                (n, false) => format!(" (replaces {n} earlier items)"),
                (n, true) => format!(" (replaces {n} earlier items) [compacted later]"),
            };
            match &e.item {
                Item::User {
                    from: From::RuntimeContext,
                    text,
                    ..
                } if !opts.full => format!(
                    "  [runtime context: {} characters; --full shows it]{replaced}",
                    text.chars().count()
                ),
                Item::User { from, text, .. } => format!(
                    "  {}{replaced}: {}",
                    from_text(from),
                    indent(&cut(text, opts.full), "    ")
                ),
                Item::Assistant {
                    text,
                    reasoning,
                    calls,
                } => {
                    let mut out = Vec::new();
                    if !reasoning.is_empty() {
                        out.push(if opts.reasoning {
                            format!("  reasoning: {}", indent(reasoning, "    "))
                        } else {
                            format!(
                                "  [reasoning: {} characters; --reasoning shows it]",
                                reasoning.chars().count()
                            )
                        });
                    }
                    if !text.is_empty() {
                        out.push(format!(
                            "  assistant{replaced}: {}",
                            indent(&cut(text, opts.full), "    ")
                        ));
                    }
                    for call in calls {
                        out.push(format!(
                            "  → {} {} [{}]",
                            call.name,
                            indent(&cut(&call.arguments, opts.full), "    "),
                            call.id
                        ));
                    }
                    if out.is_empty() {
                        out.push(format!("  assistant{replaced}: (empty)"));
                    }
                    out.join("\n")
                }
                Item::ToolResult {
                    call_id,
                    text,
                    is_error,
                } => format!(
                    "  ← {}[{call_id}]{replaced}: {}",
                    if *is_error { "error " } else { "" },
                    indent(&cut(text, opts.full), "    ")
                ),
            }
        }
    }
}

fn json_line(line: &Line, rec: &SessionRecord) -> Value {
    let id = &rec.header.id();
    match line {
        Line::Start(t) => json!({
            "kind": "turn-start", "session": id, "turn": t.number, "seq": t.start_seq,
            "time": rfc3339(t.started),
        }),
        Line::End(t) => {
            let (seq, time, ending) = t.end.as_ref().expect("only ended turns");
            let mut v = json!({
                "kind": "turn-end", "session": id, "turn": t.number, "seq": seq,
                "time": rfc3339(*time), "ending": ending.word(),
                "durationMs": time - t.started,
            });
            match ending {
                Ending::Aborted(by) => v["by"] = json!(by),
                Ending::Error(m) => v["error"] = json!(m),
                _ => {}
            }
            v
        }
        Line::Entry(e) => {
            let mut v = json!({
                "session": id, "turn": e.turn, "seq": e.seq, "time": rfc3339(e.time),
            });
            if e.replaced > 0 {
                v["replaces"] = json!(e.replaced);
            }
            if e.shadowed {
                v["shadowed"] = json!(true);
            }
            match &e.item {
                Item::User { from, text, id, .. } => {
                    v["kind"] = json!("user");
                    v["from"] = json!(from.kind());
                    if let Some(s) = from.sender() {
                        v["sender"] = json!(s);
                    }
                    v["messageId"] = json!(id);
                    v["text"] = json!(text);
                }
                Item::Assistant {
                    text,
                    reasoning,
                    calls,
                } => {
                    v["kind"] = json!("assistant");
                    v["text"] = json!(text);
                    v["reasoning"] = json!(reasoning);
                    v["toolCalls"] = calls
                        .iter()
                        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
                        .collect();
                }
                Item::ToolResult {
                    call_id,
                    text,
                    is_error,
                } => {
                    v["kind"] = json!("tool-result");
                    v["callId"] = json!(call_id);
                    v["isError"] = json!(is_error);
                    v["text"] = json!(text);
                }
            }
            v
        }
    }
}

/// The conversation `--last` shows (its last `last` turns, read from where
/// they start when the log allows), and where it was read from.
fn read(rec: &SessionRecord, last: Option<usize>) -> Result<(Conversation, u64)> {
    Conversation::read_last(&rec.log(), last).map_err(|reason| {
        Error::Store(StoreError::Log {
            path: rec.log(),
            reason,
        })
    })
}

/// The conversation from byte `offset` on again (a follower's re-read).
fn read_again(rec: &SessionRecord, offset: u64) -> Result<Conversation> {
    let read = if offset == 0 {
        Conversation::read(&rec.log())
    } else {
        Conversation::read_from(&rec.log(), offset).map(|(c, _)| c)
    };
    read.map_err(|reason| {
        Error::Store(StoreError::Log {
            path: rec.log(),
            reason,
        })
    })
}

/// Print lines from `from_seq` on; returns the next seq to print from.
fn print(
    out: &mut dyn Write,
    rec: &SessionRecord,
    c: &Conversation,
    from_seq: u64,
    opts: LogOptions,
) -> Result<u64> {
    let mut next = from_seq;
    let mut text = String::new();
    for line in lines(c, from_seq) {
        if opts.json {
            text.push_str(&json_line(&line, rec).to_string());
        } else {
            text.push_str(&render_line(&line, &|t| trigger_in(c, t), opts));
        }
        text.push('\n');
        next = next.max(line.seq() + 1);
    }
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(u64::MAX),
        Err(e) => Err(Error::Store(StoreError::io("standard output", e))),
        Ok(()) => Ok(next),
    }
}

/// A piece of streamed output: ready, or a turn's first line still
/// waiting for what started the turn.
enum Piece {
    Ready(String),
    Start {
        turn: Turn,
        trigger: Option<String>,
        looking: bool,
    },
}

/// The whole log, streamed (`store::log::conversation_stream`): memory holds
/// the lines of a turn whose first line still waits for what started it,
/// not the transcript. False when the log must be folded whole (nothing
/// was written then).
fn stream_whole(out: &mut dyn Write, rec: &SessionRecord, opts: LogOptions) -> Result<bool> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut pieces: std::collections::VecDeque<Piece> = std::collections::VecDeque::new();
    let mut failed: Option<std::io::Error> = None;
    let write = |out: &mut std::io::BufWriter<&mut dyn Write>,
                 failed: &mut Option<std::io::Error>,
                 text: &str| {
        if failed.is_none()
            && let Err(e) = out
                .write_all(text.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
        {
            *failed = Some(e);
        }
        failed.is_none()
    };
    let flush = |out: &mut std::io::BufWriter<&mut dyn Write>,
                 failed: &mut Option<std::io::Error>,
                 pieces: &mut std::collections::VecDeque<Piece>,
                 all: bool| {
        while let Some(front) = pieces.front() {
            if !all && matches!(front, Piece::Start { looking: true, .. }) {
                break;
            }
            let text = match pieces.pop_front() {
                Some(Piece::Ready(text)) => text,
                Some(Piece::Start { turn, trigger, .. }) => {
                    render_start(&turn, trigger.as_deref().unwrap_or(NO_INPUT))
                }
                None => break,
            };
            if !write(out, failed, &text) {
                return false;
            }
        }
        true
    };
    let streamed = stream_conversation(&rec.log(), &mut |shown| {
        let line = match &shown {
            Shown::Start(t) => Line::Start(t),
            Shown::Entry(e) => Line::Entry(e),
            Shown::End(t) => Line::End(t),
        };
        if opts.json {
            return write(&mut out, &mut failed, &json_line(&line, rec).to_string());
        }
        match &shown {
            Shown::Start(t) => {
                pieces.push_back(Piece::Start {
                    turn: t.clone(),
                    trigger: None,
                    looking: true,
                });
                return true;
            }
            Shown::Entry(e) => {
                if let Some(found) = trigger_of(e) {
                    for p in pieces.iter_mut() {
                        if let Piece::Start {
                            trigger,
                            looking: looking @ true,
                            ..
                        } = p
                        {
                            *trigger = Some(found.clone());
                            *looking = false;
                        }
                    }
                }
            }
            // Its turn stops looking: no input started it.
            Shown::End(t) => {
                for p in pieces.iter_mut() {
                    if let Piece::Start { turn, looking, .. } = p
                        && turn.start_seq == t.start_seq
                    {
                        *looking = false;
                    }
                }
            }
        }
        let text = render_line(&line, &|_| NO_INPUT.into(), opts);
        pieces.push_back(Piece::Ready(text));
        flush(&mut out, &mut failed, &mut pieces, false)
    });
    let streamed = streamed.map_err(|reason| {
        Error::Store(StoreError::Log {
            path: rec.log(),
            reason,
        })
    })?;
    flush(&mut out, &mut failed, &mut pieces, true);
    if failed.is_none()
        && let Err(e) = out.flush()
    {
        failed = Some(e);
    }
    match failed {
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(true),
        Some(e) => Err(Error::Store(StoreError::io("standard output", e))),
        None => Ok(streamed),
    }
}

/// Settled: no turn is open, nothing is waiting to be claimed, and no
/// resident process is mid-turn.
fn settled(rec: &SessionRecord, c: &Conversation) -> bool {
    let idle = !crate::inbox::liveness::probe(&rec.dir()).is_working();
    let nothing_queued = Inbox::new(&rec.dir())
        .read()
        .map(|f| f.claimable().is_empty())
        .unwrap_or(true);
    !c.open_turn() && idle && nothing_queued
}

/// Write the log of `rec` to `out`; with `follow`, keep writing until the
/// session settles after a turn (one that was running, queued, or starts
/// while following), or the user stops us.
pub fn log(
    out: &mut dyn Write,
    rec: &SessionRecord,
    title: &Title,
    opts: LogOptions,
) -> Result<()> {
    let head = if opts.json {
        json!({"kind": "session", "session": rec.header.id(), "name": title.name,
               "parent": title.parent, "label": title.label,
               "mode": title.mode, "log": rec.log()})
        .to_string()
    } else {
        title.line(rec.header.id())
    };
    writeln!(out, "{head}").map_err(|e| StoreError::io("standard output", e))?;
    // What the lines hold is shown either way; a log DSH itself would not
    // read (a defect before a committed turn end) says so first, as `tree`
    // says `unavailable`. Checked on a whole read only: `--last` reads the
    // tail, and `check` reads everything.
    if opts.last.is_none()
        && let Err(reason) = dsh_store::log::inspect(&rec.log())
    {
        let line = if opts.json {
            json!({"kind": "unreadable", "reason": reason.to_string()}).to_string()
        } else {
            format!("!! DSH cannot read this log ({reason}); below is what its lines hold")
        };
        writeln!(out, "{line}").map_err(|e| StoreError::io("standard output", e))?;
    }
    if opts.last.is_none() && !opts.follow {
        if stream_whole(out, rec, opts)? {
            crate::support::debug::plan(|| "log: streamed in three passes".into());
            return Ok(());
        }
        crate::support::debug::plan(|| {
            "log: read whole (its events are out of order for streaming)".into()
        });
    }
    let (c, offset) = read(rec, opts.last)?;
    let mut next = print(out, rec, &c, first_seq(&c, opts.last), opts)?;
    if !opts.follow {
        return Ok(());
    }
    signals::install();
    let watcher = watch::Watcher::new(&rec.dir(), opts.poll);
    // No stamp yet: one taken after the first read could be of a log
    // written since, and hide that write; the first look reads again.
    let mut seen = None;
    let mut c = c;
    // Settled at the start, there is nothing to wait out yet: follow until
    // a turn starts and the session settles again.
    let mut busy = !settled(rec, &c);
    let turns_at_start = c.turns.len();
    let mut rec = rec.clone();
    let mut offset = offset;
    while next != u64::MAX && !signals::view_done() {
        // A newer generation written beside the log takes over (newer DSH
        // writes `session.vN.jsonl` next to the old one): follow the log
        // that counts, from its start.
        if let dsh_store::files::Current::One(name) = dsh_store::files::current_in(&rec.dir())
            && name != rec.log_name()
        {
            rec.generation = name.generation;
            rec.suffix = name.suffix;
            let line = if opts.json {
                json!({"kind": "log", "log": rec.log()}).to_string()
            } else {
                format!(
                    "── the session continues in {} (a newer log beside the old one)",
                    name.file_name()
                )
            };
            writeln!(out, "{line}").map_err(|e| StoreError::io("standard output", e))?;
            offset = 0;
            seen = None;
            c = read_again(&rec, offset)?;
            next = print(out, &rec, &c, first_seq(&c, None), opts)?;
            continue;
        }
        if settled(&rec, &c) {
            if busy || c.turns.len() > turns_at_start {
                // Settled as far as the last read saw: a log that changed
                // since (a turn started and claimed its input, or ended)
                // is read and printed, and looked at again.
                let now = watch::stamp(&rec.log());
                if now != seen {
                    seen = now;
                    c = read_again(&rec, offset)?;
                    next = print(out, &rec, &c, next, opts)?;
                    continue;
                }
                break;
            }
        } else {
            busy = true;
        }
        watcher.wait(Duration::from_millis(250));
        let now = watch::stamp(&rec.log());
        if now == seen {
            continue;
        }
        seen = now;
        c = read_again(&rec, offset)?;
        next = print(out, &rec, &c, next, opts)?;
    }
    Ok(())
}

impl Title {
    /// The name, mode and label `log` shows first: as the agent's tree sees it.
    /// A `--last` read takes the agent's own identity from its log's head, so
    /// its cost follows the turns shown, not the log.
    pub fn of(corpus: &Corpus, index: usize, tail: bool) -> Title {
        use dsh_store::set::Glance;
        let rec = corpus.record(index);
        let root = corpus.root_of(index).ok();
        let own = (tail && root != Some(index)).then(|| {
            match dsh_store::log::head_identity(
                &rec.log(),
                &rec.header,
                dsh_store::format::Dialect::Seed001,
            ) {
                Ok(identity) => Glance::Read {
                    same_header: true,
                    identity,
                    usage: Default::default(),
                },
                Err(_) => Glance::Unreadable,
            }
        });
        let member =
            root.and_then(|root| corpus.v2_member_seen(&ScanCache::default(), root, index, own));
        Title {
            name: member
                .as_ref()
                .map_or(rec.header.id().to_string(), |m| m.name.clone()),
            mode: member
                .as_ref()
                .map_or("", |m| m.kind.mode().as_str())
                .to_string(),
            label: match member.map(|m| m.kind) {
                Some(crate::tree::v2::MemberKind::Continuable { label }) => label,
                _ => String::new(),
            },
            parent: corpus.parent_of(index).map(|p| corpus.id(p).to_string()),
        }
    }
}
