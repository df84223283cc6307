//! Event-line rules of the rc.8 read path: packed chunk rows, the envelope,
//! the legacy shapes DSH still upgrades, message shapes, and the known event
//! types. A log whose committed events break any of them is unreadable.

use crate::header::MAX_SAFE_INTEGER;
use serde_json::{Map, Value};

/// The rc.8 event vocabulary (`KNOWN_SESSION_EVENT_TYPES`).
pub const KNOWN_EVENT_TYPES: &[&str] = &[
    "agent-preset/selected",
    "agent/inbox/spliced",
    "approval/asked",
    "approval/decided",
    "approval/policy",
    "assistant/chunk",
    "assistant/message",
    "command/done",
    "command/run",
    "compaction/end",
    "compaction/prune",
    "compaction/start",
    "compaction/summary",
    "feedback/record",
    "goal/change",
    "hook/invoked",
    "hook/result",
    "llm/retry",
    "llm/retry-started",
    "permission/preset",
    "plan/mode",
    "request/context",
    "request/header",
    "sandbox/mode",
    "schedule/change",
    "session/end-seed",
    "session/title",
    "session/title-llm-request",
    "step/end",
    "step/start",
    "subagent/descriptor",
    "team/member",
    "team/message/delivered",
    "team/message/queued",
    "team/task",
    "todo/write",
    "tool-workflow/agent-end",
    "tool-workflow/agent-start",
    "tool-workflow/run-end",
    "tool-workflow/run-start",
    "tool/call",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
    "tool/result",
    "turn/end",
    "turn/start",
    "user/message",
    "web/deepseek-search-llm-request",
];

/// A decoded event: what the scanner and the folds need of it.
#[derive(Debug, Clone)]
pub struct Event {
    pub seq: Value,
    pub value: Value,
}

impl Event {
    pub fn event_type(&self) -> Option<&str> {
        self.value.get("type").and_then(Value::as_str)
    }
}

pub fn safe_int(v: Option<&Value>) -> Option<i64> {
    let v = v?;
    if let Some(i) = v.as_i64() {
        return (i.abs() <= MAX_SAFE_INTEGER).then_some(i);
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64).then_some(f as i64)
}

fn has_exact_keys(map: &Map<String, Value>, keys: &[&str]) -> bool {
    map.len() == keys.len() && keys.iter().all(|k| map.contains_key(*k))
}

fn has_only_keys(map: &Map<String, Value>, required: &[&str], optional: &[&str]) -> bool {
    map.keys()
        .all(|k| required.contains(&k.as_str()) || optional.contains(&k.as_str()))
        && required.iter().all(|k| map.contains_key(*k))
}

/// Decode one parsed line into its events (`decodeStorageRecord`): packed
/// chunk rows expand, every other value passes through unvalidated.
pub fn decode_storage_record(value: Value) -> Result<Vec<Value>, String> {
    let tag = match &value {
        Value::Object(m) => m.get("type").and_then(Value::as_str).unwrap_or(""),
        _ => "",
    };
    if !matches!(tag, "text-chunks" | "reasoning-chunks" | "tool-call-chunks") {
        return Ok(vec![value]);
    }
    let tag = tag.to_string();
    let malformed = |why: &str| format!("malformed {tag} storage row: {why}");
    let Value::Object(row) = value else {
        unreachable!("tag read from an object")
    };
    if !has_exact_keys(&row, &["type", "seq0", "time0", "data"]) {
        return Err(malformed(
            "envelope must be exactly {type, seq0, time0, data}",
        ));
    }
    let seq0 = safe_int(row.get("seq0"))
        .filter(|s| *s >= 0)
        .ok_or_else(|| malformed("seq0 must be a non-negative safe integer"))?;
    let time0 =
        safe_int(row.get("time0")).ok_or_else(|| malformed("time0 must be a safe integer"))?;
    let Some(Value::Object(data)) = row.get("data") else {
        return Err(malformed("data must be an object"));
    };
    let payload_key = if tag == "tool-call-chunks" {
        let with_name =
            has_exact_keys(data, &["turn", "step", "index", "id", "name", "dt", "args"]);
        if !with_name && !has_exact_keys(data, &["turn", "step", "index", "id", "dt", "args"]) {
            return Err(malformed(
                "data must be exactly {turn, step, index, id, name?, dt, args}",
            ));
        }
        if !data["id"].is_string() || (with_name && !data["name"].is_string()) {
            return Err(malformed("id (and name when present) must be strings"));
        }
        "args"
    } else {
        if !has_exact_keys(data, &["turn", "step", "index", "dt", "texts"]) {
            return Err(malformed(
                "data must be exactly {turn, step, index, dt, texts}",
            ));
        }
        "texts"
    };
    if !data["turn"].is_number() || !data["step"].is_number() || !data["index"].is_number() {
        return Err(malformed("turn/step/index must be numbers"));
    }
    let members = match data.get(payload_key) {
        Some(Value::Array(a)) if !a.is_empty() && a.iter().all(Value::is_string) => a,
        _ => return Err(malformed("payload must be a non-empty string array")),
    };
    let dt: Vec<i64> = match data.get("dt") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|g| safe_int(Some(g)))
            .collect::<Option<_>>()
            .ok_or_else(|| malformed("dt must be an array of safe integers"))?,
        _ => return Err(malformed("dt must be an array of safe integers")),
    };
    if dt.len() != members.len() - 1 {
        return Err(malformed("dt length does not match members"));
    }
    if seq0 + members.len() as i64 - 1 > MAX_SAFE_INTEGER {
        return Err(malformed("member seqs must stay safe integers"));
    }
    let mut time = time0;
    let mut out = Vec::with_capacity(members.len());
    for (k, member) in members.iter().enumerate() {
        if k > 0 {
            time += dt[k - 1];
            if time.abs() > MAX_SAFE_INTEGER {
                return Err(malformed("member times must stay safe integers"));
            }
        }
        let mut chunk = Map::new();
        match tag.as_str() {
            "text-chunks" | "reasoning-chunks" => {
                let kind = if tag == "text-chunks" {
                    "text-delta"
                } else {
                    "reasoning-delta"
                };
                chunk.insert("type".into(), kind.into());
                chunk.insert("index".into(), data["index"].clone());
                chunk.insert("text".into(), member.clone());
            }
            _ => {
                chunk.insert("type".into(), "tool-call-delta".into());
                chunk.insert("index".into(), data["index"].clone());
                chunk.insert("id".into(), data["id"].clone());
                if let Some(name) = data.get("name") {
                    chunk.insert("name".into(), name.clone());
                }
                chunk.insert("argumentsDelta".into(), member.clone());
            }
        }
        out.push(serde_json::json!({
            "type": "assistant/chunk",
            "seq": seq0 + k as i64,
            "time": time,
            "data": {"turn": data["turn"], "step": data["step"], "chunk": chunk},
        }));
    }
    Ok(out)
}

fn has_provider_model(v: Option<&Value>) -> bool {
    let nonempty = |k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    nonempty("provider") && nonempty("model")
}

/// Validate one committed event as rc.8's restore path does. `index` is its seq.
pub fn validate_event(value: &Value, index: usize) -> Result<(), String> {
    let envelope_err = || format!("seed event at index {index} has an invalid event envelope");
    let Value::Object(ev) = value else {
        return Err(envelope_err());
    };
    for key in ev.keys() {
        if !matches!(
            key.as_str(),
            "type" | "seq" | "time" | "data" | "surfaceOp" | "sourceEventSeqs" | "ignorable"
        ) {
            return Err(envelope_err());
        }
    }
    let Some(ty) = ev.get("type").and_then(Value::as_str) else {
        return Err(envelope_err());
    };
    if ty == "request/header-delta" {
        return Err(format!(
            "seed event at index {index} uses unsupported legacy request/header-delta format"
        ));
    }
    if safe_int(ev.get("seq")).is_none_or(|s| s < 0)
        || safe_int(ev.get("time")).is_none()
        || !ev.contains_key("data")
    {
        return Err(envelope_err());
    }
    let ignorable = match ev.get("ignorable") {
        None => false,
        Some(Value::Bool(true)) => true,
        Some(_) => return Err(envelope_err()),
    };
    let surface = matches!(ty, "user/message" | "assistant/message" | "tool/result");
    if !surface && (ev.contains_key("surfaceOp") || ev.contains_key("sourceEventSeqs")) {
        return Err(format!(
            "session event at seq {index} carries surface metadata on a non-surface type"
        ));
    }
    let data = &ev["data"];
    match ty {
        "request/header" => {
            if data.get("reason").and_then(Value::as_str) == Some("fallback") {
                return Err(format!(
                    "seed event at index {index} uses unsupported legacy request/header reason \"fallback\""
                ));
            }
            if !has_provider_model(data.get("header").and_then(|h| h.get("config"))) {
                return Err(format!(
                    "seed request/header at index {index} lacks provider/model"
                ));
            }
        }
        "turn/start" => check_legacy_turn_start(data, index)?,
        "turn/end" => check_legacy_turn_end(data, index)?,
        "steering/message" => return check_legacy_steering(data, index),
        _ => {}
    }
    if surface {
        check_message_shape(ty, data, index)?;
    }
    if !ignorable && !KNOWN_EVENT_TYPES.contains(&ty) {
        return Err(format!(
            "event type \"{ty}\" (seq {index}) unknown to this harness and not marked ignorable"
        ));
    }
    Ok(())
}

fn check_legacy_turn_start(data: &Value, index: usize) -> Result<(), String> {
    let Value::Object(d) = data else {
        return Ok(());
    };
    if !d.contains_key("trigger") {
        return Ok(());
    }
    let ok = safe_int(d.get("turn")).is_some_and(|t| t >= 1)
        && has_only_keys(d, &["turn", "trigger"], &[])
        && d["trigger"]
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| !k.is_empty());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "malformed pre-react-loop turn/start at seq {index}"
        ))
    }
}

fn check_legacy_turn_end(data: &Value, index: usize) -> Result<(), String> {
    let Value::Object(d) = data else {
        return Ok(());
    };
    let bad = || Err(format!("malformed pre-react-loop turn/end at seq {index}"));
    let Some(Value::Object(reason)) = d.get("reason") else {
        return bad();
    };
    if safe_int(d.get("turn")).is_none_or(|t| t < 1) || !has_only_keys(d, &["turn", "reason"], &[])
    {
        return bad();
    }
    let Some(kind) = reason.get("kind").and_then(Value::as_str) else {
        return bad();
    };
    let only_kind = has_only_keys(reason, &["kind"], &[]);
    let ok = match kind {
        "completed" | "blocked" | "max-tokens" | "interrupted" | "disposed" => only_kind,
        "aborted" => reason.contains_key("reason") || only_kind,
        "error" => {
            reason.contains_key("error")
                || (safe_int(reason.get("step")).is_some_and(|s| s >= 0)
                    && (reason.get("failure").is_some_and(Value::is_object)
                        || reason.get("message").is_some_and(Value::is_string)))
        }
        _ => true,
    };
    if ok { Ok(()) } else { bad() }
}

fn check_legacy_steering(data: &Value, index: usize) -> Result<(), String> {
    let bad = || {
        Err(format!(
            "malformed pre-react-loop steering/message at seq {index}"
        ))
    };
    let Value::Object(d) = data else { return bad() };
    let turn_ok = safe_int(d.get("turn")).is_some();
    if turn_ok
        && d.get("message").is_some_and(Value::is_object)
        && has_only_keys(d, &["turn", "message"], &[])
    {
        return check_message_shape("user/message", &d["message"], index);
    }
    if !turn_ok || !has_only_keys(d, &["turn", "content", "source"], &[]) {
        return bad();
    }
    let mut migrated = d.clone();
    migrated.remove("turn");
    migrated.insert("id".into(), "legacy".into());
    migrated.insert("role".into(), "user".into());
    check_message_shape("user/message", &Value::Object(migrated), index)
}

/// `assertMessageEventShape`, after DSH's upgrade of pre-identity messages.
fn check_message_shape(ty: &str, data: &Value, index: usize) -> Result<(), String> {
    let subject = format!("session event at seq {index}");
    let legacy = data.as_object().is_some_and(|d| !d.contains_key("message"));
    let upgraded;
    let message: Option<&Value> = match ty {
        "user/message" => {
            let is_legacy = data.as_object().is_some_and(|d| {
                !d.contains_key("id")
                    && !d.contains_key("role")
                    && !d.contains_key("message")
                    && d.contains_key("content")
                    && d.contains_key("source")
            });
            if is_legacy {
                let mut d = data.as_object().cloned().unwrap_or_default();
                d.insert("id".into(), "legacy".into());
                d.insert("role".into(), "user".into());
                upgraded = Value::Object(d);
                Some(&upgraded)
            } else if data.is_object() {
                Some(data)
            } else {
                None
            }
        }
        "assistant/message"
            if legacy && data.get("content").is_some() && data.get("provenance").is_some() =>
        {
            let mut source = data["provenance"].as_object().cloned().unwrap_or_default();
            source.insert("kind".into(), "model".into());
            upgraded = serde_json::json!({"id":"legacy","role":"assistant","content":data["content"],"source":source});
            Some(&upgraded)
        }
        "tool/result"
            if legacy
                && data.get("callId").is_some()
                && data.get("content").is_some()
                && data.get("isError").is_some() =>
        {
            upgraded = serde_json::json!({"id":"legacy","role":"user",
                "content":[{"type":"tool-result","toolCallId":data["callId"],"content":data["content"],"isError":data["isError"]}],
                "source":{"kind":"tool","callId":data["callId"]}});
            Some(&upgraded)
        }
        _ => data.get("message"),
    };
    let Some(Value::Object(m)) = message else {
        return Err(format!("{subject} lacks an identified message"));
    };
    if m.get("id")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(format!("{subject} lacks an identified message"));
    }
    let role = if ty == "assistant/message" {
        "assistant"
    } else {
        "user"
    };
    if m.get("role").and_then(Value::as_str) != Some(role) {
        return Err(format!("{subject} message must have role \"{role}\""));
    }
    let source = m.get("source");
    let kind = source.and_then(|s| s.get("kind")).and_then(Value::as_str);
    if !source.is_some_and(Value::is_object) || kind.is_none_or(str::is_empty) {
        return Err(format!("{subject} message has invalid source"));
    }
    let Some(Value::Array(content)) = m.get("content") else {
        return Err(format!("{subject} message has invalid content"));
    };
    match ty {
        "assistant/message" if kind != Some("model") || !has_provider_model(source) => {
            Err(format!("{subject} message must have model source"))
        }
        "tool/result" => {
            let call_id = source.and_then(|s| s.get("callId")).and_then(Value::as_str);
            if kind != Some("tool") || call_id.is_none_or(str::is_empty) {
                return Err(format!("{subject} message must have tool source"));
            }
            let block = content.first();
            let one = content.len() == 1
                && block.and_then(|b| b.get("type")).and_then(Value::as_str) == Some("tool-result")
                && block
                    .and_then(|b| b.get("content"))
                    .is_some_and(Value::is_array);
            if !one {
                return Err(format!(
                    "{subject} message must contain one tool-result block"
                ));
            }
            if block
                .and_then(|b| b.get("toolCallId"))
                .and_then(Value::as_str)
                != call_id
            {
                return Err(format!("{subject} message has mismatched tool call ids"));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn packed_rows_expand() {
        let row = json!({"type":"text-chunks","seq0":14,"time0":100,"data":{"turn":2,"step":1,"index":0,"dt":[0,3],"texts":["Hel","lo"," world"]}});
        let events = decode_storage_record(row).unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[2]["seq"], 16);
        assert_eq!(events[2]["time"], 103);
        let bad = json!({"type":"text-chunks","seq0":14,"time0":100,"data":{"turn":2,"step":1,"index":0,"dt":[0],"texts":["a","b","c"]}});
        assert!(decode_storage_record(bad).is_err());
    }

    #[test]
    fn envelope_rules() {
        assert!(
            validate_event(
                &json!({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}),
                0
            )
            .is_ok()
        );
        assert!(
            validate_event(
                &json!({"type":"turn/start","seq":0,"time":1,"data":{"turn":1},"extra":1}),
                0
            )
            .is_err()
        );
        assert!(
            validate_event(&json!({"type":"x/unknown","seq":0,"time":1,"data":null}), 0).is_err()
        );
        assert!(
            validate_event(
                &json!({"type":"x/unknown","seq":0,"time":1,"data":null,"ignorable":true}),
                0
            )
            .is_ok()
        );
        assert!(validate_event(&json!({"type":"user/message","seq":0,"time":1,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":""}}), 0).is_err());
    }
}

/// rc.8's surface fold on restore (`SurfaceManager.validateNext`): every
/// message-producing event carries `surfaceOp` — `"append"`, or a replace of
/// a range of current surface nodes that cites them in `sourceEventSeqs` —
/// and a tool result may be rewritten only in its content.
#[derive(Debug, Default, Clone)]
pub struct Surface {
    /// Set when resumed from a scan cache without the earlier nodes: a
    /// replace then needs a full read (the caller falls back to one).
    partial: bool,
    nodes: Vec<u64>,
    /// Each current tool result's data minus its result content, canonical.
    tool_results: std::collections::HashMap<u64, String>,
}

/// Key-sorted JSON text: equal exactly when the values are deep-equal.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let body: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Value::String((*k).clone()), canonical(&m[*k])))
                .collect();
            format!("{{{}}}", body.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        // Numbers compare as JavaScript numbers do.
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |f| f.to_string()),
        other => other.to_string(),
    }
}

/// A tool result's data with the result content blanked, for the rewrite rule.
fn tool_result_rest(data: &Value) -> String {
    let mut rest = data.clone();
    if let Some(block) = rest.pointer_mut("/message/content/0") {
        block["content"] = Value::Null;
    }
    canonical(&rest)
}

fn event_seq(v: &Value) -> Option<u64> {
    safe_int(Some(v))
        .filter(|s| *s >= 0)
        .map(|s| s as u64)
        .filter(|_| v.is_number())
}

impl Surface {
    /// The state after resuming mid-log, where only appends can be checked.
    pub fn resumed() -> Surface {
        Surface {
            partial: true,
            ..Surface::default()
        }
    }

    pub fn apply(&mut self, ev: &Value, seq: u64) -> Result<(), String> {
        let ty = ev.get("type").and_then(Value::as_str).unwrap_or("");
        if !matches!(ty, "user/message" | "assistant/message" | "tool/result") {
            return Ok(());
        }
        let op = match ev.get("surfaceOp") {
            None => {
                return Err(format!(
                    "session event \"{ty}\" is surface-eligible and requires a surfaceOp marker"
                ));
            }
            Some(Value::String(s)) if s == "append" => None,
            Some(Value::Object(m)) => {
                let ok = m.len() == 3 && m.get("op").and_then(Value::as_str) == Some("replace");
                match (
                    ok,
                    m.get("start").and_then(event_seq),
                    m.get("end").and_then(event_seq),
                ) {
                    (true, Some(start), Some(end)) => Some((start, end)),
                    _ => {
                        return Err(format!(
                            "session event \"{ty}\" carries an invalid replace surfaceOp"
                        ));
                    }
                }
            }
            Some(_) => {
                return Err(format!(
                    "session event \"{ty}\" carries an invalid surfaceOp"
                ));
            }
        };
        let shadowed: Vec<u64> = match op {
            None => Vec::new(),
            Some(_) if self.partial => {
                return Err("surface history not cached; read the whole log".into());
            }
            Some((start, end)) => {
                let s = self.nodes.iter().position(|n| *n == start).ok_or(format!(
                    "surface replace: start seq {start} not found in surface"
                ))?;
                let e = self.nodes.iter().position(|n| *n == end).ok_or(format!(
                    "surface replace: end seq {end} not found in surface"
                ))?;
                if s > e {
                    return Err(format!(
                        "surface replace: start seq {start} is after end seq {end}"
                    ));
                }
                self.nodes[s..=e].to_vec()
            }
        };
        // sourceEventSeqs: dense, unique, earlier, covering every shadowed node.
        let mut sources = std::collections::HashSet::new();
        if let Some(raw) = ev.get("sourceEventSeqs") {
            let Value::Array(items) = raw else {
                return Err(format!(
                    "sourceEventSeqs on event at seq {seq} must be an array when present"
                ));
            };
            if items.is_empty() && ty != "assistant/message" {
                return Err("sourceEventSeqs must not be empty except on assistant/message".into());
            }
            let mut later = false;
            for item in items {
                let Some(s) = event_seq(item) else {
                    return Err(format!(
                        "session event \"{ty}\" sourceEventSeqs must densely contain non-negative safe integers"
                    ));
                };
                later |= s >= seq;
                sources.insert(s);
            }
            if sources.len() != items.len() {
                return Err("sourceEventSeqs must not contain duplicates".into());
            }
            if later {
                return Err(format!(
                    "sourceEventSeqs must reference earlier events (seq {seq})"
                ));
            }
        }
        if shadowed.iter().any(|s| !sources.contains(s)) {
            return Err(
                "surface replace: sourceEventSeqs must include every shadowed surface node".into(),
            );
        }
        if ty == "tool/result" {
            let rest = tool_result_rest(&ev["data"]);
            if op.is_some() {
                let [original] = shadowed.as_slice() else {
                    return Err(
                        "tool/result surface replacement must rewrite exactly one current node"
                            .into(),
                    );
                };
                match self.tool_results.get(original) {
                    None => {
                        return Err(
                            "tool/result surface replacement must target a current tool/result"
                                .into(),
                        );
                    }
                    Some(r) if *r != rest => {
                        return Err(
                            "tool/result surface replacement may change only content".into()
                        );
                    }
                    Some(_) => {}
                }
            }
            self.tool_results.insert(seq, rest);
        }
        match op {
            None => self.nodes.push(seq),
            Some((start, end)) => {
                let s = self.nodes.iter().position(|n| *n == start).unwrap_or(0);
                let e = self.nodes.iter().position(|n| *n == end).unwrap_or(s);
                self.nodes.splice(s..=e, [seq]);
            }
        }
        for gone in &shadowed {
            if *gone != seq {
                self.tool_results.remove(gone);
            }
        }
        Ok(())
    }
}

/// Parse one JSON line as JavaScript's `JSON.parse` would. `serde_json`
/// rejects escaped lone surrogates (`"\ud800"`), which JavaScript keeps in
/// its UTF-16 strings; such escapes become U+FFFD, which is also what Node
/// prints for a lone surrogate.
pub fn parse_json_line(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Err(e) if text.contains("\\u") => match replace_lone_surrogates(text) {
            Some(fixed) => serde_json::from_str(&fixed),
            None => Err(e),
        },
        other => other,
    }
}

fn hex4(b: &[u8]) -> Option<u16> {
    std::str::from_utf8(b.get(..4)?)
        .ok()
        .and_then(|s| u16::from_str_radix(s, 16).ok())
}

/// Rewrite unpaired `\uD800`–`\uDFFF` escapes inside strings; `None` when
/// there were none (so the original error stands).
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut last, mut changed, mut in_string) = (0, 0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string && i + 1 < b.len() => {
                if b[i + 1] == b'u'
                    && let Some(unit) = hex4(&b[i + 2..])
                {
                    let high = (0xD800..0xDC00).contains(&unit);
                    let low = (0xDC00..0xE000).contains(&unit);
                    let paired = high
                        && b.get(i + 6..i + 8) == Some(b"\\u")
                        && hex4(&b[i + 8..]).is_some_and(|n| (0xDC00..0xE000).contains(&n));
                    if paired {
                        i += 12;
                        continue;
                    }
                    if high || low {
                        out.push_str(&text[last..i]);
                        out.push_str("\\uFFFD");
                        changed = true;
                        i += 6;
                        last = i;
                        continue;
                    }
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

#[cfg(test)]
mod surrogate_tests {
    use super::*;

    #[test]
    fn lone_surrogates_parse_as_javascript_does() {
        assert_eq!(
            parse_json_line(r#"{"a":"x\ud800y"}"#).unwrap()["a"],
            "x\u{FFFD}y"
        );
        assert_eq!(
            parse_json_line(r#"{"a":"\udc00"}"#).unwrap()["a"],
            "\u{FFFD}"
        );
        assert_eq!(
            parse_json_line(r#"{"a":"\ud83d\ude00"}"#).unwrap()["a"],
            "😀"
        );
        assert_eq!(
            parse_json_line(r#"{"a":"\\ud800"}"#).unwrap()["a"],
            "\\ud800"
        );
        assert!(parse_json_line(r#"{"a":"\ud800"#).is_err());
    }
}
