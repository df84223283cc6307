//! `export --otlp`: a stored tree as OpenTelemetry traces, following the
//! GenAI semantic conventions 1.42 (Development; `model/gen-ai/registry.yaml`):
//! one trace per root turn; an `invoke_agent` span per turn of any agent, a
//! `chat` span per model step with its `gen_ai.usage.*`, an `execute_tool`
//! span per tool call. A child's turn is nested under the parent's tool call
//! that delegated it (the latest call before the turn whose arguments or
//! result name the child: `subagent`, `send_message`, …), that call a
//! PRODUCER and the child's turn a CONSUMER linked back to it; a turn no
//! call can be found for starts its own trace, linked to the parent's turn
//! running when it started. Trace and span ids are hashes of session ids
//! and seqs: a re-export gives the same ids. Message text and tool
//! arguments are left out unless asked for (`content`).
//!
//! Invariant: the export streams. Spans are handed on as logs are read,
//! a bounded number at a time; what is held is the sessions on the way down
//! to the one being read, never the store's spans.

use crate::tree::Corpus;
use crate::tree::preorder::{Preorder, Visit};
use dsh_store::LogError;
use dsh_store::format::TokenCounts;
use dsh_store::format::safe_int_value;
use dsh_store::log::Ending;
use serde_json::{Value, json};

/// The semantic-conventions schema the attributes follow.
pub const SCHEMA_URL: &str = "https://opentelemetry.io/schemas/1.42.0";

/// Span kinds (OTLP `Span.SpanKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Internal = 1,
    Client = 3,
    Producer = 4,
    Consumer = 5,
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Str(String),
    Int(i64),
}

/// One span, ready for either encoding.
#[derive(Debug, Clone)]
pub struct Span {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    pub name: String,
    pub kind: Kind,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attributes: Vec<(&'static str, Attr)>,
    /// (trace id, span id) of linked spans.
    pub links: Vec<([u8; 16], [u8; 8])>,
    /// `Some(message)`: the span ended in an error.
    pub error: Option<String>,
}

/// FNV-1a, 64 bits, from `seed`: stable across builds and platforms (ids
/// must not change between exports).
fn fnv(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for p in parts {
        for b in p.iter().chain(&[0xff]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn span_id(parts: &[&[u8]]) -> [u8; 8] {
    let mut h = fnv(1, parts);
    // An all-zero id is invalid in OTLP.
    if h == 0 {
        h = 1;
    }
    h.to_be_bytes()
}

fn trace_id(parts: &[&[u8]]) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&fnv(2, parts).to_be_bytes());
    out[8..].copy_from_slice(&fnv(3, parts).to_be_bytes());
    if out == [0; 16] {
        out[15] = 1;
    }
    out
}

fn ns(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).saturating_mul(1_000_000)
}

/// A model step of a turn.
#[derive(Debug, Default)]
struct Step {
    seq: u64,
    start: i64,
    end: Option<i64>,
    provider: Option<String>,
    model: Option<String>,
    usage: TokenCounts,
}

/// A tool call of a turn.
#[derive(Debug)]
struct Tool {
    call_id: String,
    name: String,
    arguments: String,
    start: i64,
    end: Option<i64>,
    result: String,
    is_error: bool,
}

/// One turn of one session.
#[derive(Debug)]
struct Turn {
    number: u64,
    start_seq: u64,
    start: i64,
    end: Option<(i64, Ending)>,
    steps: Vec<Step>,
    tools: Vec<Tool>,
}

/// The turns of a session's own events, with their steps and tool calls,
/// and the time of its last event.
fn read_turns(corpus: &Corpus, index: usize) -> Result<(Vec<Turn>, i64), LogError> {
    let rec = corpus.record(index);
    let mut turns: Vec<Turn> = Vec::new();
    let mut last = 0i64;
    dsh_store::log::for_each_own_event(&rec.log(), &rec.header, |ev| {
        let seq = safe_int_value(ev.get("seq")).unwrap_or(0).max(0) as u64;
        let time = safe_int_value(ev.get("time")).unwrap_or(0);
        last = last.max(time);
        let data = &ev["data"];
        let turn_no = safe_int_value(data.get("turn")).unwrap_or(0).max(0) as u64;
        match ev["type"].as_str().unwrap_or("") {
            "turn/start" => turns.push(Turn {
                number: turn_no,
                start_seq: seq,
                start: time,
                end: None,
                steps: Vec::new(),
                tools: Vec::new(),
            }),
            "turn/end" => {
                if let Some(t) = turns.iter_mut().rev().find(|t| t.number == turn_no) {
                    t.end = Some((time, Ending::of(&data["reason"])));
                }
            }
            "step/start" => {
                if let Some(t) = turns.last_mut() {
                    t.steps.push(Step {
                        seq,
                        start: time,
                        ..Step::default()
                    });
                }
            }
            "step/end" => {
                if let Some(s) = turns.last_mut().and_then(|t| t.steps.last_mut()) {
                    s.end = Some(time);
                }
            }
            "assistant/message" => {
                let Some(t) = turns.last_mut() else { return };
                let message = &data["message"];
                if let Some(s) = t.steps.last_mut() {
                    let source = &message["source"];
                    s.provider = source["provider"].as_str().map(str::to_string);
                    s.model = source["model"].as_str().map(str::to_string);
                    let usage = &data["usage"];
                    s.usage
                        .add_call(usage.is_object(), |f| usage.get(f).and_then(Value::as_u64));
                }
                for b in message["content"].as_array().into_iter().flatten() {
                    if b["type"] == "tool-call" {
                        t.tools.push(Tool {
                            call_id: b["id"].as_str().unwrap_or("").to_string(),
                            name: b["name"].as_str().unwrap_or("").to_string(),
                            arguments: match &b["arguments"] {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            },
                            start: time,
                            end: None,
                            result: String::new(),
                            is_error: false,
                        });
                    }
                }
            }
            "tool/result" => {
                let Some(t) = turns.last_mut() else { return };
                for block in data["message"]["content"].as_array().into_iter().flatten() {
                    let id = block["toolCallId"].as_str().unwrap_or("");
                    if let Some(tool) = t.tools.iter_mut().rev().find(|c| c.call_id == id) {
                        tool.end = Some(time);
                        tool.is_error = block["isError"].as_bool().unwrap_or(false);
                        for c in block["content"].as_array().into_iter().flatten() {
                            if let Some(text) = c["text"].as_str() {
                                tool.result.push_str(text);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    })?;
    Ok((turns, last))
}

/// Where a session's spans went, for its children to find their parents;
/// kept while a child of it is still to come, and dropped with its last.
struct Placed {
    /// Per turn: (trace id, invoke span id, start, end).
    turns: Vec<([u8; 16], [u8; 8], i64, i64)>,
    tools: Vec<PlacedTool>,
    /// Its spans, held until its children found which calls delegated them.
    spans: Vec<Span>,
    /// Its children still to come.
    waiting: usize,
}

/// A tool call's span, and what tells whether it delegated a child's turn.
struct PlacedTool {
    trace: [u8; 16],
    span: [u8; 8],
    name: String,
    start: i64,
    end: i64,
    arguments: String,
    result: String,
    /// A child's turn was found to come from it (a PRODUCER).
    delegated: bool,
}

impl PlacedTool {
    /// Whether this call started a turn of child `id` (created at
    /// `created`) at `at`: it came before, and either its arguments name
    /// the child (a message to it; an interrupt starts no turn) or the child
    /// was created while it ran and its result names it (the spawn).
    fn delegates(&self, id: &str, created: i64, at: i64) -> bool {
        self.start <= at
            && ((self.arguments.contains(id) && self.name != "interrupt_agent")
                || (self.result.contains(id) && (self.start..=self.end).contains(&created)))
    }
}

/// How many sessions' logs are read at once (in parallel): what the export
/// holds grows with this, never with the store.
const READ_AT_ONCE: usize = 256;

/// Every span of the trees of `roots`, handed to `emit` as it is made: a
/// session's spans together and in order, a session with children after
/// all of its children's (a call's kind, PRODUCER or not, is known only
/// once they are read). What is held at any time is the logs being read
/// and the sessions on the way down to the one being read, never the
/// store's spans. A session whose log cannot be read goes to `unreadable`
/// and its children start their own traces. Stops at `emit`'s first error.
pub fn each_span<E>(
    corpus: &Corpus,
    roots: &[usize],
    content: bool,
    mut emit: impl FnMut(Span) -> Result<(), E>,
    mut unreadable: impl FnMut(&str, LogError),
) -> Result<(), E> {
    let mut visits = Preorder::new(corpus, roots.iter().copied());
    let mut placed: std::collections::HashMap<usize, Placed> = Default::default();
    loop {
        let chunk: Vec<Visit> = visits.by_ref().take(READ_AT_ONCE).collect();
        if chunk.is_empty() {
            break;
        }
        let read = crate::support::parallel::par_map(&chunk, |v| read_turns(corpus, v.index));
        for (visit, turns) in chunk.iter().zip(read) {
            let Visit {
                index,
                parent,
                children,
                ..
            } = *visit;
            match turns {
                Ok((turns, last)) => {
                    let mut mine = place(
                        corpus,
                        index,
                        &turns,
                        last,
                        parent.and_then(|p| placed.get_mut(&p)),
                        content,
                    );
                    mine.waiting = children;
                    if mine.waiting == 0 {
                        flush(mine, &mut emit)?;
                    } else {
                        placed.insert(index, mine);
                    }
                }
                Err(e) => unreadable(corpus.id(index), e),
            }
            // Its parent's last child: the parent's spans are complete.
            if let Some(p) = parent
                && let Some(pl) = placed.get_mut(&p)
            {
                pl.waiting -= 1;
                if pl.waiting == 0
                    && let Some(pl) = placed.remove(&p)
                {
                    flush(pl, &mut emit)?;
                }
            }
        }
    }
    Ok(())
}

/// Hand on a session's spans, its calls that delegated a child's turn as
/// PRODUCERs.
fn flush<E>(placed: Placed, emit: &mut impl FnMut(Span) -> Result<(), E>) -> Result<(), E> {
    let producers: Vec<[u8; 8]> = placed
        .tools
        .iter()
        .filter(|t| t.delegated)
        .map(|t| t.span)
        .collect();
    for mut s in placed.spans {
        if producers.contains(&s.span_id) {
            s.kind = Kind::Producer;
        }
        emit(s)?;
    }
    Ok(())
}

/// The spans of one session's `turns`, nested under the calls of `parent`
/// that delegated them (marked there).
fn place(
    corpus: &Corpus,
    index: usize,
    turns: &[Turn],
    last: i64,
    mut parent: Option<&mut Placed>,
    content: bool,
) -> Placed {
    let id = corpus.id(index);
    let name = corpus
        .root_of(index)
        .map_or_else(|_| id.to_string(), |r| corpus.v2_name(r, index));
    let mut mine = Placed {
        turns: Vec::new(),
        tools: Vec::new(),
        spans: Vec::new(),
        waiting: 0,
    };
    let out = &mut mine.spans;
    for turn in turns {
        let seq = turn.start_seq.to_string();
        let invoke = span_id(&[id.as_bytes(), b"turn", seq.as_bytes()]);
        let end = turn.end.as_ref().map_or(last, |(t, _)| *t);
        // The call that delegated this turn: the latest before it that
        // names this session.
        let created = corpus.store.sessions.created_at(index);
        let delegated = parent.as_deref_mut().and_then(|p| {
            p.tools
                .iter_mut()
                .filter(|t| t.delegates(id, created, turn.start))
                .max_by_key(|t| t.start)
        });
        let (trace, parent_span, kind, mut links) = match delegated {
            Some(t) => {
                t.delegated = true;
                (
                    t.trace,
                    Some(t.span),
                    Kind::Consumer,
                    vec![(t.trace, t.span)],
                )
            }
            None => {
                let trace = trace_id(&[id.as_bytes(), b"trace", seq.as_bytes()]);
                // Linked to the parent's turn running when it started.
                let running = parent.as_deref().and_then(|p| {
                    p.turns
                        .iter()
                        .find(|(_, _, s, e)| *s <= turn.start && turn.start <= *e)
                });
                let links = running
                    .map(|(t, s, _, _)| vec![(*t, *s)])
                    .unwrap_or_default();
                (trace, None, Kind::Internal, links)
            }
        };
        let mut attributes = vec![
            ("gen_ai.operation.name", Attr::Str("invoke_agent".into())),
            ("gen_ai.agent.id", Attr::Str(id.to_string())),
            ("gen_ai.agent.name", Attr::Str(name.clone())),
            ("gen_ai.conversation.id", Attr::Str(id.to_string())),
            ("dsh.turn.number", Attr::Int(int64(turn.number))),
        ];
        let mut error = None;
        match &turn.end {
            Some((_, ending)) => {
                attributes.push(("dsh.turn.ending", Attr::Str(ending.word().to_string())));
                if let Ending::Error(m) = ending {
                    error = Some(m.clone());
                }
            }
            None => attributes.push(("dsh.turn.ending", Attr::Str("open".into()))),
        }
        links.dedup();
        out.push(Span {
            trace_id: trace,
            span_id: invoke,
            parent: parent_span,
            name: format!("invoke_agent {name}"),
            kind,
            start_ns: ns(turn.start),
            end_ns: ns(end),
            attributes,
            links,
            error,
        });
        mine.turns.push((trace, invoke, turn.start, end));
        for step in &turn.steps {
            out.push(step_span(id, trace, invoke, step, end));
        }
        for tool in &turn.tools {
            let span = span_id(&[
                id.as_bytes(),
                b"tool",
                tool.call_id.as_bytes(),
                seq.as_bytes(),
            ]);
            let mut attributes = vec![
                ("gen_ai.operation.name", Attr::Str("execute_tool".into())),
                ("gen_ai.tool.name", Attr::Str(tool.name.clone())),
                ("gen_ai.tool.call.id", Attr::Str(tool.call_id.clone())),
                ("gen_ai.tool.type", Attr::Str("function".into())),
            ];
            if content {
                attributes.push((
                    "gen_ai.tool.call.arguments",
                    Attr::Str(tool.arguments.clone()),
                ));
                attributes.push(("gen_ai.tool.call.result", Attr::Str(tool.result.clone())));
            }
            out.push(Span {
                trace_id: trace,
                span_id: span,
                parent: Some(invoke),
                name: format!("execute_tool {}", tool.name),
                // PRODUCER once a child's turn is found to come from it.
                kind: Kind::Internal,
                start_ns: ns(tool.start),
                end_ns: ns(tool.end.unwrap_or(end)),
                attributes,
                links: Vec::new(),
                error: tool.is_error.then(|| tool.result.clone()),
            });
            mine.tools.push(PlacedTool {
                trace,
                span,
                name: tool.name.clone(),
                start: tool.start,
                end: tool.end.unwrap_or(end),
                arguments: tool.arguments.clone(),
                result: tool.result.clone(),
                delegated: false,
            });
        }
    }
    mine
}

/// A model step's `chat` span.
fn step_span(id: &str, trace: [u8; 16], invoke: [u8; 8], step: &Step, end: i64) -> Span {
    let s = step.seq.to_string();
    let model = step.model.clone().unwrap_or_default();
    let u = &step.usage;
    let mut attributes = vec![
        ("gen_ai.operation.name", Attr::Str("chat".into())),
        ("gen_ai.conversation.id", Attr::Str(id.to_string())),
    ];
    if let Some(p) = &step.provider {
        attributes.push(("gen_ai.provider.name", Attr::Str(p.clone())));
    }
    if step.model.is_some() {
        attributes.push(("gen_ai.request.model", Attr::Str(model.clone())));
    }
    if u.calls > 0 {
        let input = u
            .input_tokens
            .saturating_add(u.cache_read_tokens)
            .saturating_add(u.cache_write_tokens);
        attributes.push(("gen_ai.usage.input_tokens", Attr::Int(int64(input))));
        attributes.push((
            "gen_ai.usage.output_tokens",
            Attr::Int(int64(u.output_tokens)),
        ));
        if u.cache_read_tokens > 0 {
            attributes.push((
                "gen_ai.usage.cache_read.input_tokens",
                Attr::Int(int64(u.cache_read_tokens)),
            ));
        }
        if u.cache_write_tokens > 0 {
            attributes.push((
                "gen_ai.usage.cache_creation.input_tokens",
                Attr::Int(int64(u.cache_write_tokens)),
            ));
        }
    }
    Span {
        trace_id: trace,
        span_id: span_id(&[id.as_bytes(), b"step", s.as_bytes()]),
        parent: Some(invoke),
        name: if model.is_empty() {
            "chat".into()
        } else {
            format!("chat {model}")
        },
        kind: Kind::Client,
        start_ns: ns(step.start),
        end_ns: ns(step.end.unwrap_or(end)),
        attributes,
        links: Vec::new(),
        error: None,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attr_json(key: &str, v: &Attr) -> Value {
    match v {
        Attr::Str(s) => json!({"key": key, "value": {"stringValue": s}}),
        Attr::Int(n) => json!({"key": key, "value": {"intValue": n.to_string()}}),
    }
}

/// The resource's and the scope's attributes.
pub fn resource(store: &std::path::Path) -> Vec<(&'static str, Attr)> {
    vec![
        ("service.name", Attr::Str("dsh".into())),
        ("dsh.store", Attr::Str(store.display().to_string())),
    ]
}

/// One span in OTLP/JSON: ids in hex, times and 64-bit integers as
/// strings, enums as numbers.
fn span_json(s: &Span) -> Value {
    let mut v = json!({
        "traceId": hex(&s.trace_id),
        "spanId": hex(&s.span_id),
        "name": s.name,
        "kind": s.kind as i32,
        "startTimeUnixNano": s.start_ns.to_string(),
        "endTimeUnixNano": s.end_ns.to_string(),
        "attributes": s.attributes.iter().map(|(k, a)| attr_json(k, a)).collect::<Vec<_>>(),
        "status": match &s.error {
            Some(m) => json!({"code": 2, "message": m}),
            None => json!({}),
        },
    });
    if let Some(p) = s.parent {
        v["parentSpanId"] = json!(hex(&p));
    }
    if !s.links.is_empty() {
        v["links"] = s
            .links
            .iter()
            .map(|(t, sp)| json!({"traceId": hex(t), "spanId": hex(sp)}))
            .collect();
    }
    v
}

/// OTLP/JSON (`ExportTraceServiceRequest`) written a span at a time: the
/// document is the one `serde_json` gives for the whole request, its
/// `spans` array (the last field, keys being sorted) filled as spans come.
pub struct JsonWriter<W: std::io::Write> {
    out: W,
    /// What closes the document after the last span.
    tail: String,
    spans: u64,
}

impl<W: std::io::Write> JsonWriter<W> {
    pub fn begin(mut out: W, resource: &[(&'static str, Attr)]) -> std::io::Result<Self> {
        let whole = json!({
            "resourceSpans": [{
                "resource": {"attributes": resource.iter().map(|(k, a)| attr_json(k, a)).collect::<Vec<_>>()},
                "scopeSpans": [{
                    "scope": {"name": "dsh-agents", "version": env!("CARGO_PKG_VERSION")},
                    "spans": [],
                }],
                "schemaUrl": SCHEMA_URL,
            }]
        })
        .to_string();
        const EMPTY: &str = "\"spans\":[]";
        let at = whole
            .find(EMPTY)
            .map_or(whole.len(), |i| i + EMPTY.len() - 1);
        out.write_all(&whole.as_bytes()[..at])?;
        Ok(JsonWriter {
            out,
            tail: whole[at..].to_string(),
            spans: 0,
        })
    }

    pub fn span(&mut self, s: &Span) -> std::io::Result<()> {
        if self.spans > 0 {
            self.out.write_all(b",")?;
        }
        serde_json::to_writer(&mut self.out, &span_json(s))?;
        self.spans += 1;
        Ok(())
    }

    /// Close the document; the spans written and the writer.
    pub fn end(mut self) -> std::io::Result<(u64, W)> {
        self.out.write_all(self.tail.as_bytes())?;
        self.out.flush()?;
        Ok((self.spans, self.out))
    }
}

/// OTLP integers are signed 64-bit: a count above `i64::MAX` is sent as
/// `i64::MAX`, never wrapped to a negative number.
fn int64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_past_the_signed_range_are_clamped_not_wrapped() {
        for (n, want) in [
            (0, 0),
            (42, 42),
            (i64::MAX as u64, i64::MAX),
            (1 << 63, i64::MAX),
            (u64::MAX, i64::MAX),
        ] {
            assert_eq!(super::int64(n), want, "{n}");
        }
    }
}
