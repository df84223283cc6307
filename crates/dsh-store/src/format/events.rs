//! Event-line rules of the rc.8 read path: the envelope, the legacy shapes
//! DSH still upgrades, message shapes, and the known event types. A log
//! whose committed events break any of them is unreadable.

use crate::format::header::MAX_SAFE_INTEGER;
use crate::format::jv::{Jv, Obj};
use serde_json::Value;

/// A safe integer (`Number.isSafeInteger`) from a number's readings.
fn safe_int_of(int: Option<i64>, float: Option<f64>) -> Option<i64> {
    if let Some(i) = int {
        return (i.abs() <= MAX_SAFE_INTEGER).then_some(i);
    }
    let f = float?;
    (f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64).then_some(f as i64)
}

pub fn safe_int(v: Option<&Jv>) -> Option<i64> {
    let v = v?;
    safe_int_of(v.as_i64(), v.as_f64())
}

/// `safe_int` of a `serde_json::Value`.
pub fn safe_int_value(v: Option<&Value>) -> Option<i64> {
    let v = v?;
    safe_int_of(v.as_i64(), v.as_f64())
}

pub fn has_exact_keys(map: &Obj, keys: &[&str]) -> bool {
    map.len() == keys.len() && keys.iter().all(|k| map.contains_key(k))
}

fn has_only_keys(map: &Obj, required: &[&str], optional: &[&str]) -> bool {
    map.keys()
        .all(|k| required.contains(&k) || optional.contains(&k))
        && required.iter().all(|k| map.contains_key(k))
}

fn has_provider_model(v: Option<&Jv>) -> bool {
    let nonempty = |k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Jv::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    nonempty("provider") && nonempty("model")
}

/// An event DSH's restore path refuses, with the seq it has; its text is
/// rc.8's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("seed event at index {index} has an invalid event envelope")]
    Envelope { index: usize },
    #[error("seed event at index {index} uses unsupported legacy request/header-delta format")]
    LegacyHeaderDelta { index: usize },
    #[error("session event at seq {index} carries surface metadata on a non-surface type")]
    SurfaceMetadata { index: usize },
    #[error(
        "seed event at index {index} uses unsupported legacy request/header reason \"fallback\""
    )]
    LegacyFallback { index: usize },
    #[error("seed request/header at index {index} lacks provider/model")]
    NoProviderModel { index: usize },
    #[error("malformed pre-react-loop turn/start at seq {index}")]
    LegacyTurnStart { index: usize },
    #[error("malformed pre-react-loop turn/end at seq {index}")]
    LegacyTurnEnd { index: usize },
    #[error("malformed pre-react-loop steering/message at seq {index}")]
    LegacySteering { index: usize },
    /// A message event whose message DSH's `assertMessageEventShape` refuses.
    #[error("session event at seq {index} {problem}")]
    Message {
        index: usize,
        problem: MessageProblem,
    },
    #[error("event type \"{ty}\" (seq {index}) unknown to this harness and not marked ignorable")]
    UnknownType { ty: String, index: usize },
}

/// What is wrong with a message event's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MessageProblem {
    #[error("lacks an identified message")]
    Unidentified,
    #[error("message must have role \"{0}\"")]
    Role(&'static str),
    #[error("message has invalid source")]
    Source,
    #[error("message has invalid content")]
    Content,
    #[error("message must have model source")]
    ModelSource,
    #[error("message must have tool source")]
    ToolSource,
    #[error("message must contain one tool-result block")]
    OneToolResult,
    #[error("message has mismatched tool call ids")]
    MismatchedCallIds,
}

/// Validate one committed event as rc.8's restore path does. `index` is its seq.
/// DSH's restore-time envelope and payload checks of one event of a log of
/// format generation `generation`.
pub fn validate_event(value: &Jv, index: usize, generation: u32) -> Result<(), EventError> {
    let envelope_err = || EventError::Envelope { index };
    let Jv::Obj(ev) = value else {
        return Err(envelope_err());
    };
    for key in ev.keys() {
        if !matches!(
            key,
            "type" | "seq" | "time" | "data" | "surfaceOp" | "sourceEventSeqs" | "ignorable"
        ) {
            return Err(envelope_err());
        }
    }
    let Some(ty) = ev.get("type").and_then(Jv::as_str) else {
        return Err(envelope_err());
    };
    if ty == "request/header-delta" {
        return Err(EventError::LegacyHeaderDelta { index });
    }
    if safe_int(ev.get("seq")).is_none_or(|s| s < 0)
        || safe_int(ev.get("time")).is_none()
        || !ev.contains_key("data")
    {
        return Err(envelope_err());
    }
    let ignorable = match ev.get("ignorable") {
        None => false,
        Some(Jv::Bool(true)) => true,
        Some(_) => return Err(envelope_err()),
    };
    let surface = crate::format::generation::is_surface(generation, ty);
    if !surface && (ev.contains_key("surfaceOp") || ev.contains_key("sourceEventSeqs")) {
        return Err(EventError::SurfaceMetadata { index });
    }
    let data = ev.get("data").unwrap_or(&Jv::Null);
    match ty {
        "request/header" => {
            if data.get("reason").and_then(Jv::as_str) == Some("fallback") {
                return Err(EventError::LegacyFallback { index });
            }
            if !has_provider_model(data.get("header").and_then(|h| h.get("config"))) {
                return Err(EventError::NoProviderModel { index });
            }
        }
        "turn/start" => check_legacy_turn_start(data, index)?,
        "turn/end" => check_legacy_turn_end(data, index)?,
        "steering/message" => return check_legacy_steering(data, index),
        _ => {}
    }
    // A generation-3 system message has its own shape (a system-role
    // message), which no listing reads.
    if surface && ty != "system/message" {
        check_message_shape(ty, data, index)?;
    }
    if !ignorable && !crate::format::generation::known_type(generation, ty) {
        return Err(EventError::UnknownType {
            ty: ty.to_string(),
            index,
        });
    }
    Ok(())
}

fn check_legacy_turn_start(data: &Jv, index: usize) -> Result<(), EventError> {
    let Jv::Obj(d) = data else {
        return Ok(());
    };
    if !d.contains_key("trigger") {
        return Ok(());
    }
    let ok = safe_int(d.get("turn")).is_some_and(|t| t >= 1)
        && has_only_keys(d, &["turn", "trigger"], &[])
        && d.get("trigger")
            .and_then(|t| t.get("kind"))
            .and_then(Jv::as_str)
            .is_some_and(|k| !k.is_empty());
    if ok {
        Ok(())
    } else {
        Err(EventError::LegacyTurnStart { index })
    }
}

fn check_legacy_turn_end(data: &Jv, index: usize) -> Result<(), EventError> {
    let Jv::Obj(d) = data else {
        return Ok(());
    };
    let bad = || Err(EventError::LegacyTurnEnd { index });
    let Some(Jv::Obj(reason)) = d.get("reason") else {
        return bad();
    };
    if safe_int(d.get("turn")).is_none_or(|t| t < 1) || !has_only_keys(d, &["turn", "reason"], &[])
    {
        return bad();
    }
    let Some(kind) = reason.get("kind").and_then(Jv::as_str) else {
        return bad();
    };
    let only_kind = has_only_keys(reason, &["kind"], &[]);
    let ok = match kind {
        "completed" | "blocked" | "max-tokens" | "interrupted" | "disposed" => only_kind,
        "aborted" => reason.contains_key("reason") || only_kind,
        "error" => {
            reason.contains_key("error")
                || (safe_int(reason.get("step")).is_some_and(|s| s >= 0)
                    && (reason.get("failure").is_some_and(Jv::is_object)
                        || reason.get("message").is_some_and(Jv::is_string)))
        }
        _ => true,
    };
    if ok { Ok(()) } else { bad() }
}

fn check_legacy_steering(data: &Jv, index: usize) -> Result<(), EventError> {
    let bad = || Err(EventError::LegacySteering { index });
    let Jv::Obj(d) = data else { return bad() };
    let turn_ok = safe_int(d.get("turn")).is_some();
    if turn_ok
        && has_only_keys(d, &["turn", "message"], &[])
        && let Some(message @ Jv::Obj(_)) = d.get("message")
    {
        return check_message_shape("user/message", message, index);
    }
    if !turn_ok || !has_only_keys(d, &["turn", "content", "source"], &[]) {
        return bad();
    }
    let mut migrated = d.clone();
    migrated.remove("turn");
    migrated.insert("id", Jv::str("legacy"));
    migrated.insert("role", Jv::str("user"));
    check_message_shape("user/message", &Jv::Obj(migrated), index)
}

/// `assertMessageEventShape`, after DSH's upgrade of pre-identity messages.
fn check_message_shape(ty: &str, data: &Jv, index: usize) -> Result<(), EventError> {
    let bad = |problem| Err(EventError::Message { index, problem });
    let legacy = data.as_object().is_some_and(|d| !d.contains_key("message"));
    let upgraded;
    let message: Option<&Jv> = match ty {
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
                d.insert("id", Jv::str("legacy"));
                d.insert("role", Jv::str("user"));
                upgraded = Jv::Obj(d);
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
            source.insert("kind", Jv::str("model"));
            upgraded = Jv::Obj(Obj::of([
                ("id", Jv::str("legacy")),
                ("role", Jv::str("assistant")),
                ("content", data["content"].clone()),
                ("source", Jv::Obj(source)),
            ]));
            Some(&upgraded)
        }
        "tool/result"
            if legacy
                && data.get("callId").is_some()
                && data.get("content").is_some()
                && data.get("isError").is_some() =>
        {
            let block = Obj::of([
                ("type", Jv::str("tool-result")),
                ("toolCallId", data["callId"].clone()),
                ("content", data["content"].clone()),
                ("isError", data["isError"].clone()),
            ]);
            let source = Obj::of([
                ("kind", Jv::str("tool")),
                ("callId", data["callId"].clone()),
            ]);
            upgraded = Jv::Obj(Obj::of([
                ("id", Jv::str("legacy")),
                ("role", Jv::str("user")),
                ("content", Jv::Arr(vec![Jv::Obj(block)])),
                ("source", Jv::Obj(source)),
            ]));
            Some(&upgraded)
        }
        _ => data.get("message"),
    };
    let Some(Jv::Obj(m)) = message else {
        return bad(MessageProblem::Unidentified);
    };
    if m.get("id").and_then(Jv::as_str).is_none_or(str::is_empty) {
        return bad(MessageProblem::Unidentified);
    }
    let role = if ty == "assistant/message" {
        "assistant"
    } else {
        "user"
    };
    if m.get("role").and_then(Jv::as_str) != Some(role) {
        return bad(MessageProblem::Role(role));
    }
    let source = m.get("source");
    let kind = source.and_then(|s| s.get("kind")).and_then(Jv::as_str);
    if !source.is_some_and(Jv::is_object) || kind.is_none_or(str::is_empty) {
        return bad(MessageProblem::Source);
    }
    let Some(Jv::Arr(content)) = m.get("content") else {
        return bad(MessageProblem::Content);
    };
    match ty {
        "assistant/message" if kind != Some("model") || !has_provider_model(source) => {
            bad(MessageProblem::ModelSource)
        }
        "tool/result" => {
            let call_id = source.and_then(|s| s.get("callId")).and_then(Jv::as_str);
            if kind != Some("tool") || call_id.is_none_or(str::is_empty) {
                return bad(MessageProblem::ToolSource);
            }
            let block = content.first();
            let one = content.len() == 1
                && block.and_then(|b| b.get("type")).and_then(Jv::as_str) == Some("tool-result")
                && block
                    .and_then(|b| b.get("content"))
                    .is_some_and(Jv::is_array);
            if !one {
                return bad(MessageProblem::OneToolResult);
            }
            if block.and_then(|b| b.get("toolCallId")).and_then(Jv::as_str) != call_id {
                return bad(MessageProblem::MismatchedCallIds);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every type of the vocabulary is known, and only those.
    #[test]
    fn known_types_are_found() {
        for ty in crate::format::generation::KNOWN_EVENT_TYPES {
            let event = format!(r#"{{"type":"{ty}","seq":0,"time":1,"data":{{}}}}"#);
            let value = crate::format::jv_read::parse(event.as_bytes()).unwrap();
            let unknown = validate_event(&value, 0, 0)
                .err()
                .is_some_and(|e| matches!(e, EventError::UnknownType { .. }));
            assert!(!unknown, "{ty}");
        }
        let event = r#"{"type":"made/up","seq":0,"time":1,"data":{}}"#;
        let value = crate::format::jv_read::parse(event.as_bytes()).unwrap();
        assert!(
            validate_event(&value, 0, 0).unwrap_err()
                == EventError::UnknownType {
                    ty: "made/up".into(),
                    index: 0
                }
        );
    }

    fn json(text: &str) -> Jv<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn envelope_rules() {
        assert!(
            validate_event(
                &json(r#"{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}"#),
                0,
                0
            )
            .is_ok()
        );
        assert!(
            validate_event(
                &json(r#"{"type":"turn/start","seq":0,"time":1,"data":{"turn":1},"extra":1}"#),
                0,
                0
            )
            .is_err()
        );
        assert!(
            validate_event(
                &json(r#"{"type":"x/unknown","seq":0,"time":1,"data":null}"#),
                0,
                0
            )
            .is_err()
        );
        assert!(
            validate_event(
                &json(r#"{"type":"x/unknown","seq":0,"time":1,"data":null,"ignorable":true}"#),
                0,
                0
            )
            .is_ok()
        );
        assert!(validate_event(&json(r#"{"type":"user/message","seq":0,"time":1,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":""}}"#), 0, 0).is_err());
    }
}
